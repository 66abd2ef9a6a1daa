"""The exact engine's closed forms held to exact fractions: counts with botches (a
trinomial), and each against the general programme it stands in for."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

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
        ours, ref = counted_sum(die, w, n), weight_dist(die, w).repeat(n)
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
