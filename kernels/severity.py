"""Kernel for ``severity`` (weapon severity and critical rolls).

An attack rolls both sides' first rolls, then every additional roll they set off, one
roll at a time as a table would: a natural maximum gives its own side one more roll, a
natural minimum on a first roll (on any roll, with chained implosions) gives the
opponent one. The rolls are summed with the skills, and the MoV picks the wound level.
:func:`trial` is one attack (its wound level and MoV); :func:`block` tallies ``n``.

One roll is one bounded draw. A mode's roll is a uniform integer ``u`` on ``0 .. F-1``
(F = 20, 216 or 1296) read through a table (:func:`roll_table`): for 1d20 the face is
``u + 1``, exactly :func:`critlab.kernels.rng.die`; for 3d6 and 4d6 the base-6 digits of
``u`` are the dice. That is the same dice as rolling them one by one: ``u`` ↦ its
digits is a bijection from the ``6^k`` equally likely integers onto the ``6^k`` equally
likely ordered rolls of ``k`` dice, so the digits are independent and each is a fair d6.

Why :func:`block` is not a loop over :func:`trial` (speed, with the same dice): an
attack's first rolls are tallied by their two classes (ordinary, maximum, minimum) and
first-roll MoV, which costs little more than drawing them. Most attacks end there (81%
in lethal, 98% in risky, 97% in stable); for the others every additional roll they are
owed is drawn after the block's first rolls, attack by attack, in the order of that
tally. Every roll is still a fresh independent draw, so the dice are the same; a seed
gives the same tally on any number of threads, though not the tally of a loop over
:func:`trial`, which draws each attack's rolls in turn. The rules (wound level, success)
are then applied once per distinct MoV, weighted by its count.
"""

from __future__ import annotations

import numpy as np

from critlab.kernels.fast_dice import borrowed
from critlab.kernels.jit import Paths, kernel
from critlab.kernels.rng import bounded, local_state
from critlab.kernels.vocab.severity import (  # noqa: F401  (re-exported: the kernel's names)
    MAXIMUM,
    MINIMUM,
    NO_WOUND,
    Args,
    Counter,
    Hist,
    Mode,
    roll_table,
    wounds,
)


@kernel(inline="always")
def roll(s, rolls):
    """One roll: its code in ``rolls`` (one bounded draw over the table)."""
    return rolls[bounded(s, rolls.size)]


@kernel(inline="always")
def succeeds(mov, ties_attacker):
    """Whether an attack with margin ``mov`` succeeds (MoV 0 only when ties go to the attacker)."""
    return mov > 0 or (ties_attacker and mov == 0)


@kernel
def wound(mov, a):
    """The wound level index of a MoV (0 = none): base level, + SM, cap, − armor."""
    if not succeeds(mov, a.ties_attacker):
        return 0
    thresholds = a.thresholds
    base = 0
    for i in range(thresholds.size):
        if thresholds[i] <= mov:
            base = i + 1
    if base == 0:  # a success that meets no threshold: SM does not apply
        return 0
    top = thresholds.size
    if a.cap_before_armor:
        return max(min(base + a.sm, top) - a.armor, 0)
    return min(max(base + a.sm - a.armor, 0), top)


@kernel(inline="always")
def chain(s, a, mov, a_pending, d_pending):
    """The MoV ``mov`` after every additional roll owed, ``a_pending`` / ``d_pending``
    to each side, and every roll those set off, the attacker's pending rolls first."""
    return chain_rolls(s, a.rolls, MINIMUM if a.chain_implosions else 0, mov, a_pending, d_pending)


@kernel(inline="always")
def chain_rolls(s, rolls, chained, mov, a_pending, d_pending):
    """:func:`chain` over the roll table ``rolls``, ``chained`` :data:`MINIMUM` where
    implosions chain (else 0): the arguments read once by the caller, not once a roll."""
    size = rolls.size
    while a_pending > 0 or d_pending > 0:
        r = rolls[bounded(s, size)]
        extra = r & MAXIMUM
        given = (r & chained) >> 1
        if a_pending > 0:
            mov += r >> 2
            a_pending += extra - 1
            d_pending += given
        else:
            mov -= r >> 2
            d_pending += extra - 1
            a_pending += given
    return mov


@kernel(inline="always")
def explode(s, rolls, size, owed):
    """The sum of ``owed`` rolls over the table ``rolls`` (of ``size`` codes) and of every
    roll their maxima set off, in turn: ``owed`` pending rolls of :func:`chain_rolls` where
    minima give the opponent nothing. One loop over the rolls still owed (a maximum owes
    one more), not a loop of explosion chains: 0.74 -> 0.77 of the dice floor in lethal."""
    total = 0
    while owed > 0:
        r = rolls[bounded(s, size)]
        total += r >> 2
        owed += (r & MAXIMUM) - 1
    return total


@kernel(inline="always")
def owed(a_first, d_first):
    """The additional rolls owed to each side by two first rolls (codes): its own
    explosion and the other's implosion."""
    a_pending = (a_first & MAXIMUM) + ((d_first & MINIMUM) >> 1)
    d_pending = (d_first & MAXIMUM) + ((a_first & MINIMUM) >> 1)
    return a_pending, d_pending


@kernel(inline="always")
def trial(s, a, scratch):
    """One attack: ``(wound level, MoV, attacker's first roll, defender's first roll)``."""
    a_first = roll(s, a.rolls)
    d_first = roll(s, a.rolls)
    a_pending, d_pending = owed(a_first, d_first)
    mov = (a_first >> 2) - (d_first >> 2) + a.attacker_skill - a.defender_skill
    mov = chain(s, a, mov, a_pending, d_pending)
    return wound(mov, a), mov, a_first >> 2, d_first >> 2


