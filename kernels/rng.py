"""Random streams for kernels: xoshiro256** with Lemire's unbiased bounded integers.

A stream's state is a ``uint64[6]`` array: the four xoshiro256** words, then a spare
32-bit half-word and a flag saying whether it is full. Each 64-bit output feeds two
bounded draws (a d20 needs only 32 bits), which halves the generator cost per die.

Streams are derived per (seed, block) through numpy's ``SeedSequence`` so that blocks
are independent and a block's numbers never depend on which thread runs it.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from critlab.kernels.jit import kernel

STATE_WORDS = 6
_MASK32 = np.uint64(0xFFFFFFFF)


def stream_state(seed: int, block: int) -> np.ndarray:
    """The initial state of block ``block``'s stream under ``seed``: the four words of
    ``numpy.random.SeedSequence(seed, spawn_key=(block,)).generate_state(4, uint64)``
    (:func:`stream_states` gives many blocks' at once, faster a block).

    >>> a = stream_state(1, 0); b = stream_state(1, 1)
    >>> bool((a[:4] != b[:4]).any()), a.dtype.name, a.size
    (True, 'uint64', 6)
    >>> bool((a[:4] == np.random.SeedSequence(1, spawn_key=(0,)).generate_state(4, np.uint64)).all())
    True
    """
    state = np.zeros(STATE_WORDS, dtype=np.uint64)
    state[:4] = np.random.SeedSequence(seed, spawn_key=(block,)).generate_state(4, dtype=np.uint64)
    if not state[:4].any():  # xoshiro's one forbidden state; SeedSequence makes it ~impossible
        state[0] = 1
    return state


def stream_states(seed: int, first: int, count: int) -> np.ndarray:
    """The initial states of blocks ``first`` .. ``first + count - 1`` under ``seed``,
    one ``uint64[STATE_WORDS]`` row each (see :func:`stream_state`).

    numpy's ``SeedSequence`` algorithm run on every block at once, in array operations:
    under a microsecond a block in batches of hundreds, where numpy's own takes about
    twenty (the thread that hands the blocks out spends it on each), and nothing to
    compile, where a jitted version cost every first simulation most of a second. A
    few blocks, and seeds or blocks of 2**64 and more, go to numpy's own.

    >>> rows = stream_states(7, 2**32 - 8, 16)  # block words: one, then two
    >>> expect = [np.random.SeedSequence(7, spawn_key=(b,)).generate_state(4, np.uint64)
    ...           for b in range(2**32 - 8, 2**32 + 8)]
    >>> bool((rows[:, :4] == np.array(expect)).all()), rows.shape
    (True, (16, 6))
    """
    if count < 16 or not (0 <= seed < 2**64 and 0 <= first and first + count <= 2**64):
        return np.array([stream_state(seed, first + i) for i in range(count)], dtype=np.uint64)
    blocks = np.arange(count, dtype=np.uint64) + np.uint64(first)
    # the entropy: the seed's 32-bit words (low first, at least one), zeros up to the
    # pool's four because a spawn key follows, then the block's words (one or two)
    words = [np.full(count, w, dtype=np.uint64) for w in _words32(seed)]
    words += [np.zeros(count, dtype=np.uint64)] * (4 - len(words))
    words += [blocks & _MASK32, blocks >> np.uint64(32)]
    second_block_word = words[-1] != 0  # rows whose block has a second word
    h = np.full(count, _INIT_A, dtype=np.uint64)
    pool = []
    for i in range(4):
        hashed, h = _hashmix(words[i], h)
        pool.append(hashed)
    for src in range(len(words)):
        for dst in range(4):
            if src != dst or src >= 4:
                v, h_next = _hashmix(pool[src] if src < 4 else words[src], h)
                mixed = _mix(pool[dst], v)
                if src == len(words) - 1:  # the block's second word: only where it has one
                    h_next = np.where(second_block_word, h_next, h)
                    mixed = np.where(second_block_word, mixed, pool[dst])
                h, pool[dst] = h_next, mixed
    out = np.zeros((count, STATE_WORDS), dtype=np.uint64)
    h = np.full(count, _INIT_B, dtype=np.uint64)
    for i in range(8):
        v = (pool[i % 4] ^ h) & _MASK32
        h = (h * _MULT_B) & _MASK32
        v = (v * h) & _MASK32
        out[:, i // 2] |= (v ^ (v >> _SHIFT16)) << np.uint64(32 * (i % 2))
    out[~out[:, :4].any(axis=1), 0] = 1  # xoshiro's one forbidden state; SeedSequence makes it ~impossible
    return out


def _words32(value: int) -> list[int]:
    """``value``'s 32-bit words, low first, at least one."""
    words = [value & 0xFFFFFFFF]
    while value >> 32:
        value >>= 32
        words.append(value & 0xFFFFFFFF)
    return words


# numpy's SeedSequence constants (a pool of four 32-bit words, hashed in and out)
_INIT_A, _MULT_A = np.uint64(0x43B0D7E5), np.uint64(0x931E8875)
_INIT_B, _MULT_B = np.uint64(0x8B51F9DD), np.uint64(0x58F38DED)
_MIX_L, _MIX_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)
_SHIFT16 = np.uint64(16)


