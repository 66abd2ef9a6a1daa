"""Sensitivity: what one step of each integer parameter is worth, for every quantity.

:func:`sensitivity` computes the spec exactly, and again with each integer parameter one
lower and one higher (every parameter that the spec's mode uses, in ``params`` order);
:func:`tornado` draws what each ±1 does to one chosen quantity, biggest effect on top.

>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> df = sensitivity(spec)
>>> row = df[(df.param == "to_hit") & (df.quantity == "hit")].iloc[0]
>>> [round(float(row[c]), 12) for c in ("at", "minus_1", "plus_1")]   # need 10: naturals 10-19 hit
[0.5, 0.45, 0.55]
>>> bool(df[(df.param == "crit_threshold") & (df.quantity == "hit")].plus_1.isna().all())  # 21: refused
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.design import cost
from critlab.analysis.design.points import Refused, exact_points
from critlab.analysis.design.quantity import TOLERANCE, QuantityError, snake
from critlab.analysis.model import model_of
from critlab.analysis.spec import Spec, system_of
from critlab.analysis.spec_error import quoted
from critlab.analysis.work import narrowed, workers_of

COLUMNS = ("param", "quantity", "at", "minus_1", "plus_1")


def _system(spec: Spec) -> Any:
    return system_of(spec)  # None or another object: a one-line TypeError naming spec


def check_work(spec: Spec, fight: Mapping[str, Any], points: int) -> None:
    """Refuse (SpecError, one line) a sensitivity whose estimated exact work passes
    :data:`critlab.analysis.design.cost.BUDGET`: ``points`` points, each costing at most
    the spec's own with every fight parameter one higher (a fight grows with each)."""
    cost.check_budget(_spec_work(spec, fight, points), "hp" if fight else "spec", _SHRINK)


_SHRINK = "a lower hp, fewer attacks_per_round or max_rounds"


def _spec_work(spec: Spec, fight: Mapping[str, Any], points: int) -> cost.Work:
    worst = {k: v + 1 if isinstance(v, int) else v for k, v in fight.items()} if fight else None
    if worst is not None:
        from critlab.analysis.fight.exact import Fight

        try:
            Fight(**worst)
        except ValueError:  # at a bound, the neighbour is refused: the spec's own is the most
            worst = dict(fight)
    return cost.Work(points, cost.point_work(spec, worst))


def sensitivity(
    spec: Spec,
    *,
    fight: Mapping[str, Any] | None = None,
    only: Iterable[str] | None = None,
    quantities: Iterable[str] | None = None,
    client: Any = None,
) -> pd.DataFrame:
    """Every outcome probability and metric at ``spec`` and at each integer parameter ± 1.

    Parameters
    ----------
    spec
        The spec to perturb.
    fight
        ``hp`` (and optionally ``attacks_per_round``, ``max_rounds``): the fight's outcomes
        and metrics are quantities too, and the fight parameters given are perturbed as
        well (after the spec's).
    only
        The parameters to perturb (snake or kebab case), a subset of those above (kept in
        their order); the work is theirs alone.
    quantities
        The quantities to report (outcome labels and metrics), a subset of those below.
    client
        A Dask client: the neighbours are computed on its workers (the same frame).

    Returns
    -------
    DataFrame
        Columns ``param``, ``quantity``, ``at``, ``minus_1``, ``plus_1``: one row per
        integer parameter that is non-null in ``spec.params()`` (in that order) and per
        quantity (outcome labels, then metrics); NaN where the rules refuse the neighbour
        or the quantity is null.

    Raises
    ------
    SpecError
        Before any point is computed, when its points' estimated exact work passes
        :data:`critlab.analysis.design.cost.BUDGET` (a fight of very large hp).
    """
    _system(spec)
    if fight is not None and not isinstance(fight, Mapping):
        raise TypeError(f"fight must be a mapping such as {{'hp': 30}}, got {type(fight).__name__}")
    fight = dict(fight or {})
    model = model_of(spec)
    if fight:
        from critlab.analysis.fight.model import FightModel

        model = FightModel.of(model, **fight)
    return sensitivity_model(
        model,
        only=only,
        quantities=quantities,
        client=client,
        budget=(_SHRINK, lambda n: _spec_work(spec, fight, n)),
    )


def sensitivity_model(
    model: Any,
    *,
    only: Iterable[str] | None = None,
    quantities: Iterable[str] | None = None,
    client: Any = None,
    budget: tuple[str, Any] | None = None,
) -> pd.DataFrame:
    """Every quantity of any model at its point and at each of its
    :meth:`~critlab.analysis.model.Model.steps` one lower and one higher (NaN where the
    rules refuse the neighbour or the quantity is null): the frame of :func:`sensitivity`.

    ``only`` and ``quantities`` narrow the parameters and the quantities (the model's
    ``words`` say what each is, in the error of a name that is not one). The points' work is priced
    first, in an error naming the model's ``work_name`` (``budget``: what to shrink and
    the work of ``n`` points; by default each the model's own work), times the workers of
    ``client``, the Dask client the neighbours are computed on.

    >>> from critlab.analysis.systems import get_system
    >>> df = sensitivity_model(get_system("thac0").model().at(thac0=15, target_ac=5), only=["to_hit"])
    >>> df[df.quantity == "hit"][["at", "minus_1", "plus_1"]].round(12).values.tolist()
    [[0.5, 0.45, 0.55]]
    """
    params = narrowed(list(model.steps()), only, model.words[0])
    points = 1 + 2 * len(params)
    shrink, work = budget or (f"use fewer points or {model.shrink}", None)
    spent = work(points) if work is not None else cost.Work(points, model.work())
    cost.check_budget(spent, model.work_name, shrink, workers_of(client))
    names = list(model.quantities())
    if quantities is not None:
        keep = set(narrowed(names, quantities, model.words[1], "quantities"))
        names = [q for q in names if q in keep]
    at = _values(model, names)
    point = model.point
    moves = [{p: point[p] + step} for p in params for step in (-1, 1)]
    read = partial(_values, names=names)
    answers = exact_points(
        model, moves, read, name=f"sensitivity {model.name}", client=client, progress=False
    )
    sides = [[None] * len(names) if isinstance(a, Refused) else a for a in answers]
    rows = []
    for k, p in enumerate(params):
        lo, hi = sides[2 * k], sides[2 * k + 1]
        rows += [(p, q, at[i], lo[i], hi[i]) for i, q in enumerate(names)]
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    for col in ("at", "minus_1", "plus_1"):
        df[col] = df[col].astype(float)
    return df


