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
  :data:`VALUE_COST` for each value its dice distributions span (the model convolves, mixes
  and sums them at every point);
- each distinct dice expression once (the dice engine keeps what it computed): its values,
  the steps of its exact programmes and the sums of its terms, as
  :func:`critlab.analysis.dice.limits.limits` counts them from the notation alone
  (:func:`dice_work`);
- a fight: :func:`critlab.analysis.fight.exact.estimate_work` (the attack's exact damage is
  computed for it, which is the dice work above);
- an encounter: its states times each round's attacks times their damage values, over the
  rounds it is expected to last (:func:`critlab.analysis.encounter.work.encounter_work`).

The unit, :data:`BUDGET` and :func:`check_budget` are :mod:`critlab.analysis.work`'s
(re-exported here), where every kind of model estimates its own work.

>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> Work(10**5, *spec_work(spec)).total < BUDGET     # the largest plain grid a tune takes
True
>>> check_budget(Work(10**5, point_work(spec, {"hp": 10**5})), "vary", "use fewer points or a lower hp")
Traceback (most recent call last):
...
critlab.analysis.spec.SpecError: parameter vary = 100,000 points: need about 7...e+12 units of exact work (...
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from critlab.analysis.params import Dice, declared, default_of
from critlab.analysis.spec import Spec, SpecError

# A point's own work and the run's budget are the foundations' (every kind of model
# estimates its own work where it lives).
from critlab.analysis.work import (
    BUDGET,
    DICE_VALUE_COST,
    EXPRESSION_COST,
    MAX_PROBES,
    POINT_COST,
    STEP_COST,
    SUM_COST,
    VALUE_COST,
    Work,
    check_budget,
    corners,
    dice_of,
    dice_work,
    spec_work,
)

# At most this many of a sweep's specs are read for their own work (from parameters only).
SAMPLE = 4096
# At most this many points, and distinct expressions, are read from the notation alone.
NOTATION_SAMPLE = 256
# Fights whose estimate is kept: checks and a grid's corners repeat a spec and a fight.
_KEPT = 64


def _sample(n: int, k: int) -> list[int]:
    """Up to ``k`` of ``n`` indices, evenly spaced, the first and the last among them
    (every index when ``n <= k``).

    >>> _sample(5, 256), _sample(9, 3)
    ([0, 1, 2, 3, 4], [0, 4, 8])
    """
    m = min(k, n)
    return sorted({round(i * (n - 1) / max(m - 1, 1)) for i in range(m)})


def notation_work(system: Any, points: Sequence[Mapping[str, Any]]) -> Work:
    """The exact work of points given by their parameters (``{name: value}`` each, over
    ``system``'s defaults), read from the dice notation alone: before any spec is built,
    since building one checks its dice by computing them. The spec's own
    :data:`POINT_COST` and :func:`dice_work` of every dice parameter given or defaulted
    (used or not: an upper bound), each distinct expression's dice computed once.

    >>> from critlab.analysis.systems import get_system
    >>> thac0 = get_system("thac0")
    >>> heavy = [{"damage": f"100d1000+{k}"} for k in range(4002)]
    >>> f"{notation_work(thac0, heavy).total:.2g}"     # ~0.1 s a point: refused
    '1.6e+12'
    >>> notation_work(thac0, [{}] * 10**5).total < BUDGET     # the largest plain grid
    True
    """
    n = len(points)
    spec_cls = getattr(system, "spec", None)
    fields = declared(spec_cls) if spec_cls is not None else {}
    dice = {name: default_of(spec_cls, name) for name, d in fields.items() if isinstance(d.kind, Dice)}

    def texts(point: Mapping[str, Any]) -> list[str]:
        return [str(v) for name, default in dice.items() if (v := point.get(name, default)) is not None]

    if not n:
        return Work(0, 0.0)
    work = lru_cache(maxsize=None)(dice_work)  # reading notation takes ~0.5 ms an expression
    picked = _sample(n, NOTATION_SAMPLE)
    per = math.fsum(POINT_COST + math.fsum(work(t)[0] for t in texts(points[i])) for i in picked)
    distinct = list(dict.fromkeys(t for p in points for t in texts(p)))
    read = [distinct[i] for i in _sample(len(distinct), NOTATION_SAMPLE)]
    once = math.fsum(work(t)[1] for t in read) * len(distinct) / max(len(read), 1)
    return Work(n, per / len(picked), once)


def points_work(points: Sequence[tuple[Spec, Mapping[str, Any] | None]]) -> Work:
    """The work of a sweep's points, ``(spec, fight or None)`` each: every spec's dice
    (each distinct expression once), the specs' own work from up to :data:`SAMPLE` of them
    evenly spaced and, with fights, the fights of up to :data:`MAX_PROBES` (the first and
    the last among them; one past its bound stands for the points just inside it).

    >>> from critlab.analysis.systems import get_system
    >>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    >>> points_work([(spec, None)] * 10).total == 10 * spec_work(spec)[0] + spec_work(spec)[1]
    True
    """
    n = len(points)
    if not n:
        return Work(0, 0.0)
    once = dice_once(text for spec, _ in points for text in dice_of(spec))

    def sample(k: int) -> list[int]:
        return _sample(n, k)

    per = math.fsum(spec_work(points[i][0])[0] for i in sample(SAMPLE)) / len(sample(SAMPLE))
    if Work(n, per, once).total > BUDGET:  # refused from the notation alone: no fight probed
        return Work(n, per, once)
    fights = [i for i in sample(MAX_PROBES) if points[i][1]]
    if fights:
        spent = math.fsum(fight_work(points[i][0], points[i][1], at_limit=True) for i in fights)
        per += spent / len(fights) * sum(1 for _, f in points if f) / n
    return Work(n, per, once)


def fight_work(spec: Spec, fight: Mapping[str, Any], *, at_limit: bool = False) -> float:
    """See :func:`_fight_work`; estimated once for checks and corners of the same spec and
    fight (an unhashable spec each time)."""
    try:
        return _kept_fight_work(spec, tuple(sorted(fight.items())), at_limit)
    except TypeError:  # unhashable
        return _fight_work(spec, fight, at_limit=at_limit)


@lru_cache(maxsize=_KEPT)
def _kept_fight_work(spec: Spec, fight: tuple[tuple[str, Any], ...], at_limit: bool) -> float:
    return _fight_work(spec, dict(fight), at_limit=at_limit)


def _fight_work(spec: Spec, fight: Mapping[str, Any], *, at_limit: bool = False) -> float:
    """The exact fight of ``spec``'s attack against ``fight`` (``hp``, ...), in units;
    computes the attack's exact damage. A fight past its work bound is refused before any
    work: 0.0, or with ``at_limit`` the bound itself (a grid's corner past it stands for
    the points just inside). One that cannot fight at all costs 0.0."""
    from critlab.analysis.fight.exact import WORK_LIMIT, Fight, attack_damage, estimate_work

    try:
        damage, bout = attack_damage(spec), Fight(**fight)
    except (SpecError, ValueError, TypeError):
        return 0.0
    work = estimate_work(damage, bout)
    return WORK_LIMIT if at_limit and work == 0.0 else work


def point_work(spec: Spec, fight: Mapping[str, Any] | None = None) -> float:
    """One point's units: its exact result (:func:`spec_work`, dice steps included, as if
    computed anew) and, with ``fight``, its fight."""
    per, once = spec_work(spec)
    return per + once + (fight_work(spec, fight) if fight else 0.0)


def dice_once(values: Iterable[Any]) -> float:
    """The steps of every distinct dice expression in ``values``, each computed once."""
    return math.fsum(dice_work(v)[1] for v in {str(v) for v in values})


__all__ = [
    "BUDGET",
    "POINT_COST",
    "VALUE_COST",
    "DICE_VALUE_COST",
    "EXPRESSION_COST",
    "STEP_COST",
    "SUM_COST",
    "Work",
    "MAX_PROBES",
    "check_budget",
    "corners",
    "SAMPLE",
    "dice_of",
    "notation_work",
    "dice_once",
    "points_work",
    "dice_work",
    "fight_work",
    "point_work",
    "spec_work",
]
