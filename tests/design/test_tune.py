"""Tuning: exact grids, nearest first, ties in grid order, refused and null points
counted, and every bad --vary refused with exit 2 before any work.

Hand-computed expectations: a d20 crit range r crits r/20 of the time; THAC0 15 against
AC 5 needs a natural 10, so with to-hit t the plain hits are the naturals 10 − t .. 19.
"""

from __future__ import annotations

import json

import pytest

from critlab.analysis.cli import main as cli
from critlab.analysis.design import tune as tune_module
from critlab.analysis.design.quantity import QuantityError
from critlab.analysis.design.tune import MAX_GRID, tune, tune_params
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system

CRIT_RANGE = get_system("crit-range")
THAC0 = get_system("thac0")


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_crit_range_nearest_first_with_exact_p_crit(capsys):
    status, out, _ = _run(
        capsys,
        *("tune", "crit-range", "--vary", "crit_range=0..10", "--target", "crit=0.08"),
        *("--attack-bonus", "5", "--evasion", "14", "--json"),
    )
    assert status == 0
    data = json.loads(out)
    assert set(data) == {"system", "params", "target", "points", "skipped", "first_refusal"}
    assert data["system"] == "crit-range" and data["skipped"] == 0
    assert data["target"] == {"quantity": "crit", "value": 0.08}
    assert "crit_range" not in data["params"] and data["params"]["evasion"] == 14
    got = [(p["params"]["crit_range"], p["value"], p["error"]) for p in data["points"]]
    # P(crit) = r / 20: 0.10, 0.05, 0.15, 0.00, 0.20 are 0.02, 0.03, 0.07, 0.08, 0.12 away
    assert [r for r, _, _ in got] == [2, 1, 3, 0, 4]
    for r, value, error in got:
        assert value == pytest.approx(r / 20, abs=1e-12)
        assert error == pytest.approx(r / 20 - 0.08, abs=1e-12)


def test_ties_in_grid_order_first_vary_slowest():
    # P(hit) at THAC0 15: AC 4 needs 11 (0.45), +1 to hit 10 (0.50); AC 5 needs 10 (0.50), +1: 0.55
    spec = THAC0.make_spec(thac0=15, target_ac=5)
    df = tune(spec, vary={"target_ac": [4, 5], "to_hit": [0, 1]}, target=("hit", 0.5), top=4)
    assert list(df.columns) == ["target_ac", "to_hit", "value", "error"]
    assert list(zip(df.target_ac, df.to_hit, strict=True)) == [(4, 1), (5, 0), (4, 0), (5, 1)]
    assert df.value.round(12).tolist() == [0.5, 0.5, 0.45, 0.55]
    swapped = tune(spec, vary={"to_hit": [0, 1], "target_ac": [4, 5]}, target=("hit", 0.5), top=4)
    assert list(zip(swapped.to_hit, swapped.target_ac, strict=True)) == [(0, 5), (1, 4), (0, 4), (1, 5)]


def test_float_noise_does_not_break_a_tie():
    # 0.05 and 0.10 are both 0.025 from 0.075, up to float rounding: grid order decides
    spec = CRIT_RANGE.make_spec(attack_bonus=5, evasion=14)
    df = tune(spec, vary={"crit-range": range(0, 4)}, target=("crit", 0.075), top=2)
    assert df.crit_range.tolist() == [1, 2]


def test_refused_points_are_skipped_and_counted():
    # crit_range + critfail_range <= 20: with critfail 1, ranges 20..22 are refused
    df = tune_params(
        CRIT_RANGE,
        {"attack_bonus": 5, "evasion": 14},
        vary={"crit_range": range(15, 23)},
        target=("crit", 0.5),
        top=10,
    )
    assert df.crit_range.tolist() == [15, 16, 17, 18, 19]
    assert df.attrs["skipped"] == df.attrs["refused"] == 3 and df.attrs["points"] == 8
    assert "crit_range=20" in df.attrs["first_refusal"]


