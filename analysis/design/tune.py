"""Tuning: which parameter values bring an exact quantity nearest a target.

:func:`tune` computes every point of a grid with the exact engine (integer parameters
over ranges, choice parameters over lists; lexicographic, the first parameter varying
slowest), skips and counts the points the rules refuse or whose quantity is null, and
returns the ``top`` points nearest the target, nearest first, ties in grid order
(``|error|`` values within 1e-12 of each other are ties)::

    critlab tune crit-range --vary crit_range=0..10 --target crit=0.08 --attack-bonus 5 --evasion 14

>>> from critlab.analysis.systems import get_system
>>> spec = get_system("crit-range").make_spec(attack_bonus=5, evasion=14)
>>> df = tune(spec, vary={"crit_range": range(0, 11)}, target=("crit", 0.08), top=3)
>>> [(r.crit_range, round(r.value, 12), round(r.error, 12)) for r in df.itertuples()]
[(2, 0.1, 0.02), (1, 0.05, -0.03), (3, 0.15, 0.07)]
>>> df.attrs["skipped"]
0
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pandas is imported where the frame is made: the command line's help stays light
    import pandas as pd

from critlab.analysis.design import cost
from critlab.analysis.design.cost import spec_work
from critlab.analysis.design.grid import DEFAULT_TOP, MAX_GRID, check_goal, grid_of, nearest
from critlab.analysis.design.points import Refused, exact_points
from critlab.analysis.design.quantity import (
    Quantity,
    QuantityError,
    check_fight,
    fight_params_of,
    snake,
    split_fight,
)
from critlab.analysis.params import Bool, Choice, Dice, Int, declared
from critlab.analysis.spec import Spec, SpecError, field_types, system_of
from critlab.analysis.systems.model import SystemModel
from critlab.analysis.work import workers_of


@dataclass(frozen=True)
class Axis:
    """One varied parameter and its values, in grid order."""

    name: str
    values: tuple[Any, ...]
    fight: bool = False


# -- parameter kinds ------------------------------------------------------------------------
def param_kind(system: Any, name: str) -> tuple[str, tuple[Any, ...] | None]:
    """``(kind, allowed)`` of a parameter: ``("int", (lo, hi) or None)``,
    ``("choice", choices)``, ``("bool", (True, False))`` or ``("other", None)`` (dice,
    numbers, text). Fight parameters are integers.

    >>> from critlab.analysis.systems import get_system
    >>> param_kind(get_system("thac0"), "crit_option")
    ('choice', ('double', 'max', 'severity'))
    """
    if name in fight_params_of(system):
        return "int", None
    decl = declared(system.spec).get(name)
    if decl is not None:
        if isinstance(decl.kind, Int):
            return "int", (decl.kind.lo, decl.kind.hi)
        if isinstance(decl.kind, Choice):
            return "choice", decl.kind.choices
        if isinstance(decl.kind, Bool):
            return "bool", (True, False)
        return "other", None
    base, _ = field_types(system.spec)[name]
    if base is bool:
        return "bool", (True, False)
    if base is int:
        return "int", None
    hint = typing.get_type_hints(system.spec)[name]
    for arg in (hint, *typing.get_args(hint)):
        if typing.get_origin(arg) is typing.Literal:
            return "choice", tuple(typing.get_args(arg))
    return "other", None


def known_params(system: Any) -> tuple[str, ...]:
    """Every parameter a grid may vary: the spec's, then the fight's."""
    return (*(f.name for f in dataclasses.fields(system.spec)), *fight_params_of(system))


def check_axes(system: Any, params: Mapping[str, Any], vary: Mapping[str, Iterable[Any]]) -> list[Axis]:
    """The grid's axes, checked: known parameters, values of the right kind, each used.

    Raises :class:`SpecError` naming the parameter and what is allowed.
    """
    known = known_params(system)
    fights = fight_params_of(system)
    if not isinstance(vary, Mapping) or not vary:
        raise SpecError(
            "vary", vary, "must name at least one parameter and its values, e.g. {'crit_range': range(0, 11)}"
        )
    axes = []
    for raw, values in vary.items():
        name = snake(raw)
        if name not in known:
            raise SpecError(name, values, f"is not a parameter of {system.name}; known: {', '.join(known)}")
        if any(a.name == name for a in axes):
            raise SpecError(name, values, "is varied twice")
        if isinstance(values, str | bytes) or not isinstance(values, Iterable):
            raise SpecError(name, values, "must be varied over a list, a tuple or a range of values")
        # One more than the grid allows, read lazily: a generator or an endless iterator
        # is refused after MAX_GRID + 1 values, not read into memory.
        vals = tuple(itertools.islice(values, MAX_GRID + 1))
        if len(vals) > MAX_GRID:
            raise SpecError(
                name, f"more than {MAX_GRID:,} values", f"at most {MAX_GRID:,} points (narrow a range)"
            )
        if not vals:
            raise SpecError(name, "(no values)", "needs at least one value to vary over (LO <= HI)")
        kind, allowed = param_kind(system, name)
        for v in vals:
            if kind == "int" and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
                raise SpecError(name, v, "must be varied over integers, e.g. LO..HI")
            if kind in ("choice", "bool") and v not in allowed:
                shown = ", ".join(str(a).lower() if isinstance(a, bool) else str(a) for a in allowed)
                raise SpecError(name, v, f"must be one of {shown}")
        if len(set(map(repr, vals))) != len(vals):
            raise SpecError(name, vals, "has a value twice")
        vals = tuple(int(v) for v in vals) if kind == "int" else vals
        axes.append(Axis(name, vals, fight=name in fights))
    if any(a.fight for a in axes) and "hp" not in params and not any(a.name == "hp" for a in axes):
        first = next(a for a in axes if a.fight)
        raise SpecError(first.name, first.values[0], "is a fight parameter: give hp as well (or vary it)")
    names = {a.name for a in axes}
    spec_base = {k: v for k, v in params.items() if k not in fights and k not in names}
    notation_work(system, spec_base, axes)  # before any spec: building one computes its dice
    for axis in axes:
        if not axis.fight:
            _check_used(system, params, axes, axis)
    return axes


def notation_work(system: Any, spec_base: Mapping[str, Any], axes: list[Axis]) -> cost.Work:
    """The grid's exact work read from its dice notation alone (the mean over its corners,
    each varied expression once), refused with a SpecError naming ``vary`` when over the
    budget: before any spec is built, since building one computes its dice."""
    n = math.prod(len(a.values) for a in axes)
    corners = cost.corners([(a.name, a.values) for a in axes])
    kws = [{**spec_base, **{a.name: point[a.name] for a in axes if not a.fight}} for point in corners]
    dice = {name for name, d in declared(system.spec).items() if isinstance(d.kind, Dice)}
    notation = cost.notation_work(system, kws)
    once = notation.once + cost.dice_once(v for a in axes if a.name in dice for v in a.values)
    work = cost.Work(n, notation.per_point, once)
    cost.check_budget(work, "vary", "use fewer points (a narrower --vary range) or smaller dice")
    return work


def _check_used(system: Any, params: Mapping[str, Any], axes: list[Axis], axis: Axis) -> None:
    """A varied parameter must be used at some point of the grid: it is tried with every
    combination of the other varied words (modes), the rest at their first values."""
    words = [a for a in axes if a is not axis and not a.fight and param_kind(system, a.name)[0] != "int"]
    firsts = {a.name: a.values[0] for a in axes if not a.fight}
    spec_params = {k: v for k, v in params.items() if k not in fight_params_of(system)}
    built = None
    for combo in itertools.islice(itertools.product(*(a.values for a in words)), 256):
        try:
            spec = system.spec(
                **{**spec_params, **firsts, **dict(zip([a.name for a in words], combo, strict=True))}
            )
        except (SpecError, ValueError, TypeError):
            continue
        built = spec
        if axis.name not in spec.unused():
            return
    if built is not None:
        decl = declared(system.spec).get(axis.name)
        where = decl.describe_when() if decl is not None and decl.when else "it is null with these parameters"
        raise SpecError(axis.name, axis.values[0], f"is not used in this mode ({where}); vary one it uses")


# -- the grid -------------------------------------------------------------------------------
def tune_params(
    system: Any,
    params: Mapping[str, Any],
    *,
    vary: Mapping[str, Iterable[Any]],
    target: tuple[str, float],
    top: int = DEFAULT_TOP,
    progress: bool | None = None,
    client: Any = None,
) -> pd.DataFrame:
    """:func:`tune` from plain parameters (the command line's): ``params`` need not make
    a valid spec by themselves (a required parameter may be varied); fight parameters
    (``hp``, ...) among them or in ``vary`` make the fight's quantities available. Each
    point is the model's (:func:`~critlab.analysis.design.points.exact_points`: the
    system's, or its fight's), on the Dask ``client``'s workers when given."""
    q = Quantity(system, target[0])
    _, goal = check_goal(target, top)
    params = {snake(k): v for k, v in params.items()}
    known = known_params(system)
    for name in params:
        if name not in known:
            raise SpecError(
                name, params[name], f"is not a parameter of {system.name}; known: {', '.join(known)}"
            )
    # sized before anything is built: 0..10^9 is refused without listing a billion values
    _check_size({k: len(v) for k, v in vary.items() if hasattr(v, "__len__")})
    axes = check_axes(system, params, vary)
    n = _check_size({a.name: len(a.values) for a in axes})
    names = [a.name for a in axes]
    fixed = {k: v for k, v in params.items() if k not in names}
    # A varied hp stands in for the hp that fight parameters given alone would need.
    hp_varied = "hp" in names and "hp" in fight_params_of(system)
    spec_base, fight_base = split_fight(system, {**fixed, "hp": 1} if hp_varied else fixed)
    if hp_varied:
        del fight_base["hp"]
    if fight_base:
        check_fight(fight_base)
    words_varied = any(not a.fight and param_kind(system, a.name)[0] != "int" for a in axes)
    workers = workers_of(client)
    grid_work(system, q, spec_base, fight_base, axes, n, workers)  # over the budget: refused before any work

    model: Any = SystemModel(system, spec_base)
    if fight_base or any(a.fight for a in axes):
        from critlab.analysis.fight.model import FightModel

        model = FightModel(model, fight_base)
    read = partial(_read, quantity=q, lenient=words_varied)
    grid = [(a.name, a.values) for a in axes]
    answers = exact_points(
        model, grid_of(grid), read, name=f"tune {system.name}", progress=progress, client=client
    )
    df = nearest(grid, answers, q.name, goal, top)
    first_spec = _first_spec(system, spec_base, axes, answers)
    df.attrs.update(
        system=system.name,
        params=_fixed_params(system, params, first_spec, names),
        fight={k: v for k, v in fight_base.items()},
    )
    return df


