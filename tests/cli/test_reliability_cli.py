"""The command line's one error path: every foreseeable failure is one line on stderr and
a distinct exit status (2 bad input or a failure to run, 1 a failed validation, 130 an
interrupt), never a traceback; numbers are read as typed (ASCII digits, exact decimals);
values that begin with "-" follow their flag. Each test is a failure a reliability run of
the command line found."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from critlab.analysis.cli import main as cli
from critlab.analysis.design.sweep import sweep
from critlab.analysis.systems import get_system
from critlab.analysis.text.digits import plain
from critlab.analysis.validate import validate

CRIT_RANGE = ["exact", "crit-range", "--attack-bonus", "5", "--evasion", "15"]
THAC0 = ["exact", "thac0", "--thac0", "15", "--target-ac", "5"]


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line(err: str, *words: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("critlab") and "Traceback" not in err
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# -- argparse ------------------------------------------------------------------------------
def test_an_abbreviated_flag_is_not_taken_for_the_flag(capsys):
    status, out, err = run([*CRIT_RANGE, "--crit-ran", "2"], capsys)
    assert status == 2 and out == ""
    assert_one_line(err, "--crit-ran")
    status, _, err = run(["report", "--out", "x", "--basel", "y"], capsys)
    assert status == 2
    assert_one_line(err, "--basel")


def test_dice_values_beginning_with_a_minus_follow_their_flag(capsys):
    status, out, _ = run([*CRIT_RANGE, "--damage", "-1d4+3", "--json"], capsys)
    assert status == 0
    spaced = json.loads(out)
    assert spaced["params"]["damage"] == "-1d4+3"
    status, out, _ = run([*CRIT_RANGE, "--damage=-1d4+3", "--json"], capsys)
    assert status == 0 and json.loads(out) == spaced


@pytest.mark.parametrize(
    "argv",
    [
        ["dice", "-1d6"],
        ["dice", "-1d6", "--json"],
        ["dice", "--json", "-1d6"],
        ["dice", "--json", "--", "-1d6"],
    ],
)
def test_dice_command_takes_a_leading_minus(capsys, argv):
    status, out, err = run(argv, capsys)
    assert status == 0, err
    if "--json" in argv:
        assert json.loads(out)["mean"] == pytest.approx(-3.5)
    else:
        first = out.splitlines()[0]
        assert first.startswith("-1d6: ") and "mean -3.5" in first


def test_negative_numbers_still_follow_their_flag(capsys):
    status, out, _ = run(["exact", "thac0", "--thac0", "15", "--target-ac", "-3", "--json"], capsys)
    assert status == 0 and json.loads(out)["params"]["target_ac"] == -3


# -- numbers as typed ----------------------------------------------------------------------
@pytest.mark.parametrize("value", ["٣", "１５", "1_5", "15.0", "0x0f", " "])
def test_integers_take_ascii_digits_only(capsys, value):
    status, out, err = run(["exact", "thac0", "--thac0", value, "--target-ac", "5"], capsys)
    assert status == 2 and out == ""
    assert_one_line(err, "thac0", "integer")


@pytest.mark.parametrize(
    ("flag", "value"), [("--trials", "١٠"), ("--trials", "1_0"), ("--seed", "٣"), ("--threads", "٢")]
)
def test_run_options_take_ascii_digits_only(capsys, flag, value):
    argv = ["simulate", "thac0", "--thac0", "15", "--target-ac", "5", "--trials", "10", "--no-progress"]
    status, _, err = run([*argv, flag, value], capsys)
    assert status == 2
    assert_one_line(err, flag.lstrip("-"), "ASCII digits")


@pytest.mark.parametrize("value", ["inf", "Infinity", "-inf", "1e400", "nan", "NaN", "٠.٥", "0_5", "0.5x"])
def test_non_finite_or_odd_numbers_are_one_line(capsys, value):
    status, out, err = run([*CRIT_RANGE, "--dr", value], capsys)
    assert status == 2 and out == ""
    assert_one_line(err, "dr")


@pytest.mark.parametrize("value", ["inf", "nan", "1e400", "０.１"])
def test_alpha_is_a_finite_ascii_number(capsys, value):
    argv = ["validate", "thac0", "--thac0", "15", "--target-ac", "5", "--trials", "10", "--no-progress"]
    status, _, err = run([*argv, "--alpha", value], capsys)
    assert status == 2
    assert_one_line(err, "alpha")


def test_dr_is_the_exact_decimal_typed(capsys):
    results = {}
    for text in ("0.8", "0.800000000000000001"):
        status, out, _ = run([*CRIT_RANGE, "--dr", text, "--json", "--all-bins"], capsys)
        assert status == 0
        results[text] = json.loads(out)
    system = get_system("crit-range")
    apis = {text: system.exact(system.make_spec(attack_bonus=5, evasion=15, dr=text)) for text in results}
    # the two decimals are two DRs (JSON's 15 digits cannot show a 1e-18 difference; the
    # exact engine's doubles do)
    assert not np.array_equal(
        apis["0.8"].distributions["damage"].probs, apis["0.800000000000000001"].distributions["damage"].probs
    )
    for text, api in apis.items():  # the command line reads the decimal as the API does
        assert results[text] == json.loads(json.dumps(plain(api.to_json())))


@pytest.mark.parametrize("value", ["inf", "nan", "1e400"])
def test_api_refuses_non_finite_dr(value):
    system = get_system("crit-range")
    for given in (value, float(value)):
        with pytest.raises(ValueError, match="dr"):
            system.make_spec(attack_bonus=5, evasion=15, dr=given)


# -- messages ------------------------------------------------------------------------------
@pytest.mark.parametrize("expr", ["1d6\n+2", "1d6\r\n", "\x1b[31m1d6", "1d6\u202e", "1d6\t+1", "\x00"])
def test_control_characters_are_escaped_on_one_line(capsys, expr):
    status, out, err = run(["dice", expr], capsys)
    assert status == 2 and out == ""
    line = assert_one_line(err)
    assert all(ch.isprintable() for ch in line)
    status, _, err = run([*THAC0, "--damage", expr], capsys)
    assert status == 2
    assert all(ch.isprintable() for ch in assert_one_line(err, "damage"))


# -- the API names a wrong argument ------------------------------------------------------
def test_validate_names_a_wrong_argument():
    system = get_system("thac0")
    spec = system.make_spec(thac0=15, target_ac=5)
    exact = system.exact(spec)
    with pytest.raises(TypeError, match="sim must be the result of simulate"):
        validate(exact, exact)
    with pytest.raises(TypeError, match="exact must be the result of exact"):
        validate(None, exact)
    sim = system.simulate(spec, trials=1000, seed=1, progress=False)
    with pytest.raises(TypeError, match="alpha"):
        validate(exact, sim, alpha="0.01")
    other = get_system("crit-range")
    with pytest.raises(ValueError, match="crit-range"):
        validate(other.exact(other.make_spec(attack_bonus=5, evasion=15)), sim)


# -- limits before any work ----------------------------------------------------------------
@pytest.mark.parametrize("n", [2 * 10**12, 3 * 10**7])
def test_a_huge_sweep_is_refused_from_its_length(n):
    spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    with pytest.raises(ValueError, match=r"at most 100,000 in one sweep"):
        sweep(spec, target_ac=range(n))
    with pytest.raises(ValueError, match=r"at most 100,000 in one sweep"):
        sweep(spec, target_ac=iter(range(n)))  # an iterator is read only one value past the limit


@pytest.mark.parametrize("to", ["2_000_000_000_000", "30_000_000"])
def test_a_huge_report_range_is_refused_at_once(tmp_path, capsys, to):
    cfg = tmp_path / "big.toml"
    cfg.write_text(
        "[report]\ntrials = 100\nbatches = 2\n[systems.thac0]\nparams = { thac0 = 15, target_ac = 5 }\n"
        '[[systems.thac0.sections]]\nkind = "outcomes_by"\n'
        f"grid = {{ target_ac = {{ from = 0, to = {to} }} }}\n"
        '[[systems.thac0.sections]]\nkind = "validation"\n',
        encoding="utf-8",
    )
    status, _, err = run(
        ["report", "--config", str(cfg), "--out", str(tmp_path / "o"), "--no-progress"], capsys
    )
    assert status == 2
    assert_one_line(err, "target_ac", "at most 5,000 points")


@pytest.mark.parametrize(("value", "ok"), [("inf", False), ("nan", False), ("-inf", False), ('"inf"', False),
                                           ('"0.800000000000000001"', True), ("0.5", True)])  # fmt: skip
def test_config_numbers_are_finite_and_quoted_ones_exact(tmp_path, value, ok):
    from critlab.analysis.report.config import ConfigError, load_config

    cfg = tmp_path / "c.toml"
    cfg.write_text(
        "[report]\ntrials = 100\nbatches = 2\n"
        f"[systems.crit-range]\nparams = {{ attack_bonus = 5, evasion = 15, dr = {value} }}\n"
        '[[systems.crit-range.sections]]\nkind = "validation"\n',
        encoding="utf-8",
    )
    if ok:
        spec = load_config(cfg).systems[0].sections[0].spec
        assert str(spec.dr) == value.strip('"')
    else:
        with pytest.raises(ConfigError, match="dr"):
            load_config(cfg)


# -- interrupts, pipes, disks and schedulers -----------------------------------------------
def test_an_interrupt_is_exit_130_and_one_line(capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_system", interrupted)
    status, out, err = run(THAC0, capsys)
    assert status == 130 and out == "" and err == "critlab: interrupted\n"
    monkeypatch.setattr(cli, "_build_parser", interrupted)  # while the rule systems load
    status, _, err = run(THAC0, capsys)
    assert status == 130 and err == "critlab: interrupted\n"


def _subprocess(code: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, **kwargs
    )


START_UP_INTERRUPT = """
import importlib.abc, os, signal, sys

