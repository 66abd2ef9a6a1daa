"""Dice notation: parse, bound, and encode for the simulation kernels.

The grammar is the field's (:mod:`critlab.analysis.dice.grammar`, docs/rules.md "Dice
notation"): ``NdX`` with faces ``X``, ``%``, ``F`` or ``{...}`` and suffixes in the order
reroll (``rr``/``ro``), clamp (``mi``/``ma``), explosion (``!``, ``!!``, ``!p``, ``x``, with
``o`` once), keep (``kh``/``kl``/``dh``/``dl``/``k``), count (``cs`` with ``df`` botches,
``cf``) and scale (``*K``, ``/K``); groups ``{E1, E2, ...}`` with keep, count and scale over
their members; integers, ``+`` and ``-``; and a trailing comparison (``1d20+5>=15`` is 1
where it holds, else 0). A bare number in a selector means equality: ``1d6rr2`` rerolls
only 2s (``rr<=2`` is "2 or less").

Every expression is bounded before any work (:mod:`critlab.analysis.dice.limits`), so
whatever parses computes exactly in seconds. :func:`parse_die` reads one dice term (for a
pool's faces and per-die modifiers).

>>> expr = parse("4d6dl1")
>>> round(expr.dist().mean, 4)
12.2446
>>> parse("2d6+1").max
13
>>> parse("1d6!").max is None
True
>>> parse("5d10!cs>=8").max
5
>>> parse("2d6y")
Traceback (most recent call last):
...
critlab.analysis.dice.grammar.NotationError: bad dice expression '2d6y': unexpected 'y' at position 4; ...
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from critlab.analysis.dice import exact as de
from critlab.analysis.dice.exact import (
    KEEP_ALL,
    KEEP_HIGHEST,
    KEEP_LOWEST,
    MAX_POOL_WORK,
    REROLL_ALWAYS,
    REROLL_NONE,
    REROLL_ONCE,
    keep_highest,
)
from critlab.analysis.dice.grammar import NotationError, RawDice, RawExpr, RawGroup, parse_text
from critlab.analysis.dice.limits import MAX_SPAN, MAX_TOTAL_DICE, check_limits, limits
from critlab.analysis.dice.limits import quote as _show
from critlab.analysis.dist import TAIL_EPS, Dist

MAX_DICE = 1000
MAX_SIDES = 1000
MAX_FACES = 100
MAX_MEMBERS = 100
MAX_SCALE = 100
MAX_CONSTANT = 10**6
# An unbounded side of a selector (far beyond any total the limits allow).
UNBOUNDED = 10**9
Interval = tuple[int, int]


def interval(op: str, n: int) -> Interval:
    """A selector as the interval of values it meets.

    >>> interval("=", 2), interval("<", 3), interval(">=", 5)
    ((2, 2), (-1000000000, 2), (5, 1000000000))
    """
    return {
        "=": (n, n),
        "<": (-UNBOUNDED, n - 1),
        "<=": (-UNBOUNDED, n),
        ">": (n + 1, UNBOUNDED),
        ">=": (n, UNBOUNDED),
    }[op]


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


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``sign`` times ``count`` dice with faces ``face_values``: each rerolled
    (``reroll_mode`` ``"rr"``/``"ro"`` on faces in ``reroll``), clamped into ``clamp``,
    exploding (``explode_kind`` ``"!"``, ``"!p"`` or ``"x"`` on faces in ``explode``,
    ``None`` meaning the maximum face; ``explode_once``); ``keep`` totals kept
    (``keep_mode``), summed, or counted (``count_kind`` ``"cs"``/``"cf"`` over
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

    @property
    def n_kept(self) -> int:
        return self.count if self.keep_mode == KEEP_ALL else self.keep

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
        return de.term_dist(self, eps)

    @property
    def bounded(self) -> bool:
        """Whether the term has a largest value (no summed explosion, no ``x`` count)."""
        if not self.exploding or (self.explode_once and self.explode_kind != "x"):
            return True
        return bool(self.count_kind) and self.explode_kind != "x"

    @property
    def notation(self) -> str:
        """The term in canonical notation, sign not included.

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
        if self.keep_mode != KEEP_ALL:
            out += f"{'kh' if self.keep_mode == KEEP_HIGHEST else 'kl'}{self.keep}"
        if self.count_kind:
            out += self.count_kind + _sel(self.count_range) + (f"df{_sel(self.botch)}" if self.botch else "")
        if self.mul != 1:
            out += f"*{self.mul}"
        if self.div != 1:
            out += f"/{self.div}"
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

    @property
    def n_kept(self) -> int:
        return len(self.members) if self.keep_mode == KEEP_ALL else self.keep

    def legacy(self) -> None:
        return None

    def dist(self, eps: float = TAIL_EPS) -> Dist:
        return de.group_dist(self, eps)

    @property
    def notation(self) -> str:
        out = "{" + ", ".join(m.notation for m in self.members) + "}"
        if self.keep_mode != KEEP_ALL:
            out += f"{'kh' if self.keep_mode == KEEP_HIGHEST else 'kl'}{self.keep}"
        if self.count_kind:
            out += self.count_kind + _sel(self.count_range) + (f"df{_sel(self.botch)}" if self.botch else "")
        if self.mul != 1:
            out += f"*{self.mul}"
        if self.div != 1:
            out += f"/{self.div}"
        return out


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed dice expression: dice terms and groups plus an integer constant, and an
    optional comparison (``compare``: the interval of totals that make it 1). Constructing
    one checks the per-expression limits (see :mod:`critlab.analysis.dice.limits`).

    Examples
    --------
    >>> e = parse("2d6+1d4-1")
    >>> e.min, e.max, e.exploding
    (2, 15, False)
    """

    text: str
    terms: tuple[DiceTerm | DiceGroup, ...]
    constant: int
    compare: Interval | None = None
    member: bool = False

    def __post_init__(self) -> None:
        if not self.member:
            check_limits(self.text, self.terms)

    @property
    def exploding(self) -> bool:
        """Whether an explosion leaves the expression unbounded (a comparison or a count
        of exploding totals stays bounded).

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
    return de.expr_dist(expr.terms, expr.constant, expr.compare)