def test_null_quantity_is_skipped_and_counted():
    # without a critfail range the weapon never breaks (null); critfail 1: 10 / (1/20) = 200
    spec = CRIT_RANGE.make_spec(attack_bonus=5, evasion=14)
    df = tune(spec, vary={"critfail_range": range(0, 3)}, target=("mean_attacks_to_break", 200), top=5)
    assert df.critfail_range.tolist() == [1, 2]
    assert df.value.tolist() == pytest.approx([200.0, 100.0])
    assert df.attrs["skipped"] == df.attrs["null"] == 1


def test_choice_parameter_and_sum_of_outcomes():
    # advantage crits 1 − (19/20)² = 39/400; disadvantage 1/400; normal 1/20
    spec = CRIT_RANGE.make_spec(attack_bonus=5, evasion=15)
    df = tune(spec, vary={"roll": ["normal", "advantage", "disadvantage"]}, target=("crit", 0.09))
    assert df.roll.tolist() == ["advantage", "normal", "disadvantage"]
    assert df.value.tolist() == pytest.approx([39 / 400, 1 / 20, 1 / 400], abs=1e-12)
    # hit + crit against evasion 15 at +5: naturals 10..20 = 11/20
    both = tune(spec, vary={"attack_bonus": [5]}, target=("hit+crit", 0.5))
    assert both.value.tolist() == pytest.approx([0.55], abs=1e-12)


def test_cli_choice_list_and_text_output(capsys):
    status, out, _ = _run(
        capsys,
        *("tune", "thac0", "--thac0", "15", "--target-ac", "5", "--vary", "crit-threshold=18,19,20"),
        *("--target", "critical-hit=0.1", "--top", "1"),
    )
    assert status == 0
    # 19-20 hit by >= 5 (need 10): exactly 0.10
    assert "crit_threshold" in out and out.splitlines()[-1].split()[:2] == ["19", "10.00%"]


@pytest.mark.parametrize(
    ("vary", "message"),
    [
        (["foo=1..2"], "parameter foo = 1..2: is not a parameter of crit-range"),
        (["bonus=1..3"], "parameter bonus = 1: is not used in this mode (used when mode is test)"),
        (["crit_range=5..2"], "LO..HI needs LO <= HI, got 5 > 2"),
        (["crit_range=1..2", "crit-range=3..4"], "is varied twice"),
        (["evasion=10..12"], "is also given as --evasion"),
        (["crit_range=0..1000", "critfail_range=0..1000"], "makes 1,002,001 points; at most 100,000"),
        (["crit_range=a..b"], "must be LO..HI or a comma list of integers"),
        (["roll=normal,advnatage"], "parameter roll = advnatage: must be one of normal, advantage"),
        (["crit_range"], "must be PARAM=LO..HI or PARAM=A,B"),
    ],
)
def test_bad_vary_exits_2_with_one_line(capsys, vary, message):
    argv = ["tune", "crit-range", "--target", "crit=0.08", "--attack-bonus", "5", "--evasion", "14"]
    for v in vary:
        argv += ["--vary", v]
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("crti=0.08", "unknown quantity 'crti' for crit-range; outcomes: critfail, miss, hit, crit"),
        ("crit+crit=0.1", "names crit twice"),
        ("crit=abc", "must be QUANTITY=VALUE"),
    ],
)
def test_bad_target_exits_2(capsys, target, message):
    argv = ["tune", "crit-range", "--vary", "crit_range=0..3", "--target", target]
    status, _, err = _run(capsys, *argv, "--attack-bonus", "5", "--evasion", "14")
    assert status == 2 and message in err


