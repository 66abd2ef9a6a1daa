"""crit-range (attack mode) and thac0 re-expressed as mechanics, each a third, independent
implementation: the exact engine of a plain rule function agrees with the built-in exact
models to 1e-12 over a parameter grid (outcomes, every distribution bin, its tail and
the expected damage), and its simulation passes validation."""

from __future__ import annotations

import itertools

import numba
import pytest

from critlab.analysis.mechanic import Choice, Dice, Int, mechanic, param
from critlab.analysis.systems import get_system
from critlab.analysis.validate import validate

TOL = 1e-12
ROLL = param("normal", Choice("normal", "advantage", "disadvantage"), "the d20 roll mode")


@mechanic(
    labels=("critfail", "miss", "hit", "crit"),
    values=("damage", "crit_bonus"),
    params={
        "roll": ROLL,
        "attack_bonus": param(0, Int(), "added to the natural"),
        "evasion": param(10, Int(), "the defence to reach"),
        "crit_range": param(1, Int(0, 20), "naturals >= 21 - crit_range are CRITs"),
        "critfail_range": param(1, Int(0, 20), "naturals <= critfail_range are CRITFAILs"),
        "crit_dice": param("1d6!", Dice(), "CRIT dice (exploding)"),
        "damage": param("1d10", Dice(), "the weapon's damage"),
        "dt": param(0, Int(0, 1000), "damage threshold"),
        "dr_percent": param(0, Int(0, 99), "damage resistance, in percent"),
    },
    inputs={"d1": "1d20", "d2": "1d20", "base": "{damage}", "bonus": "{crit_dice}"},
)
def crit_range_attack(
    d1, d2, base, bonus, *, roll, attack_bonus, evasion, crit_range, critfail_range, dt, dr_percent
):
    """crit-range's attack mode, written out as the rules read"""
    natural = d1
    if roll == "advantage":
        natural = max(d1, d2)
    elif roll == "disadvantage":
        natural = min(d1, d2)
    if natural <= critfail_range:
        return "critfail", 0, 0
    after_dt = max(0, max(0, base) - dt)
    keep = 100 - dr_percent
    if natural >= 21 - crit_range:
        extra = max(0, bonus)
        return "crit", (after_dt + extra) * keep // 100, extra
    if natural + attack_bonus >= evasion:
        return "hit", after_dt * keep // 100, 0
    return "miss", 0, 0


@numba.njit
def halve(damage, times):
    # [0.5, 1) deals 1, below 0.5 deals 0, else rounded down
    if times >= 62:
        return 0
    if damage >= 2**times:
        return damage // 2**times
    return 1 if 2 * damage >= 2**times else 0


