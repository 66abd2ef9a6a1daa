"""The exact chain at sizes the old chain refused (more than 10^6 in the product of every
hp + 1), against an independent chain written here from the rules' words: a dictionary of
every combatant's hit points, played attack by attack, for focus, weakest and random, both
fixed orders, rolled and simultaneous, combatants of more than one attack."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import pytest

from benchmarks.encounter import targets
from critlab.analysis.encounter.declare import Combatant, Encounter, Side
from critlab.analysis.encounter.exact import exact_encounter
from critlab.analysis.encounter.states import state_count
from critlab.analysis.fight.exact import attack_damage
from critlab.analysis.systems import get_system

THAC0 = get_system("thac0")
CRIT = get_system("crit-range")
TOL = 1e-11


def _winner(hp, sides):
    a_up = any(h > 0 for h, s in zip(hp, sides, strict=True) if s == 0)
    b_up = any(h > 0 for h, s in zip(hp, sides, strict=True) if s == 1)
    if a_up and b_up:
        return None
    return "draw" if not (a_up or b_up) else "a_wins" if a_up else "b_wins"


def independent_chain(enc, turns_of_orders):
    """Labels, rounds and final hit points of ``enc``: ``turns_of_orders`` is ``[(turns,
    probability)]`` (``turns`` the combatants in the order they act, None for
    simultaneous)."""
    people = enc.combatants
    n = len(people)
    sides = [0 if i < enc.n_a else 1 for i in range(n)]
    enemies = [[j for j in range(n) if sides[j] != sides[i]] for i in range(n)]
    policy = (enc.a.targeting, enc.b.targeting)
    damage = {}
    for i, j in itertools.product(range(n), repeat=2):
        if sides[i] != sides[j]:
            names = people[i].attack.names
            defense = {k: v for k, v in people[j].defense.items() if k in names}
            spec = people[i].attack.system.make_spec(**{**people[i].attack.params, **defense})
            damage[(i, j)] = attack_damage(spec).to_dict()
    labels, rounds, final = defaultdict(float), defaultdict(float), defaultdict(float)
    for turns, weight in turns_of_orders:
        live = {tuple(c.hp for c in people): weight}

        def settle(states, rnd):
            kept = {}
            for s, p in states.items():
                end = _winner(s, sides)
                if end:
                    labels[end] += p
                    rounds[rnd] += p
                    final[s] += p
                else:
                    kept[s] = p
            return kept

        for rnd in range(1, enc.max_rounds + 1):
            if turns is None:  # every attack aimed from the round's start, damage at its end
                nxt = defaultdict(float)
                for s, p in live.items():
                    now = {s: p}
                    for i in range(n):
                        if s[i] == 0:
                            continue
                        for _ in range(people[i].attacks):
                            after = defaultdict(float)
                            for t, w in targets(policy[sides[i]], s, enemies[i]):
                                for cur, q in now.items():
                                    for d, r in damage[(i, t)].items():
                                        c2 = list(cur)
                                        c2[t] = max(0, c2[t] - d)
                                        after[tuple(c2)] += q * w * r
                            now = after
                    for s2, q in now.items():
                        nxt[s2] += q
                live = settle(nxt, rnd)
            else:
                for i in turns:
                    for _ in range(people[i].attacks):
                        nxt = defaultdict(float)
                        for s, p in live.items():
                            if s[i] == 0:
                                nxt[s] += p
                                continue
                            for t, w in targets(policy[sides[i]], s, enemies[i]):
                                for d, r in damage[(i, t)].items():
                                    s2 = list(s)
                                    s2[t] = max(0, s2[t] - d)
                                    nxt[tuple(s2)] += p * w * r
                        live = settle(nxt, rnd)
            if sum(live.values()) < 1e-16:
                break
        for s, p in live.items():
            labels["undecided"] += p
            rounds[enc.max_rounds] += p
            final[s] += p
    return labels, rounds, final


def _fixed(enc):
    n, n_a = len(enc.combatants), enc.n_a
    if enc.order == "simultaneous":
        return [(None, 1.0)]
    if enc.order == "a-first":
        return [(list(range(n)), 1.0)]
    return [([*range(n_a, n), *range(n_a)], 1.0)]


def _banded_rolled(enc):
    """The rolled orders of an encounter whose initiative modifiers are -20, 0 or 20:
    bands whose totals never overlap, so the orders are the bands' own, each band's found
    by rolling its members' d20s."""
    people = enc.combatants
    mods = [c.initiative for c in people]
    assert set(mods) <= {-20, 0, 20}
    sides = [0 if i < enc.n_a else 1 for i in range(len(people))]
    bands = []
    for m in (20, 0, -20):
        members = [i for i in range(len(people)) if mods[i] == m]
        if not members:
            continue
        count = defaultdict(int)
        for rolls in itertools.product(range(1, 21), repeat=len(members)):
            # highest first; ties to side a, then listed order (the modifiers are equal)
            key = sorted(range(len(members)), key=lambda k: (-rolls[k], sides[members[k]], members[k]))
            count[tuple(members[k] for k in key)] += 1
        bands.append([(list(o), c / 20 ** len(members)) for o, c in count.items()])
    return [
        ([i for part, _ in combo for i in part], math.prod(p for _, p in combo))
        for combo in itertools.product(*bands)
    ]


