"""Dist: algebraic properties (hypothesis) against brute-force enumeration, and explode().

Every check compares with an independent computation: a dictionary built by enumerating
all pairs of outcomes, or the textbook identities for means and variances.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from critlab.analysis.dist import TAIL_EPS, Dist, explode

# Sums of a few dozen float64 products: 1e-12 leaves three orders of magnitude over rounding.
TOL = 1e-12
PROPERTY = settings(max_examples=50, deadline=None)


@st.composite
def dists(draw, max_len: int = 8) -> Dist:
    """A small normalised distribution, possibly with gaps (zero entries) inside."""
    offset = draw(st.integers(-20, 20))
    weights = draw(st.lists(st.integers(0, 9), min_size=1, max_size=max_len).filter(any))
    p = np.array(weights, dtype=np.float64)
    return Dist(offset, p / p.sum())


def brute(a: Dist, b: Dist, op) -> dict[int, float]:
    """``{value: P(op(X, Y) == value)}`` for independent X ~ a, Y ~ b, by enumeration."""
    out: dict[int, float] = defaultdict(float)
    for (x, px), (y, py) in itertools.product(a.to_dict().items(), b.to_dict().items()):
        out[int(op(x, y))] += px * py
    return dict(out)


def assert_matches(d: Dist, expected: dict[int, float]) -> None:
    """``d`` puts exactly ``expected``'s mass on each value and none elsewhere."""
    support = set(expected) | set(d.to_dict())
    for v in support:
        assert d.pmf(v) == pytest.approx(expected.get(v, 0.0), abs=TOL), v


def total(d: Dist) -> float:
    return float(d.probs.sum()) + d.tail


# -- mass --------------------------------------------------------------------------------
@PROPERTY
@given(dists(), dists(), st.integers(-3, 3))
def test_every_operation_keeps_total_mass_one(a, b, k):
    results = [a + b, a - b, -a, a + k, a.scale(k), a.repeat(3), a.maximum(b), a.minimum(b),
               a.map(lambda v: v * v % 5), a.clip(lo=0), Dist.mixture([0.3, 0.7], [a, b])]  # fmt: skip
    for d in results:
        assert abs(total(d) - 1.0) <= TOL


@PROPERTY
@given(st.integers(2, 12))
def test_explosion_mass_and_tail(sides):
    d = explode(Dist.die(sides))
    assert 0 < d.tail < TAIL_EPS
    assert abs(total(d) - 1.0) <= TOL
    # Mean of an exploding die: E = (s + 1)/2 * s/(s - 1), less the cut-off tail's share.
    assert d.mean == pytest.approx((sides + 1) / 2 * sides / (sides - 1), abs=1e-9)


# -- moments -----------------------------------------------------------------------------
@PROPERTY
@given(dists(), dists())
def test_means_and_variances_add_under_convolution(a, b):
    s = a + b
    assert s.mean == pytest.approx(a.mean + b.mean, abs=1e-9)
    assert s.var == pytest.approx(a.var + b.var, abs=1e-9)
    assert_matches(s, brute(a, b, lambda x, y: x + y))


@PROPERTY
@given(dists(), dists())
def test_difference_mean_and_distribution(a, b):
    d = a - b
    assert d.mean == pytest.approx(a.mean - b.mean, abs=1e-9)
    assert d.var == pytest.approx(a.var + b.var, abs=1e-9)
    assert_matches(d, brute(a, b, lambda x, y: x - y))


@PROPERTY
@given(dists(), st.integers(-4, 4), st.integers(-50, 50))
def test_scale_and_shift(a, k, c):
    d = a.scale(k) + c
    assert d.mean == pytest.approx(k * a.mean + c, abs=1e-9)
    assert d.var == pytest.approx(k * k * a.var, abs=1e-9)
    expected: dict[int, float] = defaultdict(float)
    for v, p in a.to_dict().items():
        expected[k * v + c] += p
    assert_matches(d, expected)


@PROPERTY
@given(dists(), st.integers(0, 5))
def test_repeat_is_repeated_addition(a, n):
    expected = Dist.point(0)
    for _ in range(n):
        expected = expected + a
    assert a.repeat(n).allclose(expected, atol=TOL)


def test_repeat_rejects_negative_count():
    with pytest.raises(ValueError, match="n >= 0"):
        Dist.die(6).repeat(-1)


