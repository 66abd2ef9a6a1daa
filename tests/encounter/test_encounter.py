"""Encounters, exact: the rules' 1-hp reference through an own mechanic, duels against the
fights' own distributions, every order and targeting policy against a plain chain built
here from the rules' words, and every declaration mistake as one line."""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

import pytest

from benchmarks.encounter import targets
from critlab.analysis.encounter.declare import Combatant, Encounter, Side
from critlab.analysis.encounter.exact import exact_encounter
from critlab.analysis.encounter.initiative import orders_of
from critlab.analysis.fight.exact import attack_damage, fight
from critlab.analysis.mechanic import Int, mechanic, param
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system

THAC0 = get_system("thac0")
CRIT = get_system("crit-range")
# The chain cuts below 1e-13 still fighting (and sums thousands of terms): agreement to
# 1e-11 is agreement to rounding.
TOL = 1e-11


@mechanic(
    labels=("miss", "hit"),
    values=("damage",),
    params={
        "hits": param(1, Int(0, 20), "faces that hit"),
        "sides": param(2, Int(1, 20), "sides of the die"),
        "dmg": param(1, Int(-5, 20), "damage of a hit"),
    },
    inputs={"die": "1d{sides}"},
)
def coin(die, *, hits, sides, dmg):
    if die <= hits:
        return "hit", dmg
    return "miss", 0


def one_hp(p_hits: int, sides: int, order: str = "a-first") -> Encounter:
    spec = coin.make_spec(hits=p_hits, sides=sides)
    # max_rounds far past where the reference's endless game is within 1e-13 of its sum
    return Encounter(
        Side((Combatant("x", 1, spec),)), Side((Combatant("y", 1, spec),)), order=order, max_rounds=1000
    )


@pytest.mark.parametrize(("hits", "sides"), [(1, 2), (1, 3), (3, 4), (1, 10)])
def test_the_one_hp_reference_through_an_own_mechanic(hits, sides):
    p = Fraction(hits, sides)
    r = exact_encounter(one_hp(hits, sides))
    expected = p / (1 - (1 - p) ** 2)  # the rules' reference
    assert abs(r.outcomes["a_wins"] - float(expected)) < TOL
    assert abs(r.outcomes["b_wins"] - float(1 - expected)) < TOL
    assert r.outcomes["draw"] == 0.0
    assert r.outcomes["undecided"] < 1e-12


def test_one_hp_half_gives_two_thirds():
    assert abs(exact_encounter(one_hp(1, 2)).outcomes["a_wins"] - 2 / 3) < 1e-13


def test_a_mechanic_negative_damage_is_floored():
    spec = coin.make_spec(hits=1, sides=2, dmg=-3)
    with pytest.raises(SpecError, match="x.attack"):
        Encounter(
            Side((Combatant("x", 1, spec),)), Side((Combatant("y", 1, coin.make_spec()),))
        ).pair_damage()


# -- duels against the fights' own distributions --------------------------------------


def _killing_rounds(spec, hp, attacks):
    """P(the attacker defeats hp in round n), from the fight code's exact programme."""
    f = fight(spec, hp=hp, attacks_per_round=attacks, max_rounds=1000)
    rounds = f.distributions["rounds"]
    return {int(v): float(p) for v, p in zip(rounds.values, rounds.probs, strict=True)}


