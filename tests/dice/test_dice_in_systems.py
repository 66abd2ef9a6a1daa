"""The extended dice notation wherever a dice parameter is accepted: crit-range's damage
and crit dice (which always explode) exactly and against the simulation."""

from __future__ import annotations

import json

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.dice.notation import dice_dist

BASE = ["--attack-bonus", "5", "--evasion", "15"]


def run_json(argv: list[str], capsys) -> tuple[int, dict]:
    status = main([*argv, "--json"])
    return status, json.loads(capsys.readouterr().out)


def test_crit_range_damage_with_a_reroll(capsys):
    status, out = run_json(["exact", "crit-range", *BASE, "--damage", "2d6ro<=2"], capsys)
    assert status == 0 and out["params"]["damage"] == "2d6ro<=2"
    # naturals 10..19 hit, 20 is a crit (2d6ro<=2 plus an exploding 1d6): 25/3 each, 4.2 more
    expected = 0.5 * 25 / 3 + 0.05 * (25 / 3 + 4.2)
    assert out["metrics"]["expected_damage"] == pytest.approx(expected, abs=1e-9)
    assert sum(out["distributions"]["damage"].values()) == pytest.approx(1.0, abs=1e-12)


def test_crit_range_crit_dice_with_an_explosion_threshold(capsys):
    status, out = run_json(["exact", "crit-range", *BASE, "--crit-dice", "1d6!>=5"], capsys)
    assert status == 0
    bonus = out["distributions"]["crit_bonus"]
    assert 0 < bonus["tail"] < 1e-12 and sum(bonus.values()) == pytest.approx(1.0, abs=1e-12)
    mean = sum(int(v) * p for v, p in bonus.items() if v != "tail")
    assert mean == pytest.approx(0.05 * 21 / 4, abs=1e-9)  # per trial: 0 off a crit


def test_crit_dice_without_a_bang_explode_keeping_their_reroll(capsys):
    # the rules: a crit-dice term without '!' explodes on its maximum as if '!' were written
    _, out = run_json(["exact", "crit-range", *BASE, "--crit-dice", "1d6ro1"], capsys)
    bonus = {int(v): p for v, p in out["distributions"]["crit_bonus"].items() if v != "tail"}
    ref = dice_dist("1d6ro1!")
    assert bonus[0] == pytest.approx(0.95, abs=1e-12)
    for v in range(1, 30):
        assert bonus.get(v, 0.0) == pytest.approx(0.05 * ref.pmf(v), abs=1e-15)


@pytest.mark.parametrize(
    "flags", [["--damage", "2d6ro<=2"], ["--crit-dice", "1d6!>=5"], ["--damage", "4d6!kh2"]]
)
def test_crit_range_validates(flags, capsys):
    status, out = run_json(
        ["validate", "crit-range", *BASE, *flags, "--trials", "1000000", "--seed", "1", "--no-progress"],
        capsys,
    )
    assert status == 0 and out["passed"], out["p_value"]


# Each form of the field's notation, simulated die by die inside a system's dice parameter
# (crit-range's damage, floored at 0) and held against its exact distribution.
FORMS = [
    "1d6rr2",  # equality selectors
    "2d6ro<3",
    "2d6mi3",  # clamps
    "1d8ma6",
    "1d6!o",  # explosion kinds
    "2d6!=3",
    "1d6!p",
    "5d10x10cs>=8",
    "4d6xkh3",
    "10d10cs>=6df=1",  # counts
    "6d6cf<=2",
    "4d6k2cs=6",
    "4dF+2",  # faces
    "1d%",
    "2d{1,1,2}",
    "2d6*2",  # scale
    "1d6/2+1",
    "1d20+5>=15",  # a comparison
    "{1d8!, 1d6!}kh1",  # groups
    "{d6, d6, d8, d12}kh2",
    "{1d6, 1d8, 1d10}cs>=5",
]


@pytest.mark.parametrize("damage", FORMS)
def test_each_form_validates_as_damage(damage, capsys):
    status, out = run_json(
        [
            "validate",
            "crit-range",
            *BASE,
            "--damage",
            damage,
            "--trials",
            "400000",
            "--seed",
            "3",
            "--no-progress",
        ],
        capsys,
    )
    assert status == 0 and out["passed"], (damage, out["p_value"])
