"""The cost of a Dask cluster run: ``python -m benchmarks.cluster`` times the thac0
benchmark attack in-process and on a 2-worker LocalCluster (see docs/scaling-out.md)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from distributed import Client, LocalCluster

from benchmarks.thac0 import BENCH_SPEC
from critlab.analysis.systems.thac0 import SYSTEM, Thac0Spec
from critlab.kernels import runner
from critlab.kernels.cluster import run_on_client


def _noop_block(state: np.ndarray, n: int, out: np.ndarray) -> None:
    out[0] += n


def _cpu_seconds(pids: Sequence[int]) -> float:
    import psutil  # a dependency of distributed

    return sum(sum(psutil.Process(pid).cpu_times()[:2]) for pid in pids)


def _measured(client: Client, pids: Sequence[int], fn: Callable[[], object]) -> tuple[float, float, int]:
    """Wall seconds of ``fn``, the CPU seconds it cost all of ``pids``, and its tasks."""
    from distributed import get_task_stream

    cpu0 = _cpu_seconds(pids)
    with get_task_stream(client) as stream:
        _, wall = runner.timed(fn)
    return wall, _cpu_seconds(pids) - cpu0, len(stream.data)


def bench_cluster(
    simulate: Callable[..., object],
    spec: object,
    trials: int = 100_000_000,
    *,
    workers: int = 2,
    repeats: int = 3,
) -> dict[str, float]:
    """Trials per second of the thac0 benchmark attack in-process and on a LocalCluster,
    and what the cluster costs beyond the blocks themselves.

    Runs the same seeded simulation on 1 thread, on ``workers`` threads and on a cluster
    of ``workers`` single-threaded worker processes (best of ``repeats`` wall times each,
    after a warm-up). Wall times need otherwise idle cores. The CPU-time figures (client,
    scheduler and workers together; the scheduler runs in this process) mostly hold on a
    busy machine too: the cost of a task is measured with tasks of an empty one-trial
    block, less what the idle processes burn anyway in the same time.

    Returns
    -------
    dict
        ``blocks``, and ``tasks`` and ``blocks_per_task`` of a cluster run;
        ``local_1``, ``local_n`` and ``cluster`` in trials per second;
        ``cluster_vs_local_n`` (cluster rate over the same thread count in-process);
        ``block_cpu_ms`` (one block's CPU time); ``task_cpu_ms`` (the CPU one task costs);
        ``overhead_pct_one_block`` (``task_cpu_ms`` over ``block_cpu_ms``: the price of
        one task per block); ``overhead_pct_per_block`` (the task cost of the batched run
        spread over its blocks); ``idle_cpu_per_s`` (CPU seconds per second that the
        idle processes use); ``cluster_cpu_pct`` (the cluster run's CPU over the
        in-process run's, idle use included, less 100).
    """
    import os

    n_blocks = len(runner.block_sizes(trials))

    def best(fn: Callable[[], object]) -> float:
        fn()  # warm-up: compile, load caches, start worker imports
        return min(runner.timed(fn)[1] for _ in range(repeats))

    t1 = best(lambda: simulate(spec, trials=trials, seed=1, threads=1, progress=False))
    cpu0 = time.process_time()
    simulate(spec, trials=trials, seed=1, threads=1, progress=False)
    local_cpu = time.process_time() - cpu0
    tn = best(lambda: simulate(spec, trials=trials, seed=1, threads=workers, progress=False))
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        pids = [os.getpid(), *client.run(os.getpid).values()]
        tc = best(lambda: simulate(spec, trials=trials, seed=1, progress=False, client=client))
        _, run_cpu, run_tasks = _measured(
            client, pids, lambda: simulate(spec, trials=trials, seed=1, progress=False, client=client)
        )
        idle_wall, idle_cpu, _ = _measured(client, pids, lambda: time.sleep(2.0))
        n_noop = 400
        noop_wall, noop_cpu, _ = _measured(
            client,
            pids,
            lambda: run_on_client(client, _noop_block, n_out=1, seed=0, sizes=[1] * n_noop, block_batch=1),
        )
    idle_rate = idle_cpu / idle_wall
    block_cpu_ms = 1e3 * local_cpu / n_blocks
    task_cpu_ms = 1e3 * (noop_cpu - idle_rate * noop_wall) / n_noop
    tasks = run_tasks - 1  # less the task that carries the block function
    return {
        "blocks": n_blocks,
        "tasks": tasks,
        "blocks_per_task": n_blocks / tasks,
        "local_1": trials / t1,
        "local_n": trials / tn,
        "cluster": trials / tc,
        "cluster_vs_local_n": tn / tc,
        "block_cpu_ms": block_cpu_ms,
        "task_cpu_ms": task_cpu_ms,
        "overhead_pct_one_block": 100 * task_cpu_ms / block_cpu_ms,
        "overhead_pct_per_block": 100 * task_cpu_ms * tasks / (block_cpu_ms * n_blocks),
        "idle_cpu_per_s": idle_rate,
        "cluster_cpu_pct": 100 * (run_cpu - local_cpu) / local_cpu,
    }


if __name__ == "__main__":  # pragma: no cover - a benchmark, run by hand
    for key, value in bench_cluster(SYSTEM.simulate, Thac0Spec(**BENCH_SPEC)).items():
        print(f"{key:>24}  {value:,.4g}")
