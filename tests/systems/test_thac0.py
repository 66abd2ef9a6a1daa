"""thac0: the seed's worked examples (seed 004), hand computations, errors, MC vs exact."""

from __future__ import annotations

import numpy as np
import pytest

from critlab.analysis.spec import SpecError
from critlab.analysis.systems.thac0 import Thac0Spec, exact, halve, simulate
from critlab.analysis.validate import validate

# Significance for MC-vs-exact checks: fixed seeds make each verdict reproducible, and at
# 1e-3 a real bias of a few percent in any label at these trial counts is still caught.
ALPHA = 1e-3


def test_seed_thac0_18_vs_ac_minus_12_hits_normally():
    # seed 004: THAC0 18, natural 20, AC -12 is "exactly 10 lower ... it hits normally"
    r = exact(Thac0Spec(thac0=18, target_ac=-12))
    assert r.outcomes["hit"] == pytest.approx(0.05)
    assert r.outcomes["natural20_reduced"] == 0.0


def test_seed_thac0_20_vs_ac_minus_12_half_damage():
    # seed 004: effective THAC0 20 against AC -12 only does half damage
    r = exact(Thac0Spec(thac0=20, target_ac=-12, damage="1d8"))
    assert r.outcomes["natural20_reduced"] == pytest.approx(0.05)
    # 1d8 halved once: 1 -> 0.5 -> 1 point; 2,3 -> 1; 4,5 -> 2; 6,7 -> 3; 8 -> 4
    expected = {1: 3 / 8, 2: 2 / 8, 3: 2 / 8, 4: 1 / 8}
    dmg = r.distributions["damage"]
    for v, p in expected.items():
        assert dmg.pmf(v) == pytest.approx(0.05 * p)


def test_seed_thac0_16_vs_ac_2_is_critical_hit():
    # seed 004: THAC0 16, natural 20 against AC 2 hits by 6: a critical hit
    r = exact(Thac0Spec(thac0=16, target_ac=2))
    assert r.outcomes["critical_hit"] == pytest.approx(0.05)


def test_halving_rounds_as_the_seed_says():
    assert halve([8, 1, 3, 1], 1).tolist() == [4, 1, 1, 1]
    assert halve([1, 2, 3, 4], 2).tolist() == [0, 1, 1, 1]


def test_fumble_reroll_hand_computed():
    # need 10 - 0 = 10, to_hit 12: the 1 would hit (13 >= 10) and a reroll can hit:
    # reroll + 12 - 20 >= 10 -> reroll >= 18: 3 faces of 20.
    r = exact(Thac0Spec(thac0=10, target_ac=0, to_hit=12))
    assert r.outcomes["fumble_reroll_hit"] == pytest.approx(0.05 * 3 / 20)
    assert r.outcomes["fumble"] == pytest.approx(0.05 * 17 / 20)


def test_fumble_without_reroll_label():
    # need 10, to_hit 9: a 1 would hit (10 >= 10) but to_hit < need, so no reroll.
    base = dict(thac0=10, target_ac=0, to_hit=9)
    assert exact(Thac0Spec(**base)).outcomes["fumble"] == pytest.approx(0.05)
    r = exact(Thac0Spec(**base, fumble_without_reroll="miss"))
    assert r.outcomes["fumble"] == 0.0 and r.outcomes["miss"] == pytest.approx(0.05)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("crit_threshold", 1),
        ("crit_threshold", 21),
        ("crit_option", "triple"),
        ("damage", "1d0"),
        ("to_hit", 1001),
        ("thac0", None),
    ],
)
def test_bad_parameters_name_themselves(field, value):
    kwargs = dict(thac0=15, target_ac=5)
    kwargs[field] = value
    with pytest.raises(SpecError, match=field):
        Thac0Spec(**kwargs)


def test_max_option_rejects_exploding_damage():
    with pytest.raises(SpecError, match="damage"):
        Thac0Spec(thac0=15, target_ac=5, damage="1d6!", crit_option="max")


@pytest.mark.parametrize(
    "params",
    [
        dict(thac0=10, target_ac=0, to_hit=12),  # fumble rerolls
        dict(thac0=20, target_ac=-20, damage="2d4+1"),  # natural 20s reduced 2 times
        dict(thac0=5, target_ac=10, crit_threshold=15, crit_option="severity"),
        dict(thac0=19, target_ac=6, damage="1d12-3", crit_option="max", fumble_without_reroll="miss"),
        # those drawn with the d20 as one draw under a roll mode; an exploding die drawn apart
        dict(thac0=10, target_ac=0, to_hit=12, damage="2d6", roll="advantage"),
        dict(thac0=5, target_ac=10, crit_threshold=15, crit_option="severity", roll="disadvantage"),
        dict(thac0=15, target_ac=2, damage="1d6!+1", roll="advantage"),
    ],
)
def test_simulation_matches_exact(params):
    spec = Thac0Spec(**params)
    v = validate(exact(spec), simulate(spec, trials=400_000, seed=2024, progress=False), alpha=ALPHA)
    assert v.passed, v.groups


