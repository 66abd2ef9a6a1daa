"""``make bench`` cases of ``thac0``: the simulator beside NumPy doing the same work (the
same label counts, damage histogram and damage sum), and its own dice floor.

The dice floor (:func:`benchmarks.crit_range.floor_block`) draws an attack's own dice the
same way the kernel draws them: the d20 with simple damage dice as one draw (else the
d20 alone), then on the naturals where the kernel rolls them the fumble reroll (one d20),
the damage dice (again for a doubled critical hit) and the severity dice through
:func:`critlab.kernels.fast_dice.roll_planned`, with no rule and no tally (which naturals
roll which dice is read from a table made here).
"""

from __future__ import annotations

import numpy as np

from benchmarks.cases import BenchCase, simulating
from benchmarks.crit_range import FIRST, REROLL_DIE, SECOND, TWICE, kept_naturals, run_floor
from critlab.analysis.systems.thac0 import LABELS, SYSTEM, Thac0Spec, kernel_args
from critlab.kernels.thac0 import REROLL, CritOption, Outcome, label_of

BENCH_SPEC = dict(thac0=10, target_ac=0, to_hit=12)  # fumble rerolls happen here
CHUNK = 1 << 16


def dice_floor(spec: Thac0Spec):
    """The floor callable (see BenchCase.floor) of ``spec``'s dice: the reroll of a natural
    1 that may hit, one damage roll on a hit or a halved natural 20, two on a doubled
    critical hit, one and the severity dice on a severity one."""
    a = kernel_args(spec)
    r = a.rules
    rolls = np.zeros(21, dtype=np.int64)
    crit = {CritOption.DOUBLE: FIRST | TWICE, CritOption.MAX: 0, CritOption.SEVERITY: FIRST | SECOND}
    for natural in range(1, 21):
        label = label_of(natural, r)
        if label == REROLL:
            rolls[natural] = REROLL_DIE
        elif label in (Outcome.HIT, Outcome.NATURAL20_REDUCED):
            rolls[natural] = FIRST
        elif label == Outcome.CRITICAL_HIT:
            rolls[natural] = crit[r.crit_option]
    dmg = (r.dmg_simple, r.dmg_count, r.dmg_sides, r.dmg_explode, r.dmg_const)
    sev = (r.sev_simple, r.sev_count, r.sev_sides, r.sev_explode, r.sev_const)
    return run_floor(r.roll, r.joint, rolls, dmg, a.dmg_terms, sev, a.sev_terms)


def numpy_attack(roll: str = "normal"):
    """A vectorised NumPy version of the bench attack (THAC0 10 against AC 0, +12, damage
    1d8, criticals doubled; the attacker rolling ``roll``) with critlab's whole tally:
    label counts, the damage histogram and the damage sum."""

    def run(trials: int, chunk: int = CHUNK, seed: int = 0) -> tuple:
        rng = np.random.default_rng(seed)
        need, to_hit = 10, 12
        labels = np.zeros(len(LABELS), dtype=np.int64)
        damage_hist = np.zeros(17, dtype=np.int64)
        damage_sum = 0
        for start in range(0, trials, chunk):
            n = min(chunk, trials - start)
            nat = kept_naturals(rng, n, roll)
            hit_by = nat + to_hit - need
            reroll = rng.integers(1, 21, n)
            fumble_hit = (nat == 1) & (to_hit >= need) & (reroll + to_hit - 20 >= need)
            hit = (nat > 1) & ((hit_by >= 0) | (nat == 20))
            crit = hit & (nat >= 20) & (hit_by >= 5)
            label = np.select(
                [fumble_hit, nat == 1, crit, hit],
                [Outcome.FUMBLE_REROLL_HIT, Outcome.FUMBLE, Outcome.CRITICAL_HIT, Outcome.HIT],
                default=Outcome.MISS,
            )
            labels += np.bincount(label, minlength=len(LABELS))
            d1 = rng.integers(1, 9, n)
            d2 = rng.integers(1, 9, n)
            dmg = np.where(crit, d1 + d2, np.where(hit, d1, 0)) + fumble_hit * 1
            damage_hist += np.bincount(dmg, minlength=17)
            damage_sum += int(dmg.sum())
        return labels, damage_hist, damage_sum

    return run


def bench_cases() -> list[BenchCase]:
    spec = Thac0Spec(**BENCH_SPEC)
    return [
        BenchCase(
            name="thac0 attack (THAC0 10 vs AC 0, +12)",
            critlab=simulating(SYSTEM.simulate, spec),
            numpy=numpy_attack(),
            floor=dice_floor(spec),
        ),
        BenchCase(
            name="thac0 attack with advantage",
            critlab=simulating(SYSTEM.simulate, spec.replace(roll="advantage")),
            numpy=numpy_attack("advantage"),
            floor=dice_floor(spec.replace(roll="advantage")),
        ),
    ]
