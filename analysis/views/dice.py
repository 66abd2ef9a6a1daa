"""Dice distributions as people read them: ``critlab dice``'s table, its JSON, and
:func:`compare` for a notebook.

One row a value, with ``P(= v)``, ``P(>= v)`` and ``P(<= v)`` as percentages with two
decimals ("<0.01%" for a positive probability below, ">99.99%" for one short of 1 above).
Faces are never merged; only an expression without a maximum (an explosion) has its
long tail cut, at :data:`SHOWN` cumulative, into one "v or more" row (and one without a
minimum, "v or less"). Several expressions print side by side over the union of their
values, one column group each, in blocks that fit :data:`WIDTH` columns.

>>> from critlab.analysis.dice.notation import parse
>>> print("\\n".join(table_lines([parse("2d4")])))
2d4: 2 d4 (mean 5, sd 1.58)
value   P(= v) P(>= v) P(<= v)
    2    6.25% 100.00%   6.25%
    3   12.50%  93.75%  18.75%
    4   18.75%  81.25%  37.50%
    5   25.00%  62.50%  62.50%
    6   18.75%  37.50%  81.25%
    7   12.50%  18.75%  93.75%
    8    6.25%   6.25% 100.00%
>>> print("\\n".join(table_lines([parse("1d6!")])[-3:]))
        31   <0.01%   0.01%  99.99%
        32   <0.01%   0.01%  99.99%
33 or more    0.01%   0.01% 100.00%
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from critlab.analysis.dice.notation import DiceExpr, parse
from critlab.analysis.dice.reading import reading
from critlab.analysis.dist import Dist
from critlab.analysis.text.digits import number
from critlab.analysis.text.human import percent

WIDTH = 80
SHOWN = 0.9999
"""The cumulative probability an unbounded expression's rows cover before its tail is cut."""
_COLUMNS = ("P(= v)", "P(>= v)", "P(<= v)")
_CELL = 7  # "100.00%"


def heading(expr: DiceExpr) -> list[str]:
    """The lines about an expression above the table: its reading in plain words
    (:func:`critlab.analysis.dice.reading.reading`), its mean and standard deviation,
    wrapped to :data:`WIDTH` columns."""
    d = expr.dist()
    text = f"{reading(expr)} (mean {d.mean:.4g}, sd {d.sd:.3g})"
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ", break_on_hyphens=False)


