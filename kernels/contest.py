"""Kernel for ``contest`` (GURPS-style contests).

Each success roll is 3d6, judged by the rules (criticals included) against the value
rolled against; a regular contest keeps rolling round after round until one side
succeeds while the other fails or ``max_rounds`` is reached. The effective skills
(Rule of 16, rescaling) are worked out by the caller; the kernel rolls against them.
:func:`trial` is one contest; :func:`block` tallies ``n``.

A 3d6 roll is one bounded draw: a uniform integer ``u`` on 0..215 whose three base-6
digits are the dice (:data:`ROLL_3D6` holds each ``u``'s total). That is the same dice as
rolling them one by one: ``u`` ↦ its digits is a bijection from the 216 equally likely
integers onto the 216 equally likely ordered rolls, so the digits are independent and
each is a fair d6.

Speed: a quick contest's or a resistance roll's outcome depends only on its pair of
rolls, so :func:`block` counts the pairs (a table read and one count per roll) and applies
the rules once per distinct pair at the end, weighted by its count: the rules of
:func:`quick_pair`, :func:`resistance_pair` and :func:`judge`, the same ones :func:`trial`
applies. A regular contest's rounds are drawn a chunk at a time, each round a code (who
succeeds, the criticals) read from a table over the draw as :func:`judge` says them, and
the contests are read off the chunk (:func:`regular_block`). It uses exactly the numbers a
loop over :func:`trial` draws, in the same order, so its tallies are that loop's.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from critlab.kernels.jit import Paths, kernel
from critlab.kernels.rng import bounded, local_state
from critlab.kernels.vocab.contest import (  # noqa: F401  (re-exported: the kernel's names)
    A_CRIT_FAILURE,
    A_CRIT_SUCCESS,
    B_CRIT_FAILURE,
    B_CRIT_SUCCESS,
    OUTCOMES,
    Args,
    Counter,
    Defender,
    Hist,
    Kind,
    QuickOutcome,
    RegularOutcome,
    ResistanceOutcome,
)

_U = np.arange(216)
ROLL_3D6 = (_U % 6 + _U // 6 % 6 + _U // 36 + 3).astype(np.int64)
"""The 3d6 total of each outcome ``u`` of one draw over 216 (its base-6 digits, plus 3)."""
LOW = 3  # rolls 3..18: a pair of rolls is counted at (roll_a - 3) * 16 + roll_b - 3
_PAIR_A = (ROLL_3D6 - LOW) * 16
_PAIR_B = ROLL_3D6 - LOW


@kernel(inline="always")
def roll_3d6(s):
    """One 3d6 roll: one bounded draw over its 216 outcomes."""
    return ROLL_3D6[bounded(s, 216)]


@kernel(inline="always")
def judge(skill, roll, criticals):
    """``(success, critical success, critical failure)`` of one 3d6 roll against ``skill``."""
    if not criticals:
        return roll <= skill, False, False
    if roll <= 4:
        return True, True, False
    crit_success = (roll == 5 and skill >= 15) or (roll == 6 and skill >= 16)
    crit_failure = roll == 18 or (roll == 17 and skill <= 15) or roll >= skill + 10
    return roll <= skill and roll <= 16, crit_success, crit_failure


@kernel(inline="always")
def crit_flags(a, roll_a, roll_b):
    """The flag word of the criticals of A's roll and, where B rolled (``roll_b`` > 0), B's."""
    _, cs_a, cf_a = judge(a.a_skill, roll_a, a.criticals)
    flags = A_CRIT_SUCCESS * cs_a + A_CRIT_FAILURE * cf_a
    if roll_b > 0:
        _, cs_b, cf_b = judge(a.b_skill, roll_b, a.criticals)
        flags += B_CRIT_SUCCESS * cs_b + B_CRIT_FAILURE * cf_b
    return flags


@kernel(inline="always")
def quick_pair(a, roll_a, roll_b):
    """A quick contest's rolls judged: ``(label, margin m_A - m_B, degree of victory)``."""
    ok_a = judge(a.a_skill, roll_a, a.criticals)[0]
    ok_b = judge(a.b_skill, roll_b, a.criticals)[0]
    margin_a = a.a_skill - roll_a
    margin_b = a.b_skill - roll_b
    if ok_a != ok_b:
        label = QuickOutcome.A_WINS if ok_a else QuickOutcome.B_WINS
    elif margin_a > margin_b:
        label = QuickOutcome.A_WINS
    elif margin_b > margin_a:
        label = QuickOutcome.B_WINS
    elif a.defender == Defender.A:
        label = QuickOutcome.A_WINS
    elif a.defender == Defender.B:
        label = QuickOutcome.B_WINS
    else:
        label = QuickOutcome.TIE
    if label == QuickOutcome.A_WINS:
        degree = margin_a - margin_b
    elif label == QuickOutcome.B_WINS:
        degree = margin_b - margin_a
    else:
        degree = 0
    return np.int64(label), margin_a - margin_b, degree


