"""The work budget of runs of many exact points: the expensive shapes are refused before
any of their work is done (the engines are replaced by ones that fail the test if called),
and the small legal runs are accepted."""

from __future__ import annotations

import pytest

import critlab.analysis.work as work_module
from critlab.analysis.design import cost
from critlab.analysis.design.grid import tune_model
from critlab.analysis.design.points import model_work
from critlab.analysis.design.sensitivity import sensitivity, sensitivity_model
from critlab.analysis.design.sweep import sweep, sweep_fight
from critlab.analysis.design.tune import tune, tune_params
from critlab.analysis.encounter import model as encounter_model
from critlab.analysis.encounter.load import load_encounter
from critlab.analysis.encounter.model import EncounterModel
from critlab.analysis.fight import exact as fight_exact
from critlab.analysis.report import checks as checks_module
from critlab.analysis.report.checks import parse_checks
from critlab.analysis.report.config import ConfigError, load_config, parse_config
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system

THAC0 = get_system("thac0")
PARTY = "reports/examples/party_vs_ogre.toml"


@pytest.fixture
def no_fights(monkeypatch):
    """Every exact fight fails the test: a refusal must come before any."""

    def refuse(*args, **kwargs):
        raise AssertionError("an exact fight was computed before the budget was checked")

    monkeypatch.setattr(fight_exact, "fight_distributions", refuse)


# -- the four expensive shapes ------------------------------------------------------------
def test_a_tune_over_large_fights_is_refused_before_any_fight(no_fights):
    with pytest.raises(
        SpecError, match=r"parameter vary = 100,000 points: need about .* units of exact work"
    ):
        tune_params(
            THAC0, {"thac0": 15, "target_ac": 5}, vary={"hp": range(1, 100_001)}, target=("median_rounds", 10)
        )
    with pytest.raises(SpecError, match="a lower hp"):
        tune(
            THAC0.make_spec(thac0=15, target_ac=5),
            vary={"to_hit": range(-5, 6), "attacks_per_round": range(1, 5)},
            target=("median_rounds", 10),
            fight={"hp": 100_000, "max_rounds": 10**6},
        )


def _section_config(fight: dict) -> dict:
    damage = [f"1d8+{k}" for k in range(2001)]  # × 2 roll modes: 4,002 points
    section = {"kind": "metric_by", "metrics": ["mean_rounds"], "grid": {"damage": damage}}
    section.update(variants="rolls", fight=fight)
    return {
        "systems": {
            "thac0": {
                "params": {"thac0": 15, "target_ac": 5},
                "variants": {
                    "rolls": [{"name": "normal", "roll": "normal"}, {"name": "adv", "roll": "advantage"}]
                },
                "sections": [section, {"kind": "validation"}],
            }
        }
    }


def test_a_report_section_of_4002_expensive_fights_is_a_config_error(no_fights):
    data = _section_config({"hp": 20_000, "max_rounds": 10_000})
    with pytest.raises(ConfigError, match=r"systems\.thac0\.sections\[1\]\.grid: .*4,002 points.*fight\.hp"):
        parse_config(data, "big.toml")


def test_checks_are_bounded_together(monkeypatch):
    row = {"system": "thac0", "params": {"thac0": 15, "target_ac": 5, "hp": 30}, "quantity": "median_rounds"}
    row["max"] = 10
    assert len(parse_checks([row] * 3, "ok.toml")) == 3  # the real budget: three small checks
    # each check's work from its notation, then its fight's: priced in that order
    notation = checks_module.spec_cost(THAC0, {"thac0": 15, "target_ac": 5})
    fight = checks_module.fight_cost(THAC0.make_spec(thac0=15, target_ac=5), {"hp": 30})
    assert notation > 0 and fight > 0
    monkeypatch.setattr(work_module, "BUDGET", 1.5 * notation)  # one check fits, two do not
    with pytest.raises(ConfigError, match=r"checks\[2\]: with the checks before it, .* units of exact work"):
        parse_checks([row] * 3, "tight.toml")
    monkeypatch.setattr(work_module, "BUDGET", 3 * notation + 1.5 * fight)  # one fight fits, two do not
    with pytest.raises(ConfigError, match=r"checks\[2\]: with the other checks, .* units of exact work"):
        parse_checks([row] * 3, "tight.toml")


