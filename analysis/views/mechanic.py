"""Design views of a mechanic: outcome probabilities over one parameter, and a value's
distribution (exact), in the project's plotting style (:mod:`critlab.analysis.style`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from critlab.analysis.params import Bool, Int, axis_label, declared
from critlab.analysis.spec import Spec, system_of
from critlab.analysis.style import QUALITATIVE, legend_outside, outcome_colors

# A value distribution's plot leaves out its last values of this total probability.
SHOWN_TAIL = 1e-4


def _axis_values(spec: Spec, name: str) -> list[Any]:
    """Every value of parameter ``name`` near the spec's: an integer range of at most 21
    values inside its declared range around the current value, or every choice."""
    kind = declared(type(spec))[name].kind
    if isinstance(kind, Int):
        at = getattr(spec, name)
        return list(range(max(kind.lo, at - 10), min(kind.hi, at + 10) + 1))
    if isinstance(kind, Bool):
        return [False, True]
    choices = getattr(kind, "choices", None)
    if choices:
        return list(choices)
    raise ValueError(f"parameter {name} is not an integer, choice or bool: give values=...")


def _name(spec: Spec) -> str:
    rule = getattr(type(spec).rule_system, "rule", None)
    return rule.fn.__name__ if rule is not None else spec.system


def plot_outcomes(spec: Spec, param: str, *, values: Iterable[Any] | None = None, ax: Any = None) -> Any:
    """Each outcome's exact probability against one parameter (stacked: they sum to 1).

    ``values`` default: the parameter's declared range near the spec's value (at most 21
    points), or all of its choices. Outcomes are coloured by meaning (failures warm,
    successes cool) where their names say it.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from critlab.analysis.design.sweep import sweep

    xs = list(values) if values is not None else _axis_values(spec, param)
    df = sweep(spec, **{param: xs})
    outcomes = df[df.kind == "outcome"]
    table = outcomes.pivot(index=param, columns="name", values="exact")
    labels = list(outcomes.name.unique())
    colours = outcome_colors(labels, system_of(spec).polarity_of(labels))
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 4), layout="constrained")
    else:
        fig = ax.figure
    positions = np.arange(len(xs))
    ax.stackplot(
        positions,
        [table.loc[xs, lab].to_numpy(float) for lab in labels],
        labels=labels,
        colors=[colours[lab] for lab in labels],
    )
    ax.set_xticks(positions, [str(x) for x in xs])
    label = axis_label(param, type(spec))
    ax.set(
        xlabel=label, ylabel="probability", ylim=(0, 1), title=f"{spec.system}: outcomes by {label} (exact)"
    )
    legend_outside(ax, reverse=True)
    return fig


def plot_distribution(spec: Spec, value: str, *, ax: Any = None) -> Any:
    """The exact distribution of one of the mechanic's values (bars), with its mean."""
    import matplotlib.pyplot as plt
    import numpy as np

    d = system_of(spec).exact(spec).distributions[value]
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 3.5), layout="constrained")
    else:
        fig = ax.figure
    # the bulk: values beyond the 99.99th percentile (an explosion's long tail) are left out
    keep = np.cumsum(d.probs) <= 1 - SHOWN_TAIL
    last = min(d.probs.size, int(keep.sum()) + 1)
    ax.bar(d.values[:last], d.probs[:last], width=0.9, color=QUALITATIVE[0])
    ax.axvline(d.mean, color="black", lw=1, ls="--", label=f"mean {d.mean:.3f}")
    title = f"{_name(spec)}: {axis_label(value)} (exact)"
    if last < d.probs.size:
        title += f"; values above {d.values[last - 1]} (P < {SHOWN_TAIL:g}) not drawn"
    ax.set(xlabel=axis_label(value), ylabel="probability", title=title)
    legend_outside(ax)
    return fig


def plot_policy(spec: Spec, choice: str, *, ax: Any = None) -> Any:
    """What a choice is worth: each option's objective (the rule played well from there
    on) at every position the best play reaches, against the first value the choice sees
    (or the first input read before it), one line per option and per value of the second;
    the option taken is marked. The gap between the lines is what deciding well is worth
    at that position."""
    import matplotlib.pyplot as plt

    result = system_of(spec).exact(spec)
    if not hasattr(result, "policy") or choice not in result.policy:
        raise ValueError(f"{spec.system} makes no choice {choice!r}")
    p = result.policy[choice]
    rows = p["rows"]
    table = [r["seen"] if r["seen"] else {**r["read"], **r["chosen"]} for r in rows]
    names = [n for n in (table[0] if table else {}) if all(isinstance(t.get(n), int) for t in table)]
    if not names:
        raise ValueError(f"choice {choice!r} sees no integer value to draw it against")
    x, group = names[0], (names[1] if len(names) > 1 else None)
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 4), layout="constrained")
    else:
        fig = ax.figure
    groups = sorted({t.get(group) for t in table}) if group else [None]
    styles = ["-", "--", ":", "-."]
    for gi, g in enumerate(groups[: len(styles)]):
        at = [(t[x], r) for t, r in zip(table, rows, strict=True) if group is None or t.get(group) == g]
        at.sort(key=lambda pair: pair[0])
        xs = [v for v, _ in at]
        for oi, option in enumerate(p["options"]):
            ys = [r["values"][str(option)] for _, r in at]
            label = f"{option}" + (f" ({group} = {g})" if group else "")
            ax.plot(
                xs, ys, styles[gi], color=QUALITATIVE[oi % len(QUALITATIVE)], marker="o", ms=3, label=label
            )
        taken = [(v, r["values"][str(r["option"])]) for v, r in at]
        xs, ys = [v for v, _ in taken], [y for _, y in taken]
        ax.scatter(xs, ys, s=60, facecolors="none", edgecolors="black", zorder=3)
    objective = system_of(spec).rule.objective.text
    title = f"{_name(spec)}: {choice}, each option played well (circled: taken)"
    ax.set(xlabel=axis_label(x), ylabel=objective, title=title)
    legend_outside(ax)
    return fig


PLOTS = {"outcomes": plot_outcomes, "distribution": plot_distribution}
