"""``make bench`` cases of ``thac0``: the simulator beside an idiomatic NumPy attack."""

from __future__ import annotations

import numpy as np

from critlab.analysis.systems.base import BenchCase, simulating
from critlab.analysis.systems.thac0 import SYSTEM, Thac0Spec

BENCH_SPEC = dict(thac0=10, target_ac=0, to_hit=12)  # fumble rerolls happen here


def _numpy_attack(trials: int, chunk: int = 1 << 20, seed: int = 0) -> float:
    """An idiomatic vectorised NumPy version of the same attack (damage 1d8, double)."""
    rng = np.random.default_rng(seed)
    need, to_hit = 10, 12
    total = 0
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        nat = rng.integers(1, 21, n)
        hit_by = nat + to_hit - need
        reroll = rng.integers(1, 21, n)
        fumble_hit = (nat == 1) & (to_hit >= need) & (reroll + to_hit - 20 >= need)
        hit = (nat > 1) & ((hit_by >= 0) | (nat == 20))
        crit = hit & (nat >= 20) & (hit_by >= 5)
        d1 = rng.integers(1, 9, n)
        d2 = rng.integers(1, 9, n)
        dmg = np.where(crit, d1 + d2, np.where(hit, d1, 0)) + fumble_hit * 1
        total += int(dmg.sum())
    return total / trials


def bench_cases() -> list[BenchCase]:
    spec = Thac0Spec(**BENCH_SPEC)
    return [
        BenchCase(
            name="thac0 attack (THAC0 10 vs AC 0, +12)",
            critlab=simulating(SYSTEM.simulate, spec),
            numpy=_numpy_attack,
        )
    ]
