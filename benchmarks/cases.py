"""The shape of one ``make bench`` case, and the callable that simulates a spec for it.

Every bench module (``benchmarks/<system>.py``, ``primitives.py``, ``dice.py``) returns
its cases as :class:`BenchCase` values from ``bench_cases()``;
:func:`benchmarks.run.all_cases` collects them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from critlab.analysis.results import SimResult


@dataclass(frozen=True)
class BenchCase:
    """One mechanic in ``make bench``: critlab's simulator beside a NumPy one doing the
    same work (the same outcomes, histograms and counters).

    ``critlab(trials, threads)`` and ``numpy(trials, chunk=...)`` each run ``trials``
    trials (the bench tries several chunk sizes and keeps NumPy's best). ``floor(trials,
    threads)`` (optional) draws the mechanic's own dice the same way with no rules and no
    tally: the fraction of it reached says how much time goes outside the dice.
    ``exact`` (optional) times critlab's exact engine and ``icepool`` the same
    distribution in icepool, for the exact-engine ratio.
    """

    name: str
    critlab: Callable[[int, int], object] | None
    numpy: Callable[..., object] | None
    exact: Callable[[], object] | None = None
    icepool: Callable[[], object] | None = None
    floor: Callable[[int, int], object] | None = None


def simulating(simulate: Callable[..., SimResult], spec: Any) -> Callable[[int, int], SimResult]:
    """The ``critlab`` callable of a :class:`BenchCase`: ``simulate`` on ``spec`` at a
    fixed seed, without a progress bar."""

    def run(trials: int, threads: int) -> SimResult:
        return simulate(spec, trials=trials, seed=1, threads=threads, progress=False)

    return run
