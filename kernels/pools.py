"""Exact dice pools for the exact engine: keep the highest of N dice without
enumerating the ``sides ** count`` faces, and an explosion's chain of rolls.

Plain NumPy (each programme's innermost loop, over the sums, is one array operation),
so the exact engine, ``critlab dice`` and ``critlab exact`` never load Numba; every
number is the same sum of the same products as a loop over the sums would make. Where
Numba is loaded already, the same programmes jitted (:mod:`critlab.kernels.pools_jit`)
answer instead, a hundred times faster warm, with the same numbers.

>>> w = keep_highest_weights(4, 6, 3)          # 4d6, highest 3
>>> round(float(w @ range(w.size)), 4)
12.2446
>>> probs, tail = explosion_chain(6, 6, 1e-15, 0, 0)
>>> round(float(probs @ range(probs.size)), 12), bool(0 < tail < 1e-15)
(4.2, True)
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np


def _jitted() -> Any:
    """The jitted programmes where this process has loaded Numba already, else None (the
    exact engine never loads it for them)."""
    if "numba" not in sys.modules:
        return None
    from critlab.kernels import pools_jit

    return pools_jit


def _binomials(count: int) -> np.ndarray:
    """Pascal's triangle up to ``count``: ``binom[n, c]`` = C(n, c), as floats."""
    binom = np.zeros((count + 1, count + 1))
    for n in range(count + 1):
        binom[n, 0] = 1.0
        for c in range(1, n + 1):
            binom[n, c] = binom[n - 1, c - 1] + (binom[n - 1, c] if c <= n - 1 else 0.0)
    return binom


def keep_highest_weights(count, sides, keep):
    """Probabilities of the sum of the highest ``keep`` of ``count`` fair dice, over
    ``0 .. keep * sides``.

    A dynamic programme over faces from the top down. ``state[j, t]`` is the
    probability weight of "j dice assigned to the faces seen so far, kept sum t";
    at face ``v``, ``c`` of the ``count - j`` unassigned dice show ``v`` (binomial weight
    ``C(count - j, c) / sides**c``), and they are kept while fewer than ``keep`` are.
    Cost ``O(sides * count**2 * keep * sides)``.
    """
    jitted = _jitted()
    if jitted is not None:
        return jitted.keep_highest_weights(count, sides, keep)
    count, sides, keep = int(count), int(sides), int(keep)
    width = keep * sides + 1
    binom = _binomials(count)
    p = 1.0 / sides
    state = np.zeros((count + 1, width))
    state[0, 0] = 1.0
    for v in range(sides, 0, -1):
        new = np.zeros((count + 1, width))
        for j in range(count + 1):
            rem = count - j
            room = keep - j if j < keep else 0
            row = state[j]
            pc = 1.0
            for c in range(rem + 1):
                kept = c if c < room else room
                shift = kept * v
                # every sum t of the row moves to t + shift (a sum past the width has no weight)
                new[j + c, shift:] += row[: width - shift] * binom[rem, c] * pc
                pc *= p
        state = new
    return state[count]


