"""The work of exact answers, estimated from their parameters alone, and the budget of a
run of many of them: the unit every bound of exact work shares.

The unit is the fight engine's: one multiply-add of the array loops an exact engine runs
(a fight's convolutions, the unit of :data:`critlab.analysis.fight.exact.WORK_LIMIT`; an
encounter's shifted adds of its states, :mod:`critlab.analysis.encounter.work`), counted
from sizes alone, so an estimate is the same on every machine. :data:`BUDGET` bounds a
whole run (a tune's grid, a sensitivity, a report's section or its balance checks):
:func:`check_budget` refuses one over it before any work, in one line naming what to
shrink; :func:`corners` are the points of a grid whose mean cost stands for its points'.

A spec's exact result
costs :data:`POINT_COST` for building it, :data:`VALUE_COST` for each value its dice
distributions span (the model convolves, mixes and sums them) and, once for each distinct
expression, the dice engine's own work (its values, steps and sums, as
:func:`critlab.analysis.dice.limits.limits` counts them from the notation). It sits here,
among the foundations, so that every kind of model (:mod:`critlab.analysis.model`)
estimates its own work where it lives.

>>> from critlab.analysis.spec import Spec
>>> spec_work(Spec()) == (POINT_COST, 0.0)        # no dice: the point's fixed work
True
>>> check_budget(Work(10, 1e6), "vary", "use fewer points") is None
True
>>> Work(10**5, POINT_COST).total <= BUDGET     # the largest plain grid a tune takes
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from critlab.analysis.dice.limits import limits
from critlab.analysis.dice.notation import parse
from critlab.analysis.params import Dice, declared
from critlab.analysis.spec_error import SpecError

# A run's total, in units: about two minutes of one core on the 2-core development
# machine, where a unit took 0.26-0.45 ns of CPU (tunes over fights of hp 100 to 5x10^4 and
# over 4,400 plain crit-range points; encounters 0.12-0.4 ns), so 105-160 s. It admits the
# largest grid a tune takes (10^5 plain points) and refuses, before any work, the runs that
# would hold a CI report job or a terminal for an hour: almost surely a range typed too wide.
BUDGET = 3.5e11

# One exact point's fixed work: the spec checked, the system's model and its result built
# (measured ~0.9-1.1 ms a point tuning crit-range and thac0; at 0.3 ns a unit).
POINT_COST = 3e6
# Each value a point's dice distributions span, at every point: the systems' models
# convolve (FFT), mix, clip and sum them with compensated sums, ~0.6-1.5 us a value
# (thac0, crit-range and crits-cats over 1d8 .. 100d1000, measured on the development
# machine, where a unit is 0.26-0.45 ns).
VALUE_COST = 3000.0
# The dice engine, once per distinct expression (measured likewise over 1d8 .. 100d1000,
# pools, explosions, rerolls and groups): its fixed cost (~0.5 ms), each value of the
# terms' distributions (~200-300 ns), each step of a pool's or a chain's exact programme
# (2-160 ns: the count is an upper bound), and each value summed after a term (~60-200 ns).
EXPRESSION_COST = 1.5e6
DICE_VALUE_COST = 1000.0
STEP_COST = 30.0
SUM_COST = 500.0


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


def dice_work(text: Any) -> tuple[float, float]:
    """``(per point, once)`` of one dice expression: its values mixed at every point, and
    the dice engine's own work computing it, once. Text that is not dice notation costs
    nothing here (the rules refuse it at the point).

    >>> dice_work("2d6"), dice_work("not dice")
    ((36000.0, 1512000.0), (0.0, 0.0))
    >>> per, once = dice_work("100d1000")   # ~0.1 s a point in thac0's model, ~0.03 s once
    >>> f"{per:.2g} {once:.2g}"
    '3e+08 1e+08'
    """
    try:
        terms = parse(str(text)).terms
    except ValueError:
        return 0.0, 0.0
    _, span, steps, summed = limits(terms)
    once = EXPRESSION_COST + DICE_VALUE_COST * span + STEP_COST * steps + SUM_COST * summed
    return span * VALUE_COST, once


def dice_of(spec: Any) -> list[str]:
    """The dice expressions a spec's exact result uses (its dice parameters in use)."""
    unused = spec.unused() if hasattr(spec, "unused") else frozenset()
    out = []
    for name, decl in declared(type(spec)).items():
        value = getattr(spec, name, None)
        if isinstance(decl.kind, Dice) and value is not None and name not in unused:
            out.append(str(value))
    return out


def spec_work(spec: Any) -> tuple[float, float]:
    """``(per point, once)`` of one spec's exact result: :data:`POINT_COST`, and every dice
    parameter it uses (:func:`dice_work`)."""
    per, once = POINT_COST, 0.0
    for text in dice_of(spec):
        p, o = dice_work(text)
        per, once = per + p, once + o
    return per, once


# At most this many points of a grid are probed for its work.
MAX_PROBES = 32


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


def check_budget(work: Work, name: str, shrink: str, workers: int | None = None) -> None:
    """Refuse (``SpecError`` naming ``name``, one line) a run over :data:`BUDGET` (times
    ``workers``, the workers of a cluster the points run on; by default those of
    :func:`on_workers`), ending with what to shrink (``shrink``: "fewer points or a lower
    hp", ...).

    >>> check_budget(Work(2 * 10**5, POINT_COST), "vary", "fewer points", workers=2) is None
    True
    >>> with on_workers(2):
    ...     check_budget(Work(2 * 10**5, POINT_COST), "vary", "fewer points") is None
    True
    """
    workers = _WORKERS.get() if workers is None else workers
    budget = BUDGET * max(1, int(workers))
    if work.total > budget:
        on = f" on {workers} workers" if workers > 1 else ""
        raise SpecError(
            name,
            f"{work.points:,} points",
            f"need about {work.total:.2g} units of exact work (about {work.per_point:.2g} a point); at most "
            f"{budget:.2g} in one run{on} (about two minutes); {shrink}",
        )


# The workers the exact points of a run in progress are computed on (a report's, whose
# sections, checks and their budgets are read and priced deep below its command).
_WORKERS: ContextVar[int] = ContextVar("workers", default=1)


@contextmanager
def on_workers(workers: int) -> Iterator[None]:
    """Within it, every budget is ``workers`` times :data:`BUDGET` (a run on a cluster)."""
    token = _WORKERS.set(max(1, int(workers)))
    try:
        yield
    finally:
        _WORKERS.reset(token)


def workers_of(client: Any) -> int:
    """How many workers the Dask ``client``'s scheduler reports (1 without a client): a run
    of exact points on them may do that many budgets' work in the same time."""
    return 1 if client is None else max(1, len(client.nthreads()))


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
    "MAX_PROBES",
    "Work",
    "check_budget",
    "corners",
    "narrowed",
    "no_value",
    "on_workers",
    "workers_of",
    "DICE_VALUE_COST",
    "EXPRESSION_COST",
    "POINT_COST",
    "STEP_COST",
    "SUM_COST",
    "VALUE_COST",
    "dice_of",
    "dice_work",
    "spec_work",
]
