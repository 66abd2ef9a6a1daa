"""Block simulator for ``thac0`` (AD&D criticals and fumbles; RULES.md, seed 004).

Each trial rolls the d20 and, where the rules say so, the fumble reroll and the damage
dice, one die at a time, exactly as a table would.
"""

from __future__ import annotations

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import local_scratch, roll_expr, roll_floored
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state

# Outcome indices, in the order of critlab.analysis.systems.thac0.LABELS.
MISS, FUMBLE, FUMBLE_REROLL_HIT, HIT, NATURAL20_REDUCED, CRITICAL_HIT = 0, 1, 2, 3, 4, 5
# crit_option codes
DOUBLE, MAX, SEVERITY = 0, 1, 2
# histograms and counters, in the layout's order
H_DAMAGE, H_SEVERITY = 0, 1
C_DAMAGE_SUM = 0


@kernel(inline="always")
def halve(damage, times):
    """Damage halved ``times`` times: ``[0.5, 1)`` deals 1, below 0.5 deals 0, else floor."""
    if times >= 62:  # 2**times exceeds any damage roll
        return 0
    if damage >= (1 << times):
        return damage >> times
    if 2 * damage >= (1 << times):
        return 1
    return 0


@kernel
def block(
    s,
    n,
    out,
    layout,
    need,
    to_hit,
    crit_threshold,
    fumble_is_miss,
    crit_option,
    dmg_terms,
    dmg_const,
    dmg_min,
    dmg_max,
    sev_terms,
    sev_const,
):
    """Simulate ``n`` attacks into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    for _ in range(n):
        natural = die(s, 20)
        damage = 0
        severity = 0
        if natural == 1:
            label = FUMBLE
            if 1 + to_hit >= need:  # the 1 would have hit
                if to_hit >= need:  # a -20 reroll could hit at all
                    reroll = die(s, 20)
                    if reroll + to_hit - 20 >= need:
                        label = FUMBLE_REROLL_HIT
                        damage = dmg_min
                elif fumble_is_miss:
                    label = MISS
        else:
            hit_by = natural + to_hit - need
            shortfall = need - (20 + to_hit)
            if natural == 20 and shortfall > 10:
                label = NATURAL20_REDUCED
                halvings = (shortfall - 10 + 4) // 5  # ceil((s - 10) / 5)
                damage = halve(roll_floored(s, dmg_terms, dmg_const, scratch), halvings)
            elif hit_by >= 0 or natural == 20:
                if natural >= crit_threshold and hit_by >= 5:
                    label = CRITICAL_HIT
                    if crit_option == DOUBLE:
                        damage = roll_floored(s, dmg_terms, dmg_const, scratch)
                        damage += roll_floored(s, dmg_terms, dmg_const, scratch)
                    elif crit_option == MAX:
                        damage = dmg_max
                    else:
                        damage = roll_floored(s, dmg_terms, dmg_const, scratch)
                        severity = roll_expr(s, sev_terms, sev_const, scratch)
                else:
                    label = HIT
                    damage = roll_floored(s, dmg_terms, dmg_const, scratch)
            else:
                label = MISS
        add_label(out, label)
        add_value(out, layout, H_DAMAGE, damage)
        if crit_option == SEVERITY:
            add_value(out, layout, H_SEVERITY, severity)
        add_counter(out, layout, C_DAMAGE_SUM, damage)
