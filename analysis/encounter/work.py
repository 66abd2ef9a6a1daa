"""An encounter's exact work, estimated from its settings alone (in the unit of
:mod:`critlab.analysis.work`): what its model's ``work()`` answers, so a grid of
encounters is priced as any model's (:func:`critlab.analysis.design.points.model_work`).

>>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> duel = Encounter(Side((Combatant("hero", 10, spec),)), Side((Combatant("ogre", 10, spec),)))
>>> from critlab.analysis.work import BUDGET
>>> POINT_COST < encounter_work(duel) < BUDGET
True
"""

from __future__ import annotations

import math
from typing import Any

from critlab.analysis.fight.exact import rounds_played
from critlab.analysis.spec import SpecError
from critlab.analysis.work import POINT_COST

# An encounter's state moved by one damage value: strided, over arrays of up to 8 MB, it
# costs ~4 fight units (CPU time of duels of 10-900 hp, a 2 v 1 and the example party
# against its ogre: 0.16-0.4 ns a unit at this weight, as a fight's 0.26-0.45).
STATE_COST = 4.0
# One NumPy call's fixed cost (an encounter's shifted add of a box of states), ~3 us.
CALL_COST = 1e4


def encounter_work(enc: Any, *, at_limit: bool = False) -> float:
    """An exact encounter's units: the chain's states (each side's states reached,
    multiplied, times the orders of turns) x each round's attacks x the damage values each
    moves a state by (x the targets it weighs under ``random`` or ``best``), over the
    rounds until one side is likely down (see
    :func:`critlab.analysis.fight.exact.rounds_played`), and a NumPy call's cost per attack
    and order group; under ``best``, its solve over every state and attack of a round and
    the three fixed policies played beside it. Past the chain's state limit it is refused
    before any work: 0.0, or with ``at_limit`` the cost of a chain at the limit (a grid's
    corner past it stands for the points just inside)."""
    from critlab.analysis.encounter.states import STATE_LIMIT, state_count

    states, orders = state_count(enc)
    if states > STATE_LIMIT:
        if not at_limit:
            return 0.0
        states, orders = STATE_LIMIT, [((), 1.0)]
    people = enc.combatants
    try:
        damage = enc.pair_damage()
    except (SpecError, ValueError):
        return 0.0
    per_round = 0.0
    rounds = enc.max_rounds
    groups = min(len(orders), len(people)) if orders else 1
    for side in (range(enc.n_a), range(enc.n_a, len(people))):  # the side taking the damage
        mean = var = 0.0
        miss = 1.0
        attackers = enc.b if side[0] == 0 else enc.a
        spread = 1.0 if attackers.targeting in ("focus", "weakest") else (len(side) + 1) / 2
        for (i, j), d in damage.items():
            if j == side[0]:  # against the side's first: a round of the other side's attacks
                n = people[i].attacks
                mean, var, miss = mean + n * d.mean, var + n * d.var, miss * float(d.pmf(0)) ** n
                # each state moved by each damage value below the target's hp, and its kill
                m = min(d.probs.size, max(people[k].hp for k in side) + 1) + 1
                per_round += n * (STATE_COST * states * m * spread + CALL_COST * groups)
        hp = sum(people[k].hp for k in side)
        rounds = min(rounds, rounds_played(mean, math.sqrt(var), miss, hp, enc.max_rounds))
    work = per_round * rounds
    if "best" in (enc.a.targeting, enc.b.targeting):
        # the solve: every state at every attack of a round, each target weighed once; then
        # the encounter played under best and under each fixed policy (their gain)
        attacks = sum(c.attacks for c in people)
        work = 4 * work + STATE_COST * states * attacks * max(enc.n_a, len(people) - enc.n_a) * 12
    return POINT_COST + work


__all__ = ["CALL_COST", "STATE_COST", "encounter_work"]
