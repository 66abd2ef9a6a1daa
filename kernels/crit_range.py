"""Kernel for ``crit-range`` (CRIT and CRITFAIL ranges on a d20).

Each trial rolls the d20 (both dice under advantage or disadvantage, keeping one) and,
on a hit or a CRIT, the damage dice and the CRIT dice (every CRIT die
explodes on its maximum, without limit), then applies DT and DR in integer arithmetic,
as a table would. :func:`trial` is one attack or test (a label and its damage);
:func:`block` tallies ``n`` of them, and the weapon's lives read off the same attacks in
order.

Why the block is shaped as it is (measured: 34 ns a trial before, 8.5 die by die, 3.5
with the joint draw): the rules take the scalars of :class:`Rules` and *borrowed* views
of the dice arrays (:func:`critlab.kernels.fast_dice.borrowed`), since an owned array
handed to an inlined function is counted in and out with two atomic operations on
every trial; a natural's label is read from a table of the 20 naturals built once per
block by the same :func:`label_of`; counts stay in the kernel's own frame and reach
``out`` once per block. Where the damage dice are simple and not exploding (``1d10``,
``2d6+1``) an attack draws them with its d20 as one draw
(:func:`critlab.kernels.d20.roll_d20_with`: the same dice), counts itself by natural and
damage total, and a hit's damage is worked out once per total at the end of the block;
only CRITs (their CRIT dice) and CRITFAILs (weapon wear) are settled one by one. Other
damage dice are rolled after the d20 by
:func:`critlab.kernels.fast_dice.roll_planned`, as the interpreter rolls them.
"""

from __future__ import annotations

from critlab.kernels.counts import add_to_bin, counter_at, hist_at, kept_label, natural_tables, settle_totals
from critlab.kernels.d20 import roll_d20, roll_d20_counted
from critlab.kernels.dice import local_scratch
from critlab.kernels.fast_dice import borrowed, roll_planned, roll_simple
from critlab.kernels.jit import Paths, kernel
from critlab.kernels.joint import local_table, total_slots
from critlab.kernels.rng import local_state
from critlab.kernels.vocab.crit_range import (  # noqa: F401  (re-exported: the kernel's names)
    CRIT,
    CRITFAIL,
    HIT,
    MISS,
    Args,
    AttackOutcome,
    Counter,
    Hist,
    Mode,
    Rules,
    TestOutcome,
)


@kernel(inline="always")
def scale_floor(x, keep, den, x_max):
    """``floor(x * keep / den)`` exactly, for ``0 <= x``, ``0 <= keep <= den < 2**61``.

    ``keep / den`` is 1 − DR as a reduced fraction. When ``x * keep`` could overflow
    int64 (``x > x_max``) the product is formed bit by bit, keeping the remainder
    below ``den``, so the floor stays exact for any DR of up to 18 decimal places.

    >>> scale_floor(5, 1, 5, 2**62), scale_floor(10**6, 10**18 - 1, 10**18, 9)
    (1, 999999)
    """
    if x <= x_max:
        return (x * keep) // den
    quotient = 0
    remainder = 0
    for bit in range(62, -1, -1):
        quotient *= 2
        remainder *= 2
        if remainder >= den:
            remainder -= den
            quotient += 1
        if (x >> bit) & 1:
            remainder += keep
            if remainder >= den:
                remainder -= den
                quotient += 1
    return quotient


@kernel(inline="always")
def label_of(natural, r):
    """The label of a kept natural (the same indices in test mode)."""
    if natural <= r.critfail_to:
        return CRITFAIL
    if natural >= r.crit_from:
        return CRIT
    if natural + r.bonus >= r.target:
        return HIT
    return MISS


@kernel(inline="always")
def dealt(roll, crit_bonus, r):
    """The damage of a damage roll and a CRIT bonus: the roll floored at 0 before DT, the
    CRIT dice added after DT, the sum reduced by DR rounding down."""
    return scale_floor(max(0, max(0, roll) - r.dt) + crit_bonus, r.keep, r.den, r.x_max)


@kernel(inline="always")
def hit_damage(label, roll, r):
    """The damage of a plain hit whose damage roll is ``roll`` (no CRIT dice)."""
    return dealt(roll, 0, r)