@dataclass(frozen=True)
class _Column:
    """One expression's probabilities by value, ``P(X <= v)`` from below and ``P(X >= v)``
    from above (each a sum of positive terms, so a far value's small one is kept)."""

    dist: Dist

    def at(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        d = self.dist
        idx = values - d.min if d.probs.size else np.zeros(0, dtype=np.int64)
        inside = (idx >= 0) & (idx < d.probs.size)
        below = np.concatenate(([0.0], np.cumsum(d.probs)))
        above = np.concatenate((np.cumsum(d.probs[::-1])[::-1], [0.0])) + d.tail
        eq = np.where(inside, d.probs[np.clip(idx, 0, max(d.probs.size - 1, 0))], 0.0)
        k = np.clip(idx, 0, d.probs.size)
        ge = np.where(idx < 0, 1.0, above[k])
        le = np.where(idx < 0, 0.0, below[np.clip(idx + 1, 0, d.probs.size)] * 1.0)
        return eq, ge, le


def _shown_range(expr: DiceExpr, d: Dist) -> tuple[int, int]:
    """The values shown one by one: the whole support of a bounded expression, and for
    an unbounded one until :data:`SHOWN` of its mass is covered on that side."""
    values, probs = d.values, d.probs
    lo, hi = d.min, d.max
    if expr.max is None and probs.size:
        cut = int(np.searchsorted(np.cumsum(probs), SHOWN, side="left"))
        hi = int(values[min(cut, probs.size - 1)])
    if expr.min is None and probs.size:
        cut = int(np.searchsorted(np.cumsum(probs[::-1]), SHOWN, side="left"))
        lo = int(values[::-1][min(cut, probs.size - 1)])
    return lo, hi


def _rows(exprs: Sequence[DiceExpr]) -> tuple[list[str], list[list[tuple[float, float, float]]]]:
    """Row labels and, per row, each expression's ``(P(= v), P(>= v), P(<= v))``."""
    dists = [e.dist() for e in exprs]
    ranges = [_shown_range(e, d) for e, d in zip(exprs, dists, strict=True)]
    lo, hi = min(r[0] for r in ranges), max(r[1] for r in ranges)
    support = np.zeros(hi - lo + 1, dtype=bool)
    for d in dists:
        v = d.values[(d.probs > 0) & (d.values >= lo) & (d.values <= hi)]
        support[v - lo] = True
    values = np.flatnonzero(support) + lo
    columns = [_Column(d).at(values) for d in dists]
    labels = [str(v) for v in values]
    cells = [[(float(c[0][i]), float(c[1][i]), float(c[2][i])) for c in columns] for i in range(values.size)]
    below = [d.probs[: max(lo - d.min, 0)].sum() for d in dists]
    if any(b > 0 for b in below):
        labels.insert(0, f"{lo - 1} or less")
        cells.insert(0, [(b, 1.0, b) for b in below])
    above = [d.probs[max(hi + 1 - d.min, 0) :].sum() + d.tail for d in dists]
    if any(a > 0 for a in above):
        labels.append(f"{hi + 1} or more")
        cells.append([(a, a, 1.0) for a in above])
    return labels, cells


def table_lines(exprs: Sequence[DiceExpr]) -> list[str]:
    """The lines ``critlab dice EXPR [EXPR ...]`` prints: one reading line an expression,
    then the table (in blocks of column groups that fit :data:`WIDTH` columns)."""
    labels, cells = _rows(exprs)
    lines = [line for e in exprs for line in heading(e)]
    label_w = max([len("value"), *map(len, labels)])
    group_w = 3 * _CELL + 2 + 2  # three cells, a space between, and two before the group
    per_block = max(1, (WIDTH - label_w) // group_w)
    several = len(exprs) > 1
    for start in range(0, len(exprs), per_block):
        block = range(start, min(start + per_block, len(exprs)))
        if start:
            lines.append("")
        if several:
            lines.append(
                (
                    " " * label_w + "".join(f"  {exprs[j].text:^{group_w - 2}.{group_w - 2}}" for j in block)
                ).rstrip()
            )
        head = " ".join(f"{c:>{_CELL}}" for c in _COLUMNS)
        lines.append(f"{'value':>{label_w}}" + "".join(f"  {head}" for _ in block))
        for label, row in zip(labels, cells, strict=True):
            groups = (
                " ".join(f"{percent(p) if p or k else '-':>{_CELL}}" for k, p in enumerate(row[j]))
                for j in block
            )
            lines.append(f"{label:>{label_w}}" + "".join(f"  {g}" for g in groups).rstrip())
    return lines


def to_json(expr: DiceExpr) -> dict[str, Any]:
    """``critlab dice --json``'s object for one expression: the expression as written, its
    dialect and critlab's notation of it, its reading, exact distribution (``"tail"``
    last), mean and standard deviation, 15 significant digits."""
    d = expr.dist()
    dialect, written = expr.source.split(" ", 1) if expr.source else ("critlab", expr.text)
    return {
        "expression": written,
        "dialect": dialect,
        "notation": expr.text,  # critlab's text of it (the same in critlab's own dialect)
        "reading": reading(expr),
        "distribution": {str(k): number(v) for k, v in d.to_dict(tail=True).items()},
        "mean": number(d.mean),
        "sd": number(d.sd),
    }


def compare(*expressions: str) -> Any:
    """Several dice expressions side by side (AnyDice's favourite view): a DataFrame
    indexed by value, one ``P(= v)`` column an expression, its ``.attrs`` the expressions.

    ``.plot()`` of the frame is pandas'; :func:`plot_compare` draws it in the project's
    style.

    >>> df = compare("2d6", "1d12")
    >>> df.loc[7].round(4).tolist(), list(df.columns)
    ([0.1667, 0.0833], ['2d6', '1d12'])
    """
    import pandas as pd

    if not expressions:
        raise ValueError("compare needs at least one dice expression, e.g. compare('2d6', '1d12')")
    exprs = [parse(e) for e in expressions]
    dists = [e.dist() for e in exprs]
    lo, hi = min(d.min for d in dists), max(d.max for d in dists)
    values = np.arange(lo, hi + 1)
    frame = pd.DataFrame({e.text: [d.pmf(int(v)) for v in values] for e, d in zip(exprs, dists, strict=True)})
    frame.index = pd.Index(values, name="value")
    frame.attrs["expressions"] = [e.text for e in exprs]
    return frame


def plot_compare(*expressions: str, ax: Any = None, kind: str = "eq") -> Any:
    """:func:`compare`'s distributions as lines in the project's style, one an expression;
    ``kind="ge"`` draws ``P(X >= v)`` ("at least"). Returns the Axes."""
    from critlab.analysis.display.dist import new_axes
    from critlab.analysis.style import variant_colors

    frame = compare(*expressions)
    if kind == "ge":
        frame = frame[::-1].cumsum()[::-1]
    elif kind != "eq":
        raise ValueError(f"kind = {kind!r}: must be 'eq' (P(X = v)) or 'ge' (P(X >= v))")
    ax = new_axes(ax)
    colors = variant_colors(list(frame.columns))
    for name in frame.columns:
        ax.plot(frame.index, frame[name] * 100, marker="o", markersize=3, label=name, color=colors[name])
    ax.set_xlabel("value")
    ax.set_ylabel("P(X = v), %" if kind == "eq" else "P(X >= v), %")
    ax.legend()
    return ax


__all__ = ["SHOWN", "WIDTH", "compare", "heading", "percent", "plot_compare", "table_lines", "to_json"]
