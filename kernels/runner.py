"""The one runner every simulator uses: fixed blocks, a thread pool, progress, Ctrl-C.

``trials`` is split into blocks of :data:`BLOCK_TRIALS` (the last one shorter). Block
``b`` draws from its own stream, derived from ``(seed, b)``, and tallies into its own
small int64 array; the arrays are summed. Block boundaries and streams never depend on
the number of threads and integer sums do not depend on order, so a seed gives the same
tallies bit for bit on 1 thread, all cores, or a cluster.

Why a thread pool over ``nogil`` kernels and not one ``prange`` loop: it runs the same
blocks on all cores, and between blocks Python regains control to update a progress
bar, honour Ctrl-C, and the very same block function can be shipped to other machines
(:mod:`critlab.kernels.cluster`, chosen by the caller; this module never imports it).
Memory is flat: only ``threads * 2`` small tallies are alive.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Trials per block. Large enough that the Python call per block (~10 µs) is lost in the
# block's ~5 ms of work, small enough that a 10^6-trial run still spreads over 2 cores.
BLOCK_TRIALS = 1 << 18
# blocks whose streams are derived in one go (a microsecond each, where one alone takes 20)
STATES_AT_ONCE = 256

BlockFn = Callable[[np.ndarray, int, np.ndarray], None]
"""``block(state, n_trials, out)``: simulate ``n_trials`` from stream ``state`` into ``out``."""


def resolve_seed(seed: object) -> int:
    """The seed to record: ``seed`` itself, 63 fresh bits from the OS when ``None``, or
    63 bits drawn from a ``numpy.random.Generator`` or ``SeedSequence`` (scientific
    Python's SPEC 7), so that every result names an integer seed that reproduces it.

    >>> resolve_seed(7)
    7
    >>> resolve_seed(np.random.SeedSequence(1)) == resolve_seed(np.random.SeedSequence(1))
    True
    """
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63, dtype=np.uint64))
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def default_threads() -> int:
    """Numba's thread count (``numba.set_num_threads`` governs it), else the core count."""
    try:
        import numba

        return int(numba.get_num_threads())
    except Exception:  # pragma: no cover - numba always present in practice
        return os.cpu_count() or 1


def block_sizes(trials: int, block_trials: int = BLOCK_TRIALS) -> list[int]:
    """The trial count of each block.

    >>> block_sizes(10, 4)
    [4, 4, 2]
    """
    full, rest = divmod(int(trials), block_trials)
    return [block_trials] * full + ([rest] if rest else [])


def run_block(block: BlockFn, n_out: int, seed: int, index: int, n: int) -> np.ndarray:
    """Run one block into a fresh tally (the unit of work, locally or on a cluster)."""
    from critlab.kernels.rng import stream_state  # Numba loads where blocks run, not at import

    out = np.zeros(n_out, dtype=np.int64)
    block(stream_state(seed, index), n, out)
    return out


def _progress_bar(total: int, progress: bool | None, desc: str, unit: str = "trial"):
    """A tqdm bar of ``total`` units, or None: ``progress`` True always, False never,
    None only on a terminal. Trials are shown scaled (1.2M), other units as counted."""
    if progress is False:
        return None
    if progress is None and not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm

    # delay: runs shorter than about a second never draw a bar.
    return tqdm(
        total=total, unit=unit, unit_scale=unit == "trial", desc=desc or "simulating", delay=1.0, leave=False
    )


def run_blocks(block: BlockFn, n_out: int, states: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """Run several blocks, each from its own precomputed stream state, into one fresh
    tally (the unit of work of a thread: a block's kernel adds to ``out``, so the sum is
    the same as one tally per block, with one allocation and one hand-off per task)."""
    out = np.zeros(n_out, dtype=np.int64)
    for state, n in zip(states, sizes, strict=True):
        block(state, n, out)
    return out


def blocks_per_task(n_blocks: int, threads: int) -> int:
    """How many blocks one thread task runs: enough to spread the per-task cost
    (futures, waits, GIL hand-offs: about 100 µs on 2 threads) over several blocks,
    few enough that every thread gets about 8 tasks, so the work stays balanced and
    Ctrl-C and the progress bar stay responsive. Results never depend on it.

    >>> blocks_per_task(3, 2), blocks_per_task(1000, 2), blocks_per_task(10**6, 2)
    (1, 16, 16)
    """
    return max(1, min(16, n_blocks // (8 * threads)))


@dataclass(frozen=True)
class _Job:
    """One run's fixed parts: the block kernel, its tally's length, the seed, every
    block's trial count, the tally being summed into and the progress bar (or None)."""

    block: BlockFn
    n_out: int
    seed: int
    sizes: list[int]
    total: np.ndarray
    bar: Any

    batch: list = field(default_factory=lambda: [0, None])  # [first block, its states]

    def state(self, index: int) -> np.ndarray:
        """Block ``index``'s stream state, derived with the next ``STATES_AT_ONCE`` blocks'
        (the blocks are asked for in order; one batch is kept)."""
        first, states = self.batch
        if states is None or not first <= index < first + STATES_AT_ONCE:
            from critlab.kernels.rng import stream_states  # Numba loads where blocks run, not at import

            first = index
            states = stream_states(self.seed, first, min(STATES_AT_ONCE, len(self.sizes) - first))
            self.batch[:] = first, states
        return states[index - first].copy()

    def advance(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run(
    block: BlockFn,
    *,
    n_out: int,
    trials: int,
    seed: int,
    threads: int | None = None,
    progress: bool | None = None,
    desc: str = "",
    block_trials: int = BLOCK_TRIALS,
) -> np.ndarray:
    """Run ``trials`` trials of ``block`` and return the summed int64 tally.

    Parameters
    ----------
    block
        The block kernel, ``block(state, n_trials, out)``.
    n_out
        Length of the tally array.
    trials
        Total trials (``>= 1``).
    seed
        The run's seed (see :func:`resolve_seed`).
    threads
        Worker threads; default :func:`default_threads`. Results do not depend on it.
    progress
        ``True`` always shows a progress bar, ``False`` never, ``None`` only on a terminal.
    """
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    threads = default_threads() if threads is None else int(threads)
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    sizes = block_sizes(trials, block_trials)
    job = _Job(
        block, n_out, seed, sizes, np.zeros(n_out, dtype=np.int64), _progress_bar(trials, progress, desc)
    )
    if threads == 1 or len(sizes) == 1:
        _run_here(job)
    else:
        _run_pooled(job, threads)
    return job.total


def _run_here(job: _Job) -> None:
    """Every block in turn, in this thread (one thread, or a single block)."""
    try:
        for i, n in enumerate(job.sizes):
            job.block(job.state(i), n, job.total)
            job.advance(n)
    finally:
        job.close()


def _run_pooled(job: _Job, threads: int) -> None:
    """Block 0 here, then the rest on a pool of ``threads``; Ctrl-C cancels what is queued."""
    pending: dict[Future, int] = {}
    _run_first(job)
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="critlab")
    try:
        _run_rest(job, pool, threads, pending)
    except BaseException:
        for fut in pending:
            fut.cancel()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        job.close()


def _run_first(job: _Job) -> None:
    """Block 0, in the main thread, before any worker starts: a first call that compiles
    the kernels (tens of seconds) then compiles where Ctrl-C and SIGTERM land. A worker
    thread busy compiling cannot be stopped, and the pool, like the interpreter on its way
    out, would wait for it. Sums of integers: same tally."""
    try:
        job.block(job.state(0), job.sizes[0], job.total)
    except BaseException:
        job.close()
        raise
    job.advance(job.sizes[0])


def _run_rest(job: _Job, pool: ThreadPoolExecutor, threads: int, pending: dict[Future, int]) -> None:
    """Blocks 1 on, at most ``2 * threads`` tasks in flight, summed as they finish."""
    n_blocks, total = len(job.sizes), job.total
    per_task = blocks_per_task(n_blocks, threads)
    next_block = 1
    while next_block < n_blocks or pending:
        while next_block < n_blocks and len(pending) < 2 * threads:
            indices = range(next_block, min(n_blocks, next_block + per_task))
            # the streams are derived here, in the main thread, while the workers run
            states = [job.state(i) for i in indices]
            sizes = [job.sizes[i] for i in indices]
            fut = pool.submit(run_blocks, job.block, job.n_out, states, sizes)
            pending[fut] = sum(sizes)
            next_block = indices.stop
        # A timeout keeps the main thread responsive to Ctrl-C.
        done, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
        for fut in done:
            total += fut.result()
            job.advance(pending[fut])
            del pending[fut]


def timed(fn: Callable[[], object]) -> tuple[object, float]:
    """Call ``fn`` and return its result and the wall time in seconds."""
    t0 = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t0