def _read(model: Any, quantity: Quantity, lenient: bool) -> float | None:
    """The quantity at a point; where the labels differ between points (a mode varied), a
    quantity one point's mode lacks is null there."""
    try:
        return quantity.read(model)
    except QuantityError:
        if not lenient:  # the same labels at every point: a typo, not a mode
            raise
        return None


def _first_spec(
    system: Any, spec_base: Mapping[str, Any], axes: list[Axis], answers: list[Any]
) -> Spec | None:
    """The spec of the first point with a value (the fixed parameters are read from it)."""
    for i, answer in enumerate(answers):
        if answer is not None and not isinstance(answer, Refused) and not math.isnan(answer):
            coords = np.unravel_index(i, [len(a.values) for a in axes])
            kw = {a.name: a.values[c] for a, c in zip(axes, coords, strict=True) if not a.fight}
            return system.spec(**{**spec_base, **kw})
    return None


def grid_work(
    system: Any,
    q: Quantity,
    spec_base: Mapping[str, Any],
    fight_base: Mapping[str, Any],
    axes: list[Axis],
    n: int,
    workers: int = 1,
) -> cost.Work:
    """The grid's estimated exact work (:mod:`critlab.analysis.design.cost`): the mean
    over its corners (:func:`~critlab.analysis.design.cost.corners`) times its points,
    refused with a SpecError naming ``vary`` when over the budget. The specs' own work is
    checked first, from their parameters alone (and from the notation before that:
    :func:`notation_work`); then, where the quantity is the fight's,
    each corner's fight from its attack's exact damage (a corner past the fight's bound
    stands for the points just inside it)."""
    shrink = "use fewer points (a narrower --vary range)"
    dice = {name for name, d in declared(system.spec).items() if isinstance(d.kind, Dice)}
    varied = [v for a in axes if a.name in dice for v in a.values]
    corners = cost.corners([(a.name, a.values) for a in axes])
    kws = [{**spec_base, **{a.name: point[a.name] for a in axes if not a.fight}} for point in corners]
    probes = []
    for point, kw in zip(corners, kws, strict=True):
        fight = {**fight_base, **{a.name: point[a.name] for a in axes if a.fight}}
        try:
            spec = system.spec(**kw)
        except (ValueError, TypeError):  # refused by the rules: a cheap point
            spec = None
        probes.append((spec, fight, spec_work(spec) if spec is not None else (cost.POINT_COST, 0.0)))
    once = cost.dice_once(varied) + max(o for _, _, (_, o) in probes)
    work = cost.Work(n, math.fsum(p for _, _, (p, _) in probes) / len(probes), once)
    cost.check_budget(work, "vary", shrink, workers)
    if not fight_base and not any(a.fight for a in axes):
        return work
    costs = []
    for spec, fight, (p, _) in probes:
        try:
            q.resolve(system.exact(spec))  # the attack's own quantity: no fight is computed
        except QuantityError:
            p += cost.fight_work(spec, fight, at_limit=True)
        except (ValueError, AttributeError):  # a refused point (or none built)
            pass
        costs.append(p)
    work = cost.Work(n, math.fsum(costs) / len(costs), once)
    cost.check_budget(work, "vary", shrink + ", a lower hp, fewer attacks_per_round or max_rounds", workers)
    return work


