"""thac0: the seed's worked examples (seed 004), hand computations, errors, MC vs exact."""

from __future__ import annotations

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
    ],
)
def test_simulation_matches_exact(params):
    spec = Thac0Spec(**params)
    v = validate(exact(spec), simulate(spec, trials=400_000, seed=2024, progress=False), alpha=ALPHA)
    assert v.passed, v.groups
