"""Simulated encounters: each trial one encounter, initiative rolled and targets picked by
the rules, every attack rolled die by die by the attacker's own per-attack kernel (see
:mod:`critlab.kernels.encounter`), on the shared runner.

The tally has the exact result's labels, its ``rounds`` and every ``hp_left_<name>``
histogram over the exact supports (anything beyond lands in their ``tail`` bins), so the
simulation is held against :func:`critlab.analysis.encounter.exact.exact_encounter` by the
one validator, :func:`critlab.analysis.validate.validate`. An encounter the exact chain
refuses still simulates (its histograms over every round and hit point). Same seed, same
counts on any thread count or cluster.

The block is one kernel for every encounter, whatever its kinds of attack and its size:
each pair's attack is called through its address (:mod:`critlab.kernels.indirect`), so an
encounter of attacks already compiled compiles nothing. A designer's own mechanic attacks
by its compiled rule: one trial of it, its ``damage`` value floored at 0, the target's
``defense`` applied to its parameters, as one more kind beside the systems'. The rule's
attack and its wrapper are built at run time, so they are cached on disk as the
mechanic's drivers are (:mod:`critlab.analysis.mechanic.cache`: keyed by the rule, its
declaration, the versions and the kernels' sources), and :class:`MechanicAttacks` travel
to a Dask worker by the mechanics' references.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critlab.analysis.encounter.declare import DAMAGING, ORDERS, TARGETING, Encounter
from critlab.analysis.encounter.exact import LABELS, EncounterResult, encounter_line, exact_encounter
from critlab.analysis.fight.sim import attack_kernel
from critlab.analysis.results import SimResult
from critlab.analysis.run import simulate_tally
from critlab.analysis.spec import SpecError
from critlab.analysis.systems.base import KernelBlock
from critlab.analysis.tally import Layout, Tally
from critlab.kernels.vocab.dice import simple_only

COUNTERS = ("decided_rounds_sum", "attacks", "any_down_a", "any_down_b")


@dataclass(frozen=True, repr=False)
class EncounterSim(SimResult):
    """A simulated encounter: a :class:`SimResult` (``system`` is ``encounter``) that
    carries the :class:`Encounter`."""

    encounter: Encounter | None = field(default=None, kw_only=True)

    def __repr__(self) -> str:
        extra = f" ({self.trials:,} trials, seed {self.seed})"
        return encounter_line(
            "EncounterSim", self.encounter, self.outcomes, self.metrics.get("mean_rounds"), extra
        )


def _pair_kernel(spec: Any, who: str) -> tuple[str, Any]:
    """``(kind, args)`` of one attack: a system's kernel module and kernel arguments, or a
    mechanic's reference (its loadable ``where``, which holds a ``:``) and its
    :func:`~critlab.analysis.mechanic.sim.kernel_args`."""
    system = type(spec).rule_system
    rule = getattr(system, "rule", None)
    if rule is None:
        return attack_kernel(spec)
    if "damage" not in rule.values:
        raise SpecError(f"{who}.attack", system.name, f"deals no damage; an attack is {DAMAGING}")
    from critlab.analysis.mechanic.sim import kernel_args

    return system.where, kernel_args(rule, spec)


def kernel_plan(enc: Encounter) -> tuple[tuple[str, ...], Any]:
    """The kinds of the encounter's attacks (kind ``k`` the ``k``-th: a system's kernel
    module, or a mechanic's reference) and what the block simulates
    (:data:`critlab.kernels.encounter.Plan`); a SpecError naming the first attacker whose
    attack cannot be simulated here."""
    from critlab.kernels import encounter as k

    people = enc.combatants
    planned = {pair: _pair_kernel(spec, people[pair[0]].name) for pair, spec in enc.pair_specs().items()}
    modules = tuple(sorted({module for module, _ in planned.values()}))
    n = len(people)
    kind = np.full(n * n, -1, dtype=np.int64)
    pairs: list[Any] = [None] * (n * n)
    for (i, j), (module, args) in planned.items():
        kind[i * n + j] = modules.index(module)
        pairs[i * n + j] = args
    for k_index in range(len(modules)):
        mine = [p for p in range(n * n) if kind[p] == k_index]
        for p, simple in zip(mine, _simple_kind([pairs[p] for p in mine]), strict=True):
            pairs[p] = simple
    none = np.zeros(0, dtype=np.int64)
    args = k.Args(
        n=n,
        n_a=enc.n_a,
        hp=np.array([c.hp for c in people], dtype=np.int64),
        attacks=np.array([c.attacks for c in people], dtype=np.int64),
        initiative=np.array([c.initiative for c in people], dtype=np.int64),
        policy=np.array([TARGETING.index(enc.a.targeting), TARGETING.index(enc.b.targeting)], dtype=np.int64),
        order=ORDERS.index(enc.order),
        max_rounds=enc.max_rounds,
        # each pair's attack and bytes: written where the block runs (an address is a process's own)
        pair_fn=none,
        pair_at=none,
        packed=np.zeros(0, dtype=np.uint8),
        **_table_args(enc),
    )
    return modules, k.Plan(modules, kind, tuple(pairs), args)


def _simple_kind(kind_args: list[Any]) -> list[Any]:
    """A kind's pairs' arguments without their dice terms where every pair rolls simple
    dice only (:func:`~critlab.kernels.vocab.dice.simple_only`), so its attack compiles no
    interpreter; else as they are (a kind's pairs are of one type: its attack reads them so)."""
    simple = [simple_only(a) for a in kind_args]
    return simple if all(s is not a for s, a in zip(simple, kind_args, strict=True)) else kind_args


def lehmer(order: tuple[int, ...]) -> int:
    """The rank of a permutation among those of its length (as the kernel computes it).

    >>> lehmer((0, 1, 2)), lehmer((2, 1, 0))
    (0, 5)
    """
    n, code = len(order), 0
    for p in range(n):
        code = code * (n - p) + sum(1 for q in range(p + 1, n) if order[q] < order[p])
    return code


def _table_args(enc: Encounter) -> dict[str, Any]:
    """The policy table a side playing ``best`` follows (the exact walk's, solved here;
    refused with one line where it is past its bound), or placeholders."""
    from critlab.analysis.encounter.best import best_policy, best_side

    none = np.zeros(1, dtype=np.int64)
    if best_side(enc) is None:
        return {
            "table": np.full((1, 1, 1, 1), -1, dtype=np.int8),
            "keys_a": none,
            "mult_a": none,
            "keys_b": none,
            "mult_b": none,
            "order_keys": none,
            "order_index": none,
        }
    try:
        policy = best_policy(enc)
    except SpecError as exc:
        side = best_side(enc)
        raise SpecError(
            f"{side}.targeting", "best", f"needs the exact walk within its bound, and {exc}"
        ) from None
    chain = policy.chain
    codes = np.array([lehmer(order) for order, _ in chain.orders], dtype=np.int64)
    sort = np.argsort(codes)
    return {
        "table": np.ascontiguousarray(policy.choice),
        "keys_a": chain.a.keys,
        "mult_a": chain.a.mult,
        "keys_b": chain.b.keys,
        "mult_b": chain.b.mult,
        "order_keys": codes[sort],
        "order_index": sort.astype(np.int64),
    }


def _is_mechanic(kind: str) -> bool:
    return ":" in kind  # a reference, rules.py:attack; a kernel module's name has no colon


class MechanicAttacks:
    """The attacks of an encounter's own mechanics (the kinds of ``kinds`` that are
    mechanics' references, as :func:`kernel_plan` names them), compiled (or loaded from the
    disk cache) when made, so that a failure is one line before any trial: what
    :class:`~critlab.kernels.encounter.EncounterKernel` calls for those kinds. ``samples``
    holds, for each mechanic kind, one pair's kernel arguments (the types its attack is
    compiled for); ``mechanics`` the mechanics by kind, where they are at hand (else each
    is loaded by its reference). Picklable by the kinds and samples: a Dask worker loads
    the mechanics again and their compiled forms from its own cache."""

    __slots__ = ("kinds", "made", "samples")

    def __init__(
        self, kinds: tuple[str, ...], samples: dict[str, Any], mechanics: dict[str, Any] | None = None
    ) -> None:
        from critlab.analysis.mechanic.load import resolve
        from critlab.analysis.mechanic.sim import encounter_attack

        self.kinds, self.samples = kinds, samples
        self.made = {}
        for kind in kinds:
            if _is_mechanic(kind):
                mech = (mechanics or {}).get(kind) or resolve(kind)
                self.made[kind] = encounter_attack(mech.rule, samples[kind])

    def __reduce__(self) -> tuple:
        return (MechanicAttacks, (self.kinds, self.samples))

    def attack(self, kind: str) -> tuple[Any, str, tuple[str, str] | None] | None:
        """``(attack, name, cache)`` of a mechanic's kind (its wrapper cached in the
        mechanics' cache, keyed by the rule's key), None for a system's."""
        if kind not in self.made:
            return None
        from critlab.analysis.mechanic.cache import cache_root, key_of

        name, attack = self.made[kind]
        root = cache_root()
        key = key_of("encounter attack", name)  # the name holds the rule's cache key
        return attack, name, None if root is None else (str(root / key[:32]), key)


def encounter_kernel(enc: Encounter, modules: tuple[str, ...], args: Any) -> Any:
    """The block's kernel for the kinds ``modules`` of :func:`kernel_plan` (``args`` its
    plan): :class:`~critlab.kernels.encounter.EncounterKernel`, with the
    :class:`MechanicAttacks` of the kinds that are own mechanics."""
    from critlab.kernels import encounter as k

    if not any(_is_mechanic(kind) for kind in modules):
        return k.EncounterKernel(modules)
    samples = {kind: k.sample(args, i) for i, kind in enumerate(modules) if _is_mechanic(kind)}
    mechanics = {}
    for spec in enc.pair_specs().values():
        system = type(spec).rule_system
        if getattr(system, "rule", None) is not None:
            mechanics[system.where] = system
    return k.EncounterKernel(modules, MechanicAttacks(modules, samples, mechanics))


def _rules(enc: Encounter) -> list[Any]:
    """The rules of the encounter's mechanic attacks."""
    systems = (type(spec).rule_system for spec in enc.pair_specs().values())
    return [s.rule for s in systems if getattr(s, "rule", None) is not None]


def encounter_layout(enc: Encounter, exact: EncounterResult | None) -> Layout:
    """The tally layout: the labels, ``rounds`` and every ``hp_left_<name>`` over the
    exact supports (without an exact result, every round and every hit point)."""
    names = ["rounds", *(f"hp_left_{c.name}" for c in enc.combatants)]
    if exact is not None:
        hists = {}
        for name in names:
            d = exact.distributions[name]
            hists[name] = (d.min, d.max) if d.probs.size else (0, 0)
    else:
        hists = {"rounds": (1, enc.max_rounds)}
        hists.update({f"hp_left_{c.name}": (0, c.hp) for c in enc.combatants})
    return Layout(LABELS, hists, counters=COUNTERS)


def simulated_metrics(enc: Encounter, tally: Tally) -> dict[str, Any]:
    """The encounter's metrics estimated from the tally (the exact metrics' names)."""
    n = tally.trials
    decided = n - int(tally.counts[LABELS.index("undecided")])
    metrics: dict[str, Any] = {
        "mean_rounds": tally.counters["decided_rounds_sum"] / decided if decided else None
    }
    for c in enc.combatants:
        hist = tally.hists[f"hp_left_{c.name}"]
        at_zero = int(hist.counts[0]) if hist.offset == 0 and hist.counts.size else 0
        metrics[f"p_down_{c.name}"] = at_zero / n
        metrics[f"mean_hp_left_{c.name}"] = float(np.dot(hist.values, hist.counts)) / n
    metrics["p_any_down_a"] = tally.counters["any_down_a"] / n
    metrics["p_any_down_b"] = tally.counters["any_down_b"] / n
    return metrics


def _compile_saying_so(kernel: Any, layout: Layout, args: Any) -> None:
    """Compile the encounter's block and its kinds' attacks now where they are not
    compiled or cached, saying so on stderr (a line before, one after with the seconds),
    at a terminal or not: a first simulation is otherwise silent for many seconds."""
    import sys
    import time

    from critlab.analysis.run import needs_compiling
    from critlab.kernels import encounter as k
    from critlab.kernels.rng import stream_state

    if not any(needs_compiling(d) for d in (k.block, *kernel.attacks())):
        return
    print(
        "critlab: compiling the encounter simulator (once on this machine, then cached)",
        file=sys.stderr,
        flush=True,
    )
    start = time.perf_counter()
    kernel(stream_state(0, 0), 0, np.zeros(layout.n_out, dtype=np.int64), layout.array, args)
    seconds = time.perf_counter() - start
    print(f"critlab: compiled the encounter simulator ({seconds:.1f} s)", file=sys.stderr, flush=True)


def simulate_encounter(
    enc: Encounter,
    *,
    trials: int,
    seed: Any = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
    exact: EncounterResult | None = None,
) -> EncounterSim:
    """Simulate ``trials`` encounters, die by die.

    Parameters
    ----------
    enc
        The :class:`~critlab.analysis.encounter.declare.Encounter`.
    trials, seed, threads, progress, client
        As for every simulation (``RuleSystem.simulate``): the counts depend on the seed
        only, never on ``threads`` or the Dask ``client``.
    exact
        The exact result of the same encounter, when already computed (it lays out the
        tally); computed here otherwise, and done without where the chain is refused.

    Examples
    --------
    >>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
    >>> from critlab.analysis.systems import get_system
    >>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    >>> enc = Encounter(Side((Combatant("x", 6, spec),)), Side((Combatant("y", 6, spec),)), order="a-first")
    >>> sim = simulate_encounter(enc, trials=20_000, seed=1, progress=False)
    >>> sim.labels, sim.outcomes["a_wins"] > sim.outcomes["b_wins"]
    (('a_wins', 'b_wins', 'draw', 'undecided'), True)
    """
    modules, args = kernel_plan(enc)
    if exact is None:
        try:
            exact = exact_encounter(enc)
        except SpecError as exc:
            if exc.name != "encounter":  # over the chain's bound: lay out without it
                raise
    layout = encounter_layout(enc, exact)
    kernel = encounter_kernel(enc, modules, args)
    if progress is not False and client is None:
        _compile_saying_so(kernel, layout, args)
    try:
        tally = simulate_tally(
            layout,
            KernelBlock(kernel, layout.array, args),
            trials=trials,
            seed=seed,
            threads=threads,
            progress=progress,
            desc="encounter",
            client=client,
        )
    except Exception as exc:  # a mechanic's own error, raised in a block: one line, file and line
        from critlab.analysis.mechanic.compile import raised_by_rule

        for rule in {id(r): r for r in _rules(enc)}.values():
            own = raised_by_rule(rule.fn, exc)
            if own is not None:
                raise own from None
        raise
    return EncounterSim("encounter", {}, tally, simulated_metrics(enc, tally), encounter=enc)


__all__ = [
    "COUNTERS",
    "EncounterSim",
    "MechanicAttacks",
    "encounter_kernel",
    "encounter_layout",
    "kernel_plan",
    "simulate_encounter",
]
