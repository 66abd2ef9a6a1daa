"""A report's pictures without drawing them, for the tests of a report's folder, files,
words and page layout: a white PNG of the size the figure would be drawn at (its bytes and
its pixel size are all those tests read), for a fraction of drawing's time (text layout
was three quarters of a report's build)."""

from __future__ import annotations

import io

from matplotlib.figure import Figure
from PIL import Image

from critlab.analysis.report.picture import DPI


def blank_png(fig: Figure) -> bytes:
    """A white PNG of ``fig``'s size at the report's :data:`DPI`."""
    width, height = (max(1, round(float(v) * DPI)) for v in fig.get_size_inches())
    buf = io.BytesIO()
    Image.new("1", (width, height), 1).save(buf, format="PNG")
    return buf.getvalue()
