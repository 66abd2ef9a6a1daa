"""Kernel for ``severity`` (weapon severity and critical rolls).

Each trial rolls both sides' first rolls, then every additional roll they set off, one
roll at a time as a table would: a natural maximum gives its own side one more roll, a
natural minimum on a first roll (on any roll, with chained implosions) gives the
opponent one. The rolls are summed with the skills, and the MoV picks the wound level.
:func:`trial` is one attack (its wound level and MoV); :func:`block` tallies ``n``.
"""

from __future__ import annotations

from collections import namedtuple

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state
from critlab.kernels.vocab import spelled, vocabulary

Mode = vocabulary("Mode", "lethal risky stable", module=__name__)
Hist = vocabulary("Hist", "margin", module=__name__)
Counter = vocabulary(
    "Counter",
    "attacker_explodes defender_explodes attacker_implodes defender_implodes explode_vs_implode "
    "success margin_sum",
    module=__name__,
)
NO_WOUND = "none"

Args = namedtuple(
    "Args",
    "mode natural_min natural_max attacker_skill defender_skill ties_attacker thresholds sm armor "
    "cap_before_armor chain_implosions",
)
"""The kernel's arguments, built by :mod:`critlab.analysis.systems.severity` from a spec
(``thresholds``: the ladder's MoV thresholds, an int64 array)."""


def wounds(levels: tuple[str, ...]):
    """The outcome vocabulary of a ladder: ``none`` (index 0), then its ``levels`` in
    order, so that a wound level's index is its position on the ladder."""
    return spelled("Wound", (NO_WOUND, *levels), module=__name__)


@kernel(inline="always")
def roll(s, mode):
    """One roll of the mode's dice: 1d20, 3d6, or 4d6 less the lowest die.

    Written with one d6 in a loop rather than three or four in a row: the roll is
    inlined at every place a side rolls, and the short form keeps compile time down.
    """
    if mode == Mode.LETHAL:
        return die(s, 20)
    total = 0
    lowest = 6
    for _ in range(3 if mode == Mode.RISKY else 4):
        r = die(s, 6)
        total += r
        lowest = min(lowest, r)
    return total if mode == Mode.RISKY else total - lowest


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
def trial(s, a, scratch):
    """One attack: ``(wound level, MoV, attacker's first roll, defender's first roll)``."""
    a_first = roll(s, a.mode)
    d_first = roll(s, a.mode)
    a_total = a_first + a.attacker_skill
    d_total = d_first + a.defender_skill
    # additional rolls each side still has to make
    a_pending = 0
    d_pending = 0
    if a_first == a.natural_max:
        a_pending += 1
    elif a_first == a.natural_min:
        d_pending += 1
    if d_first == a.natural_max:
        d_pending += 1
    elif d_first == a.natural_min:
        a_pending += 1
    while a_pending > 0 or d_pending > 0:
        if a_pending > 0:
            a_pending -= 1
            r = roll(s, a.mode)
            a_total += r
            if r == a.natural_max:
                a_pending += 1
            elif r == a.natural_min and a.chain_implosions:
                d_pending += 1
        else:
            d_pending -= 1
            r = roll(s, a.mode)
            d_total += r
            if r == a.natural_max:
                d_pending += 1
            elif r == a.natural_min and a.chain_implosions:
                a_pending += 1
    mov = a_total - d_total
    return wound(mov, a), mov, a_first, d_first


@kernel
def block(s, n, out, layout, a):
    """Tally ``n`` attacks into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    for _ in range(n):
        level, mov, a_first, d_first = trial(s, a, None)
        a_explodes, a_implodes = a_first == a.natural_max, a_first == a.natural_min
        d_explodes, d_implodes = d_first == a.natural_max, d_first == a.natural_min
        add_counter(out, layout, Counter.ATTACKER_EXPLODES, a_explodes)
        add_counter(out, layout, Counter.DEFENDER_EXPLODES, d_explodes)
        add_counter(out, layout, Counter.ATTACKER_IMPLODES, a_implodes)
        add_counter(out, layout, Counter.DEFENDER_IMPLODES, d_implodes)
        crossed = (a_explodes and d_implodes) or (a_implodes and d_explodes)
        add_counter(out, layout, Counter.EXPLODE_VS_IMPLODE, crossed)
        add_label(out, level)
        add_value(out, layout, Hist.MARGIN, mov)
        add_counter(out, layout, Counter.SUCCESS, succeeds(mov, a.ties_attacker))
        add_counter(out, layout, Counter.MARGIN_SUM, mov)
