"""Exact dice pools for the exact engine: keep the highest of N dice without
enumerating the ``sides ** count`` faces, and an explosion's chain of rolls.

Each programme is written once, here, and runs two ways. Its loops call six leaves:
:func:`_add_scaled` and :func:`_spread_row` (rows of weights moved and scaled into
others), :func:`_sum_seq` (a sum over a stretch, in order), :func:`_chain_tail`, and
:func:`_step_weights` (a pool's weights at one value) over :func:`_as_rows` (Pascal's
triangle as it reads it). In a process without Numba the leaves are NumPy array
operations, or Python floats where they add only a few terms, so the exact engine,
``critlab dice`` and ``critlab exact`` never load Numba; where Numba is loaded already (a
simulation's process, a notebook after one, the benchmarks), the same programmes are
compiled with looping leaves (:func:`_jitted`, through :func:`critlab.kernels.jit.bind`)
and answer a hundred times faster warm. Both ways of a leaf make the same products and
the same sums in the same order, so the two ways give the same doubles (a test holds
them equal).

>>> w = keep_highest_weights(4, 6, 3)          # 4d6, highest 3
>>> round(float(w @ range(w.size)), 4)
12.2446
>>> probs, tail = explosion_chain(6, 6, 1e-15, 0, 0)
>>> round(float(probs @ range(probs.size)), 12), bool(0 < tail < 1e-15)
(4.2, True)
"""

from __future__ import annotations

import sys
import threading
from types import SimpleNamespace
from typing import Any

import numpy as np

# --- the leaves, NumPy's way -----------------------------------------------------------

# A sum of at most this many terms is added in Python: an array operation's fixed cost is
# more than a few dozen float additions.
_SHORT = 32
# A row of at most this many weights is moved element by element (a pool's first dice).
_FEW = 8


def _add_scaled(dst, d0, src, s0, n, a, b):
    """``dst[d0 + k] += src[s0 + k] * a * b`` for ``k < n`` (the product in that order)."""
    if n > _FEW:
        moved = src[s0 : s0 + n] * a
        if b != 1.0:  # x * 1.0 is x: the product is the same without the second pass
            moved *= b
        dst[d0 : d0 + n] += moved
        return
    for k in range(n):  # a short row (a pool's first dice): element by element
        dst[d0 + k] += src[s0 + k] * a * b


def _spread_row(new, j, row, width, binom_row, rem, room, v, p):
    """Row ``j`` of a keep-highest state at face ``v``: for ``c`` of its ``rem`` unplaced
    dice showing ``v`` (weight ``C(rem, c) p**c``), every sum ``t`` moves to row ``j + c``,
    sum ``t + v * min(c, room)`` (a sum past the width has no weight)."""
    pc = 1.0
    for c in range(rem + 1):
        shift = (c if c < room else room) * v
        new[j + c, shift:] += row[: width - shift] * binom_row[c] * pc
        pc *= p


def _sum_seq(values, start, stop, step):
    """The sum of ``values[k]`` for ``k`` in ``range(start, stop, step)``, added in that
    order from 0.0: a cumulative sum is sequential, where ``np.sum`` pairs its terms."""
    if (stop - start) * step <= 0:
        return 0.0
    part = values[start:stop:step] if stop >= 0 else values[start::step]
    if part.size > _SHORT:
        return float(np.cumsum(part)[-1])
    acc = 0.0  # a few terms (a chain's step): added one by one in Python, in the same order
    for v in part.tolist():
        acc += v
    return acc


def _chain_tail(e, m, sides):
    """``P(chain > m)``: from each exploding partial sum ``s`` within a roll of ``m``, the
    rolls that pass ``m`` (``sides - (m - s)`` of them), summed from the lowest ``s`` up."""
    lo = m - sides + 1 if m - sides + 1 > 0 else 0
    if m + 1 - lo > _SHORT:
        passing = e[lo : m + 1] * (np.arange(lo, m + 1) + (sides - m))
        return float(np.cumsum(passing)[-1]) / sides
    tail = 0.0  # a small die's few partial sums: in Python, the same products and order
    for s, v in enumerate(e[lo : m + 1].tolist(), lo):
        tail += v * (sides - (m - s))
    return tail / sides


