"""Dice in njit: single dice, pools, keep/drop, explosion chains and whole expressions.

Every function takes the stream state ``s`` first (see :mod:`critlab.kernels.rng`) and is inlined
into the kernels that call it: a call that is not inlined keeps the compiler from holding
the stream in registers, and cost 3-5x on a damage roll. The one exception is the
interpreter of whole expressions (:func:`roll_expr`), called with its stream by value:
inlined at every site it made the first compile of the kernels several minutes. Expressions
arrive in the encoding of :mod:`critlab.analysis.dice.encode`: a program of int64 rows of
:data:`WIDTH` columns plus a constant. A term's row holds ``(sign, count, faces, keep_mode,
keep, explode kind, reroll mode, reroll interval, explosion interval, once, clamp interval,
counting, count interval, botch interval, mul, div, face kind, extra rows, op)``, a die of
listed faces followed by rows of its faces; groups are a group row, each member's rows
closed by a member row, and a group-end row; a trailing comparison is a last row.
"""

from __future__ import annotations

from llvmlite import ir
from numba import carray, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from critlab.kernels.jit import kernel
from critlab.kernels.rng import STATE_WORDS, die
from critlab.kernels.vocab.dice import (  # noqa: F401  (re-exported: the encoding's names)
    C_COUNTING,
    C_CS_HI,
    C_CS_LO,
    C_DF_HI,
    C_DF_LO,
    C_DIV,
    C_EXTRA,
    C_FACE_KIND,
    C_MUL,
    C_OP,
    DROP_HIGHEST,
    DROP_LOWEST,
    EXPLODE_ADD,
    EXPLODE_NONE,
    EXPLODE_PENETRATING,
    EXPLODE_SEPARATE,
    FACES_FATE,
    FACES_RANGE,
    FACES_TABLE,
    KEEP_ALL,
    KEEP_HIGHEST,
    KEEP_LOWEST,
    OP_COMPARE,
    OP_GROUP,
    OP_GROUP_END,
    OP_MEMBER_END,
    OP_TERM,
    REROLL_ALWAYS,
    REROLL_NONE,
    REROLL_ONCE,
    WIDTH,
)

# A keep selects at most 1000 values (the kept rolls of an 'x' term, or the fewer of a
# term's kept and dropped dice); a group's members' values follow them (at most 100).
GROUP_BASE = 1024
SCRATCH_SIZE = 1152


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
def _weight(v, counting, cs_lo, cs_hi, df_lo, df_hi):
    """A kept total's part of its term: the total itself, or when counting 1 for a
    success, -1 for a botch, 0 otherwise."""
    if counting == 0:
        return v
    w = 0
    if cs_lo <= v <= cs_hi:
        w += 1
    if df_lo <= v <= df_hi:
        w -= 1
    return w


@kernel(inline="always")
def _select(scratch, base, filled, size, high, r):
    """Offer ``r`` to the ``size`` most extreme values kept sorted ascending in
    ``scratch[base:base + size]`` (the highest if ``high``, else the lowest); returns the
    new fill."""
    if filled < size:
        j = base + filled
        while j > base and scratch[j - 1] > r:
            scratch[j] = scratch[j - 1]
            j -= 1
        scratch[j] = r
        return filled + 1
    if high:
        if r > scratch[base]:
            j = base
            while j + 1 < base + size and scratch[j + 1] < r:
                scratch[j] = scratch[j + 1]
                j += 1
            scratch[j] = r
    elif r < scratch[base + size - 1]:
        j = base + size - 1
        while j > base and scratch[j - 1] > r:
            scratch[j] = scratch[j - 1]
            j -= 1
        scratch[j] = r
    return filled


@kernel(inline="always")
def _kept(scratch, base, size, counting, cs_lo, cs_hi, df_lo, df_hi):
    w = 0
    for i in range(base, base + size):
        w += _weight(scratch[i], counting, cs_lo, cs_hi, df_lo, df_hi)
    return w


@kernel(inline="always")
def _selection(mode, keep, n):
    """``(size, high, holds_kept)`` of a keep over ``n`` values: the kept values, or the
    dropped ones where they are fewer (then subtracted from the whole)."""
    holds_kept = keep <= n - keep
    size = keep if holds_kept else n - keep
    return size, (mode == KEEP_HIGHEST) == holds_kept, holds_kept


@intrinsic
def _stack_words(typingctx, words):
    """A ``uint64[STATE_WORDS]`` buffer in the kernel's stack frame holding ``words``."""
    if not (isinstance(words, types.UniTuple) and words.count == STATE_WORDS and words.dtype == types.uint64):
        return None
    sig = types.CPointer(types.uint64)(words)

    def codegen(context, builder, signature, args):
        buf = cgutils.alloca_once(builder, ir.IntType(64), size=STATE_WORDS)
        for i in range(STATE_WORDS):
            at = ir.Constant(ir.IntType(64), i)
            builder.store(builder.extract_value(args[0], i), builder.gep(buf, [at]))
        return buf

    return sig, codegen


@kernel(inline="always")
def roll_expr(s, terms, constant, scratch):
    """One roll of an encoded dice expression (see :func:`_interpret`), by a call.

    The interpreter is compiled once, as a function of its own, and called: inlined at
    every place a kernel rolls an expression, it made each kernel's type inference
    several times longer (the first compile of every system took minutes). The stream
    goes in and comes back by value, so the caller's copy of it still lives in
    registers (its address never escapes into the call).
    """
    total, w = _interpret_apart((s[0], s[1], s[2], s[3], s[4], s[5]), terms, constant, scratch)
    s[0], s[1], s[2], s[3], s[4], s[5] = w
    return total