def test_an_encounter_tune_over_a_large_grid_is_refused_before_its_grid(monkeypatch):
    enc = load_encounter(PARTY)
    calls = []
    real = encounter_model.exact_encounter
    monkeypatch.setattr(encounter_model, "exact_encounter", lambda e: calls.append(e) or real(e))
    vary = {"fighter.hp": range(1, 101), "ogre.hp": range(1, 31)}
    with pytest.raises(SpecError, match=r"parameter vary = 3,000 points: .*smaller encounters"):
        tune_model(EncounterModel(enc), vary=vary, target=("a_wins", 0.75))
    assert len(calls) == 1  # only the quantity's check at the file's own settings


def test_sensitivity_is_bounded(monkeypatch):
    spec = THAC0.make_spec(thac0=15, target_ac=5)
    assert not sensitivity(spec, fight={"hp": 30}).empty  # accepted at the real budget
    monkeypatch.setattr(work_module, "BUDGET", 3 * cost.POINT_COST)
    with pytest.raises(SpecError, match=r"parameter hp = \d+ points: need about"):
        sensitivity(spec, fight={"hp": 30})
    with pytest.raises(SpecError, match="parameter encounter"):
        sensitivity_model(EncounterModel(load_encounter(PARTY)))


# -- the dice are priced before any point (or spec) computes them -------------------------------
@pytest.fixture
def no_dice(monkeypatch):
    """Every dice distribution computed fails the test: a refusal must come before any (a
    spec's checks compute its dice, so no spec may be built either)."""
    from critlab.analysis.dice import terms

    def refuse(expr):
        raise AssertionError(f"the dice of {expr} were computed before the budget was checked")

    monkeypatch.setattr(terms, "_dist_of", refuse)


def test_a_tune_over_heavy_dice_is_refused_before_any_point(no_dice):
    # 861 points of ~0.3-0.6 s each (4-7 minutes); the notation says so at once
    crit = get_system("crit-range")
    params = {"attack_bonus": 5, "damage": "100d1000", "crit_dice": "100d1000"}
    vary = {"crit_range": range(0, 21), "evasion": range(0, 41)}
    with pytest.raises(SpecError, match=r"parameter vary = 861 points: .*smaller dice"):
        tune_params(crit, params, vary=vary, target=("crit", 0.1))


def test_a_tune_varying_heavy_dice_is_refused_before_any_point(no_dice):
    vary = {"damage": [f"100d1000+{k}" for k in range(300)], "target_ac": range(0, 10)}
    with pytest.raises(SpecError, match=r"parameter vary = 3,000 points: .*smaller dice"):
        tune_params(THAC0, {"thac0": 15}, vary=vary, target=("expected_damage", 10))


def test_a_report_section_of_4002_points_of_heavy_dice_is_a_config_error(no_dice):
    data = _section_config({})
    section = data["systems"]["thac0"]["sections"][0]
    section["grid"] = {"damage": [f"100d1000+{k}" for k in range(2001)]}  # × 2 roll modes
    del section["fight"]
    section["metrics"] = ["expected_damage"]
    with pytest.raises(ConfigError, match=r"sections\[1\]\.grid: .*4,002 points.*smaller dice"):
        parse_config(data, "heavy.toml")


def test_200_heavy_fight_checks_are_refused_before_any_check_is_probed(monkeypatch, no_fights):
    from critlab.analysis.design.quantity import Quantity

    def probed(*args, **kwargs):
        raise AssertionError("a check was probed before every check was priced")

    monkeypatch.setattr(Quantity, "value", probed)
    computed = []
    real = fight_exact.attack_damage
    monkeypatch.setattr(fight_exact, "attack_damage", lambda spec: computed.append(spec) or real(spec))
    params = {"thac0": 15, "target_ac": 5, "damage": "100d1000", "hp": 2000}
    row = {"system": "thac0", "params": params, "quantity": "median_rounds", "max": 10}
    with pytest.raises(ConfigError, match=r"checks\[\d\]: with the other checks, .*200 points"):
        parse_checks([row] * 200, "heavy.toml")
    assert len(computed) <= 1  # the same attack's damage once, for all of them


