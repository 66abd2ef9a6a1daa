"""Design views of fights: tables and plots of rounds to defeat, per variant of an attack.

A *variant* is a label and the parameter changes that make it, of the attack
(``crit_range``, ``damage`` ...) or of the fight (``hp``, ``attacks_per_round``,
``max_rounds``); :func:`variants_grid` names every combination of a few axes. The
tables are computed once and the plots drawn from them, so a report section shows the
very numbers it plots::

    variants = variants_grid(crit_range=[1, 2, 3], damage=["1d6", "1d8", "2d6"])
    curves = fight_curves(spec, variants, hp=30)       # variant, round, p_rounds, p_defeated_by_round
    table = fight_summary(spec, variants, hp=30)       # one row per variant
    fig = plot_defeat_curves(curves)                   # P(defeated by round r), one curve a variant
    fig = plot_rounds(curves)                          # the rounds distribution

>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> t = fight_summary(spec, {"1d8": {}, "1d12": {"damage": "1d12"}}, hp=10)
>>> t[["variant", "median_rounds"]].to_dict("records")
[{'variant': '1d8', 'median_rounds': 4}, {'variant': '1d12', 'median_rounds': 3}]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.fight.exact import FightResult, fight
from critlab.analysis.fight.model import FIGHT_NAMES as FIGHT_PARAMS
from critlab.analysis.spec import Spec, SpecError

Variants = Mapping[str, Mapping[str, Any]]
# Curves are drawn up to the round by which every variant is this nearly decided.
SHOWN_MASS = 1 - 1e-4


def variants_grid(**axes: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Every combination of the axes' values as a variant, labelled by its values.

    >>> variants_grid(crit_range=[1, 2], damage=["1d8"])
    {'crit_range 1, damage 1d8': {'crit_range': 1, 'damage': '1d8'}, 'crit_range 2, damage 1d8': {'crit_range': 2, 'damage': '1d8'}}
    """  # noqa: E501
    names = list(axes)
    out = {}
    for combo in itertools.product(*(list(v) for v in axes.values())):
        changes = dict(zip(names, combo, strict=True))
        out[", ".join(f"{k} {v}" for k, v in changes.items())] = changes
    return out


def fight_results(
    spec: Spec,
    variants: Variants | None = None,
    *,
    hp: int,
    attacks_per_round: int = 1,
    max_rounds: int = 1000,
) -> dict[str, FightResult]:
    """The exact fight of each variant (``None``: ``spec`` alone, labelled ``attack``)."""
    variants = {"attack": {}} if variants is None else variants
    if not variants:
        raise SpecError("variants", variants, "needs at least one variant")
    base = {"hp": hp, "attacks_per_round": attacks_per_round, "max_rounds": max_rounds}
    out = {}
    for label, changes in variants.items():
        attack = {k: v for k, v in changes.items() if k not in FIGHT_PARAMS}
        fight_params = {**base, **{k: v for k, v in changes.items() if k in FIGHT_PARAMS}}
        out[str(label)] = fight(spec.replace(**attack) if attack else spec, **fight_params)
    return out


def _shown_rounds(results: Mapping[str, FightResult], last_round: int | None) -> int:
    if last_round is not None:
        return int(last_round)
    shown = 1
    for r in results.values():
        cum = np.cumsum(r.distributions["rounds"].probs)
        first = r.distributions["rounds"].offset
        reached = np.flatnonzero(cum >= SHOWN_MASS * cum[-1])
        shown = max(shown, first + int(reached[0]) if reached.size else r.distributions["rounds"].max)
    return shown


