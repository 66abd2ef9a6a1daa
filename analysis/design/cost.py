"""The work of a run of many exact points, estimated and bounded before any is done.

Each exact point is bounded on its own (a dice expression by :mod:`critlab.analysis.dice.limits`,
a fight by :data:`critlab.analysis.fight.exact.WORK_LIMIT`, an encounter by its states),
but a grid multiplies them: 10^5 points of a fight near its bound is days of work. So
every tool that computes many points (tune, sensitivity, sweeps and fight sweeps, a
report's sections and balance checks) first estimates what the exact engines will do and
refuses, with one line naming what to shrink, a run whose total passes :data:`BUDGET`.

The unit is the fight engine's: one multiply-add of the array loops an exact engine runs
(a fight's convolutions, an encounter's matrix products), counted from the sizes alone, so
the estimate is the same on every machine. A point costs:

- :data:`POINT_COST` for building its spec and the system's exact model and result, plus
  :data:`VALUE_COST` for each value its dice distributions span (the model mixes them);
- the steps of each distinct dice expression once (the dice engine keeps what it computed);
- a fight: :func:`critlab.analysis.fight.exact.estimate_work` (the attack's exact damage is
  computed for it, which is the dice work above);
- an encounter: its states times each round's attacks times their damage values, over the
  rounds it is expected to last.

>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> Work(10**5, point_work(spec)).total < BUDGET
True
>>> check_budget(Work(10**5, point_work(spec, {"hp": 10**5})), "vary", "use fewer points or a lower hp")
Traceback (most recent call last):
...
critlab.analysis.spec.SpecError: parameter vary = 100,000 points: need about 7e+12 units of exact work (...
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from critlab.analysis.dice.limits import limits
from critlab.analysis.dice.notation import parse
from critlab.analysis.params import Dice, declared
from critlab.analysis.spec import Spec, SpecError

# A run's total, in units: about two minutes of one core on the 2-core development
# machine, where a unit took 0.26-0.45 ns of CPU (tunes over fights of hp 100 to 5x10^4 and
# over 4,400 plain crit-range points; encounters 0.12-0.4 ns), so 105-160 s. It admits the
# largest grid a tune takes (10^5 plain points) and refuses, before any work, the runs that
# would hold a CI report job or a terminal for an hour: almost surely a range typed too wide.
BUDGET = 3.5e11
# One exact point's fixed work: the spec checked, the system's model and its result built
# (measured ~0.9-1.1 ms a point tuning crit-range and thac0; at 0.3 ns a unit).
POINT_COST = 3e6
# An encounter's state moved by one damage value: strided, over arrays of up to 8 MB, it
# costs ~8 fight units (a duel of 900 hp each: 9-12 s where the units alone say 1-2 s).
STATE_COST = 8.0
# One NumPy call's fixed cost (an encounter's shifted add of a box of states), ~3 us.
CALL_COST = 1e4
# Each value a point's dice distributions span, mixed by the system's model at every point.
VALUE_COST = 20.0


@dataclass(frozen=True)
class Work:
    """A run's estimated work: ``points`` points of ``per_point`` units each (the most
    expensive point's, so an upper estimate) and ``once`` units done once (dice computed
    once and kept)."""

    points: int
    per_point: float
    once: float = 0.0

    @property
    def total(self) -> float:
        return self.points * self.per_point + self.once

    def __add__(self, other: Work) -> Work:
        """Two runs one after the other, as one (its per-point cost the average)."""
        points = self.points + other.points
        spent = self.points * self.per_point + other.points * other.per_point
        return Work(points, spent / points if points else 0.0, self.once + other.once)


def dice_work(text: Any) -> tuple[float, float]:
    """``(per point, once)`` of one dice expression: its values mixed at every point, its
    exact programme's steps once. Text that is not dice notation costs nothing here (the
    rules refuse it at the point).

    >>> dice_work("2d6"), dice_work("not dice")
    ((240.0, 0.0), (0.0, 0.0))
    """
    try:
        terms = parse(str(text)).terms
    except ValueError:
        return 0.0, 0.0
    _, span, steps, summed = limits(terms)
    return span * VALUE_COST, float(steps + summed)


def spec_work(spec: Spec) -> tuple[float, float]:
    """``(per point, once)`` of one spec's exact result: :data:`POINT_COST`, and every dice
    parameter it uses (:func:`dice_work`)."""
    per, once = POINT_COST, 0.0
    unused = spec.unused() if hasattr(spec, "unused") else frozenset()
    for name, decl in declared(type(spec)).items():
        value = getattr(spec, name, None)
        if isinstance(decl.kind, Dice) and value is not None and name not in unused:
            p, o = dice_work(value)
            per, once = per + p, once + o
    return per, once


def fight_work(spec: Spec, fight: Mapping[str, Any]) -> float:
    """The exact fight of ``spec``'s attack against ``fight`` (``hp``, ...), in units
    (0.0 where the fight is refused before any work); computes the attack's exact damage."""
    from critlab.analysis.fight.exact import Fight, attack_damage, estimate_work

    try:
        return estimate_work(attack_damage(spec), Fight(**fight))
    except (SpecError, ValueError, TypeError):
        return 0.0


