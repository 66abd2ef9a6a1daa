"""Design views of ``severity``: wound levels by SM, armor and mode, the mismatch curve
(how a skill gap moves the wounds), and a Calling's wounds by MAGIC."""

from __future__ import annotations

import numpy as np
import pandas as pd

from critlab.analysis.style import legend_outside, ordered_colors, variant_colors
from critlab.analysis.systems.severity import MODES, SeveritySpec, calling_sm, labels


def wound_table(
    spec: SeveritySpec,
    *,
    modes: tuple[str, ...] = MODES,
    sms: range | tuple[int, ...] = range(4),
    armors: range | tuple[int, ...] = range(4),
    skill_gaps: tuple[int, ...] = (0, 3),
) -> pd.DataFrame:
    """Wound-level distribution by SM × armor × mode at each attacker − defender skill
    gap (the defender keeps ``spec.defender_skill``), as a tidy DataFrame with columns
    ``mode, skill_gap, attacker_skill, defender_skill, sm, armor, wound, probability``.

    >>> df = wound_table(SeveritySpec(), modes=("lethal",), sms=(0, 3), armors=(0,), skill_gaps=(0,))
    >>> df.groupby("sm")["probability"].sum().round(9).tolist()
    [1.0, 1.0]
    """
    from critlab.analysis.design.sweep import sweep

    base = spec.replace(magic=None)
    d = spec.defender_skill
    df = sweep(
        base, mode=list(modes), attacker_skill=[d + g for g in skill_gaps], sm=list(sms), armor=list(armors)
    )
    out = df[df.kind == "outcome"].rename(columns={"name": "wound", "exact": "probability"})
    out = out.assign(defender_skill=d, skill_gap=out.attacker_skill - d)
    cols = ["mode", "skill_gap", "attacker_skill", "defender_skill", "sm", "armor", "wound", "probability"]
    return out[cols].reset_index(drop=True)