# -- building terms from the grammar's parts ---------------------------------------------
@lru_cache(maxsize=1024)
def parse(text: str) -> DiceExpr:
    """Parse dice notation; a malformed expression raises :class:`NotationError` (a
    ``ValueError``) naming the bad part.

    >>> parse("d20").terms[0].count
    1
    >>> parse("3d6kh4")
    Traceback (most recent call last):
    ...
    critlab.analysis.dice.grammar.NotationError: bad dice expression '3d6kh4': 'kh4' keeps 4 of 3 dice; ...
    """
    raw = parse_text(text)
    return _expr(text, raw, member=False)


def parse_die(text: str) -> DiceTerm:
    """One dice term (``"4d6rr1"``, ``"3dF"``, ``"2d{0,1,1,2}mi1"``): its count, faces
    (:attr:`DiceTerm.face_values`) and per-die modifiers (``reroll``, ``clamp``,
    ``explode``); anything else than a single dice term raises :class:`NotationError`.

    >>> t = parse_die("4d6rr1")
    >>> t.count, t.face_values, t.reroll_mode, t.reroll
    (4, (1, 2, 3, 4, 5, 6), 'rr', (1, 1))
    """
    expr = parse(text)
    if len(expr.terms) != 1 or expr.constant or expr.compare or not isinstance(expr.terms[0], DiceTerm):
        raise NotationError(f"bad dice expression {_show(text)}: expected one dice term like '4d6rr1'")
    return expr.terms[0]


def _expr(text: str, raw: RawExpr, *, member: bool) -> DiceExpr:
    terms: list[DiceTerm | DiceGroup] = []
    for item, sign in zip(raw.items, raw.signs, strict=True):
        if isinstance(item, RawGroup):
            terms.append(_group(text, item, sign))
        elif item.count == 0:
            if item.suffixes:
                raise _error(text, f"{_show(item.text)}: 0 dice take no suffix")
        else:
            terms.append(_dice(text, item, sign))
    if abs(raw.constant) > MAX_CONSTANT:
        raise _error(text, f"constant {raw.constant} is beyond ±{MAX_CONSTANT}")
    compare = interval(*raw.compare) if raw.compare else None
    return DiceExpr(text=text, terms=tuple(terms), constant=raw.constant, compare=compare, member=member)


def _error(text: str, why: str) -> NotationError:
    whole = _show(text.strip()) + ": "
    if why.startswith(whole):  # the term is the whole expression: name it once
        why = why[len(whole) :]
    return NotationError(f"bad dice expression {_show(text)}: {why}")


