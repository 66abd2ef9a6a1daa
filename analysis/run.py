"""One simulation run: its options, validated once, and the one assembly every simulation uses.

Rule systems, mechanics and fights (and anything else that tallies trials on the shared
runner) differ only in their layout, their block and how they read metrics off the
tally. What they share is here:

- :class:`RunOptions`: the five options of a run (``trials``, ``seed``, ``threads``,
  ``progress``, ``client``), checked on construction (trials 1..10^13, a seed the runner
  can record); the seed is resolved to the integer that reproduces the run, so a seed
  drawn from the OS or a ``Generator`` is drawn once, here.
- :func:`tally_of`: layout and block in, the unpacked :class:`~critlab.analysis.tally.Tally`
  out, on local threads or on a Dask client (same counts either way).
- :func:`assemble`: the whole path, layout -> blocks -> tally -> ``SimResult``.

>>> options = RunOptions(trials=1000, seed=7)
>>> options.trials, options.seed, options.threads
(1000, 7, None)
>>> RunOptions(trials=0)
Traceback (most recent call last):
...
critlab.analysis.spec.SpecError: parameter trials = 0: must be an integer in 1..10000000000000
"""

from __future__ import annotations

import dataclasses
import pickle
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.spec import SpecError, check_int
from critlab.analysis.tally import Layout, Tally

MAX_TRIALS = 10**13
# The largest seed the command line and report configurations accept (63 bits, as drawn
# by critlab.kernels.runner.resolve_seed).
MAX_SEED = 2**63 - 1

Block = Callable[[np.ndarray, int, np.ndarray], None]


def check_trials(trials: Any) -> int:
    """``trials`` as an int in 1..10^13, or a SpecError naming it.

    >>> check_trials(10)
    10
    """
    return check_int("trials", trials, 1, MAX_TRIALS)


def check_seed(seed: Any) -> int:
    """The integer seed that reproduces a run: ``seed`` itself, or one drawn from the OS
    (``None``), a ``numpy.random.Generator`` or a ``SeedSequence``; a SpecError naming
    anything else.

    >>> check_seed(3)
    3
    >>> check_seed(-1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    critlab.analysis.spec.SpecError: parameter seed = -1: must be a non-negative integer, ...
    """
    from critlab.kernels import runner  # Numba is imported where a simulation runs

    try:
        return runner.resolve_seed(seed)
    except (TypeError, ValueError):
        allowed = "must be a non-negative integer, a numpy Generator or SeedSequence, or none"
        raise SpecError("seed", seed, allowed) from None


@dataclass(frozen=True)
class RunOptions:
    """The options of one simulation run, validated on construction.

    Parameters
    ----------
    trials
        Number of trials, 1..10^13.
    seed
        A non-negative integer, a ``numpy.random.Generator`` or ``SeedSequence`` (a 63-bit
        seed is drawn from it), or ``None`` (drawn from the OS); stored resolved, as the
        integer the result records.
    threads
        Worker threads (default: all cores); the counts do not depend on it.
    progress
        ``True`` always shows a progress bar, ``False`` never, ``None`` on a terminal.
    client
        A ``dask.distributed.Client``: the same blocks on its cluster, the same counts.

    Examples
    --------
    >>> a = RunOptions(trials=10, seed=1)
    >>> a.replace(seed=2).seed, a.keywords()["trials"]
    (2, 10)
    """

    trials: int
    seed: Any = None
    threads: int | None = None
    progress: bool | None = None
    client: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "trials", check_trials(self.trials))
        object.__setattr__(self, "seed", check_seed(self.seed))

    def replace(self, **changes: Any) -> RunOptions:
        """These options with some changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def keywords(self) -> dict[str, Any]:
        """The options as the keyword arguments of a ``simulate`` function."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def tally_of(layout: Layout, block: Block, options: RunOptions, *, desc: str = "") -> Tally:
    """Run ``block`` over ``options.trials`` trials and unpack the tally.

    ``block(state, n, out)`` must tally ``n`` trials into ``out`` in ``layout``'s order
    (picklable when ``options.client`` runs it on a cluster, with identical counts).
    """
    from critlab.kernels import runner

    o = options
    if o.client is not None:
        from critlab.kernels.cluster import run_on_client

        sizes = runner.block_sizes(o.trials)
        counts = run_on_client(
            o.client, block, n_out=layout.n_out, seed=o.seed, sizes=sizes, progress=o.progress, desc=desc
        )
    else:
        counts = runner.run(
            block,
            n_out=layout.n_out,
            trials=o.trials,
            seed=o.seed,
            threads=o.threads,
            progress=o.progress,
            desc=desc,
        )
    return layout.unpack(counts, trials=o.trials, seed=o.seed)


