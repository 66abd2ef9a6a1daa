"""The unit and budget of exact work, shared by every run of many exact points.

One unit is one multiply-add of the array loops an exact engine runs (a fight's
convolutions, the unit of :data:`critlab.analysis.fight.exact.WORK_LIMIT`; an encounter's
shifted adds of its states), counted from sizes alone, so an estimate is the same on every
machine. :data:`BUDGET` bounds a whole run (a tune's grid, a sensitivity, a report's
section or its balance checks): :func:`check_budget` refuses one over it before any work,
in one line naming what to shrink. The estimates of a spec's and a fight's points are in
:mod:`critlab.analysis.design.cost`; an encounter's is here, where encounter tuning reads it,
with what systems' and encounters' runs share beside: the names that narrow a sensitivity
(:func:`narrowed`) and the error of a tune of which no point has a value (:func:`no_value`).

>>> check_budget(Work(10, 1e6), "vary", "use fewer points") is None
True
>>> Work(10**5, POINT_COST).total <= BUDGET     # the largest plain grid a tune takes
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from critlab.analysis.fight.exact import rounds_played
from critlab.analysis.spec import SpecError
from critlab.analysis.work import POINT_COST  # one exact point's fixed work, estimated there

# A run's total, in units: about two minutes of one core on the 2-core development
# machine, where a unit took 0.26-0.45 ns of CPU (tunes over fights of hp 100 to 5x10^4 and
# over 4,400 plain crit-range points; encounters 0.12-0.4 ns), so 105-160 s. It admits the
# largest grid a tune takes (10^5 plain points) and refuses, before any work, the runs that
# would hold a CI report job or a terminal for an hour: almost surely a range typed too wide.
BUDGET = 3.5e11
# An encounter's state moved by one damage value: strided, over arrays of up to 8 MB, it
# costs ~4 fight units (CPU time of duels of 10-900 hp, a 2 v 1 and the example party
# against its ogre: 0.16-0.4 ns a unit at this weight, as a fight's 0.26-0.45).
STATE_COST = 4.0
# One NumPy call's fixed cost (an encounter's shifted add of a box of states), ~3 us.
CALL_COST = 1e4


@dataclass(frozen=True)
class Work:
    """A run's estimated work: ``points`` points of ``per_point`` units each on average
    and ``once`` units done once (dice computed once and kept)."""

    points: int
    per_point: float
    once: float = 0.0

    @property
    def total(self) -> float:
        return self.points * self.per_point + self.once


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


# At most this many points of a grid are probed; a grid of at most ENUMERATE encounters
# has each estimated (a few milliseconds each, against at least as many of its own).
MAX_PROBES = 32
ENUMERATE = 256


def corners(axes: Sequence[tuple[str, Sequence[Any]]]) -> list[dict[str, Any]]:
    """The points of a grid whose mean cost stands for its points': every corner (an
    integer axis at its lowest and highest value, any other axis at each of its values)
    while there are at most :data:`MAX_PROBES`; beyond that, every axis at its lowest
    values, at its highest, and each other word of a word axis with the rest at their
    highest. A cost that grows convexly along each axis (a fight's or an encounter's with
    hp, attacks, rounds; multilinear states) averages over the corners to at least its
    mean over the grid.

    >>> corners([("hp", (1, 5, 9)), ("roll", ("normal", "max"))])[1:3]
    [{'hp': 1, 'roll': 'max'}, {'hp': 9, 'roll': 'normal'}]
    """

    def ends(values: Sequence[Any]) -> list[Any]:
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return sorted({min(values), max(values)})
        return list(values)

    choices = [ends(values) for _, values in axes]
    names = [name for name, _ in axes]
    if math.prod(len(c) for c in choices) <= MAX_PROBES:
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*choices)]
    low = {n: c[0] for n, c in zip(names, choices, strict=True)}
    high = {n: c[-1] for n, c in zip(names, choices, strict=True)}
    out = [low, high]
    for n, c in zip(names, choices, strict=True):
        out += [{**high, n: v} for v in c[1:-1]]
    return out[:MAX_PROBES]


def check_encounter_grid(
    enc: Any, axes: Sequence[tuple[str, Sequence[Any]]], points: int, build: Any, name: str = "vary"
) -> Work:
    """Refuse (SpecError naming ``name``) ``points`` exact encounters over ``axes``
    (``(setting, values)``; ``build(enc, point)`` makes a point's encounter) whose
    estimated work passes :data:`BUDGET`: each point estimated when there are at most
    :data:`ENUMERATE`, else the mean over the :func:`corners`."""
    grid = math.prod(len(v) for _, v in axes)
    every = grid <= ENUMERATE
    names = [s for s, _ in axes]
    if every:
        probes = [dict(zip(names, c, strict=True)) for c in itertools.product(*(v for _, v in axes))]
    else:
        probes = corners(axes)
    costs = []
    for point in probes:
        try:
            costs.append(encounter_work(build(enc, point), at_limit=not every))
        except (SpecError, ValueError):  # a point the rules refuse costs nothing
            costs.append(0.0)
    per = math.fsum(costs) / len(costs) if costs else encounter_work(enc)
    work = Work(points, per)
    check_budget(work, name, "use fewer points or smaller encounters (lower hp, fewer attacks)")
    return work


def check_budget(work: Work, name: str, shrink: str) -> None:
    """Refuse (``SpecError`` naming ``name``, one line) a run over :data:`BUDGET`, ending
    with what to shrink (``shrink``: "fewer points or a lower hp", ...)."""
    if work.total > BUDGET:
        raise SpecError(
            name,
            f"{work.points:,} points",
            f"need about {work.total:.2g} units of exact work (about {work.per_point:.2g} a point); at most "
            f"{BUDGET:.2g} in one run (about two minutes); {shrink}",
        )


def narrowed(
    candidates: Sequence[str], only: Iterable[str] | None, what: str, name: str = "only"
) -> list[str]:
    """``candidates`` narrowed to those ``only`` names (snake or kebab case), in the
    candidates' order, so a sensitivity computes (and its budget counts) only those; a
    SpecError naming ``name`` for a name that is not one, or twice.

    >>> narrowed(["to_hit", "thac0", "target_ac"], ["target-ac", "to_hit"], "an integer parameter")
    ['to_hit', 'target_ac']
    """
    if only is None:
        return list(candidates)
    if isinstance(only, str):
        only = [only]
    wanted: list[str] = []
    known = {c.replace("-", "_"): c for c in candidates}
    for given in only:
        key = str(given).strip().replace("-", "_")
        if key not in known:
            shown = ", ".join(candidates) or "none"
            raise SpecError(name, given, f"is not {what} here; the sensitivity's: {shown}")
        if known[key] in wanted:
            raise SpecError(name, given, "is named twice")
        wanted.append(known[key])
    if not wanted:
        raise SpecError(name, "", f"name at least one, e.g. {candidates[0] if candidates else 'hp'}")
    return [c for c in candidates if c in wanted]


def no_value(points: int, refused: int, null: int, quantity: str, first_refusal: str | None) -> SpecError:
    """The error of a run of many exact points (a tune) of which none has a value: every
    point refused by the rules (the first refusal's reason said), or the quantity null.

    >>> for part in str(no_value(3, 3, 0, "crit", "at crit_range=21: ...")).split("; "):
    ...     print(part)
    parameter vary = 3 points: no point has a value (3 refused by the rules, 0 with a null crit)
    the first refused at crit_range=21: ...
    """
    counts = f"{refused:,} refused by the rules, {null:,} with a null {quantity}"
    why = f"; the first refused {first_refusal}" if first_refusal else f"; {quantity} is null at every point"
    return SpecError("vary", f"{points:,} points", f"no point has a value ({counts}){why}")


__all__ = [
    "BUDGET",
    "CALL_COST",
    "ENUMERATE",
    "MAX_PROBES",
    "POINT_COST",
    "STATE_COST",
    "Work",
    "check_budget",
    "check_encounter_grid",
    "corners",
    "encounter_work",
    "narrowed",
    "no_value",
]
