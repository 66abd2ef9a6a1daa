"""Design views of ``crits-cats``: where majors become common, casting cost, the
Fireball's resisters and combat, as exact tables and plots."""

from __future__ import annotations

import numpy as np
import pandas as pd

from critlab.analysis.spec import SpecError
from critlab.analysis.systems.crits_cats import (
    LABELS,
    NATURALS,
    SYSTEM,
    CritsCatsSpec,
    challenge_classes,
    exact,
)
from critlab.analysis.systems.d20 import ROLL_MODES, natural_probs

# -- design questions: tables ---------------------------------------------------------------
EXTREMES = ("major_catastrophe", "minor_catastrophe", "minor_critical", "major_critical")


def _outcome_table(df: pd.DataFrame, index: str) -> pd.DataFrame:
    table = df[df.kind == "outcome"].pivot(index=index, columns="name", values="exact")[list(LABELS)]
    table["major"] = table["major_catastrophe"] + table["major_critical"]
    table["extreme"] = table[list(EXTREMES)].sum(axis=1)
    table.columns.name = None
    return table


def extremes_by_skill_difference(spec: CritsCatsSpec, differences=range(-20, 21)) -> pd.DataFrame:
    """Versus class probabilities against skill − opposing_skill (exact), with the
    ``major`` and ``extreme`` (any critical or catastrophe) shares; one row per difference.

    A spec in another mode is read as a versus challenge against an equal opponent's skill.

    >>> t = extremes_by_skill_difference(CritsCatsSpec(skill=0, opposing_skill=0), [-3, 0, 3])
    >>> (t["major"] * 400).round(6).tolist()
    [5.0, 0.0, 5.0]
    """
    from critlab.analysis.design.sweep import sweep

    base = _as_versus(spec)
    df = sweep(base, skill=[base.opposing_skill + d for d in differences])
    df["skill_difference"] = df["skill"] - base.opposing_skill
    return _outcome_table(df, "skill_difference")


def majors_become_common(
    spec: CritsCatsSpec, threshold: float = 0.01, max_difference: int = 40
) -> int | None:
    """The smallest |skill difference| at which P(major critical or catastrophe) in a
    versus challenge exceeds ``threshold`` (either side ahead); None if none up to
    ``max_difference``.

    >>> majors_become_common(CritsCatsSpec(skill=0, opposing_skill=0))   # 5/400 at ±3
    3
    """
    table = extremes_by_skill_difference(spec, range(-max_difference, max_difference + 1))
    common = table.index[table["major"] > threshold]
    return int(np.abs(common).min()) if len(common) else None


def extremes_by_skill(spec: CritsCatsSpec, skills=None) -> pd.DataFrame:
    """21 Challenge class probabilities against skill (exact), one row per skill; by
    default skills from ``target − 31`` to ``target + 19`` (majors need a 20-point margin).

    >>> t = extremes_by_skill(CritsCatsSpec(mode="challenge", skill=0), [0, 10, 21])
    >>> t.loc[[0, 21], ["major_catastrophe", "major_critical"]].to_numpy().tolist()
    [[0.05, 0.0], [0.0, 0.05]]
    """
    from critlab.analysis.design.sweep import sweep

    base = spec.replace(mode="challenge")
    if skills is None:
        skills = range(base.target - 31, base.target + 20)
    return _outcome_table(sweep(base, skill=list(skills)), "skill")


def cost_by_skill(spec: CritsCatsSpec, skills=range(-5, 31)) -> pd.DataFrame:
    """Expected casting-cost multiplier and the caster's class probabilities against
    casting skill (exact), one row per skill.

    >>> t = cost_by_skill(CritsCatsSpec(mode="spell", skill=10, resistance=10), [10, 21])
    >>> t["cost"].round(4).tolist()     # 1.5 and 0.5 balance; at 21 a natural 20 is a major
    [1.0, 0.975]
    """
    from critlab.analysis.design.sweep import sweep

    base = _as_spell(spec)
    df = sweep(base, skill=list(skills))
    table = _outcome_table(df, "skill")
    metric = df[(df.kind == "metric") & (df.name == "expected_cost_multiplier")].set_index("skill")["exact"]
    table["cost"] = metric
    return table