def point_work(spec: Spec, fight: Mapping[str, Any] | None = None) -> float:
    """One point's units: its exact result (:func:`spec_work`, dice steps included, as if
    computed anew) and, with ``fight``, its fight."""
    per, once = spec_work(spec)
    return per + once + (fight_work(spec, fight) if fight else 0.0)


def encounter_work(enc: Any) -> float:
    """An exact encounter's units: states × (each round's attacks × their damage values)
    × the rounds until one side is likely down (see
    :func:`critlab.analysis.fight.exact.rounds_played`); 0.0 past its state limit (refused
    before any work)."""
    from critlab.analysis.encounter.exact import STATE_LIMIT, state_count
    from critlab.analysis.fight.exact import rounds_played

    states, _ = state_count(enc)
    if states > STATE_LIMIT:
        return 0.0
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


# At most this many points of a grid are probed for its most expensive one.
MAX_PROBES = 32


def corners(axes: Sequence[tuple[str, Sequence[Any], bool]]) -> list[dict[str, Any]]:
    """The points of a grid probed for its most expensive: ``axes`` are ``(name, values,
    grows)``, ``grows`` where a higher value is never cheaper (a fight's hp, attacks and
    rounds: only its highest is probed). Every corner (an integer axis at its lowest and
    highest value, any other axis at each of its values) while there are at most
    :data:`MAX_PROBES`; beyond that, every axis at its lowest values and at its highest,
    and each word of a word axis with the rest at their highest.

    >>> corners([("hp", (1, 5, 9), True), ("crit_range", (0, 3, 6), False)])
    [{'hp': 9, 'crit_range': 0}, {'hp': 9, 'crit_range': 6}]
    """

    def ends(values: Sequence[Any], grows: bool) -> list[Any]:
        if grows:
            return [max(values)]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return sorted({min(values), max(values)})
        return list(values)

    choices = [ends(values, grows) for _, values, grows in axes]
    names = [name for name, _, _ in axes]
    if math.prod(len(c) for c in choices) <= MAX_PROBES:
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*choices)]
    low = {n: c[0] for n, c in zip(names, choices, strict=True)}
    high = {n: c[-1] for n, c in zip(names, choices, strict=True)}
    out = [low, high]
    for n, c in zip(names, choices, strict=True):
        out += [{**high, n: v} for v in c[1:-1]][: MAX_PROBES]
    return out[:MAX_PROBES]


def dice_once(values: Iterable[Any]) -> float:
    """The steps of every distinct dice expression in ``values``, each computed once."""
    return math.fsum(dice_work(v)[1] for v in {str(v) for v in values})


def check_budget(work: Work, name: str, shrink: str) -> None:
    """Refuse (``SpecError`` naming ``name``, one line) a run over :data:`BUDGET`, ending
    with what to shrink (``shrink``: "fewer points or a lower hp", ...)."""
    if work.total > BUDGET:
        raise SpecError(
            name,
            f"{work.points:,} points",
            f"need about {work.total:.2g} units of exact work (up to {work.per_point:.2g} a point); at most "
            f"{BUDGET:.2g} in one run (about two minutes); {shrink}",
        )


__all__ = [
    "BUDGET",
    "POINT_COST",
    "STATE_COST",
    "VALUE_COST",
    "Work",
    "MAX_PROBES",
    "check_budget",
    "corners",
    "dice_once",
    "dice_work",
    "encounter_work",
    "fight_work",
    "point_work",
    "spec_work",
]
