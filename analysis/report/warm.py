"""The report's simulators compiled side by side before the report runs.

A report's validations compile each system's Numba kernel on first use, one after the
other: on a cold cache that is most of a report's time, on one core. Compiling them first
in a pool of processes, one system per task, puts every core to work; the kernels are
cached on disk (``cache=True``), so the report then loads them in a fraction of a second.
On a warm cache the pool only loads the cached kernels and runs a few trials, a second
or two. Nothing here decides a number: a task that fails is ignored, and the report's own
simulation then compiles (or fails) as it always would.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

from critlab.analysis.report.config import ReportConfig, ValidationSection

# Trials a warm-up simulation runs: enough for every block path, cheap to discard.
WARM_TRIALS = 64


def _warm(system: str, specs: list[Any]) -> str:
    """Simulate each spec a few trials (in a worker process): compiles and caches the kernel."""
    from critlab.analysis.systems import get_system

    sim = get_system(system)
    for spec in specs:
        sim.simulate(spec, trials=WARM_TRIALS, seed=0, threads=1, progress=False)
    return system


def cached(system: str) -> bool:
    """Whether the system's block kernel has a fresh Numba cache index (one stamped with
    today's kernel sources: see :mod:`critlab.kernels.jit`)."""
    from critlab.analysis.systems import get_system
    from critlab.analysis.systems.base import needs_compiling

    try:
        block = get_system(system).simulator.block
    except (AttributeError, KeyError):
        return False
    return not needs_compiling(block)


def warm_kernels(cfg: ReportConfig, say: Callable[[str], None], jobs: int | None = None) -> int:
    """Compile the kernels of every system the configuration validates whose kernel is
    not cached yet, ``jobs`` (default: the cores) at a time; returns how many systems
    were warmed (0 on one core, or when every kernel is cached)."""
    by_system: dict[str, list[Any]] = {}
    for block in cfg.systems:
        for section in block.sections:
            if isinstance(section, ValidationSection) and not cached(section.system):
                by_system.setdefault(section.system, []).append(section.spec)
    jobs = min(jobs or os.cpu_count() or 1, len(by_system))
    if jobs < 2:
        return 0  # one core or one system: compiling in the report itself costs the same
    say(
        f"compiling the simulators of {len(by_system)} systems, {jobs} at a time (cached after the first run)"
    )
    done = 0
    try:
        # spawn: a clean interpreter per worker, never a fork of this one's threads
        with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_warm, name, specs) for name, specs in by_system.items()]
            for f in futures:
                try:
                    f.result()
                    done += 1
                except Exception:  # the report's own simulation will say what is wrong
                    pass
    except (OSError, RuntimeError):  # no processes to be had: compile in the report itself
        return done
    return done
