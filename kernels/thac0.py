"""Kernel for ``thac0`` (AD&D criticals and fumbles).

Each trial rolls the d20 (both dice under advantage or disadvantage, keeping one) and,
where the rules say so, the fumble reroll and the damage dice, exactly
as a table would. :func:`trial` is one attack (a label and its damage); :func:`block`
tallies ``n`` of them.

The block is shaped for speed as :mod:`critlab.kernels.crit_range`'s is (measured: 23
ns an attack at first, about 5 die by die, under 3 with the joint draw): scalar
:class:`Rules` and borrowed dice arrays in the per-trial functions, each natural's label
from a table built once per block by the same :func:`label_of`, counts in the kernel's
own frame. Where the damage dice are simple and not exploding an attack draws one roll
of them with its d20 as one draw (the same dice), counts itself by natural and damage
total, and hits, halved natural 20s and maximised critical hits are settled once per
total at the end of the block (:func:`settled`); fumble rerolls and critical hits that
roll more dice are settled one by one. Other damage dice are rolled after the d20 by
:func:`critlab.kernels.fast_dice.roll_planned`, as the interpreter rolls them.
"""

from __future__ import annotations

from critlab.kernels.counts import add_to_bin, counter_at, hist_at, kept_label, natural_tables, settle_totals
from critlab.kernels.d20 import roll_d20, roll_d20_counted
from critlab.kernels.dice import local_scratch
from critlab.kernels.fast_dice import borrowed, roll_planned, roll_simple
from critlab.kernels.jit import Paths, kernel
from critlab.kernels.joint import local_table, total_slots
from critlab.kernels.rng import die, local_state
from critlab.kernels.vocab.thac0 import (  # noqa: F401  (re-exported: the kernel's names)
    REROLL,
    Args,
    Counter,
    CritOption,
    Hist,
    Outcome,
    Rules,
)


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
def label_of(natural, r):
    """The label of a kept natural, or :data:`REROLL` for a natural 1 whose -20 reroll decides."""
    if natural == 1:
        if 1 + r.to_hit >= r.need:  # the 1 would have hit
            if r.to_hit >= r.need:  # a -20 reroll could hit at all
                return REROLL
            if r.fumble_is_miss:
                return Outcome.MISS
        return Outcome.FUMBLE
    hit_by = natural + r.to_hit - r.need
    if natural == 20 and r.halvings > 0:
        return Outcome.NATURAL20_REDUCED
    if hit_by >= 0 or natural == 20:
        if natural >= r.crit_threshold and hit_by >= 5:
            return Outcome.CRITICAL_HIT
        return Outcome.HIT
    return Outcome.MISS


@kernel(inline="always")
def resolve(s, label, r, dmg_terms, sev_terms, scratch):
    """``(label, damage, severity)`` of an attack whose natural gave ``label``: the fumble
    reroll (one plain d20, whatever the roll mode) and the damage dice.

    The damage dice are rolled at one place in a loop (a doubled critical hit rolls twice,
    each roll floored at 0), not once per rule: every place inlines the interpreter, and
    the compile time grows with each.
    """
    if label == REROLL:
        if die(s, 20) + r.to_hit - 20 >= r.need:
            return Outcome.FUMBLE_REROLL_HIT, r.dmg_min, 0
        return Outcome.FUMBLE, 0, 0
    rolls = 1
    if label == Outcome.CRITICAL_HIT:
        rolls = 2 if r.crit_option == CritOption.DOUBLE else 1 if r.crit_option == CritOption.SEVERITY else 0
    elif label != Outcome.HIT and label != Outcome.NATURAL20_REDUCED:
        rolls = 0
    damage = 0
    for _ in range(rolls):
        roll = roll_planned(
            s, r.dmg_simple, r.dmg_count, r.dmg_sides, r.dmg_explode, dmg_terms, r.dmg_const, scratch
        )
        damage += max(0, roll)
    severity = 0
    if label == Outcome.NATURAL20_REDUCED:
        damage = halve(damage, r.halvings)
    elif label == Outcome.CRITICAL_HIT:
        if r.crit_option == CritOption.MAX:
            damage = r.dmg_max
        elif r.crit_option == CritOption.SEVERITY:
            severity = roll_planned(
                s, r.sev_simple, r.sev_count, r.sev_sides, r.sev_explode, sev_terms, r.sev_const, scratch
            )
    return label, damage, severity


@kernel(inline="always")
def settled(label, roll, r):
    """The damage of a hit, a halved natural 20 or a maximised critical hit whose damage
    roll is ``roll``: what needs no other dice."""
    if label == Outcome.NATURAL20_REDUCED:
        return halve(max(0, roll), r.halvings)
    if label == Outcome.CRITICAL_HIT:
        return r.dmg_max
    return max(0, roll)


