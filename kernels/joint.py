"""Several dice as one bounded draw, and counting a trial's raw dice once per block.

Two independent fair dice with ``a`` and ``b`` faces are the same dice as one uniform
draw over the ``a * b`` pairs (the pair ``(x, y)`` is the number ``x * b + y``, a
one-to-one map), and so on for three. :func:`digits2` and :func:`digits3` draw that one
number without dividing: a 32-bit word ``u`` times ``a`` gives the first die in its high
half and a 32-bit remainder in its low half, which times ``b`` gives the second, and so
on; the last low half is ``u * a * b mod 2**32``, exactly Lemire's multiply-shift over
``a * b``, so rejecting it below ``2**32 mod (a * b)`` (drawing ``u`` again) leaves the
pair exactly uniform (Brackett-Rozinsky and Lemire's batched ranged draws). One word
instead of one per die: a d20 and its damage die cost one generator call.

A kernel whose trials' dice have few distinct outcomes can then count each trial's
outcome in a table in its own frame (:func:`local_table`) and apply its rules once per
distinct outcome at the end of a block, weighted by its count: the rules applied are
the kernel's own, and every trial's dice are still drawn.

>>> from numba import njit
>>> from critlab.kernels.rng import local_state, stream_state
>>> @njit  # a kernel of the doctest's own: not cached
... def pairs(state, n):
...     s = local_state(state)
...     seen = np.zeros((3, 5), dtype=np.int64)
...     for _ in range(n):
...         x, y = digits2(s, 3, 5)
...         seen[x, y] += 1
...     return seen
>>> counts = pairs(stream_state(1, 0), 150_000)
>>> int(counts.sum()), bool((abs(counts - 10_000) < 5 * 100).all())   # 5 sigma of 10,000
(150000, True)
"""

from __future__ import annotations

import numpy as np
from numba import carray

from critlab.kernels.dice import _stack_int64
from critlab.kernels.jit import kernel
from critlab.kernels.rng import _MASK32, next_u32
from critlab.kernels.vocab.dice import TABLE_SIZE, faces_of_sum, joint_plan  # noqa: F401  (re-exported)

_HIGH = np.uint64(32)
_WORD = np.uint64(4294967296)


@kernel(inline="always")
def _accept(low, product):
    """Whether the last low half ``low`` keeps the draw over ``product`` outcomes exact:
    at or above ``2**32 mod product`` (checked with a division only when below ``product``)."""
    return low >= product or low >= (_WORD - product) % product


@kernel(inline="always")
def digits2(s, a, b):
    """Two independent uniform integers in ``0 .. a-1`` and ``0 .. b-1`` from one 32-bit
    draw (``a * b <= 2**31``)."""
    ua, ub = np.uint64(a), np.uint64(b)
    while True:
        m = next_u32(s) * ua
        m2 = (m & _MASK32) * ub
        if _accept(m2 & _MASK32, ua * ub):
            return np.int64(m >> _HIGH), np.int64(m2 >> _HIGH)


@kernel(inline="always")
def digits3(s, a, b, c):
    """Three independent uniform integers in ``0 .. a-1``, ``0 .. b-1`` and ``0 .. c-1``
    from one 32-bit draw (``a * b * c <= 2**31``)."""
    ua, ub, uc = np.uint64(a), np.uint64(b), np.uint64(c)
    while True:
        m = next_u32(s) * ua
        m2 = (m & _MASK32) * ub
        m3 = (m2 & _MASK32) * uc
        if _accept(m3 & _MASK32, ua * ub * uc):
            return np.int64(m >> _HIGH), np.int64(m2 >> _HIGH), np.int64(m3 >> _HIGH)


@kernel(inline="always")
def local_table():
    """A zeroed int64 table of :data:`TABLE_SIZE` entries in the kernel's own frame (writing
    to it aliases nothing, so its counts stay out of the way of ``out``)."""
    table = carray(_stack_int64(TABLE_SIZE), TABLE_SIZE)
    for i in range(TABLE_SIZE):
        table[i] = 0
    return table


@kernel(inline="always")
def sum_of_digits(index, count, sides):
    """The total of ``count`` dice of ``sides`` sides whose faces are the base-``sides``
    digits of ``index`` (each digit a face less one)."""
    total = count
    for _ in range(count):
        total += index % sides
        index //= sides
    return total


@kernel(inline="always")
def total_slots(outcomes, count, sides):
    """A table in the kernel's frame: for each of the ``outcomes`` ordered outcomes of
    ``count`` dice of ``sides`` sides, its total less ``count`` (its place among the
    totals, ``0 .. count * (sides - 1)``)."""
    slot = local_table()
    for index in range(outcomes):
        slot[index] = sum_of_digits(index, count, sides) - count
    return slot
