"""The designer tools' contracts on skipped points and narrowing (docs/rules.md,
"Designer tools"): a tune's skipped points are never silent (one stderr line with how
many and the first refusal's reason, ``first_refusal`` in ``--json``), a tune of which no
point has a value exits 2 with that reason, for systems and encounter files alike; a
sensitivity takes ``--only`` and ``--quantities`` (its budget counts only what it
computes), and its text leaves out rows whose three values are equal (``--json`` keeps
them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import critlab.analysis.encounter.work as encounter_work_module
import critlab.analysis.work as work_module
from critlab.analysis.cli import main as cli
from critlab.analysis.design.grid import tune_model
from critlab.analysis.design.sensitivity import changing, sensitivity, sensitivity_model
from critlab.analysis.design.tune import tune_params
from critlab.analysis.encounter.load import load_encounter
from critlab.analysis.encounter.model import EncounterModel
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system

CRIT_RANGE = get_system("crit-range")
THAC0 = get_system("thac0")
CRIT = ("--attack-bonus", "5", "--evasion", "14")
DUEL = """
order = "a-first"
max_rounds = 50
[[a.combatants]]
name = "hero"
hp = 10
attack = { system = "thac0", thac0 = 15 }
defense = { target_ac = 4 }
[[b.combatants]]
name = "rat"
hp = 4
attack = { system = "thac0", thac0 = 19, damage = "1d3" }
defense = { target_ac = 7 }
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err: str, *words: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def duel(tmp_path: Path) -> Path:
    path = tmp_path / "duel.toml"
    path.write_text(DUEL, encoding="utf-8")
    return path


# -- tune: skipped points are never silent ------------------------------------------------
def test_a_systems_skipped_points_are_one_stderr_line_with_the_first_reason(capsys):
    # crit_range + critfail_range <= 20: with critfail 1, ranges 20..22 are refused
    argv = ("tune", "crit-range", "--vary", "crit_range=15..22", "--target", "crit=0.5", *CRIT)
    status, out, err = run(capsys, *argv)
    assert status == 0 and "crit_range" in out
    one_line(err, "3 of 8 points skipped", "3 refused", "first refused at crit_range=20", "at most 20")
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0
    body = json.loads(out)
    assert body["skipped"] == 3 and body["first_refusal"].startswith("at crit_range=20: ")
    assert body["first_refusal"] in err


def test_a_tune_without_skips_says_nothing_and_its_json_has_a_null_first_refusal(capsys):
    argv = ("tune", "crit-range", "--vary", "crit_range=0..3", "--target", "crit=0.1", *CRIT, "--json")
    status, out, err = run(capsys, *argv)
    assert status == 0 and err == ""
    assert json.loads(out)["first_refusal"] is None


@pytest.mark.parametrize("json_flag", [(), ("--json",)], ids=["text", "json"])
def test_a_tune_whose_every_point_is_refused_exits_2_with_the_reason(capsys, json_flag):
    argv = ("tune", "thac0", "--vary", "hp=-5..-1", "--target", "median_rounds=3", "--thac0", "15")
    status, out, err = run(capsys, *argv, "--target-ac", "5", *json_flag)
    assert status == 2 and out == ""
    one_line(
        err, "vary = 5 points", "no point has a value", "5 refused", "first refused at hp=-5", "1..1000000"
    )


def test_a_tune_whose_quantity_is_null_everywhere_exits_2(capsys):
    # without a critfail range the weapon never breaks: its mean attacks to break is null
    argv = ("tune", "crit-range", "--vary", "critfail_range=0", "--target", "mean_attacks_to_break=10", *CRIT)
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    one_line(err, "no point has a value", "1 with a null mean_attacks_to_break", "null at every point")


def test_the_api_raises_when_no_point_has_a_value():
    with pytest.raises(SpecError, match=r"no point has a value .*first refused at crit_range=21"):
        tune_params(
            CRIT_RANGE,
            {"attack_bonus": 5, "evasion": 14},
            vary={"crit_range": [21, 22]},
            target=("crit", 0.1),
        )


def test_an_encounters_skipped_points_are_one_stderr_line_and_in_its_json(capsys, duel):
    argv = ("tune", str(duel), "--vary", "rat.hp=-1..3", "--target", "a_wins=0.9")
    status, out, err = run(capsys, *argv)
    assert status == 0 and "rat.hp" in out
    one_line(err, "2 of 5 points skipped", "2 refused", "first refused at rat.hp=-1")
    status, out, err = run(capsys, *argv, "--json")
    body = json.loads(out)
    assert status == 0 and body["skipped"] == 2 and body["first_refusal"].startswith("at rat.hp=-1: ")
    attrs = tune_model(
        EncounterModel(load_encounter(duel)), vary={"rat.hp": range(-1, 4)}, target=("a_wins", 0.9)
    ).attrs
    assert attrs["refused"] == 2 and attrs["null"] == 0


def test_an_encounter_tune_whose_every_point_is_refused_exits_2(capsys, duel):
    status, out, err = run(capsys, "tune", str(duel), "--vary", "rat.hp=-3..0", "--target", "a_wins=0.9")
    assert status == 2 and out == ""
    one_line(err, "vary = 4 points", "no point has a value", "first refused at rat.hp=-3")


