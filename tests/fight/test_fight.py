"""The exact fight: the rules' reference, independent derivations, brute force, errors."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from critlab.analysis.dist import Dist
from critlab.analysis.fight.exact import CUT, Fight, FightResult, fight, fight_distributions
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system


def thac0_spec(**kw):
    return get_system("thac0").make_spec(thac0=15, target_ac=5, **kw)


def by_round(result, n):
    """P(defeated by round 1..n) read off the rounds distribution."""
    rounds = result.distributions["rounds"]
    return np.array([sum(rounds.pmf(r) for r in range(1, k + 1)) for k in range(1, n + 1)])


def test_rules_reference_one_attack_a_round():
    r = fight(thac0_spec(), hp=10)
    expected = [
        Fraction(7, 320),
        Fraction(141953, 819200),
        Fraction(191544131, 524288000),
        0.5445361274,
        0.6890116847,
    ]
    got = by_round(r, 5)
    np.testing.assert_allclose(got[:3], [float(x) for x in expected[:3]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(got[3:], expected[3:], rtol=0, atol=5e-11)
    assert r.metrics["median_rounds"] == 4
    # the rules give 10 decimals: these round to them
    assert round(r.metrics["mean_rounds"], 10) == 4.7409396734
    assert round(r.distributions["overkill"].mean, 10) == 2.8005371181
    for k in (1, 2, 3):
        assert r.metrics[f"p_defeated_by_round_{k}"] == pytest.approx(got[k - 1], abs=1e-15)


def test_rules_reference_two_attacks_a_round():
    r = fight(thac0_spec(), hp=10, attacks_per_round=2)
    got = [r.metrics[f"p_defeated_by_round_{k}"] for k in (1, 2, 3)]
    np.testing.assert_allclose(got, [0.1732824707, 0.5445361274, 0.7956502681], rtol=0, atol=5e-11)


def test_result_shape_and_cut_mass():
    r = fight(thac0_spec(), hp=10)
    assert isinstance(r, FightResult) and isinstance(r, ExactResult)
    assert r.labels == ("defeated", "undecided")
    assert r.params == thac0_spec().params()
    assert r.fight == Fight(hp=10)
    rounds, overkill = r.distributions["rounds"], r.distributions["overkill"]
    # all cut mass is the tail of both distributions and counted in undecided
    assert 0 < rounds.tail < CUT and rounds.tail == overkill.tail
    assert r.outcomes["undecided"] == pytest.approx(rounds.tail, abs=1e-18)
    assert rounds.mass + rounds.tail == pytest.approx(1, abs=1e-14)
    body = r.to_json()
    assert list(body) == ["system", "params", "fight", "outcomes", "distributions", "metrics"]
    assert body["fight"] == {"hp": 10, "attacks_per_round": 1, "max_rounds": 1000}
    assert set(body["distributions"]["rounds"]) >= {"1", "4", "tail"}


@pytest.mark.parametrize("hp", [1, 7, 30])
def test_rounds_are_convolution_powers(hp):
    """P(defeated by round n) = P(S_n >= hp), S_n the sum of n attacks' damage."""
    damage = get_system("thac0").exact(thac0_spec()).distributions["damage"]
    r = fight(thac0_spec(), hp=hp)
    n = 40
    direct = np.array([damage.repeat(k).sf(hp - 1) for k in range(1, n + 1)])
    np.testing.assert_allclose(by_round(r, n), direct, rtol=0, atol=1e-14)


def test_several_attacks_a_round_is_one_attack_of_their_sum():
    damage = get_system("thac0").exact(thac0_spec()).distributions["damage"]
    a = fight_distributions(damage, Fight(hp=25, attacks_per_round=3))
    b = fight_distributions(damage.repeat(3), Fight(hp=25))
    assert a.rounds.allclose(b.rounds, atol=1e-15)
    assert a.overkill.allclose(b.overkill, atol=1e-15)


def brute_force(damage: dict[int, Fraction], hp: int, k: int, max_rounds: int):
    """Every sequence of max_rounds * k attacks, played out round by round."""
    labels = {"defeated": Fraction(0), "undecided": Fraction(0)}
    rounds: dict[int, Fraction] = {}
    overkill: dict[int, Fraction] = {}
    for seq in itertools.product(damage, repeat=max_rounds * k):
        p = Fraction(1)
        for d in seq:
            p *= damage[d]
        total, played, over = 0, max_rounds, 0
        for r in range(max_rounds):
            total += sum(seq[r * k : (r + 1) * k])
            if total >= hp:
                played, over = r + 1, total - hp
                break
        labels["defeated" if total >= hp else "undecided"] += p
        rounds[played] = rounds.get(played, 0) + p
        overkill[over] = overkill.get(over, 0) + p
    return labels, rounds, overkill


