"""Sensitivity: every quantity at each integer parameter ± 1, against hand-computed
THAC0 and crit-range numbers, refused neighbours as null, and the tornado's order.

THAC0 15 against AC 5 needs a natural 10: plain hits are the naturals 10..19 (0.5), the
natural 20 is a critical hit (hit by 10), doubled 1d8 (9 on average): expected damage
0.5 × 4.5 + 0.05 × 9 = 2.7. Each ±1 of thac0, target_ac or to_hit moves the need by one:
one natural more or fewer hits, 0.05 × 4.5 = 0.225 of damage.
"""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import pytest
from golden.capture import POINTS

from critlab.analysis.cli import main as cli
from critlab.analysis.design.quantity import QuantityError
from critlab.analysis.design.sensitivity import COLUMNS, effects, sensitivity, tornado
from critlab.analysis.design.tune import param_kind
from critlab.analysis.systems import get_system, registry

THAC0 = get_system("thac0")
CRIT_RANGE = get_system("crit-range")
LABELS = ["miss", "fumble", "fumble_reroll_hit", "hit", "natural20_reduced", "critical_hit"]


def test_cli_json_rows_for_every_integer_parameter(capsys):
    status = cli.main(["sensitivity", "thac0", "--thac0", "15", "--target-ac", "5", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    assert set(data) == {"system", "params", "rows"} and data["params"]["thac0"] == 15
    params = list(dict.fromkeys(r["param"] for r in data["rows"]))
    assert params == ["thac0", "target_ac", "to_hit", "crit_threshold"]  # params order
    quantities = [r["quantity"] for r in data["rows"] if r["param"] == "thac0"]
    assert quantities == [*LABELS, "expected_damage"]
    assert all(set(r) == set(COLUMNS) for r in data["rows"])
    by = {(r["param"], r["quantity"]): r for r in data["rows"]}

    def triple(param, quantity):
        r = by[(param, quantity)]
        return [None if r[k] is None else round(r[k], 12) for k in ("at", "minus_1", "plus_1")]

    assert triple("thac0", "hit") == [0.5, 0.55, 0.45]  # thac0 14 needs 9, 16 needs 11
    assert triple("target_ac", "hit") == [0.5, 0.45, 0.55]
    assert triple("to_hit", "miss") == [0.4, 0.45, 0.35]  # naturals 2..9 miss at +0
    assert triple("thac0", "expected_damage") == [2.7, 2.925, 2.475]
    # crits on 19-20: 0.45 × 4.5 + 0.1 × 9 = 2.925; a threshold of 21 is refused
    assert triple("crit_threshold", "expected_damage") == [2.7, 2.925, None]
    assert triple("crit_threshold", "critical_hit") == [0.05, 0.1, None]
    assert triple("to_hit", "fumble") == [0.05, 0.05, 0.05]


def test_text_output(capsys):
    assert cli.main(["sensitivity", "thac0", "--thac0", "15", "--target-ac", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("thac0: ") and "crit_threshold" in out and "null" in out


def test_unused_and_null_parameters_are_left_out():
    # attack mode: bonus and difficulty are null, so they get no rows
    df = sensitivity(CRIT_RANGE.make_spec(attack_bonus=5, evasion=15))
    assert list(dict.fromkeys(df.param)) == [
        "attack_bonus",
        "evasion",
        "crit_range",
        "critfail_range",
        "dt",
        "condition",
    ]
    test = sensitivity(CRIT_RANGE.make_spec(mode="test", bonus=2, difficulty=12))
    assert list(dict.fromkeys(test.param)) == ["crit_range", "critfail_range", "bonus", "difficulty"]


def test_refused_neighbour_and_null_metric_are_nan():
    df = sensitivity(CRIT_RANGE.make_spec(attack_bonus=5, evasion=15, crit_range=0, critfail_range=0))
    crit = df[(df.param == "crit_range") & (df.quantity == "crit")].iloc[0]
    assert crit["at"] == 0 and crit["minus_1"] != crit["minus_1"] and crit["plus_1"] == pytest.approx(0.05)
    # no critfail range: the weapon never breaks (null); one more and it breaks after 10 / (1/20)
    wear = df[(df.param == "critfail_range") & (df.quantity == "mean_attacks_to_break")].iloc[0]
    assert wear["at"] != wear["at"] and wear["minus_1"] != wear["minus_1"]
    assert wear["plus_1"] == pytest.approx(200.0)


def test_effects_order_by_the_larger_change():
    df = sensitivity(THAC0.make_spec(thac0=15, target_ac=5))
    e = effects(df, "expected-damage")
    # ±1 of thac0, AC or to-hit is worth 0.225; a 19-20 threshold 0.225 too (0.05 × 4.5 more)
    assert e.param.tolist() == ["thac0", "target_ac", "to_hit", "crit_threshold"]
    assert e.effect.round(12).tolist() == [0.225] * 4
    assert e.loc[e.param == "crit_threshold", "plus_1"].isna().all()
    crits = effects(df, "critical_hit")
    assert crits.param.tolist()[0] == "crit_threshold" and crits.effect.iloc[0] == pytest.approx(0.05)
    with pytest.raises(QuantityError, match="unknown quantity 'crti'"):
        effects(df, "crti")


def test_tornado_draws_one_bar_pair_per_parameter():
    fig = tornado(THAC0.make_spec(thac0=15, target_ac=5), "hit+critical_hit")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    top_down = [name for _, name in sorted(zip(ax.get_yticks(), labels, strict=True), reverse=True)]
    assert top_down == ["thac0", "target_ac", "to_hit", "crit_threshold"]  # biggest effect on top
    assert len(ax.patches) == 8  # a −1 and a +1 bar for each
    plt.close(fig)


def test_fight_parameters_are_perturbed_too():
    pytest.importorskip("critlab.analysis.fight.exact")
    # the rules' reference: hp 10 is defeated in round 1 with probability 7/320
    df = sensitivity(THAC0.make_spec(thac0=15, target_ac=5), fight={"hp": 10})
    row = df[(df.param == "hp") & (df.quantity == "p_defeated_by_round_1")].iloc[0]
    assert row["at"] == pytest.approx(7 / 320, abs=1e-12)
    assert row["minus_1"] > row["at"] > row["plus_1"]
    median = df[(df.param == "thac0") & (df.quantity == "median_rounds")].iloc[0]
    assert median["at"] == 4


def _argv(params: dict) -> list[str]:
    out = []
    for k, v in params.items():
        out += ["--" + k.replace("_", "-"), str(v).lower() if isinstance(v, bool) else str(v)]
    return out


@pytest.mark.parametrize("name", list(registry()))
def test_every_system_through_the_registry(name, capsys):
    point = POINTS.get(name, [{}])[0]
    assert cli.main(["sensitivity", name, *_argv(point), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    system = registry()[name]
    ints = [k for k, v in data["params"].items() if v is not None and param_kind(system, k)[0] == "int"]
    assert list(dict.fromkeys(r["param"] for r in data["rows"])) == ints
    exact = system.exact(system.make_spec(**point))
    assert len(data["rows"]) == len(ints) * (len(exact.labels) + len(exact.metrics))
    # tune the first integer parameter over its neighbours towards the first outcome's value
    first, label = ints[0], exact.labels[0]
    at = data["params"][first]
    given = {k: v for k, v in point.items() if k != first and k != "target"}
    own_target = ["--target", str(point["target"])] if "target" in point else []
    code = cli.main(
        ["tune", name, *_argv(given), *own_target, "--vary", f"{first}={at - 1}..{at + 1}"]
        + ["--target", f"{label}={exact.outcomes[label]}", "--json"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["points"][0]["error"] == 0  # the spec's own value (or a tie before it)
    assert {first: at} in [p["params"] for p in out["points"] if p["error"] == 0]
    assert out["skipped"] + len(out["points"]) == 3
