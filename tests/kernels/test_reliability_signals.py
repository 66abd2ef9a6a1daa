"""Stopping a run from outside: SIGTERM ends the command line as Ctrl-C does (one line,
exit 130, nothing left behind), and a Dask peer that goes silent mid-handshake is refused
within the stated time."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def _start(*argv: str, cwd: Path | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "critlab", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=cwd,
    )


def _stop(proc: subprocess.Popen, signum: int, within: float) -> tuple[str, str, float]:
    """Send ``signum`` to ``proc``'s group; its output and how long it took to end (the
    group is killed and the pipes closed whatever happens, so no test leaks them)."""
    t0 = time.monotonic()
    try:
        os.killpg(proc.pid, signum)
        out, err = proc.communicate(timeout=within)
        return out, err, time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def _wait_for(condition, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            pytest.fail(f"the command ended first: {proc.communicate()[1][-500:]}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            pytest.fail("the command never got that far")
        time.sleep(0.05)


def test_sigterm_during_a_report_is_one_line_and_leaves_no_staging_folder(tmp_path):
    out = tmp_path / "rep"
    proc = _start(
        "report", "--config", str(ROOT / "reports/examples/designer.toml"), "--out", str(out),
        "--trials", "10000000000", "--no-progress",
    )  # fmt: skip
    _wait_for(lambda: any(p.name.startswith(".rep.critlab-new-") for p in tmp_path.iterdir()), proc)
    time.sleep(1.0)  # the report is being computed into its staging folder
    _, err, took = _stop(proc, signal.SIGTERM, within=30)
    assert (proc.returncode, err) == (130, "critlab: interrupted\n"), err[-2000:]
    assert took < 10
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # neither staging folder nor report


def test_sigterm_during_a_simulation_is_one_line():
    proc = _start("simulate", "thac0", "--thac0", "10", "--target-ac", "0", "--trials", "10000000000",
                  "--seed", "1", "--threads", "2", "--no-progress", "--json")  # fmt: skip
    time.sleep(4.0)  # started and simulating (or compiling its kernels)
    out, err, took = _stop(proc, signal.SIGTERM, within=30)
    assert (proc.returncode, err, out) == (130, "critlab: interrupted\n", "")
    assert took < 10


def test_sigterm_is_left_to_its_previous_handler_after_main():
    before = signal.getsignal(signal.SIGTERM)
    assert main(["dice", "1d6", "--json"]) == 0
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.fixture
def silent_peer():
    """A server that sends a plausible Dask handshake header (one frame of 84 bytes) and
    then nothing, holding every connection open."""
    srv = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            held.append(conn)
            conn.sendall(struct.pack("<QQQ", 16 + 84, 1, 84))

    threading.Thread(target=serve, daemon=True).start()
    yield srv.getsockname()[1]
    srv.close()
    for conn in held:
        conn.close()


def test_a_dask_peer_silent_after_its_header_is_refused_in_time(silent_peer, capsys, monkeypatch):
    pytest.importorskip("distributed")
    from critlab.kernels import scheduler

    monkeypatch.setattr(scheduler, "HANDSHAKE_TIMEOUT_S", 1.0)
    argv = ["simulate", "thac0", "--thac0", "10", "--target-ac", "0", "--trials", "10", "--no-progress"]
    done: list[int] = []
    address = f"tcp://127.0.0.1:{silent_peer}"
    worker = threading.Thread(target=lambda: done.append(main([*argv, "--scheduler", address])), daemon=True)
    t0 = time.monotonic()
    worker.start()
    worker.join(timeout=30)  # without the bound Dask's client waits for the rest for ever
    assert done == [2] and time.monotonic() - t0 < 10
    err = capsys.readouterr().err
    assert err.startswith("critlab: error: no Dask scheduler at") and "handshake" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_while_the_kernels_compile_ends_the_run(signum, tmp_path):
    # An empty Numba cache: the first block compiles the kernel (many seconds), in the
    # main thread, where the interrupt lands; a worker thread compiling would hold the
    # run until its compile ended.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "critlab", "simulate", "thac0", "--thac0", "10", "--target-ac", "0",
         "--trials", "100000000", "--seed", "1", "--threads", "2", "--no-progress", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env,
    )  # fmt: skip
    time.sleep(3.0)  # imported and compiling
    out, err, took = _stop(proc, signum, within=60)
    assert (proc.returncode, err, out) == (130, "critlab: interrupted\n", ""), err[-2000:]
    assert took < 5


def test_an_interrupt_inside_a_library_callback_still_ends_the_run(monkeypatch, capsys):
    # The JIT compiler calls back into Python through ctypes; an interrupt raised there is
    # "ignored" by the interpreter (a traceback on stderr, the run going on to its end).
    # critlab interrupts again, so the run still ends as Ctrl-C ends it.
    import ctypes

    from critlab.analysis.cli import main as cli_main

    @ctypes.CFUNCTYPE(None)
    def callback():
        raise KeyboardInterrupt

    def run(argv):
        callback()  # the interrupt lands inside the callback
        for _ in range(200):  # the rest of a long run: it must not get to its end
            time.sleep(0.01)
        print("finished")
        return 0

    monkeypatch.setattr(cli_main, "_run", run)
    assert main([]) == 130
    out, err = capsys.readouterr()
    assert (out, err) == ("", "critlab: interrupted\n")
