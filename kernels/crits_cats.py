"""Kernel for ``crits-cats`` (criticals and catastrophes).

Each trial rolls the d20s one at a time, exactly as a table would: the initiator's and
the responder's in a Versus Challenge (then the damage or backlash dice its result calls
for), the roller's in a 21 Challenge, or the caster's and then each resister's in turn
for a spell. Under advantage or disadvantage a roll is two d20s, one after the other,
and the kept one is the natural for every rule (:func:`critlab.kernels.d20.roll_d20`).
:func:`trial` is one trial (a label and its values) for generic drivers; :func:`block`
tallies ``n`` of them.

How :func:`block` is fast (the same dice, drawn in the same order, as :func:`trial`):

- the mode is chosen in Python (:func:`path_of`), each mode's loop compiled on its first
  use only (:class:`critlab.kernels.jit.Paths`), with every argument read
  into a scalar first (passing the argument tuple, which holds arrays, into inlined code
  leaves reference-count calls in the loop);
- where a trial's result depends only on its naturals, the loop counts the naturals (or
  pairs of naturals) it drew and the rules are applied once per distinct natural at the
  end of the block, weighted by its count; where the result decides which dice come
  next (combat) or is needed per trial (a spell's resisters), it is looked up in a
  table of the 400 pairs that the block builds with the same rule functions;
- counters are kept in registers and histogram offsets read once, as scalars.
"""

from __future__ import annotations

import numpy as np

from critlab.kernels.d20 import roll_d20
from critlab.kernels.dice import local_scratch
from critlab.kernels.fast_dice import roll_planned
from critlab.kernels.jit import Paths, kernel
from critlab.kernels.rng import local_state
from critlab.kernels.vocab.crits_cats import (  # noqa: F401  (re-exported: the kernel's names)
    ANY,
    N_CLASSES,
    PAIRS,
    Args,
    AttackRoll,
    Counter,
    Hist,
    Mode,
    Outcome,
)


# -- the rules, on scalars ------------------------------------------------------------------
@kernel(inline="always")
def natural_kind(natural, crit_lo, cat_hi):
    """+1 for a natural in the crit range (>= ``crit_lo``), −1 in the catastrophe range
    (<= ``cat_hi``), else 0 (the ranges never overlap)."""
    return int(natural >= crit_lo) - int(natural <= cat_hi)


@kernel(inline="always")
def classify(kind, margin, major_margin, succeeded):
    """The class of a roll: a critical or catastrophe by ``kind`` (major by ``margin``),
    otherwise success or failure as ``succeeded`` says. Written as selects: whether a
    roll succeeds is a coin flip that a branch would mispredict."""
    label = Outcome.SUCCESS if succeeded else Outcome.FAILURE
    crit = Outcome.MAJOR_CRITICAL if margin >= major_margin else Outcome.MINOR_CRITICAL
    cat = Outcome.MAJOR_CATASTROPHE if -margin >= major_margin else Outcome.MINOR_CATASTROPHE
    label = crit if kind > 0 else label
    return cat if kind < 0 else label


@kernel(inline="always")
def versus_label(initiator, responder, crit_lo, cat_hi, edge, transfer, ties_initiator, major_margin):
    """The initiator's class for a pair of naturals; ``edge`` = skill − opposing skill."""
    kind = natural_kind(initiator, crit_lo, cat_hi)
    if transfer:
        # The responder's crit is the initiator's catastrophe and vice versa;
        # opposite pulls cancel, equal ones stand.
        pull = kind - natural_kind(responder, crit_lo, cat_hi)
        kind = int(pull > 0) - int(pull < 0)
    margin = initiator - responder + edge
    return classify(kind, margin, major_margin, margin > 0 or (margin == 0 and ties_initiator))


@kernel(inline="always")
def challenge_label(natural, bonus, against, crit_lo, cat_hi, major_margin):
    """The class of a challenge roll ``natural + bonus`` against the total ``against``."""
    margin = natural + bonus - against
    return classify(natural_kind(natural, crit_lo, cat_hi), margin, major_margin, margin >= 0)


