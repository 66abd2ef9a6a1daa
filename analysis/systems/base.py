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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.run import RunOptions, assemble
from critlab.analysis.spec import Spec, SpecError
from critlab.analysis.spec import system_of as system_of  # the spec's own system, read here too
from critlab.analysis.tally import Layout, Tally
from critlab.kernels.vocab import words

# Outcome words whose meaning every game shares, for the one acting (-2 worst .. +2
# best): a system's own ``polarity`` comes first, and a designer's mechanic or a fight
# (defeated, undecided) is coloured by these without declaring any.
COMMON_POLARITY = {
    "critfail": -2,
    "fumble": -2,
    "failure": -1,
    "miss": -1,
    "undecided": 0,
    "tie": 0,
    "success": 1,
    "hit": 1,
    "defeated": 1,
    "crit": 2,
    "raise": 2,
}


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

    ``views`` names the module (imported only when asked for) holding the system's
    plots and tables; its ``make bench`` cases live in ``benchmarks/``, found there by
    the name of the spec's module (the library never imports them).

    What the system needs to look right and to take part in fights is declared here too,
    so the style, the report and fights never name a system:

    - ``ordered``: its outcome labels are a ladder in order (mild to severe), drawn in
      an ordered palette;
    - ``polarity``: label -> how good it is for the one acting, -2 (worst) .. +2 (best),
      0 neutral (bad labels are drawn warm, good ones cool); labels it leaves out are
      read in :data:`COMMON_POLARITY` (see :meth:`polarity_of`);
    - ``fights``: which of its specs fight (a per-attack ``damage`` distribution), in
      words for the errors (``"mode attack"``; ``""`` for every spec with damage dice),
      or ``None`` when none does; ``fight_mode``: the ``mode`` a spec needs to fight.

    Axis labels and units come from its parameters' declarations (``param(...,
    label="target AC", unit="hp")``).
    """

    name: str
    title: str
    spec: type[Spec]
    exact: Callable[[Any], ExactResult]
    simulator: Simulator
    views: str | None = None
    ordered: bool = False
    polarity: Mapping[str, int] = dataclasses.field(default_factory=dict, compare=False)
    fights: str | None = None
    fight_mode: str | None = None

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
        **looks: Any,
    ) -> RuleSystem:
        """A built-in system by the convention of its files: ``kernel`` (its kernel
        module) holds ``block`` and the vocabularies ``Outcome`` (unless ``outcomes``
        picks one per mode), ``Hist`` and ``Counter``; its views module is named after
        the spec's module (``analysis/views/<m>.py``).
        ``looks`` are the declarations of how it looks and fights (``ordered``,
        ``polarity``, ``fights``, ``fight_mode``)."""
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
            **looks,
        )

    def polarity_of(self, labels: Iterable[str]) -> dict[str, int]:
        """How good each of ``labels`` is (-2 .. +2), from the system's own ``polarity``,
        else the words every system shares (:data:`COMMON_POLARITY`); labels known to
        neither are left out (drawn neutral, or in the qualitative palette when none is
        known).

        >>> from critlab.analysis.systems import get_system
        >>> get_system("thac0").polarity_of(["fumble", "hit", "defeated", "odd"])
        {'fumble': -2, 'hit': 1, 'defeated': 1}
        """
        out = {}
        for lab in labels:
            score = self.polarity.get(lab, COMMON_POLARITY.get(lab))
            if score is not None:
                out[lab] = score
        return out

    def model(self, spec: Spec | None = None) -> Any:
        """This system as a :class:`~critlab.analysis.model.Model` (every tool's one shape),
        at ``spec``'s point, or at the declared defaults."""
        from critlab.analysis.systems.model import SystemModel

        return SystemModel(self) if spec is None else SystemModel.of_spec(self.check_spec(spec))

    def __model__(self) -> Any:
        """The model this system stands for (see :func:`critlab.analysis.model.model_of`)."""
        return self.model()

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

        def support(name: str) -> tuple[int, int]:
            d = exact.distributions.get(name)
            return (d.min, d.max) if d is not None and d.probs.size else (0, 0)

        return self._kernel_layout(exact.labels, support)

    def _kernel_layout(self, labels: Iterable[str], support: Callable[[str], tuple[int, int]]) -> Layout:
        """The layout of ``labels``, the kernel's histograms over ``support(name)`` and
        its counters."""
        sim = self.simulator
        hists = {name: support(name) for name in words(sim.hists)} if sim.hists is not None else {}
        counters = words(sim.counters) if sim.counters is not None else ()
        return Layout(tuple(labels), hists, counters=counters)

    def compile_kernel(self, spec: Spec) -> None:
        """Compile the kernel that simulates ``spec`` (or load it from the cache), and
        the generator's seeding, without simulating a trial or working out the exact
        result: what a warm-up needs (:mod:`critlab.analysis.systems.warmup`).

        The kernel is called on zero trials with a layout of the spec's outcomes and
        empty histogram ranges: the types it compiles for are those of every
        simulation, whatever the ranges.
        """
        from critlab.kernels.jit import compiled_for  # Numba is imported where a kernel runs
        from critlab.kernels.rng import stream_state

        self.check_spec(spec)
        sim = self.simulator
        layout = self._kernel_layout(words(sim.outcomes(spec)), lambda _name: (0, 0))
        args = sim.args(spec)
        kernel = compiled_for(sim.block, args)
        kernel(stream_state(0, 0), 0, np.zeros(layout.n_out, dtype=np.int64), layout.array, args)

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
        trials, seed, threads, progress, client
            The run's options, as :class:`~critlab.analysis.run.RunOptions` reads them:
            ``trials`` in 1..10^13; ``seed`` an integer, a ``Generator``, a
            ``SeedSequence`` or ``None`` (drawn from the OS), recorded in the result;
            ``threads`` (default: all cores) and a Dask ``client`` never change a count;
            ``progress`` ``None`` shows a bar on a terminal.
        """
        self.check_spec(spec)
        options = RunOptions(trials=trials, seed=seed, threads=threads, progress=progress, client=client)
        return self.simulate_run(spec, options)

    def simulate_run(self, spec: Spec, options: RunOptions) -> SimResult:
        """:meth:`simulate` with its options as one :class:`~critlab.analysis.run.RunOptions`."""
        self.check_spec(spec)
        ex = self.exact(spec)
        layout = self.layout(spec, ex)
        from critlab.kernels.jit import compiled_for  # Numba is imported where a simulation runs

        sim = self.simulator
        args = sim.args(spec)
        return assemble(
            layout,
            KernelBlock(sim.block, layout.array, args),
            options,
            desc=self.name,
            metrics=lambda tally: sim.metrics(spec, tally),
            exact=ex,
            kernel=compiled_for(sim.block, args),
        )