@kernel
def _interpret_apart(words, terms, constant, scratch):
    """:func:`_interpret` over a stream given and returned by value (see :func:`roll_expr`)."""
    s = carray(_stack_words(words), STATE_WORDS)
    total = _interpret(s, terms, constant, scratch)
    return total, (s[0], s[1], s[2], s[3], s[4], s[5])


@kernel(inline="always")
def _interpret(s, terms, constant, scratch):
    """One roll of an encoded dice expression (see module docstring).

    Rows are read in order: a term rolls its dice; a group collects its members' values
    (each member's rows, closed by a member row) and keeps or counts them; a comparison
    turns the total into 1 or 0. Per die: a face (from the die's faces), rolled again
    while ``rr`` (or once for ``ro``) finds it in the reroll interval; clamped; then while
    the last roll is in the explosion interval another plain roll is added (minus 1 when
    penetrating; once at most with ``o``), or with ``x`` enters the pool as a die of its
    own. Kept totals are chosen by a bounded selection in ``scratch``; a term is the sum
    of its kept totals or of their counts, scaled, signed.

    Each die is rolled at a single place in the code, so the compile time does not grow
    with the dice written out. A die written in the first form of the notation draws
    exactly the rolls it always did.
    """
    total = constant
    member = 0
    in_group = False
    members = 0
    n_rows = terms.shape[0]
    t = 0
    while t < n_rows:
        op = terms[t, C_OP]
        if op == OP_GROUP:
            in_group, members, member = True, 0, 0
            t += 1
            continue
        if op == OP_MEMBER_END:
            member += terms[t, 1]
            if terms[t, C_COUNTING] != 0:
                member = 1 if terms[t, C_CS_LO] <= member <= terms[t, C_CS_HI] else 0
            scratch[GROUP_BASE + members] = member
            members += 1
            member = 0
            t += 1
            continue
        if op == OP_COMPARE:
            total = 1 if terms[t, C_CS_LO] <= total <= terms[t, C_CS_HI] else 0
            t += 1
            continue
        sign, count, sides = terms[t, 0], terms[t, 1], terms[t, 2]
        mode, keep = terms[t, 3], terms[t, 4]
        counting, cs_lo, cs_hi = terms[t, C_COUNTING], terms[t, C_CS_LO], terms[t, C_CS_HI]
        df_lo, df_hi = terms[t, C_DF_LO], terms[t, C_DF_HI]
        mul, div, extra = terms[t, C_MUL], terms[t, C_DIV], terms[t, C_EXTRA]
        v = 0
        everything = 0
        filled = 0
        n = members if op == OP_GROUP_END else count
        size, high, holds_kept = _selection(mode, keep, n)
        if op == OP_TERM and terms[t, 5] == EXPLODE_SEPARATE:
            # the number of rolls varies: select the kept ones themselves, or for a drop
            # the dropped ones (then taken off the whole)
            if mode >= DROP_LOWEST:
                size, high, holds_kept = keep, mode == DROP_HIGHEST, False
            else:
                size, high, holds_kept = keep, mode == KEEP_HIGHEST, True
        group_end = op == OP_GROUP_END
        if group_end:
            in_group = False
        explode, rr_mode, rr_lo, rr_hi = terms[t, 5], terms[t, 6], terms[t, 7], terms[t, 8]
        ex_lo, ex_hi, once = terms[t, 9], terms[t, 10], terms[t, 11]
        cl_lo, cl_hi = terms[t, 12], terms[t, 13]
        kind = terms[t, C_FACE_KIND]
        # Every value a term keeps or counts (a group's member, a die's total, or with
        # ``x`` each roll) is offered at one place below, and each die rolled at one
        # place: the code compiled does not grow with the ways a value arises.
        for k in range(n):
            r = 0
            first = True  # still choosing the face the die is left with
            rerolled = False
            added = 0
            while True:
                if group_end:
                    x, offer, done = scratch[GROUP_BASE + k], True, True
                else:
                    face = die(s, sides)
                    if kind == FACES_FATE:
                        face -= 2
                    elif kind == FACES_TABLE:
                        face = terms[t + 1 + (face - 1) // WIDTH, (face - 1) % WIDTH]
                    part = face
                    if first:
                        if rr_mode != REROLL_NONE and rr_lo <= face <= rr_hi:
                            if rr_mode == REROLL_ALWAYS or not rerolled:
                                rerolled = True
                                continue
                        first = False
                        face = min(max(face, cl_lo), cl_hi)
                        part = face
                    else:
                        added += 1
                        if explode == EXPLODE_PENETRATING:
                            part = face - 1
                    done = explode == 0 or face < ex_lo or face > ex_hi or (once != 0 and added == 1)
                    if explode == EXPLODE_SEPARATE:
                        x, offer = part, True
                    else:
                        r += part
                        x, offer = r, done
                if offer:
                    weight = _weight(x, counting, cs_lo, cs_hi, df_lo, df_hi)
                    if mode == KEEP_ALL:
                        v += weight
                    else:
                        # the whole, for a drop: the dropped are taken off it
                        everything += weight
                        filled = _select(scratch, 0, filled, size, high, x)
                if done:
                    break
        if mode != KEEP_ALL:
            w = _kept(scratch, 0, size, counting, cs_lo, cs_hi, df_lo, df_hi)
            v = w if holds_kept else everything - w
        if mul != 1:
            v *= mul
        if div != 1:
            v //= div
        t += 1 + extra
        if in_group:
            member += sign * v
        else:
            total += sign * v
    return total