@kernel(inline="always")
def critical(s, roll, r):
    """``(damage, severity)`` of a doubled or a severity critical hit whose first damage
    roll is ``roll``: the second roll, or the severity dice (both simple; rolled at one
    place)."""
    on_severity = r.crit_option == CritOption.SEVERITY
    more = roll_simple(
        s,
        r.sev_count if on_severity else r.dmg_count,
        r.sev_sides if on_severity else r.dmg_sides,
        r.sev_explode if on_severity else r.dmg_explode,
        r.sev_const if on_severity else r.dmg_const,
    )
    if on_severity:
        return max(0, roll), more
    return max(0, roll) + max(0, more), 0


@kernel(inline="always")
def trial(s, a, scratch):
    """One attack: ``(label, damage, severity)``. The kept d20 of the roll mode is the
    natural for every rule; the fumble reroll is one plain d20 whatever the roll mode."""
    r = a.rules
    return resolve(s, label_of(roll_d20(s, r.roll), r), r, a.dmg_terms, a.sev_terms, scratch)


# A block's paths (see critlab.kernels.jit.Paths): the damage dice drawn with the d20, or
# rolled after it (where the interpreter may roll them).
JOINT, PLANNED = "joint", "planned"
PATH = PLANNED  # bound per path by Paths


def path_of(a):
    """The path of a block over arguments ``a``."""
    return JOINT if a.rules.joint else PLANNED


def _block(s, n, out, layout, a):
    """Tally ``n`` attacks into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    r = a.rules
    severity_on = r.crit_option == CritOption.SEVERITY
    # the layout's offsets as scalars: read once, not reloaded after every count
    d_start, d_lo, d_bins = hist_at(layout, Hist.DAMAGE)
    s_start, s_lo, s_bins = hist_at(layout, Hist.SEVERITY)
    labels, seen = natural_tables(label_of, r)  # each natural's label; attacks that kept it
    dmg_terms = borrowed(a.dmg_terms)
    sev_terms = borrowed(a.sev_terms)
    dealt = 0  # attacks that wrote a damage bin
    criticals = 0
    reroll_hits = 0
    damage_sum = 0
    if PATH == JOINT:  # the d20 and a damage roll as one draw; most attacks settled after the loop
        totals = r.joint_totals
        lowest_roll = r.dmg_const + r.dmg_count  # the damage roll of all dice showing 1
        slot = total_slots(r.joint, r.dmg_count, r.dmg_sides)  # a joint outcome's total, less the lowest
        by_total = local_table()  # attacks by (natural - 1) * totals + slot
        critical_apart = r.crit_option != CritOption.MAX  # it rolls more dice
        for _ in range(n):
            natural, above = roll_d20_counted(s, r.roll, r.joint, totals, slot, by_total)
            label = labels[natural]
            if label == REROLL:
                if die(s, 20) + r.to_hit - 20 >= r.need:
                    add_to_bin(out, d_start, d_lo, d_bins, r.dmg_min, 1)
                    dealt += 1
                    damage_sum += r.dmg_min
                    reroll_hits += 1
            elif label == Outcome.CRITICAL_HIT and critical_apart:
                damage, severity = critical(s, lowest_roll + above, r)
                add_to_bin(out, d_start, d_lo, d_bins, damage, 1)
                dealt += 1
                damage_sum += damage
                if severity_on:
                    add_to_bin(out, s_start, s_lo, s_bins, severity, 1)
                    criticals += 1
        for natural in range(1, 21):  # the other attacks that deal damage, once per total
            label = labels[natural]
            rest = label == Outcome.HIT or label == Outcome.NATURAL20_REDUCED
            rest = rest or (label == Outcome.CRITICAL_HIT and not critical_apart)
            binned, damage = settle_totals(
                out, d_start, d_lo, d_bins, by_total, totals, natural, seen, rest, settled, label,
                lowest_roll, r,
            )  # fmt: skip
            dealt += binned
            damage_sum += damage
    else:
        for _ in range(n):
            label = kept_label(s, r.roll, labels, seen)
            if label >= Outcome.FUMBLE_REROLL_HIT:  # the labels that roll more dice
                label, damage, severity = resolve(s, label, r, dmg_terms, sev_terms, scratch)
                if label != Outcome.FUMBLE:
                    add_to_bin(out, d_start, d_lo, d_bins, damage, 1)
                    dealt += 1
                    damage_sum += damage
                    reroll_hits += label == Outcome.FUMBLE_REROLL_HIT
                if severity_on and label == Outcome.CRITICAL_HIT:
                    add_to_bin(out, s_start, s_lo, s_bins, severity, 1)
                    criticals += 1
    for natural in range(1, 21):
        label = labels[natural]
        if label == REROLL:  # the natural 1s: rerolls that hit, the rest fumbles
            out[Outcome.FUMBLE_REROLL_HIT] += reroll_hits
            out[Outcome.FUMBLE] += seen[natural] - reroll_hits
        else:
            out[label] += seen[natural]
    add_to_bin(out, d_start, d_lo, d_bins, 0, n - dealt)  # every other attack deals 0
    if severity_on:
        add_to_bin(out, s_start, s_lo, s_bins, 0, n - criticals)
    out[counter_at(layout, Counter.DAMAGE_SUM)] += damage_sum


block = Paths(_block, path_of, paths=(JOINT, PLANNED))