@kernel(inline="always")
def resistance_pair(a, roll_a, roll_b):
    """A successful attack's roll against the resistance roll: its label (B wins ties)."""
    ok_b = judge(a.b_skill, roll_b, a.criticals)[0]
    if not ok_b or a.a_skill - roll_a > a.b_skill - roll_b:
        return np.int64(ResistanceOutcome.AFFECTED)
    return np.int64(ResistanceOutcome.RESISTED)


@kernel(inline="always")
def round_label(a, roll_a, roll_b):
    """One round of a regular contest: who won it, or ``undecided`` (both or neither succeeded)."""
    ok_a = judge(a.a_skill, roll_a, a.criticals)[0]
    ok_b = judge(a.b_skill, roll_b, a.criticals)[0]
    if ok_a == ok_b:
        return np.int64(RegularOutcome.UNDECIDED)
    return np.int64(RegularOutcome.A_WINS if ok_a else RegularOutcome.B_WINS)


@kernel(inline="always")
def trial(s, a, scratch):
    """One contest of kind ``a.kind``: ``(label, margin, degree, rounds, flags)``, the
    values a kind does not have 0, ``flags`` the first rolls' criticals as bits."""
    roll_a = roll_3d6(s)
    if a.kind == Kind.QUICK:
        roll_b = roll_3d6(s)
        label, margin, degree = quick_pair(a, roll_a, roll_b)
        return label, margin, degree, 0, crit_flags(a, roll_a, roll_b)
    if a.kind == Kind.RESISTANCE:
        if not judge(a.a_skill, roll_a, a.criticals)[0]:  # a failed attack: B does not roll
            return np.int64(ResistanceOutcome.ATTACK_FAILED), 0, 0, 0, crit_flags(a, roll_a, 0)
        roll_b = roll_3d6(s)
        return resistance_pair(a, roll_a, roll_b), 0, 0, 0, crit_flags(a, roll_a, roll_b)
    roll_b = roll_3d6(s)
    flags = crit_flags(a, roll_a, roll_b)
    label = round_label(a, roll_a, roll_b)
    rounds = 1
    while label == RegularOutcome.UNDECIDED and rounds < a.max_rounds:
        rounds += 1
        roll_a = roll_3d6(s)
        label = round_label(a, roll_a, roll_3d6(s))
    return label, 0, 0, rounds, flags


# -- the block: pairs of rolls counted, the rules once per pair ---------------------------------
@kernel
def _count_crits(out, layout, flags, c):
    """Add ``c`` trials with first-roll critical ``flags`` to the counters."""
    counters = layout[2 + 3 * layout[1]]
    out[counters + Counter.A_CRITICAL_SUCCESS] += c * ((flags & A_CRIT_SUCCESS) != 0)
    out[counters + Counter.A_CRITICAL_FAILURE] += c * ((flags & A_CRIT_FAILURE) != 0)
    out[counters + Counter.B_CRITICAL_SUCCESS] += c * ((flags & B_CRIT_SUCCESS) != 0)
    out[counters + Counter.B_CRITICAL_FAILURE] += c * ((flags & B_CRIT_FAILURE) != 0)


@kernel
def _add(out, layout, hist, value, c):
    """Count ``c`` values ``value`` in histogram ``hist`` (outside its range: its tail bin)."""
    start, lo, n_bins = layout[2 + 3 * hist], layout[3 + 3 * hist], layout[4 + 3 * hist]
    at = value - lo
    out[start + (at if 0 <= at < n_bins else n_bins)] += c


