"""``critlab dice`` and the command line's error contract (exit 2, one line naming the input)."""

from __future__ import annotations

import json

import pytest
from critlab.analysis.cli import main


def run(argv: list[str]) -> int:
    """``main(argv)``'s exit status, whether it returns it or argparse raises it."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


def test_dice_json(capsys):
    assert run(["dice", "4d6dl1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"expression", "distribution", "mean", "sd"}
    assert out["expression"] == "4d6dl1"
    dist = out["distribution"]
    assert dist["tail"] == 0.0
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
    assert set(dist) - {"tail"} == {str(v) for v in range(3, 19)}
    assert out["mean"] == pytest.approx(15869 / 1296, abs=1e-12)
    assert out["sd"] == pytest.approx(2.846844, abs=1e-6)  # sqrt(Var) of the exact 4d6dl1


def test_dice_json_of_an_explosion_reports_its_tail(capsys):
    assert run(["dice", "1d6!", "--json"]) == 0
    dist = json.loads(capsys.readouterr().out)["distribution"]
    assert 0 < dist["tail"] < 1e-12
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
    assert dist["10"] == pytest.approx(1 / 36, rel=1e-12)


def test_dice_text(capsys):
    assert run(["dice", "2d6+1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("2d6+1: mean 8.000000") and "range 3..13" in lines[0]
    assert len(lines) == 1 + 11  # one line per value 3..13


def test_negative_leading_term_after_double_dash(capsys):
    assert run(["dice", "--json", "--", "-1d6+7"]) == 0
    assert json.loads(capsys.readouterr().out)["mean"] == pytest.approx(3.5)


@pytest.mark.parametrize("expr", ["2d6x", "0d6", "3d6kh4", "d0", "1d6+", "hello"])
def test_bad_expression_exits_2_with_one_line(capsys, expr):
    assert run(["dice", expr, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert f"'{expr}'" in lines[0] and lines[0].startswith("critlab: error:")


def test_exact_with_a_non_integer_parameter_exits_2(capsys):
    assert run(["exact", "thac0", "--thac0", "x"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "thac0" in lines[0] and "x" in lines[0], captured.err
    assert captured.out == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["exact", "nosuchsystem"],
        ["dice"],
        ["exact", "thac0", "--no-such-flag", "1"],
        ["simulate", "thac0", "--thac0", "10", "--target-ac", "0"],  # --trials is required
    ],
)
def test_usage_errors_exit_2_with_one_line(capsys, argv):
    assert run(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("critlab: error:")
