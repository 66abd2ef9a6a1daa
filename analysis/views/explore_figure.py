"""What the explorer draws of an exact answer: the outcome bars in the style's colours
beside the main distribution, as SVG display data for an ipywidgets ``Output``; and the
outcomes and metrics as a table of percentages.

One :class:`matplotlib.figure.Figure` is drawn again at each point (not through pyplot, so
a notebook shows it once, where the explorer puts it).

>>> from critlab.analysis.systems import get_system
>>> model = get_system("thac0").model().at(thac0=15, target_ac=5)
>>> drawing = Drawing()
>>> "<svg" in drawing.draw(model, model.exact())["data"]["image/svg+xml"]
True
>>> [ax.get_title(loc="left") for ax in drawing.figure.axes]
['outcomes (exact)', 'damage: mean 2.7 (exact)']
>>> "<td>critical_hit</td><td>5.00%</td>" in answer_table(model.exact())
True
"""

from __future__ import annotations

import html
import io
from typing import Any

from critlab.analysis.display.dist import percent, table

SIZE = (9.5, 3.2)  # inches: two panels side by side in a notebook's width
DPI = 80
# The main distribution is shown over its central mass: a long exploding tail would
# flatten every bar of interest.
SHOWN = 0.999


class Drawing:
    """The explorer's figure: the outcome bars (left) and the main distribution (right).

    The bars are made again only when the labels change (another mode); otherwise their
    heights, their percentages and the distribution's steps are moved, and the figure is
    written as SVG (text left as text): a redraw costs a few milliseconds of artists and
    the SVG's writing, not a new figure's layout.
    """

    def __init__(self) -> None:
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=SIZE, dpi=DPI)
        self.figure.subplots_adjust(left=0.02, right=0.985, bottom=0.2, top=0.88, wspace=0.16)
        self.ax_out, self.ax_dist = self.figure.subplots(1, 2, width_ratios=(1, 1.4))
        from matplotlib.ticker import MaxNLocator, PercentFormatter

        # Few texts: each costs a few milliseconds of every redraw (the SVG writer measures
        # it anew), so the bars carry their percentages and have no y axis of their own.
        self.ax_out.spines[["top", "right", "left"]].set_visible(False)
        self.ax_out.yaxis.set_visible(False)
        self.ax_out.set_title("outcomes (exact)", loc="left", fontsize="medium", y=1.0)
        self.ax_dist.spines[["top", "right"]].set_visible(False)
        self.ax_dist.yaxis.set_major_locator(MaxNLocator(3))
        self.ax_dist.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        self.ax_dist.xaxis.set_major_locator(MaxNLocator(6, integer=True))
        self.ax_dist.set_ylabel("probability")
        # placed once: matplotlib otherwise measures every tick label at each draw to place
        # the axis labels and the titles
        for ax in (self.ax_out, self.ax_dist):
            ax.xaxis.set_label_coords(0.5, -0.14)
            ax.yaxis.set_label_coords(-0.09, 0.5)
        self._labels: tuple[str, ...] | None = None
        self._colours: dict[str, Any] = {}
        self._bars: Any = None
        self._texts: list[Any] = []
        self._steps: Any = None
        self._mean: Any = None

    def _outcomes(self, model: Any, result: Any) -> None:
        labels = tuple(result.labels)
        colours = colours_of(model, labels)
        probs = [float(p) for p in result.probs]
        ax = self.ax_out
        if labels != self._labels or colours != self._colours:
            if self._bars is not None:
                self._bars.remove()
                for t in self._texts:
                    t.remove()
            self._bars = ax.bar(range(len(labels)), probs, color=[colours[lab] for lab in labels])
            ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize="small")
            ax.set_xlim(-0.6, len(labels) - 0.4)
            self._texts = [
                ax.text(i, 0, "", ha="center", va="bottom", fontsize="small") for i in range(len(labels))
            ]
            self._labels, self._colours = labels, colours
        for bar, text, p in zip(self._bars, self._texts, probs, strict=True):
            bar.set_height(p)
            text.set_y(p)
            text.set_text(percent(p))
        ax.set_ylim(0, max(max(probs), 1e-12) * 1.18)

    def _distribution(self, result: Any) -> None:
        import numpy as np

        from critlab.analysis.style import QUALITATIVE

        ax = self.ax_dist
        main = main_distribution(result)
        for artist in (self._steps, self._mean):
            if artist is not None:
                artist.remove()
        self._steps = self._mean = None
        ax.set_axis_on() if main is not None else ax.set_axis_off()
        if main is None:
            ax.set_title("no distribution", loc="left", fontsize="medium", y=1.0)
            return
        name, dist = main
        lo, hi = dist.quantile(1 - SHOWN), dist.quantile(SHOWN)
        keep = (dist.values >= lo) & (dist.values <= hi)
        probs = dist.probs[keep]
        edges = np.arange(lo - 0.5, hi + 1.0)
        self._steps = ax.stairs(probs, edges, fill=True, color=QUALITATIVE[0])
        self._mean = ax.axvline(dist.mean, color="black", ls="--", lw=1)
        ax.set_xlim(edges[0] - 0.5, edges[-1] + 0.5)
        ax.set_ylim(0, float(probs.max()) * 1.1 if probs.size else 1)
        shown = name.replace("_", " ")
        ax.set_xlabel(shown)
        ax.set_title(f"{shown}: mean {dist.mean:.4g} (exact)", loc="left", fontsize="medium", y=1.0)

    def draw(self, model: Any, result: Any) -> dict[str, Any]:
        """Draw ``result`` (the exact answer of ``model``): one display-data output of
        an ipywidgets ``Output``, the figure as SVG."""
        self._outcomes(model, result)
        self._distribution(result)
        return svg_output(self.figure)


