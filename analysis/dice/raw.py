"""What the grammar reads: the parts of an expression as written (dice, groups,
expressions, each with its suffixes by stage) and the intervals its selectors meet.

:mod:`critlab.analysis.dice.grammar` produces them from text, and
:mod:`critlab.analysis.dice.notation` builds the checked terms from them.

>>> interval(">=", 5), show_interval(interval("<", 3))
((5, 1000000000), '<=2')
"""

from __future__ import annotations

from dataclasses import dataclass, field

Selector = tuple[str, int]  # (operator, number): ("=", 2) for a bare 2

# An unbounded side of a selector (far beyond any total the limits allow).
UNBOUNDED = 10**9
Interval = tuple[int, int]  # the values a selector meets, lo..hi


# Each operator's interval about its number (None: unbounded), built once, not per selector.
_SIDES = {"=": (0, 0), "<": (None, -1), "<=": (None, 0), ">": (1, None), ">=": (0, None)}


def interval(op: str, n: int) -> Interval:
    """A selector as the interval of values it meets.

    >>> interval("=", 2), interval("<", 3), interval(">=", 5)
    ((2, 2), (-1000000000, 2), (5, 1000000000))
    """
    lo, hi = _SIDES[op]
    return -UNBOUNDED if lo is None else n + lo, UNBOUNDED if hi is None else n + hi


def show_interval(iv: Interval) -> str:
    """The selector text of an interval (``=2``, ``<=2``, ``>=5``)."""
    lo, hi = iv
    if lo == hi:
        return f"={lo}"
    if lo <= -UNBOUNDED:
        return f"<={hi}"
    if hi >= UNBOUNDED:
        return f">={lo}"
    return f">={lo}<={hi}"


@dataclass
class RawDice:
    """One ``NdX`` term as written: count, faces and its suffixes by stage."""

    count: int
    faces: tuple[str, object]  # ("sides", X) | ("fate", None) | ("list", (f1, f2, ...))
    text: str
    suffixes: dict[str, tuple] = field(default_factory=dict)


@dataclass
class RawGroup:
    """One ``{E1, E2, ...}`` group as written: its members and suffixes by stage."""

    members: list[RawExpr]
    text: str
    suffixes: dict[str, tuple] = field(default_factory=dict)


@dataclass
class RawExpr:
    """An expression as written: signed items (dice, groups, integers) and a comparison."""

    items: list[RawDice | RawGroup]
    signs: list[int]
    constant: int
    compare: Selector | None
