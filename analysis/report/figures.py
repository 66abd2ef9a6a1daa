"""The report's figures, drawn from sweep tables with matplotlib (no pyplot state), all in
the project's one style (:mod:`critlab.analysis.style`).

- Outcomes get their semantic colours (bad warm, good cool, neutral grey); an ordered
  ladder (a wound ladder, a cumulative "or worse" view) a sequential palette in order;
  other quantities and variants (weapons, roll modes) the colour-blind-safe Okabe-Ito
  palette; a numeric series (THAC0 20, 15, 10, 5) an ordered palette.
- Axes say what they show in words ("expected damage", "P(crit)"), never a field name;
  probabilities and amounts never share an axis (a section showing both gets a panel
  for each).
- Legends sit outside the plotting area and the constrained layout makes room, so they
  never clip; heatmap cells are written in only when the numbers are readable (9 pt).

Each ``*_figure`` function returns a :class:`matplotlib.figure.Figure` (the tests render
and inspect them); :func:`chart` and :func:`validation_chart` give PNG bytes. Every
title says whether its numbers are exact or simulated. A section's wide table (one row
per grid point, one column per axis and per quantity) is what they read; see
:func:`critlab.analysis.report.build.wide_table`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from critlab.analysis import style
from critlab.analysis.params import axis_label
from critlab.analysis.report.config import Axis, SweepSection
from critlab.analysis.report.doc import fmt_value
from critlab.analysis.report.picture import _figure, pictures, png
from critlab.analysis.report.tables import is_probability, matrix
from critlab.analysis.report.words import phrase

_STYLES = ("-", "--", ":", "-.")
# Heatmap numbers are written in at this size, and only when a cell holds them.
ANNOTATE_PT = 9


def _percent() -> PercentFormatter:
    """A probability axis's ticks in percent, as every sentence and table of the report
    writes them (a formatter of its own per axis: matplotlib binds one to its axis)."""
    return PercentFormatter(xmax=1.0)


# -- words and colours ------------------------------------------------------------------
def _spec_cls(section: SweepSection) -> Any:
    return type(next(iter(section.base_specs.values())))


def _said(section: SweepSection, name: str) -> str | None:
    """``name`` in the words the section's model declares (an encounter's), else None."""
    model = getattr(section, "model", None)
    return model.said(name) if model is not None else None


def numeric(axis: Axis) -> bool:
    return not axis.variant and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in axis.values
    )


def axis_text(section: SweepSection, axis: Axis) -> str:
    """An axis's label: the configured x label for the first axis, else the declared one."""
    if section.axes and axis is section.axes[0] and section.x_label:
        return section.x_label
    return _said(section, axis.name) or axis_label(axis.name, _spec_cls(section))


def is_prob(section: SweepSection, q: str) -> bool:
    return q in section.outcomes or q == section.label or is_probability(q)


def quantity_label(section: SweepSection, q: str) -> str:
    """``crit`` → "P(crit)", ``p_down`` → "P(down)", ``expected_damage`` → "expected damage"
    (or as the section's model says it: ``p_any_down_a`` → "P(someone on side a goes down)")."""
    said = _said(section, q)
    if said:
        return said
    if q.startswith("P("):
        return phrase(q, _spec_cls(section))  # a sum's label: "P(hit or critical hit)"
    if q in section.outcomes:
        words = q.replace("_", " ")
        return f"P({words[0].upper() + words[1:] if q[:2] in ('a_', 'b_') else words})"  # a contest's sides
    if q.startswith("p_"):
        return f"P({q[2:].replace('_', ' ')})"
    return axis_label(q, _spec_cls(section))


def outcome_palette(section: SweepSection, labels: Sequence[str]) -> dict[str, Any]:
    """Colours for outcome columns: an ordered palette for a ladder (a cumulative view,
    or a system that declares its labels ``ordered``), semantic colours for the labels
    whose polarity it declares, Okabe-Ito otherwise."""
    if section.model is not None:  # a model's own labels and their polarity
        if section.model.ordered:
            return style.ordered_colors(list(labels))
        polarity = section.model.polarity()
        return style.outcome_colors(list(labels), {q: polarity[q] for q in labels if q in polarity})
    system = _spec_cls(section).rule_system
    if section.cumulative or system.ordered:
        return style.ordered_colors(list(labels))
    return style.outcome_colors(list(labels), system.polarity_of(labels))