def _values(model: Any, names: list[str]) -> list[float | None]:
    return [model.value(q) for q in names]


def effects(data: pd.DataFrame, quantity: str) -> pd.DataFrame:
    """What each parameter's −1 and +1 do to ``quantity`` (labels may be joined by ``+``),
    biggest effect first: columns ``param``, ``at``, ``minus_1`` and ``plus_1`` (the
    changes, NaN where refused) and ``effect`` (the larger absolute change).

    >>> from critlab.analysis.systems import get_system
    >>> df = sensitivity(get_system("thac0").make_spec(thac0=15, target_ac=5))
    >>> e = effects(df, "hit+critical_hit")
    >>> e.param.tolist()[:2], round(float(e.minus_1.iloc[0]), 12)
    (['thac0', 'target_ac'], 0.05)
    """
    parts = [snake(p) for p in quantity.split("+")]
    known = list(dict.fromkeys(data["quantity"]))
    by_snake = {snake(q): q for q in known}
    missing = [p for p in parts if p not in by_snake]
    if missing:
        raise QuantityError(f"unknown quantity {quoted(missing[0])}; quantities: {', '.join(known)}")
    sub = data[data["quantity"].isin([by_snake[p] for p in parts])]
    summed = sub.groupby("param", sort=False)[["at", "minus_1", "plus_1"]].sum(min_count=len(parts))
    out = pd.DataFrame(
        {
            "param": summed.index,
            "at": summed["at"].to_numpy(),
            "minus_1": (summed["minus_1"] - summed["at"]).to_numpy(),
            "plus_1": (summed["plus_1"] - summed["at"]).to_numpy(),
        }
    )
    out["effect"] = np.fmax(out["minus_1"].abs(), out["plus_1"].abs()).fillna(0.0)
    # effects within 1e-12 are ties, kept in params order
    order = np.argsort(-out["effect"].round(12).to_numpy(), kind="stable")
    return out.iloc[order].reset_index(drop=True)


def tornado(
    data: Spec | pd.DataFrame, quantity: str, *, fight: Mapping[str, Any] | None = None, ax: Any = None
) -> Any:
    """A tornado chart: for one quantity, what each parameter's −1 and +1 are worth,
    ordered by effect (largest on top); a refused neighbour is marked.

    ``data`` is a spec (its :func:`sensitivity` is computed) or a sensitivity frame.
    Returns the matplotlib Figure.
    """
    import matplotlib.pyplot as plt

    frame = data if isinstance(data, pd.DataFrame) else sensitivity(data, fight=fight)
    e = effects(frame, quantity)
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 0.45 * len(e) + 1.4), layout="constrained")
    else:
        fig = ax.figure
    y = np.arange(len(e))[::-1]
    for col, color, text in (("minus_1", "#3b6fb6", "−1"), ("plus_1", "#d9822b", "+1")):
        ax.barh(y, e[col].fillna(0.0), height=0.6, color=color, label=f"parameter {text}")
    for yi, (lo, hi) in zip(y, e[["minus_1", "plus_1"]].to_numpy(), strict=True):
        for value, side in ((lo, "−1"), (hi, "+1")):
            if np.isnan(value):
                ax.annotate(
                    f"{side} refused",
                    (0, yi),
                    xytext=(4, 0),
                    textcoords="offset points",
                    va="center",
                    fontsize=8,
                    color="#555",
                )
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, e["param"])
    at = float(e["at"].iloc[0]) if len(e) else float("nan")
    ax.set_xlabel(f"change in {quantity} (at {at:.6g})")
    ax.set_title(f"What ±1 is worth: {quantity}")
    ax.legend(loc="lower right", fontsize=8)
    return fig


def changing(data: pd.DataFrame) -> pd.DataFrame:
    """The rows whose three values are not all equal (within 1e-12; null equals null): what
    the text output shows.

    >>> frame = pd.DataFrame({"param": ["a", "b"], "quantity": ["q", "q"], "at": [0.5, 0.5],
    ...                       "minus_1": [0.5, 0.4], "plus_1": [0.5 + 1e-13, float("nan")]})
    >>> changing(frame).param.tolist()
    ['b']
    """
    at = data["at"].to_numpy(dtype=float)

    def same(col: str) -> np.ndarray:
        other = data[col].to_numpy(dtype=float)
        both_null = np.isnan(at) & np.isnan(other)
        return both_null | (np.abs(at - other) <= TOLERANCE)

    return data[~(same("minus_1") & same("plus_1"))]


__all__ = ["COLUMNS", "changing", "check_work", "effects", "sensitivity", "sensitivity_model", "tornado"]