def _written(op: str, sel: tuple[str, int]) -> str:
    """A suffix with its selector as written (a bare number for equality)."""
    return f"'{op}{'' if sel[0] == '=' else sel[0]}{sel[1]}'"


def _meets(iv: Interval, values) -> bool:
    return any(iv[0] <= v <= iv[1] for v in values)


def _dice(text: str, raw: RawDice, sign: int) -> DiceTerm:
    n = raw.count
    here = _show(raw.text)
    if not 1 <= n <= MAX_DICE:
        raise _error(text, f"{here}: dice count {n} is not in 0..{MAX_DICE}")
    kind, value = raw.faces
    fields: dict = {"face_kind": kind}
    if kind == "sides":
        if not 1 <= value <= MAX_SIDES:
            raise _error(text, f"{here}: d{value} has no sides in 1..{MAX_SIDES}")
        sides = value
    elif kind == "fate":
        sides = 3
    else:
        if not 1 <= len(value) <= MAX_FACES:
            raise _error(text, f"{here}: lists {len(value)} faces; list 1..{MAX_FACES}")
        if any(abs(v) > MAX_CONSTANT for v in value):
            raise _error(text, f"{here}: a face beyond ±{MAX_CONSTANT}")
        sides, fields["faces"] = len(value), tuple(value)
    probe = DiceTerm(sign, n, sides, **fields)
    faces = sorted(set(probe.face_values))
    s = raw.suffixes
    if "reroll" in s:
        op, sel = s["reroll"]
        iv = interval(*sel)
        left = [f for f in faces if not iv[0] <= f <= iv[1]]
        if not _meets(iv, faces):
            raise _error(text, f"{here}: {_written(op, sel)} meets no face; the faces are {_span(faces)}")
        if op == "rr" and not left:
            raise _error(
                text, f"{here}: {_written(op, sel)} rerolls every face and never stops; leave a face"
            )
        fields.update(reroll_mode=op, reroll=iv)
        if op == "rr":
            faces = left
    if "clamp" in s:
        lo, hi = s["clamp"]
        lo_ok = lo is None or faces[0] <= lo <= faces[-1]
        hi_ok = hi is None or faces[0] <= hi <= faces[-1]
        if not (lo_ok and hi_ok):
            raise _error(text, f"{here}: a clamp must lie inside the faces {_span(faces)}")
        if lo is not None and hi is not None and lo > hi:
            raise _error(text, f"{here}: 'mi{lo}' exceeds 'ma{hi}'; mi may not exceed ma")
        iv = (-UNBOUNDED if lo is None else lo, UNBOUNDED if hi is None else hi)
        fields["clamp"] = iv
        faces = sorted({min(max(f, iv[0]), iv[1]) for f in faces})
    if "explode" in s:
        if "clamp" in s:
            raise _error(text, f"{here}: a term clamps or explodes, not both")
        kind_x, sel, once = s["explode"]
        all_faces = sorted(set(probe.face_values))
        iv = interval(*sel) if sel else (all_faces[-1], UNBOUNDED)
        if not _meets(iv, all_faces):
            raise _error(text, f"{here}: the explosion meets no face; the faces are {_span(all_faces)}")
        if all(iv[0] <= f <= iv[1] for f in all_faces):
            raise _error(text, f"{here}: the explosion meets every face and never stops")
        least = min(f - (1 if kind_x == "!p" else 0) for f in all_faces if iv[0] <= f <= iv[1])
        if least < 0:
            raise _error(
                text, f"{here}: an explosion may not add below 0 (it would lower the total without end)"
            )
        met = [f for f in all_faces if iv[0] <= f <= iv[1]]
        on_top = met == [all_faces[-1]]  # the same as no selector: the maximum
        fields.update(
            exploding=True, explode_kind=kind_x, explode_at=None if on_top else iv, explode_once=bool(once)
        )
    if "keep" in s:
        op, k = s["keep"]
        if fields.get("explode_kind") == "x":
            raise _error(text, f"{here}: keep or drop over 'x' dice is not computed; use '!' to keep totals")
        if op in ("kh", "kl"):
            if not 1 <= k <= n:
                raise _error(text, f"{here}: '{op}{k}' keeps {k} of {n} dice; keep 1..{n}")
            mode, kept = (KEEP_HIGHEST if op == "kh" else KEEP_LOWEST), k
        else:
            if not 1 <= k < n:
                raise _error(text, f"{here}: '{op}{k}' drops {k} of {n} dice; drop 1..{n - 1}")
            mode, kept = (KEEP_HIGHEST if op == "dl" else KEEP_LOWEST), n - k
        if kept < n:
            fields.update(keep_mode=mode, keep=kept)
    if "count" in s:
        op, sel, botch = s["count"]
        iv = interval(*sel)
        fields.update(count_kind=op, count_range=iv)
        exploding = fields.get("exploding", False)
        for what, c in (("count", iv), ("botch", interval(*botch) if botch else None)):
            if c is None:
                continue
            ok = (c[1] >= faces[0]) if exploding else _meets(c, faces)
            if not ok:
                raise _error(
                    text, f"{here}: the {what} selector meets no total; the faces are {_span(faces)}"
                )
        if botch:
            fields["botch"] = interval(*botch)
    _scale(text, here, s, fields)
    return DiceTerm(sign, n, sides, **fields)


