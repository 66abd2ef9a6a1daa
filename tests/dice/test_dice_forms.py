"""The field's dice notation, exact: every reference of the rules' "Dice notation"
section, each computed here from first principles or by icepool, and the new forms
against icepool value by value."""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest

from critlab.analysis.dice.notation import dice_dist, parse

TOL = 1e-9  # the rules' references
ICEPOOL_TOL = 1e-8  # icepool truncates explosions
DEPTH = 40
d6, d8, d10, d12, d20 = (icepool.d(n) for n in (6, 8, 10, 12, 20))
fate = icepool.Die([-1, 0, 1])


def probs_of(die: icepool.Die) -> dict[int, float]:
    den = die.denominator()
    return {int(v): float(Fraction(q, den)) for v, q in die.items()}


def assert_same(text: str, ref: dict[int, float], tol: float = ICEPOOL_TOL) -> None:
    ours = dice_dist(text)
    for v in set(ref) | set(ours.to_dict()):
        assert abs(ours.pmf(v) - ref.get(v, 0.0)) <= tol, (text, v)
    assert abs(ours.mass + ours.tail - 1.0) <= 1e-12 and ours.tail < 1e-12


def uniform(lo: int, hi: int) -> dict[int, float]:
    return {v: 1 / (hi - lo + 1) for v in range(lo, hi + 1)}


# -- the references, one by one ------------------------------------------------------------
def test_exploding_d6_mean_by_wald():
    # a chain of d6 rolls stops with probability 5/6 each: 6/5 rolls of mean 3.5
    assert dice_dist("1d6!").mean == pytest.approx(3.5 * 6 / 5, abs=TOL)


def test_a_bare_reroll_number_is_equality():
    # 1d6rr2: a 2 is rolled again until it is not a 2
    assert_same("1d6rr2", {1: 0.2, 3: 0.2, 4: 0.2, 5: 0.2, 6: 0.2}, TOL)
    assert dice_dist("1d6rr2").mean == pytest.approx(3.8, abs=TOL)
    assert_same("1d6rr<=2", uniform(3, 6), TOL)
    assert_same("1d6rr<3", uniform(3, 6), TOL)
    assert_same("1d20rr1", uniform(2, 20), TOL)
    assert_same("1d6rr=2", probs_of(d6.reroll([2], depth="inf")))


def test_reroll_once_references():
    assert dice_dist("2d6ro<=2").mean == pytest.approx(Fraction(25, 3), abs=TOL)
    assert_same("2d6ro<=2", probs_of(2 @ d6.reroll([1, 2], depth=1)))
    assert_same("2d6ro2", probs_of(2 @ d6.reroll([2], depth=1)))
    four = d6.reroll([1], depth=1).highest(4, 3)
    assert float(four.mean()) == pytest.approx(22283789 / 1679616, abs=1e-12)
    assert dice_dist("4d6ro1dl1").mean == pytest.approx(22283789 / 1679616, abs=TOL)


def test_explosion_selectors_and_once():
    assert dice_dist("1d6!>=5").mean == pytest.approx(21 / 4, abs=TOL)
    assert_same("1d6!>=5", probs_of(d6.explode([5, 6], depth=DEPTH)))
    # once: a 6 adds one more d6 and stops: 3.5 + 3.5 / 6
    assert dice_dist("1d6!o").mean == pytest.approx(Fraction(49, 12), abs=TOL)
    assert_same("1d6!o", probs_of(d6.explode(depth=1)), 1e-15)
    assert_same("2d6!=3", probs_of(2 @ d6.explode([3], depth=DEPTH)))
    assert_same("1d6!!", probs_of(d6.explode(depth=DEPTH)))  # an alias


def penetrating(sides: int, top: int) -> dict[int, float]:
    """1dX!p by its recursion: T = f (f < X), X + C; C = g - 1 (g < X), X - 1 + C."""
    chain = np.zeros(top + 1)  # P(C = c)
    for c in range(top + 1):
        p = sum(1 / sides for g in range(1, sides) if g - 1 == c)
        if c >= sides - 1:
            p += chain[c - (sides - 1)] / sides
        chain[c] = p
    out = {f: 1 / sides for f in range(1, sides)}
    for c in range(top + 1 - sides):
        out[sides + c] = chain[c] / sides
    return out


def test_penetrating_explosions():
    # E[C] = (X - 1) / 2 + E[C] / X, so 1d6!p has mean 3.5 + 3 / 6 = 4
    assert dice_dist("1d6!p").mean == pytest.approx(4.0, abs=TOL)
    assert_same("1d6!p", penetrating(6, 200), 1e-12)
    assert_same("1d8!p", penetrating(8, 300), 1e-12)


