"""Kernel for ``crit-range`` (CRIT and CRITFAIL ranges on a d20).

Each trial rolls the d20 and, on a hit or a CRIT, the damage dice and the CRIT dice one
die at a time (every CRIT die explodes on its maximum, without limit), then applies DT
and DR in integer arithmetic, as a table would. :func:`trial` is one attack or test (a
label and its damage); :func:`block` tallies ``n`` of them, and the weapon's lives read off
the same attacks in order (see :func:`block`).
"""

from __future__ import annotations

from collections import namedtuple

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.d20 import roll_d20
from critlab.kernels.dice import local_scratch, roll_floored
from critlab.kernels.jit import kernel
from critlab.kernels.rng import local_state
from critlab.kernels.vocab import vocabulary

# Both modes count under the same four indices: critfail, miss/failure, hit/success, crit.
AttackOutcome = vocabulary("AttackOutcome", "critfail miss hit crit", module=__name__)
TestOutcome = vocabulary("TestOutcome", "critfail failure success crit", module=__name__)
Mode = vocabulary("Mode", "attack test", module=__name__)
Hist = vocabulary("Hist", "damage crit_bonus attacks_to_break", module=__name__)
Counter = vocabulary("Counter", "damage_sum attacks_sum", module=__name__)

Args = namedtuple(
    "Args",
    "attack roll bonus target crit_from critfail_to dmg_terms dmg_const crit_terms crit_const dt keep den "
    "x_max condition wear_num wear_den",
)
"""The kernel's arguments, built by :mod:`critlab.analysis.systems.crit_range` from a spec:
``roll`` is the d20 roll mode (:data:`critlab.kernels.d20.RollMode`), whose kept die is
the natural for every rule; ``bonus`` / ``target`` are attack_bonus / evasion (or bonus /
difficulty); naturals ``>= crit_from`` are CRITs and ``<= critfail_to`` CRITFAILs;
``keep / den`` is 1 − DR (see :func:`scale_floor`); a block records
``max(1, n * wear_num // wear_den)`` weapon lives of ``condition`` Condition (none when
``wear_num`` is 0; see :func:`block`)."""


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
def trial(s, a, scratch):
    """One attack (or skill test when ``a.attack`` is false): ``(label, damage, crit_bonus)``."""
    natural = roll_d20(s, a.roll)
    damage = 0
    crit_bonus = 0
    if natural <= a.critfail_to:
        label = AttackOutcome.CRITFAIL
    elif natural >= a.crit_from:
        label = AttackOutcome.CRIT
        if a.attack:
            # each damage roll is floored at 0 before DT; CRIT dice come after DT
            after_dt = max(0, roll_floored(s, a.dmg_terms, a.dmg_const, scratch) - a.dt)
            crit_bonus = roll_floored(s, a.crit_terms, a.crit_const, scratch)
            damage = scale_floor(after_dt + crit_bonus, a.keep, a.den, a.x_max)
    elif natural + a.bonus >= a.target:
        label = AttackOutcome.HIT
        if a.attack:
            after_dt = max(0, roll_floored(s, a.dmg_terms, a.dmg_const, scratch) - a.dt)
            damage = scale_floor(after_dt, a.keep, a.den, a.x_max)
    else:
        label = AttackOutcome.MISS
    return label, damage, crit_bonus


@kernel(inline="always")
def _attacks_to_break(s, a, lives, out, layout):
    """Record ``lives`` weapon lives of fresh attacks (their d20s alone: damage does not
    wear a weapon): for each, the attacks until the ``condition``-th CRITFAIL."""
    for _ in range(lives):
        left = a.condition
        used = 0
        while left > 0:
            used += 1
            if roll_d20(s, a.roll) <= a.critfail_to:
                left -= 1
        add_value(out, layout, Hist.ATTACKS_TO_BREAK, used)
        add_counter(out, layout, Counter.ATTACKS_SUM, used)


@kernel
def block(s, n, out, layout, a):
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
    lives = max(1, n * a.wear_num // a.wear_den) if a.wear_num > 0 else 0
    left = a.condition  # Condition of the weapon in use
    used = 0  # attacks made with it
    for _ in range(n):
        label, damage, crit_bonus = trial(s, a, scratch)
        add_label(out, label)
        if a.attack:
            add_value(out, layout, Hist.DAMAGE, damage)
            add_value(out, layout, Hist.CRIT_BONUS, crit_bonus)
            add_counter(out, layout, Counter.DAMAGE_SUM, damage)
        if lives > 0:
            used += 1
            if label == AttackOutcome.CRITFAIL:
                left -= 1
                if left == 0:
                    add_value(out, layout, Hist.ATTACKS_TO_BREAK, used)
                    add_counter(out, layout, Counter.ATTACKS_SUM, used)
                    lives -= 1
                    left = a.condition
                    used = 0
    if lives > 0:  # the weapon in use goes on attacking until it breaks
        while left > 0:
            used += 1
            if roll_d20(s, a.roll) <= a.critfail_to:
                left -= 1
        add_value(out, layout, Hist.ATTACKS_TO_BREAK, used)
        add_counter(out, layout, Counter.ATTACKS_SUM, used)
        _attacks_to_break(s, a, lives - 1, out, layout)
