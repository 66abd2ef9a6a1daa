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
    """An exact encounter's units: states × (each round's attacks × their damage values)
    × the rounds until one side is likely down (see
    :func:`critlab.analysis.fight.exact.rounds_played`). Past the chain's state limit it
    is refused before any work: 0.0, or with ``at_limit`` the cost of a chain at the
    limit (a grid's corner past it stands for the points just inside)."""
    from critlab.analysis.encounter.exact import STATE_LIMIT, state_count

    states, _ = state_count(enc)
    if states > STATE_LIMIT:
        if not at_limit:
            return 0.0
        states = STATE_LIMIT
    people = enc.combatants
    try:
        damage = enc.pair_damage()
    except (SpecError, ValueError):
        return 0.0
    per_round = 0.0
    rounds = enc.max_rounds
    for side in (range(enc.n_a), range(enc.n_a, len(people))):  # the side taking the damage
        mean = var = 0.0
        miss = 1.0
        for (i, j), d in damage.items():
            if j == side[0]:  # against the side's first: a round of the other side's attacks
                n = people[i].attacks
                mean, var, miss = mean + n * d.mean, var + n * d.var, miss * float(d.pmf(0)) ** n
                # a shifted add of the states per damage value and a few passes over them
                # (trim, absorb), each a NumPy call per box of standing targets
                m = min(d.probs.size, max(people[k].hp for k in side) + 1) + 4
                per_round += n * m * (STATE_COST * states + CALL_COST * 2 ** len(side))
        hp = sum(people[k].hp for k in side)
        rounds = min(rounds, rounds_played(mean, math.sqrt(var), miss, hp, enc.max_rounds))
    return POINT_COST + per_round * rounds


__all__ = ["CALL_COST", "STATE_COST", "encounter_work"]
