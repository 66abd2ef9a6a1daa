"""Block simulator for ``crit-range`` (CRIT and CRITFAIL ranges; RULES.md, seed 001).

Each trial rolls the d20 and, on a hit or a CRIT, the damage dice and the CRIT dice one
die at a time (every CRIT die explodes on its maximum, without limit), then applies DT
and DR in integer arithmetic, as a table would.
"""

from __future__ import annotations

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import local_scratch, roll_floored
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state

# Outcome indices, in the order of critlab.analysis.systems.crit_range's labels (both modes:
# critfail, miss/failure, hit/success, crit).
CRITFAIL, MISS, HIT, CRIT = 0, 1, 2, 3
# histograms and counters, in the layout's order (attack mode only)
H_DAMAGE, H_CRIT_BONUS = 0, 1
C_DAMAGE_SUM = 0


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


@kernel
def block(
    s,
    n,
    out,
    layout,
    attack,
    bonus,
    target,
    crit_from,
    critfail_to,
    dmg_terms,
    dmg_const,
    crit_terms,
    crit_const,
    dt,
    keep,
    den,
    x_max,
):
    """Simulate ``n`` attacks (or skill tests when ``attack`` is false) into ``out``.

    ``bonus`` / ``target`` are attack_bonus / evasion (or bonus / difficulty); naturals
    ``>= crit_from`` are CRITs and ``<= critfail_to`` CRITFAILs; ``keep / den`` is 1 − DR
    (see :func:`scale_floor`). See :mod:`critlab.kernels.bins` for the layout.
    """
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    for _ in range(n):
        natural = die(s, 20)
        damage = 0
        crit_bonus = 0
        if natural <= critfail_to:
            label = CRITFAIL
        elif natural >= crit_from:
            label = CRIT
            if attack:
                # each damage roll is floored at 0 before DT; CRIT dice come after DT
                after_dt = max(0, roll_floored(s, dmg_terms, dmg_const, scratch) - dt)
                crit_bonus = roll_floored(s, crit_terms, crit_const, scratch)
                damage = scale_floor(after_dt + crit_bonus, keep, den, x_max)
        elif natural + bonus >= target:
            label = HIT
            if attack:
                after_dt = max(0, roll_floored(s, dmg_terms, dmg_const, scratch) - dt)
                damage = scale_floor(after_dt, keep, den, x_max)
        else:
            label = MISS
        add_label(out, label)
        if attack:
            add_value(out, layout, H_DAMAGE, damage)
            add_value(out, layout, H_CRIT_BONUS, crit_bonus)
            add_counter(out, layout, C_DAMAGE_SUM, damage)
