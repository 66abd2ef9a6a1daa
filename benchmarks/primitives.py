"""``make bench`` cases of the runtime's primitives: a d20 test and 4d6 drop lowest, each
beside a NumPy version doing the same tally and its own dice floor.

The kernels draw two tests' d20s as one draw over the 400 pairs and a 4d6 as one draw
over its 1296 outcomes (:mod:`critlab.kernels.joint`), so their floors are those draws
(:func:`draws_floor`); the NumPy versions roll die by die, as the rules are written."""

from __future__ import annotations

import numpy as np

from benchmarks import primitive_blocks as primitives
from benchmarks.cases import BenchCase
from critlab.kernels import runner

D20_TEST = dict(bonus=3, difficulty=11, crit_range=2, critfail_range=1)


def _d20_test(trials: int, threads: int) -> np.ndarray:
    a = D20_TEST

    def block(state, n, out):
        primitives.d20_test_block(
            state, n, out, a["bonus"], a["difficulty"], a["crit_range"], a["critfail_range"]
        )

    return runner.run(block, n_out=4, trials=trials, seed=1, threads=threads, progress=False)


def _numpy_d20_test(trials: int, chunk: int = 1 << 20) -> np.ndarray:
    rng = np.random.default_rng(1)
    a = D20_TEST
    counts = np.zeros(4, dtype=np.int64)
    for start in range(0, trials, chunk):
        nat = rng.integers(1, 21, min(chunk, trials - start))
        label = np.select(
            [nat <= a["critfail_range"], nat >= 21 - a["crit_range"], nat + a["bonus"] >= a["difficulty"]],
            [0, 3, 2],
            default=1,
        )
        counts += np.bincount(label, minlength=4)
    return counts


_POOL_LAYOUT = np.array([1, 1, 1, 3, 16, 18], dtype=np.int64)  # label + histogram 3..18 + tail


def _pool(trials: int, threads: int) -> np.ndarray:
    return runner.run(
        lambda st, n, out: primitives.pool_block(st, n, out, _POOL_LAYOUT),
        n_out=18,
        trials=trials,
        seed=1,
        threads=threads,
        progress=False,
    )


def _numpy_pool(trials: int, chunk: int = 1 << 19) -> np.ndarray:
    rng = np.random.default_rng(1)
    counts = np.zeros(19, dtype=np.int64)
    for start in range(0, trials, chunk):
        dice = rng.integers(1, 7, (min(chunk, trials - start), 4))
        counts += np.bincount(dice.sum(axis=1) - dice.min(axis=1), minlength=19)
    return counts


def _exact_pool() -> object:
    from critlab.analysis.dice.notation import keep_highest

    return keep_highest.__wrapped__(4, 6, 3)  # uncached: time the computation itself


def _icepool_pool() -> object:
    import icepool

    return icepool.d6.highest(4, 3).probabilities()


def draws_floor(outcomes: int, trials_per_draw: int):
    """The floor callable of trials drawn ``trials_per_draw`` at a time as one bounded
    draw over ``outcomes``."""

    def run(trials: int, threads: int) -> np.ndarray:
        def block(state, n, out):
            primitives.draws_floor_block(state, n, out, outcomes, trials_per_draw)

        return runner.run(block, n_out=2, trials=trials, seed=1, threads=threads, progress=False)

    return run


def bench_cases() -> list[BenchCase]:
    return [
        BenchCase(
            "d20 crit-range test (crit range 2, +3 vs 11)",
            _d20_test,
            _numpy_d20_test,
            floor=draws_floor(400, 2),
        ),
        BenchCase(
            "4d6 drop lowest",
            _pool,
            _numpy_pool,
            exact=_exact_pool,
            icepool=_icepool_pool,
            floor=draws_floor(1296, 1),
        ),
    ]
