"""``make bench`` cases of ``crit-range``: the simulator beside an idiomatic NumPy attack."""

from __future__ import annotations

import numpy as np

from critlab.analysis.systems.base import BenchCase, simulating
from critlab.analysis.systems.crit_range import SYSTEM, CritRangeSpec

BENCH_SPEC = dict(attack_bonus=3, evasion=11, crit_range=2)


def _numpy_attack(trials: int, chunk: int = 1 << 20, seed: int = 0) -> float:
    """An idiomatic vectorised NumPy version of the same attack (1d10, CRIT 1d6!)."""
    rng = np.random.default_rng(seed)
    total = 0
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        nat = rng.integers(1, 21, n)
        crit = nat >= 19
        hit = (nat > 1) & ~crit & (nat + 3 >= 11)
        dmg = rng.integers(1, 11, n)
        # CRIT dice: re-roll only the dice still showing a 6
        bonus = np.zeros(n, dtype=np.int64)
        rolling = np.flatnonzero(crit)
        while rolling.size:
            face = rng.integers(1, 7, rolling.size)
            bonus[rolling] += face
            rolling = rolling[face == 6]
        total += int(np.where(hit, dmg, 0).sum() + np.where(crit, dmg + bonus, 0).sum())
    return total / trials


def bench_cases() -> list[BenchCase]:
    spec = CritRangeSpec(**BENCH_SPEC)
    return [
        BenchCase(
            name="crit-range d20 attack (crit range 2, +3 vs 11)",
            critlab=simulating(SYSTEM.simulate, spec),
            numpy=_numpy_attack,
        )
    ]