def series_palette(axis: Axis, section: SweepSection | None = None) -> dict[Any, Any]:
    """Line colours for a series axis, each at 3:1 on white: the dark part of the ordered
    map for numbers; for choices and variants one colour per value across the report (by
    its place among the declared choices), a helping choice cool and a hindering one warm."""
    if numeric(axis):
        return style.line_ordered_colors(list(axis.values))
    order = None
    if section is not None and not axis.variant:
        from critlab.analysis.params import declared

        decl = declared(_spec_cls(section)).get(axis.name)
        order = getattr(getattr(decl, "kind", None), "choices", None)
    return style.line_variant_colors(list(axis.values), order)


def quantity_palette(section: SweepSection, quantities: Sequence[str]) -> dict[str, Any]:
    """Line colours for quantities (their outcome colours where they are outcomes), each
    darkened to 3:1 on white where it falls short."""
    if all(q in section.outcomes for q in quantities):
        colours = outcome_palette(section, quantities)
    else:
        colours = dict(zip(quantities, style.LINE_QUALITATIVE * 3, strict=False))
    return {q: style.for_lines(c) for q, c in colours.items()}


def unit_groups(section: SweepSection, quantities: Sequence[str]) -> list[list[str]]:
    """The quantities split by unit: amounts first, then probabilities (never one axis);
    a model's amounts each on an axis of its own (an encounter's rounds and hit points)."""
    amounts = [q for q in quantities if not is_prob(section, q)]
    probs = [q for q in quantities if is_prob(section, q)]
    each = [[q] for q in amounts] if section.model is not None else [amounts]
    return [g for g in (*each, probs) if g]


# -- axes helpers -------------------------------------------------------------------------
def _positions(axis: Axis, column: pd.Series) -> np.ndarray:
    if numeric(axis):
        return column.to_numpy(dtype=float)
    where = {v: i for i, v in enumerate(axis.values)}
    return np.array([where[v] for v in column], dtype=float)


def _ticks(ax, axis: Axis) -> None:
    if numeric(axis):
        if all(isinstance(v, int) for v in axis.values):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        return
    labels = [fmt_value(v) for v in axis.values]
    turn = len(labels) > 4
    ax.set_xticks(range(len(labels)), labels, rotation=30 if turn else 0, ha="right" if turn else "center")


def _grid(fig: Figure, n: int, *, ncols: int, sharey: bool = False):
    nrows = math.ceil(n / ncols)
    axs = fig.subplots(nrows, ncols, squeeze=False, sharey=sharey)
    for ax in axs.flat[n:]:
        ax.set_visible(False)
    return list(axs.flat[:n])


def _select(df: pd.DataFrame, axis: Axis | None, value) -> pd.DataFrame:
    return df if axis is None else df[df[axis.name] == value]


def _y_label(section: SweepSection, group: list[str]) -> str:
    if section.y_label and len(unit_groups(section, section.plotted)) == 1:
        return section.y_label
    if len(group) == 1:
        return quantity_label(section, group[0])
    if all(is_prob(section, q) for q in group):
        return "probability"
    return " / ".join(quantity_label(section, q) for q in group)


def _facet_title(section: SweepSection, pairs) -> str:
    return ", ".join(f"{axis_label(a.name, _spec_cls(section))} {fmt_value(v)}" for a, v in pairs if a)