# -- sensitivity: --only, --quantities, unchanged rows ------------------------------------
def test_a_systems_sensitivity_narrowed_by_only_and_quantities(capsys):
    argv = ("sensitivity", "thac0", "--thac0", "15", "--target-ac", "5")
    status, out, _ = run(
        capsys, *argv, "--only", "to-hit,thac0", "--quantities", "hit,expected-damage", "--json"
    )
    assert status == 0
    rows = json.loads(out)["rows"]
    # the parameters in params order (thac0 before to_hit), the quantities in the result's
    assert [(r["param"], r["quantity"]) for r in rows] == [
        ("thac0", "hit"),
        ("thac0", "expected_damage"),
        ("to_hit", "hit"),
        ("to_hit", "expected_damage"),
    ]
    full = sensitivity(THAC0.make_spec(thac0=15, target_ac=5))
    for r in rows:
        same = full[(full.param == r["param"]) & (full.quantity == r["quantity"])].iloc[0]
        # JSON writes 15 significant digits
        expected = [same["at"], same["minus_1"], same["plus_1"]]
        assert [r["at"], r["minus_1"], r["plus_1"]] == pytest.approx(expected, abs=1e-14)


def test_a_narrowed_sensitivity_fits_a_budget_the_whole_one_does_not(monkeypatch):
    spec = THAC0.make_spec(thac0=15, target_ac=5)
    params = len(sensitivity(spec).param.unique())
    one = 2 * (work_module.POINT_COST + 1e6)  # a point and a little: fits 1 + 2 points, not 1 + 2 * params
    monkeypatch.setattr(work_module, "BUDGET", 3 * one)
    assert params > 1
    with pytest.raises(SpecError, match=r"parameter spec = .* points: need about"):
        sensitivity(spec)
    assert set(sensitivity(spec, only=["to_hit"]).param) == {"to_hit"}


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--only", "nope", ["only = nope", "thac0, target_ac"]),
        ("--only", "thac0,thac0", ["only = thac0", "twice"]),
        ("--only", "thac0,,to_hit", ["empty"]),
        ("--only", "damage", ["only = damage", "integer parameter"]),
        ("--quantities", "nope", ["quantities = nope", "expected_damage"]),
    ],
)
def test_bad_narrowing_is_one_line_and_exit_2(capsys, flag, value, words):
    status, out, err = run(capsys, "sensitivity", "thac0", "--thac0", "15", "--target-ac", "5", flag, value)
    assert status == 2 and out == ""
    one_line(err, *words)


def test_the_text_leaves_out_rows_whose_three_values_are_equal(capsys):
    argv = ("sensitivity", "thac0", "--thac0", "15", "--target-ac", "5")
    status, out, _ = run(capsys, *argv, "--json")
    rows = json.loads(out)["rows"]
    steady = [r for r in rows if r["at"] == r["minus_1"] == r["plus_1"]]
    assert any(r["param"] == "to_hit" and r["quantity"] == "fumble" for r in steady)  # 1/20 whatever to_hit
    status, text, _ = run(capsys, *argv)
    assert status == 0
    table = [line.split() for line in text.splitlines()[2:-1]]
    assert ["to_hit", "fumble", "0.05", "0.05", "0.05"] not in table
    assert len(table) == len(rows) - len(steady)
    assert f"{len(steady)} rows with the same value" in text.splitlines()[-1]


def test_changing_keeps_a_row_whose_neighbour_is_refused():
    full = sensitivity(THAC0.make_spec(thac0=15, target_ac=5))
    kept = changing(full)
    refused = full[full.plus_1.isna() & full["at"].notna()]
    assert len(refused) and refused.index.isin(kept.index).all()


def test_an_encounters_sensitivity_narrowed_and_its_text(capsys, duel):
    argv = ("sensitivity", str(duel), "--only", "rat.hp,hero.thac0", "--quantities", "a_wins,draw")
    status, out, _ = run(capsys, *argv, "--json")
    assert status == 0
    rows = json.loads(out)["rows"]
    assert [(r["param"], r["quantity"]) for r in rows] == [
        ("hero.thac0", "a_wins"),
        ("hero.thac0", "draw"),
        ("rat.hp", "a_wins"),
        ("rat.hp", "draw"),
    ]
    status, text, _ = run(capsys, *argv)
    assert status == 0
    moving = [(r["param"], r["quantity"]) for r in rows if not r["at"] == r["minus_1"] == r["plus_1"]]
    assert ("rat.hp", "a_wins") in moving  # a tougher rat: the hero wins less often
    lines = text.splitlines()
    table = [tuple(line.split()[:2]) for line in lines[1:] if not line.startswith("(")]
    assert table == moving
    assert (len(moving) < len(rows)) == lines[-1].startswith("(")


def test_an_encounters_narrowed_sensitivity_fits_its_budget(monkeypatch, duel):
    enc = load_encounter(duel)
    whole = sensitivity_model(EncounterModel(enc))
    assert whole.param.nunique() > 2
    monkeypatch.setattr(work_module, "BUDGET", 3 * encounter_work_module.encounter_work(enc) * 1.01)
    with pytest.raises(SpecError, match="parameter encounter"):
        sensitivity_model(EncounterModel(enc))
    assert set(sensitivity_model(EncounterModel(enc), only=["rat.hp"]).param) == {"rat.hp"}
    with pytest.raises(SpecError, match="only = ogre.hp: is not an integer setting"):
        sensitivity_model(EncounterModel(enc), only=["ogre.hp"])