def test_grid_size_is_refused_before_anything_is_built(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("the grid was built")

    monkeypatch.setattr(tune_module, "check_axes", boom)
    spec = CRIT_RANGE.make_spec(attack_bonus=5, evasion=14)
    with pytest.raises(SpecError, match="at most 100,000"):
        tune(spec, vary={"evasion": range(10**9), "attack_bonus": range(10)}, target=("crit", 0.1))
    assert MAX_GRID == 10**5


def test_required_parameter_may_be_varied(capsys):
    # thac0 is required: given only by --vary; need = thac0 − 5, P(hit) = (20 − need) / 20 for need 2..20
    status, out, _ = _run(
        capsys, "tune", "thac0", "--target-ac", "5", "--vary", "thac0=10..20", "--target", "hit=0.3", "--json"
    )
    assert status == 0
    points = json.loads(out)["points"]
    assert points[0]["params"] == {"thac0": 19} and points[0]["value"] == pytest.approx(0.3)


def test_crits_cats_target_parameter_shares_the_flag(capsys):
    # challenge: d20 + skill >= target 15; plain successes are the naturals 15 − skill .. 19
    status, out, _ = _run(
        capsys,
        *("tune", "crits-cats", "--mode", "challenge", "--target", "15", "--target", "success=0.5"),
        *("--vary", "skill=0..10", "--json"),
    )
    assert status == 0
    data = json.loads(out)
    assert data["params"]["target"] == 15 and data["points"][0]["params"] == {"skill": 5}


def test_unknown_quantity_in_the_api():
    spec = CRIT_RANGE.make_spec(attack_bonus=5, evasion=14)
    with pytest.raises(QuantityError, match="metrics: expected_damage"):
        tune(spec, vary={"crit_range": [1, 2]}, target=("damage_per_round", 1.0))


def test_fight_quantities_when_hp_is_given():
    pytest.importorskip("critlab.analysis.fight.exact")
    # the rules' reference: THAC0 15 against AC 5, hp 10, one attack a round: median 4 rounds
    spec = THAC0.make_spec(thac0=15, target_ac=5)
    df = tune(spec, vary={"hp": [10]}, target=("median_rounds", 4))
    assert df.value.tolist() == [4.0] and df.error.tolist() == [0.0]


def test_cli_fight_parameters_vary_and_json(capsys):
    pytest.importorskip("critlab.analysis.fight.exact")
    # the rules' reference: P(defeated by round 2) is 141953/819200 with one attack a
    # round and 0.5445361274 with two
    status, out, _ = _run(
        capsys,
        *("tune", "thac0", "--thac0", "15", "--target-ac", "5", "--hp", "10"),
        *("--vary", "attacks-per-round=1..2", "--target", "p_defeated_by_round_2=0.5", "--json"),
    )
    assert status == 0
    data = json.loads(out)
    assert data["fight"] == {"hp": 10}
    assert [p["params"]["attacks_per_round"] for p in data["points"]] == [2, 1]
    assert data["points"][0]["value"] == pytest.approx(0.5445361274, abs=1e-9)
    assert data["points"][1]["value"] == pytest.approx(141953 / 819200, abs=1e-12)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["severity", "--attacker-skill", "1", "--defender-skill", "1", "--vary", "sm=0..2"], "no damage"),
        (["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "0", "--vary", "to_hit=0..1"], "hp = 0"),
        (["thac0", "--thac0", "15", "--target-ac", "5", "--vary", "max_rounds=1..3"], "give hp as well"),
    ],
)
def test_fight_that_cannot_be_exits_2(capsys, argv, message):
    pytest.importorskip("critlab.analysis.fight.exact")
    hp = [] if "--hp" in argv or "max_rounds=1..3" in argv else ["--hp", "10"]
    status, _, err = _run(capsys, "tune", *argv, *hp, "--target", "median_rounds=3")
    assert status == 2 and message in err


def test_progress_bar_on_a_long_grid(capsys):
    # the bar is tqdm's on stderr (drawn after a second); the result does not depend on it
    spec = THAC0.make_spec(thac0=15, target_ac=5)
    grid = {"target_ac": range(-10, 10), "to_hit": range(-15, 15)}
    shown = tune(spec, vary=grid, target=("hit", 0.5), top=3, progress=True)
    quiet = tune(spec, vary=grid, target=("hit", 0.5), top=3, progress=False)
    assert shown.equals(quiet) and shown.attrs["points"] == 600
    assert capsys.readouterr().out == ""