@kernel(inline="always")
def damage_of(s, label, r, dmg_terms, crit_terms, scratch):
    """``(damage, crit_bonus)`` of a hit or a CRIT (see :func:`dealt`): the damage roll,
    then on a CRIT the CRIT dice.

    The damage roll and a CRIT's dice are rolled at one place in a loop, not at one
    place each: every place inlines the interpreter, and the compile time grows with each.
    """
    damage_roll = 0
    crit_bonus = 0
    for which in range(2 if label == CRIT else 1):
        crit = which == 1
        roll = roll_planned(
            s,
            r.crit_simple if crit else r.dmg_simple,
            r.crit_count if crit else r.dmg_count,
            r.crit_sides if crit else r.dmg_sides,
            r.crit_explode if crit else r.dmg_explode,
            crit_terms if crit else dmg_terms,
            r.crit_const if crit else r.dmg_const,
            scratch,
        )
        if crit:
            crit_bonus = max(0, roll)
        else:
            damage_roll = roll
    return dealt(damage_roll, crit_bonus, r), crit_bonus


@kernel(inline="always")
def trial(s, a, scratch):
    """One attack (or skill test when ``a.rules.attack`` is false):
    ``(label, damage, crit_bonus)``."""
    r = a.rules
    label = label_of(roll_d20(s, r.roll), r)
    if r.attack and label >= HIT:
        damage, crit_bonus = damage_of(s, label, r, a.dmg_terms, a.crit_terms, scratch)
        return label, damage, crit_bonus
    return label, 0, 0


@kernel(inline="always")
def _wear(out, l_start, l_lo, l_bins, r, i, left, lives, start, attacks_sum):
    """A CRITFAIL on attack ``i`` of a block: the weapon in use loses a point of
    Condition, and when it breaks its life is counted and the next weapon takes over.
    ``(left, lives, start, attacks_sum)`` after it."""
    left -= 1
    if left == 0:
        add_to_bin(out, l_start, l_lo, l_bins, i + 1 - start, 1)
        attacks_sum += i + 1 - start
        lives -= 1
        left = r.condition
        start = i + 1
    return left, lives, start, attacks_sum


@kernel(inline="always")
def _life(s, r, used, left):
    """Attacks until a weapon with ``left`` Condition, ``used`` attacks old, breaks: it
    goes on attacking (its d20s alone: damage does not wear a weapon)."""
    while left > 0:
        used += 1
        if roll_d20(s, r.roll) <= r.critfail_to:
            left -= 1
    return used


# A block's paths (see critlab.kernels.jit.Paths): a test's d20 alone, an attack whose
# damage dice are drawn with its d20, an attack whose damage dice are rolled after it.
TEST, JOINT, PLANNED = "test", "joint", "planned"
PATH = PLANNED  # bound per path by Paths


def path_of(a):
    """The path of a block over arguments ``a``."""
    r = a.rules
    return TEST if not r.attack else JOINT if r.joint else PLANNED


