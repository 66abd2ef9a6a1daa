"""The one point loop of the designer's tools: a model's exact points, here or on a cluster.

Tune, sensitivity and the encounter's grids each ask one question of many points of one
:class:`~critlab.analysis.model.Model`: :func:`exact_points` moves the model to each point
(:meth:`~critlab.analysis.model.Model.at`), asks ``read`` of it, and returns the answers in
the points' order; a point the rules refuse (a ``ValueError``, a
:class:`~critlab.analysis.spec.SpecError` among them) answers a :class:`Refused` holding
the error. On a Dask ``client`` the points go in chunks of :data:`CHUNK`, one task each,
and come back in order, so the answers are the local ones (every exact engine is
deterministic). ``read`` must be a module-level function (or a ``functools.partial`` of
one) and the model picklable: every kind's is, by its parameters.

:func:`model_work` prices the points before any is computed, from each kind's own
estimate (:meth:`~critlab.analysis.model.Model.work`): every point of a small grid, the
corners of a large one (:func:`critlab.analysis.work.corners`).

>>> from critlab.analysis.systems import get_system
>>> model = get_system("thac0").model().at(thac0=15, target_ac=5)
>>> [round(a, 2) if not isinstance(a, Refused) else a.reason() for a in
...  exact_points(model, [{"to_hit": 0}, {"crit_threshold": 25}], _hit)]
[0.55, 'parameter crit_threshold = 25: must be an integer in 2..20']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from critlab.analysis.work import Work, check_budget, corners

# Points per task on a cluster: a task's own cost (~1 ms of scheduling) stays small beside
# its points' (about a millisecond each for a built-in system, far more for fights).
CHUNK = 64
# The local progress bar advances once per this many points (an update costs more than a point).
BAR_STEP = 250
# A grid of at most this many points has each point priced (a few ms each, against at least
# as many of its own); a larger one its corners.
ENUMERATE = 256


@dataclass(frozen=True)
class Refused:
    """A point the rules refuse: the error they raised (its one line is :meth:`reason`)."""

    error: ValueError

    def reason(self) -> str:
        return str(self.error)


def exact_points(
    model: Any,
    points: Sequence[Mapping[str, Any]],
    read: Callable[[Any], Any],
    *,
    name: str = "points",
    progress: bool | None = None,
    client: Any = None,
) -> list[Any]:
    """``read(model.at(**point))`` for each of ``points`` in order, or a :class:`Refused`
    where the rules refuse the point; on ``client`` (a Dask client) in tasks of
    :data:`CHUNK` points, the same list. ``progress``: a bar (``None``: on a terminal)."""
    tasks = [(model, point, None) for point in points]
    return _loop(tasks, read, name=name, progress=progress, client=client)


def each_model(
    models: Sequence[Any],
    read: Callable[[Any, Any], Any],
    jobs: Sequence[Any],
    *,
    name: str = "points",
    progress: bool | None = None,
    client: Any = None,
) -> list[Any]:
    """``read(model, job)`` for each of ``models`` (already at their points) and its job
    (what else the point needs: a simulation's options), in order, as
    :func:`exact_points` answers (a :class:`Refused` where the rules refuse)."""
    tasks = [(model, None, job) for model, job in zip(models, jobs, strict=True)]
    return _loop(tasks, read, name=name, progress=progress, client=client)


def _loop(
    tasks: list[tuple], read: Callable[..., Any], *, name: str, progress: Any, client: Any
) -> list[Any]:
    if client is not None:
        from critlab.kernels.cluster import map_ordered

        chunks = [(tasks[i : i + CHUNK], read) for i in range(0, len(tasks), CHUNK)]
        parts = map_ordered(client, _answers, chunks, name=name, progress=progress, unit="chunk")
        return [answer for part in parts for answer in part]
    from critlab.kernels.runner import _progress_bar

    bar = _progress_bar(len(tasks), progress, name, unit="point")
    out = []
    try:
        for i, task in enumerate(tasks):
            if bar is not None and i and i % BAR_STEP == 0:
                bar.update(BAR_STEP)
            out.append(_answer(*task, read))
    finally:
        if bar is not None:
            bar.close()
    return out


def _answer(model: Any, point: Mapping[str, Any] | None, job: Any, read: Callable[..., Any]) -> Any:
    try:
        moved = model if point is None else model.at(**point)
    except ValueError as exc:  # SpecError included: the rules refuse this point
        return Refused(exc)
    try:
        return read(moved) if point is not None else read(moved, job)
    except Stop:
        raise
    except ValueError as exc:
        if getattr(exc, "name", None) == "system":
            raise  # the system cannot answer at all (cannot fight): no point can
        return Refused(exc)


def _answers(tasks: list[tuple], read: Callable[..., Any]) -> list[Any]:
    return [_answer(*task, read) for task in tasks]


class Stop(ValueError):
    """An error of the question itself, not of a point (a quantity no point has): every
    point would raise it, so the loop stops at the first."""


def model_work(
    model: Any,
    axes: Sequence[tuple[str, Sequence[Any]]],
    points: int,
    name: str,
    shrink: str,
    workers: int = 1,
) -> Work:
    """Refuse (SpecError naming ``name``, one line ending with ``shrink``) ``points`` exact
    points of ``model`` over ``axes`` (``(parameter, values)``) whose estimated work passes
    the budget (times ``workers``, a cluster's): each point's
    :meth:`~critlab.analysis.model.Model.work` when the grid has at most
    :data:`ENUMERATE`, else the mean over its corners, each past its engine's
    bound priced at the bound (it stands for the points just inside). A point the rules
    refuse costs nothing."""
    import itertools

    grid = math.prod(len(v) for _, v in axes)
    every = grid <= ENUMERATE
    names = [s for s, _ in axes]
    if every:
        probes = [dict(zip(names, c, strict=True)) for c in itertools.product(*(v for _, v in axes))]
    else:
        probes = corners(axes)
    costs = []
    for point in probes:
        try:
            costs.append(model.at(**point).work(bounded=not every))
        except ValueError:  # a point the rules refuse costs nothing
            costs.append(0.0)
    per = math.fsum(costs) / len(costs) if costs else model.work()
    work = Work(points, per)
    check_budget(work, name, shrink, workers)
    return work


def _hit(model: Any) -> float | None:  # the module docstring's question
    return model.value("hit+critical_hit")


__all__ = ["CHUNK", "ENUMERATE", "Refused", "Stop", "each_model", "exact_points", "model_work"]
