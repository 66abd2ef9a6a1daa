"""The shape every rule system shares, and the one simulation path they all use.

A rule system module (``analysis/systems/<name>.py``) defines

- a spec: a frozen, keyword-only :class:`~critlab.analysis.spec.Spec` subclass;
- ``exact(spec) -> ExactResult``: the exact engine's answer;
- ``simulate(spec, *, trials, seed=None, threads=None, progress=None, client=None) -> SimResult``:
  its block kernel (``kernels/<name>.py``) run through :func:`simulate_tally`
  (``client``: a Dask client runs the same blocks on a cluster);
- plots, and the benchmark cases it adds to ``make bench``;

and exposes them as one :class:`RuleSystem` named ``SYSTEM``, which the registry in
:mod:`critlab.analysis.systems` collects for the command line, sweeps and reports.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.spec import Spec, SpecError, check_int
from critlab.analysis.tally import Layout, Tally
from critlab.kernels import runner

MAX_TRIALS = 10**13
# The largest seed the command line and report configurations accept (63 bits, as drawn
# by critlab.kernels.runner.resolve_seed).
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class BenchCase:
    """One mechanic in ``make bench``: critlab's simulator beside an idiomatic NumPy one.

    ``critlab(trials, threads)`` and ``numpy(trials)`` each run ``trials`` trials.
    ``exact`` (optional) times critlab's exact engine and ``icepool`` the same
    distribution in icepool, for the exact-engine ratio.
    """

    name: str
    critlab: Callable[[int, int], object]
    numpy: Callable[[int], object]
    exact: Callable[[], object] | None = None
    icepool: Callable[[], object] | None = None


def simulating(simulate: Callable[..., SimResult], spec: Spec) -> Callable[[int, int], SimResult]:
    """The ``critlab`` callable of a :class:`BenchCase`: ``simulate`` on ``spec`` at a
    fixed seed, without a progress bar."""

    def run(trials: int, threads: int) -> SimResult:
        return simulate(spec, trials=trials, seed=1, threads=threads, progress=False)

    return run


@dataclass(frozen=True)
class RuleSystem:
    """A rule system as the command line, sweeps, reports and benchmarks see it."""

    name: str
    title: str
    spec: type[Spec]
    exact: Callable[[Any], ExactResult]
    simulate: Callable[..., SimResult]
    plots: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    bench: Callable[[], Iterable[BenchCase]] | None = None

    def make_spec(self, **params: Any) -> Spec:
        """Build and validate a spec from keyword parameters.

        An unknown name raises :class:`SpecError` naming it (not a ``TypeError``).
        """
        known = {f.name for f in dataclasses.fields(self.spec)}
        for name in params:
            if name not in known:
                allowed = f"is not a parameter of {self.name}; known: {', '.join(sorted(known))}"
                raise SpecError(name, params[name], allowed)
        return self.spec(**params)


def check_trials(trials: Any) -> int:
    """``trials`` as an int in 1..10^13, or a SpecError naming it."""
    return check_int("trials", trials, 1, MAX_TRIALS)


def simulate_tally(
    layout: Layout,
    block: runner.BlockFn,
    *,
    trials: int,
    seed: int | None,
    threads: int | None = None,
    progress: bool | None = None,
    desc: str = "",
    client: Any = None,
) -> Tally:
    """Run a system's block kernel over ``trials`` trials and unpack the tally.

    ``block(state, n, out)`` must tally ``n`` trials into ``out`` in ``layout``'s order.
    ``client`` (a Dask client) runs the blocks on a cluster with identical results.
    """
    trials = check_trials(trials)
    try:
        seed = runner.resolve_seed(seed)
    except ValueError:
        raise SpecError("seed", seed, "must be a non-negative integer") from None
    counts = runner.run(
        block,
        n_out=layout.n_out,
        trials=trials,
        seed=seed,
        threads=threads,
        progress=progress,
        desc=desc,
        client=client,
    )
    return layout.unpack(counts, trials=trials, seed=seed)


def hist_ranges(exact: ExactResult, names: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Histogram ranges for a simulation: each distribution's exact support. Values the
    exact engine cut off into its tail land in the histogram's tail bin, so simulated
    and exact bins line up one to one."""
    out = {}
    for name in names:
        d = exact.distributions[name]
        if d is None:
            continue
        out[name] = (d.min, d.max) if d.probs.size else (0, 0)
    return out