# -- charts -------------------------------------------------------------------------------
def line_figure(section: SweepSection, wide: pd.DataFrame) -> Figure:
    """Lines of each plotted quantity against the first axis; one line per value of the
    second axis, one panel per value of the third and per unit (amount, probability)."""
    axes = section.axes
    x, series = axes[0], axes[1] if len(axes) > 1 else None
    facet = axes[2] if len(axes) > 2 else None
    if len(section.plotted) > 2 and len(axes) == 2 and len(axes[1].values) <= 4:
        series, facet = None, axes[1]  # several quantities: a panel per value, not dashes
    groups = unit_groups(section, section.plotted)
    panels = [(f, g) for f in (facet.values if facet else [None]) for g in groups]
    ncols = len(groups) if len(groups) > 1 else min(3, len(panels))
    svalues = list(series.values) if series else [None]
    many = len(section.plotted) > 1
    qcolours = quantity_palette(section, section.plotted)
    scolours = series_palette(series, section) if series else {}
    width = {1: 7.5, 2: 10.0}.get(ncols, 11.5)
    fig = _figure(figsize=(width, 2.9 * math.ceil(len(panels) / ncols) + 0.45), layout="constrained")
    axs = _grid(fig, len(panels), ncols=ncols, sharey=len(groups) == 1)
    for (f, group), ax in zip(panels, axs, strict=True):
        sub = _select(wide, facet, f)
        for q in group:
            for si, s in enumerate(svalues):
                d = _select(sub, series, s)
                # every line a colour and a marker of its own (never a dash alone: two
                # overlapping lines still show both markers); several quantities over a
                # series keep the series' colour and marker, each quantity its dash
                qi = section.plotted.index(q)
                if many and series is not None:
                    colour, marker, dash = scolours[s], style.marker(si), _STYLES[qi % len(_STYLES)]
                elif many:
                    colour, marker, dash = qcolours[q], style.marker(qi), "-"
                else:
                    colour = scolours[s] if series else style.QUALITATIVE[0]
                    marker, dash = style.marker(si), "-"
                parts = ([quantity_label(section, q)] if many else []) + ([fmt_value(s)] if series else [])
                ax.plot(
                    _positions(x, d[x.name]),
                    d[q].to_numpy(dtype=float),
                    dash,
                    marker=marker,
                    ms=4.5,
                    mfc="white" if si % 2 else colour,  # alternate hollow markers: overlaps show
                    lw=1.6,
                    color=colour,
                    label=", ".join(parts) or quantity_label(section, q),
                )
        _ticks(ax, x)
        ax.set_xlabel(axis_text(section, x))
        ax.set_ylabel(_y_label(section, group))
        if section.log_y:
            ax.set_yscale("log")
        elif all(is_prob(section, q) for q in group):
            ax.set_ylim(bottom=0)
        if all(is_prob(section, q) for q in group):
            ax.yaxis.set_major_formatter(_percent())  # probabilities read as percentages everywhere
        ax.grid(alpha=0.3)
        if facet is not None:
            ax.set_title(_facet_title(section, [(facet, f)]), fontsize="medium")
    # one legend beside the first row: each unit's panel keeps its own, else one for all
    first_row = axs[:ncols]
    title = axis_text(section, series) if series is not None and not many else None
    for ax in first_row if len(groups) > 1 else first_row[-1:]:
        handles, labels = (ax if len(groups) > 1 else axs[0]).get_legend_handles_labels()
        if len(labels) > 1:
            style.legend_outside(ax, handles=handles, labels=labels, title=title, title_fontsize="small")
    fig.suptitle(f"{section.title} (exact)", fontsize="medium")
    return fig


