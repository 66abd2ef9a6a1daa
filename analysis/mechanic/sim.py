"""Simulating a mechanic on the shared runner: its compiled rule, inputs rolled die by die.

The tally is laid out like a built-in system's: the outcome labels, one histogram per
value over its exact support (values outside it land in the histogram's ``tail`` bin,
so simulated and exact bins line up one to one for validation), one counter per value
(its sum, for ``mean_<value>``) and one counting labels out of range. When the exact
engine refuses the mechanic (too many combinations), the histograms' ranges come from a
pilot of :data:`PILOT_TRIALS` trials on a stream of its own, derived from the run's seed
(so the run is still reproduced by its seed); values outside the pilot's range are
counted in the ``tail`` bin.

The block (:class:`MechanicBlock`) travels to a Dask cluster by reference: a worker
finds the mechanic again by its loadable reference (its file, by absolute path, or its
module) and compiles it there. A mechanic defined in ``__main__`` (a notebook) runs on
local threads only.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from critlab.analysis.dice.notation import parse
from critlab.analysis.mechanic.compile import MechanicError, raised_by_rule, run_driver
from critlab.analysis.mechanic.exact import ExactTooLarge
from critlab.analysis.mechanic.pools import places
from critlab.analysis.results import SimResult
from critlab.analysis.run import RunOptions, assemble, compile_notice
from critlab.analysis.spec import Spec
from critlab.analysis.tally import Layout, Tally
from critlab.kernels import mechanic as km
from critlab.kernels.rng import stream_state
from critlab.kernels.vocab.dice import plans_of

PILOT_TRIALS = 1 << 16
# The pilot's stream: block index far beyond any run's blocks (10^13 trials are 4e7 blocks).
PILOT_BLOCK = 1 << 40
OUT_OF_RANGE = "label_out_of_range"


def kernel_args(rule: Any, spec: Spec) -> km.Args:
    """The block's arguments for ``spec``: the inputs' encoded dice, stacked (a pool's:
    one of its dice), the rule's parameters, and where each input's values live."""
    rolls = rule.rolls(spec)
    encoded = [parse(die).encode() for _, _, die in rolls]
    terms = np.concatenate([t for t, _ in encoded]).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum([len(t) for t, _ in encoded])]).astype(np.int64)
    consts = np.array([c for _, c in encoded], dtype=np.int64)
    offs, widths = places(tuple(n for _, n, _ in rolls))
    plans = plans_of(terms, starts)
    return km.Args(terms, starts, consts, rule.param_values(spec), offs, widths, plans)


def simple_args(args: km.Args) -> km.Args:
    """``args`` without its terms where every input rolls simple dice (one kind of die,
    summed, exploding on its highest faces or not): the block then rolls them by their
    plans, the same dice from the same stream, and compiles no dice interpreter (2.6-3.1 s
    of a first simulation). Else ``args`` as they are."""
    return args._replace(terms=None) if len(args.plans) and bool(np.all(args.plans[:, 0])) else args


class MechanicBlock:
    """``block(state, n, out)`` of one spec of a mechanic (picklable by reference)."""

    __slots__ = ("args", "block", "layout", "where")

    def __init__(
        self, mechanic: Any, layout: np.ndarray, args: km.Args, progress: bool | None = False
    ) -> None:
        self.where, self.layout, self.args = mechanic.where, layout, args
        compiled = mechanic.rule.compiled(args.params)
        # no trials: compiles the block here, where a failure is one line (also on a worker);
        # a first compile is said on stderr unless progress is off
        with compile_notice(mechanic.rule.fn.__name__, compiled.kernels.block, progress):
            empty = np.zeros(1, np.int64)
            run_driver(mechanic.rule.fn, compiled, "block", stream_state(0, 0), 0, empty, layout, args)
        self.block = compiled.kernels.block

    def __call__(self, state: np.ndarray, n: int, out: np.ndarray) -> None:
        self.block(state, n, out, self.layout, self.args)

    def __reduce__(self) -> tuple:
        return (_block_of, (self.where, self.layout, self.args))


def _block_of(where: str, layout: np.ndarray, args: km.Args) -> MechanicBlock:
    from critlab.analysis.mechanic.load import resolve

    return MechanicBlock(resolve(where), layout, args)


def encounter_attack(rule: Any, args: km.Args) -> tuple[str, Any]:
    """The rule as an attack in an encounter: ``(kind, attack)``, where ``attack(s, a,
    scratch)`` rolls one trial of ``args``-like arguments (:func:`kernel_args`) and
    returns its ``damage`` value (:func:`critlab.kernels.encounter.mechanic_attack`), compiled
    here, or loaded from the disk cache, so that a failure is one line; ``kind`` names it
    for :func:`critlab.kernels.encounter.add_attack` (by the rule's cache key: a changed
    rule is a new kind). Made once per compiled rule."""
    from numba import typeof
    from numba.core.errors import NumbaError

    from critlab.analysis.mechanic.compile import _one_line
    from critlab.kernels import encounter as ke
    from critlab.kernels.dice import SCRATCH_SIZE

    compiled = rule.compiled(args.params)
    made = getattr(compiled, "_critlab_attack", None)
    if made is not None:
        return made
    start = time.perf_counter()
    value = 1 + rule.values.index("damage")
    signature = (typeof(stream_state(0, 0)), typeof(args), typeof(np.zeros(SCRATCH_SIZE, np.int64)))
    key = compiled.cache[1] if compiled.cache else f"{id(compiled):016x}"
    # the rule inlined (a trial's stream kept in registers), else called, as the drivers fall back
    users = (
        [("called_", compiled.rule)]
        if compiled.fell_back
        else [("", compiled.inlined), ("called_", compiled.rule)]
    )
    for n, (tag, user) in enumerate(users):
        attack = ke.mechanic_attack(user, compiled.n_params, value, compiled.cache, tag)
        try:
            attack.compile(signature)
            break
        except NumbaError as exc:
            if n + 1 == len(users):
                raise MechanicError(_one_line(rule.fn, exc)) from None
    made = (f"mechanic_{tag}{key[:16]}", attack)
    compiled._critlab_attack = made
    compiled.seconds += time.perf_counter() - start
    return made


def pilot_ranges(rule: Any, spec: Spec, args: km.Args, seed: int) -> dict[str, tuple[int, int]]:
    """Each value's smallest and largest in :data:`PILOT_TRIALS` trials on the pilot stream."""
    n = len(rule.values)
    vmin = np.full(max(n, 1), np.iinfo(np.int64).max, dtype=np.int64)
    vmax = np.full(max(n, 1), np.iinfo(np.int64).min, dtype=np.int64)
    compiled = rule.compiled(args.params)
    run_driver(rule.fn, compiled, "ranges", stream_state(seed, PILOT_BLOCK), PILOT_TRIALS, vmin, vmax, args)
    return {name: (int(vmin[j]), int(vmax[j])) for j, name in enumerate(rule.values)}