def test_clamps():
    assert dice_dist("2d6mi3").mean == pytest.approx(8.0, abs=TOL)
    assert_same("2d6mi3", probs_of(2 @ d6.map(lambda f: max(f, 3))))
    assert_same("3d8ma6", probs_of(3 @ d8.map(lambda f: min(f, 6))))
    assert_same("1d10mi2ma9", probs_of(d10.map(lambda f: min(max(f, 2), 9))))


def test_faces():
    four = probs_of(4 @ fate)
    assert four[0] == pytest.approx(19 / 81) and four[4] == pytest.approx(1 / 81)
    d = dice_dist("4dF")
    assert d.pmf(0) == pytest.approx(19 / 81, abs=TOL) and d.pmf(4) == pytest.approx(1 / 81, abs=TOL)
    assert_same("4dF", four)
    assert_same("1d%", uniform(1, 100), TOL)
    assert dice_dist("d{1,1,2}").pmf(1) == pytest.approx(2 / 3, abs=TOL)
    assert_same("2d{0,1,1,2}+1", probs_of(2 @ icepool.Die([0, 1, 1, 2]) + 1))
    assert dice_dist("0d6").to_dict() == {0: 1.0}
    assert dice_dist("0d6+3").to_dict() == {3: 1.0}


def test_counts_with_botches_and_failures():
    assert dice_dist("5d10cs>=8").mean == pytest.approx(1.5, abs=TOL)
    wod = d10.map(lambda f: 1 if f >= 6 else (-1 if f == 1 else 0))
    assert float((10 @ wod).mean()) == 4
    assert dice_dist("10d10cs>=6df=1").mean == pytest.approx(4.0, abs=TOL)
    assert_same("10d10cs>=6df=1", probs_of(10 @ wod))
    assert_same("6d6cf<=2", probs_of(6 @ d6.map(lambda f: int(f <= 2))))
    assert_same("5d10cs=10", probs_of(5 @ d10.map(lambda f: int(f == 10))))
    assert_same("4d6kh2cs=6", probs_of(_kept_count(4, 2, 6)))
    assert_same("5d6kl3cs>=4df1", probs_of(_kept_count(5, 3, 0, lowest=True)))


def _kept_count(n: int, k: int, face: int, *, lowest: bool = False) -> icepool.Die:
    """Over the highest (lowest) k of n d6 by icepool's sorted pool: how many show
    ``face``, or for ``face`` 0 the successes >= 4 minus the 1s."""
    pool = icepool.Pool([d6] * n)
    kept = (pool.lowest(k) if lowest else pool.highest(k)).expand()
    if face:
        return kept.map(lambda t: sum(1 for f in t if f == face))
    return kept.map(lambda t: sum(1 for f in t if f >= 4) - sum(1 for f in t if f == 1))


def ten_again(dice: int) -> dict[int, float]:
    """Successes (>= 8) of d10s where each 10 adds a die of its own, by first principles:
    a die's chain counts k >= 1 with 0.1^(k-1) 0.2 (ending on 8-9) + 0.1^k 0.7 (ending
    below 8), 0 with 0.7."""
    one = np.array([0.7] + [0.1 ** (k - 1) * 0.2 + 0.1**k * 0.7 for k in range(1, 40)])
    out = np.ones(1)
    for _ in range(dice):
        out = np.convolve(out, one)
    return {k: float(p) for k, p in enumerate(out[:60]) if p > 0}


def test_each_added_roll_a_die_of_its_own():
    # per die: 10/9 rolls on average, each a success with 3/10: 1/3
    assert dice_dist("5d10x10cs>=8").mean == pytest.approx(Fraction(5, 3), abs=TOL)
    assert_same("5d10x10cs>=8", ten_again(5), 1e-12)
    # kept: the highest (lowest) of every roll, as icepool's explode_to_pool
    pooled = d6.explode_to_pool(4, [6], depth=DEPTH)
    assert_same("4d6xkh3", probs_of(pooled.highest(3).sum()))
    assert_same("4d6xkl2", probs_of(pooled.lowest(2).sum()))
    assert_same("3d6x>=5kh2", probs_of(d6.explode_to_pool(3, [5, 6], depth=DEPTH).highest(2).sum()))
    assert_same("3d6xokh2", probs_of(d6.explode_to_pool(3, [6], depth=1).highest(2).sum()), 1e-15)
    ten = d10.explode_to_pool(5, [10], depth=DEPTH).highest(3).keep_outcomes([8, 9, 10]).size()
    assert_same("5d10xkh3cs>=8", probs_of(ten))
    # dropped: all the rolls but the lowest (highest), their number varying
    assert_same("4d6xdl1", probs_of(d6.explode_to_pool(4, [6], depth=20).lowest(drop=1).sum()))
    assert_same("3d6xdh1", probs_of(d6.explode_to_pool(3, [6], depth=20).highest(drop=1).sum()))
    assert_same("4d6x>=5dl2", probs_of(d6.explode_to_pool(4, [5, 6], depth=20).lowest(drop=2).sum()))
    assert_same("3d6xodh1", probs_of(d6.explode_to_pool(3, [6], depth=1).highest(drop=1).sum()), 1e-15)
    assert_same("4d6xdl4", probs_of(d6.explode_to_pool(4, [6], depth=20).lowest(drop=4).sum()))
    kept = d10.explode_to_pool(5, [10], depth=20).lowest(drop=2).keep_outcomes([8, 9, 10]).size()
    assert_same("5d10xdl2cs>=8", probs_of(kept))
    botched = (
        d6.explode_to_pool(4, [6], depth=20)
        .highest(drop=1)
        .map_counts(function=lambda o, n: n if o >= 5 else (-n if o == 1 else 0))
    )
    assert_same("4d6xdh1cs>=5df=1", probs_of(botched.size()))
    # summed, x is the same total as !
    assert dice_dist("3d6x").allclose(dice_dist("3d6!"), atol=1e-15)


