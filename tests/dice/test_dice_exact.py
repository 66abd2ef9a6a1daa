"""The extended dice notation's exact engine: rerolls, threshold explosions, keep/drop over
exploded totals and success counting, against icepool and the rules' references."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from critlab.analysis.dice import exact as de
from critlab.analysis.dice.notation import dice_dist, parse
from critlab.analysis.dist import Dist

# icepool is exact in integers where it does not truncate; float64 over a few hundred
# terms rounds near 1e-16, so 1e-12 separates rounding from any real difference.
TOL = 1e-12
# icepool stops an explosion after `depth` extra rolls and leaves the cut mass on the last
# value. Each case below explodes with probability q <= 1/3 per roll at DEPTH 40, so what
# icepool misplaces is below 3**-40 ~ 1e-19: far under TOL, and comparing value by value on
# our support is a comparison of two exact answers.
DEPTH = 40
d2, d4, d6, d8, d10, d20 = (icepool.d(n) for n in (2, 4, 6, 8, 10, 20))


# rr<=T / ro<=T: "T or less" (a bare T is T alone, as in the field's tools)
def rr(die: icepool.Die, t: int) -> icepool.Die:
    return die.reroll(range(1, t + 1), depth="inf")


def ro(die: icepool.Die, t: int) -> icepool.Die:
    return die.reroll(range(1, t + 1), depth=1)


def boom(die: icepool.Die, at: int | None = None, depth: int = DEPTH) -> icepool.Die:
    at = die.max_outcome() if at is None else at
    return die.explode(range(at, die.max_outcome() + 1), depth=depth)


def rerolled_boom(first: icepool.Die, plain: icepool.Die, at: int | None = None) -> icepool.Die:
    """A die whose first face comes from ``first`` (rerolled) and whose added rolls are
    plain rolls exploding again (the rules: added rolls are never rerolled)."""
    at = plain.max_outcome() if at is None else at
    chain = boom(plain, at)
    return first.map(lambda f: f + chain if f >= at else f)


def successes(die: icepool.Die, at: int) -> icepool.Die:
    return (die >= at).map({True: 1, False: 0})


# Each reference built when its test runs (icepool computes a die as it is built: all of
# them at import took 8 s of every worker's collection).
EXACT = {
    # rerolls
    "1d20rr1": lambda: rr(d20, 1),
    "2d6ro<=2": lambda: 2 @ ro(d6, 2),
    "1d2ro1": lambda: ro(d2, 1),
    "3d8rr<=3": lambda: 3 @ rr(d8, 3),
    "2d6ro<=2+1d20rr1-3": lambda: 2 @ ro(d6, 2) + rr(d20, 1) - 3,
    # rerolls then keep / drop
    "4d6ro1dl1": lambda: ro(d6, 1).highest(4, 3),
    "4d6rr1kl2": lambda: rr(d6, 1).lowest(4, 2),
    "3d6rr<=2dh1": lambda: rr(d6, 2).lowest(3, 2),
    "5d10ro<=3kh1": lambda: ro(d10, 3).highest(5, 1),
    # success counting, kept or not, composed with sums
    "5d10cs>=8": lambda: 5 @ successes(d10, 8),
    "8d10cs>=7": lambda: 8 @ successes(d10, 7),
    "10d10cs>=1": lambda: 10 @ successes(d10, 1),
    "6d6kh3cs>=5": lambda: successes(d6, 5).highest(6, 3),
    "5d8kl2cs>=3": lambda: successes(d8, 3).lowest(5, 2),
    "4d6rr<=2cs>=5": lambda: 4 @ successes(rr(d6, 2), 5),
    "5d10cs>=8-1d4": lambda: 5 @ successes(d10, 8) - d4,
    "3d6ro1cs>=4+2d6": lambda: 3 @ successes(ro(d6, 1), 4) + 2 @ d6,
}

EXPLODING = {
    # threshold explosions
    "1d6!>=5": lambda: boom(d6, 5),
    "2d10!>=9": lambda: 2 @ boom(d10, 9),
    "1d4!>=4-1d6!>=6": lambda: boom(d4, 4) - boom(d6, 6),
    # rerolls then explosions (the added rolls are never rerolled)
    "1d6ro1!": lambda: rerolled_boom(ro(d6, 1), d6),
    "1d6rr1!": lambda: rerolled_boom(rr(d6, 1), d6),
    "2d8ro<=2!>=7": lambda: 2 @ rerolled_boom(ro(d8, 2), d8, 7),
    "1d6rr<=4!>=5": lambda: rerolled_boom(rr(d6, 4), d6, 5),  # every face left explodes, once at least
    # keep / drop over exploded totals (roll-and-keep)
    "3d10!kh2": lambda: boom(d10).highest(3, 2),
    "5d10!kh3": lambda: boom(d10).highest(5, 3),
    "6d10!kh3": lambda: boom(d10).highest(6, 3),
    "2d6!kl1": lambda: boom(d6).lowest(2, 1),
    "4d8!>=7dl1": lambda: boom(d8, 7).highest(4, 3),
    "4d6!dh2": lambda: boom(d6).lowest(4, 2),
    "3d6ro1!kh2": lambda: rerolled_boom(ro(d6, 1), d6).highest(3, 2),
    # success counting over exploded totals: exact in both engines below the threshold
    "5d10!cs>=8": lambda: 5 @ successes(boom(d10), 8),
    "3d6!cs>=10": lambda: 3 @ successes(boom(d6), 10),
    "6d10!kh3cs>=8": lambda: successes(boom(d10), 8).highest(6, 3),
    "4d6!kl2cs>=4": lambda: successes(boom(d6), 4).lowest(4, 2),
    "3d6ro1!cs>=9": lambda: 3 @ successes(rerolled_boom(ro(d6, 1), d6), 9),
    # sums of everything
    "2d6!+1d6ro1-1d4!kh1+3": lambda: 2 @ boom(d6) + ro(d6, 1) - boom(d4) + 3,
}


def probs_of(die: icepool.Die) -> dict[int, float]:
    den = die.denominator()
    return {int(v): float(Fraction(q, den)) for v, q in die.items()}


def assert_matches(text: str, theirs: icepool.Die, *, exact: bool) -> None:
    ours = dice_dist(text)
    ref = probs_of(theirs)
    for v in set(ref) | set(ours.to_dict()):
        if ours.min <= v <= ours.max:
            assert abs(ours.pmf(v) - ref.get(v, 0.0)) <= TOL, (text, v)
    # what icepool has outside our support is our cut-off tail
    outside = sum(p for v, p in ref.items() if not ours.min <= v <= ours.max)
    assert abs(outside - ours.tail) <= TOL, text
    assert abs(ours.mass + ours.tail - 1.0) <= TOL
    assert ours.tail < 1e-12
    if exact:
        assert ours.tail == 0.0 and outside == 0.0


@pytest.mark.parametrize("text", list(EXACT))
def test_matches_icepool_where_it_is_exact(text):
    assert_matches(text, EXACT[text](), exact=True)


@pytest.mark.parametrize("text", list(EXPLODING))
def test_explosions_match_icepool_at_depth(text):
    assert_matches(text, EXPLODING[text](), exact=False)


def test_roll_and_keep_matches_icepool_at_depth_30_to_1e9():
    # the closing check of the L5R examples, at icepool's depth 30 (d10: 10**-30 cut)
    ref = probs_of(boom(d10, depth=30).highest(10, 5))
    ours = dice_dist("10d10!kh5")
    assert max(abs(ours.pmf(v) - p) for v, p in ref.items()) <= 1e-9
    assert ours.tail < 1e-12


# -- the rules' references ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "mean"),
    [
        ("1d6!", 4.2),
        ("2d6ro<=2", 25 / 3),
        ("1d20rr1", 11.0),
        ("4d6ro1dl1", 22283789 / 1679616),
        ("1d6!>=5", 21 / 4),
        ("5d10cs>=8", 3 / 2),
        ("3d10!kh2", 15290 / 999),
        ("1d6ro1!", 71 / 15),
        ("1d6rr1!", 121 / 25),
        ("6d10!kh3", 26.5418219552),
        ("5d10!kh3", 24.5126050270),
        ("10d10!kh5", 44.8910968719),
    ],
)
def test_reference_means(text, mean):
    d = dice_dist(text)
    assert d.mean == pytest.approx(mean, abs=1e-9)
    assert abs(d.mass + d.tail - 1.0) <= TOL and d.tail < 1e-12


def test_exact_references_to_1e12():
    assert dice_dist("2d6ro<=2").mean == pytest.approx(25 / 3, abs=1e-12)
    assert dice_dist("4d6ro1dl1").mean == pytest.approx(22283789 / 1679616, abs=1e-12)
    assert dice_dist("5d10cs>=8").mean == pytest.approx(1.5, abs=1e-12)
    d = dice_dist("1d20rr1")
    assert d.to_dict().keys() == set(range(2, 21))
    assert all(abs(p - 1 / 19) <= 1e-15 for p in d.to_dict().values())


def test_success_count_with_dice_subtracted_ranges_both_ways():
    e = parse("5d10cs>=8-1d4")
    d = e.dist()
    assert (e.min, e.max) == (-4, 4) == (d.min, d.max)


# -- the pieces ------------------------------------------------------------------------------
def test_chain_tail_is_explicit_and_the_mean_exact():
    for sides, at in [(6, 6), (6, 2), (10, 8), (2, 2), (20, 11)]:
        d = de.chain_dist(sides, at, 1e-15)
        assert 0 < d.tail < 1e-15
        assert abs(d.mass + d.tail - 1.0) <= 1e-14
        # Wald: (expected number of rolls) x (mean roll) = (sides + 1) / 2 / (1 - q)
        q = (sides - at + 1) / sides
        assert d.mean == pytest.approx((sides + 1) / 2 / (1 - q), rel=1e-11)


def test_chain_against_a_direct_recursion():
    sides, at, top = 4, 3, 40
    memo: dict[int, float] = {}

    def p(v: int) -> float:  # P(chain == v) by first roll
        if v <= 0:
            return 0.0
        if v not in memo:
            memo[v] = (
                sum((1.0 if f < at else 0.0) * (f == v) for f in range(1, sides + 1)) / sides
                + sum(p(v - f) for f in range(at, sides + 1)) / sides
            )
        return memo[v]

    d = de.chain_dist(sides, at, 1e-15, reach=top)
    for v in range(top + 1):
        assert d.pmf(v) == pytest.approx(p(v), abs=1e-16)


@st.composite
def small_die(draw):
    n = draw(st.integers(1, 4))
    weights = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n).filter(any))
    tail_w = draw(st.integers(0, 2))
    total = sum(weights) + tail_w
    offset = draw(st.integers(-2, 3))
    return offset, [w / total for w in weights], tail_w / total


@settings(max_examples=60, deadline=None)
@given(small_die(), st.integers(1, 4), st.data(), st.booleans())
def test_keep_pool_against_enumeration(die, count, data, highest):
    # a per-die distribution with a tail above every value: enumerate every assignment of
    # the dice to values or to the tail ("T")
    offset, weights, tail = die
    keep = data.draw(st.integers(1, count))
    values = [offset + i for i in range(len(weights))] + ["T"]
    probs = [*weights, tail]
    exact: dict[int, float] = {}
    lost = 0.0
    for combo in itertools.product(range(len(values)), repeat=count):
        w = math.prod(probs[i] for i in combo)
        if w == 0:
            continue
        order = sorted(combo, reverse=highest)  # index order is value order, the tail last
        kept = order[:keep]
        if len(values) - 1 in kept:
            lost += w
        else:
            v = sum(values[i] for i in kept)
            exact[v] = exact.get(v, 0.0) + w
    got = de.keep_pool(
        Dist(offset, weights, tail), count, keep, de.KEEP_HIGHEST if highest else de.KEEP_LOWEST
    )
    assert got.tail == pytest.approx(lost, abs=1e-14)
    for v in set(exact) | set(got.to_dict()):
        assert got.pmf(v) == pytest.approx(exact.get(v, 0.0), abs=1e-14), v


# -- properties ---------------------------------------------------------------------------------
@st.composite
def dice_term(draw):
    sides = draw(st.integers(2, 10))
    count = draw(st.integers(1, 4))
    text = f"{count}d{sides}"
    explodes = False
    if draw(st.booleans()):
        text += f"{draw(st.sampled_from(['rr', 'ro']))}<={draw(st.integers(1, sides - 1))}"
    if draw(st.booleans()):
        # explosions of at least half the faces keep the supports short
        at = draw(st.integers(max(2, (sides + 1) // 2), sides))
        text += "!" if at == sides else f"!>={at}"
        explodes = True
    if draw(st.booleans()):
        op = draw(st.sampled_from(["kh", "kl", "dh", "dl"] if count > 1 else ["kh", "kl"]))
        k = draw(st.integers(1, count) if op in ("kh", "kl") else st.integers(1, count - 1))
        text += f"{op}{k}"
    if draw(st.booleans()):
        text += f"cs>={draw(st.integers(1, sides + (5 if explodes else 0)))}"
    return text


@st.composite
def expression(draw):
    terms = draw(st.lists(dice_term(), min_size=1, max_size=3))
    signs = draw(st.lists(st.sampled_from(["+", "-"]), min_size=len(terms), max_size=len(terms)))
    text = "".join(s + t for s, t in zip(signs, terms, strict=True))
    return text + draw(st.sampled_from(["", "+2", "-1"]))


PROPERTY = settings(max_examples=80, deadline=None)


@PROPERTY
@given(expression())
def test_sums_to_one_with_the_tail_and_within_bounds(text):
    e = parse(text)
    d = e.dist()
    assert abs(d.mass + d.tail - 1.0) <= 1e-12
    assert 0.0 <= d.tail < 1e-12
    if e.min is not None:
        assert d.min == e.min
    if e.max is not None:
        assert d.max == e.max
    assert (e.max is None) == any(t.exploding and not t.count_kind and t.sign > 0 for t in e.terms)


@PROPERTY
@given(expression(), expression())
def test_means_add(a, b):
    da, db, dab = dice_dist(a), dice_dist(b), dice_dist(a + b)  # b begins with its sign
    # the represented means leave out tails below 1e-12 at values of a few hundred
    assert dab.mean == pytest.approx(da.mean + db.mean, abs=1e-8)


def test_a_success_beyond_the_explosion_cut_off_is_still_exact():
    # P(1d6! >= 200) ~ 6**-33 lies far below the tail budget: the chain is computed up to
    # the threshold, so the count's probability is exact relative to itself
    for text, die in [("1d6!cs>=200", boom(d6)), ("1d6ro1!cs>=100", rerolled_boom(ro(d6, 1), d6))]:
        at = int(text.rsplit(">=", 1)[1])
        ref = Fraction(sum(q for v, q in die.items() if v >= at), die.denominator())
        d = dice_dist(text)
        assert d.tail == 0.0 and d.pmf(1) == pytest.approx(float(ref), rel=1e-9)