def _compare(enc, orders):
    labels, rounds, final = independent_chain(enc, orders)
    r = exact_encounter(enc)
    for label in ("a_wins", "b_wins", "draw", "undecided"):
        assert abs(r.outcomes[label] - labels.get(label, 0.0)) < TOL, label
    for rnd, p in rounds.items():
        assert abs(r.distributions["rounds"].pmf(rnd) - p) < TOL, rnd
    for k, c in enumerate(enc.combatants):
        marginal = defaultdict(float)
        for s, p in final.items():
            marginal[s[k]] += p
        for h in range(c.hp + 1):
            assert abs(r.distributions[f"hp_left_{c.name}"].pmf(h) - marginal[h]) < TOL, (c.name, h)
    for side, members in (("a", range(enc.n_a)), ("b", range(enc.n_a, len(enc.combatants)))):
        down = sum(p for s, p in final.items() if any(s[k] == 0 for k in members))
        assert abs(r.metrics[f"p_any_down_{side}"] - down) < TOL
    return r


def _grid(enc):
    return math.prod(c.hp + 1 for c in enc.combatants)


def _side(prefix, hps, policy, attack, **kw):
    members = tuple(Combatant(f"{prefix}{k}", h, attack, **kw) for k, h in enumerate(hps))
    return Side(members, targeting=policy)


SWORD = THAC0.make_spec(thac0=12, target_ac=5, damage="1d4")
CLAW = CRIT.make_spec(attack_bonus=4, evasion=12, damage="1d3", crit_dice="1d2")


@pytest.mark.parametrize(
    ("order", "pa", "pb"),
    [
        ("a-first", "focus", "focus"),
        ("b-first", "weakest", "weakest"),
        ("a-first", "focus", "weakest"),
        ("simultaneous", "weakest", "focus"),
    ],
)
def test_large_parties_under_focus_and_weakest(order, pa, pb):
    a = Side(
        (
            Combatant("fighter", 14, SWORD, attacks=2),
            Combatant("rogue", 9, CLAW, defense={"target_ac": 7}),
            Combatant("cleric", 11, SWORD),
            Combatant("mage", 8, CLAW),
        ),
        targeting=pa,
    )
    b = _side("orc", (12, 10, 13), pb, SWORD, defense={"evasion": 10})
    enc = Encounter(a, b, order=order, max_rounds=6)
    assert _grid(enc) > 10**6  # refused by the old chain
    _compare(enc, _fixed(enc))


@pytest.mark.parametrize("order", ["a-first", "b-first", "simultaneous"])
def test_random_targeting_of_a_small_side_beside_a_large_one(order):
    # side a picks among the two imps at random (every pattern of theirs reachable); the
    # imps focus the party of five, one of it hurt at a time. Three rounds reach every
    # pattern's states; each round more doubled the independent chain's time (22 s at 4)
    a = _side("p", (8, 7, 9, 6, 7), "random", CLAW)
    b = _side("imp", (6, 5), "focus", SWORD, attacks=2)
    enc = Encounter(a, b, order=order, max_rounds=3)
    assert _grid(enc) > 10**6
    _compare(enc, _fixed(enc))


def test_rolled_initiative_over_banded_orders():
    # modifiers of +20, 0 and -20: the bands never swap, so 2 x 2 x 2 orders, each found
    # here by rolling the band's own dice
    a = Side(
        (
            Combatant("scout", 12, CLAW, initiative=20),
            Combatant("knight", 18, SWORD, attacks=2, initiative=-20),
            Combatant("archer", 10, CLAW, initiative=0),
        ),
        targeting="random",
    )
    b = Side(
        (
            Combatant("wolf", 3, SWORD, initiative=20),
            Combatant("troll", 4, SWORD, initiative=-20),
            Combatant("bat", 2, CLAW, initiative=0),
        ),
        targeting="weakest",
    )
    enc = Encounter(a, b, order="rolled", max_rounds=3)
    assert _grid(enc) * len(_banded_rolled(enc)) > 10**6
    orders = _banded_rolled(enc)
    assert len(orders) == 8 and abs(sum(p for _, p in orders) - 1.0) < 1e-15
    _compare(enc, orders)


def test_the_party_of_four_against_three_orcs_answers_exactly():
    # 778,629,120 in the product of every hp + 1, refused by the old chain; under focus
    # 83 x 46 states are reached
    hero = THAC0.make_spec(thac0=14, target_ac=5, damage="1d8+1")
    orc = THAC0.make_spec(thac0=17, target_ac=4, damage="1d8")
    a = _side("p", (28, 22, 18, 14), "focus", hero)
    b = _side("orc", (15, 15, 15), "focus", orc)
    enc = Encounter(a, b, order="a-first")
    assert _grid(enc) == 778_629_120
    assert state_count(enc)[0] <= 83 * 46
    r = exact_encounter(enc)
    assert r.outcomes["undecided"] < 1e-12 and abs(sum(r.outcomes.values()) - 1.0) < 1e-12
    # the same encounter cut at 5 rounds, against the independent chain
    _compare(enc.replace(max_rounds=5), _fixed(enc))
