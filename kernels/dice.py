"""Dice in njit: single dice, pools, keep/drop, explosion chains and whole expressions.

Every function takes the stream state ``s`` first (see :mod:`critlab.kernels.rng`) and is inlined
into the kernels that call it: a call that is not inlined keeps the compiler from holding
the stream in registers, and cost 3-5x on a damage roll. Expressions
arrive in the encoding of :meth:`critlab.analysis.dice.notation.DiceExpr.encode`: one int64 row per
term ``(sign, count, sides, keep_mode, keep, exploding, reroll_mode, reroll_at, explode_at,
success_at)`` plus a constant; ``explode_at`` is the first face that explodes (``sides + 1``
for a die that does not), ``success_at`` 0 for a term that is summed.
"""

from __future__ import annotations

from llvmlite import ir
from numba import carray, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from critlab.kernels.jit import kernel
from critlab.kernels.rng import die
from critlab.kernels.vocab.dice import (  # noqa: F401  (re-exported: the encoding's names)
    KEEP_ALL,
    KEEP_HIGHEST,
    KEEP_LOWEST,
    REROLL_ALWAYS,
    REROLL_NONE,
    REROLL_ONCE,
)

# Room for the dice of one keep/drop term (critlab.analysis.dice.notation.MAX_DICE is 100).
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

    Per die: a face, rolled again while ``rr`` (or once for ``ro``) finds it at or below
    the reroll face; then, while the last roll is at or above the exploding face, another
    roll (never rerolled) is added. Across the term, kept totals are sorted into
    ``scratch`` by insertion; the term is their sum, or with ``success_at`` the number of
    them at or above it.

    Each die is rolled at a single place in the code: every kernel inlines this
    function, and the compile time grows with the number of dice written out. A die
    written in the first form of the notation draws exactly the rolls it always did.
    """
    total = constant
    for t in range(terms.shape[0]):
        sign, count, sides = terms[t, 0], terms[t, 1], terms[t, 2]
        mode, keep = terms[t, 3], terms[t, 4]
        reroll_mode, reroll_at, explode_at, success_at = terms[t, 6], terms[t, 7], terms[t, 8], terms[t, 9]
        v = 0
        for i in range(count):
            r = 0
            first = True  # still choosing the face the die is left with
            rerolled = False
            while True:
                face = die(s, sides)
                if first and face <= reroll_at:
                    if reroll_mode == REROLL_ALWAYS or (reroll_mode == REROLL_ONCE and not rerolled):
                        rerolled = True
                        continue
                first = False
                r += face
                if face < explode_at:
                    break
            if mode == KEEP_ALL:
                if success_at == 0:
                    v += r
                elif r >= success_at:
                    v += 1
            else:
                j = i
                while j > 0 and scratch[j - 1] > r:
                    scratch[j] = scratch[j - 1]
                    j -= 1
                scratch[j] = r
        if mode != KEEP_ALL:
            lo, hi = (count - keep, count) if mode == KEEP_HIGHEST else (0, keep)
            for i in range(lo, hi):
                if success_at == 0:
                    v += scratch[i]
                elif scratch[i] >= success_at:
                    v += 1
        total += sign * v
    return total


@kernel(inline="always")
def roll_floored(s, terms, constant, scratch):
    """One roll of an encoded expression floored at 0 (docs/rules.md: damage is never negative)."""
    return max(0, roll_expr(s, terms, constant, scratch))
