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
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.design import cost
from critlab.analysis.design.quantity import TOLERANCE, QuantityError, quantities_of, run_fight, snake
from critlab.analysis.design.tune import param_kind
from critlab.analysis.fight.exact import Fight
from critlab.analysis.spec import Spec, system_of
from critlab.analysis.spec_error import quoted
from critlab.analysis.work import narrowed

COLUMNS = ("param", "quantity", "at", "minus_1", "plus_1")


def _values(result: Any, fight_result: Any, names: list[tuple[str, str, str]]) -> list[float | None]:
    out: list[float | None] = []
    for name, kind, source in names:
        r = result if source == "attack" else fight_result
        if kind == "outcome":
            out.append(float(r.outcomes[name]))
        else:
            v = r.metrics.get(name)
            out.append(None if v is None or np.isnan(float(v)) else float(v))
    return out


def _system(spec: Spec) -> Any:
    return system_of(spec)  # None or another object: a one-line TypeError naming spec


def check_work(spec: Spec, fight: Mapping[str, Any], points: int) -> None:
    """Refuse (SpecError, one line) a sensitivity whose estimated exact work passes
    :data:`critlab.analysis.design.cost.BUDGET`: ``points`` points, each costing at most
    the spec's own with every fight parameter one higher (a fight grows with each)."""
    worst = {k: v + 1 if isinstance(v, int) else v for k, v in fight.items()} if fight else None
    if worst is not None:
        try:
            Fight(**worst)
        except ValueError:  # at a bound, the neighbour is refused: the spec's own is the most
            worst = dict(fight)
    work = cost.Work(points, cost.point_work(spec, worst))
    cost.check_budget(work, "hp" if fight else "spec", "a lower hp, fewer attacks_per_round or max_rounds")


def sensitivity(
    spec: Spec,
    *,
    fight: Mapping[str, Any] | None = None,
    only: Iterable[str] | None = None,
    quantities: Iterable[str] | None = None,
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
    system = _system(spec)
    if fight is not None and not isinstance(fight, Mapping):
        raise TypeError(f"fight must be a mapping such as {{'hp': 30}}, got {type(fight).__name__}")
    fight = dict(fight or {})
    params = [n for n, v in spec.params().items() if v is not None and param_kind(system, n)[0] == "int"]
    params += [n for n in fight if isinstance(fight[n], int)]
    params = narrowed(params, only, "an integer parameter with a value")
    check_work(spec, fight, 1 + 2 * len(params))
    here = system.exact(spec)
    here_fight = run_fight(spec, fight) if fight else None
    names = quantities_of(here, here_fight)
    if quantities is not None:
        keep = set(narrowed([n for n, _, _ in names], quantities, "an outcome or metric", "quantities"))
        names = [q for q in names if q[0] in keep]
    at = _values(here, here_fight, names)
    rows = []
    for p in params:
        sides = []
        for step in (-1, 1):
            try:
                if p in fight:
                    s, f = spec, {**fight, p: fight[p] + step}
                else:
                    s, f = spec.replace(**{p: getattr(spec, p) + step}), fight
                r = system.exact(s)
                sides.append(_values(r, run_fight(s, f) if f else None, names))
            except QuantityError:
                raise
            except ValueError:  # SpecError included: the rules refuse this neighbour
                sides.append([None] * len(names))
        for i, (name, _, _) in enumerate(names):
            rows.append((p, name, at[i], sides[0][i], sides[1][i]))
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    for col in ("at", "minus_1", "plus_1"):
        df[col] = df[col].astype(float)
    return df


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


__all__ = ["COLUMNS", "changing", "check_work", "effects", "sensitivity", "tornado"]
