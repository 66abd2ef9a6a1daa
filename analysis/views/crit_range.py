"""Design views of ``crit-range``: what crit range is worth, by Evasion, in attack bonus and
under each d20 roll mode."""

from __future__ import annotations

import numpy as np
import pandas as pd

from critlab.analysis.spec import SpecError
from critlab.analysis.systems.crit_range import CritRangeSpec, exact
from critlab.analysis.systems.d20 import ROLL_MODES


def _require_attack(spec: CritRangeSpec) -> None:
    if spec.mode != "attack":
        raise SpecError("mode", spec.mode, "damage plots need mode attack")


def _heatmap_grid(spec: CritRangeSpec, crit_ranges, evasions) -> pd.DataFrame:
    from critlab.analysis.design.sweep import sweep

    _require_attack(spec)
    return sweep(spec, crit_range=list(crit_ranges), evasion=list(evasions))


def _pivot(grid: pd.DataFrame, quantity: str) -> pd.DataFrame:
    rows = grid[grid.name == quantity]
    if rows.empty:
        raise SpecError("quantity", quantity, "must be a metric or an outcome label of crit-range")
    return rows.pivot(index="crit_range", columns="evasion", values="exact")


def heatmap_table(
    spec: CritRangeSpec,
    *,
    quantity: str = "expected_damage",
    crit_ranges=range(1, 6),
    evasions=range(5, 26),
) -> pd.DataFrame:
    """Exact ``quantity`` (a metric such as ``expected_damage`` or ``p_crit``, or an
    outcome label) by crit_range (rows) and evasion (columns) for ``spec``'s weapon.

    >>> t = heatmap_table(CritRangeSpec(attack_bonus=3, evasion=11), crit_ranges=[1, 2], evasions=[30])
    >>> t.round(4).to_dict()                       # only CRITs hit: 1d10 + 1d6!, 5.5 + 4.2
    {30: {1: 0.485, 2: 0.97}}
    """
    return _pivot(_heatmap_grid(spec, crit_ranges, evasions), quantity)


def plot_heatmap(spec: CritRangeSpec, *, crit_ranges=range(1, 6), evasions=range(5, 26), ax=None):
    """Heatmaps of expected damage and of P(hit or CRIT) by crit_range × evasion (exact);
    ``ax`` is a pair of axes (the CRIT rate itself is in :func:`heatmap_table`)."""
    import matplotlib.pyplot as plt

    from critlab.analysis.style import ORDERED_CMAP

    grid = _heatmap_grid(spec, crit_ranges, evasions)
    if ax is None:
        fig, ax = plt.subplots(1, 2, figsize=(12, 3.8), constrained_layout=True)
    else:
        fig = ax[0].figure
    # The CRIT rate alone is crit_range / 20 at every evasion; what moves with evasion
    # is how much of the damage the CRITs bring, so the second panel shows P(hit or CRIT).
    panels = (
        (_pivot(grid, "expected_damage"), "expected damage per attack", ORDERED_CMAP),
        (_pivot(grid, "hit") + _pivot(grid, "crit"), "P(hit or CRIT)", ORDERED_CMAP),
    )
    weapon = f"{spec.attack_bonus:+d}, {spec.damage} + {spec.crit_dice_expr}"
    for a, (t, what, cmap) in zip(ax, panels, strict=True):
        mesh = a.pcolormesh(t.columns, t.index, t.values, cmap=cmap, shading="nearest")
        fig.colorbar(mesh, ax=a, label=what)
        a.set_yticks(list(t.index))
        a.set(xlabel="evasion", ylabel="crit range", title=f"{what[0].upper()}{what[1:]}, {weapon} (exact)")
    return fig


def _inverse(bonuses: np.ndarray, damage: np.ndarray, target: float) -> float:
    """The least (linearly interpolated) bonus whose expected damage reaches ``target``
    on a non-decreasing curve; NaN when none does."""
    tol = 1e-12 * max(1.0, abs(target))
    if target > damage[-1] + tol:
        return float("nan")
    i = int(np.argmax(damage >= target - tol))
    if i == 0 or damage[i] - target <= tol:
        return float(bonuses[i])
    frac = (target - damage[i - 1]) / (damage[i] - damage[i - 1])
    return float(bonuses[i - 1] + frac * (bonuses[i] - bonuses[i - 1]))


