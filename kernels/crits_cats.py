"""Block simulator for ``crits-cats`` (criticals and catastrophes; RULES.md, seed 000).

Each trial rolls the d20s one at a time, exactly as a table would: the initiator's and
the responder's in a Versus Challenge (then the damage or backlash dice its result calls
for), the roller's in a 21 Challenge, or the caster's and then each resister's in turn
for a spell.
"""

from __future__ import annotations

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import local_scratch, roll_floored
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state

# Outcome indices, in the order of critlab.analysis.systems.crits_cats.LABELS.
MAJOR_CATASTROPHE, MINOR_CATASTROPHE, FAILURE, SUCCESS, MINOR_CRITICAL, MAJOR_CRITICAL = 0, 1, 2, 3, 4, 5
N_CLASSES = 6
# mode codes, in the order of critlab.analysis.systems.crits_cats.MODES
VERSUS, CHALLENGE, SPELL = 0, 1, 2
# Histograms and counters, in the layout's order for each mode.
H_DAMAGE, H_BACKLASH = 0, 1  # versus with damage
C_DAMAGE_SUM, C_BACKLASH_SUM, C_DOWN = 0, 1, 2
H_RESISTER = 0  # spell
C_AFFECTED = N_CLASSES  # spell: counters 0..5 count casts where some resister got that class


@kernel(inline="always")
def natural_kind(natural, crit_lo, cat_hi):
    """+1 for a natural in the crit range (>= ``crit_lo``), −1 in the catastrophe range
    (<= ``cat_hi``), else 0."""
    if natural >= crit_lo:
        return 1
    if natural <= cat_hi:
        return -1
    return 0


@kernel(inline="always")
def classify(kind, margin, major_margin, succeeded):
    """The class of a roll: a critical or catastrophe by ``kind`` (major by ``margin``),
    otherwise success or failure as ``succeeded`` says."""
    if kind > 0:
        return MAJOR_CRITICAL if margin >= major_margin else MINOR_CRITICAL
    if kind < 0:
        return MAJOR_CATASTROPHE if -margin >= major_margin else MINOR_CATASTROPHE
    return SUCCESS if succeeded else FAILURE


@kernel
def block(
    s,
    n,
    out,
    layout,
    mode,
    crit_lo,
    cat_hi,
    skill,
    target,
    opposing_skill,
    transfer,
    ties_initiator,
    major_margin,
    combat,
    dmg_terms,
    dmg_const,
    dmg_max,
    protection,
    bl_terms,
    bl_const,
    attacker_protection,
    minor_hit,
    resisters,
    resistance,
):
    """Simulate ``n`` trials into ``out`` (see :mod:`critlab.kernels.bins` for the layout).

    ``crit_lo`` = 21 − crit_range and ``cat_hi`` = cat_range; ``dmg_max`` is the damage
    maximum floored at 0 (what a minor critical deals).
    """
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    for _ in range(n):
        if mode == VERSUS:
            initiator = die(s, 20)
            responder = die(s, 20)
            kind = natural_kind(initiator, crit_lo, cat_hi)
            if transfer:
                # The responder's crit is the initiator's catastrophe and vice versa;
                # opposite pulls cancel, equal ones stand.
                kind -= natural_kind(responder, crit_lo, cat_hi)
                kind = 1 if kind > 0 else (-1 if kind < 0 else 0)
            margin = initiator + skill - responder - opposing_skill
            label = classify(kind, margin, major_margin, margin > 0 or (margin == 0 and ties_initiator))
            add_label(out, label)
            if combat:
                damage = 0
                backlash = 0
                down = 0
                if label == SUCCESS:
                    damage = max(0, roll_floored(s, dmg_terms, dmg_const, scratch) - protection)
                elif label == MINOR_CRITICAL:
                    damage = dmg_max
                elif label == MAJOR_CRITICAL:
                    damage = 2 * dmg_max
                elif label == MINOR_CATASTROPHE:
                    if minor_hit:
                        backlash = max(0, roll_floored(s, bl_terms, bl_const, scratch) - attacker_protection)
                    else:
                        down = 1
                elif label == MAJOR_CATASTROPHE:
                    down = 1
                    backlash = roll_floored(s, bl_terms, bl_const, scratch)
                add_value(out, layout, H_DAMAGE, damage)
                add_value(out, layout, H_BACKLASH, backlash)
                add_counter(out, layout, C_DAMAGE_SUM, damage)
                add_counter(out, layout, C_BACKLASH_SUM, backlash)
                add_counter(out, layout, C_DOWN, down)
        elif mode == CHALLENGE:
            natural = die(s, 20)
            margin = natural + skill - target
            add_label(
                out, classify(natural_kind(natural, crit_lo, cat_hi), margin, major_margin, margin >= 0)
            )
        else:
            natural = die(s, 20)
            caster_total = natural + skill
            margin = caster_total - target
            label = classify(natural_kind(natural, crit_lo, cat_hi), margin, major_margin, margin >= 0)
            add_label(out, label)
            cast = label >= SUCCESS
            seen = 0  # bit k set: some resister got class k
            affected = 0
            for i in range(resisters):
                rolled = die(s, 20)
                r_margin = rolled + resistance - caster_total
                r_label = classify(
                    natural_kind(rolled, crit_lo, cat_hi), r_margin, major_margin, r_margin >= 0
                )
                if i == 0:
                    add_value(out, layout, H_RESISTER, r_label)
                seen |= 1 << r_label
                if cast and r_label < SUCCESS:
                    affected += 1
            for c in range(N_CLASSES):
                if seen & (1 << c):
                    add_counter(out, layout, c, 1)
            add_counter(out, layout, C_AFFECTED, affected)