def resisters_table(spec: CritsCatsSpec, resisters=range(1, 7)) -> pd.DataFrame:
    """P(at least one resister gets each class) against the number of resisters (exact):
    the seed's Fireball, cast into a crowd. One row per count, one column per class,
    plus ``p_affected`` (one resister).

    >>> t = resisters_table(CritsCatsSpec(mode="spell", skill=10, resistance=10), [1, 6])
    >>> round(float(t.loc[6, "minor_critical"]), 4)    # 1 - (19/20)**6: some resister rolls a 20
    0.2649
    """
    from critlab.analysis.design.sweep import sweep

    df = sweep(_as_spell(spec), resisters=list(resisters))
    m = df[df.kind == "metric"].pivot(index="resisters", columns="name", values="exact")
    table = m[[f"p_any_resister_{lab}" for lab in LABELS] + ["p_affected"]]
    table.columns = [*LABELS, "p_affected"]
    return table


def caster_resister_table(spec: CritsCatsSpec) -> pd.DataFrame:
    """Joint probabilities of the caster's class (rows) and one resister's class
    (columns), exact: the seed's point that both results stand independently.

    >>> t = caster_resister_table(CritsCatsSpec(mode="spell", skill=10, resistance=10))
    >>> round(float(t.loc["minor_critical", "minor_critical"] * 400), 12)   # both roll a natural 20
    1.0
    """
    base = _as_spell(spec)
    caster = challenge_classes(base, base.target, NATURALS, base.skill)
    resister = challenge_classes(base, (NATURALS + base.skill)[:, None], NATURALS[None, :], base.resistance)
    # each pair of kept naturals weighted by the two roll modes' laws
    weight = np.outer(natural_probs(base.roll), natural_probs(base.opposing_roll))
    joint = np.zeros((len(LABELS), len(LABELS)))
    np.add.at(joint, (np.broadcast_to(caster[:, None], resister.shape), resister), weight)
    return pd.DataFrame(
        joint, index=pd.Index(LABELS, name="caster"), columns=pd.Index(LABELS, name="resister")
    )


def extremes_by_roll_mode(spec: CritsCatsSpec, differences=range(-20, 21)) -> pd.DataFrame:
    """P(any critical), P(any catastrophe) and the majors' shares of a versus initiator
    against skill difference, for each of the initiator's roll modes (the responder's as
    in ``spec``), exact: one row per difference, columns ``(roll, quantity)`` with
    quantity ``critical``, ``catastrophe``, ``major_critical`` or ``major_catastrophe``.

    >>> t = extremes_by_roll_mode(CritsCatsSpec(skill=0, opposing_skill=0, responder_naturals="ignore"), [0])
    >>> [round(float(t.loc[0, (r, "critical")]) * 400) for r in ("normal", "advantage", "disadvantage")]
    [20, 39, 1]
    """
    columns = {}
    for roll in ROLL_MODES:
        table = extremes_by_skill_difference(spec.replace(roll=roll), differences)
        columns[(roll, "critical")] = table["minor_critical"] + table["major_critical"]
        columns[(roll, "catastrophe")] = table["minor_catastrophe"] + table["major_catastrophe"]
        columns[(roll, "major_critical")] = table["major_critical"]
        columns[(roll, "major_catastrophe")] = table["major_catastrophe"]
    return pd.DataFrame(columns)


def combat_table(spec: CritsCatsSpec) -> pd.DataFrame:
    """Damage and backlash distributions of one attack (exact), tidy: ``quantity``,
    ``value``, ``probability``; needs ``damage`` dice.

    >>> t = combat_table(CritsCatsSpec(skill=0, opposing_skill=0, damage="1d6"))
    >>> t[(t.quantity == "damage") & (t.value == 6)].probability.round(5).tolist()   # a 6, or a minor crit
    [0.15625]
    """
    r = exact(_as_combat(spec))
    rows = [
        (name, v, p)
        for name in ("damage", "backlash")
        for v, p in r.distributions[name].to_dict(tail=True).items()
    ]
    return pd.DataFrame(rows, columns=["quantity", "value", "probability"])