def keep_pool_weights(probs, count, keep, rest):
    """Kept-sum weights of ``keep`` of ``count`` dice with any per-die distribution.

    ``probs[i]`` is the probability that one die shows the ``i``-th value in the order of
    keeping (highest first to keep the highest, lowest first to keep the lowest); ``rest``
    is the mass of a die beyond the last value (an explosion's tail when keeping the
    lowest, where a tail die is dropped once ``keep`` dice are kept). Returns ``(final,
    leftover)``: ``final[t]`` is the probability that the kept dice's indices sum to ``t``
    (``0 .. keep * (len(probs) - 1)``), and ``leftover`` the probability that fewer than
    ``keep`` dice fall on ``probs``'s values (so some kept die lies in ``rest``).

    The programme assigns dice value by value: ``state[j, t]`` is the weight of ``j`` dice
    placed on the values seen so far, all kept, with index sum ``t``; ``c`` of the
    ``count - j`` others show the next value with weight ``C(count - j, c) p**c``. Once the
    ``keep``-th die is placed, the remaining dice only have to fall later in the order,
    which the multinomial theorem sums in closed form, so the state never holds more
    than ``keep - 1`` dice. Cost about ``len(probs)**2 * keep**3 / 12`` steps.
    """
    jitted = _jitted()
    if jitted is not None:
        return jitted.keep_pool_weights(probs, count, keep, rest)
    probs = np.asarray(probs, dtype=np.float64)
    count, keep = int(count), int(keep)
    n_vals = probs.shape[0]
    width = keep * (n_vals - 1) + 1
    binom = _binomials(count)
    # later[i]: the mass of a die after value i in the order (positive terms only)
    later = np.zeros(n_vals)
    acc = rest
    for i in range(n_vals - 1, -1, -1):
        later[i] = acc
        acc += probs[i]
    state = np.zeros((keep, width))
    state[0, 0] = 1.0
    final = np.zeros(width)
    pw = np.zeros(count + 1)
    lw = np.zeros(count + 1)
    for i in range(n_vals):
        p = probs[i]
        if p == 0.0:
            continue
        pw[0] = 1.0
        lw[0] = 1.0
        for c in range(1, count + 1):
            pw[c] = pw[c - 1] * p
            lw[c] = lw[c - 1] * later[i]
        # descending j: a transition writes to j + c > j, already read in this step
        for j in range(keep - 1, -1, -1):
            rem = count - j
            finish = 0.0
            for c in range(keep - j, rem + 1):
                finish += binom[rem, c] * pw[c] * lw[rem - c]
            hi = j * (i - 1) if i > 0 else 0
            shift = (keep - j) * i
            row = state[j, : hi + 1]
            final[shift : shift + hi + 1] += row * finish
            for c in range(1, keep - j):
                state[j + c, c * i : c * i + hi + 1] += row * binom[rem, c] * pw[c]
    leftover = 0.0
    if rest > 0.0:
        for j in range(keep):
            mass = 0.0
            for t in range(width):
                mass += state[j, t]
            leftover += mass * rest ** (count - j)
    return final, leftover


def explosion_chain(sides, at, eps, min_len, extra):
    """The sum of fair ``sides``-sided rolls until one shows less than ``at``.

    Returns ``(probs, tail)``: ``probs[v]`` is the probability of the sum ``v`` for
    ``v = 0 .. M`` (``probs[0] = 0``), where ``M`` is ``extra`` more than the first length
    ``>= min_len`` whose cut-off mass is below ``eps``; ``tail`` is ``P(sum > M)``, summed from
    positive terms (never ``1 - sum``, which would lose it in rounding): the chain first
    passes ``M`` from a partial sum ``s <= M`` of exploding rolls with a roll above
    ``M - s``.

    ``e[s]``, the probability that exploding rolls sum to exactly ``s``, satisfies
    ``e[s] = sum(e[s - f] for f >= at) / sides``; each value is a sum of positive terms,
    so the recurrence loses no accuracy however long the chain.
    """
    jitted = _jitted()
    if jitted is not None:
        return jitted.explosion_chain(sides, at, eps, min_len, extra)
    sides, at, min_len, extra = int(sides), int(at), int(min_len), int(extra)
    inv = 1.0 / sides
    # plain floats: the recurrence runs one value at a time, each a short sum in order
    e = [1.0]
    out = [0.0]
    m = 0
    stop = -1
    while True:
        m += 1
        acc = 0.0
        for f in range(at, sides + 1):
            if f > m:
                break
            acc += e[m - f]
        e.append(acc * inv)
        acc = 0.0
        for f in range(1, at):
            if f > m:
                break
            acc += e[m - f]
        out.append(acc * inv)
        if m < min_len:
            continue
        if stop < 0:
            if _chain_tail(e, m, sides) >= eps:
                continue
            stop = m + extra
        if m >= stop:
            return np.array(out[: m + 1]), _chain_tail(e, m, sides)


def _chain_tail(e, m, sides):
    """``P(chain > m)``: from each exploding partial sum ``s`` within a roll of ``m``, the
    rolls that pass ``m`` (``sides - (m - s)`` of them)."""
    tail = 0.0
    lo = m - sides + 1 if m - sides + 1 > 0 else 0
    for s in range(lo, m + 1):
        tail += e[s] * (sides - (m - s))
    return tail / sides