def _as_rows(binom):
    """Pascal's triangle as :func:`_step_weights` reads it: lists of Python floats."""
    return binom.tolist()


def _step_weights(binom, p, after, count, keep, pw, lw, finish):
    """One value's weights in :func:`_keep_pool`: ``pw[c] = p**c`` (repeated products;
    ``lw`` is scratch for ``after**c``) and, for each ``j`` dice placed, ``finish[j]``:
    ``c >= keep - j`` of the ``count - j`` others on this value and the rest after it
    (``after**(rem - c)``). ``binom`` is :func:`_as_rows`'s. In Python floats, the same
    products and sums in the same order as the loop: a NumPy scalar's arithmetic costs
    more than the sums themselves."""
    p, after = float(p), float(after)
    pws, lws = [1.0], [1.0]
    for _ in range(count):
        pws.append(pws[-1] * p)
        lws.append(lws[-1] * after)
    for j in range(keep - 1, -1, -1):
        rem = count - j
        row = binom[rem]
        total = 0.0
        for c in range(keep - j, rem + 1):
            total += row[c] * pws[c] * lws[rem - c]
        finish[j] = total
    pw[:] = pws


# --- the programmes --------------------------------------------------------------------


def _binomials(count):
    """Pascal's triangle up to ``count``: ``binom[n, c]`` = C(n, c), as floats."""
    binom = np.zeros((count + 1, count + 1))
    for n in range(count + 1):
        binom[n, 0] = 1.0
        for c in range(1, n + 1):
            binom[n, c] = binom[n - 1, c - 1] + (binom[n - 1, c] if c <= n - 1 else 0.0)
    return binom


def _keep_highest(count, sides, keep):
    width = keep * sides + 1
    binom = _binomials(count)
    p = 1.0 / sides
    state = np.zeros((count + 1, width))
    state[0, 0] = 1.0
    for v in range(sides, 0, -1):
        new = np.zeros((count + 1, width))
        for j in range(count + 1):
            rem = count - j
            _spread_row(new, j, state[j], width, binom[rem], rem, keep - j if j < keep else 0, v, p)
        state = new
    return state[count]


def _keep_pool(probs, count, keep, rest):
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
    finish = np.zeros(keep)
    rows = _as_rows(binom)
    for i in range(n_vals):
        p = probs[i]
        if p == 0.0:
            continue
        _step_weights(rows, p, later[i], count, keep, pw, lw, finish)
        # descending j: a transition writes to j + c > j, already read in this step
        for j in range(keep - 1, -1, -1):
            rem = count - j
            hi = j * (i - 1) if i > 0 else 0
            shift = (keep - j) * i
            _add_scaled(final, shift, state[j], 0, hi + 1, finish[j], 1.0)
            for c in range(1, keep - j):
                _add_scaled(state[j + c], c * i, state[j], 0, hi + 1, binom[rem, c], pw[c])
    leftover = 0.0
    if rest > 0.0:
        for j in range(keep):
            leftover += _sum_seq(state[j], 0, width, 1) * rest ** (count - j)
    return final, leftover


def _chain(sides, at, eps, min_len, extra):
    inv = 1.0 / sides
    cap = 1024
    e = np.zeros(cap)
    out = np.zeros(cap)
    e[0] = 1.0
    m = 0
    stop = -1
    while True:
        m += 1
        if m >= cap:
            cap *= 2
            e2 = np.zeros(cap)
            o2 = np.zeros(cap)
            e2[:m] = e[:m]
            o2[:m] = out[:m]
            e, out = e2, o2
        # e[m - f] for the exploding faces f = at .. sides, then the stopping ones 1 .. at - 1
        lo = m - sides if m - sides > 0 else 0
        e[m] = _sum_seq(e, m - at, lo - 1, -1) * inv
        stop_lo = m - at + 1 if m - at + 1 > 0 else 0
        out[m] = _sum_seq(e, m - 1, stop_lo - 1, -1) * inv
        if m < min_len:
            continue
        if stop < 0:
            if _chain_tail(e, m, sides) >= eps:
                continue
            stop = m + extra
        if m >= stop:
            return out[: m + 1].copy(), _chain_tail(e, m, sides)


