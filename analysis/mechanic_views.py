"""Design views of a mechanic: outcome probabilities over one parameter, and a value's
distribution (exact)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from critlab.analysis.params import Bool, Int, declared
from critlab.analysis.spec import Spec


def _axis_values(spec: Spec, name: str) -> list[Any]:
    """Every value of parameter ``name`` near the spec's: an integer range of at most 21
    values inside its declared range around the current value, or every choice."""
    decl = declared(type(spec))[name]
    kind = decl.kind
    if isinstance(kind, Int):
        at = getattr(spec, name)
        lo, hi = max(kind.lo, at - 10), min(kind.hi, at + 10)
        return list(range(lo, hi + 1))
    choices = getattr(kind, "choices", None)
    if choices:
        return list(choices)
    if isinstance(kind, Bool):
        return [False, True]
    raise ValueError(f"parameter {name} is not an integer, choice or bool: give values=...")


def plot_outcomes(spec: Spec, param: str, *, values: Iterable[Any] | None = None, ax: Any = None) -> Any:
    """Each outcome's exact probability against one parameter (stacked: they sum to 1).

    ``values`` default: the parameter's declared range near the spec's value (at most 21
    points), or all of its choices.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from critlab.analysis.sweep import sweep

    xs = list(values) if values is not None else _axis_values(spec, param)
    df = sweep(spec, **{param: xs})
    out = df[df.kind == "outcome"].pivot(index=param, columns="name", values="exact")
    labels = [lab for lab in df[df.kind == "outcome"].name.unique()]
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4), constrained_layout=True)
    else:
        fig = ax.figure
    positions = np.arange(len(xs))
    ax.stackplot(positions, [out.loc[xs, lab].to_numpy(float) for lab in labels], labels=labels, alpha=0.85)
    ax.set_xticks(positions, [str(x) for x in xs])
    label = declared(type(spec))[param].label or param.replace("_", " ")
    ax.set(
        xlabel=label, ylabel="probability", ylim=(0, 1), title=f"{spec.system}: outcomes by {label} (exact)"
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    return fig


def plot_distribution(spec: Spec, value: str, *, ax: Any = None) -> Any:
    """The exact distribution of one of the mechanic's values (bars), with its mean."""
    import matplotlib.pyplot as plt

    from critlab.analysis.systems.base import system_of

    d = system_of(spec).exact(spec).distributions[value]
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 3.5), constrained_layout=True)
    else:
        fig = ax.figure
    ax.bar(d.values, d.probs, width=0.9)
    ax.axvline(d.mean, color="black", lw=1, ls="--", label=f"mean {d.mean:.3f}")
    ax.set(xlabel=value.replace("_", " "), ylabel="probability", title=f"{spec.system}: {value} (exact)")
    ax.legend()
    return fig


PLOTS = {"outcomes": plot_outcomes, "distribution": plot_distribution}
