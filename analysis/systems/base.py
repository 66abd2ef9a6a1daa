"""The shape every rule system shares, and the one simulation path they all use.

A rule system provides only its rules:

- a spec: a frozen, keyword-only :class:`~critlab.analysis.spec.Spec` subclass whose
  parameters are declared beside their fields (:mod:`critlab.analysis.params`);
- ``exact(spec) -> ExactResult``: the exact engine's answer;
- a :class:`Simulator`: its block kernel (``kernels/<name>.py``), the kernel's
  vocabularies (outcomes, histograms, counters), the kernel's arguments built from the
  spec (one namedtuple) and the metrics read off the tally;

and is collected as one :class:`RuleSystem`. :meth:`RuleSystem.simulate` is written
once, here: it lays out the tally from the vocabularies, runs the blocks (on local
threads, or on a Dask client chosen here, one level above the runner) and assembles the
:class:`~critlab.analysis.results.SimResult`. Design views (tables and plots) live in
``analysis/views/<name>.py`` and benchmark baselines in ``benchmarks/``, named by the
system but never imported by it.
"""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.spec import Spec, SpecError, check_int
from critlab.analysis.tally import Layout, Tally
from critlab.kernels.vocab import words

MAX_TRIALS = 10**13
# The largest seed the command line and report configurations accept (63 bits, as drawn
# by critlab.kernels.runner.resolve_seed).
MAX_SEED = 2**63 - 1


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


def simulating(simulate: Callable[..., SimResult], spec: Spec) -> Callable[[int, int], SimResult]:
    """The ``critlab`` callable of a :class:`BenchCase`: ``simulate`` on ``spec`` at a
    fixed seed, without a progress bar."""

    def run(trials: int, threads: int) -> SimResult:
        return simulate(spec, trials=trials, seed=1, threads=threads, progress=False)

    return run


@dataclass(frozen=True)
class Simulator:
    """How a system's kernel is run: everything :meth:`RuleSystem.simulate` needs.

    ``block(state, n, out, layout, args)`` tallies ``n`` trials into ``out``;
    ``outcomes(spec)`` is the outcome vocabulary the kernel counts under for ``spec``'s
    mode (its words must be the exact result's labels); ``hists`` and ``counters`` are
    the kernel's histogram and counter vocabularies (a histogram whose exact
    distribution is ``None`` for a spec is laid out empty and reported as null);
    ``args(spec)`` builds the kernel's argument namedtuple; ``metrics(spec, tally)``
    reads the simulated metrics off the tally.
    """

    block: Any
    outcomes: Callable[[Any], type[IntEnum]]
    args: Callable[[Any], tuple]
    metrics: Callable[[Any, Tally], dict[str, float | None]]
    hists: type[IntEnum] | None = None
    counters: type[IntEnum] | None = None


@dataclass(frozen=True)
class KernelBlock:
    """A block function ``block(state, n, out)`` of one spec: the kernel with its layout
    and arguments bound (picklable, so a Dask cluster runs the very same blocks)."""

    kernel: Any
    layout: np.ndarray
    args: tuple

    def __call__(self, state: np.ndarray, n: int, out: np.ndarray) -> None:
        self.kernel(state, n, out, self.layout, self.args)


