"""The report's simulators compiled side by side before the report runs.

A report's validations compile each system's Numba kernel on first use, one after the
other: on a cold cache that is most of a report's time, on one core. Compiling them first
in a pool of processes, one system per task, puts every core to work; the kernels are
cached on disk (``cache=True``), so the report then loads them in a fraction of a second.
A worker compiles each kernel on zero trials
(:func:`critlab.analysis.systems.warmup.compile_ahead`); where every kernel is cached no
pool is started. Nothing here decides a number: a task that fails is ignored, and the report's own
simulation then compiles (or fails) as it always would.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any

from critlab.analysis.report.config import ReportConfig, ValidationSection
from critlab.analysis.systems.warmup import compile_ahead

_warm = compile_ahead  # what a worker runs: a module of its own, light to import


def cached(system: str, spec: Any) -> bool:
    """Whether the kernel that simulates ``spec`` of ``system`` (its path's, where the
    block compiles per path) has a fresh Numba cache index (one stamped with today's
    kernel sources: see :mod:`critlab.kernels.jit`)."""
    from critlab.analysis.run import needs_compiling
    from critlab.analysis.systems import get_system
    from critlab.kernels.jit import compiled_for

    try:
        sim = get_system(system).simulator
        block = compiled_for(sim.block, sim.args(spec))
    except (AttributeError, KeyError):
        return False
    return not needs_compiling(block)


def warm_kernels(cfg: ReportConfig, say: Callable[[str], None], jobs: int | None = None) -> int:
    """Compile the kernels of every system the configuration validates whose kernel is
    not cached yet, ``jobs`` (default: the cores) at a time, one line on ``say`` as each
    is done (the system, how many of how many, the seconds so far); returns how many
    systems were warmed (0 when every kernel is cached)."""
    by_system: dict[str, list[Any]] = {}
    for block in cfg.systems:
        for section in block.sections:
            if isinstance(section, ValidationSection) and not cached(section.system, section.spec):
                by_system.setdefault(section.system, []).append(section.spec)
    if not by_system:
        return 0
    total, start = len(by_system), time.perf_counter()
    jobs = min(jobs or os.cpu_count() or 1, total)
    systems = f"{total} systems, {jobs} at a time" if jobs > 1 else f"{total} system{'s' * (total > 1)}"
    say(f"compiling the simulators of {systems} (cached after the first run)")

    def compiled(name: str, done: int) -> None:
        say(f"compiled the {name} simulator ({done} of {total}, {time.perf_counter() - start:.0f} s)")

    done = 0
    if jobs < 2:  # one core or one system: compile here, one system after the other
        for name, specs in by_system.items():
            try:
                _warm(name, specs)
            except Exception:  # the report's own simulation will say what is wrong
                continue
            done += 1
            compiled(name, done)
        return done
    try:
        # spawn: a clean interpreter per worker, never a fork of this one's threads
        with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
            futures = {pool.submit(_warm, name, specs): name for name, specs in by_system.items()}
            for f in as_completed(futures):
                try:
                    f.result()
                except Exception:  # the report's own simulation will say what is wrong
                    continue
                done += 1
                compiled(futures[f], done)
    except (OSError, RuntimeError):  # no processes to be had: compile in the report itself
        return done
    return done
