"""Configurations and baselines are read within stated bounds (size, nesting, integer
size), each refusal one line and exit 2 before any of the report's work."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.text.documents import MAX_DEPTH, MAX_FILE_BYTES

CHECK = """
[[checks]]
system = "crit-range"
params = {{ attack_bonus = 5, evasion = 15 }}
quantity = "crit"
min = {value}
"""


def _refused(argv: list[str], capsys, *words: str) -> str:
    t0 = time.monotonic()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    assert time.monotonic() - t0 < 20  # refused up front, not after the report's work
    return err


def _report(tmp_path: Path, *argv: str) -> list[str]:
    return ["report", *argv, "--out", str(tmp_path / "out"), "--no-progress"]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("flag", ["--config", "--baseline"])
def test_a_file_that_never_ends_is_read_to_a_bound(flag, tmp_path, capsys):
    err = _refused(_report(tmp_path, flag, "/dev/zero"), capsys, "/dev/zero", "larger than 16 MiB")
    assert not (tmp_path / "out").exists(), err


def test_a_file_just_over_the_size_bound_is_refused(tmp_path, capsys):
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * MAX_FILE_BYTES + b"\n")
    _refused(_report(tmp_path, "--config", str(big)), capsys, "big.toml", "larger than")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 3000])
def test_deeply_nested_toml_is_one_line(depth, tmp_path, capsys):
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * depth + "]" * depth + "\n")
    _refused(_report(tmp_path, "--config", str(deep)), capsys, "deep.toml", f"nested more than {MAX_DEPTH}")


def test_deeply_nested_toml_tables_are_one_line(tmp_path, capsys):
    deep = tmp_path / "tables.toml"
    deep.write_text("[" + ".".join(["t"] * 200) + "]\nx = 1\n")
    _refused(_report(tmp_path, "--config", str(deep)), capsys, "tables.toml", "nested more than")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5000, 100_000])
def test_deeply_nested_baseline_json_is_one_line(depth, tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * depth + "]" * depth)
    argv = _report(tmp_path, "--baseline", str(deep))
    _refused(argv, capsys, "deep.json", "--baseline", "nested more than")


def test_a_401_digit_integer_in_checks_is_one_line(tmp_path, capsys):
    conf = tmp_path / "big.toml"
    conf.write_text(CHECK.format(value="9" * 401))
    _refused(_report(tmp_path, "--config", str(conf)), capsys, "big.toml: checks[1].min", "401 digits")


def test_a_401_digit_integer_in_a_baseline_is_one_line(tmp_path, capsys):
    base = tmp_path / "summary.json"
    base.write_text(json.dumps({"format": "critlab-report-summary/1", "metrics": {"m": int("9" * 401)}}))
    _refused(_report(tmp_path, "--baseline", str(base)), capsys, "--baseline: metrics.m", "401 digits")


def test_a_5000_digit_integer_in_a_baseline_is_one_line(tmp_path, capsys):
    base = tmp_path / "summary.json"
    base.write_text('{"format": "critlab-report-summary/1", "metrics": {"m": ' + "9" * 5000 + "}}")
    err = _refused(_report(tmp_path, "--baseline", str(base)), capsys, "summary.json", "--baseline", "4,300")
    assert "set_int_max_str_digits" not in err and "integer string conversion" not in err


@pytest.mark.parametrize("value", ["9" * 5000, "0x" + "f" * 5000])
def test_a_5000_digit_integer_in_a_configuration_is_one_line(tmp_path, capsys, value):
    conf = tmp_path / "big.toml"
    conf.write_text(CHECK.format(value=value))
    err = _refused(
        _report(tmp_path, "--config", str(conf)), capsys, "big.toml", "4,300 digits", "in magnitude"
    )
    assert "set_int_max_str_digits" not in err and "integer string conversion" not in err


def test_integers_a_report_uses_still_read(tmp_path, capsys):
    # the largest seed there is, and a check's bound written as an integer
    conf = tmp_path / "ok.toml"
    conf.write_text("[report]\nseed = 9223372036854775807\n" + CHECK.format(value="0") + "max = 1\n")
    from critlab.analysis.report.config import load_config

    cfg = load_config(conf)
    assert cfg.seed == 2**63 - 1 and len(cfg.checks) == 1