@pytest.mark.parametrize("order", ["a-first", "b-first", "simultaneous", "rolled"])
@pytest.mark.parametrize(
    ("hp_a", "hp_b", "att_a", "att_b"), [(12, 15, 1, 1), (30, 18, 2, 1), (100, 100, 1, 1)]
)
def test_a_duel_against_two_fights(order, hp_a, hp_b, att_a, att_b):
    a_spec = THAC0.make_spec(thac0=14, target_ac=5, damage="1d8+1")
    b_spec = CRIT.make_spec(attack_bonus=4, evasion=14, damage="1d10", crit_dice="1d6")
    # Each side's rounds to defeat the other are independent fights: a (acting first)
    # wins iff it needs no more rounds than b; simultaneously, iff strictly fewer.
    ta = _killing_rounds(a_spec, hp_b, att_a)
    tb = _killing_rounds(b_spec, hp_a, att_b)

    def first_wins(t1, t2):
        return sum(p * sum(q for m, q in t2.items() if m >= n) for n, p in t1.items())

    a_first, b_first = first_wins(ta, tb), 1 - first_wins(tb, ta)
    # P(a acts first) under rolled, over the 400 pairs of d20s (ties to side a)
    p_a_first = sum(1 for x, y in itertools.product(range(1, 21), repeat=2) if x + 2 >= y) / 400
    draw = 0.0
    if order == "a-first":
        a_wins = a_first
    elif order == "b-first":
        a_wins = b_first
    elif order == "rolled":
        a_wins = p_a_first * a_first + (1 - p_a_first) * b_first
    else:
        a_wins = sum(p * sum(q for m, q in tb.items() if m > n) for n, p in ta.items())
        draw = sum(p * tb.get(n, 0.0) for n, p in ta.items())
    enc = Encounter(
        Side((Combatant("a1", hp_a, a_spec, attacks=att_a, initiative=2),)),
        Side((Combatant("b1", hp_b, b_spec, attacks=att_b),)),
        order=order,
        max_rounds=1000,
    )
    r = exact_encounter(enc)
    assert abs(r.outcomes["a_wins"] - a_wins) < TOL
    assert abs(r.outcomes["draw"] - draw) < TOL
    assert r.outcomes["undecided"] < 1e-12
    # the loser is down exactly when the other side won
    assert abs(r.metrics["p_down_b1"] - (a_wins + draw)) < TOL


# -- every order and targeting policy against a plain chain ----------------------------


def plain_chain(hps, sides, attacks, mods, damage, policies, order, max_rounds):
    """The encounter's labels, rounds and final hit points by a dictionary of states,
    played attack by attack as the rules read; ``rolled`` mixes every order by the
    20^n initiative rolls themselves."""
    n = len(hps)
    enemies = [[j for j in range(n) if sides[j] != sides[i]] for i in range(n)]

    def over(hp):
        a_up = any(hp[i] > 0 for i in range(n) if sides[i] == 0)
        b_up = any(hp[i] > 0 for i in range(n) if sides[i] == 1)
        return None if a_up and b_up else ("draw" if not (a_up or b_up) else "a_wins" if a_up else "b_wins")

    def hit(dist, i, t, w, out):
        for s, p in dist.items():
            for d, q in damage[(i, t)].items():
                s2 = list(s)
                s2[t] = max(0, s2[t] - d)
                out[tuple(s2)] += p * q * w

    def play(turns):
        labels, rounds, final = defaultdict(float), defaultdict(float), defaultdict(float)
        live = {tuple(hps): 1.0}
        for rnd in range(1, max_rounds + 1):
            if turns is None:  # simultaneous: targets from the round's start, damage at its end
                nxt = defaultdict(float)
                for s, p in live.items():
                    cur = {s: p}
                    for i in range(n):
                        if s[i] == 0:
                            continue
                        for _ in range(attacks[i]):
                            out = defaultdict(float)
                            for t, w in targets(policies[sides[i]], s, enemies[i]):
                                hit(cur, i, t, w, out)
                            cur = out
                    for s2, q in cur.items():
                        nxt[s2] += q
                live = {}
                for s, p in nxt.items():
                    end = over(s)
                    if end:
                        labels[end] += p
                        rounds[rnd] += p
                        final[s] += p
                    else:
                        live[s] = p
            else:
                for i in turns:
                    for _ in range(attacks[i]):
                        nxt = defaultdict(float)
                        for s, p in live.items():
                            if s[i] == 0:
                                nxt[s] += p
                                continue
                            for t, w in targets(policies[sides[i]], s, enemies[i]):
                                hit({s: p}, i, t, w, nxt)
                        live = {}
                        for s, p in nxt.items():
                            end = over(s)
                            if end:
                                labels[end] += p
                                rounds[rnd] += p
                                final[s] += p
                            else:
                                live[s] = p
            if sum(live.values()) < 1e-15:
                break
        for s, p in live.items():
            labels["undecided"] += p
            rounds[rnd] += p
            final[s] += p
        return labels, rounds, final

    if order == "simultaneous":
        return play(None)
    if order in ("a-first", "b-first"):
        first = 0 if order == "a-first" else 1
        return play([i for i in range(n) if sides[i] == first] + [i for i in range(n) if sides[i] != first])
    mixed = [defaultdict(float) for _ in range(3)]
    orders = defaultdict(float)
    for rolls in itertools.product(range(1, 21), repeat=n):
        key = sorted(range(n), key=lambda i: (-(rolls[i] + mods[i]), -mods[i], sides[i], i))
        orders[tuple(key)] += 1 / 20**n
    for turns, w in orders.items():
        for acc, part in zip(mixed, play(list(turns)), strict=True):
            for k, v in part.items():
                acc[k] += w * v
    return tuple(mixed)


