"""Dice in njit: single dice, pools, keep/drop, explosion chains and whole expressions.

Every function takes the stream state ``s`` first (see :mod:`critlab.kernels.rng`) and is inlined
into the kernels that call it: a call that is not inlined keeps the compiler from holding
the stream in registers, and cost 3-5x on a damage roll. Expressions
arrive in the encoding of :meth:`critlab.analysis.notation.DiceExpr.encode`: one int64 row per
term ``(sign, count, sides, keep_mode, keep, exploding)`` plus a constant.
"""

from __future__ import annotations

from critlab.kernels.jit import kernel
from critlab.kernels.rng import die
from llvmlite import ir
from numba import carray, types
from numba.core import cgutils
from numba.core.extending import intrinsic

KEEP_ALL, KEEP_HIGHEST, KEEP_LOWEST = 0, 1, 2
# Room for the dice of one keep/drop term (critlab.analysis.notation.MAX_DICE is 100).
SCRATCH_SIZE = 128


@intrinsic
def _stack_int64(typingctx, size):
    """An uninitialised int64 buffer of a literal ``size`` in the kernel's stack frame."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    sig = types.CPointer(types.int64)(size)

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, ir.IntType(64), size=size.literal_value)

    return sig, codegen


@kernel(inline="always")
def local_scratch():
    """A scratch buffer for :func:`roll_expr` in the kernel's own stack frame (so that,
    like :func:`critlab.kernels.rng.local_state`, writing to it aliases nothing)."""
    return carray(_stack_int64(SCRATCH_SIZE), SCRATCH_SIZE)


@kernel(inline="always")
def roll_sum(s, count, sides):
    """Sum of ``count`` dice with ``sides`` sides."""
    total = 0
    for _ in range(count):
        total += die(s, sides)
    return total


@kernel(inline="always")
def roll_4d6_drop_lowest(s):
    """4d6 keeping the highest three: the sum of four dice less the smallest."""
    total = 0
    lowest = 6
    for _ in range(4):
        r = die(s, 6)
        total += r
        lowest = min(lowest, r)
    return total - lowest


@kernel(inline="always")
def roll_3d6(s):
    """3d6."""
    return roll_sum(s, 3, 6)


@kernel(inline="always")
def roll_expr(s, terms, constant, scratch):
    """One roll of an encoded dice expression (see module docstring).

    Each die is rolled at a single place in the code (and rolled again while an
    exploding die shows its maximum); kept dice are sorted into ``scratch`` by
    insertion. One place per die matters: every kernel inlines this function, and the
    compile time grows with the number of dice written out.
    """
    total = constant
    for t in range(terms.shape[0]):
        sign, count, sides = terms[t, 0], terms[t, 1], terms[t, 2]
        mode, keep, exploding = terms[t, 3], terms[t, 4], terms[t, 5]
        v = 0
        for i in range(count):
            r = 0
            while True:
                face = die(s, sides)
                r += face
                if exploding == 0 or face != sides:
                    break
            if mode == KEEP_ALL:
                v += r
            else:
                j = i
                while j > 0 and scratch[j - 1] > r:
                    scratch[j] = scratch[j - 1]
                    j -= 1
                scratch[j] = r
        if mode == KEEP_HIGHEST:
            for i in range(count - keep, count):
                v += scratch[i]
        elif mode == KEEP_LOWEST:
            for i in range(keep):
                v += scratch[i]
        total += sign * v
    return total


@kernel(inline="always")
def roll_floored(s, terms, constant, scratch):
    """One roll of an encoded expression floored at 0 (RULES.md: damage is never negative)."""
    return max(0, roll_expr(s, terms, constant, scratch))
