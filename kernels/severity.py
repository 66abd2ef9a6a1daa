"""Block simulator for ``severity`` (weapon severity and critical rolls; RULES.md, seed 002).

Each trial rolls both sides' first rolls, then every additional roll they set off, one
roll at a time as a table would: a natural maximum gives its own side one more roll, a
natural minimum on a first roll (on any roll, with chained implosions) gives the
opponent one. The rolls are summed with the skills, and the MoV picks the wound level.
"""

from __future__ import annotations

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state

# mode codes, in the order of critlab.analysis.systems.severity.MODES
LETHAL, RISKY, STABLE = 0, 1, 2
# histograms and counters, in the layout's order
H_MARGIN = 0
C_A_EXPLODES, C_D_EXPLODES, C_A_IMPLODES, C_D_IMPLODES, C_EXPLODE_VS_IMPLODE, C_SUCCESS, C_MARGIN_SUM = range(
    7
)


@kernel(inline="always")
def roll(s, mode):
    """One roll of the mode's dice: 1d20, 3d6, or 4d6 less the lowest die.

    Written with one d6 in a loop rather than three or four in a row: the roll is
    inlined at every place a side rolls, and the short form keeps compile time down.
    """
    if mode == LETHAL:
        return die(s, 20)
    total = 0
    lowest = 6
    for _ in range(3 if mode == RISKY else 4):
        r = die(s, 6)
        total += r
        lowest = min(lowest, r)
    return total if mode == RISKY else total - lowest


@kernel
def wound(mov, ties_attacker, thresholds, sm, armor, cap_before_armor):
    """The wound level index of a MoV (0 = none): base level, + SM, cap, − armor."""
    if not (mov > 0 or (ties_attacker and mov == 0)):
        return 0
    base = 0
    for i in range(thresholds.size):
        if thresholds[i] <= mov:
            base = i + 1
    if base == 0:  # a success that meets no threshold: SM does not apply
        return 0
    top = thresholds.size
    if cap_before_armor:
        return max(min(base + sm, top) - armor, 0)
    return min(max(base + sm - armor, 0), top)


@kernel
def block(
    s,
    n,
    out,
    layout,
    mode,
    natural_min,
    natural_max,
    attacker_skill,
    defender_skill,
    ties_attacker,
    thresholds,
    sm,
    armor,
    cap_before_armor,
    chain_implosions,
):
    """Simulate ``n`` opposed attacks into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    for _ in range(n):
        a_first = roll(s, mode)
        d_first = roll(s, mode)
        a_total = a_first + attacker_skill
        d_total = d_first + defender_skill
        # additional rolls each side still has to make
        a_pending = 0
        d_pending = 0
        if a_first == natural_max:
            a_pending += 1
            add_counter(out, layout, C_A_EXPLODES, 1)
        elif a_first == natural_min:
            d_pending += 1
            add_counter(out, layout, C_A_IMPLODES, 1)
        if d_first == natural_max:
            d_pending += 1
            add_counter(out, layout, C_D_EXPLODES, 1)
        elif d_first == natural_min:
            a_pending += 1
            add_counter(out, layout, C_D_IMPLODES, 1)
        if (a_first == natural_max and d_first == natural_min) or (
            a_first == natural_min and d_first == natural_max
        ):
            add_counter(out, layout, C_EXPLODE_VS_IMPLODE, 1)
        while a_pending > 0 or d_pending > 0:
            if a_pending > 0:
                a_pending -= 1
                r = roll(s, mode)
                a_total += r
                if r == natural_max:
                    a_pending += 1
                elif r == natural_min and chain_implosions:
                    d_pending += 1
            else:
                d_pending -= 1
                r = roll(s, mode)
                d_total += r
                if r == natural_max:
                    d_pending += 1
                elif r == natural_min and chain_implosions:
                    a_pending += 1
        mov = a_total - d_total
        add_label(out, wound(mov, ties_attacker, thresholds, sm, armor, cap_before_armor))
        add_value(out, layout, H_MARGIN, mov)
        if mov > 0 or (ties_attacker and mov == 0):
            add_counter(out, layout, C_SUCCESS, 1)
        add_counter(out, layout, C_MARGIN_SUM, mov)
