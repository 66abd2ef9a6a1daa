"""Blocks on a Dask cluster, with the same tallies as a local run.

:func:`critlab.kernels.runner.run` hands its blocks here when it is given a ``client`` (a
``dask.distributed.Client``). Each task runs :func:`~critlab.kernels.runner.run_block` for one
block, or a few consecutive blocks when blocks are quick, each with its own index and so
its own stream, and returns their summed int64 tally. A block's numbers never depend on
where or when it runs and integer sums never depend on order, so the total is bit for bit
a local single-thread run's, whatever the number of workers, the completion order or the
workers lost on the way.

Losing a worker costs time, not counts: Dask runs a task whose worker died again
elsewhere, and the block function itself travels as a small task (recomputed too if the
worker holding it dies). Every task's key carries the run's id and its first block, the
client records which blocks each result covers, refuses a second result for the same
blocks and checks that every block arrived before it returns the total.

Only this module and :mod:`critlab.kernels.scheduler` (reaching a cluster for
``--scheduler``) import ``distributed``, and only :mod:`critlab.analysis.design.sweep`, the code
that picks a simulation's client and the command line import them, when given a client.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

try:
    from distributed import Client, as_completed
except ImportError as exc:  # pragma: no cover - the extra is part of critlab[dev]
    raise ImportError("cluster runs need Dask: pip install 'critlab[distributed]'") from exc

from critlab.kernels import runner

# A task should compute for about this long. A task costs client, scheduler and worker
# together about 6 ms of CPU on a 2-worker LocalCluster (benchmarks/cluster.py), so 0.5 s keeps
# that near 1-2%, well under 10%, while a lost task costs little to redo and the progress
# bar still moves every fraction of a second.
TARGET_TASK_SECONDS = 0.5
# Never more blocks than this in one task, whatever the timing says (a guard on the work
# redone when a worker dies).
MAX_BATCH_BLOCKS = 256
# Seconds between looks at how many worker threads the cluster has (workers come and go).
_THREADS_REFRESH_S = 1.0


def batch_blocks(remaining: int, trial_seconds: float | None, block_trials: int, threads: int) -> int:
    """How many consecutive blocks the next task should run.

    Until a task has been timed (``trial_seconds is None``, CPU seconds per trial) a task
    is one block. Then tasks grow to about :data:`TARGET_TASK_SECONDS`, but never beyond
    one worker thread's share of the remaining blocks, so all of them finish together.

    >>> batch_blocks(1000, None, 262144, 2)
    1
    >>> batch_blocks(1000, 2e-8, 262144, 2)    # a 5 ms block: 95 of them make 0.5 s
    95
    >>> batch_blocks(20, 2e-8, 262144, 2)      # the tail is shared among the threads
    10
    >>> batch_blocks(1000, 4e-6, 262144, 2)    # a 1 s block runs alone
    1
    """
    if trial_seconds is None or trial_seconds <= 0:
        return 1
    wanted = int(TARGET_TASK_SECONDS / (trial_seconds * block_trials))
    fair = remaining // max(threads, 1)
    return max(1, min(wanted, fair, MAX_BATCH_BLOCKS))


def check_coverage(covered: dict[int, int], n_blocks: int) -> None:
    """Raise unless the results ``{first block: number of blocks}`` cover blocks
    ``0 .. n_blocks - 1`` exactly once.

    >>> check_coverage({0: 2, 2: 1}, 3)
    >>> check_coverage({0: 2}, 3)
    Traceback (most recent call last):
    ...
    RuntimeError: cluster run lost blocks 2..2 of 3
    """
    expected = 0
    for first in sorted(covered):
        if first != expected:
            lo, hi = min(first, expected), max(first, expected) - 1
            what = "lost" if first > expected else "counted twice"
            raise RuntimeError(f"cluster run {what} blocks {lo}..{hi} of {n_blocks}")
        expected += covered[first]
    if expected != n_blocks:
        raise RuntimeError(f"cluster run lost blocks {expected}..{n_blocks - 1} of {n_blocks}")


def _identity(x: Any) -> Any:
    return x


def _run_blocks(
    block: runner.BlockFn, n_out: int, seed: int, first: int, sizes: Sequence[int]
) -> tuple[np.ndarray, float]:
    """On a worker: blocks ``first, first + 1, ...`` summed, and the CPU seconds they took
    (CPU rather than wall time: a busy machine must not make the next tasks smaller)."""
    t0 = time.thread_time()
    total = np.zeros(n_out, dtype=np.int64)
    for offset, n in enumerate(sizes):
        total += runner.run_block(block, n_out, seed, first + offset, n)
    return total, time.thread_time() - t0


def _worker_threads(client: Client) -> int:
    return sum(client.nthreads().values())


class _ClusterRun:
    """One cluster run's state: the tasks submitted (their first block -> blocks) and
    pending, the results counted, the summed tally, the measured CPU seconds per trial
    that size the next tasks, and the worker threads last seen."""

    def __init__(
        self, client: Client, block: runner.BlockFn, n_out: int, seed: int, sizes: list[int], desc: str
    ) -> None:
        self.client, self.n_out, self.seed, self.sizes = client, n_out, seed, sizes
        self.n_blocks = len(sizes)
        self.block_trials = max(sizes, default=1)
        # The key names the run and its first block: a task Dask runs again after losing a
        # worker computes the same blocks from the same streams, and two runs never share keys.
        self.name = f"critlab-{desc or 'run'}-{uuid.uuid4().hex[:16]}"
        self.kernel = client.submit(_identity, block, key=f"{self.name}-block")
        self.total = np.zeros(n_out, dtype=np.int64)
        self.spans: dict[int, int] = {}  # first block -> blocks, of every task submitted
        self.covered: dict[int, int] = {}  # the same, of every result counted
        self.pending: set[Any] = set()
        self.done = as_completed(with_results=True)
        self.threads, self.looked = max(_worker_threads(client), 1), time.monotonic()
        self.trial_seconds: float | None = None
        self.next_block = 0

    def submit_more(self, block_batch: int | None) -> None:
        """Tasks until two per worker thread are out (one running, one queued): every worker
        busy while the client's memory and the scheduler's queue stay small."""
        while self.next_block < self.n_blocks and len(self.pending) < max(4, 2 * self.threads):
            left = self.n_blocks - self.next_block
            count = block_batch or batch_blocks(left, self.trial_seconds, self.block_trials, self.threads)
            count = min(count, left)
            first = self.next_block
            chunk = self.sizes[first : first + count]
            fut = self.client.submit(
                _run_blocks, self.kernel, self.n_out, self.seed, first, chunk, key=(self.name, first)
            )
            self.spans[first] = count
            self.pending.add(fut)
            self.done.add(fut)
            self.next_block += count

    def count(self, fut: Any, tally: np.ndarray, seconds: float) -> int:
        """Add one task's tally (refusing its blocks a second time) and time it; its trials."""
        self.pending.discard(fut)
        first = fut.key[1]
        count = self.spans[first]
        if first in self.covered:
            raise RuntimeError(f"cluster run got blocks {first}..{first + count - 1} twice")
        self.covered[first] = count
        self.total += tally
        trials = sum(self.sizes[first : first + count])
        # A block too quick for the CPU clock counts as 1 µs: batch it to the limit.
        rate = max(seconds, 1e-6) / trials
        self.trial_seconds = rate if self.trial_seconds is None else min(self.trial_seconds, rate)
        return trials

    def look_again(self) -> None:
        """Workers come and go: count their threads again once a refresh period has passed."""
        if time.monotonic() - self.looked > _THREADS_REFRESH_S:
            self.threads, self.looked = max(_worker_threads(self.client), 1), time.monotonic()


