"""Dialects: Roll20's and Foundry VTT's notation read as it means there (docs/rules.md,
"Dialects"). Every element by an example of the tool's own documentation
(tests/_dialect_examples.py names the page of each): critlab's rewriting, and the exact
distribution against an icepool die built from the documented meaning; the same
examples are simulated through the interpreter in tests/kernels/test_dice_kernels.py."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import icepool
import pytest
from _dialect_examples import EXAMPLES, REFUSED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import critlab
from critlab.analysis.cli.main import main
from critlab.analysis.dice.dialect import ENVIRONMENT, translate
from critlab.analysis.dice.notation import NotationError, dice_dist, parse
from critlab.analysis.dice.reading import reading

TOL = 1e-8  # icepool truncates explosions


def run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


def probs_of(die) -> dict[int, float]:
    den = die.denominator()
    return {int(v): float(Fraction(q, den)) for v, q in die.items()}


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.id)
def test_each_documented_example_is_rewritten_in_critlabs_grammar(ex):
    assert translate(ex.text, ex.dialect) == ex.critlab, ex.source
    expr = parse(f"{ex.dialect}:{ex.text}")
    assert expr.text == ex.critlab and expr.source == f"{ex.dialect} {ex.text}"
    assert reading(expr).startswith(f"{ex.dialect} {ex.text} = {ex.critlab}: ")


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.id)
def test_each_documented_example_is_answered_exactly(ex):
    ours = dice_dist(ex.text, dialect=ex.dialect)
    assert abs(ours.mass + ours.tail - 1.0) <= 1e-12 and ours.tail < 1e-12
    if ex.ref is None:
        assert ours.mean == pytest.approx(ex.mean, abs=1e-9), ex.source
        return
    ref = probs_of(ex.ref)
    for v in set(ref) | set(ours.to_dict()):
        assert abs(ours.pmf(v) - ref.get(v, 0.0)) <= TOL, (ex.id, v, ex.source)


@pytest.mark.parametrize(("dialect", "text", "named", "source"), REFUSED, ids=lambda x: str(x)[:24])
def test_documented_forms_critlab_cannot_answer_are_refused_naming_them(dialect, text, named, source, capsys):
    assert run(["dice", "--dialect", dialect, text]) == 2, source
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"critlab: error: {dialect} dice ") and named in err[0], err


def test_the_issues_examples_give_each_tools_answer_and_critlabs_own_without_a_dialect():
    # Roll20 counts the dice of 4 or more; critlab compares the total with 4 (1 where > 4:
    # always, eight dice showing at least 8)
    assert dice_dist("8d6>4", dialect="roll20").mean == pytest.approx(4.0, abs=1e-12)
    assert dice_dist("8d6>4").to_dict() == {1: 1.0} and dice_dist("3d6>12").mean == pytest.approx(56 / 216)
    # Roll20's ! adds separate dice (4.47); critlab's compounds (5.8)
    assert round(dice_dist("2d6!kh1", dialect="roll20").mean, 2) == 4.47
    assert round(dice_dist("2d6!kh1").mean, 2) == 5.8
    # Roll20's cs only highlights; critlab counts
    assert dice_dist("1d20cs>=19", dialect="roll20").mean == pytest.approx(10.5, abs=1e-12)
    assert dice_dist("1d20cs>=19").mean == pytest.approx(0.1, abs=1e-12)
    # refused without the dialect, naming critlab's spelling
    taught = (("4d6r1", "rr1"), ("1d20min10", "mi10"), ("2d6+1d6[fire]", "--dialect"), ("4d6d1", "dl1"))
    for text, spelling in taught:
        with pytest.raises(NotationError, match=spelling.replace("-", r"\-")):
            parse(text)
    assert dice_dist("4d6r1", dialect="foundry").mean == pytest.approx(4 * (3.5 + 2.5 / 6), abs=1e-12)


def test_the_reading_restates_the_expression_in_critlabs_grammar():
    said = "roll20 8d6>4 = 8d6cs>=4: 8 d6, count the dice showing 4 or more (successes)"
    assert reading("roll20:8d6>4") == said
    assert reading(parse("4d6r1", "foundry")).startswith(
        "foundry 4d6r1 = 4d6ro1: 4 d6, each rerolled once on a"
    )


def test_the_dialect_flag_the_environment_and_a_prefix(capsys, monkeypatch):
    assert run(["dice", "--dialect", "roll20", "8d6>4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["expression"], out["dialect"], out["notation"]) == ("8d6>4", "roll20", "8d6cs>=4")
    monkeypatch.setenv(ENVIRONMENT, "foundry")
    assert run(["dice", "4d6r1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["notation"] == "4d6ro1"
    assert run(["dice", "--dialect", "critlab", "4d6rr1", "--json"]) == 0  # the flag wins
    assert json.loads(capsys.readouterr().out)["dialect"] == "critlab"
    assert run(["dice", "roll20:4d6d1", "--json"]) == 0  # an expression names its own
    assert json.loads(capsys.readouterr().out)["dialect"] == "roll20"
    monkeypatch.setenv(ENVIRONMENT, "anydice")
    assert run(["dice", "2d6"]) == 2
    assert f"{ENVIRONMENT} = 'anydice': must be one of critlab, roll20, foundry" in capsys.readouterr().err
    monkeypatch.delenv(ENVIRONMENT)
    assert run(["dice", "--dialect", "d20", "2d6"]) == 2
    assert "--dialect = 'd20'" in capsys.readouterr().err


def test_the_python_front_door_takes_a_dialect():
    shadowrun = critlab.dice("{5d6!!}>8", dialect="roll20")
    assert shadowrun.mean == pytest.approx(dice_dist("5d6!cs>=8").mean, abs=1e-15)
    with pytest.raises(ValueError, match="dialect = 'd20': must be one of"):
        critlab.dice("2d6", dialect="d20")


def test_a_dice_parameter_written_in_a_dialect_is_read_in_it():
    thac0 = critlab.get_system("thac0")
    spec = thac0.make_spec(thac0=15, target_ac=5, damage="roll20:2d6!kh1")
    assert spec.damage_expr.text == "2d6xkh1"
    same = thac0.make_spec(thac0=15, target_ac=5, damage="2d6xkh1")
    assert critlab.exact(spec).outcomes == critlab.exact(same).outcomes
    with pytest.raises(ValueError, match="damage"):
        thac0.make_spec(thac0=15, target_ac=5, damage="foundry:2d6!")


def test_a_rewriting_critlab_refuses_names_both_texts():
    said = r"roll20 dice '3d6k4' \(critlab: '3d6kh4'\): 'kh4' keeps 4 of 3 dice"
    with pytest.raises(NotationError, match=said):
        parse("roll20:3d6k4")


# -- combinations beyond the pages' examples, each against icepool -------------------------
def _count(die, test):
    return die.map(lambda v: int(test(v)))


d6, d20 = icepool.d6, icepool.d20
COMBINED = [
    # Foundry applies modifiers as written: a clamp before a keep commutes with it ...
    ("foundry", "4d6min3kh3", icepool.Pool([d6.map(lambda v: max(v, 3))] * 4).highest(3).sum()),
    ("foundry", "4d6kh3min3", icepool.Pool([d6.map(lambda v: max(v, 3))] * 4).highest(3).sum()),
    # ... and a count after a clamp compares the faces rolled (min only set their value)
    ("foundry", "4d6min3cs>=3", 4 @ _count(d6, lambda v: v >= 3)),
    # a count read as each face's value, over faces rerolled once: listed with their weights
    ("foundry", "4d6r1even", 4 @ _count(d6.reroll([1], depth=1), lambda v: v % 2 == 0)),
    ("foundry", "4d6rr1odd", 4 @ _count(icepool.Die(range(2, 7)), lambda v: v % 2 == 1)),
    ("foundry", "6d6cs>=5cf1", 6 @ _count(d6, lambda v: v == 1)),  # cf recasts every result
    ("foundry", "6d6ms<20", 20 - 6 @ d6),
    ("foundry", "{1d20, 1d20}kh+5", icepool.highest(d20, d20) + 5),
    ("foundry", "{1d20+5, 1d20+5, 1d20+5}cs>14", 3 @ _count(d20 + 5, lambda v: v > 14)),
    ("foundry", "floor(3d6/2)", (3 @ d6) // 2),
    ("foundry", "4d6xdl1", d6.explode_to_pool(4, [6], depth=20).lowest(drop=1).sum()),
    ("roll20", "{3d20+5}>21+1", _count(3 @ d20 + 5, lambda v: v >= 21) + 1),
    ("roll20", "{1d20, 1d20, 1d20}>10f<2", 3 @ d20.map(lambda v: 1 if v >= 10 else (-1 if v <= 2 else 0))),
    ("roll20", "{4d6}kh3", icepool.Pool([d6] * 4).highest(3).sum()),  # one roll: its dice kept
    ("roll20", "3d6!dl1", d6.explode_to_pool(3, [6], depth=20).lowest(drop=1).sum()),
    ("roll20", "4d6r1r2", 4 @ icepool.Die(range(3, 7))),  # several points join
    ("roll20", "2d6+3*2", 2 @ d6 + 6),
]


@pytest.mark.parametrize(("dialect", "text", "ref"), COMBINED, ids=lambda x: x if isinstance(x, str) else "")
def test_combinations_mean_what_the_tool_means(dialect, text, ref):
    ours = dice_dist(text, dialect=dialect)
    want = probs_of(ref)
    for v in set(want) | set(ours.to_dict()):
        assert abs(ours.pmf(v) - want.get(v, 0.0)) <= TOL, (text, v)


def test_a_dialects_text_is_read_within_bounds():
    for text, why in (
        ("(" * 40 + "1" + ")" * 40, "nested more than 16 deep"),
        ("1d20+@{strength}", "attributes, queries and macros have no value here"),
        ("\uff11d6", "no part of its dice notation"),
        ("1d6" + "+1" * 10_000, "at most 10,000 characters"),
        ("2d6 + ", "unexpected end of text"),
    ):
        with pytest.raises(NotationError, match=re.escape(why)):
            parse(text, "roll20")


PIECES = [*"0123456789dDfF%+-*/(){},<>=!xkhlrosmnicaevtp[] \\@", "kh", "dl", "min", "max", "cs", "df", "sf"]
PIECES += ["ms", "even", "!!", "!p", "ro", "rr", "xo", "floor(", "ceil(", "d6", "2d6", "4d20", "{", "}"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=30).map("".join),
    st.sampled_from(["roll20", "foundry"]),
)
def test_any_text_is_answered_or_refused_in_one_line(text, dialect):
    try:
        expr = parse(text, dialect)
    except NotationError as exc:
        assert "\n" not in str(exc)
        return
    assert abs(expr.dist().mass + expr.dist().tail - 1.0) <= 1e-9
