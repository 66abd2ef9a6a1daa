"""Design views of ``thac0``: how hit and critical chances and damage move with AC."""

from __future__ import annotations

from critlab.analysis.systems.thac0 import Thac0Spec


def plot_by_ac(spec: Thac0Spec, *, thac0_values=(20, 15, 10, 5), ac_range=range(-10, 11), ax=None):
    """Outcome shares and expected damage against target AC for a few THAC0 values (exact)."""
    import matplotlib.pyplot as plt

    from critlab.analysis.design.sweep import sweep
    from critlab.analysis.style import legend_outside, ordered_colors

    df = sweep(spec, thac0=list(thac0_values), target_ac=list(ac_range))
    colours = ordered_colors(list(thac0_values))  # THAC0 values in order
    if ax is None:
        fig, ax = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    else:
        fig = ax[0].figure
    crit = df[(df.kind == "outcome") & (df.name == "critical_hit")]
    hitting = ["hit", "critical_hit", "fumble_reroll_hit", "natural20_reduced"]
    hit = df[(df.kind == "outcome") & df.name.isin(hitting)]
    dmg = df[(df.kind == "metric") & (df.name == "expected_damage")]
    for t in thac0_values:
        h = hit[hit.thac0 == t].groupby("target_ac")["exact"].sum()
        (line,) = ax[0].plot(h.index, h.values, color=colours[t], label=f"THAC0 {t}: any hit")
        c = crit[crit.thac0 == t]
        ax[0].plot(c.target_ac, c.exact, ls="--", color=line.get_color(), label=f"THAC0 {t}: critical")
        d = dmg[dmg.thac0 == t]
        ax[1].plot(d.target_ac, d.exact, color=line.get_color(), label=f"THAC0 {t}")
    ax[0].set(xlabel="target AC", ylabel="probability", title="Hit and critical-hit chance (exact)")
    ax[1].set(
        xlabel="target AC",
        ylabel="expected damage per attack",
        title=f"Expected damage, {spec.damage}, crit {spec.crit_option} (exact)",
    )
    legend_outside(ax[0], loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2)
    legend_outside(ax[1])
    return fig


def plot_threshold_gain(spec: Thac0Spec, *, ac_range=range(-10, 11), thresholds=(19, 18), ax=None):
    """Expected-damage gain of a wider crit threshold (19–20, 18–20) over 20 alone, per AC."""
    import matplotlib.pyplot as plt

    from critlab.analysis.design.sweep import sweep
    from critlab.analysis.style import NEUTRAL, legend_outside, variant_colors

    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    else:
        fig = ax.figure
    colours = variant_colors(list(thresholds))
    df = sweep(spec, crit_threshold=[20, *thresholds], target_ac=list(ac_range))
    dmg = df[(df.kind == "metric") & (df.name == "expected_damage")].pivot(
        index="target_ac", columns="crit_threshold", values="exact"
    )
    for t in thresholds:
        ax.plot(dmg.index, dmg[t] - dmg[20], marker="o", color=colours[t], label=f"{t}–20 vs 20")
    ax.axhline(0, color=NEUTRAL, lw=0.5)
    ax.set(
        xlabel="target AC",
        ylabel="extra expected damage per attack",
        title=f"Gain of a wider crit threshold (THAC0 {spec.thac0}, exact)",
    )
    legend_outside(ax)
    return fig


PLOTS = {"by_ac": plot_by_ac, "threshold_gain": plot_threshold_gain}
