"""A report's figures as pictures: PNG bytes from a matplotlib figure with its own canvas
(no pyplot state), in a wide form for a screen and a narrow one for a phone.

>>> fig = _figure(figsize=(8, 3), layout="constrained")
>>> ax = fig.subplots()
>>> wide, narrow = pictures(fig)
>>> wide[1:4] == narrow[1:4] == b"PNG", float(fig.get_size_inches()[0]) == NARROW_INCHES
(True, True)
"""

from __future__ import annotations

import io
import math
from typing import Any

from matplotlib.figure import Figure

DPI = 96


def _figure(**kwargs: Any) -> Figure:
    """A figure with its own Agg canvas (no pyplot state), so it can be drawn and measured."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig


def png(fig: Figure) -> bytes:
    """The figure as PNG bytes (no software stamp, so equal figures give equal bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


# A phone's page is about 370 px wide: a figure this wide (in inches at DPI) shows its
# text at the size it was drawn (8-10 pt), where a 10-inch figure shrunk to fit shows it
# at 4-5 px.
NARROW_INCHES = 4.0
NARROW_PANEL_INCHES = 2.7


def narrow_png(fig: Figure) -> bytes:
    """The figure's narrow form as PNG bytes: its panels stacked in one column at
    :data:`NARROW_INCHES` wide (a tall figure scrolls; a wide one would shrink its text),
    the legends gathered under it and the title wrapped, so a phone shows it at the size
    it was drawn. Changes ``fig``: draw its wide form (:func:`png`) first."""
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    nrows = len(panels)
    grid = fig.add_gridspec(nrows, 1)
    for i, ax in enumerate(panels):
        ax.set_subplotspec(grid[i, 0])
    # the panels' legends become one under the figure (a legend beside a panel would take
    # half of a narrow width): "outside" places it where the constrained layout keeps room
    handles, labels, title = [], [], None
    for ax in panels:
        old = ax.get_legend()
        if old is None:
            continue
        for h, t in zip(old.legend_handles, old.get_texts(), strict=True):
            if t.get_text() not in labels:
                handles.append(h)
                labels.append(t.get_text())
        title = title or old.get_title().get_text() or None
        old.remove()
    cols = 1 if any(len(t) > 22 for t in labels) else min(3, len(labels))
    legend_rows = math.ceil(len(labels) / cols) + bool(title) if labels else 0
    if labels:
        fig.legend(
            handles, labels, title=title, loc="outside lower center", ncols=cols, fontsize="small",
            title_fontsize="small", frameon=False,
        )  # fmt: skip
    if fig._suptitle is not None:  # matplotlib keeps the title Text there
        fig._suptitle.set_wrap(True)
    height = NARROW_PANEL_INCHES * nrows + 0.22 * legend_rows + 0.7
    fig.set_size_inches(NARROW_INCHES, height)
    return png(fig)


def pictures(fig: Figure) -> tuple[bytes, bytes]:
    """The figure's wide and narrow forms as PNG bytes (see :func:`narrow_png`)."""
    return png(fig), narrow_png(fig)