@kernel(inline="always")
def attack_roll(label, minor_hit):
    """The dice a versus attack of class ``label`` rolls (an :data:`AttackRoll`): its
    damage on a success, the defender's backlash on a major catastrophe or a minor one
    that hits back, else none."""
    if label == Outcome.SUCCESS:
        return AttackRoll.DAMAGE
    if label == Outcome.MAJOR_CATASTROPHE or (label == Outcome.MINOR_CATASTROPHE and minor_hit):
        return AttackRoll.BACKLASH
    return AttackRoll.NONE


@kernel(inline="always")
def attack_result(label, rolled, dmg_max, protection, attacker_protection, minor_hit):
    """What a versus attack of class ``label`` deals, ``(damage, backlash, down)``, given
    the roll (floored at 0) that :func:`attack_roll` called for. The caller rolls it:
    dice arrays passed down through two inlined functions are reference-counted on every
    trial."""
    damage = 0
    backlash = 0
    down = 0
    if label == Outcome.SUCCESS:
        damage = max(0, rolled - protection)
    elif label == Outcome.MINOR_CRITICAL:
        damage = dmg_max
    elif label == Outcome.MAJOR_CRITICAL:
        damage = 2 * dmg_max
    elif label == Outcome.MINOR_CATASTROPHE:
        if minor_hit:
            backlash = max(0, rolled - attacker_protection)
        else:
            down = 1
    elif label == Outcome.MAJOR_CATASTROPHE:
        down = 1
        backlash = rolled
    return damage, backlash, down


@kernel(inline="always")
def floored(s, simple, count, sides, explode_at, terms, constant, scratch):
    """One damage or backlash roll by its plan (see :mod:`critlab.kernels.fast_dice`),
    floored at 0 (docs/rules.md: damage is never negative): simple dice by a loop over
    scalars, and without the interpreter compiled where every roll is simple."""
    return max(0, roll_planned(s, simple, count, sides, explode_at, terms, constant, scratch))


# -- one trial ------------------------------------------------------------------------------
@kernel(inline="always")
def trial(s, a, scratch):
    """One trial: ``(label, damage, backlash, down, resister, seen, affected)``.

    ``damage``, ``backlash`` and ``down`` are a versus attack's (0 without one);
    ``resister`` is the first resister's class (−1 outside a spell), bit ``k`` of
    ``seen`` is set when some resister got class ``k``, and ``affected`` counts the
    resisters affected.
    """
    damage = 0
    backlash = 0
    down = 0
    resister = -1
    seen = 0
    affected = 0
    if a.mode == Mode.VERSUS:
        initiator = roll_d20(s, a.roll)
        responder = roll_d20(s, a.opposing_roll)
        label = versus_label(
            initiator, responder, a.crit_lo, a.cat_hi, a.skill - a.opposing_skill, a.transfer,
            a.ties_initiator, a.major_margin,
        )  # fmt: skip
        if a.combat:
            which = attack_roll(label, a.minor_hit)
            rolled = 0
            if which == AttackRoll.DAMAGE:
                rolled = floored(
                    s,
                    a.dmg_simple,
                    a.dmg_count,
                    a.dmg_sides,
                    a.dmg_explode,
                    a.dmg_terms,
                    a.dmg_const,
                    scratch,
                )
            elif which == AttackRoll.BACKLASH:
                rolled = floored(
                    s, a.bl_simple, a.bl_count, a.bl_sides, a.bl_explode, a.bl_terms, a.bl_const, scratch
                )
            damage, backlash, down = attack_result(
                label, rolled, a.dmg_max, a.protection, a.attacker_protection, a.minor_hit
            )
    elif a.mode == Mode.CHALLENGE:
        label = challenge_label(roll_d20(s, a.roll), a.skill, a.target, a.crit_lo, a.cat_hi, a.major_margin)
    else:
        natural = roll_d20(s, a.roll)
        label = challenge_label(natural, a.skill, a.target, a.crit_lo, a.cat_hi, a.major_margin)
        caster_total = natural + a.skill
        cast = label >= Outcome.SUCCESS
        for i in range(a.resisters):
            r_label = challenge_label(
                roll_d20(s, a.opposing_roll), a.resistance, caster_total, a.crit_lo, a.cat_hi, a.major_margin
            )
            if i == 0:
                resister = r_label
            seen |= 1 << r_label
            if cast and r_label < Outcome.SUCCESS:
                affected += 1
    return label, damage, backlash, down, resister, seen, affected