# -- d20 roll modes: every case counted over the 400 ordered pairs of d20s ---------------
PAIRS = [(a, b) for a in range(1, 21) for b in range(1, 21)]


def kept_counts(roll: str) -> dict[int, int]:
    """How many of the 400 pairs keep each natural."""
    pick = max if roll == "advantage" else min
    counts = dict.fromkeys(range(1, 21), 0)
    for a, b in PAIRS:
        counts[pick(a, b)] += 1
    return counts


@pytest.mark.parametrize("roll", ["advantage", "disadvantage"])
def test_roll_mode_thac0_15_vs_ac_5(roll):
    # need 10: a kept 1 fumbles (it would not hit), 2-9 miss, 10-19 hit, 20 hits by 10: critical
    n = kept_counts(roll)
    r = exact(Thac0Spec(thac0=15, target_ac=5, roll=roll))
    expected = {
        "fumble": n[1],
        "miss": sum(n[k] for k in range(2, 10)),
        "hit": sum(n[k] for k in range(10, 20)),
        "critical_hit": n[20],
    }
    for label, count in expected.items():
        assert r.outcomes[label] == pytest.approx(count / 400, abs=1e-12)
    # advantage: 39/400 critical hits (1 - (19/20)^2) and 280/400 hits; 1d8 averages 4.5
    assert n[20] == (39 if roll == "advantage" else 1)
    damage = (expected["hit"] * 4.5 + expected["critical_hit"] * 9) / 400
    assert r.metrics["expected_damage"] == pytest.approx(damage, abs=1e-10)


@pytest.mark.parametrize("roll", ["advantage", "disadvantage"])
def test_roll_mode_fumble_reroll_is_a_plain_d20(roll):
    # need 10, to_hit 12: a kept 1 rerolls one plain d20 at -20, hitting on 18-20 (3 in 20),
    # whatever the roll mode; under disadvantage a kept 1 comes up 39 times in 400
    n = kept_counts(roll)
    r = exact(Thac0Spec(thac0=10, target_ac=0, to_hit=12, roll=roll))
    assert r.outcomes["fumble_reroll_hit"] == pytest.approx(n[1] / 400 * 3 / 20, abs=1e-12)
    assert r.outcomes["fumble"] == pytest.approx(n[1] / 400 * 17 / 20, abs=1e-12)
    assert r.outcomes["critical_hit"] == pytest.approx(n[20] / 400, abs=1e-12)
    assert r.outcomes["hit"] == pytest.approx(sum(n[k] for k in range(2, 20)) / 400, abs=1e-12)


def test_advantage_natural_20_reduced():
    # THAC0 20 against AC -12: only a kept 20 hits (at half damage), with advantage 39/400
    r = exact(Thac0Spec(thac0=20, target_ac=-12, roll="advantage"))
    assert r.outcomes["natural20_reduced"] == pytest.approx(39 / 400, abs=1e-12)
    assert r.outcomes["fumble"] == pytest.approx(1 / 400, abs=1e-12)
    assert r.outcomes["miss"] == pytest.approx(360 / 400, abs=1e-12)
    # 1d8 halved once averages 2.125 (half a point still deals 1)
    assert r.metrics["expected_damage"] == pytest.approx(39 / 400 * 2.125, abs=1e-12)


@pytest.mark.parametrize("roll", ["advantage", "disadvantage"])
@pytest.mark.parametrize(
    "params",
    [
        dict(thac0=15, target_ac=5),
        dict(thac0=10, target_ac=0, to_hit=12, crit_threshold=18, crit_option="severity"),
        dict(thac0=20, target_ac=-20, damage="2d4+1"),
    ],
)
def test_roll_mode_simulation_matches_exact(roll, params):
    spec = Thac0Spec(**params, roll=roll)
    v = validate(exact(spec), simulate(spec, trials=200_000, seed=77, progress=False), alpha=ALPHA)
    assert v.passed, v.groups


@pytest.mark.parametrize("roll", ["normal", "advantage"])
def test_numpy_bench_is_the_same_attack(roll):
    from benchmarks.thac0 import BENCH_SPEC, dice_floor, numpy_attack
    from critlab.analysis.validate import chi_square

    spec = Thac0Spec(**BENCH_SPEC, roll=roll)
    ex = exact(spec)
    labels, damage_hist, _ = numpy_attack(roll)(200_000)
    assert chi_square(ex.probs, labels)[2] > ALPHA
    d = ex.distributions["damage"]
    assert chi_square(np.array([d.pmf(v) for v in range(17)]), damage_hist)[2] > ALPHA
    assert dice_floor(spec)(1000, 1)[0] == 1000  # the floor draws every trial
