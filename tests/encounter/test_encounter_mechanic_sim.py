"""Encounters, simulated, with designers' own mechanics attacking: the rules' 1-hp reference
through a mechanic against its formula (a binomial z) and the exact chain, a mechanic with
a pool and a soak the target's defense sets, against a thac0 attack, validated on every
label, round and hit point left, the same counts on 1 and 2 threads and through a pickled
(Dask) kernel, and the command line's ``--trials --json`` on a file naming a rules file."""

from __future__ import annotations

import json
import math
import pickle
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.encounter.declare import Combatant, Encounter, Side
from critlab.analysis.encounter.exact import exact_encounter
from critlab.analysis.encounter.sim import encounter_kernel, encounter_layout, kernel_plan, simulate_encounter
from critlab.analysis.mechanic import Int, mechanic, param, pool
from critlab.analysis.mechanic.compile import MechanicError
from critlab.analysis.systems import get_system
from critlab.analysis.validate import validate
from critlab.kernels.rng import stream_state

THAC0 = get_system("thac0")
# Two-sided binomial z bound: P(|z| > 4.9) is about 1e-6 for a right simulation, so a
# pass is no accident of the seed, while a p off by 0.01 at 400,000 trials is z ~ 13.
Z_BOUND = 4.9


@mechanic(
    labels=("miss", "hit"),
    values=("damage",),
    params={
        "hits": param(1, Int(0, 20), "faces that hit"),
        "sides": param(2, Int(1, 20), "sides of the die"),
    },
    inputs={"die": "1d{sides}"},
)
def coin_strike(die, *, hits, sides):
    if die <= hits:
        return "hit", 1
    return "miss", 0


@mechanic(
    labels=("miss", "hit", "crit"),
    values=("damage",),
    params={
        "armor": param(11, Int(1, 30), "the d20 total that hits"),
        "soak": param(0, Int(0, 6), "damage the target's armour takes off"),
        "dice": param(2, Int(1, 4), "d6s rolled on a hit, the highest counts"),
    },
    inputs={"to_hit": "1d20", "blows": pool("{dice}d6"), "unused": "1d100"},
)
def club(to_hit, blows, unused, *, armor, soak, dice):
    if to_hit < armor:
        return "miss", 0
    if to_hit == 20:
        return "crit", blows[0] + blows[dice - 1] - soak  # may be below 0: floored by the encounter
    return "hit", blows[0] - soak


def _one_hp(hits: int, sides: int) -> Encounter:
    spec = coin_strike.make_spec(hits=hits, sides=sides)
    return Encounter(
        Side((Combatant("x", 1, spec),)), Side((Combatant("y", 1, spec),)), order="a-first", max_rounds=1000
    )


def _brawl(order: str = "rolled") -> Encounter:
    # two club-wielders (a mechanic: pools, a soak from the target) against a thac0 ogre
    a = Side(
        (
            Combatant("brute", 9, club.make_spec(armor=9), defense={"target_ac": 6}),
            Combatant("scout", 6, club.make_spec(dice=1), initiative=3, defense={"target_ac": 8}),
        ),
        targeting="focus",
    )
    ogre = Combatant(
        "ogre",
        18,
        {"system": "thac0", "thac0": 17, "damage": "1d6+1"},
        attacks=2,
        defense={"armor": 13, "soak": 1},
    )
    return Encounter(a, Side((ogre,), targeting="weakest"), order=order, max_rounds=40)


@pytest.mark.parametrize(("hits", "sides", "seed"), [(1, 2, 11), (1, 3, 12)])
def test_the_one_hp_reference_simulated_through_a_mechanic(hits, sides, seed):
    p = Fraction(hits, sides)
    expected = float(p / (1 - (1 - p) ** 2))  # the rules' reference: x wins on its turn
    enc = _one_hp(hits, sides)
    exact = exact_encounter(enc)
    assert abs(exact.outcomes["a_wins"] - expected) < 1e-11
    n = 400_000
    sim = simulate_encounter(enc, trials=n, seed=seed, progress=False, exact=exact)
    wins = round(sim.outcomes["a_wins"] * n)
    z = (wins - n * expected) / math.sqrt(n * expected * (1 - expected))
    assert abs(z) < Z_BOUND, z
    assert sim.outcomes["draw"] == 0 and sim.outcomes["undecided"] == 0
    v = validate(exact, sim)
    assert v.passed, v.text()


