"""Results in a notebook: outcome tables of percentages, verdicts in words, and bar
plots with each outcome in its semantic colour (:mod:`critlab.analysis.style`).

>>> html = outcomes_html("thac0", {"miss": 0.75, "hit": 0.25})
>>> "75.00%" in html and "<caption" in html
True
"""

from __future__ import annotations

import html
from typing import Any

from critlab.analysis.display.dist import new_axes, table
from critlab.analysis.text.human import percent


def outcomes_html(
    caption: str, outcomes: dict[str, float], se: dict[str, float] | None = None, metrics: dict | None = None
) -> str:
    """A result's outcome labels as percentages (with a simulation's standard errors),
    and its metrics below."""
    if se is None:
        rows = [(k, percent(p)) for k, p in outcomes.items()]
        out = table(("outcome", "probability"), rows, caption)
    else:
        rows = [
            (k, percent(p), f"± {se[k] * 100:.2f}%" if se[k] >= 5e-5 else "± <0.01%")
            for k, p in outcomes.items()
        ]
        out = table(("outcome", "frequency", "standard error"), rows, caption)
    if metrics:
        out += "\n" + table(
            ("metric", "value"), [(k, "null" if v is None else f"{v:.6g}") for k, v in metrics.items()]
        )
    return out


def plot_outcomes(
    outcomes: dict[str, float], *, ax: Any = None, title: str = "", se: dict | None = None
) -> Any:
    """A result's outcome probabilities as bars in percent, each label in its semantic
    colour (:func:`critlab.analysis.style.outcome_colors`); the Axes."""
    from critlab.analysis.style import outcome_colors

    ax = new_axes(ax)
    labels = list(outcomes)
    colors = outcome_colors(labels)
    heights = [outcomes[k] * 100 for k in labels]
    errors = None if se is None else [1.96 * se[k] * 100 for k in labels]
    ax.bar(labels, heights, color=[colors[k] for k in labels])
    if errors is not None:  # drawn apart from the bars: their caps in black, not the colour cycle
        ax.errorbar(labels, heights, yerr=errors, fmt="none", ecolor="black", capsize=3, color="black")
    ax.set_ylabel("probability, %")
    ax.tick_params(axis="x", labelrotation=30)
    if title:
        ax.set_title(title, loc="left", fontsize="medium")
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def _head(result: Any) -> str:
    params = ", ".join(f"{k}={v}" for k, v in result.params.items() if v is not None)
    return f"{result.system}: {params}" if params else result.system


def exact_html(result: Any) -> str:
    """An exact result: its outcomes in percent, each distribution in one line (mean,
    sd, range, tail), its metrics."""
    out = outcomes_html(_head(result), result.outcomes, metrics=result.metrics)
    rows = [
        (name, "null" if d is None else f"mean {d.mean:.4g}, sd {d.sd:.3g}, range {d.min}..{d.max}")
        for name, d in result.distributions.items()
    ]
    if rows:
        out += "\n" + table(("distribution", "summary"), rows)
    return out


def sim_html(result: Any) -> str:
    """A simulated result: frequencies with standard errors, the trials and seed."""
    se = dict(zip(result.labels, result.tally.standard_errors, strict=True))
    caption = f"{_head(result)} ({result.trials:,} trials, seed {result.seed})"
    return outcomes_html(caption, result.outcomes, se=se, metrics=result.metrics)


def verdict(v: Any) -> str:
    """A validation's verdict in words."""
    agree = "agrees with" if v.passed else "does NOT agree with"
    word = "Passed" if v.passed else "Failed"
    compare = ">=" if v.passed else "<"
    return (
        f"{word}: the simulation of {v.system} {agree} the exact distribution "
        f"(chi-square p-value {v.p_value:.3g} {compare} alpha {v.alpha:g}; largest |z| {v.max_abs_z:.2f}; "
        f"{v.trials:,} trials, seed {v.seed})"
    )


def validation_html(v: Any, worst: int = 5) -> str:
    """A validation: the verdict in words, and the ``worst`` pooled bins by |z|."""
    rows = (
        v.rows.assign(_abs=v.rows["z"].abs()).sort_values("_abs", ascending=False, kind="stable").head(worst)
    )
    body = [(r.outcome, percent(r.exact), percent(r.observed), f"{r.z:+.2f}") for r in rows.itertuples()]
    colour = "#1a7f37" if v.passed else "#B2182B"
    head = f'<p style="color:{colour}"><b>{html.escape(verdict(v))}</b></p>'
    return (
        head + "\n" + table(("bin", "exact", "observed", "z"), body, f"the {len(body)} bins of largest |z|")
    )


__all__ = ["exact_html", "outcomes_html", "plot_outcomes", "sim_html", "validation_html", "verdict"]
