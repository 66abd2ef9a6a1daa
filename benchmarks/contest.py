"""``make bench`` cases of ``contest``: the simulator beside idiomatic NumPy quick and
regular contests, and the exact engine beside icepool."""

from __future__ import annotations

from typing import Any

import numpy as np

from critlab.analysis.systems.base import BenchCase, simulating
from critlab.analysis.systems.contest import SYSTEM, ContestSpec, exact, judge

BENCH_QUICK = dict(a_skill=12, b_skill=10)
BENCH_REGULAR = dict(kind="regular", a_skill=16, b_skill=15)  # ~16 rounds a contest


def _numpy_quick(trials: int, chunk: int = 1 << 20, seed: int = 0, a: int = 12, b: int = 10) -> np.ndarray:
    """An idiomatic vectorised NumPy quick contest: outcome frequencies and margin counts."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(3, dtype=np.int64)
    margins = np.zeros(a - b + 31, dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        roll_a = rng.integers(1, 7, (n, 3)).sum(axis=1)
        roll_b = rng.integers(1, 7, (n, 3)).sum(axis=1)
        ok_a, ok_b = judge(a, roll_a)[0], judge(b, roll_b)[0]
        diff = (a - roll_a) - (b - roll_b)
        a_wins = (ok_a & ~ok_b) | ((ok_a == ok_b) & (diff > 0))
        b_wins = (ok_b & ~ok_a) | ((ok_a == ok_b) & (diff < 0))
        counts += [a_wins.sum(), b_wins.sum(), n - a_wins.sum() - b_wins.sum()]
        margins += np.bincount(diff - (a - b - 15), minlength=margins.size)
    return counts / trials


def _numpy_regular(
    trials: int, chunk: int = 1 << 18, seed: int = 0, a: int = 16, b: int = 15, max_rounds: int = 1000
) -> np.ndarray:
    """An idiomatic vectorised NumPy regular contest: each round rolls only for the
    contests still undecided."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(3, dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        active = np.arange(n)
        winner = np.full(n, 2)
        rounds = np.full(n, max_rounds)
        for r in range(1, max_rounds + 1):
            if not active.size:
                break
            ok_a = judge(a, rng.integers(1, 7, (active.size, 3)).sum(axis=1))[0]
            ok_b = judge(b, rng.integers(1, 7, (active.size, 3)).sum(axis=1))[0]
            decided = ok_a != ok_b
            winner[active[decided]] = np.where(ok_a[decided], 0, 1)
            rounds[active[decided]] = r
            active = active[~decided]
        counts += np.bincount(winner, minlength=3)
    return counts / trials


def _icepool_quick(a: int = 12, b: int = 10) -> tuple[Any, Any]:
    """The same quick contest in icepool: the outcome die and the margin die."""
    import icepool

    roll = 3 @ icepool.d6

    def succeeds(skill: int, r: int) -> bool:
        return r <= 4 or (r <= skill and r <= 16)

    def outcome(ra: int, rb: int) -> str:
        ok_a, ok_b = succeeds(a, ra), succeeds(b, rb)
        diff = (a - ra) - (b - rb)
        if ok_a != ok_b:
            return "a_wins" if ok_a else "b_wins"
        return "a_wins" if diff > 0 else "b_wins" if diff < 0 else "tie"

    return icepool.map(outcome, roll, roll), (a - roll) - (b - roll)


def bench_cases() -> list[BenchCase]:
    quick, regular = ContestSpec(**BENCH_QUICK), ContestSpec(**BENCH_REGULAR)
    return [
        BenchCase(
            name="contest quick (skills 12 vs 10)",
            critlab=simulating(SYSTEM.simulate, quick),
            numpy=_numpy_quick,
            exact=lambda: exact(quick).distributions["margin"],
            icepool=_icepool_quick,
        ),
        BenchCase(
            name="contest regular (skills 16 vs 15)",
            critlab=simulating(SYSTEM.simulate, regular),
            numpy=_numpy_regular,
        ),
    ]