@kernel
def _tally_pairs(out, layout, a, pairs, first_only):
    """The rules once per pair of first rolls (``pairs[(ra - 3) * 16 + rb - 3]`` trials;
    ``first_only[ra - 3]``: resistance rolls whose attack failed, so B did not roll)."""
    for i in range(16):
        roll_a = i + LOW
        if first_only[i]:
            out[ResistanceOutcome.ATTACK_FAILED] += first_only[i]
            _count_crits(out, layout, crit_flags(a, roll_a, 0), first_only[i])
        for j in range(16):
            c = pairs[i * 16 + j]
            if c == 0:
                continue
            roll_b = j + LOW
            _count_crits(out, layout, crit_flags(a, roll_a, roll_b), c)
            if a.kind == Kind.QUICK:
                label, margin, degree = quick_pair(a, roll_a, roll_b)
                out[label] += c
                _add(out, layout, Hist.MARGIN, margin, c)
                _add(out, layout, Hist.DEGREE, degree, c)
            elif a.kind == Kind.RESISTANCE:
                out[resistance_pair(a, roll_a, roll_b)] += c


@kernel(inline="always")
def _attack_table(a):
    """Per outcome ``u`` of A's draw, the attack of a resistance roll: the pair index of
    A's roll where it succeeds, ``-1 - (roll - 3)`` where it fails."""
    attack = np.empty(216, dtype=np.int64)
    for u in range(216):
        ok = judge(a.a_skill, ROLL_3D6[u], a.criticals)[0]
        attack[u] = _PAIR_A[u] if ok else -1 - _PAIR_B[u]
    return attack


# -- a resistance roll: a successful attack's pair summed in one word ------------------------
# One table read a trial says whether the attack succeeds and, where it does, its pair's
# row (:func:`_attack_table`: against a success table indexed by the roll, 0.80 -> 0.89 of
# the dice floor); the pair's word (affected, and the criticals of both rolls, a field
# each) is added to one sum in a register, where the pair was counted in memory (1 thread,
# 31 alternating calls, median share of the dice floor: 0.78 -> 0.84). A failed attack (B
# does not roll) is counted by its roll and tallied with the pairs' rules at the end.
_FIELD_BITS = 12
_SUMMED = (1 << _FIELD_BITS) - 1  # trials summed before a field could carry into the next
_FIELD_MASK = (1 << _FIELD_BITS) - 1


@kernel(inline="always")
def _pair_words(a):
    """Per pair of rolls (index as in ``pairs``), its word: 1 where B is affected, then
    1 in the field of each critical of :func:`crit_flags` (A's success, A's failure, B's
    success, B's failure)."""
    words = np.empty(256, dtype=np.int64)
    for p in range(256):
        roll_a, roll_b = p // 16 + LOW, p % 16 + LOW
        flags = crit_flags(a, roll_a, roll_b)
        words[p] = (
            np.int64(resistance_pair(a, roll_a, roll_b) == ResistanceOutcome.AFFECTED)
            + (np.int64((flags & A_CRIT_SUCCESS) != 0) << _FIELD_BITS)
            + (np.int64((flags & A_CRIT_FAILURE) != 0) << (2 * _FIELD_BITS))
            + (np.int64((flags & B_CRIT_SUCCESS) != 0) << (3 * _FIELD_BITS))
            + (np.int64((flags & B_CRIT_FAILURE) != 0) << (4 * _FIELD_BITS))
        )
    return words


