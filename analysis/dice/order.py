"""Keep and count over independent, differently distributed values, by order statistics.

A group ``{d6, d6, d8, d12}kh2`` keeps the two highest of members that do not share a
distribution. Enumerating the product of their supports (6 * 6 * 8 * 12 outcomes here, 10^9
for a Cortex pool of eight d12s) is never needed: for each value ``t`` that the K-th
highest kept member may show, a dynamic programme over the members counts how many lie
above ``t`` (fewer than K, their weights summed), how many at ``t`` (enough to fill the
keep), and how many below. A member's weight is its value when the kept members are
summed, or 1 / -1 / 0 when they are counted (a success, a botch, neither).

Members' tails (explosions cut off) are not represented: an outcome in which a kept member
lies in its tail is in the result's tail, which is therefore at most the sum of the
members' tails.

>>> from critlab.analysis.dist import Dist
>>> d = keep_members([Dist.die(6), Dist.die(6)], 1, highest=True)
>>> round(d.mean * 36, 9)                          # the higher of 2d6: 161/36
161.0
>>> round(keep_members([Dist.die(4), Dist.die(8)], 1, highest=False).mean * 32, 9)   # 2.5 + ...
70.0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from math import comb, expm1, fsum, log1p

import numpy as np

from critlab.analysis.dist import Dist

Weight = Callable[[np.ndarray], np.ndarray]


def _value(v: np.ndarray) -> np.ndarray:
    return v


def keep_members(members: Sequence[Dist], keep: int, *, highest: bool, weight: Weight | None = None) -> Dist:
    """The sum of ``weight`` over the ``keep`` highest (or lowest) of independent
    ``members`` (``weight`` defaults to the value itself).

    Cost: values x members x keep^2 convolutions of the partial weight sums, never the
    product of the members' supports.
    """
    w_of = weight or _value
    if not highest:
        members = [-m for m in members]
        base = w_of

        def w_of(v: np.ndarray) -> np.ndarray:
            return base(-v)

    lo, probs, tailed = _on_grid(members)
    # a tail is above every value; reflected (keeping the lowest) it is below, where a
    # member is dropped without its value mattering
    tails = np.array([d.tail for d in members]) if tailed else None
    if keep == 2 and weight is None:
        return _top_two(probs, tails, lo, highest)
    tails = np.zeros(len(members)) if tails is None else tails
    if keep == 1 and weight is None:
        return _extreme(probs, tails, lo, highest)
    grid = np.arange(lo, lo + probs.shape[1])
    return _kept_weights(probs, tails, np.asarray(w_of(grid), dtype=np.int64), keep, highest)


def _on_grid(members: Sequence[Dist]) -> tuple[int, np.ndarray, bool]:
    """The least of the members' values ``lo``, each member's probabilities on ``lo..hi``
    (over all of them), one row per member, and whether some member has a tail."""
    # one pass over the members for all three (a pool's few members make each pass's
    # own steps a share of the whole to count)
    lo = hi = None
    tailed = False
    for d in members:
        if d.probs.size:
            a, b = d.offset, d.offset + d.probs.size
            if lo is None or a < lo:
                lo = a
            if hi is None or b > hi:
                hi = b
        tailed = tailed or d.tail != 0.0
    if lo is None:
        raise ValueError("members with no values: every member is in its tail")
    probs = np.zeros((len(members), hi - lo))
    for i, d in enumerate(members):
        a = d.offset - lo
        probs[i, a : a + d.probs.size] = d.probs
    return lo, probs, tailed


def _kept_weights(probs: np.ndarray, tails: np.ndarray, weights: np.ndarray, k: int, highest: bool) -> Dist:
    """The general programme: for every threshold ``t`` the ``k``-th kept member may show,
    the weight of the members above, at and below it."""
    m, size = probs.shape
    w_lo, w_hi = int(weights.min()), int(weights.max())
    span = w_hi - w_lo
    cum_below = np.cumsum(probs, axis=1) - probs  # P(member < grid[t])
    # by_weight[i, v, w]: member i's probability at value v, put at its weight w (offset w_lo)
    by_weight = np.zeros((m, size + 1, span + 1))
    by_weight[:, np.arange(size), weights - w_lo] = probs
    # above[i, t]: member i's weights over the values above t (sub-probabilities)
    above = np.cumsum(by_weight[:, ::-1], axis=1)[:, ::-1][:, 1:]
    out = np.zeros(k * span + 1)  # the kept weights' sum, offset k * w_lo
    # every threshold at once (in chunks that bound the state's memory)
    chunk = max(1, _STATE_POINTS // ((k + 1) * (k * span + 1) * k))
    for t0 in range(0, size, chunk):
        ts = np.arange(t0, min(t0 + chunk, size))
        at_all = probs[:, ts]
        if not at_all.any():
            continue
        below_all = cum_below[:, ts] + (0.0 if highest else tails[:, None])
        state = [np.zeros((ts.size, k + 1, a * span + 1)) for a in range(k)]
        state[0][:, 0, 0] = 1.0
        for i in range(m):
            state = _add_member(state, at_all[i], below_all[i], above[i, ts], span)
        _add_kept(out, state, weights[ts] - w_lo)
    if not out.any():
        return Dist(0, [], 1.0)
    tail = max(0.0, 1.0 - fsum(out.tolist())) if tails.any() else 0.0
    return Dist(k * w_lo, out, tail)


def _add_member(
    state: list[np.ndarray], at: np.ndarray, below: np.ndarray, up: np.ndarray, span: int
) -> list:
    """The states once one more member is placed: ``state[a][t, b, s]`` is the weight of
    ``a`` members above ``t`` (``a < k``, their weights summing to ``s + a * w_lo``) and
    ``b`` at ``t`` (capped at ``k``); the member lies below ``t``, at it, or above it
    (``up[t, w]``, its weights above)."""
    k = len(state)
    at, below = at[:, None, None], below[:, None, None]
    new = [s * below for s in state]
    for a in range(k):
        s_a = state[a]
        new[a][:, 1:] += s_a[:, :-1] * at
        new[a][:, k] += s_a[:, k] * at[:, 0]
        if a + 1 < k and up.any():
            _convolve_above(s_a, up, new[a + 1], span)
    return new


def _convolve_above(s_a: np.ndarray, up: np.ndarray, target: np.ndarray, span: int) -> None:
    """Add the convolution of each ``s_a[t, b]`` with ``up[t]`` to ``target``, by the
    shorter of its two loops: over up's weights, or over the state's sums."""
    width = s_a.shape[2]
    shifts = np.flatnonzero(up.any(axis=0))
    if shifts.size <= width:
        for j in shifts.tolist():
            target[:, :, j : j + width] += s_a * up[:, None, j : j + 1]
    else:
        up = up[:, None, :]
        for j in range(width):
            target[:, :, j : j + span + 1] += s_a[:, :, j : j + 1] * up


def _add_kept(out: np.ndarray, state: list[np.ndarray], w_t: np.ndarray) -> None:
    """Add each threshold's kept sums to ``out``: ``a`` members above ``t`` and at least
    ``k - a`` at it, whose ``k - a`` kept ones weigh ``w_t`` each (offset ``w_lo``)."""
    k = len(state)
    for a in range(k):
        vec = state[a][:, k - a :].sum(axis=1)  # [t, s]
        # value: a * w_lo + s + (k - a) * w_t, at index s + (k - a) * (w_t - w_lo)
        base = (k - a) * w_t
        for row, b0 in zip(vec, base.tolist(), strict=True):
            out[b0 : b0 + row.size] += row


# Doubles the order-statistics programme holds at once (a chunk of thresholds' states).
_STATE_POINTS = 1 << 20


def _extreme(probs: np.ndarray, tails: np.ndarray, lo: int, highest: bool) -> Dist:
    """The highest member (of members reflected, the lowest) by a product of CDFs:
    ``P(max <= v) = prod_i P(X_i <= v)``, a member in its tail counted above every value
    (reflected, below every value, where it is never the one kept unless all are)."""
    below = 0.0 if highest else tails[:, None]
    cdf = np.prod(np.cumsum(probs, axis=1) + below, axis=0)
    start = 0.0 if highest else float(np.prod(tails))
    pmf = np.clip(np.diff(np.concatenate([[start], cdf])), 0.0, None)
    tail = max(0.0, 1.0 - fsum(pmf.tolist())) if tails.any() else 0.0
    d = Dist(lo, pmf, tail)
    return d if highest else -d


def _top_two(probs: np.ndarray, tails: np.ndarray | None, lo: int, highest: bool) -> Dist:
    """The sum of the two highest members (of members reflected, the two lowest) from
    their CDFs, a handful of array operations whatever the members: with ``F_i`` member
    i's CDF and ``L_i = prod_{j != i} F_j`` (by prefix and suffix products),
    ``P(M1 = x, M2 = y) = sum_i P(X_i = x) (L_i(y) - L_i(y - 1))`` for ``x > y``, and
    ``P(M1 = M2 = y) = P(max = y) - sum_i P(X_i = y) L_i(y - 1)``. Tails lie as in
    :func:`_extreme` (``tails`` None: no member has one)."""
    m, size = probs.shape
    # rows 1..m: F_i at lo - 1, lo, ..., hi, between two rows of ones, written in place
    # (the programme's cost is its count of array operations, each on a few dozen values:
    # the ufuncs' own accumulate, not np.cumsum's and np.cumprod's wrappers of it)
    cdf = np.ones((m + 2, size + 1))
    rows = cdf[1 : m + 1]
    rows[:, 0] = 0.0 if highest or tails is None else tails
    np.add.accumulate(probs, axis=1, out=rows[:, 1:])
    if not highest and tails is not None:
        rows[:, 1:] += tails[:, None]
    prefix = np.multiply.accumulate(cdf[: m + 1], axis=0)  # prefix[i] = prod_{j < i} F_j
    suffix = np.multiply.accumulate(cdf[:0:-1], axis=0)  # suffix[k]: the product of the last k
    others = prefix[:m] * suffix[m - 1 :: -1]  # L_i(v)
    # (slices subtracted: np.diff's own checks cost more than the subtraction)
    top = others[:, 1:] - others[:, :-1]  # P(the others' highest = y), rounding below 0 cut
    np.maximum(top, 0.0, out=top)
    joint = probs.T @ top  # [x, y]; x > y is kept
    every = prefix[m]
    both = (every[1:] - every[:-1]) - np.add.reduce(probs * others[:, :-1], axis=0)  # M1 = M2 = y
    np.maximum(both, 0.0, out=both)
    pmf = np.bincount(_pair_sums(size), weights=joint.ravel(), minlength=2 * size)[:-1]
    pmf[::2] += both
    tail = max(0.0, 1.0 - fsum(pmf.tolist())) if tails is not None else 0.0
    d = Dist._of(2 * lo, pmf, tail)
    return d if highest else -d


@lru_cache(maxsize=64)
def _pair_sums(size: int) -> np.ndarray:
    """``x + y`` over a ``size`` by ``size`` grid of indices, flat, where ``x > y``; the
    extra bin ``2 * size - 1`` elsewhere (a pair not counted)."""
    x, y = np.indices((size, size))
    out = np.where(x > y, x + y, 2 * size - 1).ravel()
    out.setflags(write=False)
    return out


def weight_dist(d: Dist, weight: Weight) -> Dist:
    """The distribution of ``weight(X)``; ``X``'s tail stays a tail (its weight unknown).

    >>> weight_dist(Dist.die(6), lambda v: (v >= 5).astype(int)).to_dict()
    {0: 0.666..., 1: 0.333...}
    """
    return d.map(lambda v: np.asarray(weight(v), dtype=np.int64))


# Dice counted in closed form at most: the trinomial's coefficients (up to 3**n) and its
# powers stay far inside the doubles' range; beyond, the counts are convolved.
_CLOSED_COUNT = 60
# Values of a die at most whose category masses are summed value by value in Python (an
# exploding die's many values are summed by array).
_FEW_VALUES = 16


def counted_sum(d: Dist, count: tuple[int, int], botch: tuple[int, int] | None, n: int) -> Dist:
    """Successes (values in ``count``) less botches (values in ``botch``) over ``n``
    independent copies of ``d``, in closed form: with ``S`` successes and ``B`` botches,
    ``P(S = s, B = b) = n! / (s! b! o!) p_s**s p_b**b p_o**o`` (``o = n - s - b``), summed
    over ``s - b``. One pass over a cached triangle of coefficients, where convolving the
    counts ``log2(n)`` times costs a distribution's arithmetic at every step. A copy in
    ``d``'s tail puts the sum in the tail.

    >>> round(counted_sum(Dist.die(6), (5, 6), (1, 1), 2).pmf(0) * 36, 9)   # (1/2)**2 + 2/3 * 1/6
    13.0
    """
    if n > _CLOSED_COUNT or not d.probs.size:
        return weight_dist(d, counter(*count, botch)).repeat(n)
    coef, powers, net, ways = _trinomial(n)
    # the powers 0..n of each category's mass, gathered into each (s, b, o) and multiplied
    terms = np.power.outer(_masses(d, count, botch), ways).ravel()[powers].prod(axis=0)
    pmf = np.bincount(net, weights=coef * terms, minlength=2 * n + 1)
    tail = -expm1(n * log1p(-d.tail)) if d.tail else 0.0
    return Dist._of(-n, pmf, tail)


def _masses(d: Dist, count: tuple[int, int], botch: tuple[int, int] | None) -> list[float]:
    """``d``'s masses of a botch, neither and a success (a value both counts and botches
    weighs 0), each summed compensated."""
    lo, hi = count
    b_lo, b_hi = botch if botch is not None else (1, 0)  # (1, 0): no value botches
    if d.probs.size > _FEW_VALUES:  # an explosion's many values: by array
        w = counter(lo, hi, botch)(d.values)
        return [fsum(d.probs[w == k].tolist()) for k in (-1, 0, 1)]
    parts: list[list[float]] = [[], [], []]
    for v, p in enumerate(d.probs.tolist(), d.offset):  # a die's few faces: in Python
        parts[(lo <= v <= hi) - (b_lo <= v <= b_hi) + 1].append(p)
    return [fsum(part) for part in parts]


@lru_cache(maxsize=64)
def _trinomial(n: int) -> tuple[np.ndarray, ...]:
    """For ``n`` dice, over every ``s`` successes and ``b`` botches (``s + b <= n``, the
    others ``o = n - s - b``): the multinomial coefficient, the indices of ``b``, ``o`` and
    ``s`` into the powers ``0..n`` of the botch, neither and success masses laid end to
    end, the net count's index ``s - b + n``, and the powers ``0..n``."""
    pairs = [(s, b) for s in range(n + 1) for b in range(n + 1 - s)]
    coef = np.array([comb(n, s) * comb(n - s, b) for s, b in pairs], dtype=float)
    s, b = np.array(pairs).T
    powers = np.stack([b, (n + 1) + (n - s - b), 2 * (n + 1) + s])
    net, ways = s - b + n, np.arange(n + 1)
    for a in (coef, powers, net, ways):
        a.setflags(write=False)
    return coef, powers, net, ways


def counter(lo: int, hi: int, botch: tuple[int, int] | None = None) -> Weight:
    """The weight of a count: 1 on values in ``lo..hi``, -1 on values in the botch
    interval, 0 elsewhere.

    >>> counter(6, 10, (1, 1))(np.arange(1, 11)).tolist()
    [-1, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    """

    def w(v: np.ndarray) -> np.ndarray:
        out = ((v >= lo) & (v <= hi)).astype(np.int64)
        if botch is not None:
            out -= ((v >= botch[0]) & (v <= botch[1])).astype(np.int64)
        return out

    return w


def members_work(sizes: Sequence[int], keep: int, span: int) -> int:
    """Inner steps of :func:`keep_members` (an upper bound): values x members x keep^2
    convolutions of up to ``keep * span`` by ``span`` points."""
    values = sum(sizes)
    return values * len(sizes) * (keep + 1) ** 2 * (keep * span + 1) * (span + 1) // max(1, keep)


__all__ = ["counted_sum", "counter", "keep_members", "members_work", "weight_dist"]