def test_checks_of_heavy_dice_are_refused_before_their_dice(no_dice):
    rows = [
        {
            "system": "thac0",
            "params": {"thac0": 15, "target_ac": 5, "damage": f"100d1000+{k}"},
            "quantity": "hit",
            "min": 0,
        }
        for k in range(600)
    ]
    with pytest.raises(ConfigError, match=r"checks\[\d+\]: with the checks before it"):
        parse_checks(rows, "heavy.toml")


def test_heavy_dice_are_priced_near_what_they_cost():
    # measured on the development machine (a unit 0.26-0.45 ns): a thac0 point over
    # 100d1000 damage takes ~0.03-0.1 s, the dice engine ~0.03 s once; 1d8 ~1 ms a point
    per, once = cost.dice_work("100d1000")
    assert 0.3 * 0.03 / 0.3e-9 <= cost.POINT_COST + per <= 3 * 0.1 / 0.3e-9
    assert 0.3 * 0.03 / 0.3e-9 <= once <= 3 * 0.03 / 0.3e-9
    assert cost.dice_work("1d8")[0] < 0.05 * cost.POINT_COST  # small dice: the point's own work


# -- the model ----------------------------------------------------------------------------
def test_a_grid_costs_its_corners_mean_times_its_points():
    spec = THAC0.make_spec(thac0=15, target_ac=5)
    each = [cost.point_work(spec, {"hp": hp}) for hp in (10, 1000)]
    assert each[1] > each[0] > cost.POINT_COST  # more hp, more work
    corners = cost.corners([("hp", tuple(range(10, 1001)))])
    assert corners == [{"hp": 10}, {"hp": 1000}]
    # a corner past the fight's bound stands for the points just inside it
    assert cost.fight_work(spec, {"hp": 10**6, "max_rounds": 10**6}) == 0.0
    near = cost.fight_work(spec, {"hp": 10**6, "max_rounds": 10**6}, at_limit=True)
    assert near == fight_exact.WORK_LIMIT


def test_dice_work_grows_with_the_expression():
    small, big = cost.dice_work("1d8"), cost.dice_work("100d100")
    assert big[0] > 100 * small[0]  # values spanned: 8 against ~10^4
    assert cost.dice_work("4d6dl1")[1] > cost.dice_work("4d6")[1]  # a pool's steps
    assert cost.dice_work("10d1000!kh5")[1] > 100 * cost.dice_work("1d8")[1]  # ~2 s against ~0.5 ms
    assert cost.dice_once(["4d6dl1", "4d6dl1"]) == cost.dice_work("4d6dl1")[1]  # computed once


# -- small legal runs stay accepted -------------------------------------------------------
def test_small_runs_are_accepted():
    crit = get_system("crit-range")
    df = tune(
        crit.make_spec(attack_bonus=5, evasion=14), vary={"crit_range": range(0, 11)}, target=("crit", 0.08)
    )
    assert len(df) == 5
    assert cost.Work(10**5, cost.POINT_COST).total <= cost.BUDGET  # the largest plain grid a tune takes
    spec = crit.make_spec(attack_bonus=5, evasion=15)
    assert len(sweep(spec, crit_range=range(1, 6), evasion=range(8, 21))) > 0
    assert len(sweep_fight(spec, hp=30, crit_range=[1, 2, 3], damage=["1d8", "2d6"])) > 0
    enc = load_encounter(PARTY)  # the README's encounter tune, estimated point by point
    work = model_work(EncounterModel(enc), [("ogre.hp", tuple(range(20, 41)))], 21, "vary", "fewer points")
    assert work.total <= cost.BUDGET


def test_the_readmes_designer_examples_are_accepted(capsys):
    import re
    import shlex
    from pathlib import Path

    from critlab.analysis.cli.main import main

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    # a mechanic's compiles and the encounter's 21 chains take minutes: the encounter's
    # estimate is held in test_small_runs_are_accepted
    examples = re.findall(r"^\$ critlab ((?:tune|sensitivity) (?!notebooks/|reports/)[^#\n]*)", readme, re.M)
    assert len(examples) >= 3
    for line in examples:
        assert main(shlex.split(line)) == 0, (line, capsys.readouterr().err)
        capsys.readouterr()


def test_the_shipped_configurations_load():
    assert load_config().systems
    designer = load_config("reports/examples/designer.toml")
    assert designer.checks and designer.systems
