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
from collections.abc import Iterable, Sized
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.design.cost import check_budget, points_work
from critlab.analysis.design.points import Refused, each_model
from critlab.analysis.model import model_of
from critlab.analysis.results import SimResult
from critlab.analysis.run import RunOptions
from critlab.analysis.spec import Spec, SpecError
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


# The keywords of a sweep's run, shared by every sweep (see :func:`sweep_model`).
RUN_KEYWORDS = ("simulate", "trials", "seed", "threads", "progress", "client")


def sweep_model(
    models: list[Any],
    points: list[dict[str, Any]],
    *,
    name: str,
    series: int = 0,
    simulate: bool = False,
    trials: int = 100_000,
    seed: Any = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
) -> pd.DataFrame:
    """Every sweep's rows: ``models`` (any :class:`~critlab.analysis.model.Model`, each at
    its grid point ``points[i]``), each point's exact rows and, with ``simulate``, its
    simulation's under its own :class:`~critlab.analysis.run.RunOptions` (``trials``, an
    independent seed derived from ``seed``, ``threads``, ``progress``); ``series`` rows of
    each model's own series (a fight's P(defeated by round r)). On a Dask ``client`` the
    points are computed on its workers, each simulation on one worker thread without a
    progress bar; the rows come back in point order, so the frame is the local one.

    >>> from critlab.analysis.systems import get_system
    >>> at = get_system("thac0").model().at(thac0=15, target_ac=5)
    >>> df = sweep_model([at.at(to_hit=0), at.at(to_hit=2)], [{"to_hit": 0}, {"to_hit": 2}], name="demo")
    >>> df[df.name == "hit"].exact.round(12).tolist()
    [0.5, 0.6]
    """
    runs: list[RunOptions | None] = [None] * len(models)
    if simulate:
        base = RunOptions(trials=trials, seed=seed, threads=threads, progress=progress)
        if client is not None:  # the cluster's parallelism is across points
            base = base.replace(threads=1, progress=False)
        runs = [base.replace(seed=s) for s in point_seeds(base.seed, len(models))]
    jobs = [(point, run, series) for point, run in zip(points, runs, strict=True)]
    answers = each_model(models, model_rows, jobs, name=name, progress=progress, client=client)
    for answer in answers:
        if isinstance(answer, Refused):
            raise answer.error
    return pd.DataFrame([row for point in answers for row in point])


def model_rows(model: Any, job: tuple[dict[str, Any], RunOptions | None, int]) -> list[dict[str, Any]]:
    """One point's rows (:func:`result_rows`, then ``series`` rows of the model's own
    series), simulated under ``run`` when given."""
    point, run, series = job
    ex = model.exact()
    sim = None if run is None else model.simulate(run)
    rows = result_rows(point, ex, sim)
    for name, exact, simulated in model.series(series, sim):
        row = {**point, "kind": "by_round", "name": name, "exact": exact}
        if sim is not None:
            se = float(np.sqrt(simulated * (1 - simulated) / sim.trials))
            row.update(simulated=simulated, se=se, z=binomial_z(simulated, exact, sim.trials), seed=sim.seed)
        rows.append(row)
    return rows


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
    points = grid_points(**grid)
    known = spec.params()
    bad = next((k for p in points for k in p if k not in known), None)
    if bad is not None:
        raise SpecError(bad, points[0], f"is not a parameter of {spec.system}")
    here = model_of(spec)
    models = [here.at(**point) for point in points]
    # the exact work of every point, before any (simulations are bounded by their trials)
    check_budget(
        points_work([(m.spec(), None) for m in models]), "grid", "use fewer points (narrower ranges)"
    )
    run = {"trials": trials, "seed": seed, "threads": threads, "progress": progress, "client": client}
    return sweep_model(models, points, name=f"sweep-{spec.system}", simulate=simulate, **run)


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
    parameters: the shape of :func:`sweep`, each point the fight's model.

    The grid may vary the attack's parameters and the fight's own alike, e.g. rounds to
    defeat a 30 hp target by crit range and weapon damage:

    >>> from critlab.analysis.systems import get_system
    >>> spec = get_system("crit-range").make_spec(attack_bonus=5, evasion=15)
    >>> df = sweep_fight(spec, hp=30, crit_range=[1, 2, 3], damage=["1d8", "2d6"])
    >>> sorted(set(df.columns))
    ['crit_range', 'damage', 'exact', 'kind', 'name']
    >>> medians = df[df.name == "median_rounds"].pivot(index="crit_range", columns="damage", values="exact")
    >>> bool(medians.loc[1, "1d8"] >= medians.loc[3, "2d6"])
    True

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
        for :func:`sweep`; every other name is an axis of the attack's grid, parameter
        name -> values (``crit_range=range(1, 4)``).

    Returns
    -------
    DataFrame
        One row per point and quantity: the grid columns, ``kind`` (``outcome``,
        ``metric`` or ``by_round``), ``name`` and ``exact``; with ``simulate`` also
        ``simulated``, ``se``, ``z`` (proportions only) and ``seed``.
    """
    from critlab.analysis.fight.model import FIGHT_NAMES, FightModel

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
    known = spec.params()
    attack = model_of(spec)
    models, pairs, points = [], [], grid_points(**grid)
    for point in points:
        bad = next((k for k in point if k not in known and k not in FIGHT_NAMES), None)
        if bad is not None:
            raise SpecError(bad, point[bad], f"is not a parameter of {spec.system} or of a fight")
        fight = {**base, **{k: v for k, v in point.items() if k in FIGHT_NAMES}}
        # a bad fight parameter is named before anything is computed
        model = FightModel.of(attack, **fight).at(**{k: v for k, v in point.items() if k not in FIGHT_NAMES})
        models.append(model)
        pairs.append((model.spec(), fight))
    work = points_work(pairs)
    check_budget(work, "grid", "use fewer points, a lower hp, fewer attacks_per_round or max_rounds")
    return sweep_model(models, points, name=f"fight-sweep-{spec.system}", series=by_round, **run)