# --- the leaves, Numba's way, and the compiled programmes ------------------------------


def _add_scaled_loop(dst, d0, src, s0, n, a, b):
    for k in range(n):
        w = src[s0 + k]
        if w != 0.0:  # most of a pool's state is empty
            dst[d0 + k] += w * a * b


def _spread_row_loop(new, j, row, width, binom_row, rem, room, v, p):
    for t in range(width):
        w = row[t]
        if w == 0.0:  # most of a pool's state is empty: skip it before the dice loop
            continue
        pc = 1.0
        for c in range(rem + 1):
            new[j + c, t + (c if c < room else room) * v] += w * binom_row[c] * pc
            pc *= p


def _as_rows_loop(binom):
    return binom


def _step_weights_loop(binom, p, after, count, keep, pw, lw, finish):
    pw[0] = 1.0
    lw[0] = 1.0
    for c in range(1, count + 1):
        pw[c] = pw[c - 1] * p
        lw[c] = lw[c - 1] * after
    for j in range(keep - 1, -1, -1):
        rem = count - j
        total = 0.0
        for c in range(keep - j, rem + 1):
            total += binom[rem, c] * pw[c] * lw[rem - c]
        finish[j] = total


def _sum_seq_loop(values, start, stop, step):
    acc = 0.0
    for k in range(start, stop, step):
        acc += values[k]
    return acc


def _chain_tail_loop(e, m, sides):
    tail = 0.0
    lo = m - sides + 1 if m - sides + 1 > 0 else 0
    for s in range(lo, m + 1):
        tail += e[s] * (sides - (m - s))
    return tail / sides


_COMPILED: SimpleNamespace | None = None
_LOCK = threading.Lock()


def _jitted() -> Any:
    """The programmes compiled, where this process has loaded Numba already (compiled on
    first use, then loaded from the disk cache), else None: the exact engine never loads
    Numba for them."""
    global _COMPILED
    if "numba" not in sys.modules:
        return None
    with _LOCK:
        if _COMPILED is None:
            from critlab.kernels.jit import bind, kernel

            leaf = kernel(inline="always")
            leaves = {
                "_add_scaled": leaf(_add_scaled_loop),
                "_spread_row": leaf(_spread_row_loop),
                "_sum_seq": leaf(_sum_seq_loop),
                "_chain_tail": leaf(_chain_tail_loop),
                "_step_weights": leaf(_step_weights_loop),
                "_as_rows": leaf(_as_rows_loop),
            }
            leaves["_binomials"] = kernel(bind(_binomials, **leaves))
            _COMPILED = SimpleNamespace(
                keep_highest=kernel(bind(_keep_highest, **leaves)),
                keep_pool=kernel(bind(_keep_pool, **leaves)),
                chain=kernel(bind(_chain, **leaves)),
            )
    return _COMPILED


# --- what the exact engine calls ------------------------------------------------------


def keep_highest_weights(count, sides, keep):
    """Probabilities of the sum of the highest ``keep`` of ``count`` fair dice, over
    ``0 .. keep * sides``.

    A dynamic programme over faces from the top down. ``state[j, t]`` is the
    probability weight of "j dice assigned to the faces seen so far, kept sum t";
    at face ``v``, ``c`` of the ``count - j`` unassigned dice show ``v`` (binomial weight
    ``C(count - j, c) / sides**c``), and they are kept while fewer than ``keep`` are.
    Cost ``O(sides * count**2 * keep * sides)``.
    """
    count, sides, keep = int(count), int(sides), int(keep)
    compiled = _jitted()
    return (compiled.keep_highest if compiled else _keep_highest)(count, sides, keep)


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
    probs = np.ascontiguousarray(probs, dtype=np.float64)
    count, keep, rest = int(count), int(keep), float(rest)
    compiled = _jitted()
    return (compiled.keep_pool if compiled else _keep_pool)(probs, count, keep, rest)


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
    sides, at, eps, min_len, extra = int(sides), int(at), float(eps), int(min_len), int(extra)
    compiled = _jitted()
    return (compiled.chain if compiled else _chain)(sides, at, eps, min_len, extra)
