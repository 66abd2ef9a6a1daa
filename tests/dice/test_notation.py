"""Dice notation: exact distributions against icepool, bounds, encodings and errors."""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest

from critlab.analysis.dice.notation import KEEP_ALL, KEEP_HIGHEST, KEEP_LOWEST, dice_dist, keep_highest, parse

# icepool works in exact integers; our engine in float64. 1e-12 is far above float64
# rounding over a few hundred convolution terms and far below any difference that matters.
TOL = 1e-12
# icepool stops an explosion after `depth` extra dice; with 60 the mass it truncates is at
# most 2**-61 (a d2), far below TOL, so on our support both are exact to TOL.
DEPTH = 60
d2, d4, d6, d8, d10, d12, d20, d100 = (icepool.d(n) for n in (2, 4, 6, 8, 10, 12, 20, 100))


def boom(die: icepool.Die) -> icepool.Die:
    return die.explode(depth=DEPTH)


ICEPOOL = {
    # plain dice, sums, differences, constants
    "1d20": d20,
    "d20": d20,
    "2d6": 2 @ d6,
    "3d6": 3 @ d6,
    "4d8": 4 @ d8,
    "10d10": 10 @ d10,
    "1d100": d100,
    "2d6+1": 2 @ d6 + 1,
    "1d8-1": d8 - 1,
    "2d6+1d4+1": 2 @ d6 + d4 + 1,
    "3d6 - 3d6": 3 @ d6 - 3 @ d6,
    "1d20 + 5": d20 + 5,
    "2d10-1d6+2": 2 @ d10 - d6 + 2,
    "-1d6": -d6,
    "7": icepool.Die([7]),
    "-3+1d4": d4 - 3,
    # keep / drop
    "4d6dl1": d6.highest(4, 3),
    "4d6kh3": d6.highest(4, 3),
    "10d10kh3": d10.highest(10, 3),
    "5d8kl2": d8.lowest(5, 2),
    "6d6dh2": d6.lowest(6, 4),
    "2d20kh1": d20.highest(2, 1),
    "2d20kl1": d20.lowest(2, 1),
    "3d6kl1": d6.lowest(3, 1),
    "8d6dl3": d6.highest(8, 5),
    "4d10dh1": d10.lowest(4, 3),
    "5d12kh2+1d4": d12.highest(5, 2) + d4,
    "3d20kh1-2d20kl1": d20.highest(3, 1) - d20.lowest(2, 1),
    "3d6kh3": 3 @ d6,
    # exploding
    "1d6!": boom(d6),
    "2d6!": 2 @ boom(d6),
    "1d10!+3": boom(d10) + 3,
    "d4!-d4": boom(d4) - d4,
    "1d2!": boom(d2),
    "3d6!-2": 3 @ boom(d6) - 2,
    "1d20!": boom(d20),
    "1d6!-1d6!": boom(d6) - boom(d6),
}


def icepool_probs(die: icepool.Die) -> dict[int, float]:
    den = die.denominator()
    return {int(v): float(Fraction(q, den)) for v, q in die.items()}


@pytest.mark.parametrize("text", list(ICEPOOL))
def test_matches_icepool(text):
    ours = dice_dist(text)
    theirs = icepool_probs(ICEPOOL[text])
    lo, hi = ours.min, ours.max
    for v in set(theirs) | set(ours.to_dict()):
        if lo <= v <= hi:
            assert abs(ours.pmf(v) - theirs.get(v, 0.0)) <= TOL, (text, v)
    # What icepool has outside our represented range is exactly our cut-off tail (plus
    # icepool's own depth truncation, < 2**-61); a bounded expression has neither.
    outside = sum(p for v, p in theirs.items() if not lo <= v <= hi)
    assert abs(outside - ours.tail) <= TOL, text
    assert abs(ours.mass + ours.tail - 1.0) <= TOL
    if not parse(text).exploding:
        assert ours.tail == 0.0 and outside == 0.0


def test_four_d6_drop_lowest_mean():
    # 15869 / 1296, the classic ability-score mean
    assert dice_dist("4d6dl1").mean == pytest.approx(15869 / 1296, abs=1e-12)
    assert round(dice_dist("4d6dl1").mean, 4) == 12.2446


def test_large_pools_compute():
    # the keep-highest dynamic programme never enumerates 10**10 or 100**... outcomes
    for text in ("10d10kh3", "20d20dl5", "100d6kh50", "50d100kl10"):
        d = dice_dist(text)
        assert abs(d.mass - 1.0) <= TOL and d.tail == 0.0


def test_keep_highest_against_enumeration():
    import itertools

    for count, sides, keep in [(3, 4, 1), (3, 4, 2), (4, 3, 2), (5, 3, 4)]:
        expected: dict[int, float] = {}
        for faces in itertools.product(range(1, sides + 1), repeat=count):
            v = sum(sorted(faces)[-keep:])
            expected[v] = expected.get(v, 0.0) + sides**-count
        got = keep_highest(count, sides, keep)
        assert got.to_dict().keys() == expected.keys()
        for v, p in expected.items():
            assert got.pmf(v) == pytest.approx(p, abs=TOL)