def test_groups():
    savage = icepool.highest(d8.explode(depth=DEPTH), d6.explode(depth=DEPTH))
    assert float(savage.mean()) == pytest.approx(6.4786477603, abs=1e-9)
    assert dice_dist("{1d8!,1d6!}kh1").mean == pytest.approx(6.4786477603, abs=TOL)
    assert_same("{1d8!, 1d6!}kh1", probs_of(savage))
    assert_same("{1d6!, 1d8!}kl1", probs_of(icepool.lowest(d6.explode(depth=DEPTH), d8.explode(depth=DEPTH))))
    assert_same("{d6, d8, d10, d12}kl1", probs_of(icepool.lowest(d6, d8, d10, d12)))
    assert_same(
        "{1d8!, 1d8!, 1d6!}kh2",
        probs_of(icepool.Pool([d8.explode(depth=DEPTH)] * 2 + [d6.explode(depth=DEPTH)]).highest(2).sum()),
    )
    cortex = icepool.Pool([d6, d6, d8, d12]).highest(2).sum()
    assert_same("{d6, d6, d8, d12}kh2", probs_of(cortex))
    eight = [icepool.d(n) for n in (4, 6, 6, 8, 8, 10, 12, 12)]
    assert_same("{d4,d6,d6,d8,d8,d10,d12,d12}kh3", probs_of(icepool.Pool(eight).highest(3).sum()))
    assert_same("{d4,d6,d8,d12}kl2", probs_of(icepool.Pool(eight[::2]).lowest(2).sum()))
    assert_same("{2d6, 1d12+1}dl1", probs_of(icepool.highest(2 @ d6, d12 + 1)))
    assert_same("{1d6, 1d8, 1d10}cs>=5", probs_of(sum(d.map(lambda f: int(f >= 5)) for d in (d6, d8, d10))))
    assert_same("{1d6, 1d8}", probs_of(d6 + d8))
    assert_same("{1d20>=11, 1d20>=11}", probs_of(2 @ (d20 >= 11).map({True: 1, False: 0})))
    assert_same("{1d6, 1d8}kh1*2", probs_of(icepool.highest(d6, d8) * 2))


def test_scale_and_comparison():
    assert dice_dist("2d6*2").mean == pytest.approx(14.0, abs=TOL)
    assert dice_dist("1d6/2").mean == pytest.approx(1.5, abs=TOL)
    assert_same("1d6/2", probs_of(d6 // 2))
    assert_same("1d6/2-1d4", probs_of(d6 // 2 - icepool.d4))
    assert_same("-1d6/4", probs_of(-(d6 // 4)))  # the term's value rounds down, then the sign
    hit = dice_dist("1d20+5>=15")
    assert hit.to_dict() == pytest.approx({0: 9 / 20, 1: 11 / 20}, abs=TOL)
    assert dice_dist("2d6=7").pmf(1) == pytest.approx(6 / 36, abs=TOL)
    assert dice_dist("2d6<5").pmf(1) == pytest.approx(6 / 36, abs=TOL)


def test_roll_and_keep_references_against_icepool():
    boom = d10.explode(depth=DEPTH)
    for text, n, k, mean in [
        ("3d10!kh2", 3, 2, 15290 / 999),
        ("6d10!kh3", 6, 3, 26.5418219552),
        ("5d10!kh3", 5, 3, 24.5126050270),
    ]:
        theirs = boom.highest(n, k)
        assert float(theirs.mean()) == pytest.approx(mean, abs=1e-8)
        assert dice_dist(text).mean == pytest.approx(mean, abs=TOL)


def test_every_form_parses_back_from_its_canonical_notation():
    for text in [
        "2d6mi3",
        "1d6!p>=5",
        "5d10x10cs>=8df1",
        "4dF",
        "1d{1,1,2}",
        "{1d8!, 1d6!}kh1",
        "1d20+5>=15",
    ]:
        e = parse(text)
        assert parse(e.notation).dist().allclose(e.dist(), atol=0.0), text