# -- mixtures, maps, max/min ----------------------------------------------------------------
@PROPERTY
@given(st.lists(dists(), min_size=1, max_size=4), st.data())
def test_mixture_weights(parts, data):
    raw = data.draw(st.lists(st.integers(0, 5), min_size=len(parts), max_size=len(parts)).filter(any))
    w = np.array(raw, dtype=float) / sum(raw)
    m = Dist.mixture(w, parts)
    expected: dict[int, float] = defaultdict(float)
    for wi, d in zip(w, parts, strict=True):
        for v, p in d.to_dict().items():
            expected[v] += wi * p
    assert_matches(m, expected)
    assert m.mean == pytest.approx(sum(wi * d.mean for wi, d in zip(w, parts, strict=True)), abs=1e-9)


def test_mixture_carries_tails_and_rejects_zero_weights():
    boom = explode(Dist.die(6))
    m = Dist.mixture([0.25, 0.75], [boom, Dist.point(0)])
    assert m.tail == pytest.approx(0.25 * boom.tail, rel=1e-12)
    with pytest.raises(ValueError, match="positive weight"):
        Dist.mixture([0.0, 0.0], [boom, Dist.point(0)])


@pytest.mark.parametrize("bad", [-0.5, float("nan")])
def test_mixture_rejects_negative_or_nan_weights(bad):
    # "weights must be non-negative": a negative or NaN weight is an error, not silently dropped.
    with pytest.raises(ValueError, match="weight"):
        Dist.mixture([bad, 1.0], [Dist.point(1), Dist.point(0)])


