"""Encounters, simulated: held against the exact chain at fixed seeds (labels, rounds and
every combatant's hit points left), the same counts on any thread count, and simulation
where the chain refuses."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from critlab.analysis.encounter.declare import Combatant, Encounter, Side
from critlab.analysis.encounter.exact import exact_encounter
from critlab.analysis.encounter.load import load_encounter
from critlab.analysis.encounter.sim import simulate_encounter
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system
from critlab.analysis.validate import validate

ROOT = Path(__file__).resolve().parents[2]
PARTY = ROOT / "reports" / "examples" / "party_vs_ogre.toml"
THAC0 = get_system("thac0")
CRIT = get_system("crit-range")


def _skirmish(order: str, targeting: str) -> Encounter:
    sword = THAC0.make_spec(thac0=14, target_ac=5, damage="1d6+1")
    bow = CRIT.make_spec(attack_bonus=3, evasion=13, damage="1d6", crit_dice="1d4")
    claw = THAC0.make_spec(thac0=16, target_ac=5, damage="1d4")
    a = Side((Combatant("knight", 9, sword, initiative=2), Combatant("archer", 6, bow)), targeting=targeting)
    b = Side(
        (
            Combatant("ghoul", 10, claw, attacks=2, defense={"evasion": 12}),
            Combatant("rat", 3, claw, initiative=4),
        ),
        targeting=targeting,
    )
    return Encounter(a, b, order=order, max_rounds=30)


# Each case is one chi-square validation at alpha 0.001 at its own fixed seed: the seeds
# are fixed, so the test is deterministic, and a wrong rule (a turn, a target, a floor at
# 0) moves some bin by many standard errors at 200,000 trials.
@pytest.mark.parametrize(
    ("order", "targeting", "seed"),
    [
        ("a-first", "focus", 1),
        ("b-first", "weakest", 2),
        ("rolled", "random", 3),
        ("simultaneous", "weakest", 4),
    ],
)
def test_simulation_validates_against_the_chain(order, targeting, seed):
    enc = _skirmish(order, targeting)
    exact = exact_encounter(enc)
    sim = simulate_encounter(enc, trials=200_000, seed=seed, progress=False, exact=exact)
    v = validate(exact, sim)
    assert v.passed, v.text()
    names = {row["outcome"].split("=")[0] for row in v.to_json()["rows"]}
    assert {"rounds", "hp_left_knight", "hp_left_rat"} <= names
    for key in ("p_down_ghoul", "p_any_down_a", "mean_hp_left_knight"):
        assert abs(sim.metrics[key] - exact.metrics[key]) < 0.02


def test_the_example_party_validates():
    enc = load_encounter(PARTY)
    exact = exact_encounter(enc)
    sim = simulate_encounter(enc, trials=200_000, seed=1, progress=False, exact=exact)
    assert validate(exact, sim).passed


def test_same_seed_same_counts_on_any_thread_count():
    enc = _skirmish("rolled", "random")
    one = simulate_encounter(enc, trials=600_000, seed=9, threads=1, progress=False)
    two = simulate_encounter(enc, trials=600_000, seed=9, threads=2, progress=False)
    assert np.array_equal(one.tally.counts, two.tally.counts)
    for name, hist in one.tally.hists.items():
        assert np.array_equal(hist.counts, two.tally.hists[name].counts)


def test_where_the_chain_refuses_the_simulation_still_runs():
    spear = THAC0.make_spec(thac0=14, target_ac=0, damage="1d8+2")
    party = [Combatant(f"hero{k}", 40, spear) for k in range(4)]
    # (a crit-range dragon: the same two systems as above, so the same compiled block)
    claws = CRIT.make_spec(attack_bonus=8, evasion=12, damage="3d6", crit_dice="2d6")
    dragon = Combatant("dragon", 120, claws, attacks=2)
    # clawing at random, every pattern of the party's hit points is reachable: 41^4 of them
    enc = Encounter(party, Side((dragon,), targeting="random"))
    with pytest.raises(SpecError, match="simulate it"):
        exact_encounter(enc)
    sim = simulate_encounter(enc, trials=2_000, seed=5, progress=False)
    assert sim.trials == 2_000 and sum(sim.outcomes.values()) == pytest.approx(1.0)


def test_a_first_simulation_says_that_it_compiles_and_how_long_it_took(monkeypatch, capsys):
    import re

    from critlab.analysis import run

    enc = _skirmish("a-first", "focus")
    monkeypatch.setattr(run, "needs_compiling", lambda kernel: True)  # as on a fresh machine
    simulate_encounter(enc, trials=100, seed=1)  # not at a terminal: said all the same
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "critlab: compiling the encounter simulator (once on this machine, then cached)"
    assert re.fullmatch(r"critlab: compiled the encounter simulator \(\d+\.\d s\)", lines[1]), lines
    simulate_encounter(enc, trials=100, seed=1, progress=False)  # --no-progress: silent
    assert capsys.readouterr().err == ""