# -- the tally --------------------------------------------------------------------------------
@kernel(inline="always")
def bin_of(value, lo, n_bins):
    """The bin of ``value`` in a histogram of ``n_bins`` bins from ``lo``; the tail bin
    (``n_bins``) for a value outside them (see :mod:`critlab.kernels.bins`)."""
    i = value - lo
    return i if 0 <= i < n_bins else n_bins


@kernel(inline="always")
def hist_slot(layout, hist):
    """``(start, lo, n_bins)`` of histogram ``hist``, read once into scalars."""
    base = 2 + 3 * hist
    return layout[base], layout[base + 1], layout[base + 2]


# A spell's pair table: a class's bit below AFFECTED_BIT, the affected flag at it. The
# flags are summed in the word's upper half (one add a resister, not a shift and an add):
# the class bits below add up to at most 100 resisters * 2**5 a cast, 2**22 in the
# _SEEN_SUMMED casts of a sum, and never reach it.
AFFECTED_BIT = 32
CLASS_BITS = (1 << N_CLASSES) - 1
# The casts that saw each class, summed in one word: a field of _SEEN_BITS bits a class
_SEEN_BITS = 64 // N_CLASSES
_SEEN_SUMMED = (1 << _SEEN_BITS) - 1  # casts summed before a field could carry into the next

# A block's paths (see critlab.kernels.jit.Paths), one per mode, versus with combat apart.
VERSUS, ATTACKS, CHALLENGE, SPELL = "versus", "attacks", "challenge", "spell"


def path_of(a):
    """The path of a block over arguments ``a``."""
    if a.mode == Mode.VERSUS:
        return ATTACKS if a.combat else VERSUS
    return CHALLENGE if a.mode == Mode.CHALLENGE else SPELL


def _block(s, n, out, layout, a):
    """Tally ``n`` trials into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    # the attacks' dice arrays handed over as arguments of their own (see attacks_block);
    # the other paths are kernels taking the block's arguments, run as they are
    attacks_block(s, n, out, layout, a, a.dmg_terms, a.bl_terms)


@kernel
def versus_block(s, n, out, layout, a):
    """Versus without combat: the pairs of naturals counted, each pair judged once."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    roll, opposing_roll = a.roll, a.opposing_roll
    pairs = np.zeros(PAIRS, dtype=np.int64)
    for _ in range(n):
        initiator = roll_d20(s, roll)
        responder = roll_d20(s, opposing_roll)
        pairs[20 * initiator + responder - 21] += 1
    edge = a.skill - a.opposing_skill
    for p in range(PAIRS):
        label = versus_label(
            p // 20 + 1, p % 20 + 1, a.crit_lo, a.cat_hi, edge, a.transfer, a.ties_initiator, a.major_margin
        )
        out[label] += pairs[p]


@kernel
def versus_table(a):
    """The initiator's class for each pair of naturals (index as in :data:`PAIRS`)."""
    table = np.empty(PAIRS, dtype=np.int64)
    edge = a.skill - a.opposing_skill
    for p in range(PAIRS):
        table[p] = versus_label(
            p // 20 + 1, p % 20 + 1, a.crit_lo, a.cat_hi, edge, a.transfer, a.ties_initiator, a.major_margin
        )
    return table