def simulate_tally(layout: Layout, block: Block, *, desc: str = "", **options: Any) -> Tally:
    """:func:`tally_of` with the run options as keywords (``trials``, ``seed``,
    ``threads``, ``progress``, ``client``)."""
    return tally_of(layout, block, RunOptions(**options), desc=desc)


def assemble(
    layout: Layout,
    block: Block,
    options: RunOptions,
    *,
    desc: str,
    metrics: Callable[[Tally], Mapping[str, Any]],
    exact: ExactResult | None = None,
    system: str = "",
    params: Mapping[str, Any] | None = None,
    result: type[SimResult] = SimResult,
    kernel: Any = None,
    **fields: Any,
) -> SimResult:
    """Layout -> blocks -> tally -> result: the one path of every simulation.

    Parameters
    ----------
    layout, block
        The tally's layout and the block that fills it (see :func:`tally_of`).
    options
        The run's :class:`RunOptions`.
    desc
        The run's name on its progress bar and in the compiling notice.
    metrics
        Reads the simulated metrics off the tally (it may raise, e.g. on a tally that
        says the rules went wrong).
    exact
        The exact result of the same spec: the result then takes its system, params and
        distribution names, and histograms laid out for a distribution it reports as
        null (kept only to fix the kernel's indices) are dropped.
    system, params
        The result's system and params when there is no ``exact``.
    result
        The result class (a :class:`SimResult` subclass), given ``fields`` as keywords.
    kernel
        A cached Numba kernel: a person at a terminal is told when it must compile first.

    Examples
    --------
    >>> from critlab.analysis.tally import Layout
    >>> layout = Layout(("heads", "tails"), {})
    >>> def coin(state, n, out):
    ...     out[0] += n // 2
    ...     out[1] += n - n // 2
    >>> r = assemble(layout, coin, RunOptions(trials=10, seed=1, progress=False), desc="coin",
    ...              metrics=lambda t: {}, system="coin", params={})
    >>> r.outcomes
    {'heads': 0.5, 'tails': 0.5}
    """
    if kernel is not None and options.client is None and say_compiling(desc, kernel, options.progress):
        block = _SaysCompiled(block, desc, time.perf_counter())
    tally = tally_of(layout, block, options, desc=desc)
    if exact is not None:
        kept = {k: h for k, h in tally.hists.items() if exact.distributions.get(k) is not None}
        tally = dataclasses.replace(tally, hists=kept)
    read = dict(metrics(tally))
    if exact is not None:
        return result.of(exact, tally, read, **fields)
    return result(system, dict(params or {}), tally, read, **fields)


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


def say_compiling(name: str, kernel: Any, progress: bool | None) -> bool:
    """Say on stderr why the first run on a machine is silent for a while, at a terminal
    or not (a CI log, a notebook's subprocess), unless progress is off (``progress=False``,
    ``--no-progress``); whether it said so (the kernel compiles)."""
    if progress is False:
        return False
    if not needs_compiling(kernel):
        return False
    message = f"critlab: compiling the {name} simulator (1 of 1; once on this machine, then cached)"
    print(message, file=sys.stderr, flush=True)
    return True


@contextmanager
def compile_notice(name: str, kernel: Any, progress: bool | None) -> Iterator[None]:
    """Say on stderr, before and after, that the code inside compiles ``kernel`` (the
    ``name`` simulator) when it will (:func:`say_compiling`), with the seconds it took."""
    if not say_compiling(name, kernel, progress):
        yield
        return
    start = time.perf_counter()
    yield
    say_compiled(name, start)


def say_compiled(name: str, start: float) -> None:
    """The line after a first compile that began at ``start`` (``time.perf_counter()``)."""
    seconds = time.perf_counter() - start
    print(f"critlab: compiled the {name} simulator (1 of 1, {seconds:.0f} s)", file=sys.stderr, flush=True)


class _SaysCompiled:
    """A block that, once its first call returns (the kernel compiled, in the main
    thread), says so with the seconds it took; then it is the block itself."""

    def __init__(self, block: Block, name: str, start: float) -> None:
        self.block, self.name, self.start, self.said = block, name, start, False

    def __call__(self, state: np.ndarray, n: int, out: np.ndarray) -> None:
        self.block(state, n, out)
        if not self.said:
            self.said = True
            say_compiled(self.name, self.start)


__all__ = [
    "MAX_SEED",
    "MAX_TRIALS",
    "RunOptions",
    "assemble",
    "check_seed",
    "check_trials",
    "compile_notice",
    "needs_compiling",
    "say_compiled",
    "say_compiling",
    "simulate_tally",
    "tally_of",
]
