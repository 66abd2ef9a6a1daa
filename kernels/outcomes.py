"""A mechanic's inputs' exact outcomes, as the exact walks read them.

Input ``j`` of a rule has a table of outcomes: outcome ``q``'s probability, and its
``widths[j]`` values (1 for a value, a pool's dice sorted highest first) at
``sup_vals[val_start[j] + q * widths[j]:]``. A pool's table lists its distinct sorted
outcomes (:func:`pool_table`), not every face of every die: 12d6 is 6,188 rows, not
2,176,782,336. The walks (:mod:`critlab.kernels.mechanic`'s ``explore``,
:mod:`critlab.kernels.choices`' ``solve``) branch over an input's rows, each branch putting
its row in the rule's memory (:func:`put_outcome`).

>>> pool_rows(12, 6)
6188
"""

from __future__ import annotations

import math

import numpy as np

from critlab.kernels.jit import kernel


def pool_rows(n: int, faces: int) -> int:
    """How many distinct sorted outcomes ``n`` dice of ``faces`` values have (multisets).

    >>> pool_rows(12, 6), pool_rows(0, 6)
    (6188, 1)
    """
    return math.comb(n + faces - 1, n)


@kernel
def pool_table(values, probs, n, out_vals, out_probs):
    """Every distinct outcome of ``n`` independent dice, each showing ``values[j]`` with
    probability ``probs[j]`` (``values`` ascending): row ``r`` of ``out_vals`` (``n``
    wide, flat) the dice sorted highest first, ``out_probs[r]`` its multinomial
    probability, ``n! / prod(c_j!) * prod(probs[j] ** c_j)`` for ``c_j`` dice showing
    ``values[j]``. ``out_probs`` has :func:`pool_rows` entries."""
    m = values.shape[0]
    idx = np.zeros(max(n, 1), np.int64)  # face indices, non-increasing
    for r in range(out_probs.shape[0]):
        p = 1.0
        left = n  # dice not yet placed: the multinomial as a product of binomials
        t = 0
        while t < n:
            u = t
            while u < n and idx[u] == idx[t]:
                u += 1
            c = u - t
            for a in range(c):
                p *= (left - a) / (a + 1) * probs[idx[t]]
            left -= c
            t = u
        for a in range(n):
            out_vals[r * n + a] = values[idx[a]]
        out_probs[r] = p
        # the next non-increasing sequence: raise the last index that may rise
        t = n - 1
        while t >= 0 and (idx[t] == m - 1 or (t > 0 and idx[t] == idx[t - 1])):
            t -= 1
        if t < 0:
            break
        idx[t] += 1
        for a in range(t + 1, n):
            idx[a] = 0


@kernel(inline="always")
def put_outcome(mem, j, q, val_start, offs, widths, sup_vals):
    """Input ``j``'s outcome ``q`` put in the rule's memory ``mem``: its ``widths[j]``
    values from the table ``sup_vals``, at the input's offset ``offs[j]``."""
    base = val_start[j] + q * widths[j]
    for t in range(widths[j]):
        mem[offs[j] + t] = sup_vals[base + t]
