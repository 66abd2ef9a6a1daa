"""A ``best`` side's lookups in the exact walk's table, for the encounter block
(:mod:`critlab.kernels.encounter`): the target the table chose in a state, and the table's
row of a rolled order of turns.

They are the same whatever the encounter's systems, and seldom run (once per attack of a
``best`` side, once per trial of a rolled order), so they are kernels of their own, called
and not inlined: compiled once (and cached) for every block, where inlined they were
compiled again into every block of another tuple of systems or shape (measured on the duel
after the party's encounter, its attack cached: the block's first compile 6.7 -> 4.5 s).
"""

from __future__ import annotations

import numpy as np

from critlab.kernels.jit import kernel


@kernel(inline="always")
def _state(hp, lo, hi, mult, keys):
    """The index of the side state of hit points ``hp[lo:hi]`` among ``keys``, -1 if none."""
    key = np.int64(0)
    for j in range(lo, hi):
        key += hp[j] * mult[j - lo]
    k = np.searchsorted(keys, key)
    if k < keys.size and keys[k] == key:
        return k
    return -1


@kernel
def order_row(order, n, order_keys, order_index):
    """The best table's row of the order of turns ``order`` (found by its Lehmer code
    among the sorted ``order_keys``), -1 where the exact walk has none."""
    code = _lehmer(order, n)
    k = np.searchsorted(order_keys, code)
    return order_index[k] if k < order_keys.size and order_keys[k] == code else -1


@kernel(inline="always")
def _lehmer(order, n):
    """The Lehmer code of a permutation (its rank among the permutations of ``n``)."""
    code = np.int64(0)
    for p in range(n):
        smaller = 0
        for q in range(p + 1, n):
            if order[q] < order[p]:
                smaller += 1
        code = code * (n - p) + smaller
    return code


@kernel
def best_pick(hp, lo, hi, row, pos, n_a, n, mult_a, keys_a, mult_b, keys_b, table):
    """The target the table chose in this state at attack ``pos`` of order ``row``, else
    the first standing (a state the exact walk did not reach: a damage past its tail)."""
    i = _state(hp, 0, n_a, mult_a, keys_a)
    j = _state(hp, n_a, n, mult_b, keys_b)
    if i >= 0 and j >= 0 and row >= 0:
        t = table[row, pos, i, j]
        if t >= 0 and hp[lo + t] > 0:
            return lo + t
    for k in range(lo, hi):
        if hp[k] > 0:
            return k
    return -1
