"""The parts of a parsed dice expression: dice terms, groups and the whole expression,
with their bounds, exact distributions, canonical notation and kernel encoding.

Built by :func:`critlab.analysis.dice.notation.parse`; the exact evaluation is
:mod:`critlab.analysis.dice.evaluate`, the encoding :mod:`critlab.analysis.dice.encode`.

>>> from critlab.analysis.dice.notation import parse
>>> parse("6d10!>=10dl3cs>=8").notation
'6d10!kh3cs>=8'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from critlab.analysis.dice import evaluate as ev
from critlab.analysis.dice import exact as de
from critlab.analysis.dice.exact import (
    KEEP_ALL,
    KEEP_HIGHEST,
    KEEP_LOWEST,
    REROLL_ALWAYS,
    REROLL_NONE,
    REROLL_ONCE,
)
from critlab.analysis.dice.grammar import UNBOUNDED, Interval, show_interval
from critlab.analysis.dice.limits import check_limits
from critlab.analysis.dist import TAIL_EPS, Dist
from critlab.kernels.vocab.dice import DROP_HIGHEST, DROP_LOWEST


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``sign`` times ``count`` dice with faces ``face_values``: each rerolled
    (``reroll_mode`` ``"rr"``/``"ro"`` on faces in ``reroll``), clamped into ``clamp``,
    exploding (``explode_kind`` ``"!"``, ``"!p"`` or ``"x"`` on faces in ``explode``,
    ``None`` meaning the maximum face; ``explode_once``); ``keep`` totals kept
    (``keep_mode``; of an ``x`` term, ``DROP_LOWEST``/``DROP_HIGHEST``: all its rolls but
    the ``keep`` lowest/highest), summed, or counted (``count_kind`` ``"cs"``/``"cf"`` over
    ``count_range``, minus ``botch``); times ``mul``, divided by ``div`` rounding down."""

    sign: int
    count: int
    sides: int
    keep_mode: int = KEEP_ALL
    keep: int = 0
    exploding: bool = False
    face_kind: str = "sides"  # "sides" (1..sides), "fate" (-1, 0, 1) or "list"
    faces: tuple[int, ...] = ()  # the listed faces of a "list" die
    reroll_mode: str = ""
    reroll: Interval | None = None
    clamp: Interval | None = None
    explode_kind: str = "!"
    explode_at: Interval | None = None
    explode_once: bool = False
    count_kind: str = ""
    count_range: Interval | None = None
    botch: Interval | None = None
    mul: int = 1
    div: int = 1

    @property
    def face_values(self) -> tuple[int, ...]:
        """Every face of one die, repeats included."""
        if self.face_kind == "fate":
            return (-1, 0, 1)
        if self.face_kind == "list":
            return self.faces
        return tuple(range(1, self.sides + 1))

    @property
    def explode(self) -> Interval | None:
        """The faces an exploding die explodes on (the maximum by default)."""
        if not self.exploding:
            return None
        if self.explode_at is None:
            top = max(self.face_values)
            return (top, UNBOUNDED)
        return self.explode_at

    @property
    def count_reach(self) -> int:
        """How far a counted die's total must be represented: past every finite bound."""
        bounds = [b for iv in (self.count_range, self.botch) if iv for b in iv if abs(b) < UNBOUNDED]
        return max(bounds, default=0) + 1

    def legacy(self) -> de.LegacyTerm | None:
        """This term in the notation's first form (computed as it always was), if it is."""
        if self.face_kind != "sides" or self.clamp or self.mul != 1 or self.div != 1 or self.botch:
            return None
        reroll_mode, reroll_at = REROLL_NONE, 0
        if self.reroll is not None:
            lo, hi = self.reroll
            if lo > 1 or hi >= self.sides:
                return None
            reroll_mode = REROLL_ALWAYS if self.reroll_mode == "rr" else REROLL_ONCE
            reroll_at = hi
        explode_at = 0
        if self.exploding:
            lo, hi = self.explode
            if self.explode_kind == "!p" or self.explode_once or hi < self.sides or lo < 2:
                return None
            if self.explode_kind == "x" and (self.count_kind or self.keep_mode != KEEP_ALL):
                return None
            explode_at = 0 if lo >= self.sides else lo
        success_at = 0
        if self.count_kind:
            lo, hi = self.count_range
            if self.count_kind != "cs" or hi < UNBOUNDED or lo < 1:
                return None
            success_at = lo
        return de.LegacyTerm(
            self.sign, self.count, self.sides, self.keep_mode, self.keep, self.exploding,
            reroll_mode, reroll_at, explode_at, success_at,
        )  # fmt: skip

    def dist(self, eps: float = TAIL_EPS) -> Dist:
        """Exact distribution of this term (sign applied); each exploding die is cut off
        at a tail below ``eps``."""
        return ev.term_dist(self, eps)

    @property
    def bounded(self) -> bool:
        """Whether the term has a largest value (no summed explosion, no ``x`` count)."""
        if not self.exploding or (self.explode_once and self.explode_kind != "x"):
            return True
        return bool(self.count_kind) and self.explode_kind != "x"

    @property
    def notation(self) -> str:
        """The term in canonical notation, sign not included.

        >>> from critlab.analysis.dice.notation import parse
        >>> parse("6d10!>=10dl3cs>=8").terms[0].notation
        '6d10!kh3cs>=8'
        """
        faces = {"fate": "F", "list": "{" + ",".join(map(str, self.faces)) + "}"}.get(
            self.face_kind, str(self.sides)
        )
        out = f"{self.count}d{faces}"
        if self.reroll is not None:
            out += self.reroll_mode + _sel(self.reroll)
        if self.clamp is not None:
            lo, hi = self.clamp
            out += (f"mi{lo}" if lo > -UNBOUNDED else "") + (f"ma{hi}" if hi < UNBOUNDED else "")
        if self.exploding:
            on_top = self.explode_at is None or self.explode == (max(self.face_values), UNBOUNDED)
            at = "" if on_top else _sel(self.explode_at)
            out += self.explode_kind + at + ("o" if self.explode_once else "")
        return out + _kept_counted_scaled(self)


