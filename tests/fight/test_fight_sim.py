"""Simulated fights: held against the exact fight, reproducible on any thread count."""

from __future__ import annotations

import numpy as np
import pytest

from critlab.analysis.fight.exact import fight
from critlab.analysis.fight.sim import FightSim, attack_kernel, simulate_fight
from critlab.analysis.results import SimResult
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system
from critlab.analysis.validate import validate
from critlab.kernels.fight import FightKernel, block_for


def thac0_spec(**kw):
    return get_system("thac0").make_spec(thac0=15, target_ac=5, **kw)


def can_simulate(name: str, params: dict) -> bool:
    try:
        attack_kernel(get_system(name).make_spec(**params))
    except SpecError:
        return False
    return True


FIGHTS = [
    ("thac0", {"thac0": 15, "target_ac": 5}, {"hp": 10}),
    ("thac0", {"thac0": 15, "target_ac": 5, "damage": "1d8!"}, {"hp": 30, "attacks_per_round": 2}),
    ("thac0", {"thac0": 12, "target_ac": 2}, {"hp": 40, "max_rounds": 6}),
    ("crit-range", {"attack_bonus": 5, "evasion": 15}, {"hp": 40, "attacks_per_round": 2}),
    ("crits-cats", {"skill": 3, "opposing_skill": 1, "damage": "2d6"}, {"hp": 25}),
]


@pytest.mark.parametrize(("system", "params", "fight_params"), FIGHTS)
def test_simulation_validates_against_exact(system, params, fight_params):
    if not can_simulate(system, params):
        pytest.skip(f"{system} has no per-trial kernel function yet")
    spec = get_system(system).make_spec(**params)
    ex = fight(spec, **fight_params)
    sim = simulate_fight(spec, **fight_params, trials=200_000, seed=7, progress=False)
    assert isinstance(sim, FightSim) and isinstance(sim, SimResult)
    assert sim.labels == ex.labels and sim.fight == ex.fight
    assert set(sim.tally.hists) == {"rounds", "overkill"}
    v = validate(ex, sim)
    assert v.passed, v.groups
    assert set(v.groups.group) == {"outcome", "rounds", "overkill"}
    # the simulated metrics estimate the exact ones
    for name in ("p_defeated_by_round_1", "p_defeated_by_round_2", "p_defeated_by_round_3"):
        p = ex.metrics[name]
        assert abs(sim.metrics[name] - p) <= 5 * np.sqrt(p * (1 - p) / sim.trials) + 1e-12
    if ex.metrics["mean_rounds"] is not None:
        assert sim.metrics["mean_rounds"] == pytest.approx(ex.metrics["mean_rounds"], rel=0.01)


def test_undecided_fights_are_counted_at_max_rounds():
    spec = thac0_spec()
    sim = simulate_fight(spec, hp=40, max_rounds=6, trials=50_000, seed=3, progress=False)
    undecided = sim.tally.counts[1]
    assert undecided > 0
    # every undecided fight played max_rounds rounds and has overkill 0
    rounds = sim.tally.hists["rounds"]
    assert rounds.counts[6 - rounds.offset] >= undecided
    assert sim.metrics["p_defeated_by_round_3"] <= sim.outcomes["defeated"]


def test_same_seed_same_counts_on_any_thread_count():
    spec = thac0_spec(damage="1d8!")
    kw = {"hp": 30, "attacks_per_round": 2, "trials": 600_000, "seed": 11, "progress": False}
    one = simulate_fight(spec, **kw, threads=1)
    two = simulate_fight(spec, **kw, threads=2)
    assert one.to_json() == two.to_json()
    other = simulate_fight(spec, **{**kw, "seed": 12}, threads=2)
    assert other.tally.counters != one.tally.counters


def test_json_has_the_keys_of_simulate():
    sim = simulate_fight(thac0_spec(), hp=10, trials=1000, seed=1, progress=False)
    body = sim.to_json()
    assert list(body) == [
        "system",
        "params",
        "trials",
        "seed",
        "outcomes",
        "counts",
        "standard_errors",
        "distributions",
        "metrics",
    ]
    assert set(body["distributions"]) == {"rounds", "overkill"}
    assert set(body["metrics"]) == set(fight(thac0_spec(), hp=10).metrics)


def test_kernel_is_picklable_and_one_per_system():
    import pickle

    k = FightKernel("critlab.kernels.thac0")
    assert pickle.loads(pickle.dumps(k)) == k
    assert block_for("critlab.kernels.thac0") is block_for("critlab.kernels.thac0")


def test_simulation_errors():
    with pytest.raises(SpecError, match="parameter trials = 0"):
        simulate_fight(thac0_spec(), hp=10, trials=0)
    with pytest.raises(SpecError, match="parameter hp = 0"):
        simulate_fight(thac0_spec(), hp=0, trials=10)
    with pytest.raises(SpecError, match="parameter system = severity"):
        simulate_fight(get_system("severity").make_spec(), hp=10, trials=10)


def test_a_first_fight_simulation_says_it_is_compiling(monkeypatch, capsys):
    # a CI log is no terminal: the two lines are said all the same, and never with progress off
    import re

    import critlab.analysis.run as run

    monkeypatch.setattr(run, "needs_compiling", lambda kernel: True)
    simulate_fight(thac0_spec(), hp=10, trials=100, seed=1)
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("critlab: compil")]
    assert said[0].startswith("critlab: compiling the thac0 fight simulator (1 of 1; once on this machine")
    assert re.fullmatch(r"critlab: compiled the thac0 fight simulator \(1 of 1, [0-9]+ s\)", said[1])
    simulate_fight(thac0_spec(), hp=10, trials=100, seed=1, progress=False)
    assert capsys.readouterr().err == ""