@kernel
def resistance_block(s, n, out, layout, a):
    """Tally ``n`` resistance rolls (see the section's comment)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    pairs = np.zeros(256, dtype=np.int64)  # (none: the pairs are summed in words)
    first_only = np.zeros(16, dtype=np.int64)  # failed attacks by A's roll
    attack = _attack_table(a)
    words = _pair_words(a)
    counters = layout[2 + 3 * layout[1]]
    affected = 0
    for done in range(0, n, _SUMMED):
        summed = 0
        for _ in range(min(n - done, _SUMMED)):
            i = attack[bounded(s, 216)]
            if i >= 0:
                summed += words[i + _PAIR_B[bounded(s, 216)]]
            else:
                first_only[-1 - i] += 1
        affected += summed & _FIELD_MASK
        out[counters + Counter.A_CRITICAL_SUCCESS] += summed >> _FIELD_BITS & _FIELD_MASK
        out[counters + Counter.A_CRITICAL_FAILURE] += summed >> (2 * _FIELD_BITS) & _FIELD_MASK
        out[counters + Counter.B_CRITICAL_SUCCESS] += summed >> (3 * _FIELD_BITS) & _FIELD_MASK
        out[counters + Counter.B_CRITICAL_FAILURE] += summed >> (4 * _FIELD_BITS) & _FIELD_MASK
    failed = 0
    for i in range(16):
        failed += first_only[i]
    out[ResistanceOutcome.AFFECTED] += affected
    out[ResistanceOutcome.RESISTED] += n - failed - affected
    _tally_pairs(out, layout, a, pairs, first_only)


# -- a regular contest: its rounds drawn a chunk at a time, its contests read off them ------------
# A regular contest draws one pair of rolls a round until a round is decided, and the next
# contest draws on from there, so a block's draws are one flat sequence of rounds whatever
# the contests: a loop over trial() reads the same numbers in the same order. The loop
# below draws them by chunks of CHUNK rounds, a code byte a round, with no branch on the
# rules (the floor's loop, a store added), then reads the contests off the chunk: each
# decided round ends one, found by its bit in a word of 64 rounds (the trailing zeros),
# and a contest still undecided after max_rounds rounds ends there. Why: a loop over the
# rounds of each contest mispredicts its exit once a contest, which alone held it to 0.77
# of the dice floor (16 vs 15, 15.8 rounds); read this way it is 0.85 (1 thread,
# alternating with the floor, median of 7). The rounds drawn past a block's last contest
# are never read (a block's stream is its own, see critlab.kernels.rng).
CHUNK_WORDS = 16
CHUNK = 64 * CHUNK_WORDS
A_OK, B_OK = 1, 2  # a round's code: who succeeds, then (bits 2-5) the criticals of its rolls
_CRITS_AT = 2
_GATHER = np.uint64(0x0102040810204080)  # the low bit of each of 8 bytes, gathered into the top byte
_LOW_BITS = np.uint64(0x0101010101010101)


@kernel(inline="always")
def _round_codes(a):
    """Per outcome ``u`` of one draw, its part of a round's code as A's roll and as B's:
    the success bit and the criticals (A's success, A's failure, B's success, B's failure
    in bits 2-5), as :func:`judge` says them."""
    code_a = np.empty(216, dtype=np.uint8)
    code_b = np.empty(216, dtype=np.uint8)
    for u in range(216):
        ok, cs, cf = judge(a.a_skill, ROLL_3D6[u], a.criticals)
        code_a[u] = A_OK * ok + cs * 2**_CRITS_AT + cf * 2 ** (_CRITS_AT + 1)
        ok, cs, cf = judge(a.b_skill, ROLL_3D6[u], a.criticals)
        code_b[u] = B_OK * ok + cs * 2 ** (_CRITS_AT + 2) + cf * 2 ** (_CRITS_AT + 3)
    return code_a, code_b


@kernel(inline="always")
def _decided_rounds(words, w):
    """The rounds of 64-round word ``w`` that decide their contest (one succeeds, the other
    fails), one bit each: each code's two success bits differ, gathered 8 bytes at a time
    (the bytes of a ``uint64`` in memory order: little-endian, as every Numba target is)."""
    mask = np.uint64(0)
    for k in range(8):
        x = words[8 * w + k]
        one = (x ^ (x >> np.uint64(1))) & _LOW_BITS
        mask |= ((one * _GATHER) >> np.uint64(56)) << np.uint64(8 * k)
    return mask


@kernel
def regular_block(s, n, out, layout, a):
    """Tally ``n`` regular contests (see the section's comment)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    code_a, code_b = _round_codes(a)
    crit_fields = np.empty(16, dtype=np.int64)  # criticals bits -> one count in each 16-bit field
    for c in range(16):
        crit_fields[c] = (c & 1) + (c >> 1 & 1) * 2**16 + (c >> 2 & 1) * 2**32 + (c >> 3 & 1) * 2**48
    rounds_at = 2 + 3 * Hist.ROUNDS
    hist_start, lo, n_bins = layout[rounds_at], layout[rounds_at + 1], layout[rounds_at + 2]
    hist = np.zeros(n_bins + 1, dtype=np.int64)
    counters = layout[2 + 3 * layout[1]]
    max_rounds = a.max_rounds
    code = np.empty(CHUNK, dtype=np.uint8)
    words = code.view(np.uint64)
    a_won = undecided = all_rounds = 0
    done = 0  # contests ended
    first = 0  # the open contest's first round (counted from the block's first)
    base = 0  # the chunk's first round
    first_unread = True  # the open contest's first round is in a chunk still to draw
    while done < n:
        for i in range(CHUNK):
            code[i] = code_a[bounded(s, 216)] | code_b[bounded(s, 216)]
        end = base + CHUNK
        crits = 0  # at most CHUNK contests start in a chunk: each count fits its 16 bits
        if first_unread:
            crits += crit_fields[code[first - base] >> _CRITS_AT]
            first_unread = False
        for w in range(CHUNK_WORDS):
            decided = _decided_rounds(words, w)
            while decided != 0 and done < n:
                last = base + 64 * w + trailing_zeros(decided)
                rounds = last - first + 1
                if rounds > max_rounds:  # undecided when its rounds ran out, before this one
                    rounds = max_rounds
                    undecided += 1
                else:
                    a_won += code[last - base] & A_OK
                    decided &= decided - np.uint64(1)
                first += rounds
                all_rounds += rounds
                at = rounds - lo
                hist[at if 0 <= at < n_bins else n_bins] += 1
                done += 1
                if first < end:
                    crits += crit_fields[code[first - base] >> _CRITS_AT]
                else:
                    first_unread = True
        while done < n and end - first >= max_rounds:  # undecided through the chunk's end
            at = max_rounds - lo
            hist[at if 0 <= at < n_bins else n_bins] += 1
            undecided += 1
            all_rounds += max_rounds
            first += max_rounds
            done += 1
            if first < end:
                crits += crit_fields[code[first - base] >> _CRITS_AT]
            else:
                first_unread = True
        if done == n and not first_unread:  # the first round of a contest past the block's
            crits -= crit_fields[code[first - base] >> _CRITS_AT]
        out[counters + Counter.A_CRITICAL_SUCCESS] += crits & 0xFFFF
        out[counters + Counter.A_CRITICAL_FAILURE] += crits >> 16 & 0xFFFF
        out[counters + Counter.B_CRITICAL_SUCCESS] += crits >> 32 & 0xFFFF
        out[counters + Counter.B_CRITICAL_FAILURE] += crits >> 48
        base = end
    for i in range(n_bins + 1):
        out[hist_start + i] += hist[i]
    out[RegularOutcome.A_WINS] += a_won
    out[RegularOutcome.B_WINS] += n - a_won - undecided
    out[RegularOutcome.UNDECIDED] += undecided
    out[counters + Counter.DECIDED_ROUNDS] += all_rounds - undecided * max_rounds


@kernel
def quick_block(s, n, out, layout, a):
    """Tally ``n`` quick contests: their pairs of rolls counted, the rules once a pair."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    pairs = np.zeros(256, dtype=np.int64)
    for _ in range(n):
        pairs[_PAIR_A[bounded(s, 216)] + _PAIR_B[bounded(s, 216)]] += 1
    _tally_pairs(out, layout, a, pairs, np.zeros(16, dtype=np.int64))


# A block's paths (see critlab.kernels.jit.Paths): one per kind of contest, each its own
# kernel, called once a block. Inlined into one block beside the other kinds' code, the
# regular loop ran 1.2x slower and the resistance loop 1.04x (1 thread, 31 alternating
# calls, medians).
QUICK, RESISTANCE, REGULAR = "quick", "resistance", "regular"
_PATH_OF_KIND = {Kind.QUICK: QUICK, Kind.RESISTANCE: RESISTANCE, Kind.REGULAR: REGULAR}


def path_of(a):
    """The path of a block over arguments ``a``: its kind of contest."""
    return _PATH_OF_KIND[a.kind]


block = Paths(
    None, path_of, paths=(QUICK, RESISTANCE, REGULAR),
    kernels={QUICK: quick_block, RESISTANCE: resistance_block, REGULAR: regular_block},
)  # fmt: skip