@pytest.mark.parametrize(("hp", "k", "max_rounds"), [(4, 2, 3), (1, 1, 5), (6, 3, 2), (9, 1, 6)])
def test_brute_force(hp, k, max_rounds):
    damage = {0: Fraction(1, 2), 1: Fraction(3, 10), 3: Fraction(1, 5)}
    labels, rounds, overkill = brute_force(damage, hp, k, max_rounds)
    d = Dist.from_mapping({v: float(p) for v, p in damage.items()})
    f = fight_distributions(d, Fight(hp=hp, attacks_per_round=k, max_rounds=max_rounds))
    assert f.defeated == pytest.approx(float(labels["defeated"]), abs=1e-15)
    assert f.undecided == pytest.approx(float(labels["undecided"]), abs=1e-12)
    for v, p in rounds.items():
        assert f.rounds.pmf(v) == pytest.approx(float(p), abs=1e-12)
    for v, p in overkill.items():
        assert f.overkill.pmf(v) == pytest.approx(float(p), abs=1e-12)


def test_max_rounds_reached_is_undecided():
    r = fight(thac0_spec(), hp=200, max_rounds=3)
    assert r.outcomes["undecided"] == pytest.approx(1.0)
    assert r.distributions["rounds"].to_dict() == {3: pytest.approx(1.0)}
    assert r.metrics["mean_rounds"] is None and r.metrics["median_rounds"] is None
    assert r.metrics["p_defeated_by_round_3"] == 0.0


def test_by_round_beyond_max_rounds():
    r = fight(thac0_spec(), hp=3, max_rounds=2)
    m = r.metrics
    assert m["p_defeated_by_round_3"] == m["p_defeated_by_round_2"] == pytest.approx(r.outcomes["defeated"])


def test_exploding_damage_keeps_its_tail_explicit():
    spec = thac0_spec(damage="1d8!")
    r = fight(spec, hp=40, attacks_per_round=2)
    tail = r.distributions["rounds"].tail
    assert 0 < tail < CUT
    # the cut mass is tracked as it is cut, so the sums are 1 up to rounding only
    assert r.outcomes["defeated"] + r.outcomes["undecided"] == pytest.approx(1, abs=1e-14)
    assert r.distributions["rounds"].mass + tail == pytest.approx(1, abs=1e-14)


def test_every_fighting_system():
    cr = get_system("crit-range").make_spec(attack_bonus=5, evasion=15)
    cc = get_system("crits-cats").make_spec(skill=3, opposing_skill=1, damage="2d6")
    for spec in (cr, cc):
        r = fight(spec, hp=30, attacks_per_round=2)
        assert r.system == spec.system and r.outcomes["defeated"] > 1 - 1e-11


def test_large_fight_answers():
    spec = get_system("crit-range").make_spec(attack_bonus=5, evasion=15)
    r = fight(spec, hp=1000, attacks_per_round=4)
    assert r.outcomes["defeated"] > 1 - 1e-11
    # mean rounds: about hp / (4 x expected damage per attack) plus the overkill's share
    assert 1000 / (4 * 3.235) < r.metrics["mean_rounds"] < 1000 / (4 * 3.235) + 2


T = {"thac0": 15, "target_ac": 5}


@pytest.mark.parametrize(
    ("system", "params", "fight_params", "message"),
    [
        ("thac0", T, {"hp": 0}, "parameter hp = 0: must be an integer in 1..1000000"),
        ("thac0", T, {"hp": 10**6 + 1}, "parameter hp = 1000001"),
        ("thac0", T, {"hp": 5, "attacks_per_round": 101}, "attacks_per_round = 101"),
        ("thac0", T, {"hp": 5, "max_rounds": 0}, "max_rounds = 0"),
        ("thac0", T, {"hp": True}, "parameter hp = True"),
        ("thac0", {"thac0": 15, "target_ac": 5, "damage": "0"}, {"hp": 5}, "no attack of this spec can deal"),
        ("severity", {}, {"hp": 5}, "parameter system = severity"),
        ("contest", {"a_skill": 10, "b_skill": 10}, {"hp": 5}, "parameter system = contest"),
        ("crit-range", {"mode": "test", "bonus": 0, "difficulty": 10}, {"hp": 5}, "parameter mode = test"),
        ("crits-cats", {"mode": "challenge", "skill": 0}, {"hp": 5}, "parameter mode = challenge"),
        ("crits-cats", {"skill": 0, "opposing_skill": 0}, {"hp": 5}, "parameter damage = none"),
        ("thac0", T, {"hp": 10**6, "attacks_per_round": 100, "max_rounds": 10**6}, "over the bound"),
    ],
)
def test_errors_are_one_line(system, params, fight_params, message):
    spec = get_system(system).make_spec(**params)
    with pytest.raises(SpecError) as info:
        fight(spec, **fight_params)
    assert message in str(info.value) and "\n" not in str(info.value)
