"""Fights over a parameter grid, as one tidy DataFrame (the shape of
:func:`critlab.analysis.design.sweep.sweep`).

The grid may vary the attack's parameters and the fight's own (``hp``,
``attacks_per_round``, ``max_rounds``) alike, e.g. rounds to defeat a 30 hp target by
crit range and weapon damage:

>>> from critlab.analysis.systems import get_system
>>> spec = get_system("crit-range").make_spec(attack_bonus=5, evasion=15)
>>> df = sweep_fight(spec, hp=30, crit_range=[1, 2, 3], damage=["1d8", "2d6"])
>>> sorted(set(df.columns))
['crit_range', 'damage', 'exact', 'kind', 'name']
>>> medians = df[df.name == "median_rounds"].pivot(index="crit_range", columns="damage", values="exact")
>>> medians.loc[1, "1d8"] >= medians.loc[3, "2d6"]
np.True_
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.design.cost import check_budget, points_work
from critlab.analysis.design.sweep import RUN_KEYWORDS, binomial_z, grid_points, result_rows, sweep_points
from critlab.analysis.fight.exact import Fight, fight
from critlab.analysis.fight.model import FIGHT_NAMES as FIGHT_PARAMS
from critlab.analysis.run import RunOptions
from critlab.analysis.spec import Spec, SpecError


def fight_point_rows(
    spec: Spec,
    fight_params: dict[str, Any],
    point: dict[str, Any],
    by_round: int = 0,
    run: RunOptions | None = None,
) -> list[dict[str, Any]]:
    """The rows of one grid point: ``spec`` and ``fight_params`` already replaced by it,
    simulated under ``run`` when given.

    Outcome rows (``defeated``, ``undecided``), metric rows, and with ``by_round`` = R
    the rows ``defeated_by_round_1`` .. ``_R`` (kind ``by_round``): P(defeated by round r).
    """
    ex = fight(spec, **fight_params)
    sim = None
    if run is not None:
        from critlab.analysis.fight.sim import simulate_fight

        sim = simulate_fight(spec, **fight_params, **run.keywords(), exact=ex)
    rows = result_rows(point, ex, sim)
    if by_round:
        from critlab.analysis.fight.sim import simulated_by_round

        for r in range(1, by_round + 1):
            p = ex.p_defeated_by(r)
            row = {**point, "kind": "by_round", "name": f"defeated_by_round_{r}", "exact": p}
            if sim is not None:
                f = simulated_by_round(sim.tally, ex.fight.max_rounds, r)
                se = float(np.sqrt(f * (1 - f) / sim.trials))
                row.update(simulated=f, se=se, z=binomial_z(f, p, sim.trials), seed=sim.seed)
            rows.append(row)
    return rows


def sweep_fight(
    spec: Spec,
    *,
    hp: int | None = None,
    attacks_per_round: int = 1,
    max_rounds: int = 1000,
    by_round: int = 0,
    **run_and_grid: Any,
) -> pd.DataFrame:
    """The fight of ``spec``'s attack at every point of a grid of attack and fight
    parameters.

    Parameters
    ----------
    spec
        The base attack; each point replaces some of its parameters.
    hp, attacks_per_round, max_rounds
        The fight's parameters (``hp`` is required): one value, or a list or range of
        values to vary (axes of the grid before those of the attack's).
    by_round
        Also report P(defeated by round r) for r = 1 .. ``by_round`` (kind ``by_round``).
    **run_and_grid
        ``simulate``, ``trials``, ``seed``, ``threads``, ``progress`` and ``client`` as
        for :func:`critlab.analysis.design.sweep.sweep` (each point also simulated,
        ``trials`` fights, seeds derived from ``seed``, locally or one task per point on
        a Dask ``client``, with the same frame); every other name is an axis of the
        attack's grid, parameter name -> values (``crit_range=range(1, 4)``).

    Returns
    -------
    DataFrame
        One row per point and quantity: the grid columns, ``kind`` (``outcome``,
        ``metric`` or ``by_round``), ``name`` and ``exact``; with ``simulate`` also
        ``simulated``, ``se``, ``z`` (proportions only) and ``seed``.
    """
    run = {k: run_and_grid.pop(k) for k in RUN_KEYWORDS if k in run_and_grid}
    base = {"hp": hp, "attacks_per_round": attacks_per_round, "max_rounds": max_rounds}
    # a fight parameter given a list of values is an axis of the grid (the first ones)
    axes = {k: v for k, v in base.items() if isinstance(v, (list, tuple, range, np.ndarray))}
    grid = {**axes, **run_and_grid}
    base = {k: v for k, v in base.items() if k not in axes}
    if base.get("hp") is None and "hp" not in grid:
        raise SpecError("hp", None, "is required: the target's hit points, here or in the grid")
    by_round = int(by_round)
    if not 0 <= by_round <= 10_000:
        raise SpecError("by_round", by_round, "must be an integer in 0..10000")
    jobs = []
    known = spec.params()
    for point in grid_points(**grid):
        attack = {k: v for k, v in point.items() if k not in FIGHT_PARAMS}
        bad = next((k for k in attack if k not in known), None)
        if bad is not None:
            raise SpecError(bad, attack[bad], f"is not a parameter of {spec.system} or of a fight")
        fight_params = {**base, **{k: v for k, v in point.items() if k in FIGHT_PARAMS}}
        Fight(**fight_params)  # a bad fight parameter is named before anything is computed
        jobs.append((spec.replace(**attack), fight_params, point, by_round))
    work = points_work([(s, f) for s, f, _, _ in jobs])
    check_budget(work, "grid", "use fewer points, a lower hp, fewer attacks_per_round or max_rounds")
    return sweep_points(fight_point_rows, jobs, name=f"fight-sweep-{spec.system}", **run)


__all__ = ["FIGHT_PARAMS", "fight_point_rows", "sweep_fight"]
