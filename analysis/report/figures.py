"""The report's figures, drawn from sweep tables with matplotlib (no pyplot state).

Each function returns PNG bytes. Every title says whether its numbers are exact or
simulated. A section's wide table (one row per grid point, one column per axis and per
quantity) is what they read; see :func:`critlab.analysis.report.build.wide_table`.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from critlab.analysis.report.config import Axis, SweepSection
from critlab.analysis.report.doc import fmt_value

DPI = 96
_STYLES = ("-", "--", ":", "-.")
# Heatmaps with at most this many cells get their values written in: beyond it the
# digits no longer fit a phone-width figure.
ANNOTATE_CELLS = 324


def png(fig: Figure) -> bytes:
    """The figure as PNG bytes (no software stamp, so equal figures give equal bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def colors(n: int) -> list:
    """``n`` distinguishable colours: tab10 / tab20, or viridis for long ordered series."""
    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [colormaps["tab20"](i) for i in range(n)]
    return [colormaps["viridis"](i / (n - 1)) for i in range(n)]


def legend_columns(labels: Sequence[str], most: int = 4) -> int:
    """Legend columns that fit a figure's width: fewer for long labels.

    >>> legend_columns(["a", "b", "c"]), legend_columns(["x" * 50] * 4)
    (3, 1)
    """
    longest = max(map(len, labels))
    fit = 1 if longest > 45 else 2 if longest > 28 else 3 if longest > 18 else most
    return max(1, min(len(labels), fit, most))


def numeric(axis: Axis) -> bool:
    return not axis.variant and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in axis.values
    )


def _positions(axis: Axis, column: pd.Series) -> np.ndarray:
    if numeric(axis):
        return column.to_numpy(dtype=float)
    where = {v: i for i, v in enumerate(axis.values)}
    return np.array([where[v] for v in column], dtype=float)


def _categorical_ticks(ax, axis: Axis, which: str = "x") -> None:
    if numeric(axis):
        return
    ticks = list(range(len(axis.values)))
    labels = [fmt_value(v) for v in axis.values]
    if which == "x":
        ax.set_xticks(
            ticks, labels, rotation=30 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center"
        )
    else:
        ax.set_yticks(ticks, labels)


def _integer_ticks(ax, axis: Axis) -> None:
    """Whole-number ticks for an axis of integers (no 1.5 between crit ranges 1 and 2)."""
    if numeric(axis) and all(isinstance(v, int) for v in axis.values):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _grid(fig: Figure, n: int, *, max_cols: int, sharey: bool = False):
    ncols = min(n, max_cols)
    nrows = math.ceil(n / ncols)
    axs = fig.subplots(nrows, ncols, squeeze=False, sharey=sharey)
    for ax in axs.flat[n:]:
        ax.set_visible(False)
    return axs.flat[:n]


def _select(df: pd.DataFrame, axis: Axis | None, value) -> pd.DataFrame:
    return df if axis is None else df[df[axis.name] == value]