# -- the exploding tail ------------------------------------------------------------------
def test_explosion_tail_and_seed_example():
    d = dice_dist("1d6!")
    assert 0 < d.tail < 1e-12
    assert abs(float(d.probs.sum()) + d.tail - 1.0) <= 1e-15
    # seed 001: a 1d6 CRIT die rolling 6 then 4 gives 10
    assert d.pmf(10) == pytest.approx(1 / 36, rel=1e-12)


@pytest.mark.parametrize(
    "text",
    ["2d6!", "3d10!+1", "1d4!-1d4!", "1d2!+1d2!", "100d6!", "100d2!", "100d6!+100d6!", "60d6!+60d6!+60d6!"],
)
def test_combined_explosions_stay_below_the_promised_tail(text):
    # docs/rules.md: exact up to a tail below 1e-12, however many chains a valid expression
    # combines (each term may have 100 dice, and terms are not limited in number)
    d = dice_dist(text)
    assert d.tail < 1e-12
    assert abs(d.mass + d.tail - 1.0) <= TOL


# -- bounds ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "lo", "hi"),
    [
        ("2d6+1", 3, 13),
        ("1d20", 1, 20),
        ("2d6+1d4-1", 2, 15),
        ("3d6 - 3d6", -15, 15),
        ("4d6dl1", 3, 18),
        ("10d10kh3", 3, 30),
        ("5d8kl2-1", 1, 15),
        ("-1d6+10", 4, 9),
        ("5", 5, 5),
        ("1d6!", 1, None),
        ("1d6!+2", 3, None),
        ("d4!-d4", -3, None),
        ("10-1d6!", None, 9),
        ("1d6!-1d6!", None, None),
    ],
)
def test_min_and_max_include_modifiers(text, lo, hi):
    e = parse(text)
    assert (e.min, e.max) == (lo, hi)
    assert e.exploding == ("!" in text)
    d = e.dist()
    if lo is not None:
        assert d.min == lo
    if hi is not None:
        assert d.max == hi


def test_encode_rows():
    terms, constant = parse("4d6dl1+2d8kl1-1d6!+3").encode()
    assert terms.dtype == np.int64 and constant == 3
    # the first six columns: sign, count, sides, keep mode, keep, explosion kind (1: '!');
    # then the explosion's interval (the maximum and up)
    assert terms[:, :6].tolist() == [
        [1, 4, 6, KEEP_HIGHEST, 3, 0],
        [1, 2, 8, KEEP_LOWEST, 1, 0],
        [-1, 1, 6, KEEP_ALL, 0, 1],
    ]
    assert terms[2, 9] == 6 and terms[2, 10] >= 10**9
    empty, c = parse("-4").encode()
    assert empty.shape == (0, 24) and c == -4


def test_spacing_case_and_sign_forms_agree():
    base = dice_dist("2d6+1")
    for text in ("2D6+1", " 2d6 + 1 ", "1+2d6", "2d6+0+1", "2 d 6 + 1"):
        assert dice_dist(text).allclose(base, atol=0.0), text


# -- errors ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "bad_part"),
    [
        ("2d-6", "d-6"),  # a negative number of sides
        ("-2d-6", "d-6"),
        ("2d6+-1d6", "-1d6"),  # a sign where a term belongs
        ("d0", "d0"),
        ("3d0+1", "d0"),
        ("0d6!", "0 dice take no suffix"),
        ("1001d6", "count 1001"),
        ("1d1001", "d1001"),
        ("3d6kh4", "keeps 4"),
        ("5d8kl6", "keeps 6"),
        ("2d6kh0", "keeps 0"),
        ("3d6dl3", "drops 3"),
        ("3d6dh4", "drops 4"),
        ("1d1!", "d1"),
        ("2d6y", "'y'"),
        ("foo", "'foo'"),
        ("2d6+", "end of text"),
        ("2d6 + 1 zz", "'zz'"),
        ("2d6kh", "'kh'"),
        ("1d6!!!", "second explosion"),
        ("4d6dl0", "drops 0"),
        ("1d20+9999999", "constant 9999999"),
        ("", "empty"),
        ("   ", "empty"),
    ],
)
def test_bad_expressions_quote_the_text_and_name_the_bad_part(text, bad_part):
    with pytest.raises(ValueError) as info:
        parse(text)
    msg = str(info.value)
    assert f"'{text}'" in msg, msg
    assert bad_part in msg, msg
    assert "\n" not in msg


def test_non_text_is_rejected():
    with pytest.raises(ValueError, match="text"):
        parse(20)  # type: ignore[arg-type]