@pytest.mark.parametrize(("order", "seed"), [("rolled", 21), ("b-first", 22)])
def test_a_mechanic_against_a_thac0_attack_validates(order, seed):
    enc = _brawl(order)
    exact = exact_encounter(enc)
    sim = simulate_encounter(enc, trials=200_000, seed=seed, progress=False, exact=exact)
    v = validate(exact, sim)
    assert v.passed, v.text()
    groups = {row["outcome"].split("=")[0] for row in v.to_json()["rows"]}
    assert {"rounds", "hp_left_brute", "hp_left_scout", "hp_left_ogre"} <= groups
    assert sim.labels == exact.labels


def test_the_targets_defense_reaches_the_mechanic():
    # against armor 13 and soak 1 the clubs hurt the ogre less than at their own armor 11,
    # soak 0: the two chains differ, and the simulation follows the one with the defense
    plain = _brawl().replace(b=Side((_brawl().b.combatants[0].replace(defense={}),), targeting="weakest"))
    with_defense = exact_encounter(_brawl())
    without = exact_encounter(plain)
    assert with_defense.outcomes["a_wins"] < without.outcomes["a_wins"] - 0.05
    sim = simulate_encounter(_brawl(), trials=100_000, seed=5, progress=False, exact=with_defense)
    assert validate(with_defense, sim).passed


def test_same_seed_same_counts_on_one_and_two_threads():
    enc = _brawl()  # 400,000 trials: two blocks of 2^18, one a thread
    one = simulate_encounter(enc, trials=400_000, seed=9, threads=1, progress=False)
    two = simulate_encounter(enc, trials=400_000, seed=9, threads=2, progress=False)
    assert np.array_equal(one.tally.counts, two.tally.counts)
    for name, hist in one.tally.hists.items():
        assert np.array_equal(hist.counts, two.tally.hists[name].counts)
    assert one.tally.counters == two.tally.counters


def test_the_kernel_travels_by_reference():
    # what a Dask worker receives: the kernel pickled, the mechanic loaded again by its file
    enc = _brawl()
    modules, args = kernel_plan(enc)
    assert sum(":" in kind for kind in modules) == 1 and len(modules) == 2
    kernel = encounter_kernel(enc, modules, args)
    again = pickle.loads(pickle.dumps(kernel))
    layout = encounter_layout(enc, None)
    outs = []
    for k in (kernel, again):
        out = np.zeros(layout.n_out, np.int64)
        k(stream_state(3, 0), 5_000, out, layout.array, args)
        outs.append(out)
    assert outs[0].sum() > 0 and np.array_equal(outs[0], outs[1])


def test_a_rule_that_raises_in_an_encounter_is_one_line():
    @mechanic(labels=("hit",), values=("damage",), inputs={"die": "1d6"})
    def brittle(die):
        if die == 6:
            raise RuntimeError("the club breaks")
        return "hit", die

    # the rule raises in its exact walk as in its simulation: one line either way
    hero = Combatant("hero", 1000, brittle.make_spec())
    rat = Combatant("rat", 1000, THAC0.make_spec(thac0=19, target_ac=6, damage="1d3"))
    enc = Encounter(Side((hero,)), Side((rat,)), order="a-first")
    with pytest.raises(
        MechanicError, match=r"brittle .*line \d+\): the rule raised RuntimeError: the club breaks"
    ):
        simulate_encounter(enc, trials=1_000, seed=1, progress=False)


RULES = """
from critlab.analysis.mechanic import Int, mechanic, param


@mechanic(
    labels=("miss", "hit"),
    values=("damage",),
    params={"armor": param(11, Int(1, 30), "the d20 total that hits")},
    inputs={"to_hit": "1d20", "dmg": "1d8"},
)
def axe(to_hit, dmg, *, armor):
    if to_hit >= armor:
        return "hit", dmg
    return "miss", 0
"""

FILE = """
order = "a-first"
max_rounds = 60
[a]
[[a.combatants]]
name = "hero"
hp = 12
attack = { mechanic = "rules.py:axe", armor = 10 }
defense = { target_ac = 5 }
[b]
[[b.combatants]]
name = "orc"
hp = 10
attack = { system = "thac0", thac0 = 16, damage = "1d6" }
defense = { armor = 12 }
"""


def test_the_command_line_simulates_a_file_with_a_mechanic_attack(capsys, tmp_path: Path):
    (tmp_path / "rules.py").write_text(RULES)
    (tmp_path / "brawl.toml").write_text(FILE)
    code = main(["encounter", str(tmp_path / "brawl.toml"), "--trials", "200000", "--seed", "4", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    body = json.loads(out)
    assert body["simulated"]["trials"] == 200_000 and body["simulated"]["seed"] == 4
    assert body["validation"]["passed"] is True
    assert body["encounter"]["a"]["combatants"][0]["attack"]["mechanic"] == "rules.py:axe"