@PROPERTY
@given(dists(), st.sampled_from([lambda v: v // 3, lambda v: -v, lambda v: v * v, lambda v: np.abs(v) % 4]))
def test_map_against_enumeration(a, f):
    expected: dict[int, float] = defaultdict(float)
    for v, p in a.to_dict().items():
        expected[int(f(np.int64(v)))] += p
    assert_matches(a.map(f), expected)


@PROPERTY
@given(dists(), st.integers(-10, 10), st.integers(0, 10))
def test_clip_against_enumeration(a, lo, width):
    expected: dict[int, float] = defaultdict(float)
    for v, p in a.to_dict().items():
        expected[min(max(v, lo), lo + width)] += p
    assert_matches(a.clip(lo=lo, hi=lo + width), expected)


@PROPERTY
@given(dists(), dists())
def test_maximum_and_minimum_against_enumeration(a, b):
    assert_matches(a.maximum(b), brute(a, b, max))
    assert_matches(a.minimum(b), brute(a, b, min))


@PROPERTY
@given(dists(), dists())
def test_comparisons_against_enumeration(a, b):
    pairs = brute(a, b, lambda x, y: (x > y) - (x < y))
    assert a.prob_gt(b) == pytest.approx(pairs.get(1, 0.0), abs=TOL)
    assert a.prob_lt(b) == pytest.approx(pairs.get(-1, 0.0), abs=TOL)
    assert a.prob_eq(b) == pytest.approx(pairs.get(0, 0.0), abs=TOL)
    assert a.prob_ge(b) == pytest.approx(pairs.get(1, 0.0) + pairs.get(0, 0.0), abs=TOL)
    assert a.prob_le(b) == pytest.approx(pairs.get(-1, 0.0) + pairs.get(0, 0.0), abs=TOL)


# -- cdf, quantile, conversions ----------------------------------------------------------
@PROPERTY
@given(dists(), st.floats(0.0, 1.0))
def test_quantile_is_the_smallest_value_reaching_q(a, q):
    v = a.quantile(q)
    assert a.min <= v <= a.max
    assert a.cdf(v) >= q - 1e-12
    # nothing smaller reaches q (beyond rounding of the cumulative sum)
    assert v == a.min or a.cdf(v - 1) < q + 1e-12
    assert a.pmf(v) > 0 or q == 0.0


@PROPERTY
@given(dists(), st.integers(-30, 30))
def test_cdf_sf_pmf_are_consistent(a, v):
    assert a.cdf(v) == pytest.approx(sum(p for x, p in a.to_dict().items() if x <= v), abs=TOL)
    assert a.cdf(v) + a.sf(v) == pytest.approx(1.0, abs=TOL)
    assert a.cdf(v) - a.cdf(v - 1) == pytest.approx(a.pmf(v), abs=TOL)


def test_quantile_rejects_q_outside_unit_interval():
    for q in (-0.1, 1.5):
        with pytest.raises(ValueError, match="quantile"):
            Dist.die(6).quantile(q)


@PROPERTY
@given(dists())
def test_to_series_and_to_dict(a):
    s = a.to_series(name="x")
    assert isinstance(s, pd.Series) and s.name == "x" and s.index.name == "value"
    assert s.index.tolist() == a.values.tolist()
    assert np.array_equal(s.to_numpy(), a.probs)
    assert s.attrs["tail"] == a.tail
    d = a.to_dict()
    assert all(p > 0 for p in d.values())
    assert d == {int(v): float(p) for v, p in s.items() if p > 0}
    with_tail = a.to_dict(tail=True)
    assert with_tail.pop("tail") == a.tail and with_tail == d
    assert Dist.from_mapping(d).allclose(a, atol=0.0)


def test_to_dict_tail_of_an_explosion():
    d = explode(Dist.die(4))
    out = d.to_dict(tail=True)
    assert out["tail"] == d.tail > 0
    assert sum(out.values()) == pytest.approx(1.0, abs=TOL)


# -- construction ------------------------------------------------------------------------
def test_constructor_trims_zeros_and_rejects_bad_probabilities():
    d = Dist(5, [0.0, 0.0, 0.5, 0.5, 0.0])
    assert (d.min, d.max, d.to_dict()) == (7, 8, {7: 0.5, 8: 0.5})
    for bad in ([-0.1, 1.1], [np.nan, 1.0], [np.inf], [[0.5, 0.5]]):
        with pytest.raises(ValueError):
            Dist(0, bad)
    with pytest.raises(ValueError, match="mass"):
        Dist(0, [0.0, 0.0])
    with pytest.raises(ValueError, match="lo <= hi"):
        Dist.uniform(3, 2)
    with pytest.raises(ValueError, match="side"):
        Dist.die(0)


# -- explode -----------------------------------------------------------------------------
def test_seed_crit_die_six_then_four_is_ten():
    # seed 001: a 1d6 CRIT die rolls 6, rolls again and gets 4: bonus 10.
    d = explode(Dist.die(6))
    assert d.pmf(10) == pytest.approx(1 / 36, rel=1e-12)
    assert d.pmf(6) == 0.0 and d.pmf(12) == 0.0  # a 6 never stops the chain
    assert d.tail < 1e-12
    assert abs(total(d) - 1.0) <= TOL


def test_explode_brute_force_chains():
    # A chain of k sixes then a non-six r has value 6k + r and probability (1/6)**(k+1).
    d = explode(Dist.die(6))
    for k in range(4):
        for r in range(1, 6):
            assert d.pmf(6 * k + r) == pytest.approx((1 / 6) ** (k + 1), rel=1e-12)


def test_explode_on_another_face_and_refusals():
    # exploding on a 1 of a d4: a 1 never ends a chain; 4 = a plain 4, 1 then 3, or 1, 1, 2
    d = explode(Dist.die(4), on=1)
    assert d.pmf(1) == 0.0 and d.pmf(2) == 0.25
    assert d.pmf(3) == pytest.approx(1 / 4 + 1 / 16, rel=1e-12)
    assert d.pmf(4) == pytest.approx(1 / 4 + 1 / 16 + 1 / 64, rel=1e-12)
    assert abs(total(d) - 1.0) <= TOL
    with pytest.raises(ValueError, match="never stops"):
        explode(Dist.point(3))
    assert explode(Dist.die(6), on=7).allclose(Dist.die(6), atol=0.0)


def test_the_exact_pools_give_the_same_numbers_with_numpy_and_jitted():
    # kernels.pools runs each programme with NumPy leaves in a process without Numba and
    # compiled with looping leaves where Numba is loaded: one source, the same sums of the
    # same products in the same order, so the same doubles
    import numba  # noqa: F401  (the compiled programmes exist only where Numba is loaded)

    from critlab.kernels import pools

    jit = pools._jitted()
    for args in [(4, 6, 3), (10, 10, 5), (8, 20, 4), (3, 6, 0), (1, 1, 1)]:
        assert np.array_equal(pools._keep_highest(*args), jit.keep_highest(*args))
    rng = np.random.default_rng(5)
    for n_vals, count, keep, rest in [
        (130, 6, 3, 1e-14),
        (60, 10, 5, 0.0),
        (40, 4, 1, 1e-13),
        (5, 1, 1, 0.5),
    ]:
        p = rng.random(n_vals)
        p /= p.sum() * (1 + rest)
        final, leftover = pools._keep_pool(p, count, keep, rest)
        ref_final, ref_leftover = jit.keep_pool(p, count, keep, rest)
        assert np.array_equal(final, ref_final)
        assert leftover == pytest.approx(ref_leftover, rel=1e-15, abs=0)  # a power's last bit may differ
    for args in [
        (6, 6, 1e-15, 0, 0),
        (10, 10, 1e-14, 5, 10),
        (100, 100, 1e-14, 0, 0),
        (6, 5, 1e-15, 0, 3),
        (2, 2, 1e-15, 0, 0),
        (1000, 999, 1e-15, 0, 0),
    ]:
        probs, tail = pools._chain(*args)
        ref_probs, ref_tail = jit.chain(*args)
        assert np.array_equal(probs, ref_probs) and tail == ref_tail
