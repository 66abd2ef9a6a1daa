"""Cluster runs (critlab.kernels.cluster): the same numbers as a local single-thread run, on a
LocalCluster of two worker processes, through lost workers, Ctrl-C and the command line.

No statistical thresholds here: every check is bit-for-bit equality with a local run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")  # a dependency of distributed

from _biased import InterruptingBar  # noqa: E402

from critlab.analysis.cli.main import main  # noqa: E402
from critlab.analysis.design.sweep import sweep  # noqa: E402
from critlab.analysis.systems.thac0 import Thac0Spec, simulate  # noqa: E402
from critlab.kernels import runner  # noqa: E402
from critlab.kernels import scheduler as scheduler_module  # noqa: E402
from critlab.kernels.cluster import run_on_client  # noqa: E402
from critlab.kernels.rng import stream_state  # noqa: E402
from critlab.kernels.runner import BLOCK_TRIALS, block_sizes, run  # noqa: E402

SPEC = Thac0Spec(thac0=10, target_ac=0, to_hit=12, crit_threshold=19)  # fumble rerolls, hits, crits


def _same_result(a, b) -> None:
    assert a.to_json() == b.to_json()
    assert a.tally.counts.tolist() == b.tally.counts.tolist()
    for name, h in a.tally.hists.items():
        assert h.counts.tolist() == b.tally.hists[name].counts.tolist() and h.tail == b.tally.hists[name].tail
    assert a.tally.counters == b.tally.counters


def test_simulation_equals_local_single_thread(dask_client):
    trials = 1_500_000  # six blocks, the last one short
    assert len(block_sizes(trials)) == 6
    local = simulate(SPEC, trials=trials, seed=11, threads=1, progress=False)
    remote = simulate(SPEC, trials=trials, seed=11, progress=True, client=dask_client)
    _same_result(remote, local)


@pytest.mark.parametrize("block_batch", [None, 1, 2, 7])
def test_any_batching_gives_the_local_tally(dask_client, block_batch):
    # Blocks that record their own stream: any lost, repeated or misplaced block shows.
    def block(state, n, out):
        out[0] += n
        out[1] += int(state[0] % 1000)
        out[2] += 1

    sizes = block_sizes(100, 7)  # 15 blocks, the last of 2 trials
    local = run(block, n_out=3, trials=100, seed=5, threads=1, block_trials=7)
    remote = run_on_client(
        dask_client, block, n_out=3, seed=5, sizes=sizes, progress=False, block_batch=block_batch
    )
    assert remote.tolist() == local.tolist() and remote[2] == len(sizes)


def test_sweep_equals_local(dask_client):
    grid = dict(target_ac=[-2, 4], crit_option=["double", "severity"])
    local = sweep(SPEC, simulate=True, trials=40_000, seed=3, **grid)
    remote = sweep(SPEC, simulate=True, trials=40_000, seed=3, client=dask_client, progress=False, **grid)
    pd.testing.assert_frame_equal(remote, local, check_exact=True)


def test_worker_killed_mid_run_changes_nothing(dask_client, tmp_path, monkeypatch):
    seed, trials = 21, 16 * BLOCK_TRIALS
    local = simulate(SPEC, trials=trials, seed=seed, threads=1, progress=False)
    doomed = stream_state(seed, 3)[:4].copy()
    marker = tmp_path / "killed"
    import critlab.analysis.run as run_module

    original = run_module.tally_of

    def tally_with_a_doomed_block(layout, block, options, **kwargs):
        def doomed_block(state, n, out):
            # The first worker to start block 3 dies on the spot (as if its machine went
            # away); the block must run again elsewhere, and only once count.
            if np.array_equal(state[:4], doomed) and not marker.exists():
                marker.touch()
                os.kill(os.getpid(), signal.SIGKILL)
            block(state, n, out)

        return original(layout, doomed_block, options, **kwargs)

    monkeypatch.setattr(run_module, "tally_of", tally_with_a_doomed_block)
    remote = simulate(SPEC, trials=trials, seed=seed, progress=False, client=dask_client)
    assert marker.exists()
    _same_result(remote, local)
    dask_client.wait_for_workers(2, timeout=60)  # the nanny restarts the worker for later tests


def test_ctrl_c_cancels_outstanding_tasks(dask_client, monkeypatch):
    def slow_block(state, n, out):
        time.sleep(0.05)
        out[0] += n

    monkeypatch.setattr(runner, "_progress_bar", lambda *args, **kwargs: InterruptingBar())
    with pytest.raises(KeyboardInterrupt) as interrupted:
        run_on_client(dask_client, slow_block, n_out=1, seed=0, sizes=[1] * 60, progress=True, block_batch=1)
    # The traceback still holds the run's futures, so only cancelling can have freed them.
    assert interrupted.traceback

    def critlab_tasks(dask_scheduler):
        return [str(k) for k in dask_scheduler.tasks if "critlab-" in str(k)]

    deadline = time.monotonic() + 10
    while (left := dask_client.run_on_scheduler(critlab_tasks)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []
    del interrupted


def _cli_json(capsys, *extra: str) -> dict:
    argv = ["simulate", "thac0", "--thac0", "10", "--target-ac", "0", "--to-hit", "12"]
    assert main([*argv, "--trials", "600000", "--seed", "9", "--json", "--no-progress", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_command_line_scheduler(dask_client, capsys):
    local = _cli_json(capsys, "--threads", "1")
    assert _cli_json(capsys, "--scheduler", dask_client.scheduler.address) == local
    assert _cli_json(capsys, "--scheduler", "local") == local


def test_command_line_unreachable_scheduler_is_one_line(capsys, monkeypatch):
    monkeypatch.setattr(scheduler_module, "CONNECT_TIMEOUT_S", 0.5)
    argv = ["simulate", "thac0", "--thac0", "10", "--target-ac", "0", "--trials", "10", "--no-progress"]
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("critlab: error: cannot reach the Dask scheduler") and err.count("\n") == 1


def test_nothing_imports_dask_without_a_client():
    code = (
        "import sys, critlab.analysis.systems.thac0, critlab.analysis.design.sweep\n"
        "import critlab.analysis.cli.main, critlab.kernels.runner\n"
        "assert not {'dask', 'distributed'} & set(sys.modules), 'dask imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def _workers_of(proc: psutil.Process) -> list[psutil.Process]:
    try:
        kids = proc.children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    out = []
    for kid in kids:
        try:
            if "spawn_main" in " ".join(kid.cmdline()):
                out.append(kid)
        except psutil.Error:
            pass
    return out


@pytest.mark.parametrize("when", ["starting", "running"])
def test_ctrl_c_on_a_local_cluster_run_is_one_line(when):
    # Ctrl-C in a terminal signals the whole process group: the command line, the
    # cluster's worker processes, while the workers start or while they compute.
    proc = subprocess.Popen(
        [sys.executable, "-m", "critlab", "simulate", "thac0", "--thac0", "10", "--target-ac", "0",
         "--trials", "10000000000", "--seed", "1", "--no-progress", "--json", "--scheduler", "local"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + 120
    workers: list[psutil.Process] = []
    while time.monotonic() < deadline and proc.poll() is None:
        workers = _workers_of(parent)
        if workers if when == "starting" else len(workers) >= 2 and parent.num_threads() > 4:
            break
        time.sleep(0.02)
    if when == "running":
        time.sleep(3)  # blocks are being computed on the workers
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=30)  # "within a few seconds"; 30 on a loaded machine
    finally:  # a run that did not stop is killed, and its pipes closed, for the tests after it
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130 and err == "critlab: interrupted\n" and out == "", err
    _, alive = psutil.wait_procs(workers, timeout=30)
    assert alive == []
