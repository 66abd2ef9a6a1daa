"""The readable table of ``critlab dice``: one row per value of positive probability, with
``P(X = v)`` and ``P(X >= v)``; a long support is shown compactly.

A support of more than ``max_rows`` values keeps its body: the rows at either end that
together hold less than :data:`FOLD_MASS` are folded into one line each, and a body still
too long is grouped into ranges of equal width. The table says how many rows it folded.

>>> from critlab.analysis.dice.notation import parse
>>> print("\\n".join(table_lines(parse("2d4"))))
2d4: mean 5.000000, sd 1.581139, range 2..8, tail 0
   value      P(X = v)     P(X >= v)
       2  0.0625000000  1.0000000000  ############
       3  0.1250000000  0.9375000000  #########################
       4  0.1875000000  0.8125000000  ######################################
       5  0.2500000000  0.6250000000  ##################################################
       6  0.1875000000  0.3750000000  ######################################
       7  0.1250000000  0.1875000000  #########################
       8  0.0625000000  0.0625000000  ############
"""

from __future__ import annotations

import math

import numpy as np

from critlab.analysis.dist import Dist
from critlab.analysis.dice.notation import DiceExpr

MAX_ROWS = 40
# The mass the folded rows at each end of a long support may hold together.
FOLD_MASS = 1e-6
BAR = 50  # characters of the most probable row's bar


def table_lines(expr: DiceExpr, max_rows: int = MAX_ROWS) -> list[str]:
    """The lines ``critlab dice EXPR`` prints: a summary line, a header, and the rows."""
    d = expr.dist()
    hi = "(no maximum)" if expr.max is None else str(d.max)
    lo = "(no minimum)" if expr.min is None else str(d.min)
    lines = [f"{expr.text}: mean {d.mean:.6f}, sd {d.sd:.6f}, range {lo}..{hi}, tail {d.tail:.3g}"]
    lines.append(f"{'value':>8}  {'P(X = v)':>12}  {'P(X >= v)':>12}")
    values, probs, at_least = _rows(d)
    top = float(probs.max()) if probs.size else 1.0
    if values.size <= max_rows:
        lines += [_row(str(v), p, g, top) for v, p, g in zip(values, probs, at_least, strict=True)]
        return lines
    # fold each end while what it holds stays below FOLD_MASS
    below = np.cumsum(probs)
    first = int(np.searchsorted(below, FOLD_MASS, side="left"))
    last = int(np.searchsorted(at_least[::-1], FOLD_MASS, side="left"))
    last = values.size - 1 - last
    first, last = min(first, last), max(first, last)
    out: list[str] = []
    if first:
        out.append(
            f"{'< ' + str(values[first]):>8}  {below[first - 1]:.10f}  {1.0:.10f}  ({first} rows folded)"
        )
    body = slice(first, last + 1)
    bv, bp, bg = values[body], probs[body], at_least[body]
    width = 1 if bv.size <= max_rows else math.ceil((int(bv[-1]) - int(bv[0]) + 1) / max_rows)
    if width == 1:
        out += [_row(str(v), p, g, top) for v, p, g in zip(bv, bp, bg, strict=True)]
    else:
        groups = (bv - bv[0]) // width
        starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
        sums = np.add.reduceat(bp, starts)
        ends = np.r_[starts[1:], bv.size] - 1
        gtop = float(sums.max())
        for s, e, p in zip(starts, ends, sums, strict=True):
            out.append(_row(f"{bv[s]}..{bv[e]}" if e > s else str(bv[s]), p, bg[s], gtop))
    if last < values.size - 1:
        folded = values.size - 1 - last
        out.append(
            f"{'> ' + str(values[last]):>8}  {at_least[last + 1]:.10f}  {at_least[last + 1]:.10f}"
            f"  ({folded} rows folded)"
        )
    shown = f"{values.size} values of positive probability"
    if width > 1:
        shown += f"; the body grouped by {width} values"
    lines += out
    lines.append(f"({shown}; rows holding less than {FOLD_MASS:g} at either end folded)")
    return lines


def _rows(d: Dist) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The values of positive probability, their probabilities and ``P(X >= v)`` (the
    tail, above every value, included)."""
    keep = d.probs > 0
    values, probs = d.values[keep], d.probs[keep]
    # summed from the top, so a far value's small P(X >= v) is not lost in 1 - cdf
    at_least = np.cumsum(probs[::-1])[::-1] + d.tail
    return values, probs, at_least


def _row(label: str, p: float, at_least: float, top: float) -> str:
    bar = "#" * round(p / top * BAR) if top > 0 else ""
    return f"{label:>8}  {p:.10f}  {min(at_least, 1.0):.10f}  {bar}".rstrip()


__all__ = ["FOLD_MASS", "MAX_ROWS", "table_lines"]
