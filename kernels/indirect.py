"""An attack called through its address: one encounter block for every tuple of kinds.

An encounter's attackers may each be of another system (or an own mechanic), each with
arguments of a type of its own. A block that named each kind's attack and held each
kind's arguments as typed tuples was a kernel of its own per tuple of kinds and per
number of pairs of each kind (the tuples' lengths are part of their types): every new
combination compiled a block (4.5-7 s). Here every attack has one C signature,
``attack(state, scratch, args)`` over three pointers, so the block is compiled once:

- :func:`wrapper` makes a kind's attack callable so (a Numba ``cfunc``, one per system and
  argument type, cached on disk): it reads the kind's arguments from the pointer it is
  given and calls the kind's own attack, the stream and scratch being the caller's.
- :func:`pack` writes a pair's arguments into a byte buffer, as Numba lays them out in
  memory, with their arrays unowned (no reference counted: the caller's arguments keep
  the data alive while the block runs); :func:`size_of` says how many bytes they take.
- :func:`call_attack` calls an address with the block's stream, scratch and a pair's bytes.

A call through an address costs what a direct call costs (measured on the thac0 attack:
0.14-0.23 s against 0.23 s for five million attacks), since the attack was already
called, not inlined (see :func:`critlab.kernels.encounter.attack_for`).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import carray, cfunc, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from critlab.kernels.dice import SCRATCH_SIZE
from critlab.kernels.jit import bind, kernel, mark
from critlab.kernels.keyed_cache import cache_in
from critlab.kernels.rng import STATE_WORDS

_BYTES = ir.IntType(8).as_pointer()
_I64 = ir.IntType(64)
SIGNATURE = types.int64(types.voidptr, types.voidptr, types.voidptr)
"""Every attack's C signature: the stream's words, the scratch, the pair's arguments."""
ALIGN = 16  # each pair's arguments start at a multiple of this many bytes


def unowned_value(context, builder, ty, value):
    """``value`` of type ``ty`` with every array in it unowned (its meminfo and parent null):
    code generation shared by the intrinsics that pass arguments on without counting them."""
    if isinstance(ty, types.Array):
        ary = context.make_array(ty)(context, builder, value=value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()
    if isinstance(ty, types.BaseTuple):
        for k, member in enumerate(ty.types):
            inner = unowned_value(context, builder, member, builder.extract_value(value, k))
            value = builder.insert_value(value, inner, k)
    return value


@intrinsic
def data_ptr(typingctx, arr):
    """The address of an array's first element, as a ``void*``."""

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.bitcast(ary.data, _BYTES)

    return types.voidptr(arr), codegen


@intrinsic
def offset(typingctx, ptr, nbytes):
    """``ptr`` advanced by ``nbytes`` bytes."""

    def codegen(context, builder, signature, args):
        return builder.gep(args[0], [args[1]])

    return types.voidptr(types.voidptr, types.int64), codegen


@intrinsic
def call_attack(typingctx, address, state, scratch, pair):
    """The attack at ``address`` (an int64, a :func:`wrapper`'s) called on three pointers."""

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(_I64, [_BYTES, _BYTES, _BYTES])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        return builder.call(fn, args[1:])

    return types.int64(types.int64, types.voidptr, types.voidptr, types.voidptr), codegen


@intrinsic
def _as_words(typingctx, ptr):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], _I64.as_pointer())

    return types.CPointer(types.uint64)(types.voidptr), codegen


@intrinsic
def _as_ints(typingctx, ptr):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], _I64.as_pointer())

    return types.CPointer(types.int64)(types.voidptr), codegen


@intrinsic
def _store(typingctx, ptr, value):
    """Write ``value`` at ``ptr`` as Numba lays it out in memory, its arrays unowned."""

    def codegen(context, builder, signature, args):
        ty = signature.args[1]
        model = context.data_model_manager[ty]
        at = builder.bitcast(args[0], model.get_data_type().as_pointer())
        builder.store(model.as_data(builder, unowned_value(context, builder, ty, args[1])), at)
        return context.get_dummy_value()

    return types.none(types.voidptr, value), codegen


@intrinsic
def _nbytes(typingctx, value):
    def codegen(context, builder, signature, args):
        model = context.data_model_manager[signature.args[0]]
        return context.get_constant(types.int64, context.get_abi_sizeof(model.get_data_type()))

    return types.int64(value), codegen


def _reader(ty: types.Type) -> Any:
    """An intrinsic reading a value of type ``ty`` from a ``void*`` (written by :func:`pack`)."""

    @intrinsic
    def read(typingctx, ptr):
        def codegen(context, builder, signature, args):
            model = context.data_model_manager[ty]
            at = builder.bitcast(args[0], model.get_data_type().as_pointer())
            return model.load_from_data_pointer(builder, at)

        return ty(types.voidptr), codegen

    return read


@kernel
def pack(buf, at, a):
    """Write the arguments ``a`` into ``buf`` (uint8) from byte ``at`` (see :func:`_store`)."""
    _store(offset(data_ptr(buf), at), a)


@kernel
def size_of(a):
    """How many bytes :func:`pack` writes for arguments of ``a``'s type."""
    return _nbytes(a)


def attack_template(state, scratch, pair):
    """One attack of a kind, from pointers: its stream and scratch (the block's) and its
    arguments (:func:`pack`'s bytes), read as the kind's type; bound per kind by :func:`wrapper`."""
    s = carray(_as_words(state), STATE_WORDS)
    work = carray(_as_ints(scratch), SCRATCH_SIZE)
    return kind_attack(s, read_args(pair), work)


def kind_attack(s, a, scratch):
    """Stands for a kind's attack in :func:`attack_template` (bound by :func:`wrapper`)."""
    raise NotImplementedError("bound per kind by wrapper")


def read_args(pair):
    """Stands for a kind's argument reader in :func:`attack_template` (bound by :func:`wrapper`)."""
    raise NotImplementedError("bound per kind by wrapper")


def wrapper(attack: Any, args_type: types.Type, name: str, cache: tuple[str, str] | None = None) -> Any:
    """``attack(s, a, scratch)`` (a compiled attack returning its damage) callable through
    its address (``.address``) with the C signature :data:`SIGNATURE`, for arguments of
    ``args_type``; compiled now, or loaded from the disk cache. ``name`` names the cache
    file (one per kind and argument type); ``cache`` is ``(folder, key)`` for a generated
    attack's (an own mechanic's: :func:`critlab.kernels.keyed_cache.cache_in`), None to
    cache it beside this file."""
    fn = bind(attack_template, name, kind_attack=attack, read_args=_reader(args_type))
    if cache is None:
        return cfunc(SIGNATURE, cache=True, error_model="numpy", nogil=True)(mark(fn))
    options = cache_in(fn, *cache)
    kept = ("cache", "error_model", "nogil")  # a cfunc takes no bounds check option
    return cfunc(SIGNATURE, **{k: v for k, v in options.items() if k in kept})(fn)
