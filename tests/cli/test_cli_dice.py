"""``critlab dice`` and the command line's error contract (exit 2, one line naming the input)."""

from __future__ import annotations

import json
import re

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.dice.notation import dice_dist


def run(argv: list[str]) -> int:
    """``main(argv)``'s exit status, whether it returns it or argparse raises it."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


def _percent(cell: str) -> float:
    """A table cell as a probability (``<0.01%`` as 0.00005, ``-`` as 0)."""
    if cell == "-":
        return 0.0
    if cell == "<0.01%":
        return 0.00005
    if cell == ">99.99%":
        return 0.99995
    return float(cell.rstrip("%")) / 100


def _table(lines: list[str]) -> dict[str, list[str]]:
    """The table's rows by value label (the text before the first percentage)."""
    head = next(i for i, line in enumerate(lines) if line.split()[:1] == ["value"])
    rows = {}
    for line in lines[head + 1 :]:
        cells = line.split()
        k = next(i for i, c in enumerate(cells) if c.endswith("%") or c == "-")
        rows[" ".join(cells[:k])] = cells[k:]
    return rows


def test_dice_json(capsys):
    assert run(["dice", "4d6dl1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"expression", "dialect", "notation", "reading", "distribution", "mean", "sd"}
    assert out["dialect"] == "critlab" and out["notation"] == "4d6dl1"
    assert out["expression"] == "4d6dl1" and "4d6dl1" in out["reading"]
    dist = out["distribution"]
    assert dist["tail"] == 0.0
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
    assert set(dist) - {"tail"} == {str(v) for v in range(3, 19)}
    assert out["mean"] == pytest.approx(15869 / 1296, abs=1e-12)
    assert out["sd"] == pytest.approx(2.846844, abs=1e-6)  # sqrt(Var) of the exact 4d6dl1


def test_dice_json_of_several_expressions_is_a_list(capsys):
    assert run(["dice", "2d6", "1d12", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["expression"] for o in out] == ["2d6", "1d12"]
    assert out[0]["distribution"]["7"] == pytest.approx(6 / 36, abs=1e-15)
    assert out[1]["mean"] == 6.5


def test_dice_json_numbers_carry_at_most_15_significant_digits(capsys):
    assert run(["dice", "3d6", "1d6!", "4d6dl1", "--json"]) == 0
    text = capsys.readouterr().out
    for token in re.findall(r"-?[0-9][0-9.eE+-]*", text):
        digits = token.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0")
        assert len(digits) <= 15, token


def test_dice_json_of_an_explosion_reports_its_tail(capsys):
    assert run(["dice", "1d6!", "--json"]) == 0
    dist = json.loads(capsys.readouterr().out)["distribution"]
    assert 0 < dist["tail"] < 1e-12
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
    assert dist["10"] == pytest.approx(1 / 36, rel=1e-12)


def test_dice_text(capsys):
    assert run(["dice", "2d6+1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("2d6+1") and "mean 8" in lines[0]
    assert lines[1].split() == ["value", "P(=", "v)", "P(>=", "v)", "P(<=", "v)"]
    rows = _table(lines)
    assert list(rows) == [str(v) for v in range(3, 14)]  # one row a value
    # 2d6+1 = 8 in 6 of 36 ways; at least 8 in 21; at most 8 in 21
    assert rows["8"] == ["16.67%", "58.33%", "58.33%"]
    assert rows["3"] == ["2.78%", "100.00%", "2.78%"] and rows["13"] == ["2.78%", "2.78%", "100.00%"]


def test_a_single_die_shows_every_face(capsys):
    assert run(["dice", "1d100"]) == 0
    rows = _table(capsys.readouterr().out.splitlines())
    assert list(rows) == [str(v) for v in range(1, 101)]
    assert all(r[0] == "1.00%" for r in rows.values())


def test_every_value_of_a_long_sum_is_a_row(capsys):
    assert run(["dice", "10d100"]) == 0
    rows = _table(capsys.readouterr().out.splitlines())
    values = [int(v) for v in rows]
    # consecutive: no value is merged with another (the far ends, below 1e-300 in the
    # convolution, have no positive probability to show)
    assert values == list(range(values[0], values[-1] + 1)) and values[0] < 150 and values[-1] > 860
    assert rows[str(values[0])][0] == "<0.01%" and rows[str(values[0])][1] == "100.00%"


def test_an_explosion_fits_80_columns_with_its_tail_cut_at_99_99_percent(capsys):
    # 1d6!: a 6 never stands alone, so neither 6 nor 12 is a row
    assert run(["dice", "1d6!"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 80
    rows = _table(lines)
    labels = list(rows)
    assert labels[:7] == ["1", "2", "3", "4", "5", "7", "8"] and "6" not in labels and "12" not in labels
    last = labels[-1]
    assert last.endswith(" or more")
    v = int(last.split()[0])
    # the rows before cover at least 99.99%, the row before it did not yet
    d = dice_dist("1d6!")
    assert d.cdf(v - 1) >= 0.9999 and d.cdf(int(labels[-3])) < 0.9999
    assert rows[last][2] == "100.00%"
    assert _percent(rows["1"][0]) == pytest.approx(1 / 6, abs=5e-5)


def test_several_expressions_side_by_side_over_the_union_of_values(capsys):
    assert run(["dice", "2d6", "1d12", "3d4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 80
    assert [line.split(":")[0] for line in lines[:3]] == ["2d6", "1d12", "3d4"]
    rows = _table(lines)
    assert list(rows) == [str(v) for v in range(1, 13)]
    assert len(rows["7"]) == 9
    assert rows["1"][0] == "-" and rows["1"][3] == "8.33%" and rows["1"][6] == "-"
    assert rows["7"][0] == "16.67%" and rows["7"][6] == "18.75%"  # 6/36 and 12/64


def test_exploding_supports_fold_their_far_end(capsys):
    assert run(["dice", "6d10!kh3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 80
    assert list(_table(lines))[-1].endswith(" or more")


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
    assert run(["dice", "2d6ro<=2", "--json"]) == 0
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


@pytest.mark.parametrize("expr", ["2d6y", "0d6!", "3d6kh4", "d0", "1d6+", "hello"])
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


def test_dice_help_lists_every_suffix_with_an_example_that_parses(capsys):
    from critlab.analysis.dice.grammar import ORDER
    from critlab.analysis.dice.notation import parse

    assert run(["dice", "--help"]) == 0
    out = capsys.readouterr().out
    assert "docs/rules.md" in out
    notation = out[out.index("the notation") :]
    groups = re.findall(r"\(([^)]*)\)", ORDER)
    suffixes = [x for group in groups for x in re.split(r"[,\s]+|(?<=\w)/(?=\w)", group) if x]
    assert len(suffixes) == 17
    for suffix in suffixes:  # the grammar's own list
        assert f"\n  {suffix}" in notation or f" {suffix}" in notation, suffix
    own = notation.split("dialects")[0]
    examples = re.findall(r"(?<![\w'])(\d*d(?:\d+|%|F|\{[\d,]+\})[^\s,()']*|\{[^}]+\}\S*)", own)
    assert len(examples) >= 25
    for text in examples:
        parse(text.rstrip(","))  # each example is the notation's


@pytest.mark.parametrize("command", ["tune", "sensitivity"])
def test_design_help_says_what_stands_for_system(command, capsys):
    assert run([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "encounter file" in out and "file.py:function" in out
