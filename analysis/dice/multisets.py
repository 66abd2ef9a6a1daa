"""A small pool of identical dice kept by its multisets of values.

``count`` dice of one distribution over ``n`` values show one of ``C(count + n - 1, count)``
multisets of values (126 for 4d6), each with probability ``count! / prod(c_v!) * prod(p_v**c_v)``
(``c_v``: the dice showing value ``v``); the dice kept are the multiset's highest or
lowest ``keep``. For a small pool these few multisets are cheaper than the dynamic
programme of :func:`critlab.analysis.dice.exact.keep_pool`, whose cost is its count of
steps: the multisets' table (their counts, coefficients and kept sums) depends on the
pool's shape alone and is built once per shape, so each distribution is four array
operations on it.

>>> from critlab.analysis.dist import Dist
>>> round(multiset_pool(Dist.die(6), 4, 3, highest=True).mean * 1296, 9)   # 4d6dl1: 15869/1296
15869.0
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb, factorial, prod

import numpy as np

from critlab.analysis.dist import Dist

# Multisets times values at most in a pool computed by its multisets (4d6: 126 x 6): beyond,
# the table costs more than the compiled programme's steps (8d5 is 792 x 5).
MAX_CELLS = 1 << 12


def fits(values: int, count: int) -> bool:
    """Whether ``count`` dice over ``values`` values are few enough multisets."""
    return comb(count + values - 1, count) * values <= MAX_CELLS


def multiset_pool(die: Dist, count: int, keep: int, *, highest: bool) -> Dist:
    """The sum of the highest (``highest``) or lowest ``keep`` of ``count`` dice of
    distribution ``die`` (no tail: every die is represented), by the pool's multisets."""
    counts, coef, kept, ways = _table(die.probs.size, count, keep, highest)
    # each value's powers once (count + 1 of them), gathered into every multiset's row
    powers = np.power.outer(die.probs, ways).ravel()[counts]
    return Dist._of(keep * die.offset, np.bincount(kept, weights=coef * powers.prod(axis=1)), 0.0)


@lru_cache(maxsize=128)
def _table(values: int, count: int, keep: int, highest: bool) -> tuple[np.ndarray, ...]:
    """Every multiset of ``count`` values out of ``0..values - 1``: how many dice show
    each value (a row, as an index into the values' powers ``0..count``), its multinomial
    coefficient, its kept values' sum, and the powers ``0..count``."""
    shown = np.array(list(combinations_with_replacement(range(values), count)), dtype=np.int64)
    counts = np.zeros((shown.shape[0], values), dtype=np.int64)
    np.add.at(counts, (np.arange(shown.shape[0])[:, None], shown), 1)
    whole = factorial(count)
    coef = np.array([whole // prod(factorial(c) for c in row) for row in counts.tolist()], dtype=float)
    # each multiset listed in ascending order: the highest are its last, the lowest its first
    kept = (shown[:, -keep:] if highest else shown[:, :keep]).sum(axis=1)
    ways = np.arange(count + 1)
    flat = counts + np.arange(values) * (count + 1)  # value v's power c at v * (count + 1) + c
    for a in (flat, coef, kept, ways):
        a.setflags(write=False)
    return flat, coef, kept, ways


__all__ = ["MAX_CELLS", "fits", "multiset_pool"]
