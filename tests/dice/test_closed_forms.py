"""The exact engine's closed forms held to exact fractions: counts with botches (a
trinomial), and each against the general programme it stands in for."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb, prod

import numpy as np
import pytest

from critlab.analysis.dice.notation import dice_dist, parse
from critlab.analysis.dice.order import counted_sum, counter, weight_dist
from critlab.analysis.dist import Dist

EXACT = 2e-15  # a few units in the last place of a probability


def _net_counts(n: int, p_s: Fraction, p_b: Fraction) -> dict[int, Fraction]:
    """Successes less botches of ``n`` dice, exactly (the trinomial summed by hand)."""
    p_o = 1 - p_s - p_b
    out: dict[int, Fraction] = {}
    for s in range(n + 1):
        for b in range(n - s + 1):
            w = comb(n, s) * comb(n - s, b) * p_s**s * p_b**b * p_o ** (n - s - b)
            out[s - b] = out.get(s - b, Fraction(0)) + w
    return out


def _assert_exact(d: Dist, ref: dict[int, Fraction]) -> None:
    for v in set(ref) | set(d.to_dict()):
        assert abs(d.pmf(v) - float(ref.get(v, 0))) <= EXACT, v


@pytest.mark.parametrize(
    ("text", "n", "p_s", "p_b"),
    [
        ("10d10cs>=6df=1", 10, Fraction(1, 2), Fraction(1, 10)),
        ("20d10!cs>=8df=1", 20, Fraction(3, 10), Fraction(1, 10)),  # an explosion decides nothing
        ("60d6cs>=5df<=2", 60, Fraction(1, 3), Fraction(1, 3)),  # the closed form's last count
        ("5dFcs>=1df<=-1", 5, Fraction(1, 3), Fraction(1, 3)),
        ("7d{1,1,2,3}cs>=2df=1", 7, Fraction(1, 2), Fraction(1, 2)),  # nothing in between
        ("4d6rr1cs>=5df=2", 4, Fraction(2, 5), Fraction(1, 5)),
        ("3d6mi2cs>=5df=2", 3, Fraction(1, 3), Fraction(1, 3)),
    ],
)
def test_counts_with_botches_are_the_trinomial(text, n, p_s, p_b):
    _assert_exact(dice_dist(text), _net_counts(n, p_s, p_b))


def test_counted_sum_matches_convolving_the_counts():
    # past the closed form's count, and with a tail, the counts are convolved as before
    w = counter(8, 10, (1, 1))
    die = Dist(1, np.full(10, 0.1) * (1 - 1e-13), 1e-13)
    for n in (1, 2, 9, 60, 61):
        ours, ref = counted_sum(die, (8, 10), (1, 1), n), weight_dist(die, w).repeat(n)
        assert ours.offset == ref.offset and np.allclose(ours.probs, ref.probs, rtol=1e-13, atol=1e-16)
        assert ours.tail == pytest.approx(ref.tail, rel=1e-9)


def test_counts_by_enumeration_of_the_faces():
    # every face of 4d6, counted 6s less 1s, against the product of the faces
    ref: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=4):
        net = sum(f == 6 for f in faces) - sum(f == 1 for f in faces)
        ref[net] = ref.get(net, Fraction(0)) + Fraction(1, 6**4)
    _assert_exact(dice_dist("4d6cs6df1"), ref)
    assert parse("4d6cs6df1").terms[0].legacy() is None  # the general forms' count


def _faces_rerolled(sides: int, at: int, once: bool) -> dict[int, Fraction]:
    """One die's face after ``roAT`` (``once``) or ``rrAT``, exactly."""
    if not once:
        return {f: Fraction(1, sides - at) for f in range(at + 1, sides + 1)}
    low = Fraction(at, sides)
    return {f: low / sides + (Fraction(1, sides) if f > at else 0) for f in range(1, sides + 1)}


@pytest.mark.parametrize(
    ("text", "sides", "at", "once", "count", "keep", "highest"),
    [
        ("4d6ro1dl1", 6, 1, True, 4, 3, True),
        ("3d6ro1kl2", 6, 1, True, 3, 2, False),
        ("4d6rr1dl1", 6, 1, False, 4, 3, True),
        ("5d4ro<=2kh2", 4, 2, True, 5, 2, True),
        ("6d3rr1dh2", 3, 1, False, 6, 4, False),
    ],
)
def test_small_pools_by_their_multisets_match_every_face(text, sides, at, once, count, keep, highest):
    faces = _faces_rerolled(sides, at, once)
    ref: dict[int, Fraction] = {}
    for shown in itertools.product(faces, repeat=count):
        kept = sorted(shown, reverse=highest)[:keep]
        ref[sum(kept)] = ref.get(sum(kept), Fraction(0)) + prod(faces[f] for f in shown)
    _assert_exact(dice_dist(text), ref)


def test_pools_past_the_multisets_table_keep_the_programme():
    # the same pool both ways: a small one by its multisets, against the programme's numbers
    from critlab.analysis.dice.exact import KEEP_HIGHEST, KEEP_LOWEST, REROLL_ONCE, die_dist
    from critlab.analysis.dice.multisets import fits, multiset_pool
    from critlab.kernels.pools import keep_pool_weights

    die = die_dist(8, REROLL_ONCE, 2, 0, 0.0)
    assert fits(die.probs.size, 3) and not fits(die.probs.size, 8)
    for mode in (KEEP_HIGHEST, KEEP_LOWEST):
        probs = die.probs[::-1].copy() if mode == KEEP_HIGHEST else die.probs
        ref, _ = keep_pool_weights(probs, 3, 2, 0.0)
        ref = ref[::-1] if mode == KEEP_HIGHEST else ref
        ours = multiset_pool(die, 3, 2, highest=mode == KEEP_HIGHEST)
        assert ours.offset == 2 * die.min and np.allclose(ours.probs, ref, rtol=1e-14, atol=0)


@pytest.mark.parametrize("text", ["{d4,d6,d6,d8,d8}kh2", "{d4,d6,d6,d8,d8}kl2", "{d6,d4,d6,2d4,d4}kh2"])
def test_a_group_of_repeated_dice_by_every_face(text):
    # a member written twice is read and computed once: the pool's values are unchanged
    group = parse(text).terms[0]
    dice = [m.terms[0] for m in group.members]
    faces = [[sum(f) for f in itertools.product(range(1, t.sides + 1), repeat=t.count)] for t in dice]
    highest = group.keep_mode == 1
    ref: dict[int, Fraction] = {}
    weight = Fraction(1, prod(len(f) for f in faces))
    for shown in itertools.product(*faces):
        v = sum(sorted(shown, reverse=highest)[:2])
        ref[v] = ref.get(v, Fraction(0)) + weight
    _assert_exact(dice_dist(text), ref)
    by_text = {}
    for m in group.members:
        assert by_text.setdefault(m.terms[0].notation, m) is m  # one object per way of writing it
