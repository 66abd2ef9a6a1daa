"""Specialised rolls for the simple dice expressions most weapons use.

An expression of at most one term of added dice with faces ``1..X`` that keeps them all,
with no reroll, clamp, count or scale, exploding (if at all) on every face from one up,
again and again (``1d8``, ``2d6+1``, ``1d6!``, ``3d10!>=9-2``, a constant) is rolled by a
loop over scalars; any other goes to the generic interpreter
:func:`critlab.kernels.dice.roll_expr`. The specialised roll draws the very same dice in
the same order as the interpreter (one :func:`~critlab.kernels.rng.die` per die, again
while a die shows its exploding face or higher), so a kernel that uses it gets
bit-identical tallies; what it saves is the interpreter's loads of the encoded terms
and its reroll, keep and success bookkeeping on every die.

A :func:`plan` of an encoded expression is ``(simple, count, sides, explode_at)``:

>>> from critlab.analysis.dice.notation import parse
>>> plan(parse("2d6").encode()[0])                               # 2d6: no face explodes
(True, 2, 6, 7)
>>> plan(parse("1d6!").encode()[0])
(True, 1, 6, 6)
>>> plan(parse("3").encode()[0])                                 # a constant: no dice
(True, 0, 1, 2)
>>> plan(parse("4d6kh3").encode()[0])[0]                         # 4d6kh3: the interpreter
False

Terms given as ``None`` (:func:`critlab.kernels.vocab.dice.simple_only`) say that every
roll of the arguments is simple: the interpreter is then left out of the compiled code,
chosen when the kernel is typed (:func:`_general`), so a fight's or an encounter's attack
over simple dice compiles without it (about 7 s less from an empty cache).
"""

from __future__ import annotations

from numba import carray, types
from numba.core.extending import intrinsic, overload

from critlab.kernels.dice import roll_expr
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die
from critlab.kernels.vocab.dice import plan  # noqa: F401  (re-exported: where kernels look for it)


@kernel(inline="always")
def roll_planned(s, simple, count, sides, explode_at, terms, constant, scratch):
    """One roll of an expression by its :func:`plan` (``terms`` are read only by the
    interpreter)."""
    if not simple:
        return _general(s, terms, constant, scratch)
    return roll_simple(s, count, sides, explode_at, constant)


def _general(s, terms, constant, scratch):
    """The interpreter's roll of ``terms``, or (``terms`` None: no expression that needs
    it) nothing: typed per kind of ``terms``, so simple dice compile no interpreter."""
    raise NotImplementedError("called from kernels only")


@overload(_general, inline="always")
def _general_typed(s, terms, constant, scratch):
    if isinstance(terms, types.NoneType):
        return lambda s, terms, constant, scratch: constant  # never reached: every roll simple
    return lambda s, terms, constant, scratch: roll_expr(s, terms, constant, scratch)


def roll_stacked(s, terms, starts, plans, consts, i, scratch):
    """One roll of expression ``i`` of stacked encoded expressions (its terms
    ``terms[starts[i]:starts[i + 1]]``, its constant ``consts[i]``): by its plan (row
    ``i`` of ``plans``: simple, count, sides, first exploding face) where ``terms`` is
    None (every expression simple: no interpreter compiled), else by the interpreter."""
    raise NotImplementedError("called from kernels only")


@overload(roll_stacked, inline="always")
def _roll_stacked_typed(s, terms, starts, plans, consts, i, scratch):
    if isinstance(terms, types.NoneType):
        return lambda s, terms, starts, plans, consts, i, scratch: roll_simple(
            s, plans[i, 1], plans[i, 2], plans[i, 3], consts[i]
        )
    return lambda s, terms, starts, plans, consts, i, scratch: roll_expr(
        s, terms[starts[i] : starts[i + 1]], consts[i], scratch
    )


@kernel(inline="always")
def roll_simple(s, count, sides, explode_at, constant):
    """One roll of a simple expression by its :func:`plan`: no interpreter is inlined, so
    a kernel may roll simple dice at a place of its own for little compile time."""
    total = constant
    for _ in range(count):
        while True:
            face = die(s, sides)
            total += face
            if face < explode_at:
                break
    return total


@intrinsic
def _data(typingctx, arr):
    """The data pointer of a C-contiguous array."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        return None
    sig = types.CPointer(arr.dtype)(arr)

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return sig, codegen


@kernel(inline="always")
def borrowed(arr):
    """A view of the C-contiguous ``arr`` that owns no reference: passing it into the
    per-trial functions costs nothing, where an owned array is counted in and out of
    every inlined call (two atomic operations each). Valid while ``arr`` is alive: take
    it at the top of a block from an argument."""
    return carray(_data(arr), arr.shape)