def _block(s, n, out, layout, a):
    """Tally ``n`` trials into ``out`` (see :mod:`critlab.kernels.bins` for the layout).

    Weapon wear: a trial is one attack, and the block's attacks are one weapon's, then the
    next one's: a weapon is used from the block's first attack until its Condition-th
    CRITFAIL, the breaking attack counted, and the next weapon takes over. The number of
    lives a block records, ``max(1, n * wear_num // wear_den)`` (about as many as its
    attacks hold on average: wear_num / wear_den is P(critfail) / condition), is fixed
    before any die is rolled; a life still unfinished when the block's attacks run out
    goes on with fresh attacks drawn after them, so the per-attack tallies keep the dice
    they always had. The lives are the first ones of a sequence of independent attacks,
    their number fixed in advance, so each is an exact draw of the weapon's life (stopping
    at the block's last attack instead would favour short lives and never see one longer
    than a block). The extra d20s cost little: on average a fraction of a life per block.
    """
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    r = a.rules
    dmg_terms = borrowed(a.dmg_terms)
    crit_terms = borrowed(a.crit_terms)
    labels, seen = natural_tables(label_of, r)  # each natural's label; trials that kept it
    # the layout's offsets as scalars: read once, not reloaded after every count
    d_start, d_lo, d_bins = hist_at(layout, Hist.DAMAGE)
    b_start, b_lo, b_bins = hist_at(layout, Hist.CRIT_BONUS)
    l_start, l_lo, l_bins = hist_at(layout, Hist.ATTACKS_TO_BREAK)
    damage_sum = 0
    attacks_sum = 0
    lives = max(1, n * r.wear_num // r.wear_den) if r.wear_num > 0 else 0
    left = r.condition  # Condition of the weapon in use
    start = 0  # the trial it was first used in
    if PATH == TEST:  # a test: its d20 alone
        for _ in range(n):
            seen[roll_d20(s, r.roll)] += 1
    elif PATH == JOINT:  # the d20 and the damage dice as one draw; hits settled after the loop
        totals = r.joint_totals
        lowest_roll = r.dmg_const + r.dmg_count  # the damage roll of all dice showing 1
        slot = total_slots(r.joint, r.dmg_count, r.dmg_sides)  # a joint outcome's total, less the lowest
        by_total = local_table()  # attacks by (natural - 1) * totals + slot
        for i in range(n):
            natural, above = roll_d20_counted(s, r.roll, r.joint, totals, slot, by_total)
            label = labels[natural]
            if label == CRIT:
                crit_bonus = max(0, roll_simple(s, r.crit_count, r.crit_sides, r.crit_explode, r.crit_const))
                damage = dealt(lowest_roll + above, crit_bonus, r)
                add_to_bin(out, d_start, d_lo, d_bins, damage, 1)
                add_to_bin(out, b_start, b_lo, b_bins, crit_bonus, 1)
                damage_sum += damage
            elif lives > 0 and label == CRITFAIL:
                left, lives, start, attacks_sum = _wear(
                    out, l_start, l_lo, l_bins, r, i, left, lives, start, attacks_sum
                )
        for natural in range(1, 21):  # each hit's damage, once per total
            label = labels[natural]
            _, damage = settle_totals(
                out, d_start, d_lo, d_bins, by_total, totals, natural, seen, label == HIT, hit_damage, label,
                lowest_roll, r,
            )  # fmt: skip
            damage_sum += damage
    else:
        for i in range(n):
            label = kept_label(s, r.roll, labels, seen)
            if label >= HIT:
                damage, crit_bonus = damage_of(s, label, r, dmg_terms, crit_terms, scratch)
                add_to_bin(out, d_start, d_lo, d_bins, damage, 1)
                if label == CRIT:
                    add_to_bin(out, b_start, b_lo, b_bins, crit_bonus, 1)
                damage_sum += damage
            elif lives > 0 and label == CRITFAIL:
                left, lives, start, attacks_sum = _wear(
                    out, l_start, l_lo, l_bins, r, i, left, lives, start, attacks_sum
                )
    hits = 0
    crits = 0
    for natural in range(1, 21):
        out[labels[natural]] += seen[natural]
        hits += seen[natural] if labels[natural] >= HIT else 0
        crits += seen[natural] if labels[natural] == CRIT else 0
    if r.attack:  # every trial that is not a hit or a CRIT deals 0; every non-CRIT adds 0
        add_to_bin(out, d_start, d_lo, d_bins, 0, n - hits)
        add_to_bin(out, b_start, b_lo, b_bins, 0, n - crits)
    if lives > 0:  # the weapon in use goes on until it breaks, then fresh ones
        used = _life(s, r, n - start, left)
        add_to_bin(out, l_start, l_lo, l_bins, used, 1)
        attacks_sum += used
        for _ in range(lives - 1):
            used = _life(s, r, 0, r.condition)
            add_to_bin(out, l_start, l_lo, l_bins, used, 1)
            attacks_sum += used
    out[counter_at(layout, Counter.DAMAGE_SUM)] += damage_sum
    out[counter_at(layout, Counter.ATTACKS_SUM)] += attacks_sum


block = Paths(_block, path_of, paths=(TEST, JOINT, PLANNED))