def _span(faces) -> str:
    return f"{faces[0]}..{faces[-1]}" if len(faces) > 1 else str(faces[0])


def _scale(text: str, here: str, s: dict, fields: dict) -> None:
    if "scale" in s:
        op, k = s["scale"]
        if not 1 <= k <= MAX_SCALE:
            raise _error(text, f"{here}: '{op}{k}': scale by 1..{MAX_SCALE}")
        fields["mul" if op == "*" else "div"] = k


def _group(text: str, raw: RawGroup, sign: int) -> DiceGroup:
    here = _show(raw.text)
    if len(raw.members) > MAX_MEMBERS:
        raise _error(text, f"{here}: {len(raw.members)} members; at most {MAX_MEMBERS}")
    members = tuple(_expr(text, m, member=True) for m in raw.members)
    fields: dict = {}
    s = raw.suffixes
    m = len(members)
    if "keep" in s:
        op, k = s["keep"]
        if op in ("kh", "kl"):
            if not 1 <= k <= m:
                raise _error(text, f"{here}: '{op}{k}' keeps {k} of {m} members; keep 1..{m}")
            mode, kept = (KEEP_HIGHEST if op == "kh" else KEEP_LOWEST), k
        else:
            if not 1 <= k < m:
                raise _error(text, f"{here}: '{op}{k}' drops {k} of {m} members; drop 1..{m - 1}")
            mode, kept = (KEEP_HIGHEST if op == "dl" else KEEP_LOWEST), m - k
        if kept < m:
            fields.update(keep_mode=mode, keep=kept)
    if "count" in s:
        op, sel, botch = s["count"]
        fields.update(count_kind=op, count_range=interval(*sel), botch=interval(*botch) if botch else None)
        for c in (fields["count_range"], fields["botch"]):
            if c is not None and not any(_member_meets(mem, c) for mem in members):
                raise _error(text, f"{here}: a count selector meets no member's value")
    _scale(text, here, s, fields)
    return DiceGroup(sign, members, **fields)


def _member_meets(member: DiceExpr, iv: Interval) -> bool:
    lo = member.min
    hi = member.max
    lo = -UNBOUNDED if lo is None else lo
    hi = UNBOUNDED if hi is None else hi
    return iv[0] <= hi and iv[1] >= lo


def dice_dist(text: str) -> Dist:
    """Exact distribution of a dice expression given as text.

    >>> round(dice_dist("3d6 - 3d6").mean, 12)
    0.0
    >>> round(dice_dist("2d6ro<=2").mean * 3, 12)       # 25/3
    25.0
    """
    return parse(text).dist()


__all__ = [
    "KEEP_ALL",
    "KEEP_HIGHEST",
    "KEEP_LOWEST",
    "MAX_CONSTANT",
    "MAX_DICE",
    "MAX_POOL_WORK",
    "MAX_SIDES",
    "MAX_SPAN",
    "MAX_TOTAL_DICE",
    "REROLL_ALWAYS",
    "REROLL_NONE",
    "REROLL_ONCE",
    "TAIL_EPS",
    "UNBOUNDED",
    "DiceExpr",
    "DiceGroup",
    "DiceTerm",
    "NotationError",
    "check_limits",
    "dice_dist",
    "interval",
    "keep_highest",
    "limits",
    "parse",
    "parse_die",
]