def line_chart(section: SweepSection, wide: pd.DataFrame) -> bytes:
    """Lines of each plotted quantity against the first axis; one line per value of the
    second axis, one panel per value of the third."""
    axes = section.axes
    x, series = axes[0], axes[1] if len(axes) > 1 else None
    facet = axes[2] if len(axes) > 2 else None
    panels = list(facet.values) if facet else [None]
    quantities = section.plotted
    svalues = list(series.values) if series else [None]
    many = len(quantities) > 1
    palette = colors(len(quantities) if many else len(svalues))
    ncols = 1 if len(panels) == 1 else 2
    names = [", ".join(([q] if many else []) + ([f"{series.name} = {fmt_value(s)}"] if series else [])) or q
             for q in quantities for s in svalues]  # fmt: skip
    legend_rows = math.ceil(len(names) / legend_columns(names)) if len(names) > 1 else 0
    height = 4.2 * math.ceil(len(panels) / ncols) + 0.6 + 0.22 * legend_rows
    fig = Figure(figsize=(8 if ncols == 1 else 10, height), layout="constrained")
    for p, ax in zip(panels, _grid(fig, len(panels), max_cols=ncols, sharey=True), strict=True):
        sub = _select(wide, facet, p)
        for qi, q in enumerate(quantities):
            for si, s in enumerate(svalues):
                d = _select(sub, series, s)
                if many and series is not None and len(svalues) <= len(_STYLES):
                    color, style = palette[qi], _STYLES[si]
                else:
                    color, style = palette[qi if many else si], "-"
                ax.plot(
                    _positions(x, d[x.name]),
                    d[q].to_numpy(dtype=float),
                    style,
                    marker="o",
                    ms=3,
                    color=color,
                    label=names[qi * len(svalues) + si],
                )
        _categorical_ticks(ax, x)
        _integer_ticks(ax, x)
        ax.set_xlabel(section.x_label or x.name)
        ax.set_ylabel(section.y_label or (quantities[0] if len(quantities) == 1 else _y_default(section)))
        if section.log_y:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        if facet is not None:
            ax.set_title(f"{facet.name} = {fmt_value(p)}", fontsize="medium")
    handles, labels = fig.axes[0].get_legend_handles_labels()
    if len(labels) > 1:
        fig.legend(
            handles, labels, loc="outside lower center", ncols=legend_columns(labels), fontsize="small"
        )
    fig.suptitle(f"{section.title} (exact)")
    return png(fig)


def _y_default(section: SweepSection) -> str:
    return "probability" if section.kind == "outcomes_by" else "value"


def stacked_chart(section: SweepSection, wide: pd.DataFrame) -> bytes:
    """Stacked outcome shares over the first axis; panels: rows by the second axis,
    columns by the third."""
    axes = section.axes
    x = axes[0]
    rows_axis = axes[1] if len(axes) > 1 else None
    cols_axis = axes[2] if len(axes) > 2 else None
    rvals = list(rows_axis.values) if rows_axis else [None]
    cvals = list(cols_axis.values) if cols_axis else [None]
    width = min(11.0, max(6.0, 3.4 * len(cvals)))
    fig = Figure(figsize=(width, 2.6 * len(rvals) + 1.4), layout="constrained")
    axs = fig.subplots(len(rvals), len(cvals), squeeze=False, sharex=True, sharey=True)
    palette = colors(len(section.outcomes))
    for i, r in enumerate(rvals):
        for j, c in enumerate(cvals):
            ax = axs[i, j]
            d = _select(_select(wide, rows_axis, r), cols_axis, c)
            pos = np.arange(len(d)) if not numeric(x) else d[x.name].to_numpy(dtype=float)
            step = np.min(np.diff(np.unique(pos))) if len(pos) > 1 else 1.0
            bottom = np.zeros(len(d))
            for k, label in enumerate(section.outcomes):
                h = d[label].to_numpy(dtype=float)
                ax.bar(pos, h, width=0.8 * step, bottom=bottom, color=palette[k], label=label)
                bottom += h
            _integer_ticks(ax, x)
            if not numeric(x):
                ax.set_xticks(pos, [fmt_value(v) for v in d[x.name]], rotation=30 if len(d) > 4 else 0)
            title = ", ".join(f"{a.name} = {fmt_value(v)}" for a, v in ((rows_axis, r), (cols_axis, c)) if a)
            if title:
                ax.set_title(title, fontsize="small")
            if i == len(rvals) - 1:
                ax.set_xlabel(section.x_label or x.name)
            if j == 0:
                ax.set_ylabel(section.y_label or "probability")
    handles, labels = axs[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=legend_columns(labels, 6), fontsize="small")
    fig.suptitle(f"{section.title} (exact)")
    return png(fig)


