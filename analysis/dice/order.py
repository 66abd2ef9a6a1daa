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
from math import fsum

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

    m = len(members)
    lo = min(d.min for d in members if d.probs.size)
    hi = max(d.max for d in members if d.probs.size)
    grid = np.arange(lo, hi + 1)
    probs = np.zeros((m, grid.size))
    for i, d in enumerate(members):
        probs[i, d.min - lo : d.max - lo + 1] = d.probs
    # a tail is above every value; reflected (keeping the lowest) it is below, where a
    # member is dropped without its value mattering
    tails = np.array([d.tail for d in members])
    if keep == 1 and weight is None:
        return _extreme(probs, tails, lo, highest)
    weights = np.asarray(w_of(grid), dtype=np.int64)
    w_lo, w_hi = int(weights.min()), int(weights.max())
    span = w_hi - w_lo
    cum_below = np.cumsum(probs, axis=1) - probs  # P(member < grid[t])
    out: dict[int, list[float]] = {}
    k = keep
    for t in range(grid.size):
        at = probs[:, t]
        if not at.any():
            continue
        below = cum_below[:, t] + (0.0 if highest else tails)
        # above[i]: member i's weight over the values above t (sub-probabilities)
        above = np.zeros((m, span + 1))
        for i in range(m):
            np.add.at(above[i], weights[t + 1 :] - w_lo, probs[i, t + 1 :])
        # state[a][b]: a members above t (a < k, their weights summed, offset a * w_lo),
        # b members at t (capped at k)
        state = [np.zeros((k + 1, a * span + 1)) for a in range(k)]
        state[0][0, 0] = 1.0
        for i in range(m):
            new = [s * below[i] for s in state]
            for a in range(k):
                s = state[a]
                new[a][1:] += s[:-1] * at[i]
                new[a][k] += s[k] * at[i]
                if a + 1 < k and above[i].any():
                    for b in range(k + 1):
                        if s[b].any():
                            new[a + 1][b] += np.convolve(s[b], above[i])
            state = new
        w_t = int(weights[t])
        for a in range(k):
            rows = state[a][k - a :]
            vec = rows.sum(axis=0)
            base_value = a * w_lo + (k - a) * w_t
            for j in np.flatnonzero(vec):
                out.setdefault(base_value + int(j), []).append(float(vec[j]))
    if not out:
        return Dist(0, [], 1.0)
    mapping = {v: fsum(ps) for v, ps in out.items()}
    tail = max(0.0, 1.0 - fsum(mapping.values())) if tails.any() else 0.0
    return Dist.from_mapping(mapping, tail=tail)


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


def weight_dist(d: Dist, weight: Weight) -> Dist:
    """The distribution of ``weight(X)``; ``X``'s tail stays a tail (its weight unknown).

    >>> weight_dist(Dist.die(6), lambda v: (v >= 5).astype(int)).to_dict()
    {0: 0.666..., 1: 0.333...}
    """
    return d.map(lambda v: np.asarray(weight(v), dtype=np.int64))


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


__all__ = ["counter", "keep_members", "members_work", "weight_dist"]
