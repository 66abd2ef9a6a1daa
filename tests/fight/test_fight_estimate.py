"""The fight's work estimate (used to bound runs of many fights) against the work the
exact programme counts as it runs, in the same units: no timing, only counted steps."""

from __future__ import annotations

import math

import pytest

from critlab.analysis.dist import Dist
from critlab.analysis.fight import exact as fe
from critlab.analysis.systems import get_system

THAC0 = get_system("thac0")
CRIT = get_system("crit-range")

CASES = [
    (THAC0.make_spec(thac0=15, target_ac=5), {"hp": 10}),
    (THAC0.make_spec(thac0=15, target_ac=5), {"hp": 1000, "attacks_per_round": 4}),
    (THAC0.make_spec(thac0=15, target_ac=5), {"hp": 10_000, "max_rounds": 10**6}),
    (THAC0.make_spec(thac0=19, target_ac=10), {"hp": 3000}),
    (THAC0.make_spec(thac0=15, target_ac=5, damage="10d10"), {"hp": 50_000}),
    (CRIT.make_spec(attack_bonus=5, evasion=15), {"hp": 30}),
    (CRIT.make_spec(attack_bonus=5, evasion=15, damage="3d6!"), {"hp": 300, "attacks_per_round": 3}),
]


def counted_work(damage: Dist, fight: fe.Fight, monkeypatch) -> float:
    """The work the programme's rounds count (the up-front check's one call left out)."""
    calls: list[float] = []
    real = fe._round_cost
    monkeypatch.setattr(fe, "_round_cost", lambda w, m: calls.append(real(w, m)) or calls[-1])
    fe.fight_distributions(damage, fight)
    monkeypatch.setattr(fe, "_round_cost", real)
    return math.fsum(calls[1:])


@pytest.mark.parametrize(("spec", "params"), CASES)
def test_the_estimate_is_within_a_factor_of_three_of_the_counted_work(spec, params, monkeypatch):
    damage, fight = fe.attack_damage(spec), fe.Fight(**params)
    estimate, counted = fe.estimate_work(damage, fight), counted_work(damage, fight, monkeypatch)
    assert counted > 0
    assert 1 / 3 < estimate / counted < 3, (estimate, counted)


def test_the_rounds_estimate_covers_a_run_of_misses():
    # a d2 that misses half the time: 1e-15 of runs of misses takes 50 rounds
    assert fe.rounds_played(0.75, 0.83, 0.5, 1, 1000) >= math.log(1e-15) / math.log(0.5)
    assert fe.rounds_played(0.75, 0.83, 0.5, 1, 20) == 20  # never past max_rounds


def test_a_fight_refused_up_front_costs_nothing():
    assert fe.estimate_work(Dist.die(6), fe.Fight(hp=10**6, max_rounds=10**6)) == 0.0
    with pytest.raises(fe.SpecError, match="over the bound"):
        fe.fight_distributions(Dist.die(6), fe.Fight(hp=10**6, max_rounds=10**6))