@kernel
def _first_roll_index(rolls, extent, width):
    """Each roll's part of its attack's index in the tally of first rolls (one table for
    the attacker, one for the defender): the index is ``(a_class + 3 d_class) * width + f``
    with a class 0 ordinary, 1 a maximum, 2 a minimum (a code's extreme bits) and
    ``f = a_value - d_value + extent``, so that the two parts simply add."""
    to_a = np.empty(rolls.size, dtype=np.int64)
    to_d = np.empty(rolls.size, dtype=np.int64)
    for u in range(rolls.size):
        value, extreme = rolls[u] >> 2, rolls[u] & (MAXIMUM | MINIMUM)
        to_a[u] = value + extent + width * extreme
        to_d[u] = -value + 3 * width * extreme
    return to_a, to_d


@kernel
def _count_extremes(out, counters, pair, c):
    """The first-roll counters of ``c`` attacks whose first rolls have classes ``pair``."""
    a_class, d_class = pair % 3, pair // 3
    out[counters + Counter.ATTACKER_EXPLODES] += c * (a_class & MAXIMUM)
    out[counters + Counter.DEFENDER_EXPLODES] += c * (d_class & MAXIMUM)
    out[counters + Counter.ATTACKER_IMPLODES] += c * (a_class >> 1)
    out[counters + Counter.DEFENDER_IMPLODES] += c * (d_class >> 1)
    out[counters + Counter.EXPLODE_VS_IMPLODE] += c * ((a_class * d_class) == 2)


@kernel
def _tally_margins(out, layout, a, counts, span_lo):
    """The rules once per distinct MoV (``counts[i]`` attacks of MoV ``span_lo + i``):
    wound level, margin histogram (values outside it in its tail bin), success, sum."""
    hist = 2 + 3 * Hist.MARGIN
    start, lo, n_bins = layout[hist], layout[hist + 1], layout[hist + 2]
    counters = layout[2 + 3 * layout[1]]
    successes = margin_sum = 0
    for i in range(counts.size):
        c = counts[i]
        if c == 0:
            continue
        mov = span_lo + i
        out[wound(mov, a)] += c
        at = mov - lo
        out[start + (at if 0 <= at < n_bins else n_bins)] += c
        successes += c * succeeds(mov, a.ties_attacker)
        margin_sum += c * mov
    out[counters + Counter.SUCCESS] += successes
    out[counters + Counter.MARGIN_SUM] += margin_sum


# A block's paths (see critlab.kernels.jit.Paths): implosions chaining (every additional
# roll of either side read in turn), or not (each pending roll explodes on its own), each
# compiling its own loop of additional rolls.
CHAINED, APART = "chained", "apart"
PATH = APART  # bound per path by Paths


def path_of(a):
    """The path of a block over arguments ``a``."""
    return CHAINED if a.chain_implosions else APART


def _block(s, n, out, layout, a):
    """Tally ``n`` attacks into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    # The roll table read once, with no reference count: read from ``a`` in the loop of
    # additional rolls it was counted in and out at every roll (measured: 0.79 -> 0.81
    # of the dice floor in lethal, where 19% of attacks roll again; each side's pending
    # rolls drawn by explode where implosions do not chain: 0.81 -> 0.84).
    rolls = borrowed(a.rolls)
    size = rolls.size
    low = top = rolls[0] >> 2
    for r in rolls:
        low, top = min(low, r >> 2), max(top, r >> 2)
    extent = top - low
    width = 2 * extent + 1
    to_a, to_d = _first_roll_index(rolls, extent, width)
    firsts = np.zeros(9 * width, dtype=np.int64)
    for _ in range(n):
        firsts[to_a[bounded(s, size)] + to_d[bounded(s, size)]] += 1
    # Every attack's MoV, counted over the layout's margin range widened to every first-roll MoV.
    diff = a.attacker_skill - a.defender_skill
    lo, n_bins = layout[3 + 3 * Hist.MARGIN], layout[4 + 3 * Hist.MARGIN]
    span_lo = min(lo, diff - extent)
    counts = np.zeros(max(lo + n_bins, diff + extent + 1) - span_lo, dtype=np.int64)
    for f in range(width):  # attacks whose first rolls are both ordinary: done
        counts[f - extent + diff - span_lo] += firsts[f]
    counters = layout[2 + 3 * layout[1]]
    # MoVs beyond the exact engine's support (its tail) kept aside and tallied after the
    # loop: a call in the loop, though never taken, cost a tenth of the dice floor
    # (0.76-0.79 -> 0.84-0.88); room for every attack that rolls again, the worst case
    beyond = np.empty(n - firsts[:width].sum(), dtype=np.int64)
    n_beyond = 0
    for pair in range(1, 9):  # the others: their additional rolls, attack by attack
        _count_extremes(out, counters, pair, firsts[pair * width : (pair + 1) * width].sum())
        a_pending, d_pending = owed(pair % 3, pair // 3)
        for f in range(width):
            for _ in range(firsts[pair * width + f]):
                if PATH == CHAINED:
                    mov = chain_rolls(s, rolls, MINIMUM, f - extent + diff, a_pending, d_pending)
                else:  # each pending roll explodes on its own: the same rolls as chain_rolls
                    mov = f - extent + diff + explode(s, rolls, size, a_pending)
                    mov -= explode(s, rolls, size, d_pending)
                if 0 <= mov - span_lo < counts.size:
                    counts[mov - span_lo] += 1
                else:
                    beyond[n_beyond] = mov
                    n_beyond += 1
    one = np.ones(1, dtype=np.int64)
    for i in range(n_beyond):  # each counted on its own
        _tally_margins(out, layout, a, one, beyond[i])
    _tally_margins(out, layout, a, counts, span_lo)


block = Paths(_block, path_of, paths=(CHAINED, APART))