def heatmap_chart(section: SweepSection, wide: pd.DataFrame) -> bytes:
    """One heatmap per plotted quantity (and per value of a third axis): first axis
    across, second axis up."""
    x, y = section.axes[0], section.axes[1]
    facet = section.axes[2] if len(section.axes) > 2 else None
    panels = [(q, f) for q in section.plotted for f in (facet.values if facet else [None])]
    ncols = 1 if len(panels) == 1 else 2
    cells = len(x.values) * len(y.values)
    size = 5.5 if ncols == 2 else 7.0
    fig = Figure(
        figsize=(size * ncols, (size - 0.6) * math.ceil(len(panels) / ncols) + 0.6), layout="constrained"
    )
    for (q, f), ax in zip(panels, _grid(fig, len(panels), max_cols=ncols), strict=True):
        d = _select(wide, facet, f)
        m = matrix(d, x, y, q)
        im = ax.imshow(m, origin="lower", aspect="auto", cmap="viridis", interpolation="nearest")
        ax.set_xticks(
            range(len(x.values)),
            [fmt_value(v) for v in x.values],
            rotation=90 if len(x.values) > 12 else 0,
            fontsize="small",
        )
        ax.set_yticks(range(len(y.values)), [fmt_value(v) for v in y.values], fontsize="small")
        ax.set_xlabel(section.x_label or x.name)
        ax.set_ylabel(section.y_label or y.name)
        fig.colorbar(im, ax=ax, shrink=0.85)
        ax.set_title(q if facet is None else f"{q}, {facet.name} = {fmt_value(f)}", fontsize="medium")
        if cells <= ANNOTATE_CELLS:
            _annotate(ax, m, fontsize=7 if cells <= 100 else 5)
    fig.suptitle(f"{section.title} (exact)")
    return png(fig)


def matrix(d: pd.DataFrame, x: Axis, y: Axis, quantity: str) -> np.ndarray:
    """``quantity`` as a (y, x) array in the axes' value order (NaN where absent)."""
    xi = {v: i for i, v in enumerate(x.values)}
    yi = {v: i for i, v in enumerate(y.values)}
    m = np.full((len(y.values), len(x.values)), np.nan)
    for xv, yv, q in zip(d[x.name], d[y.name], d[quantity], strict=True):
        m[yi[yv], xi[xv]] = np.nan if q is None else float(q)
    return m


def _annotate(ax, m: np.ndarray, *, fontsize: float) -> None:
    finite = m[np.isfinite(m)]
    if finite.size == 0:
        return
    lo, hi = float(finite.min()), float(finite.max())
    small = hi <= 1.0 and lo >= 0.0
    for (i, j), v in np.ndenumerate(m):
        if not np.isfinite(v):
            continue
        # dark text on the bright (yellow) end of viridis, light text elsewhere
        light = hi == lo or (v - lo) / (hi - lo) < 0.6
        text = f"{v:.2f}" if small else f"{v:.3g}"
        ax.text(j, i, text, ha="center", va="center", fontsize=fontsize, color="white" if light else "black")


def validation_chart(
    title: str,
    labels: Sequence[str],
    exact: np.ndarray,
    simulated: np.ndarray,
    se: np.ndarray,
    z: np.ndarray,
    trials: int,
) -> bytes:
    """Exact outcome probabilities (bars) beside the simulated ones (±2 SE), and the
    outcomes' z-scores from the validation."""
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=(3, 2))
    pos = np.arange(len(labels))
    left.bar(pos, exact, color="#9ecae1", label="exact")
    left.errorbar(
        pos, simulated, yerr=2 * se, fmt="o", ms=3, color="black", capsize=3, label="simulated ± 2 SE"
    )
    left.set_xticks(pos, labels, rotation=30, ha="right", fontsize="small")
    left.set_ylabel("probability")
    left.legend(fontsize="small")
    # an impossible outcome that was observed has z = inf: draw it at the axis edge, red
    z = np.clip(np.asarray(z, dtype=float), -10, 10)
    right.bar(pos, z, color=["#d62728" if abs(v) > 4 else "#7f7f7f" for v in z])
    for level in (-2, 2):
        right.axhline(level, color="black", lw=0.6, ls="--")
    right.axhline(0, color="black", lw=0.6)
    right.set_xticks(pos, labels, rotation=30, ha="right", fontsize="small")
    right.set_ylabel("z (simulated − exact) / sd")
    fig.suptitle(f"{title} (exact vs simulated, {trials:,} trials)")
    return png(fig)
