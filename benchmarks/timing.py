"""Timing helpers of ``make bench``: trials per second, best wall times, and first calls
in a fresh process (for libraries that memoise)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def rate(fn: Callable[[int], object], *, start: int, min_seconds: float, repeats: int = 3) -> float:
    """Median trials/s of ``fn(n)`` over ``repeats`` calls, with ``n`` grown until one call
    takes ``min_seconds``."""
    n, elapsed = _sized(fn, start=start, min_seconds=min_seconds)
    times = [elapsed]
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        fn(n)
        times.append(time.perf_counter() - t0)
    return n / float(np.median(times))


def _sized(fn: Callable[[int], object], *, start: int, min_seconds: float) -> tuple[int, float]:
    """``(n, seconds)``: the ``n`` at which one call of ``fn(n)`` takes at least
    ``min_seconds`` (at most 10^11), and that call's seconds."""
    fn(min(start, 1000))  # compile / warm caches outside the timing
    n = start
    while True:
        t0 = time.perf_counter()
        fn(n)
        elapsed = time.perf_counter() - t0
        if elapsed >= min_seconds or n >= 10**11:
            return n, elapsed
        n *= max(2, min(16, int(min_seconds / max(elapsed, 1e-4)) + 1))


def share(
    fn: Callable[[int], object],
    floor: Callable[[int], object],
    *,
    start: int,
    min_seconds: float,
    pairs: int = 7,
) -> tuple[float, float, float]:
    """``(share, rate of fn, rate of floor)``: the median over ``pairs`` of ``fn``'s
    trials/s over ``floor``'s, each pair timed back to back.

    Why alternate: on the shared 2-core machine the speed of one core drifts by a third
    within a minute (the regular contest timed against its floor a minute apart read
    0.66 in one run and 0.94 in another); a kernel and its floor timed one after the
    other see the same machine, so their ratio keeps what the kernel costs and loses the
    drift."""
    n_fn, _ = _sized(fn, start=start, min_seconds=min_seconds)
    n_floor, _ = _sized(floor, start=start, min_seconds=min_seconds)
    ratios, ours, theirs = [], [], []
    for _ in range(pairs):
        t0 = time.perf_counter()
        fn(n_fn)
        t1 = time.perf_counter()
        floor(n_floor)
        t2 = time.perf_counter()
        ours.append(n_fn / (t1 - t0))
        theirs.append(n_floor / (t2 - t1))
        ratios.append(ours[-1] / theirs[-1])
    return float(np.median(ratios)), float(np.median(ours)), float(np.median(theirs))


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

    import critlab.analysis.dice.notation  # noqa: F401
    import critlab.kernels.pools  # noqa: F401


def seconds(fn: Callable[[], object], repeats: int = 5, min_total: float = 0.02) -> float:
    """Best wall time of ``fn()`` over at least ``repeats`` calls and at least
    ``min_total`` seconds of them (the first call, which may compile, is not counted).

    Why the floor on the total: an exact case of tens of microseconds timed five times
    read 1.5x its steady time on the shared machine, after a process was spawned for
    icepool (the same call, timed in a loop: 0.13 ms against 0.146-0.21 ms); a few
    hundred calls find its time, where five find the machine's noise. A case of a
    few milliseconds or more is still timed ``repeats`` times."""
    fn()
    best = float("inf")
    calls, spent = 0, 0.0
    while calls < repeats or (spent < min_total and calls < 10_000):
        t0 = time.perf_counter()
        fn()
        took = time.perf_counter() - t0
        best, calls, spent = min(best, took), calls + 1, spent + took
    return best
