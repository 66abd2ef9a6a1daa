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

from critlab.analysis.design.cost import check_budget, points_work
from critlab.analysis.results import SimResult
from critlab.analysis.run import RunOptions
from critlab.analysis.spec import Spec, SpecError, system_of
from critlab.analysis.spec_error import quoted

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
            raise TypeError(f"sweep over {name}: needs a list or range of values, got {quoted(values)}")
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


# The keywords of a sweep's run, shared by every sweep (see :func:`sweep_points`).
RUN_KEYWORDS = ("simulate", "trials", "seed", "threads", "progress", "client")


def sweep_points(
    rows: Callable[..., list[dict[str, Any]]],
    jobs: list[tuple],
    *,
    name: str,
    simulate: bool = False,
    trials: int = 100_000,
    seed: Any = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
) -> pd.DataFrame:
    """The point loop of every sweep: ``rows(*job, run)`` for each job, as one frame in
    job order.

    ``run`` is ``None`` without ``simulate``; with it, the point's
    :class:`~critlab.analysis.run.RunOptions` (``trials``, an independent seed derived
    from ``seed``, ``threads``, ``progress``). On a Dask ``client`` each job is one task
    run on one worker thread without a progress bar (the cluster's parallelism is across
    points, and rows come back in job order, so the frame is the local one). ``rows``
    must be a module-level function, so a worker finds it by reference.

    >>> def rows(x, run):
    ...     return [{"x": x, "simulated": run is not None}]
    >>> sweep_points(rows, [(1,), (2,)], name="demo").to_dict("records")
    [{'x': 1, 'simulated': False}, {'x': 2, 'simulated': False}]
    """
    runs: list[RunOptions | None] = [None] * len(jobs)
    if simulate:
        base = RunOptions(trials=trials, seed=seed, threads=threads, progress=progress)
        runs = [base.replace(seed=s) for s in point_seeds(base.seed, len(jobs))]
    if client is None:
        per_point = [rows(*job, run) for job, run in zip(jobs, runs, strict=True)]
    else:
        from critlab.kernels.cluster import map_ordered

        tasks = [(rows, job, run) for job, run in zip(jobs, runs, strict=True)]
        per_point = map_ordered(client, _on_worker, tasks, name=name, progress=progress, unit="point")
    return pd.DataFrame([row for point in per_point for row in point])


def _on_worker(rows: Callable[..., list[dict[str, Any]]], job: tuple, run: RunOptions | None) -> list:
    # One worker thread and no progress bar: the client shows one per point.
    return rows(*job, None if run is None else run.replace(threads=1, progress=False))


def result_rows(point: dict[str, Any], ex: Any, sim: SimResult | None) -> list[dict[str, Any]]:
    """A point's outcome rows (with ``simulated``, ``se``, ``z`` and ``seed`` when
    simulated) and metric rows, from its exact result ``ex`` and simulation ``sim``."""
    rows: list[dict[str, Any]] = []
    for i, label in enumerate(ex.labels):
        row = {**point, "kind": "outcome", "name": label, "exact": float(ex.probs[i])}
        if sim is not None:
            f = float(sim.tally.frequencies[i])
            se = float(sim.tally.standard_errors[i])
            row.update(simulated=f, se=se, z=binomial_z(f, row["exact"], sim.trials), seed=sim.seed)
        rows.append(row)
    for name, value in ex.metrics.items():
        row = {**point, "kind": "metric", "name": name, "exact": np.nan if value is None else float(value)}
        if sim is not None:
            v = sim.metrics.get(name)
            row.update(simulated=np.nan if v is None else float(v), se=np.nan, z=np.nan, seed=sim.seed)
        rows.append(row)
    return rows


def binomial_z(f: float, p: float, n: int) -> float:
    """The z of an observed share ``f`` of ``n`` trials against the exact ``p`` (0 when
    ``p`` leaves no spread).

    >>> binomial_z(0.5, 0.5, 100), round(binomial_z(0.6, 0.5, 100), 12)
    (0.0, 2.0)
    """
    sd = np.sqrt(p * (1 - p) / n)
    return float((f - p) / sd) if sd > 0 else 0.0


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
    jobs = []
    for point in grid_points(**grid):
        try:
            jobs.append((spec.replace(**point), point))
        except TypeError as exc:
            bad = next((k for k in point if k not in spec.params()), None)
            raise SpecError(bad or "grid", point, f"is not a parameter of {spec.system}") from exc
    # the exact work of every point, before any (simulations are bounded by their trials)
    check_budget(points_work([(s, None) for s, _ in jobs]), "grid", "use fewer points (narrower ranges)")
    run = {"trials": trials, "seed": seed, "threads": threads, "progress": progress, "client": client}
    return sweep_points(point_rows, jobs, name=f"sweep-{spec.system}", simulate=simulate, **run)


def point_rows(spec: Spec, point: dict[str, Any], run: RunOptions | None = None) -> list[dict[str, Any]]:
    """The sweep's rows for one grid point: ``spec`` (already replaced by ``point``),
    simulated under ``run`` when given.

    >>> from critlab.analysis.systems import get_system
    >>> s = get_system("thac0").make_spec(thac0=15, target_ac=5)
    >>> [r["name"] for r in point_rows(s, {"target_ac": 5})][-1]
    'expected_damage'
    """
    system = system_of(spec)
    ex = system.exact(spec)
    sim = None if run is None else system.simulate(spec, **run.keywords())
    return result_rows(point, ex, sim)
