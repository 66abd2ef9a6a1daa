"""Several dice as one draw (critlab.kernels.joint) and the primitives that use it: the
joint draw is the single bounded draw over all outcomes, exactly, and the primitives'
tallies match the exact engine (chi-square at fixed seeds)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import primitive_blocks as primitives
from critlab.analysis.dice.notation import dice_dist
from critlab.analysis.validate import chi_square
from critlab.kernels.jit import kernel
from critlab.kernels.joint import digits2, digits3
from critlab.kernels.rng import bounded, stream_state

# Each goodness-of-fit check is a fixed-seed verdict at this significance: at 10^6 trials
# a bias of half a percent in any outcome is still caught.
ALPHA = 1e-3


@kernel
def _pairs_and_bounded(s, n, a, b):
    """``n`` digit pairs from a copy of ``s``, and ``n`` bounded draws over ``a * b`` from
    another copy of the same state."""
    t = s.copy()
    u = s.copy()
    joint = np.empty(n, dtype=np.int64)
    single = np.empty(n, dtype=np.int64)
    for i in range(n):
        x, y = digits2(t, a, b)
        joint[i] = x * b + y
        single[i] = bounded(u, a * b)
    return joint, single


@kernel
def _triples_and_bounded(s, n, a, b, c):
    t = s.copy()
    u = s.copy()
    joint = np.empty(n, dtype=np.int64)
    single = np.empty(n, dtype=np.int64)
    for i in range(n):
        x, y, z = digits3(t, a, b, c)
        joint[i] = (x * b + y) * c + z
        single[i] = bounded(u, a * b * c)
    return joint, single


@pytest.mark.parametrize(("a", "b"), [(20, 20), (20, 10), (7, 3), (3, 100_000)])
def test_two_digits_are_the_one_bounded_draw_over_their_product(a, b):
    joint, single = _pairs_and_bounded(stream_state(5, 0), 200_000, a, b)
    assert np.array_equal(joint, single)


@pytest.mark.parametrize(("a", "b", "c"), [(20, 20, 8), (6, 6, 6), (13, 1, 5)])
def test_three_digits_are_the_one_bounded_draw_over_their_product(a, b, c):
    joint, single = _triples_and_bounded(stream_state(6, 0), 200_000, a, b, c)
    assert np.array_equal(joint, single)


def test_a_product_near_the_word_size_rejects_and_stays_uniform():
    # 3 * 2**29 leaves 2**32 mod p = 2**30: a quarter of all words are drawn again
    joint, single = _pairs_and_bounded(stream_state(7, 0), 300_000, 3, 1 << 29)
    assert np.array_equal(joint, single)
    _, _, p = chi_square(np.full(3, 1 / 3), np.bincount(joint >> 29, minlength=3))
    assert p >= ALPHA


@pytest.mark.parametrize("n", [1_000_000, 999_999])  # an odd block rolls its last d20 alone
def test_d20_test_block_matches_the_exact_labels(n):
    bonus, difficulty, crit_range, critfail_range = 3, 11, 2, 1
    out = np.zeros(4, dtype=np.int64)
    primitives.d20_test_block(stream_state(3, 0), n, out, bonus, difficulty, crit_range, critfail_range)
    # naturals: 1 critfail; 19-20 crit; 8-18 succeed (8 + 3 >= 11); 2-7 fail
    probs = np.array([1, 6, 11, 2]) / 20
    assert out.sum() == n
    _, _, p = chi_square(probs, out)
    assert p >= ALPHA


def test_pool_block_matches_the_exact_4d6_drop_lowest():
    layout = np.array([1, 1, 1, 3, 16, 18], dtype=np.int64)  # label 0, histogram 3..18 + tail
    out = np.zeros(18, dtype=np.int64)
    primitives.pool_block(stream_state(4, 0), 1_000_000, out, layout)
    assert out[0] == 1_000_000 and out[1:].sum() == 1_000_000 and out[17] == 0
    exact = dice_dist("4d6dl1")
    probs = np.array([exact.pmf(v) for v in range(3, 19)])
    _, _, p = chi_square(probs, out[1:17])
    assert p >= ALPHA
