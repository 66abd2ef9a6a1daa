"""``make bench`` cases of ``severity``: the simulator beside an idiomatic NumPy contest,
and the exact engine beside icepool."""

from __future__ import annotations

import functools

import numpy as np

from critlab.analysis.dist import Dist
from critlab.analysis.systems import severity as sev
from critlab.analysis.systems.base import BenchCase, simulating
from critlab.analysis.systems.severity import NATURAL_MAX, NATURAL_MIN, SYSTEM, SeveritySpec, exact

BENCH_SKILLS = dict(attacker_skill=5, defender_skill=2)


def _numpy_roll(rng: np.random.Generator, mode: str, n: int) -> np.ndarray:
    """``n`` rolls of ``mode``, vectorised."""
    if mode == "lethal":
        return rng.integers(1, 21, n)
    if mode == "risky":
        return rng.integers(1, 7, (n, 3)).sum(axis=1)
    dice = rng.integers(1, 7, (n, 4))
    return dice.sum(axis=1) - dice.min(axis=1)


def _numpy_contest(trials: int, mode: str, chunk: int = 1 << 20, seed: int = 0) -> np.ndarray:
    """An idiomatic vectorised NumPy version of the contest (default ladder, SM 0, no
    armor, implosions not chained): wound-level counts. Explosion chains are resolved by
    rolling again for the still-pending subset until none is left."""
    rng = np.random.default_rng(seed)
    lo, hi = NATURAL_MIN[mode], NATURAL_MAX[mode]
    thresholds = np.array([t for _, t in sev.parse_ladder(sev.DEFAULT_LADDER)])
    counts = np.zeros(thresholds.size + 1, dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        a, d = _numpy_roll(rng, mode, n), _numpy_roll(rng, mode, n)
        totals = [a + BENCH_SKILLS["attacker_skill"], d + BENCH_SKILLS["defender_skill"]]
        # pending additional rolls per side: its own explosion, the opponent's implosion
        pending = [(a == hi).astype(np.int64) + (d == lo), (d == hi).astype(np.int64) + (a == lo)]
        for total, wait in zip(totals, pending, strict=True):
            idx = np.flatnonzero(wait)
            while idx.size:
                r = _numpy_roll(rng, mode, idx.size)
                total[idx] += r
                wait[idx] += (r == hi).astype(np.int64) - 1
                idx = idx[wait[idx] > 0]
        mov = totals[0] - totals[1]
        level = np.where(mov > 0, np.searchsorted(thresholds, mov, side="right"), 0)
        counts += np.bincount(level, minlength=counts.size)
    return counts


def _icepool_margin(mode: str):
    """The same contest's MoV distribution in icepool (explosions to depth 12)."""
    import icepool

    die = {
        "lethal": icepool.d20,
        "risky": 3 @ icepool.d6,
        "stable": icepool.d6.highest(4, 3),
    }[mode]
    lo, hi = NATURAL_MIN[mode], NATURAL_MAX[mode]
    further = die.explode(depth=12)
    chain = die.map(lambda v: v + further if v == hi else (v - further if v == lo else v))
    return chain - chain + (BENCH_SKILLS["attacker_skill"] - BENCH_SKILLS["defender_skill"])


def bench_cases() -> list[BenchCase]:
    cases = []
    for mode in ("lethal", "stable"):
        spec = SeveritySpec(mode=mode, **BENCH_SKILLS)

        def exact_margin(spec: SeveritySpec = spec) -> Dist:
            sev._chain_difference.cache_clear()  # time the engine, not the cache
            sev.first_roll_chain.cache_clear()
            sev.additional_roll.cache_clear()
            return exact(spec).distributions["margin"]

        cases.append(
            BenchCase(
                name=f"severity {mode} contest (skills 5 vs 2)",
                critlab=simulating(SYSTEM.simulate, spec),
                numpy=lambda trials, mode=mode: _numpy_contest(trials, mode),
                exact=exact_margin,
                icepool=functools.partial(_icepool_margin, mode),  # picklable: timed in a new process
            )
        )
    return cases