_KEEP_OPS = {KEEP_HIGHEST: "kh", KEEP_LOWEST: "kl", DROP_LOWEST: "dl", DROP_HIGHEST: "dh"}


def _kept_counted_scaled(t: DiceTerm | DiceGroup) -> str:
    """The notation's last modifiers, shared by terms and groups: the keep, the count (and
    its botch) and the scale."""
    out = ""
    if t.keep_mode != KEEP_ALL:
        out += f"{_KEEP_OPS[t.keep_mode]}{t.keep}"
    if t.count_kind:
        out += t.count_kind + _sel(t.count_range) + (f"df{_sel(t.botch)}" if t.botch else "")
    if t.mul != 1:
        out += f"*{t.mul}"
    if t.div != 1:
        out += f"/{t.div}"
    return out


def _sel(iv: Interval) -> str:
    """A selector in canonical notation: a bare number for equality."""
    return str(iv[0]) if iv[0] == iv[1] else show_interval(iv)


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """``sign`` times a group ``{E1, E2, ...}``: its members evaluated independently,
    ``keep`` of them kept (``keep_mode``), summed or counted, then scaled."""

    sign: int
    members: tuple[DiceExpr, ...]
    keep_mode: int = KEEP_ALL
    keep: int = 0
    count_kind: str = ""
    count_range: Interval | None = None
    botch: Interval | None = None
    mul: int = 1
    div: int = 1
    count: int = 0  # dice are the members' (a group is no NdX term)
    sides: int = 0
    exploding: bool = False

    @property
    def bounded(self) -> bool:
        return bool(self.count_kind) or all(m.max is not None for m in self.members)

    def legacy(self) -> None:
        return None

    def dist(self, eps: float = TAIL_EPS) -> Dist:
        return ev.group_dist(self, eps)

    @property
    def notation(self) -> str:
        out = "{" + ", ".join(m.notation for m in self.members) + "}"
        return out + _kept_counted_scaled(self)


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed dice expression: dice terms and groups plus an integer constant, and an
    optional comparison (``compare``: the interval of totals that make it 1). Constructing
    one checks the per-expression limits (see :mod:`critlab.analysis.dice.limits`).

    Examples
    --------
    >>> from critlab.analysis.dice.notation import parse
    >>> e = parse("2d6+1d4-1")
    >>> e.min, e.max, e.exploding
    (2, 15, False)
    """

    text: str
    terms: tuple[DiceTerm | DiceGroup, ...]
    constant: int
    compare: Interval | None = None
    member: bool = False
    source: str = ""  # another tool's text this was read from ("roll20 8d6>4"), if any

    def __post_init__(self) -> None:
        if not self.member:
            check_limits(self.text, self.terms)

    @property
    def exploding(self) -> bool:
        """Whether an explosion leaves the expression unbounded (a comparison or a count
        of exploding totals stays bounded).

        >>> from critlab.analysis.dice.notation import parse
        >>> parse("1d6!").exploding, parse("5d10!cs>=8").exploding, parse("5d10!cs>=8").max
        (True, False, 5)
        """
        return self.compare is None and not all(t.bounded for t in self.terms)

    @property
    def min(self) -> int | None:
        """Smallest value of positive probability, modifiers included; ``None`` when
        unbounded below."""
        if self.compare is None and any(t.sign < 0 and not t.bounded for t in self.terms):
            return None
        return self.dist().min

    @property
    def max(self) -> int | None:
        """Largest value of positive probability, modifiers included; ``None`` when an
        explosion is unbounded upward."""
        if self.compare is None and any(t.sign > 0 and not t.bounded for t in self.terms):
            return None
        return self.dist().max

    @property
    def notation(self) -> str:
        """The expression in canonical notation."""
        parts = [("-" if t.sign < 0 else "+") + t.notation for t in self.terms]
        if self.constant or not parts:
            parts.append(f"{self.constant:+d}")
        out = "".join(parts).lstrip("+")
        return out + (_compare_text(self.compare) if self.compare else "")

    def dist(self) -> Dist:
        """Exact distribution (cached per expression)."""
        return _dist_of(self)

    def encode(self) -> tuple[np.ndarray, int]:
        """The kernel form (:mod:`critlab.analysis.dice.encode`): an int64 program of rows
        and the constant."""
        from critlab.analysis.dice.encode import encode

        return encode(self)

    def __str__(self) -> str:
        return self.text


def _compare_text(iv: Interval) -> str:
    lo, hi = iv
    if lo == hi:
        return f"={lo}"
    return f"<={hi}" if lo <= -UNBOUNDED else f">={lo}"


@lru_cache(maxsize=1024)
def _dist_of(expr: DiceExpr) -> Dist:
    return ev.expr_dist(expr.terms, expr.constant, expr.compare)


__all__ = ["DiceExpr", "DiceGroup", "DiceTerm"]