def _hashmix(value: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each word hashed with its running constant ``h``: ``(hashed, next h)``."""
    value = (value ^ h) & _MASK32
    h = (h * _MULT_A) & _MASK32
    value = (value * h) & _MASK32
    return value ^ (value >> _SHIFT16), h


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r = (_MIX_L * x - _MIX_R * y) & _MASK32
    return r ^ (r >> _SHIFT16)


@intrinsic
def _stack_copy(typingctx, src):
    """A copy of a ``uint64[STATE_WORDS]`` array in the calling kernel's stack frame."""
    sig = types.CPointer(types.uint64)(src)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        buf = cgutils.alloca_once(builder, ir.IntType(64), size=STATE_WORDS)
        for i in range(STATE_WORDS):
            at = ir.Constant(ir.IntType(64), i)
            builder.store(builder.load(builder.gep(ary.data, [at])), builder.gep(buf, [at]))
        return buf

    return sig, codegen


@kernel(inline="always")
def local_state(s):
    """The stream ``s`` copied into the kernel's own stack frame: call it once at the
    top of a block kernel (``s = local_state(s)``).

    The compiler cannot tell an argument array from the tally arrays the kernel writes
    to, so a stream kept in an argument is stored and reloaded around every count;
    a stream in the kernel's own frame cannot alias anything and lives in registers
    (measured: 2x on a d20 tally). The caller's copy is not advanced.
    """
    return carray(_stack_copy(s), STATE_WORDS)


# The generator written in as few Numba statements as it takes, its constants module
# globals (read as constants) where a call ``np.uint64(k)`` is a call to type: every place
# that draws inlines it, and Numba types each statement at each place. A bounded draw went
# from 613 typed statements to 372, its machine code the same instruction for instruction.
_U0, _U1, _U5, _U9 = np.uint64(0), np.uint64(1), np.uint64(5), np.uint64(9)
_U7, _U57, _U17, _U45, _U19, _U32 = (np.uint64(k) for k in (7, 57, 17, 45, 19, 32))
_U2_32 = np.uint64(2**32)


@kernel(inline="always")
def next_u64(s):
    """The next 64-bit word of stream ``s`` (xoshiro256**)."""
    s0 = s[0]
    s1 = s[1]
    s2 = s[2]
    s3 = s[3]
    result = s1 * _U5
    result = ((result << _U7) | (result >> _U57)) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _U45) | (s3 >> _U19)
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3
    return result


@kernel(inline="always")
def next_u32(s):
    """The next 32 random bits, two per 64-bit word."""
    if s[5] != _U0:
        s[5] = _U0
        return s[4]
    w = next_u64(s)
    s[4] = w >> _U32
    s[5] = _U1
    return w & _MASK32


@kernel(inline="always")
def bounded(s, n):
    """A uniform integer in ``0 .. n-1`` (``1 <= n < 2**32``) without modulo bias
    (Lemire's multiply-shift with rejection)."""
    un = np.uint64(n)
    m = next_u32(s) * un
    if (m & _MASK32) < un:
        threshold = (_U2_32 - un) % un
        while (m & _MASK32) < threshold:
            m = next_u32(s) * un
    return np.int64(m >> _U32)


@kernel(inline="always")
def die(s, sides):
    """One roll of a fair ``sides``-sided die, ``1 .. sides``."""
    return bounded(s, sides) + 1


@kernel
def xor_u64(s, n):
    """Draw ``n`` raw words, folding them with xor so nothing is stored (floor benchmark)."""
    acc = np.uint64(0)
    for _ in range(n):
        acc ^= next_u64(s)
    return acc