def run_on_client(
    client: Client,
    block: runner.BlockFn,
    *,
    n_out: int,
    seed: int,
    sizes: Sequence[int],
    progress: bool | None = None,
    desc: str = "",
    block_batch: int | None = None,
) -> np.ndarray:
    """Run the blocks ``sizes`` of ``block`` on ``client``'s cluster; the summed tally.

    Parameters
    ----------
    client
        A ``dask.distributed.Client``. Its workers must import critlab (the same
        version) and should have the kernels' Numba cache warm (see docs/scaling-out.md).
    block
        The block kernel, ``block(state, n_trials, out)``; it travels to the workers with
        cloudpickle, so a closure over arrays and kernel modules is fine.
    n_out, seed, sizes
        The tally length, the run's seed and each block's trial count, as in
        :func:`critlab.kernels.runner.run` (block ``i`` draws from stream ``(seed, i)``).
    progress
        ``True`` always shows a progress bar, ``False`` never, ``None`` only on a terminal.
    block_batch
        Blocks per task; by default one at first, then as many as make a task last about
        :data:`TARGET_TASK_SECONDS`. The tally does not depend on it.

    Returns
    -------
    numpy.ndarray
        The int64 tally, identical to ``runner.run(..., threads=1)``.

    Examples
    --------
    >>> from distributed import Client
    >>> from critlab.kernels.runner import block_sizes, run
    >>> def block(state, n, out):
    ...     out[0] += n
    ...     out[1] += int(state[0] % 7)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0") as client:
    ...     counts = run_on_client(client, block, n_out=2, seed=3, sizes=block_sizes(10, 3))
    >>> counts.tolist() == run(block, n_out=2, trials=10, seed=3, threads=1, block_trials=3).tolist()
    True
    """
    if block_batch is not None and block_batch < 1:
        raise ValueError(f"block_batch must be at least 1, got {block_batch}")
    job = _ClusterRun(client, block, n_out, seed, [int(n) for n in sizes], desc)
    bar = runner._progress_bar(sum(job.sizes), progress, desc)
    try:
        job.submit_more(block_batch)
        for fut, (tally, seconds) in job.done:
            trials = job.count(fut, tally, seconds)
            if bar is not None:
                bar.update(trials)
            job.look_again()
            job.submit_more(block_batch)
    except BaseException:
        # Ctrl-C or a failed task: nothing of this run should go on computing.
        client.cancel([*job.pending, job.kernel])
        raise
    finally:
        if bar is not None:
            bar.close()
    client.cancel([job.kernel])
    check_coverage(job.covered, job.n_blocks)
    return job.total


