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

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.fight.exact import Fight, fight
from critlab.analysis.spec import Spec, SpecError
from critlab.analysis.design.sweep import rows_per_point, seeded_points

FIGHT_PARAMS = ("hp", "attacks_per_round", "max_rounds")


def _binomial_z(f: float, p: float, n: int) -> float:
    sd = np.sqrt(p * (1 - p) / n)
    return float((f - p) / sd) if sd > 0 else 0.0


def fight_point_rows(
    spec: Spec,
    fight_params: dict[str, Any],
    point: dict[str, Any],
    *,
    by_round: int = 0,
    simulate: bool = False,
    trials: int = 100_000,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
) -> list[dict[str, Any]]:
    """The rows of one grid point: ``spec`` and ``fight_params`` already replaced by it.

    Outcome rows (``defeated``, ``undecided``), metric rows, and with ``by_round`` = R
    the rows ``defeated_by_round_1`` .. ``_R`` (kind ``by_round``): P(defeated by round r).
    """
    ex = fight(spec, **fight_params)
    sim = None
    if simulate:
        from critlab.analysis.fight.sim import simulate_fight

        sim = simulate_fight(
            spec, **fight_params, trials=trials, seed=seed, threads=threads, progress=progress, exact=ex
        )
    rows: list[dict[str, Any]] = []
    for i, label in enumerate(ex.labels):
        row = {**point, "kind": "outcome", "name": label, "exact": float(ex.probs[i])}
        if sim is not None:
            f = float(sim.tally.frequencies[i])
            se = float(sim.tally.standard_errors[i])
            row.update(simulated=f, se=se, z=_binomial_z(f, row["exact"], sim.trials), seed=sim.seed)
        rows.append(row)
    for name, value in ex.metrics.items():
        row = {**point, "kind": "metric", "name": name, "exact": np.nan if value is None else float(value)}
        if sim is not None:
            v = sim.metrics.get(name)
            row.update(simulated=np.nan if v is None else float(v), se=np.nan, z=np.nan, seed=sim.seed)
        rows.append(row)
    if by_round:
        from critlab.analysis.fight.sim import simulated_by_round

        for r in range(1, by_round + 1):
            p = ex.p_defeated_by(r)
            row = {**point, "kind": "by_round", "name": f"defeated_by_round_{r}", "exact": p}
            if sim is not None:
                f = simulated_by_round(sim.tally, ex.fight.max_rounds, r)
                se = float(np.sqrt(f * (1 - f) / sim.trials))
                row.update(simulated=f, se=se, z=_binomial_z(f, p, sim.trials), seed=sim.seed)
            rows.append(row)
    return rows


def sweep_fight(
    spec: Spec,
    *,
    hp: int | None = None,
    attacks_per_round: int = 1,
    max_rounds: int = 1000,
    by_round: int = 0,
    simulate: bool = False,
    trials: int = 100_000,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
    **grid: Iterable[Any],
) -> pd.DataFrame:
    """The fight of ``spec``'s attack at every point of a grid of attack and fight
    parameters.

    Parameters
    ----------
    spec
        The base attack; each point replaces some of its parameters.
    hp, attacks_per_round, max_rounds
        The fight's parameters (``hp`` is required): one value, or a list or range of
        values to vary (axes of the grid before those of ``grid``).
    by_round
        Also report P(defeated by round r) for r = 1 .. ``by_round`` (kind ``by_round``).
    simulate, trials, seed, threads, progress, client
        As for :func:`critlab.analysis.design.sweep.sweep`: each point also simulated
        (``trials`` fights, seeds derived from ``seed``), locally or one task per point on a
        Dask ``client``, with the same frame.
    **grid
        Parameter name -> values: the attack's (``crit_range=range(1, 4)``) or the
        fight's (``hp=[20, 30, 40]``).

    Returns
    -------
    DataFrame
        One row per point and quantity: the grid columns, ``kind`` (``outcome``,
        ``metric`` or ``by_round``), ``name`` and ``exact``; with ``simulate`` also
        ``simulated``, ``se``, ``z`` (proportions only) and ``seed``.
    """
    base = {"hp": hp, "attacks_per_round": attacks_per_round, "max_rounds": max_rounds}
    # a fight parameter given a list of values is an axis of the grid (the first ones)
    axes = {k: v for k, v in base.items() if isinstance(v, (list, tuple, range, np.ndarray))}
    grid = {**axes, **grid}
    base = {k: v for k, v in base.items() if k not in axes}
    if base.get("hp") is None and "hp" not in grid:
        raise SpecError("hp", None, "is required: the target's hit points, here or in the grid")
    by_round = int(by_round)
    if not 0 <= by_round <= 10_000:
        raise SpecError("by_round", by_round, "must be an integer in 0..10000")
    points, seeds = seeded_points(grid, simulate=simulate, seed=seed)
    jobs = []
    known = spec.params()
    for point, point_seed in zip(points, seeds, strict=True):
        attack = {k: v for k, v in point.items() if k not in FIGHT_PARAMS}
        bad = next((k for k in attack if k not in known), None)
        if bad is not None:
            raise SpecError(bad, attack[bad], f"is not a parameter of {spec.system} or of a fight")
        fight_params = {**base, **{k: v for k, v in point.items() if k in FIGHT_PARAMS}}
        Fight(**fight_params)  # a bad fight parameter is named before anything is computed
        jobs.append((spec.replace(**attack), fight_params, point, by_round, simulate, trials, point_seed))

    def local(s, f, p, b, sim, n, ps) -> list[dict[str, Any]]:
        return fight_point_rows(
            s, f, p, by_round=b, simulate=sim, trials=n, seed=ps, threads=threads, progress=progress
        )

    return rows_per_point(
        jobs, local, _remote_rows, client=client, name=f"fight-sweep-{spec.system}", progress=progress
    )


def _remote_rows(
    spec: Spec,
    fight_params: dict[str, Any],
    point: dict[str, Any],
    by_round: int,
    simulate: bool,
    trials: int,
    seed: int | None,
) -> list[dict[str, Any]]:
    # On a worker: one thread and no progress bar (the client shows one per point).
    return fight_point_rows(
        spec, fight_params, point, by_round=by_round, simulate=simulate, trials=trials, seed=seed, threads=1,
        progress=False,
    )  # fmt: skip


__all__ = ["FIGHT_PARAMS", "fight_point_rows", "sweep_fight"]