def _as_versus(spec: CritsCatsSpec) -> CritsCatsSpec:
    opp = spec.skill if spec.opposing_skill is None else spec.opposing_skill
    return spec.replace(mode="versus", opposing_skill=opp)


def _as_spell(spec: CritsCatsSpec) -> CritsCatsSpec:
    res = spec.skill if spec.resistance is None else spec.resistance
    return spec.replace(mode="spell", resistance=res)


def _as_combat(spec: CritsCatsSpec) -> CritsCatsSpec:
    base = _as_versus(spec)
    if base.damage is None:
        raise SpecError("damage", None, "combat needs damage dice, e.g. 1d8")
    return base


# -- design questions: plots ----------------------------------------------------------------
def _axes(ax, ncols: int = 1, width: float = 6.5):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(1, ncols, figsize=(width, 4), constrained_layout=True)
        return fig, ax
    return (ax[0] if ncols > 1 else ax).figure, ax


def _plot_extremes(table: pd.DataFrame, ax, threshold: float | None = None) -> None:
    from critlab.analysis.style import NEUTRAL, legend_outside, outcome_colors

    # the classes in order, worst to best: catastrophes warm, criticals cool
    for lab, color in outcome_colors(EXTREMES, SYSTEM.polarity_of(EXTREMES)).items():
        ls = "-" if lab.startswith("major") else "--"
        ax.plot(table.index, table[lab], ls=ls, color=color, marker=".", label=lab.replace("_", " "))
    if threshold is not None:
        ax.axhline(threshold, color=NEUTRAL, lw=0.7, ls=":", label=f"{threshold:.0%}")
    ax.set_ylabel("probability")
    legend_outside(ax)


def plot_versus_extremes(
    spec: CritsCatsSpec, *, differences=range(-20, 21), threshold: float = 0.01, ax=None
):
    """P(minor / major critical / catastrophe) against skill difference in a Versus
    Challenge (exact), with where majors first exceed ``threshold``."""
    fig, ax = _axes(ax)
    table = extremes_by_skill_difference(spec, differences)
    _plot_extremes(table, ax, threshold)
    common = majors_become_common(spec, threshold, max(abs(d) for d in differences))
    where = "never" if common is None else f"from |difference| {common}"
    ax.set(
        xlabel="skill − opposing skill",
        title=f"Versus: crits and cats by mismatch; majors > {threshold:.0%} {where} (exact)",
    )
    return fig