def fight_curves(
    spec: Spec,
    variants: Variants | None = None,
    *,
    hp: int,
    attacks_per_round: int = 1,
    max_rounds: int = 1000,
    last_round: int | None = None,
) -> pd.DataFrame:
    """Rounds to defeat, per variant and round (exact): a tidy DataFrame with columns
    ``variant``, ``round`` (1 .. ``last_round``; default: until every variant is decided
    but 1e-4), ``p_rounds`` (P(the fight lasts exactly r rounds), undecided fights
    included at ``max_rounds``) and ``p_defeated_by_round``."""
    results = fight_results(spec, variants, hp=hp, attacks_per_round=attacks_per_round, max_rounds=max_rounds)
    shown = _shown_rounds(results, last_round)
    rows = []
    for label, r in results.items():
        rounds = r.distributions["rounds"]
        for n in range(1, shown + 1):
            rows.append(
                {
                    "variant": label,
                    "round": n,
                    "p_rounds": rounds.pmf(n),
                    "p_defeated_by_round": r.p_defeated_by(n),
                }
            )
    return pd.DataFrame(rows)


def fight_summary(
    spec: Spec,
    variants: Variants | None = None,
    *,
    hp: int,
    attacks_per_round: int = 1,
    max_rounds: int = 1000,
) -> pd.DataFrame:
    """One row per variant: its fight parameters, ``defeated``, ``undecided``, the fight's
    metrics and ``mean_overkill`` (exact)."""
    results = fight_results(spec, variants, hp=hp, attacks_per_round=attacks_per_round, max_rounds=max_rounds)
    rows = []
    for label, r in results.items():
        rows.append(
            {
                "variant": label,
                **r.fight.to_json(),
                **r.outcomes,
                **r.metrics,
                "mean_overkill": r.distributions["overkill"].mean,
            }
        )
    return pd.DataFrame(rows)


def _axes(ax: Any, size: tuple[float, float] = (7, 4)) -> tuple[Any, Any]:
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=size, constrained_layout=True)
        return fig, ax
    return ax.figure, ax


def plot_defeat_curves(curves: pd.DataFrame, *, ax: Any = None, title: str | None = None) -> Any:
    """P(defeated by round r) against r, one step curve per variant (from
    :func:`fight_curves`), with the median's 0.5 marked; returns the figure."""
    fig, ax = _axes(ax)
    for label, c in curves.groupby("variant", sort=False):
        ax.step(c["round"], c["p_defeated_by_round"], where="post", marker=".", label=str(label))
    ax.axhline(0.5, color="grey", lw=0.6, ls=":")
    ax.set(
        xlabel="round",
        ylabel="P(defeated by round r)",
        ylim=(0, 1.02),
        title=title or "Rounds to defeat (exact)",
    )
    ax.xaxis.get_major_locator().set_params(integer=True)
    if curves["variant"].nunique() > 1:
        ax.legend(fontsize="small", ncols=2 if curves["variant"].nunique() > 5 else 1)
    return fig


def plot_rounds(
    curves: pd.DataFrame,
    *,
    ax: Any = None,
    title: str | None = None,
    simulated: Mapping[str, Any] | None = None,
) -> Any:
    """The ``rounds`` distribution: bars for one variant, lines with markers for several
    (from :func:`fight_curves`). ``simulated`` ({variant: a simulated fight}) adds each
    simulation's frequencies as crosses; returns the figure."""
    fig, ax = _axes(ax)
    groups = list(curves.groupby("variant", sort=False))
    for label, c in groups:
        if len(groups) == 1:
            ax.bar(c["round"], c["p_rounds"], color="C0", alpha=0.7, label="exact")
        else:
            ax.plot(c["round"], c["p_rounds"], marker="o", ms=3, label=str(label))
        sim = (simulated or {}).get(label)
        if sim is not None:
            freq = sim.tally.hists["rounds"].frequencies(sim.trials)
            shown = [(r, f) for r, f in freq.items() if r <= c["round"].max()]
            if shown:
                xs, ys = zip(*shown, strict=True)
                ax.plot(xs, ys, "x", color="k", ms=4, label=f"simulated ({sim.trials:,} fights)")
    ax.set(xlabel="rounds played", ylabel="probability", title=title or "Length of the fight (exact)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize="small")
    return fig


__all__ = [
    "fight_curves",
    "fight_results",
    "fight_summary",
    "plot_defeat_curves",
    "plot_rounds",
    "variants_grid",
]
