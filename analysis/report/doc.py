"""The report as a list of blocks (headings, paragraphs, figures, tables), rendered twice:
as one self-contained HTML page (:mod:`critlab.analysis.report.html`) and as a README.md with
relative figures (:mod:`critlab.analysis.report.markdown`), so both always say the same.

>>> fmt(0.05), fmt(1.25e-05), fmt(None), fmt(4.5), fmt(2.45e-16)
('0.0500', '1.25e-05', '–', '4.5000', '0.0000')
>>> fmt_se(0.051234, 0.000493)
'0.05123 ± 0.00049'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str


@dataclass(frozen=True)
class Paragraph:
    text: str
    # "ok" / "fail" (the report's status banner, a section's verdict), "warn" (a loud
    # caution, such as a baseline from another configuration), "meta" (run details),
    # "note", or "" (plain)
    style: str = ""


@dataclass(frozen=True)
class Figure:
    file: str  # relative to the report folder, e.g. figures/thac0--by-ac.png
    png: bytes
    caption: str
    alt: str = ""  # what the figure shows, for a reader who cannot see it (default: the caption)
    narrow: bytes = b""  # its narrow form for a phone's screen (PNG), when it has one


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[list[str]]
    caption: str = ""
    # leading columns that hold labels (left-aligned) rather than numbers
    label_columns: int = 1
    csv: str = ""  # the full table's CSV (relative to the report folder), linked beside it
    # rows (0-based) that record a failure: marked on the page (red, bold) and in README.md
    failed_rows: tuple[int, ...] = ()
    # on a narrow screen each row stacks into a card of "header: value" lines, so no
    # column (a check's verdict) is scrolled out of view; wide grids scroll instead
    stack: bool = False


@dataclass(frozen=True)
class Details:
    """Blocks one click away: collapsed under a one-line summary (``<details>``)."""

    summary: str
    blocks: list


@dataclass(frozen=True)
class Findings:
    """Computed statements, each linked to the section it reads: ``(sentence, anchor)``."""

    items: list


@dataclass(frozen=True)
class Contents:
    """Where the list of contents goes (built from the headings at render time)."""


@dataclass
class Document:
    title: str
    blocks: list = field(default_factory=list)

    def add(self, *blocks) -> None:
        self.blocks.extend(blocks)

    def headings(self) -> list[Heading]:
        return [b for b in self.blocks if isinstance(b, Heading) and b.level in (2, 3)]

    def figures(self) -> list[Figure]:
        """Every figure, those collapsed in a :class:`Details` too."""

        def walk(blocks: list) -> list[Figure]:
            out: list[Figure] = []
            for b in blocks:
                out += walk(b.blocks) if isinstance(b, Details) else [b] if isinstance(b, Figure) else []
            return out

        return walk(self.blocks)


class Renderer:
    """A way of writing a :class:`Document` (the HTML page, the README): a method per kind
    of block (``heading``, ``paragraph``, ``figure``, ``table``, ``details``, ``findings``,
    ``contents``), each ``(doc, block) -> str``, and :meth:`block` to pick a block's."""

    def block(self, doc: Document, b: Any) -> str:
        """Block ``b`` of ``doc`` written by the method for its kind."""
        ways = {
            Heading: self.heading,
            Paragraph: self.paragraph,
            Figure: self.figure,
            Table: self.table,
            Details: self.details,
            Findings: self.findings,
            Contents: self.contents,
        }
        for kind, way in ways.items():
            if isinstance(b, kind):
                return way(doc, b)
        raise TypeError(f"unknown report block {b!r}")


def fmt(x: float | None) -> str:
    """A probability or metric for a table: 4 decimals, or 3 significant digits when tiny."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    x = float(x)
    if abs(x) < 1e-12:  # floating-point noise of an exact sum (2.45e-16) is 0
        x = 0.0
    if x != 0 and abs(x) < 1e-3:
        return f"{x:.3g}"
    return f"{x:.4f}"


def fmt_se(value: float | None, se: float | None) -> str:
    """A simulated number with its standard error, both to the SE's second significant digit."""
    if value is None or se is None or math.isnan(value) or math.isnan(se):
        return fmt(value)  # an exact number: no standard error to carry
    if se <= 0:
        return f"{fmt(value)} ± 0"
    decimals = min(12, max(0, 1 - math.floor(math.log10(se))))
    return f"{value:.{decimals}f} ± {se:.{decimals}f}"


def fmt_z(z: float | None) -> str:
    if z is None or math.isnan(z):
        return "–"
    return "∞" if math.isinf(z) else f"{z:+.2f}"


def fmt_value(v) -> str:
    """A grid value as shown in tables and keys (``2`` not ``2.0``, ``true`` as in TOML).

    >>> [fmt_value(v) for v in (2.0, 0.25, True, "1d8", -3)]
    ['2', '0.25', 'true', '1d8', '-3']
    """
    if hasattr(v, "item"):  # numpy scalars from DataFrame columns
        v = v.item()
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v)) if abs(v) < 1e15 else str(v)
    return str(v)


def slug(system: str) -> str:
    """A system's name as file names and anchors spell it: a designer's mechanic is named
    by its reference, whose ``/`` and ``:`` become ``-`` (built-in names are unchanged).

    >>> slug("rules/savage_worlds.py:trait_roll"), slug("crit-range")
    ('rules-savage_worlds.py-trait_roll', 'crit-range')
    """
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "-", system)
