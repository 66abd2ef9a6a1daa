"""Kernel for ``thac0`` (AD&D criticals and fumbles).

Each trial rolls the d20 (both dice under advantage or disadvantage, keeping one) and,
where the rules say so, the fumble reroll and the damage dice, one die at a time, exactly
as a table would. :func:`trial` is one attack (a label and its damage); :func:`block`
tallies ``n`` of them.
"""

from __future__ import annotations

from collections import namedtuple

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.d20 import roll_d20
from critlab.kernels.dice import local_scratch, roll_expr, roll_floored
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state
from critlab.kernels.vocab import vocabulary

Outcome = vocabulary(
    "Outcome", "miss fumble fumble_reroll_hit hit natural20_reduced critical_hit", module=__name__
)
CritOption = vocabulary("CritOption", "double max severity", module=__name__)
Hist = vocabulary("Hist", "damage severity", module=__name__)
Counter = vocabulary("Counter", "damage_sum", module=__name__)

Args = namedtuple(
    "Args",
    "roll need to_hit crit_threshold fumble_is_miss crit_option dmg_terms dmg_const dmg_min dmg_max "
    "sev_terms sev_const",
)
"""The kernel's arguments, built by :mod:`critlab.analysis.systems.thac0` from a spec;
``roll`` is the d20 roll mode (:data:`critlab.kernels.d20.RollMode`)."""


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


@kernel(inline="always")
def trial(s, a, scratch):
    """One attack: ``(label, damage, severity)``. The kept d20 of ``a.roll`` is the natural
    for every rule; the fumble reroll is one plain d20 whatever the roll mode."""
    natural = roll_d20(s, a.roll)
    damage = 0
    severity = 0
    if natural == 1:
        label = Outcome.FUMBLE
        if 1 + a.to_hit >= a.need:  # the 1 would have hit
            if a.to_hit >= a.need:  # a -20 reroll could hit at all
                reroll = die(s, 20)
                if reroll + a.to_hit - 20 >= a.need:
                    label = Outcome.FUMBLE_REROLL_HIT
                    damage = a.dmg_min
            elif a.fumble_is_miss:
                label = Outcome.MISS
    else:
        hit_by = natural + a.to_hit - a.need
        shortfall = a.need - (20 + a.to_hit)
        if natural == 20 and shortfall > 10:
            label = Outcome.NATURAL20_REDUCED
            halvings = (shortfall - 10 + 4) // 5  # ceil((s - 10) / 5)
            damage = halve(roll_floored(s, a.dmg_terms, a.dmg_const, scratch), halvings)
        elif hit_by >= 0 or natural == 20:
            if natural >= a.crit_threshold and hit_by >= 5:
                label = Outcome.CRITICAL_HIT
                if a.crit_option == CritOption.DOUBLE:
                    damage = roll_floored(s, a.dmg_terms, a.dmg_const, scratch)
                    damage += roll_floored(s, a.dmg_terms, a.dmg_const, scratch)
                elif a.crit_option == CritOption.MAX:
                    damage = a.dmg_max
                else:
                    damage = roll_floored(s, a.dmg_terms, a.dmg_const, scratch)
                    severity = roll_expr(s, a.sev_terms, a.sev_const, scratch)
            else:
                label = Outcome.HIT
                damage = roll_floored(s, a.dmg_terms, a.dmg_const, scratch)
        else:
            label = Outcome.MISS
    return label, damage, severity


@kernel
def block(s, n, out, layout, a):
    """Tally ``n`` attacks into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    for _ in range(n):
        label, damage, severity = trial(s, a, scratch)
        add_label(out, label)
        add_value(out, layout, Hist.DAMAGE, damage)
        if a.crit_option == CritOption.SEVERITY:
            add_value(out, layout, Hist.SEVERITY, severity)
        add_counter(out, layout, Counter.DAMAGE_SUM, damage)
