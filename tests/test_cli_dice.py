"""``critlab dice`` and the command line's error contract (exit 2, one line naming the input)."""

from __future__ import annotations

import json

import pytest

from critlab.analysis.cli.main import main


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
    assert lines[1].split() == ["value", "P(X", "=", "v)", "P(X", ">=", "v)"]
    assert len(lines) == 2 + 11  # one line per value 3..13
    rows = [line.split() for line in lines[2:]]
    assert [int(r[0]) for r in rows] == list(range(3, 14))
    # the "at least" column: P(X >= 3) = 1, P(X >= 13) = 1/36, P(X >= 8) = 21/36
    assert float(rows[0][2]) == 1.0 and float(rows[-1][2]) == pytest.approx(1 / 36, abs=1e-10)
    assert float(rows[5][2]) == pytest.approx(21 / 36, abs=1e-10)


def test_dice_text_has_no_zero_rows(capsys):
    # 1d6!: a 6 never stands alone, so neither 6 nor 12 is a row
    assert run(["dice", "1d6!"]) == 0
    lines = capsys.readouterr().out.splitlines()
    values = [line.split()[0] for line in lines[2:] if line.strip()[:1].isdigit()]
    assert values[:7] == ["1", "2", "3", "4", "5", "7", "8"] and "12" not in values
    assert len(lines) <= 46 and "rows folded" in lines[-2]


def test_long_supports_are_shown_compactly(capsys):
    assert run(["dice", "10d100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) <= 46
    assert "rows folded" in lines[2] and "rows folded" in lines[-2]
    assert "987 values of positive probability" in lines[-1] and "grouped by" in lines[-1]
    first, last = lines[3].split(), lines[-3].split()
    assert ".." in first[0] and ".." in last[0]  # ranges of values
    # the rows shown (folded ends included) hold all the probability
    shown = sum(
        float(line.split()[-5 if "folded" in line else 1]) for line in lines[2:-1] if "folded" not in line
    )
    folded = sum(float(line.split()[2]) for line in lines[2:-1] if "folded" in line)
    assert shown + folded == pytest.approx(1.0, abs=1e-9)


def test_exploding_supports_fold_their_far_end(capsys):
    assert run(["dice", "6d10!kh3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "range 3..(no maximum)" in lines[0] and "tail 5.4e-14" in lines[0]
    assert len(lines) <= 46 and "rows folded" in lines[-2]


def test_json_of_roll_and_keep_sums_to_one_and_matches_icepool(capsys):
    import icepool

    assert run(["dice", "6d10!kh3", "--json"]) == 0
    dist = json.loads(capsys.readouterr().out)["distribution"]
    assert 0 < dist["tail"] < 1e-12
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
    ref = icepool.d10.explode(depth=30).highest(6, 3)
    den = ref.denominator()
    for v, q in ref.items():
        assert abs(dist.get(str(v), 0.0) - q / den) <= 1e-9


def test_json_of_a_reroll_has_the_exact_mean(capsys):
    assert run(["dice", "2d6ro2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mean"] == pytest.approx(25 / 3, abs=1e-12)
    assert out["distribution"]["tail"] == 0.0


def test_an_expression_past_the_limits_is_refused_on_one_line(capsys):
    assert run(["dice", "+".join(["100d1000"] * 100), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert "at most 1000 dice per expression" in line and len(line) < 400


@pytest.mark.parametrize("expr", [r"2d6\n+1", r"1d6\x1b[2J"])
def test_control_characters_exit_2_escaped_on_one_line(capsys, expr):
    text = expr.encode().decode("unicode_escape")
    assert run(["dice", text]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert expr in line and line.isprintable()


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