def main_distribution(result: Any) -> tuple[str, Any] | None:
    """``(name, Dist)`` of the first distribution the answer has values in, or ``None``."""
    for name, dist in result.distributions.items():
        if dist is not None and dist.probs.size:
            return name, dist
    return None


def colours_of(model: Any, labels: tuple[str, ...]) -> dict[str, Any]:
    """Each outcome label's colour: an ordered palette for a ladder of labels, else its
    polarity's (bad warm, good cool, :func:`critlab.analysis.style.outcome_colors`)."""
    from critlab.analysis.style import ordered_colors, outcome_colors

    if model.ordered:
        return ordered_colors(labels)
    return outcome_colors(labels, model.polarity())


def svg_output(fig: Any) -> dict[str, Any]:
    """``fig`` as one display-data output of an ipywidgets ``Output``: SVG, its text as
    text (no glyphs drawn: about a third faster than a PNG, and sharp at any size)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "critlab"}):
        fig.savefig(buf, format="svg")
    data = {"image/svg+xml": buf.getvalue(), "text/plain": "<explorer figure>"}
    return {"output_type": "display_data", "data": data, "metadata": {}}


def _metric(name: str, value: Any) -> str:
    if value is None:
        return "null"
    # probabilities are named p_... (and the cut-off mass is the tail): shown in percent
    if name.startswith("p_") or name == "tail":
        return percent(float(value))
    return f"{float(value):.6g}"


def answer_table(result: Any) -> str:
    """The outcomes as percentages and the metrics (probabilities as percentages) as HTML,
    side by side."""
    parts = [table(("outcome", "probability"), [(k, percent(p)) for k, p in result.outcomes.items()])]
    if result.metrics:
        parts.append(table(("metric", "value"), [(k, _metric(k, v)) for k, v in result.metrics.items()]))
    cells = "".join(f"<div>{part}</div>" for part in parts)
    return f'<div style="display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start">{cells}</div>'


def refusal_html(reason: str) -> str:
    """A refused point's one-line reason, in the style's warm colour."""
    from critlab.analysis.style import polar_colour

    return f'<span style="color:{polar_colour(-2)}">not allowed: {html.escape(reason)}</span>'


__all__ = ["Drawing", "answer_table", "colours_of", "main_distribution", "refusal_html", "svg_output"]
