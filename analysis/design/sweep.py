"""Sweeps: a rule system over a grid of parameters, as one tidy DataFrame.

>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> df = sweep(spec, target_ac=range(-2, 3), to_hit=[0, 2])
>>> sorted(df.columns)[:4]
['exact', 'kind', 'name', 'target_ac']
>>> int(df.query("kind == 'outcome'").groupby(["target_ac", "to_hit"])["exact"].sum().round(12).eq(1).sum())
10
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sized
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.spec import Spec, SpecError
from critlab.kernels import runner

# More points than this in one sweep is a typo in a range, not a study (each point is an
# exact computation); counted from the axes' lengths before any point is built.
MAX_POINTS = 100_000


def count_points(grid: dict[str, Iterable[Any]], limit: int = MAX_POINTS) -> dict[str, list[Any]]:
    """The grid's axes as lists, refused with a one-line ``ValueError`` stating the limit
    when the grid has more than ``limit`` points; counted from each axis's length, so a
    ``range(2 * 10**12)`` is refused without being built.

    >>> count_points({"a": range(3), "b": "xy"})
    {'a': [0, 1, 2], 'b': ['x', 'y']}
    >>> count_points({"evasion": range(2 * 10**12)})
    Traceback (most recent call last):
    ...
    ValueError: sweep over evasion: 2,000,000,000,000 points; at most 100,000 in one sweep
    """
    lengths = {}
    for name, values in grid.items():
        if not isinstance(values, Iterable):
            raise TypeError(f"sweep over {name}: needs a list or range of values, got {values!r}")
        if isinstance(values, Sized):
            try:
                lengths[name] = len(values)
            except OverflowError:  # a range longer than sys.maxsize
                lengths[name] = math.inf
        else:  # an iterator: read at most one value past the limit
            values = grid[name] = list(itertools.islice(values, limit + 1))
            lengths[name] = len(values) if len(values) <= limit else math.inf
    total = math.prod(lengths.values())
    if total > limit:
        shown = f"{total:,}" if total != math.inf else f"more than {limit:,}"
        raise ValueError(f"sweep over {', '.join(grid)}: {shown} points; at most {limit:,} in one sweep")
    return {name: list(values) for name, values in grid.items()}


def grid_points(**grid: Iterable[Any]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, in the order given (last varies fastest).

    >>> grid_points(a=[1, 2], b="xy")
    [{'a': 1, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 2, 'b': 'x'}, {'a': 2, 'b': 'y'}]
    """
    names = list(grid)
    values = list(count_points(dict(grid)).values())
    for name, vals in zip(names, values, strict=True):
        if not vals:
            raise ValueError(f"sweep over {name} has no values")
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]


def point_seeds(seed: int, n: int) -> list[int]:
    """Independent per-point seeds derived from one seed (SeedSequence spawning)."""
    children = np.random.SeedSequence(seed).spawn(n)
    return [int(c.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) for c in children]


def seeded_points(
    grid: dict[str, Iterable[Any]], *, simulate: bool, seed: Any
) -> tuple[list[dict[str, Any]], list[int | None]]:
    """The grid's points and, when simulating, an independent seed for each, derived from
    one seed (``None`` draws it from the OS); without simulation the seeds are ``None``."""
    points = grid_points(**grid)
    if not simulate:
        return points, [None] * len(points)
    return points, point_seeds(runner.resolve_seed(seed), len(points))


def rows_per_point(
    jobs: list[tuple],
    local: Callable[..., list[dict[str, Any]]],
    remote: Callable[..., list[dict[str, Any]]],
    *,
    client: Any,
    name: str,
    progress: bool | None,
) -> pd.DataFrame:
    """Every job's rows, in grid order, as one frame: ``local(*job)`` here, or on a Dask
    ``client`` one task per job running ``remote(*job)`` (one worker thread each: the
    cluster's parallelism is across points, and rows come back in grid order, so the
    frame is the local one)."""
    if client is None:
        per_point = [local(*job) for job in jobs]
    else:
        from critlab.kernels.cluster import map_ordered

        per_point = map_ordered(client, remote, jobs, name=name, progress=progress, unit="point")
    return pd.DataFrame([row for rows in per_point for row in rows])


def sweep(
    spec: Spec,
    *,
    simulate: bool = False,
    trials: int = 100_000,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
    **grid: Iterable[Any],
) -> pd.DataFrame:
    """Evaluate ``spec`` at every point of a parameter grid.

    Parameters
    ----------
    spec
        The base spec; each grid point replaces some of its parameters.
    simulate
        Also simulate each point (``trials`` trials, per-point seeds derived from ``seed``).
    client
        A ``dask.distributed.Client``: evaluate the grid points as tasks on its cluster
        (each point's exact result and simulation on one worker thread); the DataFrame is
        identical to a local sweep's.
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
    points, seeds = seeded_points(grid, simulate=simulate, seed=seed)
    specs = []
    for point in points:
        try:
            specs.append(spec.replace(**point))
        except TypeError as exc:
            bad = next((k for k in point if k not in spec.params()), None)
            raise SpecError(bad or "grid", point, f"is not a parameter of {spec.system}") from exc
    jobs = [
        (s, point, simulate, trials, point_seed)
        for s, point, point_seed in zip(specs, points, seeds, strict=True)
    ]

    def local(
        s: Spec, point: dict[str, Any], sim: bool, n: int, point_seed: int | None
    ) -> list[dict[str, Any]]:
        return point_rows(
            s, point, simulate=sim, trials=n, seed=point_seed, threads=threads, progress=progress
        )

    return rows_per_point(
        jobs, local, _remote_point_rows, client=client, name=f"sweep-{spec.system}", progress=progress
    )


def point_rows(
    spec: Spec,
    point: dict[str, Any],
    *,
    simulate: bool = False,
    trials: int = 100_000,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
) -> list[dict[str, Any]]:
    """The sweep's rows for one grid point: ``spec`` (already replaced by ``point``).

    >>> from critlab.analysis.systems import get_system
    >>> s = get_system("thac0").make_spec(thac0=15, target_ac=5)
    >>> [r["name"] for r in point_rows(s, {"target_ac": 5})][-1]
    'expected_damage'
    """
    from critlab.analysis.systems.base import system_of

    system = system_of(spec)
    ex = system.exact(spec)
    sim = None
    if simulate:
        sim = system.simulate(spec, trials=trials, seed=seed, threads=threads, progress=progress)
    rows: list[dict[str, Any]] = []
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
    return rows


def _remote_point_rows(
    spec: Spec, point: dict[str, Any], simulate: bool, trials: int, seed: int | None
) -> list[dict[str, Any]]:
    # On a worker: one thread and no progress bar (the client shows one per point).
    return point_rows(spec, point, simulate=simulate, trials=trials, seed=seed, threads=1, progress=False)