class Interrupt(importlib.abc.MetaPathFinder):
    # Ctrl-C while the rule system loads: the middle of the command line's start-up
    # (exact never loads Numba, so the system's own module is the one in the middle)
    def find_spec(self, name, path=None, target=None):
        if name == "critlab.analysis.systems.thac0":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
from critlab.analysis.cli.main import main
sys.exit(main(["exact", "thac0", "--thac0", "15", "--target-ac", "5"]))
"""


def test_ctrl_c_during_start_up_is_exit_130_and_one_line():
    done = _subprocess(START_UP_INTERRUPT)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "critlab: interrupted\n" and done.stdout == ""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_on_stdout_is_one_line_and_exit_2():
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "critlab", "dice", "3d6", "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2, done.stderr
    assert_one_line(done.stderr, "No space left on device")


def test_a_closed_pipe_stops_quietly():
    proc = subprocess.Popen(
        [sys.executable, "-m", "critlab", "dice", "30d6"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away, as `| head -1` does
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b""


def test_an_inproc_scheduler_is_refused_at_once(capsys):
    argv = ["simulate", "thac0", "--thac0", "15", "--target-ac", "5", "--trials", "10", "--no-progress"]
    status, _, err = run([*argv, "--scheduler", "inproc://x"], capsys)
    assert status == 2
    assert_one_line(err, "inproc://x", "tcp://HOST:PORT")


class _Server:
    """A TCP port that is not Dask: it answers like a web server, or says nothing."""

    def __init__(self, reply: bytes | None) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.reply = reply
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.reply is not None:
                conn.sendall(self.reply)

    def close(self) -> None:
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.mark.parametrize("reply", [b"HTTP/1.0 400 Bad Request\r\n\r\n" * 4, None], ids=["http", "silent"])
def test_a_port_that_is_not_dask_is_refused_in_bounded_time(capsys, monkeypatch, reply):
    pytest.importorskip("distributed")
    from critlab.kernels import scheduler

    monkeypatch.setattr(scheduler, "HANDSHAKE_TIMEOUT_S", 1.0)
    server = _Server(reply)
    try:
        argv = ["simulate", "thac0", "--thac0", "15", "--target-ac", "5", "--trials", "10", "--no-progress"]
        start = time.monotonic()
        status, _, err = run([*argv, "--scheduler", f"tcp://127.0.0.1:{server.port}"], capsys)
        took = time.monotonic() - start
    finally:
        server.close()
    assert status == 2
    assert_one_line(err, "no Dask scheduler")
    assert took < 60  # a hang guard, far above the one second it takes


def test_sigint_mid_run_reaches_only_a_clean_exit(tmp_path):
    # The main process alone is interrupted (as `kill -INT` does), in the middle of a run.
    proc = subprocess.Popen(
        [sys.executable, "-m", "critlab", "simulate", "thac0", "--thac0", "15", "--target-ac", "5",
         "--trials", "10000000000", "--seed", "1", "--threads", "1", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err == "critlab: interrupted\n" and out == ""


def test_a_bad_baseline_path_is_refused_before_the_work(tmp_path, capsys, monkeypatch):
    from critlab.analysis import report as report_pkg

    monkeypatch.setattr(report_pkg, "run_system", lambda *a, **k: pytest.fail("the work started"))
    argv = [
        "report",
        "--out",
        str(tmp_path / "o"),
        "--baseline",
        str(tmp_path / "missing.json"),
        "--no-progress",
    ]
    status, _, err = run(argv, capsys)
    assert status == 2
    assert_one_line(err, "--baseline", "cannot read")
    assert not os.path.exists(tmp_path / "o")
