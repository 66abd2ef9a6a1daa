"""The validation figure of a report: exact outcome probabilities beside the simulated
ones, and each bin's z, drawn in the report's style (:mod:`critlab.analysis.report.figures`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from critlab.analysis import style
from critlab.analysis.report.picture import _figure, pictures, png


def validation_figure(
    title: str,
    labels: Sequence[str],
    exact: np.ndarray,
    simulated: np.ndarray,
    se: np.ndarray,
    z: np.ndarray,
    trials: int,
    *,
    extra: tuple[str, float] | None = None,
    worst: str | None = None,
) -> Figure:
    """Exact outcome probabilities (bars) beside the simulated ones (± 1 SE, the SE from
    the exact probability), and each outcome's z from the validation; ``extra`` adds the
    worst pooled bin when it is not an outcome, and the bin named ``worst`` is drawn in
    the warm colour. No z threshold is drawn: the verdict is the chi-square's, not a line's.
    Labels are in words already."""
    fig = _figure(figsize=(9, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=(3, 2))
    pos = np.arange(len(labels))
    names = list(labels)
    left.bar(pos, exact, color="#bcd3e6", label="exact")
    left.errorbar(pos, simulated, yerr=se, fmt="o", ms=3, color="black", capsize=3, label="simulated ± SE")
    left.set_xticks(pos, names, rotation=30, ha="right", fontsize="small")
    left.set_ylabel("probability")
    # above the panel, outside the bars, so it never covers the tallest one
    left.legend(
        fontsize="small", loc="lower left", bbox_to_anchor=(0.0, 1.0), ncols=2, frameon=False,
        borderaxespad=0.2,
    )  # fmt: skip
    zs = list(np.asarray(z, dtype=float))
    znames = list(names)
    if extra is not None:
        znames.append(extra[0])
        zs.append(extra[1])
    # an impossible outcome that was observed has z = inf: draw it at the axis edge
    zv = np.clip(np.array(zs, dtype=float), -10, 10)
    warm = style.polar_colour(-2)
    colours = [warm if worst is not None and n == worst else style.NEUTRAL for n in znames]
    zpos = np.arange(len(znames))
    right.bar(zpos, zv, color=colours)
    right.axhline(0, color="black", lw=0.6)
    right.set_xticks(zpos, znames, rotation=30, ha="right", fontsize="small")
    right.set_ylabel("z = (simulated − exact) / SE")
    if worst is not None:
        right.set_title(f"largest |z|: {worst}", fontsize="small", color=warm)
    fig.suptitle(f"{title} (exact vs simulated, {trials:,} trials)", fontsize="medium")
    return fig


def validation_chart(*args: Any, **kwargs: Any) -> bytes:
    """:func:`validation_figure` as PNG bytes."""
    return png(validation_figure(*args, **kwargs))


def validation_pictures(*args: Any, **kwargs: Any) -> tuple[bytes, bytes]:
    """:func:`validation_figure`'s wide and narrow forms as PNG bytes."""
    return pictures(validation_figure(*args, **kwargs))