@pytest.mark.parametrize("order", ["a-first", "b-first", "rolled", "simultaneous"])
@pytest.mark.parametrize("policy", ["focus", "weakest", "random"])
def test_every_order_and_policy_against_a_plain_chain(order, policy):
    fighter = THAC0.make_spec(thac0=13, target_ac=5, damage="1d3")
    archer = CRIT.make_spec(attack_bonus=3, evasion=12, damage="1d3", crit_dice="1d2")
    brute = THAC0.make_spec(thac0=15, target_ac=6, damage="1d3")
    a = Side(
        (
            Combatant("fighter", 4, fighter, initiative=1),
            Combatant("archer", 3, archer, defense={"target_ac": 3}),
        ),
        targeting=policy,
    )
    b = Side(
        # the imp always acts first and the brute last (kept to few orders: the plain
        # chain is slow; the mixture itself is checked against every roll below)
        (
            Combatant("brute", 5, brute, attacks=2, initiative=-20, defense={"evasion": 14}),
            Combatant("imp", 2, brute, initiative=20),
        ),
        targeting="random" if policy == "focus" else policy,  # sides with different policies too
    )
    enc = Encounter(a, b, order=order, max_rounds=12)  # some mass left undecided, too
    people = enc.combatants
    sides = [0, 0, 1, 1]
    damage = {}
    for i, j in itertools.product(range(4), repeat=2):
        if sides[i] != sides[j]:
            spec = people[i].attack.system.make_spec(
                **{**people[i].attack.params, **_defense(people[i], people[j])}
            )
            damage[(i, j)] = attack_damage(spec).to_dict()
    labels, rounds, final = plain_chain(
        [c.hp for c in people],
        sides,
        [c.attacks for c in people],
        [c.initiative for c in people],
        damage,
        (a.targeting, b.targeting),
        order,
        12,
    )
    r = exact_encounter(enc)
    for label in ("a_wins", "b_wins", "draw", "undecided"):
        assert abs(r.outcomes[label] - labels.get(label, 0.0)) < TOL, label
    for rnd, p in rounds.items():
        assert abs(r.distributions["rounds"].pmf(rnd) - p) < TOL
    for k, c in enumerate(people):
        marginal = defaultdict(float)
        for s, p in final.items():
            marginal[s[k]] += p
        for h, p in marginal.items():
            assert abs(r.distributions[f"hp_left_{c.name}"].pmf(h) - p) < TOL
        assert abs(r.metrics[f"p_down_{c.name}"] - marginal[0]) < TOL
    any_down_a = sum(p for s, p in final.items() if s[0] == 0 or s[1] == 0)
    assert abs(r.metrics["p_any_down_a"] - any_down_a) < TOL
    if order != "simultaneous":
        assert r.outcomes["draw"] == 0.0


def _defense(attacker, target):
    names = attacker.attack.names
    return {k: v for k, v in target.defense.items() if k in names}


