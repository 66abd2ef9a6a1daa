"""Sweeps: a rule system over a grid of parameters, as one tidy DataFrame.

>>> from analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> df = sweep(spec, target_ac=range(-2, 3), to_hit=[0, 2])
>>> sorted(df.columns)[:4]
['exact', 'kind', 'name', 'target_ac']
>>> int(df.query("kind == 'outcome'").groupby(["target_ac", "to_hit"])["exact"].sum().round(12).eq(1).sum())
10
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from analysis.spec import Spec, SpecError
from kernels import runner


def grid_points(**grid: Iterable[Any]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, in the order given (last varies fastest).

    >>> grid_points(a=[1, 2], b="xy")
    [{'a': 1, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 2, 'b': 'x'}, {'a': 2, 'b': 'y'}]
    """
    names = list(grid)
    values = [list(v) for v in grid.values()]
    for name, vals in zip(names, values, strict=True):
        if not vals:
            raise ValueError(f"sweep over {name} has no values")
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]


def point_seeds(seed: int, n: int) -> list[int]:
    """Independent per-point seeds derived from one seed (SeedSequence spawning)."""
    children = np.random.SeedSequence(seed).spawn(n)
    return [int(c.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) for c in children]


def sweep(
    spec: Spec,
    *,
    simulate: bool = False,
    trials: int = 100_000,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    **grid: Iterable[Any],
) -> pd.DataFrame:
    """Evaluate ``spec`` at every point of a parameter grid.

    Parameters
    ----------
    spec
        The base spec; each grid point replaces some of its parameters.
    simulate
        Also simulate each point (``trials`` trials, per-point seeds derived from ``seed``).
    **grid
        Parameter name -> values, e.g. ``crit_range=range(1, 6), evasion=range(8, 21)``.

    Returns
    -------
    DataFrame
        One row per grid point and quantity: the grid columns, ``kind`` (``outcome`` or
        ``metric``), ``name`` and ``exact``; with ``simulate`` also ``simulated``, ``se``
        (outcomes only), ``z`` and ``seed``. Points where a parameter combination is not
        allowed raise the spec's error naming it.
    """
    from analysis.systems import get_system

    system = get_system(spec.system)
    points = grid_points(**grid)
    base_seed = runner.resolve_seed(seed) if simulate else None
    seeds = point_seeds(base_seed, len(points)) if simulate else [None] * len(points)
    rows: list[dict[str, Any]] = []
    for point, point_seed in zip(points, seeds, strict=True):
        try:
            s = spec.replace(**point)
        except TypeError as exc:
            bad = next((k for k in point if k not in spec.params()), None)
            raise SpecError(bad or "grid", point, f"is not a parameter of {spec.system}") from exc
        ex = system.exact(s)
        sim = None
        if simulate:
            sim = system.simulate(s, trials=trials, seed=point_seed, threads=threads, progress=progress)
        for i, label in enumerate(ex.labels):
            row = {**point, "kind": "outcome", "name": label, "exact": float(ex.probs[i])}
            if sim is not None:
                f = float(sim.tally.frequencies[i])
                se = float(sim.tally.standard_errors[i])
                p = row["exact"]
                sd = np.sqrt(p * (1 - p) / sim.trials)
                row.update(simulated=f, se=se, z=(f - p) / sd if sd > 0 else 0.0, seed=sim.seed)
            rows.append(row)
        for name, value in ex.metrics.items():
            row = {**point, "kind": "metric", "name": name, "exact": np.nan if value is None else float(value)}
            if sim is not None:
                v = sim.metrics.get(name)
                row.update(simulated=np.nan if v is None else float(v), se=np.nan, z=np.nan, seed=sim.seed)
            rows.append(row)
    return pd.DataFrame(rows)