def stacked_figure(section: SweepSection, wide: pd.DataFrame) -> Figure:
    """Stacked outcome shares over the first axis; panels: rows by the second axis,
    columns by the third."""
    axes = section.axes
    x = axes[0]
    rows_axis = axes[1] if len(axes) > 1 else None
    cols_axis = axes[2] if len(axes) > 2 else None
    rvals = list(rows_axis.values) if rows_axis else [None]
    cvals = list(cols_axis.values) if cols_axis else [None]
    width = min(11.0, max(6.5, 3.0 * len(cvals) + 1.8))
    fig = _figure(figsize=(width, 1.5 * len(rvals) + 1.05), layout="constrained")
    axs = fig.subplots(len(rvals), len(cvals), squeeze=False, sharex=True, sharey=True)
    colours = outcome_palette(section, section.outcomes)
    for i, r in enumerate(rvals):
        for j, c in enumerate(cvals):
            ax = axs[i, j]
            d = _select(_select(wide, rows_axis, r), cols_axis, c)
            pos = _positions(x, d[x.name])
            step = np.min(np.diff(np.unique(pos))) if len(pos) > 1 else 1.0
            bottom = np.zeros(len(d))
            for label in section.outcomes:
                h = d[label].to_numpy(dtype=float)
                ax.bar(
                    pos,
                    h,
                    width=0.8 * step,
                    bottom=bottom,
                    color=colours[label],
                    label=label.replace("_", " "),
                )
                bottom += h
            _ticks(ax, x)
            ax.set_ylim(0, 1)
            ax.yaxis.set_major_formatter(_percent())
            title = _facet_title(section, [(rows_axis, r), (cols_axis, c)])
            if title:
                ax.set_title(title, fontsize="small")
            if i == len(rvals) - 1:
                ax.set_xlabel(axis_text(section, x))
            if j == 0:
                ax.set_ylabel(section.y_label or "probability")
    handles, labels = axs[0, 0].get_legend_handles_labels()
    # the top of a stack first, as the eye reads the bars
    style.legend_outside(
        axs[0, -1], handles=handles[::-1], labels=labels[::-1], loc="upper left", bbox_to_anchor=(1.02, 1.0)
    )
    fig.suptitle(f"{section.title} (exact)", fontsize="medium")
    return fig


def heatmap_figure(section: SweepSection, wide: pd.DataFrame) -> Figure:
    """One heatmap per plotted quantity (and per value of a third axis): first axis
    across, second axis up; values written in when they are readable."""
    x, y = section.axes[0], section.axes[1]
    facet = section.axes[2] if len(section.axes) > 2 else None
    panels = [(q, f) for q in section.plotted for f in (facet.values if facet else [None])]
    ncols = min(3, len(panels))
    size = {1: 6.2, 2: 5.0}.get(ncols, 3.9)
    height = (size - 1.3) * math.ceil(len(panels) / ncols) + 0.5
    fig = _figure(figsize=(size * ncols, height), layout="constrained")
    # a cell's size in points: the panel less its labels and colour bar, over the cells
    cell_w = (size - 1.9) * 72 / len(x.values)
    cell_h = (size - 2.3) * 72 / len(y.values)
    grids = {(q, f): matrix(_select(wide, facet, f), x, y, q) for q, f in panels}
    # one colour scale for the whole figure: equal colours are equal numbers in every panel
    finite = np.concatenate([m[np.isfinite(m)] for m in grids.values()] or [np.zeros(1)])
    lo, hi = float(finite.min()), float(finite.max())
    norm = Normalize(vmin=lo, vmax=hi if hi > lo else lo + 1.0)
    axs = _grid(fig, len(panels), ncols=ncols)
    for (q, f), ax in zip(panels, axs, strict=True):
        m = grids[(q, f)]
        im = ax.imshow(
            m, origin="lower", aspect="auto", cmap=style.ORDERED_CMAP, norm=norm, interpolation="nearest"
        )
        ax.set_xticks(
            range(len(x.values)),
            [fmt_value(v) for v in x.values],
            rotation=90 if len(x.values) > 12 else 0,
            fontsize="small",
        )
        ax.set_yticks(range(len(y.values)), [fmt_value(v) for v in y.values], fontsize="small")
        ax.set_xlabel(axis_text(section, x))
        ax.set_ylabel(section.y_label or axis_label(y.name, _spec_cls(section)))
        title = quantity_label(section, q) if facet is None else _facet_title(section, [(facet, f)])
        ax.set_title(title, fontsize="medium")
        text = _cell_text(m, probability=is_prob(section, q))
        if cell_w >= ANNOTATE_PT * 0.62 * text and cell_h >= ANNOTATE_PT * 1.4:
            _annotate(ax, m, probability=is_prob(section, q), norm=norm)
    quantities = list(dict.fromkeys(q for q, _ in panels))
    label = (
        quantity_label(section, quantities[0])
        if len(quantities) == 1
        else "probability"
        if all(is_prob(section, q) for q in quantities)
        else " / ".join(quantity_label(section, q) for q in quantities)
    )
    bar = fig.colorbar(im, ax=axs, shrink=0.85, label=label)  # the one scale, beside every panel
    if all(is_prob(section, q) for q in quantities):
        bar.ax.yaxis.set_major_formatter(_percent())
    fig.suptitle(f"{section.title} (exact)", fontsize="medium")
    return fig


