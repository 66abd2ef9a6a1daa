"""``critlab encounter``: the exact table and JSON of the example party, and every bad
file or option as one line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
PARTY = str(ROOT / "reports" / "examples" / "party_vs_ogre.toml")

DUEL = """
order = "a-first"
max_rounds = 50
[a]
[[a.combatants]]
name = "hero"
hp = 10
attack = { system = "thac0", thac0 = 15 }
defense = { target_ac = 4 }
[b]
targeting = "random"
[[b.combatants]]
name = "rat"
hp = 4
initiative = 2
attack = { system = "thac0", thac0 = 19, damage = "1d3" }
defense = { target_ac = 7 }
"""


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def duel(tmp_path: Path) -> Path:
    path = tmp_path / "duel.toml"
    path.write_text(DUEL)
    return path


def test_the_json_has_every_setting_and_every_quantity(capsys, duel):
    code, out, err = run(capsys, "encounter", str(duel), "--json")
    assert code == 0, err
    body = json.loads(out)
    assert list(body) == ["encounter", "outcomes", "distributions", "metrics"]
    enc = body["encounter"]
    assert enc["order"] == "a-first" and enc["max_rounds"] == 50
    assert enc["a"]["targeting"] == "focus" and enc["b"]["targeting"] == "random"
    hero = enc["a"]["combatants"][0]
    assert hero["attacks"] == 1 and hero["initiative"] == 0 and hero["attack"]["damage"] == "1d8"
    assert list(body["outcomes"]) == ["a_wins", "b_wins", "draw", "undecided"]
    assert abs(sum(body["outcomes"].values()) - 1) < 1e-12
    assert set(body["distributions"]) == {"rounds", "hp_left_hero", "hp_left_rat"}
    assert "tail" in body["distributions"]["rounds"]
    for name in ("mean_rounds", "p_down_hero", "mean_hp_left_rat", "p_any_down_a", "p_any_down_b"):
        assert isinstance(body["metrics"][name], float)
    # the rat is down exactly when the hero's side won
    assert abs(body["metrics"]["p_down_rat"] - body["outcomes"]["a_wins"]) < 1e-12


def test_the_table_reads_as_percentages(capsys):
    code, out, err = run(capsys, "encounter", PARTY)
    assert code == 0, err
    for text in ("P(a wins)", "P(b wins)", "P(draw)", "P(undecided)", "mean rounds", "ogre", "P(down)"):
        assert text in out
    assert "%" in out


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (("hp = 4", "hp = 0"), "duel.toml: parameter rat.hp = 0: must be an integer in 1..10000"),
        (('order = "a-first"', 'order = "first"'), "parameter order = first"),
        (('targeting = "random"', 'targeting = "all"'), "targeting = all"),
        (("initiative = 2", "initiativ = 2"), r"b.combatants\[1\].initiativ"),
        (("defense = { target_ac = 7 }", "defense = { evasion = 7 }"), "rat.defense.evasion"),
        (("defense = { target_ac = 4 }", ""), r"rat.target_ac = none: is required.*rat attacking hero"),
        (("max_rounds = 50", 'max_rounds = "x"'), "max_rounds = x"),
        (("[b]", "[b"), "not valid TOML"),
    ],
)
def test_a_bad_file_is_one_line_and_exit_2(capsys, tmp_path, change, match):
    path = tmp_path / "duel.toml"
    path.write_text(DUEL.replace(*change))
    code, out, err = run(capsys, "encounter", str(path))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert pytest.importorskip("re").search(match, err), err


def test_simulation_options_need_trials(capsys, duel):
    code, _, err = run(capsys, "encounter", str(duel), "--seed", "3")
    assert code == 2 and "needs --trials" in err


def test_a_missing_file_is_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "encounter", str(tmp_path / "none.toml"))
    assert code == 2 and "none.toml" in err and len(err.strip().splitlines()) == 1


def test_tune_finds_a_monsters_hp_for_a_target_win_rate(capsys, duel):
    from critlab.analysis.encounter.exact import exact_encounter
    from critlab.analysis.encounter.load import load_encounter
    from critlab.analysis.encounter.settings import with_settings

    code, out, err = run(
        capsys, "tune", str(duel), "--vary", "rat.hp=1..12", "--target", "a_wins=0.9", "--top", "3", "--json"
    )
    assert code == 0, err
    body = json.loads(out)
    assert body["target"] == {"quantity": "a_wins", "value": 0.9} and body["skipped"] == 0
    # every hit point computed on its own: the nearest three, nearest first
    enc = load_encounter(duel)
    wins = {hp: exact_encounter(with_settings(enc, {"rat.hp": hp})).outcomes["a_wins"] for hp in range(1, 13)}
    nearest = sorted(wins, key=lambda hp: abs(wins[hp] - 0.9))[:3]
    assert [p["params"]["rat.hp"] for p in body["points"]] == nearest
    assert abs(body["points"][0]["value"] - wins[nearest[0]]) < 1e-12
    assert all(wins[h] > wins[h + 1] for h in range(1, 12))  # a tougher rat wins less often


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("--vary", "troll.hp=1..3", "--target", "a_wins=0.5"), "troll.hp = none: names no combatant"),
        (("--vary", "rat.hp=3..1", "--target", "a_wins=0.5"), "LO <= HI"),
        (("--vary", "rat.hp=1..3", "--target", "a_win=0.5"), "quantity = a_win: is not an outcome"),
        (("--vary", "order=a-first,sideways", "--target", "a_wins=0.5"), "order = sideways"),
        # ASCII digits only, as for a system's --vary (an Arabic-Indic 3 is not an integer here)
        (("--vary", "rat.hp=1,\u0663", "--target", "a_wins=0.5"), "comma list of integers"),
        (("--vary", "rat.hp=1,,3", "--target", "a_wins=0.5"), "empty value"),
    ],
)
def test_tune_mistakes_are_one_line(capsys, duel, args, match):
    code, out, err = run(capsys, "tune", str(duel), *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert pytest.importorskip("re").search(match, err), err


def test_sensitivity_over_an_encounter(capsys, duel):
    code, out, err = run(capsys, "sensitivity", str(duel), "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    hp = {r["quantity"]: r for r in rows if r["param"] == "rat.hp"}
    # one more hit point for the rat: the hero wins less often
    assert hp["a_wins"]["plus_1"] < hp["a_wins"]["at"] < hp["a_wins"]["minus_1"]
    assert {r["param"] for r in rows} >= {"max_rounds", "hero.hp", "hero.thac0", "hero.defense.target_ac"}
