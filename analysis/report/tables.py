"""The report's tables as a designer reads them: one number format per column, no
floating-point noise, long tables reduced to the rows that matter (the CSV beside the
report holds every row).

>>> column_format([0.05, 0.1, 2.45e-16], probability=True)(2.45e-16)
'0.00%'
>>> column_format([0.84, 0.0175], probability=True)(0.84)
'84.00%'
>>> [column_format([4.79575, 3.235, 1.67425])(v) for v in (4.79575, 1.67425)]
['4.796', '1.674']
>>> column_format([1.0, 4.0, None])(4.0), column_format([1.0, 4.0, None])(None)
('4', '–')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.report.config import Axis, SweepSection
from critlab.analysis.report.doc import Table, fmt_value
from critlab.analysis.report.words import words

# Below this an exact value is the noise of a floating-point sum, shown as 0.
NOISE = 1e-12
# Decimals at most in a column: a probability below 1e-6 shows as "< 0.0001%".
MAX_DECIMALS = 6
# A long table on the page keeps at most about this many rows (every row is in the CSV).
MAX_ROWS = 40


def _clean(values: Sequence[Any]) -> list[float]:
    out = []
    for v in values:
        if v is None:
            continue
        x = float(v)
        if math.isfinite(x):
            out.append(0.0 if abs(x) < NOISE else x)
    return out


def is_probability(name: str) -> bool:
    """Whether a quantity's name says it is a probability (an outcome's share, ``p_*``,
    ``P(...)``) rather than an amount.

    >>> is_probability("p_down"), is_probability("P(serious or worse)"), is_probability("expected_damage")
    (True, True, False)
    """
    return name.startswith(("p_", "P("))


def column_format(values: Sequence[Any], *, probability: bool = False) -> Callable[[Any], str]:
    """One format for a whole column: integers as integers; probabilities in percent
    (as every sentence and figure of the report), with two decimals or enough for the
    smallest non-zero value's two significant digits (at most :data:`MAX_DECIMALS`);
    other amounts with four significant digits of the largest. Noise below 1e-12 is 0; a
    missing value is "–"."""
    clean = _clean(values)
    if clean and all(x.is_integer() and abs(x) < 1e15 for x in clean) and not probability:
        decimals = 0
    elif probability:
        small = [100 * abs(x) for x in clean if x != 0]
        need = 1 - math.floor(math.log10(min(small))) if small else 2
        decimals = max(2, min(MAX_DECIMALS - 2, need))
    else:
        big = max((abs(x) for x in clean), default=0.0)
        decimals = 2 if big == 0 else max(0, min(MAX_DECIMALS, 3 - math.floor(math.log10(big))))
    scale, unit = (100.0, "%") if probability else (1.0, "")
    floor = 0.5 * 10.0**-decimals

    def show(v: Any) -> str:
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            return "–"
        x = float(v)
        if abs(x) < NOISE:
            x = 0.0
        if x != 0 and abs(scale * x) < floor and probability:
            return f"< {10.0**-decimals:.{decimals}f}%"
        return f"{scale * x:.{decimals}f}{unit}"

    return show


def name_words(section: SweepSection, name: str) -> str:
    """A column's or axis's name as a header shows it: its declared label and unit, or
    the name in words (``expected_damage`` → "expected damage")."""
    model = getattr(section, "model", None)
    said = model.said(name) if model is not None else None
    if said:  # as the section's model declares it (an encounter's "ogre's hit points")
        return said
    spec_cls = type(next(iter(section.base_specs.values()))) if section.base_specs else None
    return words(name, spec_cls)


def _quantity_is_probability(section: SweepSection, q: str) -> bool:
    return q in section.outcomes or q == section.label or is_probability(q)


def _thin(section: SweepSection, wide: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """At most about :data:`MAX_ROWS` rows: every k-th value of the x axis (its ends kept)."""
    if len(wide) <= MAX_ROWS or not section.axes:
        return wide, ""
    x = section.axes[0]
    per_x = max(1, len(wide) // len(x.values))
    stride = math.ceil(len(x.values) * per_x / MAX_ROWS)
    if stride <= 1 or per_x > MAX_ROWS:
        return wide.head(MAX_ROWS), f"the first {MAX_ROWS} of {len(wide)} rows"
    keep = list(x.values[::stride])
    if x.values[-1] not in keep:
        keep.append(x.values[-1])
    part = wide[wide[x.name].isin(keep)]
    return part, f"every {_ordinal(stride)} {name_words(section, x.name)} of {len(wide)} rows"


def _ordinal(n: int) -> str:
    return {2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def sweep_tables(section: SweepSection, wide: pd.DataFrame, csv: str, columns: list[str]) -> list[Table]:
    """The section's tables of its ``columns``: long (a row per point) or pivoted (x down,
    the second axis across; one table per quantity and value of a third axis), each column
    in one format."""
    axes = section.axes
    facet_values = axes[2].values if len(axes) > 2 else (None,)
    layout = section.table
    if layout == "auto":
        pivots = len(columns) * len(facet_values)
        layout = (
            "pivot" if len(axes) >= 2 and section.chart in ("heatmap", "line") and pivots <= 6 else "long"
        )
    if layout == "none":
        return []
    if layout == "long" or len(axes) < 2:
        return [_long_table(section, wide, columns, csv)]
    return _pivot_tables(section, wide, columns, facet_values, csv)


def _long_table(section: SweepSection, wide: pd.DataFrame, columns: list[str], csv: str) -> Table:
    lead = [a.name for a in section.axes][::-1]
    shown, thinned = _thin(section, wide)
    formats = {
        q: column_format(wide[q].tolist(), probability=_quantity_is_probability(section, q)) for q in columns
    }
    rows = [
        [fmt_value(r[n]) for n in lead] + [formats[q](r[q]) for q in columns]
        for r in shown.to_dict("records")
    ]
    caption = f"Exact values; {thinned}." if thinned else "Exact values."
    header = [name_words(section, n) for n in (*lead, *columns)]
    return Table(header=header, rows=rows, caption=caption, label_columns=len(lead), csv=csv)


def _pivot_tables(
    section: SweepSection, wide: pd.DataFrame, columns: list[str], facet_values, csv: str
) -> list[Table]:
    x, y = section.axes[0], section.axes[1]
    stride = math.ceil(len(x.values) / MAX_ROWS)
    xs = [*x.values[::stride], *([x.values[-1]] if (len(x.values) - 1) % stride else [])]
    thinned = f"; every {_ordinal(stride)} {name_words(section, x.name)}" if stride > 1 else ""
    tables = []
    for q in columns:
        show = column_format(wide[q].tolist(), probability=_quantity_is_probability(section, q))
        for f in facet_values:
            d = wide if f is None else wide[wide[section.axes[2].name] == f]
            m = matrix(d, x, y, q)
            rows = [
                [fmt_value(xv), *(show(m[j, i]) for j in range(len(y.values)))]
                for i, xv in enumerate(x.values)
                if xv in xs
            ]
            where = "" if f is None else f", {name_words(section, section.axes[2].name)} {fmt_value(f)}"
            tables.append(
                Table(
                    header=[
                        f"{name_words(section, x.name)} ↓ {name_words(section, y.name)} →",
                        *(fmt_value(v) for v in y.values),
                    ],
                    rows=rows,
                    caption=f"{name_words(section, q)}{where} (exact{thinned}).",
                    csv=csv,
                )
            )
    return tables


def matrix(d: pd.DataFrame, x: Axis, y: Axis, quantity: str) -> np.ndarray:
    """``quantity`` as a (y, x) array in the axes' value order (NaN where absent)."""
    xi = {v: i for i, v in enumerate(x.values)}
    yi = {v: i for i, v in enumerate(y.values)}
    m = np.full((len(y.values), len(x.values)), np.nan)
    for xv, yv, q in zip(d[x.name], d[y.name], d[quantity], strict=True):
        m[yi[yv], xi[xv]] = np.nan if q is None else float(q)
    return m


def table_summary(tables: list[Table], points: int) -> str:
    """The one line a collapsed table shows: what it holds and where the full CSV is."""
    n = len(tables)
    what = "table" if n == 1 else f"{n} tables"
    return f"Exact values: {what}, {points} points"


def axis_values_text(axis: Axis) -> str:
    """An axis's values as a short range text: ``0..6`` or ``lethal, risky, stable``.

    >>> axis_values_text(Axis("crit_range", (0, 1, 2, 3))), axis_values_text(Axis("m", ("a", "b")))
    ('0..3', 'a, b')
    """
    values = axis.values
    if len(values) > 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return f"{values[0]}..{values[-1]}"
    return ", ".join(fmt_value(v) for v in values)