def _check_size(lengths: Mapping[str, int]) -> int:
    n = math.prod(lengths.values())
    if n > MAX_GRID:
        sizes = " × ".join(f"{k} {name}" for name, k in lengths.items())
        raise SpecError("vary", sizes, f"makes {n:,} points; at most {MAX_GRID:,} (narrow a range)")
    return n


def _where(names: list[str], combo: tuple[Any, ...]) -> str:
    return ", ".join(f"{k}={v}" for k, v in zip(names, combo, strict=True))


def _fixed_params(system: Any, params: Mapping[str, Any], spec: Spec | None, varied: list[str]) -> dict:
    """Every non-varied spec parameter as ``exact --json`` shows it (from the first point
    computed; without one, as given or defaulted)."""
    if spec is not None:
        return {k: v for k, v in spec.params().items() if k not in varied}
    out = {}
    for f in dataclasses.fields(system.spec):
        if f.name not in varied:
            default = None if f.default is dataclasses.MISSING else f.default
            out[f.name] = params.get(f.name, default)
    return out


def tune(
    spec: Spec,
    *,
    vary: Mapping[str, Iterable[Any]],
    target: tuple[str, float],
    top: int = DEFAULT_TOP,
    fight: Mapping[str, Any] | None = None,
    progress: bool | None = None,
    client: Any = None,
) -> pd.DataFrame:
    """The grid points whose exact quantity is nearest ``target``.

    Parameters
    ----------
    spec
        The spec every point starts from; each point replaces the varied parameters.
    vary
        Parameter name (snake or kebab case) -> values: integers (``range(0, 11)``) for
        an integer parameter, words for a choice (``["normal", "advantage"]``). The grid
        is every combination, the first parameter varying slowest; at most 10^5 points,
        and at most :data:`critlab.analysis.design.cost.BUDGET` units of estimated exact
        work (checked from the grid's corners before any point is computed).
    target
        ``(quantity, value)``: an outcome label, labels joined by ``+``, or a metric
        (see :mod:`critlab.analysis.design.quantity`).
    top
        How many points to return.
    fight
        ``hp`` (and optionally ``attacks_per_round``, ``max_rounds``): the fight's outcomes
        and metrics become quantities, and these may be varied too.
    progress
        A progress bar: ``True`` always, ``False`` never, ``None`` on a terminal.
    client
        A Dask client: the points are computed on its workers (the same frame as here;
        the work budget times its workers).

    Returns
    -------
    DataFrame
        One row per point, nearest first (ties in grid order): the varied parameters,
        ``value`` and ``error`` (= value − target). ``attrs`` hold ``skipped`` (points
        refused by the rules or with a null quantity; also ``refused`` and ``null``
        apart), ``points`` (the grid's size), ``target``, ``params`` (the fixed
        parameters) and ``first_refusal`` (why the first refused point was refused).
    """
    system = system_of(spec)  # None or another object: a one-line TypeError naming spec
    if not isinstance(vary, Mapping):
        raise TypeError(f"vary must be a mapping of parameter names to values, got {type(vary).__name__}")
    params = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    return tune_params(
        system,
        {**params, **(fight or {})},
        vary=vary,
        target=target,
        top=top,
        progress=progress,
        client=client,
    )


__all__ = [
    "DEFAULT_TOP",
    "MAX_GRID",
    "Axis",
    "check_axes",
    "grid_work",
    "notation_work",
    "known_params",
    "param_kind",
    "tune",
    "tune_params",
]
