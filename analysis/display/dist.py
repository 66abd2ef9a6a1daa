"""How results show themselves in Jupyter: tables of percentages, verdicts in words, and
plots in the project's style.

Every displayed type (:class:`~critlab.analysis.dist.Dist`, exact and simulated results,
a validation) gets a short ``__repr__`` and an HTML table from here (results' outcome
tables and plots from :mod:`critlab.analysis.display.results`), so a notebook cell that
ends in one shows the answer the way the command line prints it, not the object's
fields. Probabilities are percentages with two decimals (:func:`percent`), never rounded
to a false 0 or 100.

>>> from critlab.analysis.dist import Dist
>>> html = dist_html(Dist.die(4))
>>> html.count("<tr>"), "25.00%" in html
(5, True)
"""

from __future__ import annotations

import html as _html
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from critlab.analysis.style import QUALITATIVE
from critlab.analysis.text.human import percent

# Dist is named, never imported: it imports this module for its display
Dist = Any

SHOWN = 0.9999
"""The cumulative probability a long table's rows cover before its ends are folded."""
MAX_ROWS = 40  # beyond this many values, an HTML table folds its ends (at SHOWN)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], caption: str = "") -> str:
    """An HTML table (escaped cells, numbers right-aligned by the notebook's style)."""
    esc = _html.escape
    out = ['<table class="critlab">']
    if caption:
        out.append(f'<caption style="text-align:left">{esc(caption)}</caption>')
    out.append("<thead><tr>" + "".join(f"<th>{esc(str(h))}</th>" for h in headers) + "</tr></thead><tbody>")
    out += ["<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in row) + "</tr>" for row in rows]
    out.append("</tbody></table>")
    return "\n".join(out)


def dist_rows(d: Dist, *, fold: bool | None = None) -> list[tuple[str, str, str, str]]:
    """``(value, P(= v), P(>= v), P(<= v))`` rows of a distribution's values of positive
    probability; with more than :data:`MAX_ROWS` of them (or ``fold=True``) its ends beyond
    :data:`SHOWN` cumulative are one "v or less" and one "v or more" row."""
    keep = d.probs > 0
    values, probs = d.values[keep], d.probs[keep]
    le = np.cumsum(probs)
    ge = np.cumsum(probs[::-1])[::-1] + d.tail
    first, last = 0, values.size - 1
    if fold or (fold is None and values.size > MAX_ROWS):
        first = int(np.searchsorted(ge[::-1], SHOWN, side="left"))
        first = max(values.size - 1 - first, 0)
        last = min(int(np.searchsorted(le, SHOWN, side="left")), values.size - 1)
        first = min(first, last)
    rows = []
    if first > 0:
        rows.append(
            (f"{values[first - 1]} or less", percent(le[first - 1]), "100.00%", percent(le[first - 1]))
        )
    for i in range(first, last + 1):
        rows.append((str(values[i]), percent(probs[i]), percent(ge[i]), percent(le[i])))
    rest = (ge[last + 1] if last + 1 < values.size else 0.0) + (d.tail if last + 1 >= values.size else 0.0)
    if last + 1 < values.size or d.tail > 0:
        rows.append((f"{values[last] + 1} or more", percent(rest), percent(rest), "100.00%"))
    return rows


def dist_summary(d: Dist) -> str:
    """One line: mean, standard deviation, range and tail."""
    tail = f", tail {d.tail:.2g}" if d.tail else ""
    return f"mean {d.mean:.4g}, sd {d.sd:.3g}, range {d.min}..{d.max}{tail}"


def dist_html(d: Dist, caption: str = "") -> str:
    """A distribution as an HTML table of percentages under its one-line summary."""
    return table(("value", "P(= v)", "P(>= v)", "P(<= v)"), dist_rows(d), caption or dist_summary(d))


def short(kind: str, system: str, items: dict[str, float], extra: str = "") -> str:
    """A one-line ``__repr__``: the kind, system and the outcomes as percentages."""
    body = ", ".join(f"{k} {percent(p)}" for k, p in list(items.items())[:8])
    more = ", ..." if len(items) > 8 else ""
    return f"<{kind} {system}: {body}{more}{extra}>"


def new_axes(ax: Any = None) -> Any:
    """``ax``, or the Axes of a new figure in the project's size and layout."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
    return ax


def plot_dist(d: Dist, *, ax: Any = None, label: str | None = None, color: str | None = None) -> Any:
    """``P(X = v)`` as bars in percent (the project's first qualitative colour); the Axes."""
    ax = new_axes(ax)
    keep = d.probs > 0
    ax.bar(d.values[keep], d.probs[keep] * 100, width=0.85, color=color or QUALITATIVE[0], label=label)
    ax.set_xlabel("value")
    ax.set_ylabel("P(X = v), %")
    ax.spines[["top", "right"]].set_visible(False)
    return ax


__all__ = [
    "MAX_ROWS",
    "SHOWN",
    "dist_html",
    "new_axes",
    "dist_rows",
    "dist_summary",
    "plot_dist",
    "short",
    "table",
]
