"""Tuning any model: a grid of its declared parameters, every point exact, the nearest kept.

:func:`tune_model` is the tune of :mod:`critlab.analysis.design.tune` written over the
:class:`~critlab.analysis.model.Model` protocol alone: the axes checked against the
model's declared parameters (an integer over integers, a choice over its words), the grid
priced by each point's own :meth:`~critlab.analysis.model.Model.work` before any is
computed, every point computed by the one point loop
(:func:`critlab.analysis.design.points.exact_points`, here or on a Dask cluster) and
ranked by :func:`nearest`. An encounter's settings (``ogre.hp``, ``order``) are tuned so:

>>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
>>> from critlab.analysis.encounter.model import EncounterModel
>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> hero, ogre = Combatant("hero", 10, spec), Combatant("ogre", 10, spec)
>>> model = EncounterModel(Encounter(Side((hero,)), Side((ogre,)), order="a-first"))
>>> df = tune_model(model, vary={"ogre.hp": range(4, 21)}, target=("a_wins", 0.75), top=2)
>>> list(df.columns), int(df["ogre.hp"].iloc[0]) < 10
(['ogre.hp', 'value', 'error'], True)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from critlab.analysis.design.points import Refused, Stop, exact_points, model_work
from critlab.analysis.model import BOOLEAN, CHOICE, INTEGER
from critlab.analysis.spec_error import SpecError
from critlab.analysis.work import no_value, workers_of

if TYPE_CHECKING:
    import pandas as pd

# Larger grids are almost surely a typo in a range; refused before any work.
MAX_GRID = 10**5
DEFAULT_TOP = 5


def model_value(model: Any, quantity: str) -> float | None:
    """``model.value(quantity)``, a quantity the model does not know a :class:`Stop` (every
    point would refuse it the same way)."""
    try:
        return model.value(quantity)
    except SpecError as exc:
        if exc.name == "quantity":
            raise Stop(str(exc)) from None
        raise


def axes_of(model: Any, vary: Mapping[str, Iterable[Any]]) -> list[tuple[str, tuple[Any, ...]]]:
    """``vary`` checked against ``model``'s declared parameters: each known (the model's
    own SpecError otherwise), 1..:data:`MAX_GRID` values of its kind, none twice."""
    if not isinstance(vary, Mapping) or not vary:
        raise SpecError("vary", vary, "must name at least one parameter and its values")
    axes = []
    for name, values in vary.items():
        p = model.parameter(name)
        if any(a == name for a, _ in axes):
            raise SpecError(name, values, "is varied twice")
        if isinstance(values, str | bytes) or not isinstance(values, Iterable):
            raise SpecError(name, values, "must be varied over a list, a tuple or a range of values")
        vals = tuple(itertools.islice(values, MAX_GRID + 1))
        if not vals or len(vals) > MAX_GRID:
            raise SpecError(name, f"{len(vals)} values", f"needs 1..{MAX_GRID} values")
        for v in vals:
            if p.kind == CHOICE and v not in p.choices:
                raise SpecError(name, v, "must be one of " + ", ".join(p.choices))
            if p.kind == INTEGER and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
                raise SpecError(name, v, "must be varied over integers, e.g. LO..HI")
            if p.kind == BOOLEAN and v not in (True, False):
                raise SpecError(name, v, "must be true or false")
        if len(set(map(repr, vals))) != len(vals):
            raise SpecError(name, vals, "has a value twice")
        axes.append((name, tuple(int(v) for v in vals) if p.kind == INTEGER else vals))
    n = math.prod(len(v) for _, v in axes)
    if n > MAX_GRID:
        raise SpecError("vary", f"{n} points", f"at most {MAX_GRID:,} points (narrow a range)")
    return axes


def grid_of(axes: Sequence[tuple[str, Sequence[Any]]]) -> list[dict[str, Any]]:
    """Every point of the grid, lexicographic (the first axis varying slowest)."""
    names = [a for a, _ in axes]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(v for _, v in axes))]


def nearest(
    axes: Sequence[tuple[str, Sequence[Any]]],
    answers: Sequence[Any],
    quantity: str,
    goal: float,
    top: int,
) -> pd.DataFrame:
    """The ``top`` points whose answer is nearest ``goal``, nearest first (``|error|``
    within 1e-12 of each other are ties, in grid order): the varied parameters, ``value``
    and ``error``. A :class:`Refused` answer is a refused point, ``None`` a null value:
    both skipped and counted in ``attrs`` (``points``, ``skipped``, ``refused``, ``null``,
    ``first_refusal``); a SpecError naming the first refusal when no point has a value."""
    import pandas as pd

    n = len(answers)
    values = np.full(n, np.nan)
    refused = null = 0
    first: str | None = None
    for i, answer in enumerate(answers):
        if isinstance(answer, Refused):
            refused += 1
            if first is None:
                first = f"at {_where(axes, i)}: {answer.reason()}"
        elif answer is None or math.isnan(answer):
            null += 1
        else:
            values[i] = answer
    found = np.flatnonzero(~np.isnan(values))
    if not len(found):  # every point skipped: the grid answers nothing
        raise no_value(n, refused, null, quantity, first)
    key = np.round(np.abs(values[found] - goal), 12)  # differences below 1e-12 are ties
    best = found[np.argsort(key, kind="stable")][:top]
    coords = np.unravel_index(best, tuple(len(v) for _, v in axes))
    columns: dict[str, Any] = {a: [vals[c] for c in coords[j]] for j, (a, vals) in enumerate(axes)}
    columns["value"] = values[best]
    columns["error"] = values[best] - goal
    df = pd.DataFrame(columns)
    df.attrs.update(
        target={"quantity": quantity, "value": float(goal)},
        points=n,
        skipped=refused + null,
        refused=refused,
        null=null,
        first_refusal=first,
    )
    return df


def _where(axes: Sequence[tuple[str, Sequence[Any]]], i: int) -> str:
    coords = np.unravel_index(i, tuple(len(v) for _, v in axes))
    return ", ".join(f"{a}={vals[c]}" for (a, vals), c in zip(axes, coords, strict=True))


def check_goal(target: tuple[str, float], top: int) -> tuple[str, float]:
    """``(quantity, goal)`` of a tune's ``target``, and its ``top``, checked."""
    quantity, goal = target
    if isinstance(goal, bool) or not isinstance(goal, (int, float)) or not math.isfinite(goal):
        raise SpecError("target", goal, "must be a finite number")
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_GRID:
        raise SpecError("top", top, f"must be an integer in 1..{MAX_GRID}")
    return quantity, float(goal)


