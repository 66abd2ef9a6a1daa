"""``critlab fight``: the rules' command line, checked against independent derivations."""

from __future__ import annotations

import json

import numpy as np
import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.fight import exact as fight_module


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    status = main(["fight", *argv, "--json"])
    captured = capsys.readouterr()
    return status, json.loads(captured.out) if captured.out else {}


def thac0_damage_by_hand() -> np.ndarray:
    """thac0 15 against AC 5 (need 10), 1d8, crits double, by hand: naturals 1..9 deal
    nothing (1 a fumble), 10..19 hit for 1d8, 20 hits by 10, a critical hit for 2d8."""
    d8 = np.array([0.0] + [1 / 8] * 8)
    two_d8 = np.convolve(d8, d8)
    damage = np.zeros(17)
    damage[0] += 9 / 20
    damage[: d8.size] += 10 / 20 * d8
    damage[: two_d8.size] += 1 / 20 * two_d8
    return damage


def test_rounds_are_convolution_powers_of_the_damage(capsys):
    status, out = run_json(capsys, "thac0", "--thac0", "15", "--target-ac", "5", "--hp", "30")
    assert status == 0
    assert out["fight"] == {"hp": 30, "attacks_per_round": 1, "max_rounds": 1000}
    assert list(out) == ["system", "params", "fight", "outcomes", "distributions", "metrics"]
    rounds = {int(k): v for k, v in out["distributions"]["rounds"].items() if k != "tail"}
    damage = thac0_damage_by_hand()
    total = np.array([1.0])  # S_0 = 0
    by_round = 0.0
    for n in range(1, max(rounds) + 1):
        total = np.convolve(total, damage)
        p_by_n = total[30:].sum()  # P(S_n >= hp): defeated by round n
        by_round += rounds.get(n, 0.0)
        assert by_round == pytest.approx(p_by_n, abs=1e-13), n
    assert out["outcomes"]["defeated"] == pytest.approx(1.0, abs=1e-12)
    three = np.convolve(np.convolve(damage, damage), damage)
    assert out["metrics"]["p_defeated_by_round_3"] == pytest.approx(three[30:].sum(), abs=1e-15)


def test_rules_reference_on_the_command_line(capsys):
    status, out = run_json(capsys, "thac0", "--thac0", "15", "--target-ac", "5", "--hp", "10")
    assert status == 0
    m = out["metrics"]
    assert m["p_defeated_by_round_1"] == pytest.approx(7 / 320, abs=1e-15)
    assert m["median_rounds"] == 4 and round(m["mean_rounds"], 10) == 4.7409396734
    status, out = run_json(
        capsys, "thac0", "--thac0", "15", "--target-ac", "5", "--hp", "10", "--attacks-per-round", "2"
    )
    got = [out["metrics"][f"p_defeated_by_round_{k}"] for k in (1, 2, 3)]
    np.testing.assert_allclose(got, [0.1732824707, 0.5445361274, 0.7956502681], atol=5e-11)


def test_simulated_and_validated(capsys):
    argv = ["crit-range", "--attack-bonus", "5", "--evasion", "15", "--hp", "40", "--attacks-per-round", "2"]
    status, out = run_json(capsys, *argv, "--trials", "200000", "--seed", "1")
    assert status == 0
    assert list(out)[-2:] == ["simulated", "validation"]
    assert out["validation"]["passed"] is True and out["simulated"]["trials"] == 200_000
    assert set(out["simulated"]["distributions"]) == {"rounds", "overkill"}
    assert list(out["validation"]) == [
        "system", "params", "trials", "seed", "alpha", "p_value", "max_abs_z", "passed", "rows",
    ]  # fmt: skip
    # the same seed gives the same simulation on one thread as on two
    status, again = run_json(capsys, *argv, "--trials", "200000", "--seed", "1", "--threads", "1")
    assert again["simulated"] == out["simulated"]


def test_failed_validation_exits_1(capsys, monkeypatch):
    real = fight_module.fight
    # an exact fight of a tougher target than the one simulated: the validation must fail
    monkeypatch.setattr(fight_module, "fight", lambda spec, **p: real(spec, **{**p, "hp": p["hp"] + 4}))
    status, out = run_json(
        capsys, "thac0", "--thac0", "15", "--target-ac", "5", "--hp", "10", "--trials", "50000", "--seed", "2"
    )
    assert status == 1 and out["validation"]["passed"] is False


def test_text_output(capsys):
    assert main(["fight", "thac0", "--thac0", "15", "--target-ac", "5", "--hp", "10"]) == 0
    text = capsys.readouterr().out
    assert "fight: hp=10, attacks_per_round=1, max_rounds=1000" in text
    # P(defeated by round 4) as the docstring of FightResult.p_defeated_by derives it, in percent
    assert "median_rounds" in text and "54.45%" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["thac0", "--thac0", "15", "--target-ac", "5"], "--hp is required"),
        (["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "0"], "parameter hp = 0"),
        (["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "x"], "parameter hp = x"),
        (["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "5", "--max-rounds", "0"], "max_rounds = 0"),
        (["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "5", "--attacks-per-round", "101"], "101"),
        (["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "5", "--seed", "1"], "parameter seed = 1"),
        (["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "5", "--alpha", "0.1"], "parameter alpha"),
        (
            ["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "5", "--trials", "0"],
            "parameter trials = 0",
        ),
        (["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "5", "--damage", "0"], "no attack"),
        (["thac0", "--target-ac", "5", "--hp", "5"], "--thac0 is required"),
        (["severity", "--hp", "5"], "parameter system = severity"),
        (["contest", "--a-skill", "10", "--b-skill", "10", "--hp", "5"], "parameter system = contest"),
        (["crit-range", "--mode", "test", "--bonus", "0", "--difficulty", "9", "--hp", "5"], "mode = test"),
        (["crits-cats", "--mode", "challenge", "--skill", "0", "--hp", "5"], "mode = challenge"),
        (["crits-cats", "--skill", "0", "--opposing-skill", "0", "--hp", "5"], "parameter damage = none"),
        (
            ["thac0", "--thac0", "15", "--target-ac", "5", "--hp", "1000000", "--attacks-per-round", "100"]
            + ["--max-rounds", "1000000"],
            "over the bound",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    assert main(["fight", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("critlab: error: ") and err.count("\n") == 1
    assert message in err