def _cell_format(m: np.ndarray, probability: bool) -> str:
    """A probability as the sentences write it (``56.5%``), an amount to its size."""
    if probability:
        return "{:.1%}"
    finite = m[np.isfinite(m)]
    big = float(np.abs(finite).max()) if finite.size else 0.0
    return "{:.2f}" if big < 10 else "{:.1f}" if big < 100 else "{:.0f}"


def _cell_text(m: np.ndarray, *, probability: bool) -> int:
    """The widest cell text, in characters."""
    form = _cell_format(m, probability)
    return max((len(form.format(v)) for v in m[np.isfinite(m)]), default=0)


def _annotate(ax, m: np.ndarray, *, probability: bool, norm: Normalize | None = None) -> None:
    finite = m[np.isfinite(m)]
    lo, hi = (float(finite.min()), float(finite.max())) if norm is None else (norm.vmin, norm.vmax)
    form = _cell_format(m, probability)
    for (i, j), v in np.ndenumerate(m):
        if not np.isfinite(v):
            continue
        # dark text on the bright (yellow) end of viridis, light text elsewhere
        light = hi == lo or (v - lo) / (hi - lo) < 0.6
        ax.text(
            j,
            i,
            form.format(0.0 if abs(v) < 1e-12 else v),
            ha="center",
            va="center",
            fontsize=ANNOTATE_PT,
            color="white" if light else "black",
        )


def describe(section: SweepSection) -> str:
    """What the section's figure draws, in words: its quantities, against what, and how
    the other axes split it (the caption; with the section's lead, the alt text).

    The words come from the declarations (``expected_damage`` → "expected damage")."""
    from critlab.analysis.report.findings import axis_words

    axes = section.axes
    if not axes:
        return "Exact values."
    names = [axis_words(section, a) for a in axes]
    shown = [quantity_label(section, q) for q in section.plotted]
    what = ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else (shown or ["the values"])[0]
    if section.chart == "heatmap" and len(axes) >= 2:
        text = f"a heatmap of {what} over {names[0]} (across) and {names[1]} (up)"
        split = [f"a panel per {names[2]}"] if len(axes) > 2 else []
    elif section.chart == "stacked":
        text = f"stacked shares of {what} at each {names[0]}"
        split = [f"a row of panels per {names[1]}"] if len(axes) > 1 else []
        split += [f"a column per {names[2]}"] if len(axes) > 2 else []
    else:
        text = f"{what} against {names[0]}"
        split = [f"one line per {names[1]}"] if len(axes) > 1 else []
        split += [f"a panel per {names[2]}"] if len(axes) > 2 else []
    return text[0].upper() + text[1:] + ("; " + ", ".join(split) if split else "") + "."


__all__ = ["chart", "describe", "figure", "matrix", "pictures", "png"]

DRAW = {"line": line_figure, "stacked": stacked_figure, "heatmap": heatmap_figure}


def figure(section: SweepSection, wide: pd.DataFrame) -> Figure | None:
    """The section's chart as a figure (None for ``chart = "none"``)."""
    draw = DRAW.get(section.chart)
    return None if draw is None else draw(section, wide)


def chart(section: SweepSection, wide: pd.DataFrame) -> bytes | None:
    """The section's chart as PNG bytes (None for ``chart = "none"``)."""
    fig = figure(section, wide)
    return None if fig is None else png(fig)


def line_chart(section: SweepSection, wide: pd.DataFrame) -> bytes:
    return png(line_figure(section, wide))


def stacked_chart(section: SweepSection, wide: pd.DataFrame) -> bytes:
    return png(stacked_figure(section, wide))


def heatmap_chart(section: SweepSection, wide: pd.DataFrame) -> bytes:
    return png(heatmap_figure(section, wide))
