"""Simulated encounters: each trial one encounter, initiative rolled and targets picked by
the rules, every attack rolled die by die by the attacker's own per-attack kernel (see
:mod:`critlab.kernels.encounter`), on the shared runner.

The tally has the exact result's labels, its ``rounds`` and every ``hp_left_<name>``
histogram over the exact supports (anything beyond lands in their ``tail`` bins), so the
simulation is held against :func:`critlab.analysis.encounter.exact.exact_encounter` by the
one validator, :func:`critlab.analysis.validate.validate`. An encounter the exact chain
refuses still simulates (its histograms over every round and hit point). Same seed, same
counts on any thread count or cluster.

A mechanic's attack is not simulated in an encounter (its compiled rule is built at run
time and cannot be bound into the cached encounter kernel): such an encounter is exact
only, and simulating it is one line saying so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critlab.analysis.encounter.declare import ORDERS, TARGETING, Encounter
from critlab.analysis.encounter.exact import LABELS, EncounterResult, exact_encounter
from critlab.analysis.fight.sim import attack_kernel
from critlab.analysis.results import SimResult
from critlab.analysis.run import simulate_tally
from critlab.analysis.spec import SpecError
from critlab.analysis.systems.base import KernelBlock
from critlab.analysis.tally import Layout, Tally

COUNTERS = ("decided_rounds_sum", "attacks", "any_down_a", "any_down_b")


@dataclass(frozen=True)
class EncounterSim(SimResult):
    """A simulated encounter: a :class:`SimResult` (``system`` is ``encounter``) that
    carries the :class:`Encounter`."""

    encounter: Encounter | None = field(default=None, kw_only=True)


def kernel_plan(enc: Encounter) -> tuple[tuple[str, ...], Any]:
    """The kernel modules of the encounter's systems (kind ``k`` the ``k``-th) and the
    block's arguments (:data:`critlab.kernels.encounter.Args`); a SpecError naming the
    first attacker whose attack cannot be simulated here."""
    from critlab.kernels import encounter as k

    people = enc.combatants
    for c in people:
        if c.attack.is_mechanic:
            raise SpecError(
                f"{c.name}.attack",
                c.attack.reference,
                "a mechanic's attack is exact only in an encounter (no simulation yet); "
                "drop --trials, or give it a built-in system's attack",
            )
    planned = {pair: attack_kernel(spec) for pair, spec in enc.pair_specs().items()}
    modules = tuple(sorted({module for module, _ in planned.values()}))
    if len(modules) > k.MAX_KINDS:
        raise SpecError(
            "attack", len(modules), f"an encounter simulates attacks of at most {k.MAX_KINDS} systems"
        )
    n = len(people)
    kind = np.zeros(n * n, dtype=np.int64)
    slot = np.zeros(n * n, dtype=np.int64)
    pairs: list[list[Any]] = [[] for _ in range(k.MAX_KINDS)]
    for (i, j), (module, args) in planned.items():
        kind[i * n + j] = modules.index(module)
        slot[i * n + j] = len(pairs[kind[i * n + j]])
        pairs[kind[i * n + j]].append(args)
    args = k.Args(
        n=n,
        n_a=enc.n_a,
        hp=np.array([c.hp for c in people], dtype=np.int64),
        attacks=np.array([c.attacks for c in people], dtype=np.int64),
        initiative=np.array([c.initiative for c in people], dtype=np.int64),
        policy=np.array([TARGETING.index(enc.a.targeting), TARGETING.index(enc.b.targeting)], dtype=np.int64),
        order=ORDERS.index(enc.order),
        max_rounds=enc.max_rounds,
        pair_kind=kind,
        pair_slot=slot,
        # an unused kind gets a placeholder its stand-in trial never reads
        pairs0=tuple(pairs[0]) or (0,),
        pairs1=tuple(pairs[1]) or (0,),
        pairs2=tuple(pairs[2]) or (0,),
    )
    return modules, args


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
    from critlab.kernels import encounter as k

    modules, args = kernel_plan(enc)
    if exact is None:
        try:
            exact = exact_encounter(enc)
        except SpecError as exc:
            if exc.name != "encounter":  # over the chain's bound: lay out without it
                raise
    layout = encounter_layout(enc, exact)
    tally = simulate_tally(
        layout,
        KernelBlock(k.EncounterKernel(modules), layout.array, args),
        trials=trials,
        seed=seed,
        threads=threads,
        progress=progress,
        desc="encounter",
        client=client,
    )
    return EncounterSim("encounter", {}, tally, simulated_metrics(enc, tally), encounter=enc)


__all__ = ["COUNTERS", "EncounterSim", "encounter_layout", "kernel_plan", "simulate_encounter"]
