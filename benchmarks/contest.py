"""``make bench`` cases of ``contest``: the simulator beside NumPy quick, resistance and
regular contests doing the same tally, each with its dice floor, and the exact engine
beside icepool."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.cases import BenchCase, simulating
from critlab.analysis.systems.contest import SYSTEM, ContestSpec, exact, judge
from critlab.kernels import runner
from critlab.kernels.contest import ROLL_3D6
from critlab.kernels.jit import kernel
from critlab.kernels.rng import bounded, local_state

BENCH_QUICK = dict(a_skill=12, b_skill=10)
BENCH_RESISTANCE = dict(kind="resistance", a_skill=18, b_skill=12)  # the Rule of 16 caps A at 16
BENCH_REGULAR = dict(kind="regular", a_skill=16, b_skill=15)  # ~16 rounds a contest


def _crits(skill: int, rolls: np.ndarray) -> list[int]:
    _, cs, cf = judge(skill, rolls)
    return [int(cs.sum()), int(cf.sum())]


def _numpy_quick(trials: int, chunk: int = 1 << 16, seed: int = 0, a: int = 12, b: int = 10) -> np.ndarray:
    """An idiomatic vectorised NumPy quick contest doing critlab's work: label counts,
    the margin and degree histograms and the four critical counters, in one array."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(3, dtype=np.int64)
    margins = np.zeros(31, dtype=np.int64)  # m_A - m_B = a - b - 15 .. a - b + 15
    degrees = np.zeros(63, dtype=np.int64)  # -31..31 (a lone success may win by a negative degree)
    crits = np.zeros(4, dtype=np.int64)
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
        degree = np.where(a_wins, diff, np.where(b_wins, -diff, 0))
        degrees += np.bincount(degree + 31, minlength=degrees.size)
        crits += _crits(a, roll_a) + _crits(b, roll_b)
    return np.concatenate([counts, margins, degrees, crits])


def _numpy_resistance(
    trials: int, chunk: int = 1 << 16, seed: int = 0, a: int = 16, b: int = 12
) -> np.ndarray:
    """An idiomatic vectorised NumPy resistance roll (A's skill after the Rule of 16):
    label counts and critical counters (B's only where A's attack succeeded)."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(3, dtype=np.int64)
    crits = np.zeros(4, dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        roll_a = rng.integers(1, 7, (n, 3)).sum(axis=1)
        ok_a = judge(a, roll_a)[0]
        roll_b = rng.integers(1, 7, (int(ok_a.sum()), 3)).sum(axis=1)  # B rolls against attacks only
        ok_b = judge(b, roll_b)[0]
        affected = ~ok_b | ((a - roll_a[ok_a]) > (b - roll_b))
        counts += [n - ok_a.sum(), (~affected).sum(), affected.sum()]
        crits += _crits(a, roll_a) + _crits(b, roll_b)
    return np.concatenate([counts, crits])


def _numpy_regular(
    trials: int, chunk: int = 1 << 16, seed: int = 0, a: int = 16, b: int = 15, max_rounds: int = 1000
) -> np.ndarray:
    """An idiomatic vectorised NumPy regular contest doing critlab's work: each round
    rolls only for the contests still undecided; label counts, the rounds histogram
    (1..max_rounds), the first round's critical counters and the decided contests' rounds."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(3, dtype=np.int64)
    hist = np.zeros(max_rounds + 1, dtype=np.int64)
    crits = np.zeros(4, dtype=np.int64)
    decided_rounds = 0
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        active = np.arange(n)
        winner = np.full(n, 2)
        rounds = np.full(n, max_rounds)
        for r in range(1, max_rounds + 1):
            if not active.size:
                break
            roll_a = rng.integers(1, 7, (active.size, 3)).sum(axis=1)
            roll_b = rng.integers(1, 7, (active.size, 3)).sum(axis=1)
            if r == 1:
                crits += _crits(a, roll_a) + _crits(b, roll_b)
            ok_a, ok_b = judge(a, roll_a)[0], judge(b, roll_b)[0]
            decided = ok_a != ok_b
            winner[active[decided]] = np.where(ok_a[decided], 0, 1)
            rounds[active[decided]] = r
            active = active[~decided]
        counts += np.bincount(winner, minlength=3)
        hist += np.bincount(rounds, minlength=hist.size)
        decided_rounds += int(rounds[winner != 2].sum())
    return np.concatenate([counts, hist, crits, [decided_rounds]])


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


# -- the dice floor ----------------------------------------------------------------------
@kernel
def floor_block(s, n, out):
    """The dice of ``n`` pairs of success rolls with no rule and no tally: two 3d6, each
    one bounded draw over 216 read through the kernel's table, folded with xor into
    ``out[1]`` so that the compiler cannot drop them (``out[0]`` counts the pairs)."""
    s = local_state(s)  # the stream in registers, as in the kernel
    acc = 0
    for _ in range(n):
        acc ^= ROLL_3D6[bounded(s, 216)]
        acc ^= ROLL_3D6[bounded(s, 216)] << 5
    out[0] += n
    out[1] ^= acc


def floor(pairs_per_trial: float = 1.0) -> Callable[[int, int], np.ndarray]:
    """``floor(k)(trials, threads)``: the dice of ``trials`` contests of ``k`` pairs of
    rolls each on average (a regular contest's mean rounds played: its dice are one
    pair a round), run like the simulator. A resistance roll's B rolls only against a
    successful attack; its floor draws both, a little more than its dice."""

    def run(trials: int, threads: int) -> np.ndarray:
        pairs = max(1, round(trials * pairs_per_trial))
        return runner.run(floor_block, n_out=2, trials=pairs, seed=1, threads=threads, progress=False)

    return run


def bench_cases() -> list[BenchCase]:
    quick, resistance = ContestSpec(**BENCH_QUICK), ContestSpec(**BENCH_RESISTANCE)
    regular = ContestSpec(**BENCH_REGULAR)
    rounds = exact(regular).distributions["rounds"]
    return [
        BenchCase(
            name="contest quick (skills 12 vs 10)",
            critlab=simulating(SYSTEM.simulate, quick),
            numpy=_numpy_quick,
            exact=lambda: exact(quick).distributions["margin"],
            icepool=_icepool_quick,
            floor=floor(),
        ),
        BenchCase(
            name="contest resistance (skills 18 vs 12)",
            critlab=simulating(SYSTEM.simulate, resistance),
            numpy=functools.partial(_numpy_resistance, a=resistance.rolled_skills[0]),
            floor=floor(),
        ),
        BenchCase(
            name="contest regular (skills 16 vs 15)",
            critlab=simulating(SYSTEM.simulate, regular),
            numpy=_numpy_regular,
            floor=floor(rounds.mean),
        ),
    ]