def tune_model(
    model: Any,
    *,
    vary: Mapping[str, Iterable[Any]],
    target: tuple[str, float],
    top: int = DEFAULT_TOP,
    progress: bool | None = None,
    client: Any = None,
) -> pd.DataFrame:
    """The grid points of ``vary`` (parameter -> values, the first varying slowest) whose
    exact quantity at ``model`` is nearest ``target`` (``(quantity, value)``), as
    :func:`nearest` gives them; the quantity is checked at ``model`` first, the grid's
    work priced before any point (the budget times the workers of ``client``, a Dask
    client the points are computed on)."""
    quantity, goal = check_goal(target, top)
    model_value(model, quantity)  # a typo in the quantity, before the grid
    axes = axes_of(model, vary)
    n = math.prod(len(v) for _, v in axes)
    model_work(model, axes, n, "vary", f"use fewer points or {model.shrink}", workers_of(client))
    read = partial(model_value, quantity=quantity)
    answers = exact_points(
        model, grid_of(axes), read, name=f"tune {model.name}", progress=progress, client=client
    )
    return nearest(axes, answers, quantity, goal, top)


__all__ = [
    "DEFAULT_TOP",
    "MAX_GRID",
    "axes_of",
    "check_goal",
    "grid_of",
    "model_value",
    "nearest",
    "tune_model",
]