@kernel
def attacks_block(s, n, out, layout, a, dmg_terms, bl_terms):
    """Versus with damage: each pair's class looked up, then the dice it calls for."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    roll, opposing_roll = a.roll, a.opposing_roll
    scratch = local_scratch()
    table = versus_table(a)
    # the dice arrive as arguments of their own, rolled here and not in a helper: an
    # array read out of ``a``, or passed into nested inlined code, is reference-counted
    # on every trial
    dmg_const, dmg_max, protection = a.dmg_const, a.dmg_max, a.protection
    bl_const, attacker_protection, minor_hit = a.bl_const, a.attacker_protection, a.minor_hit
    dmg_simple, dmg_count, dmg_sides, dmg_explode = a.dmg_simple, a.dmg_count, a.dmg_sides, a.dmg_explode
    bl_simple, bl_count, bl_sides, bl_explode = a.bl_simple, a.bl_count, a.bl_sides, a.bl_explode
    d_start, d_lo, d_bins = hist_slot(layout, Hist.DAMAGE)
    b_start, b_lo, b_bins = hist_slot(layout, Hist.BACKLASH)
    damage_sum = 0
    backlash_sum = 0
    downs = 0
    for _ in range(n):
        initiator = roll_d20(s, roll)
        responder = roll_d20(s, opposing_roll)
        label = table[20 * initiator + responder - 21]
        which = attack_roll(label, minor_hit)
        rolled = 0
        if which == AttackRoll.DAMAGE:
            rolled = floored(s, dmg_simple, dmg_count, dmg_sides, dmg_explode, dmg_terms, dmg_const, scratch)
        elif which == AttackRoll.BACKLASH:
            rolled = floored(s, bl_simple, bl_count, bl_sides, bl_explode, bl_terms, bl_const, scratch)
        damage, backlash, down = attack_result(
            label, rolled, dmg_max, protection, attacker_protection, minor_hit
        )
        out[label] += 1
        out[d_start + bin_of(damage, d_lo, d_bins)] += 1
        out[b_start + bin_of(backlash, b_lo, b_bins)] += 1
        damage_sum += damage
        backlash_sum += backlash
        downs += down
    counters = layout[2 + 3 * layout[1]]
    out[counters + Counter.DAMAGE_SUM] += damage_sum
    out[counters + Counter.BACKLASH_SUM] += backlash_sum
    out[counters + Counter.DOWN] += downs


@kernel
def challenge_block(s, n, out, layout, a):
    """A 21 Challenge: the naturals counted, each judged once. Two trials in a row are
    counted as one pair of naturals, so a trial costs half a count: a d20 costs little more
    than a count's load and store (share of the dice floor, 1 thread, 31 alternating
    calls: 0.81 -> 0.88)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    roll = a.roll
    pairs = np.zeros(PAIRS, dtype=np.int64)  # index as in PAIRS: the first trial's natural, the second's
    for _ in range(n // 2):
        first = roll_d20(s, roll)
        pairs[20 * first + roll_d20(s, roll) - 21] += 1
    naturals = np.zeros(20, dtype=np.int64)
    if n % 2:
        naturals[roll_d20(s, roll) - 1] += 1
    for p in range(PAIRS):
        naturals[p // 20] += pairs[p]
        naturals[p % 20] += pairs[p]
    for v in range(20):
        out[challenge_label(v + 1, a.skill, a.target, a.crit_lo, a.cat_hi, a.major_margin)] += naturals[v]


@kernel
def spell_block(s, n, out, layout, a):
    """A spell: each resister's class looked up by the pair (caster natural, resister
    natural), its bit and whether it is affected in one word; the first resister's pairs
    counted (their rows are the caster's naturals, summed at the end), the classes seen
    summed in a word."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    roll, opposing_roll = a.roll, a.opposing_roll
    # per pair: the bit of the resister's class, plus 1 << AFFECTED_BIT where it is affected
    # (one table read a resister: its bits or'ed into the classes seen, the affected
    # counted by a shift; measured against two tables read, a table each)
    pair_bits = np.empty(PAIRS, dtype=np.int64)
    classes = np.empty(PAIRS, dtype=np.int64)
    for p in range(PAIRS):
        caster = p // 20 + 1
        cast = (
            challenge_label(caster, a.skill, a.target, a.crit_lo, a.cat_hi, a.major_margin) >= Outcome.SUCCESS
        )
        c = challenge_label(p % 20 + 1, a.resistance, caster + a.skill, a.crit_lo, a.cat_hi, a.major_margin)
        classes[p] = c
        pair_bits[p] = (1 << c) + (np.int64(cast and c < Outcome.SUCCESS) << AFFECTED_BIT)
    firsts = np.zeros(PAIRS, dtype=np.int64)  # the first resister's pairs (their rows: the casters)
    # per set of classes seen, a 1 in the field of each class in it, summed in a register
    # where the casts were counted in memory by their set; with the affected flags summed
    # by one add a resister (1 thread, 31 alternating calls, median share of the dice
    # floor: 0.77 -> 0.81)
    spread = np.zeros(1 << N_CLASSES, dtype=np.int64)
    for m in range(1 << N_CLASSES):
        for c in range(N_CLASSES):
            spread[m] += ((m >> c) & 1) << (_SEEN_BITS * c)
    any_seen = np.zeros(N_CLASSES, dtype=np.int64)
    others = a.resisters - 1
    affected = 0
    for done in range(0, n, _SEEN_SUMMED):
        seens = flags = 0
        for _ in range(min(n - done, _SEEN_SUMMED)):
            row = 20 * roll_d20(s, roll) - 21
            p = row + roll_d20(s, opposing_roll)
            firsts[p] += 1
            t = pair_bits[p]
            seen = t
            flags += t
            for _ in range(others):
                t = pair_bits[row + roll_d20(s, opposing_roll)]
                seen |= t
                flags += t
            seens += spread[seen & CLASS_BITS]
        affected += flags >> AFFECTED_BIT
        for c in range(N_CLASSES):
            any_seen[c] += seens >> (_SEEN_BITS * c) & _SEEN_SUMMED
    for v in range(20):
        casters = 0
        for r in range(20):
            casters += firsts[20 * v + r]
        out[challenge_label(v + 1, a.skill, a.target, a.crit_lo, a.cat_hi, a.major_margin)] += casters
    r_start, r_lo, r_bins = hist_slot(layout, Hist.RESISTER)
    for p in range(PAIRS):
        out[r_start + bin_of(classes[p], r_lo, r_bins)] += firsts[p]
    counters = layout[2 + 3 * layout[1]]
    for c in range(N_CLASSES):
        out[counters + ANY + c] += any_seen[c]
    out[counters + Counter.AFFECTED] += affected


@kernel
def trial_block(s, n, out, layout, a):
    """The tally of :func:`block` built from :func:`trial`, one trial at a time: the
    reference the tests hold :func:`block` to (same seed, same counts)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    counters = layout[2 + 3 * layout[1]]
    for _ in range(n):
        label, damage, backlash, down, resister, seen, affected = trial(s, a, scratch)
        out[label] += 1
        if a.combat:
            start, lo, n_bins = hist_slot(layout, Hist.DAMAGE)
            out[start + bin_of(damage, lo, n_bins)] += 1
            start, lo, n_bins = hist_slot(layout, Hist.BACKLASH)
            out[start + bin_of(backlash, lo, n_bins)] += 1
            out[counters + Counter.DAMAGE_SUM] += damage
            out[counters + Counter.BACKLASH_SUM] += backlash
            out[counters + Counter.DOWN] += down
        elif a.mode == Mode.SPELL:
            start, lo, n_bins = hist_slot(layout, Hist.RESISTER)
            out[start + bin_of(resister, lo, n_bins)] += 1
            for c in range(N_CLASSES):
                out[counters + ANY + c] += (seen >> c) & 1
            out[counters + Counter.AFFECTED] += affected


block = Paths(
    _block, path_of, paths=(VERSUS, ATTACKS, CHALLENGE, SPELL),
    kernels={VERSUS: versus_block, CHALLENGE: challenge_block, SPELL: spell_block},
)  # fmt: skip