def plot_wounds(
    spec: SeveritySpec,
    *,
    modes: tuple[str, ...] = MODES,
    sms: range | tuple[int, ...] = range(4),
    armors: range | tuple[int, ...] = range(4),
    skill_gaps: tuple[int, ...] = (0, 3),
    ax=None,
):
    """Stacked bars of the wound-level distribution for each SM × armor, one panel per
    mode (columns) and skill gap (rows); ``ax`` is a 2-D array of axes of that shape."""
    import matplotlib.pyplot as plt

    df = wound_table(spec, modes=modes, sms=sms, armors=armors, skill_gaps=skill_gaps)
    if ax is None:
        fig, ax = plt.subplots(
            len(skill_gaps), len(modes), figsize=(5 * len(modes), 3.6 * len(skill_gaps)),
            squeeze=False, constrained_layout=True, sharey=True,
        )  # fmt: skip
    else:
        ax = np.asarray(ax).reshape(len(skill_gaps), len(modes))
        fig = ax[0, 0].figure
    labs = labels(spec)
    colours = list(ordered_colors(labs).values())  # the ladder in order, light to dark
    for i, gap in enumerate(skill_gaps):
        for j, mode in enumerate(modes):
            a = ax[i, j]
            part = df[(df["mode"] == mode) & (df.skill_gap == gap)]
            table = part.pivot_table(index=["sm", "armor"], columns="wound", values="probability", sort=False)
            table = table[list(labs)]
            x = np.arange(len(table))
            bottom = np.zeros(len(table))
            for lab, colour in zip(labs, colours, strict=True):
                a.bar(x, table[lab].to_numpy(), bottom=bottom, color=colour, label=lab, width=0.85)
                bottom += table[lab].to_numpy()
            a.set_xticks(x, [f"{s}/{r}" for s, r in table.index], rotation=90, fontsize="x-small")
            a.set(
                xlabel="SM / armor",
                ylabel="probability",
                title=f"{mode}, skills {spec.defender_skill + gap} vs {spec.defender_skill} (exact)",
            )
    ax[0, -1].legend(fontsize="small", title="wound", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def mismatch_table(
    spec: SeveritySpec, *, modes: tuple[str, ...] = MODES, gaps: range | tuple[int, ...] = range(-10, 21)
) -> pd.DataFrame:
    """P(top wound level) against the skill gap (attacker − defender) per mode, with the
    spec's SM and armor: columns ``mode, skill_gap, p_top, p_success``.

    >>> t = mismatch_table(SeveritySpec(), modes=("lethal",), gaps=(-20, 0, 20))
    >>> bool(t.p_top.is_monotonic_increasing and (t.p_top > 0).all())
    True
    """
    from critlab.analysis.design.sweep import sweep

    top = labels(spec)[-1]
    d = spec.defender_skill
    df = sweep(spec, mode=list(modes), attacker_skill=[d + g for g in gaps])
    p_top = df[(df.kind == "outcome") & (df.name == top)].set_index(["mode", "attacker_skill"])["exact"]
    p_success = df[(df.kind == "metric") & (df.name == "p_success")].set_index(["mode", "attacker_skill"])[
        "exact"
    ]
    out = pd.DataFrame({"p_top": p_top, "p_success": p_success}).reset_index()
    out.insert(1, "skill_gap", out.pop("attacker_skill") - d)
    return out


def plot_mismatch(
    spec: SeveritySpec,
    *,
    modes: tuple[str, ...] = MODES,
    gaps: range | tuple[int, ...] = range(-10, 21),
    ax=None,
):
    """The mismatch curve: P(top wound) against the skill gap, per mode, on a log scale
    (can a weak weapon kill, and how often)."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    else:
        fig = ax.figure
    table = mismatch_table(spec, modes=modes, gaps=gaps)
    top = labels(spec)[-1]
    colours = variant_colors(modes)
    for mode in modes:
        part = table[table["mode"] == mode]
        ax.semilogy(part.skill_gap, part.p_top, marker="o", ms=3, label=mode, color=colours[mode])
    ax.set(
        xlabel="skill gap (attacker − defender)",
        ylabel=f"P({top})",
        title=f"Mismatch: P({top}) with SM {spec.effective_sm}, armor {spec.armor} (exact)",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return fig


def wound_or_worse_table(
    spec: SeveritySpec, *, modes: tuple[str, ...] = MODES, gaps: range | tuple[int, ...] = range(-10, 21)
) -> pd.DataFrame:
    """P(each wound level or worse) against the skill gap (attacker − defender; the
    defender keeps ``spec.defender_skill``), per mode, with the spec's SM, armor and
    ladder (exact): columns ``mode, skill_gap, attacker_skill, wound, p_or_worse``, one
    row per level above ``none``, in ladder order.

    >>> t = wound_or_worse_table(SeveritySpec(), modes=("lethal",), gaps=(0, 4))
    >>> t.pivot(index="wound", columns="skill_gap", values="p_or_worse").loc[["graze", "mort"]].round(3)
    skill_gap      0      4
    wound
    graze      0.477  0.644
    mort       0.114  0.199
    """
    from critlab.analysis.design.sweep import sweep

    levels = labels(spec)[1:]
    d = spec.defender_skill
    df = sweep(spec, mode=list(modes), attacker_skill=[d + g for g in gaps])
    wide = df[df.kind == "outcome"].pivot_table(
        index=["mode", "attacker_skill"], columns="name", values="exact", sort=False
    )
    # a level or worse: the sum from that level to the top of the ladder
    worse = wide[list(levels)].iloc[:, ::-1].cumsum(axis=1).iloc[:, ::-1]
    # rows in the sweep's order (mode, then attacker skill), each with the ladder in order
    out = worse.stack(future_stack=True).rename("p_or_worse").reset_index(name="p_or_worse")
    out = out.rename(columns={"name": "wound"})
    out.insert(1, "skill_gap", out.attacker_skill - d)
    return out.reset_index(drop=True)


def plot_wound_or_worse(
    spec: SeveritySpec,
    *,
    modes: tuple[str, ...] = MODES,
    gaps: range | tuple[int, ...] = range(-10, 21),
    log: bool = False,
    ax=None,
):
    """The severity mismatch view: P(each wound or worse) against the skill gap, one
    panel per mode, the ladder in an ordered palette (light: a graze or worse, dark: the
    top level); ``log`` puts the probabilities on a log scale (rare wounds at negative
    gaps). ``ax``: one axis per mode."""
    import matplotlib.pyplot as plt

    table = wound_or_worse_table(spec, modes=modes, gaps=gaps)
    if ax is None:
        fig, ax = plt.subplots(
            1,
            len(modes),
            figsize=(4.2 * len(modes) + 1.6, 4),
            sharey=True,
            squeeze=False,
            layout="constrained",
        )
    axes = np.asarray(ax).ravel()
    fig = axes[0].figure
    levels = labels(spec)[1:]
    colours = ordered_colors(levels)
    for a, mode in zip(axes, modes, strict=True):
        part = table[table["mode"] == mode]
        for level in levels:
            line = part[part.wound == level]
            a.plot(line.skill_gap, line.p_or_worse, color=colours[level], marker="o", ms=2.5, label=level)
        a.axvline(0, color="#9a9a9a", lw=0.6)
        a.set(xlabel="skill gap (attacker − defender)", title=f"{mode} (exact)")
        if log:
            a.set_yscale("log")
        a.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("P(wound or worse)")
    setting = f"defender {spec.defender_skill}, SM {spec.effective_sm}, armor {spec.armor}"
    fig.suptitle(f"Wound or worse by skill gap: {setting}")
    legend_outside(axes[-1], title="this wound or worse")
    return fig


def calling_table(
    spec: SeveritySpec, *, magic_values: range | tuple[int, ...] = range(1, 21)
) -> pd.DataFrame:
    """The seed's MAGIC → SM table applied to a damaging Calling: one row per MAGIC with
    its SM and the exact wound-level probabilities of the spec's contest.

    >>> t = calling_table(SeveritySpec(), magic_values=(1, 6, 11, 16))
    >>> t.calling_sm.tolist()
    [0, 1, 2, 3]
    """
    from critlab.analysis.design.sweep import sweep

    df = sweep(spec.replace(sm=0), magic=list(magic_values))
    wide = df[df.kind == "outcome"].pivot(index="magic", columns="name", values="exact")[list(labels(spec))]
    wide.columns.name = None
    wide.insert(0, "calling_sm", [calling_sm(int(m)) for m in wide.index])
    return wide.reset_index()


def plot_callings(spec: SeveritySpec, *, magic_values: range | tuple[int, ...] = range(1, 21), ax=None):
    """Stacked bars of a Calling's wound-level distribution against the Caller's MAGIC."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 4.5), constrained_layout=True)
    else:
        fig = ax.figure
    table = calling_table(spec, magic_values=magic_values)
    labs = labels(spec)
    colours = list(ordered_colors(labs).values())  # the ladder in order, light to dark
    bottom = np.zeros(len(table))
    for lab, colour in zip(labs, colours, strict=True):
        ax.bar(table.magic, table[lab], bottom=bottom, color=colour, label=lab)
        bottom += table[lab].to_numpy()
    ax.set_xticks(table.magic)
    ax.set(
        xlabel="Caller's MAGIC (SM = 0, 1, 2, 3 by fives)",
        ylabel="probability",
        title=f"Calling wounds by MAGIC, {spec.mode}, {spec.attacker_skill} vs {spec.defender_skill} (exact)",
    )
    ax.legend(fontsize="small", title="wound", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


PLOTS = {
    "wounds": plot_wounds,
    "mismatch": plot_mismatch,
    "wound_or_worse": plot_wound_or_worse,
    "callings": plot_callings,
}