@pytest.mark.parametrize("mods", [(0, 0, 0, 0), (1, -3, 5, 0), (20, -20, 0, 2), (0, 19, -1, 0)])
def test_initiative_orders_against_every_roll(mods):
    n_a, n = 2, 4
    sides = [0, 0, 1, 1]
    expected = defaultdict(int)  # counted, so that the expected values are exact
    for rolls in itertools.product(range(1, 21), repeat=n):
        # highest roll first; ties to the higher modifier, then side a, then listed order
        key = sorted(range(n), key=lambda i: (-(rolls[i] + mods[i]), -mods[i], sides[i], i))
        expected[tuple(key)] += 1
    got = dict(orders_of(list(mods), n_a=n_a, order="rolled"))
    assert set(got) == set(expected)
    for order, count in expected.items():
        assert abs(got[order] - count / 20**n) < 1e-15


# -- the declaration: every mistake one line -------------------------------------------


def _one(name="x", hp=5, **kw):
    return Combatant(name, hp, THAC0.make_spec(thac0=15, target_ac=5), **kw)


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: _one(name="Bad"), "parameter name = Bad"),
        (lambda: _one(hp=0), "parameter x.hp = 0: must be an integer in 1..10000"),
        (lambda: _one(attacks=11), "x.attacks = 11"),
        (lambda: _one(initiative=21), "x.initiative = 21"),
        (lambda: Encounter([_one()], [_one()]), "name = x: is given twice"),
        (lambda: Encounter([_one()], [_one("y")], order="random"), "parameter order = random"),
        (lambda: Encounter([_one()], [_one("y")], max_rounds=0), "max_rounds = 0"),
        (lambda: Encounter([_one()], [], order="a-first"), "b.combatants = 0"),
        (lambda: Encounter([_one(f"p{k}") for k in range(11)], [_one()]), "a.combatants = 11"),
        (lambda: Side((_one(),), targeting="strongest"), "targeting = strongest"),
        (
            lambda: Encounter([_one(defense={"evasion": 12})], [_one("y")]),
            "x.defense.evasion = 12: is not a parameter of any attack of the other side",
        ),
        (
            lambda: Encounter([_one()], [Combatant("y", 3, {"system": "thac0", "thac0": 15})]),
            r"y.target_ac = none: is required.*\(y attacking x\)",
        ),
        (lambda: Combatant("y", 3, {"system": "nope"}), "y.attack.system = nope"),
        (lambda: Combatant("y", 3, {"thac0": 15}), "needs exactly one of system"),
        (
            lambda: Encounter(
                [_one()], [Combatant("y", 3, CRIT.make_spec(mode="test", bonus=0, difficulty=10))]
            ),
            "y.attack = crit-range: deals no damage",
        ),
    ],
)
def test_every_declaration_mistake_is_one_line(build, match):
    with pytest.raises(SpecError, match=match):
        enc = build()
        enc.pair_damage()


def test_a_required_parameter_may_come_from_each_targets_defense():
    ogre = Combatant("ogre", 20, {"system": "thac0", "thac0": 15, "damage": "1d10"})
    hero = Combatant("hero", 10, THAC0.make_spec(thac0=15, target_ac=5), defense={"target_ac": 2})
    enc = Encounter([hero], [ogre], order="a-first")
    assert enc.pair_specs()[(1, 0)].target_ac == 2
    assert enc.to_json()["b"]["combatants"][0]["attack"]["target_ac"] is None


def test_an_encounter_past_ten_million_reachable_states_is_refused_with_one_line():
    # under random targeting every pattern of the party's hit points is reachable: 41^4 of them
    big = Side(tuple(_one(f"p{k}", hp=40) for k in range(4)))
    dragon = Side((_one("dragon", hp=120),), targeting="random")
    with pytest.raises(SpecError, match=r"parameter encounter = [\d,]+\+ states reached: .*simulate it"):
        exact_encounter(Encounter(big, dragon))


def test_a_party_under_focus_answers_however_large_the_product_of_its_hit_points():
    # 4 of 40 hp against a dragon of 120 (the old chain's 2.3e10 states, times 120 orders):
    # under focus only 161 x 121 states are ever reached, in each of the 120 orders
    big = [_one(f"p{k}", hp=40) for k in range(4)]
    r = exact_encounter(Encounter(big, [_one("dragon", hp=120)], max_rounds=20))
    assert abs(sum(r.outcomes.values()) - 1.0) < 1e-12
    assert r.outcomes["a_wins"] > 0.5
