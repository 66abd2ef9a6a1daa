"""``make bench``: critlab's simulators beside idiomatic NumPy, in one run, as ratios.

For every mechanic (the runtime's primitives and each rule system's
:class:`~critlab.analysis.systems.base.BenchCase`) it measures critlab's trials/s on one thread
and on all threads, and an honest vectorised NumPy version's trials/s, then reports the
ratios; beside them the generator floor (raw 64-bit words/s and bare d20s/s on one and
all threads) and, where a case provides it, the exact engine against icepool (critlab's
exact code timed uncached; icepool's first evaluation in a fresh process, since it
memoises). Machines
are shared and noisy, so only ratios measured in the same run are meaningful; each
figure is the best of a few repeats.

Run ``python -m critlab.analysis.bench [--quick] [--out reports/bench]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from critlab.analysis.systems import registry
from critlab.analysis.systems.base import BenchCase
from critlab.kernels import primitives, runner
from critlab.kernels.rng import xor_u64

D20_TEST = dict(bonus=3, difficulty=11, crit_range=2, critfail_range=1)


def rate(fn: Callable[[int], object], *, start: int, min_seconds: float, repeats: int = 3) -> float:
    """Best trials/s of ``fn(n)``, with ``n`` grown until one call takes ``min_seconds``."""
    fn(min(start, 1000))  # compile / warm caches outside the timing
    n = start
    while True:
        t0 = time.perf_counter()
        fn(n)
        elapsed = time.perf_counter() - t0
        if elapsed >= min_seconds or n >= 10**11:
            break
        n *= max(2, min(16, int(min_seconds / max(elapsed, 1e-4)) + 1))
    best = elapsed
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t0)
    return n / best


def _first_call_seconds(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def cold_seconds(fn: Callable[[], object], repeats: int = 3) -> float:
    """Best wall time of a first call of ``fn()`` in a fresh process.

    icepool memoises evaluations, so its second call of anything is a cache lookup;
    timing the first call in a new process (imports done, caches empty) measures the
    computation. ``fn`` must be a module-level function (it is pickled by reference).
    """
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    best = float("inf")
    for _ in range(repeats):
        with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
            pool.submit(_warm_imports).result()
            best = min(best, pool.submit(_first_call_seconds, fn).result())
    return best


def _warm_imports() -> None:
    import icepool  # noqa: F401

    import critlab.analysis.notation  # noqa: F401
    import critlab.kernels.pools  # noqa: F401


def seconds(fn: Callable[[], object], repeats: int = 5) -> float:
    """Best wall time of ``fn()`` over a few repeats (the first call, which may
    compile, is not counted)."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# -- the primitives ---------------------------------------------------------------------
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
    from critlab.analysis.notation import keep_highest

    return keep_highest.__wrapped__(4, 6, 3)  # uncached: time the computation itself


def _icepool_pool() -> object:
    import icepool

    return icepool.d6.highest(4, 3).probabilities()


def primitive_cases() -> list[BenchCase]:
    return [
        BenchCase("d20 crit-range test (crit range 2, +3 vs 11)", _d20_test, _numpy_d20_test),
        BenchCase("4d6 drop lowest", _pool, _numpy_pool, exact=_exact_pool, icepool=_icepool_pool),
    ]


# -- the generator floor ----------------------------------------------------------------
def _floor_words(trials: int, threads: int) -> np.ndarray:
    def block(state, n, out):
        out[1] ^= np.int64(xor_u64(state, n) & np.uint64(0x7FFFFFFF))
        out[0] += n

    return runner.run(block, n_out=2, trials=trials, seed=1, threads=threads, progress=False)


def _floor_d20(trials: int, threads: int) -> np.ndarray:
    return runner.run(
        primitives.d20_floor_block, n_out=2, trials=trials, seed=1, threads=threads, progress=False
    )


def run_bench(*, quick: bool = False, threads: int | None = None, log=print) -> tuple[pd.DataFrame, dict]:
    """Measure everything; returns the mechanics table and the floor figures."""
    threads = runner.default_threads() if threads is None else threads
    min_s = 0.15 if quick else 0.5
    floor = {
        "u64_per_s_1t": rate(lambda n: _floor_words(n, 1), start=1 << 22, min_seconds=min_s),
        f"u64_per_s_{threads}t": rate(lambda n: _floor_words(n, threads), start=1 << 22, min_seconds=min_s),
        "d20_per_s_1t": rate(lambda n: _floor_d20(n, 1), start=1 << 22, min_seconds=min_s),
        f"d20_per_s_{threads}t": rate(lambda n: _floor_d20(n, threads), start=1 << 22, min_seconds=min_s),
    }
    log("generator floor: " + ", ".join(f"{k} {v / 1e6:,.0f}M" for k, v in floor.items()))
    cases = primitive_cases()
    for system in registry().values():
        cases.extend(system.bench_cases())
    rows = []
    for case in cases:
        one = rate(lambda n, c=case: c.critlab(n, 1), start=1 << 20, min_seconds=min_s)
        many = rate(lambda n, c=case: c.critlab(n, threads), start=1 << 20, min_seconds=min_s)
        base = rate(case.numpy, start=1 << 17, min_seconds=min_s)
        row = {
            "mechanic": case.name,
            "critlab_1t": one,
            f"critlab_{threads}t": many,
            "numpy": base,
            "ratio_vs_numpy": many / base,
            "ratio_1t_vs_numpy": one / base,
            "thread_speedup": many / one,
            "fraction_of_d20_floor_1t": one / floor["d20_per_s_1t"],
        }
        if case.exact is not None and case.icepool is not None:
            ours, theirs = seconds(case.exact), cold_seconds(case.icepool)
            row.update(exact_s=ours, icepool_s=theirs, exact_ratio_vs_icepool=theirs / ours)
        rows.append(row)
        log(f"  {case.name}: {many / 1e6:,.1f}M trials/s on {threads} threads, {many / base:,.1f}x NumPy")
    return pd.DataFrame(rows), floor


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m critlab.analysis.bench", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="shorter timings (noisier)")
    parser.add_argument("--threads", type=int, help="threads for the all-threads column")
    parser.add_argument("--out", default="reports/bench", help="folder for bench.csv and bench.json")
    args = parser.parse_args(argv)
    table, floor = run_bench(quick=args.quick, threads=args.threads, log=lambda m: print(m, file=sys.stderr))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "bench.csv", index=False)
    (out / "bench.json").write_text(
        json.dumps({"floor": floor, "mechanics": table.to_dict(orient="records")}, indent=2)
    )
    shown = table.copy()
    for col in shown.columns:
        if col.startswith(("critlab_", "numpy")):
            shown[col] = shown[col].map(lambda v: f"{v / 1e6:,.1f}M/s")
    pd.set_option("display.width", 200)
    print(shown.to_string(index=False, float_format=lambda v: f"{v:,.3g}"))
    print("floor: " + ", ".join(f"{k} = {v / 1e6:,.0f}M" for k, v in floor.items()))
    print(f"written to {out}/bench.csv and bench.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
