"""Simulated fights: each trial one fight, every attack rolled die by die by the system's
own per-trial kernel (see :mod:`critlab.kernels.fight`), tallied like every simulation.

The tally has the exact fight's labels and its ``rounds`` and ``overkill`` histograms over
the exact supports (anything beyond lands in their ``tail`` bins), so the simulation is
held against :func:`critlab.analysis.fight.exact.fight` by the one validator,
:func:`critlab.analysis.validate.validate`. Same seed, same counts on any thread count or
cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critlab.analysis.fight.exact import LABELS, Fight, FightResult, attack_damage, fight
from critlab.analysis.results import SimResult
from critlab.analysis.run import RunOptions, assemble
from critlab.analysis.spec import Spec, SpecError, system_of
from critlab.analysis.systems.base import KernelBlock
from critlab.analysis.tally import Layout, Tally
from critlab.kernels import fight as k
from critlab.kernels.vocab import words
from critlab.kernels.vocab.dice import simple_only

# Without an exact fight to lay out by (one over the work bound), the rounds histogram
# spans at most this many rounds; later ones are still counted, in its tail bin.
FALLBACK_ROUNDS = 100_000


@dataclass(frozen=True)
class FightSim(SimResult):
    """A simulated fight: a :class:`SimResult` (``params`` are the attack's) that also
    carries the :class:`~critlab.analysis.fight.exact.Fight`."""

    fight: Fight | None = field(default=None, kw_only=True)


def attack_kernel(spec: Spec) -> tuple[str, tuple]:
    """The kernel module of ``spec``'s system (the module of its block kernel, which
    defines its per-trial ``trial``) and the kernel arguments of ``spec``'s attack; a
    SpecError when that system has no per-trial kernel function to fight with."""
    sim = system_of(spec).simulator
    if sim is None:
        raise SpecError("system", spec.system, "has no per-attack kernel yet: its fights are exact only")
    module = getattr(getattr(sim.block, "py_func", sim.block), "__module__", "")
    try:
        k.trial_of(module)
    except (TypeError, ImportError) as exc:
        raise SpecError("system", spec.system, f"cannot simulate fights: {exc}") from None
    return module, sim.args(spec)


def fight_layout(exact: FightResult | None, damage_max: int, fight_: Fight) -> Layout:
    """The tally layout: the labels, ``rounds`` and ``overkill`` over the exact supports
    (without an exact result, over every round up to :data:`FALLBACK_ROUNDS` and every
    overkill a round's represented damage allows), and the kernel's counters."""
    if exact is not None:
        hists = {name: (d.min, d.max) for name, d in exact.distributions.items()}
    else:
        top = max(1, damage_max * fight_.attacks_per_round - 1)
        hists = {"rounds": (1, min(fight_.max_rounds, FALLBACK_ROUNDS)), "overkill": (0, top)}
    assert words(k.Outcome) == LABELS and tuple(hists) == words(k.Hist)
    return Layout(LABELS, hists, counters=words(k.Counter))


def simulated_by_round(tally: Tally, max_rounds: int, r: int) -> float:
    """P(defeated by round ``r``) estimated from the tally: the rounds histogram's share up
    to ``r`` while ``r`` is below ``max_rounds`` (every fight that ended earlier was
    defeated), the defeated share from ``max_rounds`` on."""
    if r >= max_rounds:
        return int(tally.counts[0]) / tally.trials
    hist = tally.hists["rounds"]
    return float(hist.counts[: max(0, r - hist.offset + 1)].sum()) / tally.trials


def simulated_metrics(tally: Tally, max_rounds: int) -> dict[str, Any]:
    """The fight's metrics estimated from the tally (the exact metrics' names)."""
    n = tally.trials
    defeated = int(tally.counts[0])
    hist = tally.hists["rounds"]
    median = None
    if defeated / n >= 0.5:
        cum = np.cumsum(hist.counts) / n
        hit = np.flatnonzero((cum >= 0.5) & (hist.values < max_rounds))
        median = int(hist.values[hit[0]]) if hit.size else max_rounds
    metrics: dict[str, Any] = {
        "mean_rounds": tally.counters["defeated_rounds_sum"] / defeated if defeated else None,
        "median_rounds": median,
    }
    for r in (1, 2, 3):
        metrics[f"p_defeated_by_round_{r}"] = simulated_by_round(tally, max_rounds, r)
    return metrics


def simulate_fight(
    spec: Spec,
    *,
    hp: int,
    attacks_per_round: int = 1,
    max_rounds: int = 1000,
    trials: int,
    seed: Any = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
    exact: FightResult | None = None,
) -> FightSim:
    """Simulate ``trials`` fights of ``spec``'s attack against ``hp`` hit points.

    Parameters
    ----------
    spec, hp, attacks_per_round, max_rounds
        As for :func:`critlab.analysis.fight.exact.fight`.
    trials, seed, threads, progress, client
        As for every simulation (``RuleSystem.simulate``): the counts depend on the seed
        only, never on ``threads`` or the Dask ``client``.
    exact
        The exact fight of the same spec, when already computed (it lays out the tally);
        computed here otherwise, and done without where the exact fight is refused.

    Examples
    --------
    >>> from critlab.analysis.systems import get_system
    >>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    >>> sim = simulate_fight(spec, hp=10, trials=20_000, seed=1, progress=False)
    >>> sim.labels, 4 <= sim.metrics["median_rounds"] <= 5
    (('defeated', 'undecided'), True)
    """
    f = Fight(hp=hp, attacks_per_round=attacks_per_round, max_rounds=max_rounds)
    damage = attack_damage(spec)
    module, attack = attack_kernel(spec)
    args = k.Args(
        attack=simple_only(attack), hp=f.hp, attacks_per_round=f.attacks_per_round, max_rounds=f.max_rounds
    )
    if exact is None:
        try:
            exact = fight(spec, **f.to_json())
        except SpecError as exc:
            if exc.name != "hp":  # over the work or precision bound: lay out without it
                raise
    layout = fight_layout(exact, damage.max, f)
    return assemble(
        layout,
        KernelBlock(k.FightKernel(module), layout.array, args),
        RunOptions(trials=trials, seed=seed, threads=threads, progress=progress, client=client),
        desc=f"{spec.system} fight",
        metrics=lambda tally: simulated_metrics(tally, f.max_rounds),
        system=spec.system,
        params=spec.params(),
        result=FightSim,
        kernel=k.block_for(module),  # said on stderr while it compiles
        fight=f,
    )


__all__ = [
    "FightSim",
    "attack_kernel",
    "fight_layout",
    "simulate_fight",
    "simulated_by_round",
    "simulated_metrics",
]
