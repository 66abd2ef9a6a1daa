"""Targeting ``best``: at least as good as every fixed policy, equal to the best of every
policy enumerated by brute force on a tiny encounter (each evaluated here by its own
linear system), its gain metric, and its refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from critlab.analysis.encounter.best import best_policy
from critlab.analysis.encounter.declare import Combatant, Encounter, Side
from critlab.analysis.encounter.exact import exact_encounter
from critlab.analysis.encounter.sim import simulate_encounter
from critlab.analysis.fight.exact import attack_damage
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system
from critlab.analysis.validate import validate

THAC0 = get_system("thac0")
CRIT = get_system("crit-range")
FIXED = ("focus", "weakest", "random")


def _with(enc, side, policy):
    return enc.replace(**{side: Side(getattr(enc, side).combatants, policy)})


def _skirmish(order):
    # initiative bands of +20, 0 and -20 (never swapping): rolled is 4 orders
    hero = THAC0.make_spec(thac0=12, target_ac=5, damage="1d6")
    a = Side(
        (
            Combatant("knight", 9, hero, attacks=2, initiative=20),
            Combatant(
                "archer",
                6,
                CRIT.make_spec(attack_bonus=4, evasion=12, damage="1d4", crit_dice="1d4"),
                initiative=-20,
            ),
        )
    )
    bite = THAC0.make_spec(thac0=15, target_ac=5, damage="1d4")
    b = Side(
        (
            Combatant("wolf", 7, bite),
            Combatant("cub", 3, bite, attacks=2),
            Combatant("alpha", 10, THAC0.make_spec(thac0=13, target_ac=5, damage="1d6+1"), initiative=-20),
        )
    )
    return Encounter(a, b, order=order, max_rounds=400)


@pytest.mark.parametrize("order", ["a-first", "b-first", "rolled"])
@pytest.mark.parametrize("side", ["a", "b"])
def test_best_is_at_least_as_good_as_every_fixed_policy(order, side):
    enc = _skirmish(order)
    other = "b" if side == "a" else "a"
    for theirs in ("focus", "random"):
        base = _with(enc, other, theirs)
        best = exact_encounter(_with(base, side, "best"))
        fixed = [exact_encounter(_with(base, side, p)).outcomes[f"{side}_wins"] for p in FIXED]
        assert best.outcomes[f"{side}_wins"] >= max(fixed) - 1e-12
        gain = best.metrics[f"best_gain_{side}"]
        assert abs(gain - (best.outcomes[f"{side}_wins"] - max(fixed))) < 1e-12
        # the value solved over every state (round cap ignored) is what the play reaches
        assert abs(best_policy(_with(base, side, "best")).value - best.outcomes[f"{side}_wins"]) < 1e-9


def _tiny():
    # a hero of 2 hp against a rat and a strong rat of 2 hp each, a-first: whom to strike
    # first matters, and the hero's choice is made in 2 x 2 x 2 states
    hero = Combatant("hero", 2, THAC0.make_spec(thac0=11, target_ac=5, damage="1d2"))
    rat = Combatant("rat", 2, THAC0.make_spec(thac0=16, target_ac=5, damage="1"))
    big = Combatant("bigrat", 2, THAC0.make_spec(thac0=12, target_ac=5, damage="1d2"))
    return Encounter(Side((hero,), "best"), Side((rat, big)), order="a-first", max_rounds=10_000)


def _win_probability(enc, policy):
    """P(hero wins) of the tiny encounter when the hero strikes ``policy[(h, r, b)]`` (0 the
    rat, 1 the big rat) while both stand: an absorbing chain over (turn, hit points)
    solved as one linear system, from the rules' words."""
    people = enc.combatants
    dmg = {}
    for i, j in ((0, 1), (0, 2), (1, 0), (2, 0)):
        dmg[(i, j)] = attack_damage(people[i].attack.spec({})).to_dict()
    states = [
        (t, h, r, b) for t in range(3) for h in range(1, 3) for r in range(3) for b in range(3) if r or b
    ]
    index = {s: k for k, s in enumerate(states)}
    n = len(states)
    Q = np.zeros((n, n))
    win = np.zeros(n)

    def go(k, t, hp, p):
        h, r, b = hp
        if h == 0:
            return
        if r == 0 and b == 0:
            win[k] += p
            return
        Q[k, index[((t + 1) % 3, h, r, b)]] += p

    for k, (t, h, r, b) in enumerate(states):
        if t == 0:
            target = 2 if r == 0 else 1 if b == 0 else 1 + policy[(h, r, b)]
            hp = [h, r, b]
            for d, q in dmg[(0, target)].items():
                after = list(hp)
                after[target] = max(0, after[target] - d)
                # the next turn is a rat's; a rat down passes its turn
                go(k, 0, after, q)
        else:
            me = (r, b)[t - 1]
            if me == 0:
                go(k, t, (h, r, b), 1.0)
                continue
            for d, q in dmg[(t, 0)].items():
                go(k, t, (max(0, h - d), r, b), q)
    x = np.linalg.solve(np.eye(n) - Q, win)
    return x[index[(0, 2, 2, 2)]]


def test_best_equals_the_best_of_every_policy_enumerated():
    enc = _tiny()
    choices = list(itertools.product((1, 2), (1, 2), (1, 2)))
    values = [
        _win_probability(enc, dict(zip(choices, pick, strict=True)))
        for pick in itertools.product((0, 1), repeat=len(choices))
    ]
    best = exact_encounter(enc)
    assert abs(best.outcomes["a_wins"] - max(values)) < 1e-10
    assert abs(best_policy(enc).value - max(values)) < 1e-12
    assert max(values) - min(values) > 0.01  # the choice matters here


def test_best_for_both_sides_or_simultaneously_is_one_line():
    one = Combatant("x", 3, THAC0.make_spec(thac0=15, target_ac=5))
    two = Combatant("y", 3, THAC0.make_spec(thac0=15, target_ac=5))
    with pytest.raises(SpecError, match="parameter b.targeting = best: best is for one side at most"):
        Encounter(Side((one,), "best"), Side((two,), "best"))
    with pytest.raises(SpecError, match="parameter order = simultaneous: best targeting"):
        Encounter(Side((one,), "best"), Side((two,)), order="simultaneous")


@pytest.mark.parametrize(("order", "side"), [("rolled", "a"), ("b-first", "a")])
def test_the_simulation_follows_the_exact_table(order, side):
    enc = _with(_skirmish(order), side, "best")
    exact = exact_encounter(enc)
    # best plays differently enough from every fixed policy for a wrong table to be seen
    assert exact.metrics[f"best_gain_{side}"] > 0.005
    sim = simulate_encounter(enc, trials=200_000, seed=11, threads=2, progress=False, exact=exact)
    check = validate(exact, sim)
    assert check.passed, check.text()


def test_the_command_line_says_how_much_tactics_matter(tmp_path, capsys):
    from pathlib import Path

    from critlab.analysis.cli.main import main

    ogre = Path(__file__).resolve().parents[2] / "reports" / "examples" / "party_vs_ogre.toml"
    text = ogre.read_text(encoding="utf-8").replace('targeting = "weakest"', 'targeting = "best"')
    path = tmp_path / "best_ogre.toml"
    path.write_text(text.replace('order = "rolled"', 'order = "a-first"'), encoding="utf-8")
    assert main(["encounter", str(path)]) == 0
    out = capsys.readouterr().out
    assert "best targeting adds +" in out and "pp to P(b wins) over its best fixed policy" in out