@mechanic(
    labels=("miss", "fumble", "fumble_reroll_hit", "hit", "natural20_reduced", "critical_hit"),
    values=("damage", "severity"),
    params={
        "roll": ROLL,
        "thac0": Int(),
        "target_ac": Int(),
        "to_hit": 0,
        "damage": param("1d8", Dice(), "damage dice"),
        "damage_min": param(1, Int(), "the damage dice's minimum (a fumble reroll hit deals it)"),
        "damage_max": param(8, Int(), "the damage dice's maximum (crit option max)"),
        "crit_threshold": param(20, Int(2, 20), "naturals at or above it may be critical hits"),
        "crit_option": param("double", Choice("double", "max", "severity"), "what a critical hit deals"),
        "severity_dice": param("2d6", Dice(), "severity roll of a critical hit"),
        "fumble_without_reroll": param("fumble", Choice("fumble", "miss"), "label of that natural 1"),
    },
    inputs={
        "d1": "1d20",
        "d2": "1d20",
        "reroll": "1d20",
        "dmg": "{damage}",
        "dmg2": "{damage}",
        "sev": "{severity_dice}",
    },
)
def thac0_attack(
    d1, d2, reroll, dmg, dmg2, sev, *, roll, thac0, target_ac, to_hit, damage_min, damage_max,
    crit_threshold, crit_option, fumble_without_reroll,
):  # fmt: skip
    """thac0, written out as the rules read"""
    need = thac0 - target_ac
    natural = d1
    if roll == "advantage":
        natural = max(d1, d2)
    elif roll == "disadvantage":
        natural = min(d1, d2)
    if natural == 1:
        if 1 + to_hit >= need:
            if to_hit >= need:
                if reroll + to_hit - 20 >= need:
                    return "fumble_reroll_hit", max(0, damage_min), 0
                return "fumble", 0, 0
            return ("miss" if fumble_without_reroll == "miss" else "fumble"), 0, 0
        return "fumble", 0, 0
    hit_by = natural + to_hit - need
    shortfall = need - (20 + to_hit)
    if natural == 20 and shortfall > 10:
        return "natural20_reduced", halve(max(0, dmg), (shortfall - 10 + 4) // 5), 0
    if hit_by >= 0 or natural == 20:
        if natural >= crit_threshold and hit_by >= 5:
            if crit_option == "double":
                return "critical_hit", max(0, dmg) + max(0, dmg2), 0
            if crit_option == "max":
                return "critical_hit", max(0, damage_max), 0
            return "critical_hit", max(0, dmg), sev
        return "hit", max(0, dmg), 0
    return "miss", 0, 0


def assert_dists_agree(ours, theirs, name):
    assert theirs is not None
    lo, hi = min(ours.min, theirs.min), max(ours.max, theirs.max)
    worst = max(abs(ours.pmf(v) - theirs.pmf(v)) for v in range(lo, hi + 1))
    assert worst <= TOL, f"{name}: a bin differs by {worst}"
    assert abs(ours.tail - theirs.tail) <= TOL, name


CRIT_RANGE_GRID = [
    dict(roll=roll, attack_bonus=ab, evasion=ev, crit_range=r, critfail_range=f, damage=dmg, crit_dice=cd,
         dt=dt, dr=dr)
    for (roll, ab, ev, r, f, dmg, cd, dt, dr) in [
        ("normal", 5, 15, 1, 1, "1d10", "1d6", 0, "0"),
        ("normal", 3, 11, 2, 1, "2d6+1", "1d6", 2, "0.25"),
        ("advantage", 5, 15, 1, 1, "1d10", "1d6", 0, "0"),
        ("disadvantage", 0, 20, 3, 2, "1d8-2", "2d4", 1, "0.5"),
        ("normal", -4, 5, 0, 0, "1d12", "1d6", 0, "0"),
        ("advantage", 10, 30, 5, 5, "3d6kh2", "1d8+1", 3, "0.1"),
        ("normal", 0, 10, 10, 10, "4", "1d6", 5, "0"),
        ("disadvantage", 7, 12, 1, 3, "1d4+1d6", "1d10", 0, "0.75"),
    ]
]  # fmt: skip


@pytest.mark.parametrize("point", CRIT_RANGE_GRID, ids=lambda p: "-".join(str(v) for v in p.values()))
def test_crit_range_attack_agrees_with_the_built_in(point):
    built_in = get_system("crit-range")
    theirs = built_in.exact(built_in.make_spec(mode="attack", **point))
    mine = dict(point, crit_dice=point["crit_dice"].replace("+", "!+", 1) if "+" in point["crit_dice"]
                else point["crit_dice"] + "!", dr_percent=round(float(point["dr"]) * 100))  # fmt: skip
    del mine["dr"]
    ours = crit_range_attack.exact(crit_range_attack.make_spec(**mine))
    assert ours.labels == theirs.labels
    for label in ours.labels:
        assert abs(ours.outcomes[label] - theirs.outcomes[label]) <= TOL, label
    for name in ("damage", "crit_bonus"):
        assert_dists_agree(ours.distributions[name], theirs.distributions[name], name)
    assert abs(ours.metrics["mean_damage"] - theirs.metrics["expected_damage"]) <= TOL


THAC0_GRID = list(
    itertools.product(
        ["normal", "advantage", "disadvantage"],
        [
            (15, 5, 0),
            (16, 2, 0),
            (20, -12, 0),
            (18, -12, 0),
            (21, 0, 20),
            (25, -10, 3),
            (10, 8, 1),
            (19, 10, 8),
        ],
        [("1d8", 1, 8, "double", 20), ("2d6+1", 3, 13, "max", 18), ("1d10-2", 0, 8, "severity", 19)],
    )
)


@pytest.mark.parametrize(
    "roll, attack, weapon", THAC0_GRID, ids=lambda v: str(v).replace(" ", "").replace("'", "")
)
def test_thac0_agrees_with_the_built_in(roll, attack, weapon):
    thac0, ac, to_hit = attack
    damage, dmg_min, dmg_max, option, threshold = weapon
    params = dict(roll=roll, thac0=thac0, target_ac=ac, to_hit=to_hit, damage=damage,
                  crit_threshold=threshold, crit_option=option)  # fmt: skip
    built_in = get_system("thac0")
    for fumble in ("fumble", "miss"):
        theirs = built_in.exact(built_in.make_spec(**params, fumble_without_reroll=fumble))
        spec = thac0_attack.make_spec(
            **params, fumble_without_reroll=fumble, damage_min=dmg_min, damage_max=dmg_max
        )
        ours = thac0_attack.exact(spec)
        for label in ours.labels:
            assert abs(ours.outcomes[label] - theirs.outcomes[label]) <= TOL, label
        assert_dists_agree(ours.distributions["damage"], theirs.distributions["damage"], "damage")
        if option == "severity":
            assert_dists_agree(ours.distributions["severity"], theirs.distributions["severity"], "severity")
        assert abs(ours.metrics["mean_damage"] - theirs.metrics["expected_damage"]) <= TOL


def test_the_re_expressions_simulate_and_validate():
    spec = crit_range_attack.make_spec(roll="advantage", attack_bonus=5, evasion=15)
    sim = crit_range_attack.simulate(spec, trials=100_000, seed=4, progress=False)
    assert validate(crit_range_attack.exact(spec), sim).passed
    # the rules' reference: advantage crits 39/400 of the time
    assert crit_range_attack.exact(spec).outcomes["crit"] == pytest.approx(39 / 400, abs=1e-15)
    spec = thac0_attack.make_spec(thac0=15, target_ac=5, crit_option="severity", crit_threshold=18)
    sim = thac0_attack.simulate(spec, trials=100_000, seed=5, progress=False)
    assert validate(thac0_attack.exact(spec), sim).passed