def bonus_equivalent_table(spec: CritRangeSpec, *, crit_ranges=range(1, 6), evasions=None) -> pd.DataFrame:
    """How much CRIT range is worth in flat attack bonus (exact).

    For each evasion (default: ``spec``'s) and crit_range, ``equivalent_attack_bonus``
    is the attack bonus that gives the same expected damage at crit_range 1,
    interpolated linearly between whole bonuses (NaN where no flat bonus reaches it),
    and ``bonus_worth`` is that less the equivalent of ``spec``'s own attack bonus at
    crit_range 1 (the attack bonus itself wherever damage still rises with bonus).

    >>> t = bonus_equivalent_table(CritRangeSpec(attack_bonus=3, evasion=11), crit_ranges=[1, 2])
    >>> t.round(3)[["crit_range", "bonus_worth"]].values.tolist()
    [[1.0, 0.0], [2.0, 0.764]]
    """
    from critlab.analysis.design.sweep import sweep

    _require_attack(spec)
    evasions = [spec.evasion] if evasions is None else list(evasions)
    rows = []
    for ev in evasions:
        # crit_range 1's damage rises with bonus from "only CRITs hit" (need 20) to
        # "every non-CRITFAIL natural hits"; beyond either end it is flat.
        lo, hi = max(-1000, ev - 20), min(1000, max(ev - 20, ev - spec.critfail_range - 1))
        curve = sweep(spec.replace(crit_range=1, evasion=ev), attack_bonus=range(lo, hi + 1))
        curve = curve[curve.name == "expected_damage"]
        bonuses, damage = curve.attack_bonus.to_numpy(float), curve.exact.to_numpy()
        own = float(exact(spec.replace(crit_range=1, evasion=ev)).metrics["expected_damage"])
        reference = _inverse(bonuses, damage, own)
        at = sweep(spec.replace(evasion=ev), crit_range=list(crit_ranges))
        at = at[at.name == "expected_damage"]
        for r, target in zip(at.crit_range, at.exact, strict=True):
            equivalent = _inverse(bonuses, damage, float(target))
            rows.append(
                {
                    "evasion": ev,
                    "crit_range": int(r),
                    "expected_damage": float(target),
                    "equivalent_attack_bonus": equivalent,
                    "bonus_worth": equivalent - reference,
                }
            )
    return pd.DataFrame(rows)


def plot_bonus_equivalent(spec: CritRangeSpec, *, crit_ranges=range(1, 6), evasions=None, ax=None):
    """Flat attack bonus that each crit range is worth, one line per evasion (exact)."""
    import matplotlib.pyplot as plt

    from critlab.analysis.style import NEUTRAL, legend_outside, ordered_colors

    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    else:
        fig = ax.figure
    if evasions is None:
        evasions = [spec.evasion - 4, spec.evasion, spec.evasion + 4]
    t = bonus_equivalent_table(spec, crit_ranges=crit_ranges, evasions=evasions)
    weapon = spec.crit_dice_expr
    # Lines often coincide (the worth is the same wherever every step stays on the d20),
    # so each gets its own marker size and dash to stay visible.
    styles = [("o", 9, "-"), ("s", 6, "--"), ("^", 4, ":")]
    colours = ordered_colors(sorted(set(t.evasion)))  # evasions in order
    for i, (ev, part) in enumerate(t.groupby("evasion")):
        marker, size, dash = styles[i % len(styles)]
        ax.plot(part.crit_range, part.bonus_worth, marker=marker, ms=size, ls=dash, color=colours[ev],
                label=f"evasion {ev}")  # fmt: skip
    ax.axhline(0, color=NEUTRAL, lw=0.5)
    ax.set_xticks(list(crit_ranges))
    ax.set(
        xlabel="crit range",
        ylabel="equivalent flat attack bonus at crit range 1",
        title=f"CRIT range as attack bonus, {spec.attack_bonus:+d}, {spec.damage} + {weapon} (exact)",
    )
    legend_outside(ax)
    return fig


def roll_mode_table(spec: CritRangeSpec, *, crit_ranges=range(0, 7)) -> pd.DataFrame:
    """Exact P(crit) and expected damage by crit range (rows) for each roll mode (columns).

    >>> t = roll_mode_table(CritRangeSpec(attack_bonus=5, evasion=15), crit_ranges=[1, 2])
    >>> t["p_crit"].round(4).to_dict("list")
    {'normal': [0.05, 0.1], 'advantage': [0.0975, 0.19], 'disadvantage': [0.0025, 0.01]}
    """
    from critlab.analysis.design.sweep import sweep

    _require_attack(spec)
    df = sweep(spec, crit_range=list(crit_ranges), roll=list(ROLL_MODES))
    df = df[df.name.isin(["p_crit", "expected_damage"])]
    wide = df.pivot_table(index="crit_range", columns=["name", "roll"], values="exact")
    return wide.reindex(columns=pd.MultiIndex.from_product([["p_crit", "expected_damage"], ROLL_MODES]))


def plot_roll_modes(spec: CritRangeSpec, *, crit_ranges=range(0, 7), ax=None):
    """P(crit) and expected damage by crit range, one line per roll mode (exact); ``ax`` is
    a pair of axes."""
    import matplotlib.pyplot as plt

    from critlab.analysis.style import legend_outside, variant_colors

    t = roll_mode_table(spec, crit_ranges=crit_ranges)
    colours = variant_colors(ROLL_MODES)
    if ax is None:
        fig, ax = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    else:
        fig = ax[0].figure
    styles = {"normal": ("o", "-"), "advantage": ("^", "--"), "disadvantage": ("v", ":")}
    for roll in ROLL_MODES:
        marker, dash = styles[roll]
        for a, what in zip(ax, ("p_crit", "expected_damage"), strict=True):
            a.plot(t.index, t[what][roll], marker=marker, ls=dash, color=colours[roll], label=roll)
    weapon = f"{spec.attack_bonus:+d} vs evasion {spec.evasion}, {spec.damage} + {spec.crit_dice_expr}"
    ax[0].set(xlabel="crit range", ylabel="P(crit)", title="CRIT rate by crit range and roll mode (exact)")
    ax[1].set(
        xlabel="crit range",
        ylabel="expected damage per attack",
        title=f"Expected damage, {weapon} (exact)",
    )
    for a in ax:
        a.set_xticks(list(t.index))
    legend_outside(ax[1], title="roll")
    return fig


PLOTS = {"heatmap": plot_heatmap, "bonus_equivalent": plot_bonus_equivalent, "roll_modes": plot_roll_modes}