def map_ordered(
    client: Client,
    fn: Callable[..., Any],
    args: Sequence[tuple[Any, ...]],
    *,
    name: str,
    progress: bool | None = None,
    desc: str = "",
    unit: str = "task",
) -> list[Any]:
    """``[fn(*a) for a in args]`` computed on ``client``'s cluster, one task each, in order.

    Each task's key is (run id, position); results are placed by position, so the list
    is the same whatever order the tasks finish in. Ctrl-C cancels what is outstanding.

    >>> from distributed import Client
    >>> with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0") as client:
    ...     map_ordered(client, pow, [(2, 3), (3, 2), (5, 1)], name="demo")
    [8, 9, 5]
    """
    run = f"critlab-{name}-{uuid.uuid4().hex[:16]}"
    futures = {client.submit(fn, *a, key=(run, i)): i for i, a in enumerate(args)}
    results: dict[int, Any] = {}
    bar = runner._progress_bar(len(futures), progress, desc or name, unit)
    try:
        for fut, value in as_completed(futures, with_results=True):
            i = futures[fut]
            if i in results:
                raise RuntimeError(f"{name}: task {i} arrived twice")
            results[i] = value
            if bar is not None:
                bar.update(1)
    except BaseException:
        client.cancel(list(futures))
        raise
    finally:
        if bar is not None:
            bar.close()
    missing = [i for i in range(len(args)) if i not in results]
    if missing:
        raise RuntimeError(f"{name}: tasks {missing[:5]} never arrived")
    return [results[i] for i in range(len(args))]
