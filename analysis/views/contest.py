"""Design views of ``contest``: quick contests over skill pairs, the margin and degree of
victory, resistance rolls with and without the Rule of 16, and what rescaling does to a
regular contest."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from critlab.analysis.systems.contest import ContestSpec, _decide_probability, exact, rescale_skills


def rescale_table(spec: ContestSpec, *, skills: Iterable[int] = range(1, 21)) -> pd.DataFrame:
    """Regular contests with and without rescaling, for every pair of ``skills`` (exact).

    One row per (``a_skill``, ``b_skill``): the rescaled values, P(A wins) and the mean
    rounds of a decided contest, plain and rescaled, and the change in P(A wins). A pair
    that no round can decide (only with criticals off) has NaN in that setting.

    >>> t = rescale_table(ContestSpec(a_skill=10, b_skill=10), skills=[3, 4, 20, 23])
    >>> row = t[(t.a_skill == 20) & (t.b_skill == 23)].iloc[0]
    >>> int(row.rescaled_a), int(row.rescaled_b), bool(row.mean_rounds > row.mean_rounds_rescaled)
    (10, 12, True)
    """
    from critlab.analysis.design.sweep import sweep

    # Every pair is swept, so the base spec's own skills do not matter; 10 vs 11 is any
    # pair a regular contest accepts, whatever ``criticals`` says.
    base = spec.replace(kind="regular", a_skill=10, b_skill=11)
    skills = list(skills)
    frames = []
    for rescale in (False, True):
        for a in skills:
            decidable = [
                b
                for b in skills
                if _decide_probability(*(rescale_skills(a, b) if rescale else (a, b)), base.criticals) > 0
            ]
            if decidable:
                frames.append(sweep(base, a_skill=[a], b_skill=decidable, rescale=[rescale]))
    df = pd.concat(frames, ignore_index=True)
    df = df[df.name.isin(["a_wins", "mean_rounds", "rescaled_a", "rescaled_b"])]
    wide = df.pivot(index=["a_skill", "b_skill"], columns=["name", "rescale"], values="exact")
    out = pd.DataFrame(index=pd.MultiIndex.from_product([skills, skills], names=["a_skill", "b_skill"]))
    out["rescaled_a"] = wide[("rescaled_a", True)]
    out["rescaled_b"] = wide[("rescaled_b", True)]
    out["p_a_wins"] = wide[("a_wins", False)]
    out["p_a_wins_rescaled"] = wide[("a_wins", True)]
    out["p_a_wins_change"] = out["p_a_wins_rescaled"] - out["p_a_wins"]
    out["mean_rounds"] = wide[("mean_rounds", False)]
    out["mean_rounds_rescaled"] = wide[("mean_rounds", True)]
    return out.reset_index()


def _axes(ax, n: int, width: float):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(1, n, figsize=(width, 4.2), constrained_layout=True)
        return fig, np.atleast_1d(ax)
    axes = np.atleast_1d(ax)
    return axes[0].figure, axes


def _heatmap(ax, grid: pd.DataFrame, *, title: str, label: str, **style):
    """Draw ``grid`` (index b_skill, columns a_skill) as a heatmap with a colour bar."""
    image = ax.imshow(
        grid.to_numpy(dtype=float),
        origin="lower",
        aspect="auto",
        extent=(
            grid.columns.min() - 0.5,
            grid.columns.max() + 0.5,
            grid.index.min() - 0.5,
            grid.index.max() + 0.5,
        ),
        **style,
    )
    ax.set(xlabel="A's skill", ylabel="B's skill", title=title)
    ax.figure.colorbar(image, ax=ax, label=label)
    return image


def plot_regular_rescale(spec: ContestSpec, *, skills: Iterable[int] = range(1, 21), ax=None):
    """How rescaling changes a regular contest, for every pair of skills (exact): the
    change in P(A wins) and how many times shorter the decided contest gets."""
    from matplotlib.colors import LogNorm

    table = rescale_table(spec, skills=skills)
    fig, axes = _axes(ax, 2, 11)
    change = table.pivot(index="b_skill", columns="a_skill", values="p_a_wins_change")
    limit = max(float(np.nanmax(np.abs(change.to_numpy()))), 1e-9)
    _heatmap(
        axes[0], change, title="Rescaling: change in P(A wins) (exact)", label="rescaled − plain",
        cmap="RdBu", vmin=-limit, vmax=limit,
    )  # fmt: skip
    ratio = table.assign(r=table.mean_rounds / table.mean_rounds_rescaled).pivot(
        index="b_skill", columns="a_skill", values="r"
    )
    _heatmap(
        axes[1], ratio, title="Rescaling: mean rounds, plain / rescaled (exact)", label="times shorter",
        cmap="viridis", norm=LogNorm(vmin=max(float(np.nanmin(ratio.to_numpy())), 1e-3)),
    )  # fmt: skip
    return fig


def plot_quick_heatmap(spec: ContestSpec, *, skills: Iterable[int] = range(3, 21), ax=None):
    """Quick contests over skill pairs (exact): P(A wins) and P(tie)."""
    from critlab.analysis.design.sweep import sweep
    from critlab.analysis.style import ORDERED_CMAP

    skills = list(skills)
    df = sweep(spec.replace(kind="quick"), a_skill=skills, b_skill=skills)
    fig, axes = _axes(ax, 2, 11)
    for axis, name, title in ((axes[0], "a_wins", "P(A wins)"), (axes[1], "tie", "P(tie)")):
        grid = df[(df.kind == "outcome") & (df.name == name)].pivot(
            index="b_skill", columns="a_skill", values="exact"
        )
        _heatmap(
            axis,
            grid,
            title=f"Quick contest: {title} (exact)",
            label="probability",
            cmap=ORDERED_CMAP,
            vmin=0,
        )
    return fig


def plot_quick_margin(spec: ContestSpec, *, a_skills: Iterable[int] | None = None, ax=None):
    """Quick contests against B's skill (exact): the margin m_A − m_B and the degree of
    victory for a few skills of A (default A's skill −3, +0, +3)."""
    from critlab.analysis.style import NEUTRAL, legend_outside, ordered_colors

    a_skills = [spec.a_skill - 3, spec.a_skill, spec.a_skill + 3] if a_skills is None else list(a_skills)
    fig, axes = _axes(ax, 2, 11)
    colours = ordered_colors(a_skills)  # A's skills in order
    for a in a_skills:
        r = exact(spec.replace(kind="quick", a_skill=a))
        for axis, name in zip(axes, ("margin", "degree"), strict=True):
            d = r.distributions[name]
            axis.plot(d.values, d.probs, marker=".", color=colours[a], label=f"A {a} vs B {spec.b_skill}")
    axes[0].axvline(0, color=NEUTRAL, lw=0.5)
    axes[0].set(xlabel="m_A − m_B", ylabel="probability", title="Quick contest: margin m_A − m_B (exact)")
    axes[1].set(
        xlabel="degree of victory (0 on a tie)", ylabel="probability", title="Degree of victory (exact)"
    )
    legend_outside(axes[-1])
    return fig


def plot_resistance(
    spec: ContestSpec,
    *,
    a_skills: Iterable[int] = (14, 18, 22),
    b_skills: Iterable[int] = range(3, 25),
    ax=None,
):
    """Resistance rolls (exact): P(affected) against the resistance, with the Rule of 16
    (solid) and without it (dashed)."""
    from critlab.analysis.design.sweep import sweep

    a_skills = list(a_skills)
    df = sweep(
        spec.replace(kind="resistance"), a_skill=a_skills, b_skill=list(b_skills), rule_of_16=[True, False]
    )
    from critlab.analysis.style import legend_outside, ordered_colors

    hit = df[(df.kind == "outcome") & (df.name == "affected")]
    fig, axes = _axes(ax, 1, 6.5)
    colours = ordered_colors(a_skills)
    for a in a_skills:
        with_rule = hit[(hit.a_skill == a) & hit.rule_of_16]
        (line,) = axes[0].plot(
            with_rule.b_skill, with_rule.exact, color=colours[a], label=f"attack {a}, Rule of 16"
        )
        without = hit[(hit.a_skill == a) & ~hit.rule_of_16]
        axes[0].plot(
            without.b_skill, without.exact, ls="--", color=line.get_color(), label=f"attack {a}, no cap"
        )
    axes[0].set(
        xlabel="resistance (B's skill)", ylabel="P(affected)", title="Resistance rolls: P(affected) (exact)"
    )
    legend_outside(axes[0])
    return fig


PLOTS = {
    "quick_heatmap": plot_quick_heatmap,
    "quick_margin": plot_quick_margin,
    "resistance": plot_resistance,
    "regular_rescale": plot_regular_rescale,
}