def simulate_run(mechanic: Any, spec: Spec, options: RunOptions) -> SimResult:
    """Simulate ``spec`` of ``mechanic`` under ``options`` (what
    :meth:`RuleSystem.simulate` runs for a mechanic)."""
    rule = mechanic.rule
    args = simple_args(kernel_args(rule, spec))
    try:
        ex = rule.exact(spec)
    except ExactTooLarge:
        ex = None
    if ex is not None:
        hists = {name: (ex.distributions[name].min, ex.distributions[name].max) for name in rule.values}
    else:
        hists = pilot_ranges(rule, spec, args, options.seed) if rule.values else {}
    counters = (*(f"{name}_sum" for name in rule.values), OUT_OF_RANGE)
    layout = Layout(rule.labels, hists, counters=counters)

    def metrics(tally: Tally) -> dict[str, float | None]:
        bad = tally.counters[OUT_OF_RANGE]
        if bad:
            raise MechanicError(
                f"{rule.name}: returned a label outside 0..{len(rule.labels) - 1} ({', '.join(rule.labels)}) "
                f"in {bad:,} of {tally.trials:,} trials"
            )
        out: dict[str, float | None] = {
            f"mean_{name}": tally.counters[f"{name}_sum"] / tally.trials for name in rule.values
        }
        out["tail"] = 0.0  # a simulation cuts nothing off
        return out

    block = MechanicBlock(mechanic, layout.array, args, progress=options.progress)
    desc = rule.fn.__name__
    try:
        return assemble(
            layout,
            block,
            options,
            desc=desc,
            metrics=metrics,
            exact=ex,
            system=rule.name,
            params=spec.params(),
        )
    except Exception as exc:  # the rule's own error, raised in a block: one line, file and line
        own = raised_by_rule(rule.fn, exc)
        if own is None:
            raise
        raise own from None