@dataclass(frozen=True)
class RuleSystem:
    """A rule system as the command line, sweeps, reports and benchmarks see it.

    ``views`` and ``bench`` name modules (imported only when asked for) holding the
    system's plots and tables and its benchmark cases.
    """

    name: str
    title: str
    spec: type[Spec]
    exact: Callable[[Any], ExactResult]
    simulator: Simulator
    views: str | None = None
    bench: str | None = None

    def __post_init__(self) -> None:
        # The spec class knows its system, so sweeps and the top-level API are handed the
        # system by the spec itself, never by a registry look-up.
        self.spec.rule_system = self
        # exact(None) or another system's spec is a TypeError naming the argument, not
        # an AttributeError from deep inside the rules
        model = self.exact
        if not getattr(model, "checks_its_spec", False):

            def exact(spec: Any, _model: Callable[[Any], ExactResult] = model) -> ExactResult:
                return _model(self.check_spec(spec))

            exact.__doc__, exact.__name__ = model.__doc__, getattr(model, "__name__", "exact")
            exact.checks_its_spec = True  # type: ignore[attr-defined]
            object.__setattr__(self, "exact", exact)

    @classmethod
    def of_kernel(
        cls,
        name: str,
        title: str,
        *,
        spec: type[Spec],
        exact: Callable[[Any], ExactResult],
        kernel: Any,
        args: Callable[[Any], tuple],
        metrics: Callable[[Any, Tally], dict[str, float | None]],
        outcomes: Callable[[Any], type[IntEnum]] | None = None,
    ) -> RuleSystem:
        """A built-in system by the convention of its files: ``kernel`` (its kernel
        module) holds ``block`` and the vocabularies ``Outcome`` (unless ``outcomes``
        picks one per mode), ``Hist`` and ``Counter``; its views and benchmark modules
        are named after the spec's module (``analysis/views/<m>.py``, ``benchmarks/<m>.py``)."""
        module = spec.__module__.rpartition(".")[2]
        simulator = Simulator(
            block=kernel.block,
            outcomes=outcomes or (lambda _spec: kernel.Outcome),
            args=args,
            metrics=metrics,
            hists=getattr(kernel, "Hist", None),
            counters=getattr(kernel, "Counter", None),
        )
        return cls(
            name,
            title,
            spec,
            exact,
            simulator,
            views=f"critlab.analysis.views.{module}",
            bench=f"benchmarks.{module}",
        )

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

    @property
    def plots(self) -> Mapping[str, Callable[..., Any]]:
        """The system's plots by name (from its views module's ``PLOTS``)."""
        if self.views is None:
            return {}
        return importlib.import_module(self.views).PLOTS

    def bench_cases(self) -> list[BenchCase]:
        """The system's ``make bench`` cases (from its bench module's ``bench_cases``)."""
        if self.bench is None:
            return []
        return list(importlib.import_module(self.bench).bench_cases())

    def check_spec(self, spec: Any) -> Spec:
        """``spec`` if it is a spec of this system, else a TypeError naming it."""
        if not isinstance(spec, self.spec):
            raise TypeError(f"spec must be a {self.spec.__name__} of {self.name}, got {type(spec).__name__}")
        return spec

    def layout(self, spec: Spec, exact: ExactResult) -> Layout:
        """The tally layout of ``spec``: the exact labels (which must be the kernel's
        outcome words), every histogram of the kernel over its exact support, the
        kernel's counters."""
        sim = self.simulator
        kernel_words = words(sim.outcomes(spec))
        if kernel_words != tuple(exact.labels):
            raise RuntimeError(
                f"{self.name}: kernel outcomes {kernel_words} differ from the exact labels {exact.labels}"
            )
        hists = {}
        for name in words(sim.hists) if sim.hists is not None else ():
            d = exact.distributions.get(name)
            hists[name] = (0, 0) if d is None else ((d.min, d.max) if d.probs.size else (0, 0))
        counters = words(sim.counters) if sim.counters is not None else ()
        return Layout(tuple(exact.labels), hists, counters=counters)

    def simulate(
        self,
        spec: Spec,
        *,
        trials: int,
        seed: Any = None,
        threads: int | None = None,
        progress: bool | None = None,
        client: Any = None,
    ) -> SimResult:
        """Simulate ``trials`` trials of ``spec`` die by die.

        Parameters
        ----------
        spec
            A spec of this system.
        trials
            Number of trials, 1..10^13.
        seed
            A non-negative integer, a ``numpy.random.Generator`` or ``SeedSequence`` (a
            63-bit seed is drawn from it), or ``None`` (drawn from the OS). The seed used
            is recorded in the result, so it always reproduces it.
        threads
            Worker threads (default: all cores); the counts do not depend on it.
        progress
            ``True`` always shows a progress bar, ``False`` never, ``None`` on a terminal.
        client
            A ``dask.distributed.Client``: the same blocks on its cluster, same counts.
        """
        self.check_spec(spec)
        ex = self.exact(spec)
        layout = self.layout(spec, ex)
        if client is None:
            _say_compiling(self.name, self.simulator.block, progress)
        block = KernelBlock(self.simulator.block, layout.array, self.simulator.args(spec))
        tally = simulate_tally(
            layout,
            block,
            trials=trials,
            seed=seed,
            threads=threads,
            progress=progress,
            desc=self.name,
            client=client,
        )
        # histograms laid out only to keep the kernel's indices fixed are not results
        kept = {k: h for k, h in tally.hists.items() if ex.distributions.get(k) is not None}
        tally = dataclasses.replace(tally, hists=kept)
        return SimResult.of(ex, tally, self.simulator.metrics(spec, tally))


def needs_compiling(kernel: Any) -> bool:
    """Whether calling ``kernel`` will compile it: nothing compiled in this process and
    no fresh cache index on disk, one whose stamp is today's sources' (numba's cache API
    is private, so any doubt says no)."""
    try:
        if kernel.signatures:
            return False
        return not kernel._cache._cache_file._load_index()
    except (AttributeError, OSError, ValueError, EOFError, pickle.UnpicklingError):
        return False


def _say_compiling(name: str, kernel: Any, progress: bool | None) -> None:
    """Tell a person at a terminal (or anyone who asked for progress) why the first run
    on a machine is silent for a while."""
    if progress is False or (progress is None and not sys.stderr.isatty()):
        return
    if needs_compiling(kernel):
        message = f"critlab: compiling the {name} simulator (once on this machine; it is cached)"
        print(message, file=sys.stderr)


def system_of(spec: Any) -> RuleSystem:
    """The rule system a spec belongs to (each spec class knows its own), or a TypeError
    naming the argument."""
    system = getattr(type(spec), "rule_system", None)
    if not isinstance(spec, Spec) or system is None:
        raise TypeError(f"spec must be a rule system's spec (e.g. Thac0Spec), got {type(spec).__name__}")
    return system


def check_trials(trials: Any) -> int:
    """``trials`` as an int in 1..10^13, or a SpecError naming it."""
    return check_int("trials", trials, 1, MAX_TRIALS)


def simulate_tally(
    layout: Layout,
    block: Callable[[np.ndarray, int, np.ndarray], None],
    *,
    trials: int,
    seed: Any,
    threads: int | None = None,
    progress: bool | None = None,
    desc: str = "",
    client: Any = None,
) -> Tally:
    """Run a system's block kernel over ``trials`` trials and unpack the tally.

    ``block(state, n, out)`` must tally ``n`` trials into ``out`` in ``layout``'s order.
    ``client`` (a Dask client) runs the blocks on a cluster with identical results.
    """
    from critlab.kernels import runner  # Numba is imported where a simulation runs

    trials = check_trials(trials)
    try:
        seed = runner.resolve_seed(seed)
    except (TypeError, ValueError):
        allowed = "must be a non-negative integer, a numpy Generator or SeedSequence, or none"
        raise SpecError("seed", seed, allowed) from None
    if client is not None:
        from critlab.kernels.cluster import run_on_client

        sizes = runner.block_sizes(trials)
        counts = run_on_client(
            client, block, n_out=layout.n_out, seed=seed, sizes=sizes, progress=progress, desc=desc
        )
    else:
        counts = runner.run(
            block, n_out=layout.n_out, trials=trials, seed=seed, threads=threads, progress=progress, desc=desc
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