def plot_roll_modes(spec: CritsCatsSpec, *, differences=range(-20, 21), ax=None):
    """The initiator's three roll modes in a Versus Challenge (exact): P(any critical)
    and P(any catastrophe), which do not depend on the skill difference, and the major
    criticals and catastrophes against skill difference."""
    from critlab.analysis.style import legend_outside, variant_colors

    fig, ax = _axes(ax, ncols=2, width=11)
    table = extremes_by_roll_mode(spec, differences)
    colors = tuple(variant_colors(ROLL_MODES).values())
    at = table.index[len(table) // 2]
    x = np.arange(len(ROLL_MODES))
    for offset, what in ((-0.2, "critical"), (0.2, "catastrophe")):
        heights = [table.loc[at, (roll, what)] for roll in ROLL_MODES]
        hatch = "//" if what == "catastrophe" else None
        ax[0].bar(x + offset, heights, width=0.4, color=colors, hatch=hatch, edgecolor="white")
    ax[0].set_xticks(x, [f"{roll}\ncritical | catastrophe" for roll in ROLL_MODES], fontsize="small")
    ax[0].set(ylabel="probability", title=f"Any critical or catastrophe at difference {at} (exact)")
    for roll, color in zip(ROLL_MODES, colors, strict=True):
        ax[1].plot(table.index, table[(roll, "major_critical")], color=color, label=f"{roll}: major critical")
        ax[1].plot(
            table.index,
            table[(roll, "major_catastrophe")],
            color=color,
            ls="--",
            label=f"{roll}: major catastrophe",
        )
    ax[1].set(
        xlabel="skill − opposing skill", ylabel="probability", title="Majors by skill difference (exact)"
    )
    legend_outside(ax[1])
    responder = _as_versus(spec).opposing_roll
    fig.suptitle(f"Versus: the initiator's roll mode, the responder's roll {responder}")
    return fig


def plot_challenge_extremes(spec: CritsCatsSpec, *, skills=None, ax=None):
    """P(minor / major critical / catastrophe) against skill in a 21 Challenge (exact)."""
    fig, ax = _axes(ax)
    table = extremes_by_skill(spec, skills)
    _plot_extremes(table, ax)
    ax.set(xlabel="skill", title=f"21 Challenge (target {spec.target}): crits and cats by skill (exact)")
    return fig


def plot_casting_cost(spec: CritsCatsSpec, *, skills=range(-5, 31), ax=None):
    """Expected casting-cost multiplier against casting skill (exact)."""
    from critlab.analysis.style import NEUTRAL, QUALITATIVE

    fig, ax = _axes(ax)
    table = cost_by_skill(spec, skills)
    ax.plot(table.index, table["cost"], marker=".", color=QUALITATIVE[0])
    ax.axhline(1.0, color=NEUTRAL, lw=0.7, ls=":")
    ax.set(
        xlabel="casting skill",
        ylabel="expected casting-cost multiplier",
        title=f"Spell casting cost against skill, target {spec.target} (exact)",
    )
    return fig


def plot_resisters(spec: CritsCatsSpec, *, resisters=range(1, 7), ax=None):
    """P(at least one resister gets each class) against the number of resisters (exact)."""
    from critlab.analysis.style import legend_outside, outcome_colors

    fig, ax = _axes(ax)
    table = resisters_table(spec, resisters)
    for lab, color in outcome_colors(LABELS, SYSTEM.polarity_of(LABELS)).items():
        # dashed catastrophes: at equal skill they coincide with the criticals
        ls = "--" if "catastrophe" in lab else "-"
        ax.plot(table.index, table[lab], marker="o", ls=ls, color=color, label=lab.replace("_", " "))
    base = _as_spell(spec)
    ax.set(
        xlabel="resisters",
        ylabel="P(at least one resister)",
        title=f"Resisting a spell: skill {base.skill} vs resistance {base.resistance} (exact)",
    )
    legend_outside(ax)
    return fig


def plot_combat(spec: CritsCatsSpec, *, ax=None):
    """Damage dealt and backlash taken per attack (exact), with their expectations."""
    from critlab.analysis.style import outcome_colors

    fig, ax = _axes(ax, ncols=2, width=11)
    r = exact(_as_combat(spec))
    # damage dealt is the attacker's good outcome (cool), backlash taken a bad one (warm)
    good, bad = outcome_colors(("good", "bad"), {"good": 2, "bad": -2}).values()
    for a, name, color in ((ax[0], "damage", good), (ax[1], "backlash", bad)):
        d = r.distributions[name]
        a.bar(d.values, d.probs, color=color)
        a.set(
            xlabel=name,
            ylabel="probability per attack",
            title=f"{name}: mean {d.mean:.3f} (exact)",
        )
    fig.suptitle(f"Attack {r.params['damage']} vs protection {r.params['protection']} (exact)")
    return fig


PLOTS = {
    "versus_extremes": plot_versus_extremes,
    "roll_modes": plot_roll_modes,
    "challenge_extremes": plot_challenge_extremes,
    "casting_cost": plot_casting_cost,
    "resisters": plot_resisters,
    "combat": plot_combat,
}
