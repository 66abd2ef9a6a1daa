"""The dice notation's grammar: text to the parts of an expression, in one linear pass.

Spaces are ignored and letters may be of either case. The grammar (docs/rules.md, "Dice
notation")::

    expression := term (("+" | "-") term)* [compare]
    compare    := ("=" | "<" | "<=" | ">" | ">=") INT
    term       := INT | dice | group
    dice       := [N] "d" faces [reroll] [clamp] [explode] [keep] [count] [scale]
    faces      := X | "%" | "F" | "{" INT ("," INT)* "}"
    group      := "{" expression ("," expression)+ "}" [keep] [count] [scale]
    selector   := INT | "=" INT | "<" INT | "<=" INT | ">" INT | ">=" INT
    reroll     := "rr" selector | "ro" selector
    clamp      := "mi" INT ["ma" INT] | "ma" INT
    explode    := "!" [selector] ["o"] | "!!" [selector] ["o"] | "!p" [selector]
                | "x" [selector] ["o"]
    keep       := ("kh" | "kl" | "dh" | "dl" | "k") K
    count      := "cs" selector ["df" selector] | "cf" selector
    scale      := "*" K | "/" K

A bare number in a selector means equality. This module only reads the text: every
check of meaning (a reroll that leaves a face, a keep within the dice rolled) is made by
:mod:`critlab.analysis.dice.notation`, which builds the terms. Reading is linear in the
text's length (no slice of the rest of the text is ever taken), and a text longer than
:data:`MAX_TEXT` characters is refused before it is read.

>>> parse_text("2d6ro2+1").items[0].suffixes["reroll"]
('ro', ('=', 2))
>>> parse_text("1d20+5>=15").compare
('>=', 15)
"""

from __future__ import annotations

import re

from critlab.analysis.dice.raw import (
    UNBOUNDED,
    Interval,
    RawDice,
    RawExpr,
    RawGroup,
    Selector,
    interval,
    show_interval,
)
from critlab.analysis.dice.spelling import foreign

# Longer texts are quoted by their start (an error message stays one readable line).
MAX_QUOTED = 200


def quote(text: str) -> str:
    """``text`` in quotes for a one-line message: control and other unprintable characters
    escaped as ``repr`` escapes them, a long text cut to its start.

    >>> print(quote("2d6\\n+1"))
    '2d6\\n+1'
    """
    if len(text) > MAX_QUOTED:
        return f"'{_escape(text[: MAX_QUOTED - 20])}...' ({len(text):,} characters)"
    return f"'{_escape(text)}'"


def _escape(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


# The longest text read at all (a designer's expression is a line, not a file).
MAX_TEXT = 10_000
# A number of more digits than this is above every limit of the notation.
MAX_DIGITS = 9
# The most faces a die may list (d{1,1,2}); read no further.
MAX_FACES = 100
# The most sides of a die (d1000).
MAX_SIDES = 1000
STAGES = ("reroll", "clamp", "explode", "keep", "count", "scale")
_NAMES = {"explode": "explosion", "keep": "keep or drop"}
ORDER = (
    "reroll (rr/ro), clamp (mi/ma), explosion (!, !!, !p, x), keep (kh/kl/dh/dl/k), count (cs/cf), "
    "scale (*, /)"
)
# Letters of either case, and only ASCII letters (a lowered text keeps its length).
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class NotationError(ValueError):
    """A dice expression that the grammar does not produce or the notation refuses: one
    line naming the expression, what is wrong and what is allowed."""


_DIGITS = re.compile("[0-9]*")
# A group member's characters up to the "," or "}" after it (a listed die's braces, and
# the commas inside them, are the member's own); groups 1 and 2: the count and sides of a
# plain die it starts with (numbers of at most MAX_DIGITS digits: within every limit)
_MEMBER = re.compile(rf"(?:([0-9]{{0,{MAX_DIGITS}}})d([0-9]{{1,{MAX_DIGITS}}}))?(?:[^,{{}}]|\{{[^}}]*\}})*")
_ENDS = (",", "}")  # what may follow a member (not "": the text's end)
_COMPARING = ("<", ">", "=")
# what a number after each operator is called in a message (built once, not per number)
_AFTER = {
    op: f"a number after {quote(op)}" for op in ("<=", ">=", "<", ">", "=", "kh", "kl", "dh", "dl", "k")
}


class Cursor:
    """A reading position ``i`` in a text ``s`` (spaces removed, letters lowered), for the
    notation's reader and the tools' (:mod:`critlab.analysis.dice.tabletop`)."""

    s: str
    i: int

    def peek(self, k: int = 1) -> str:
        """The next ``k`` characters (fewer at the end)."""
        return self.s[self.i : self.i + k]

    def take(self, word: str) -> bool:
        """Step over ``word`` where the text goes on with it."""
        if self.s.startswith(word, self.i):
            self.i += len(word)
            return True
        return False


class _Reader(Cursor):
    """A cursor over the text with spaces removed and letters lowered, remembering where
    each character stood in the original (positions in messages are the original's)."""

    def __init__(self, text: str) -> None:
        self.text = text
        if " " in text:
            self.where = [i for i, ch in enumerate(text) if ch != " "]
            kept = "".join(text[i] for i in self.where)
        else:
            self.where, kept = range(len(text)), text
        # lower() of ASCII text lowers its letters alone (translate is ten times slower)
        self.s = kept.lower() if kept.isascii() else kept.translate(_LOWER)
        self.i = 0

    def error(self, why: str) -> NotationError:
        return NotationError(f"bad dice expression {quote(self.text)}: {why}")

    def pos(self, i: int | None = None) -> int:
        i = self.i if i is None else i
        return (self.where[i] if i < len(self.where) else len(self.text)) + 1

    def unexpected(self, expected: str) -> NotationError:
        if self.i >= len(self.s):
            return self.error(f"unexpected end of text; expected {expected}")
        taught = foreign(self.s, self.i)
        if taught:
            return self.error(f"{quote(taught[0])} at position {self.pos()} {taught[1]}")
        rest = self.text[self.where[self.i] :].strip()  # once, on the way out
        return self.error(f"unexpected {quote(rest)} at position {self.pos()}; expected {expected}")

    def digits(self) -> str:
        start = self.i
        self.i = _DIGITS.match(self.s, start).end()
        return self.s[start : self.i]

    def number(self, what: str, *, signed: bool = False) -> int:
        """An integer (``signed``: with an optional leading minus)."""
        minus = signed and self.take("-")
        digits = self.digits()
        if not digits:
            raise self.unexpected(what)
        if len(digits.lstrip("0")) > MAX_DIGITS:
            raise self.error(f"number {quote(digits)} is far above every limit of the notation")
        return -int(digits) if minus else int(digits)


def parse_text(text: str) -> RawExpr:
    """Read ``text`` by the grammar; a text the grammar does not produce raises
    :class:`NotationError` naming the place.

    >>> parse_text("{1d8!, 1d6!}kh1").items[0].suffixes
    {'keep': ('kh', 1)}
    >>> parse_text("2d6 y")
    Traceback (most recent call last):
    ...
    critlab.analysis.dice.grammar.NotationError: bad dice expression '2d6 y': ...
    """
    if not isinstance(text, str):
        raise NotationError(f"a dice expression must be text, got {text!r}")
    if len(text) > MAX_TEXT:
        raise NotationError(
            f"bad dice expression {quote(text)}: at most {MAX_TEXT:,} characters, got {len(text):,}"
        )
    odd = None if text.isprintable() else next(i for i, ch in enumerate(text) if not ch.isprintable())
    if odd is not None:
        raise NotationError(
            f"bad dice expression {quote(text)}: control character {quote(text[odd])} at position "
            f"{odd + 1}; expected dice text"
        )
    r = _Reader(text)
    if not r.s:
        raise r.error("it is empty; expected e.g. '1d20' or '2d6+1'")
    expr = _expression(r, member=False)
    if r.i < len(r.s):
        raise r.unexpected("'+', '-', a suffix of the die before it, or a comparison like '>=15'")
    return expr


def _expression(r: _Reader, *, member: bool) -> RawExpr:
    items: list[RawDice | RawGroup] = []
    signs: list[int] = []
    constant, sign = 0, 1
    text = r.s  # (characters read by index: this loop runs for every term and member)
    nxt = text[r.i : r.i + 1]
    while True:
        if nxt == "+" or nxt == "-":
            r.i += 1
            sign = -sign if nxt == "-" else sign
        item = _term(r, member=member)
        if isinstance(item, int):
            constant += sign * item
        else:
            items.append(item)
            signs.append(sign)
        nxt = text[r.i : r.i + 1]
        if nxt != "+" and nxt != "-":
            break
        sign = 1
    compare = _selector(r) if nxt in ("=", "<", ">") else None
    return RawExpr(items, signs, constant, compare)


def _term(r: _Reader, *, member: bool) -> RawDice | RawGroup | int:
    start = r.i
    ch = r.s[start : start + 1]
    if ch == "{":
        if member:
            raise r.error(f"a group at position {r.pos()} inside a group; a group's members are not groups")
        return _group(r, start)
    if "0" <= ch <= "9":
        n = r.number("a number")
        if r.peek() != "d":
            return n
        return _dice(r, n, start)
    if ch == "d":
        return _dice(r, None, start)
    raise r.unexpected("a die like '2d6', a group like '{1d8, 1d6}' or a number")


def _group(r: _Reader, start: int) -> RawGroup:
    r.take("{")
    seen: dict[str, RawExpr] = {}
    members = [_member(r, seen)]
    while r.take(","):
        members.append(_member(r, seen))
    if not r.take("}"):
        raise r.unexpected("',' and another member, or '}' closing the group")
    text = r.text[r.where[start] : r.where[r.i - 1] + 1]
    if len(members) < 2:
        raise r.error(f"group {quote(text)} has one member; a group has two members or more")
    g = RawGroup(members, text)
    _suffixes(r, g.suffixes, allowed=("keep", "count", "scale"), what="a group")
    g.text = r.text[r.where[start] : r.where[r.i - 1] + 1]
    return g


def _member(r: _Reader, seen: dict[str, RawExpr]) -> RawExpr:
    """A group's member. One written as an earlier member was, up to the ``,`` or ``}``
    after it, is that member's reading, the same object: a Cortex pool's second ``d6`` is
    not read again, and the notation builds each distinct member once. Sound because a
    member's reading stops before a ``,`` or ``}`` alike (no rule of a member's own reads
    on past either), so the same characters read the same."""
    s, i = r.s, r.i
    found = _MEMBER.match(s, i)  # (linear: the member's characters alone)
    end = found.end()
    if end > i and s[end : end + 1] in _ENDS:
        written = r.text[r.where[i] : r.where[end - 1] + 1]  # as written: its texts are too
        known = seen.get(written)
        if known is not None:
            r.i = end
            return known
        if found.end(2) == end:
            # a plain die, the commonest member (a Cortex pool's): what _expression reads
            # of it, without its steps
            count, sides = found.group(1, 2)
            die = RawDice(int(count) if count else 1, ("sides", int(sides)), written)
            r.i = end
            seen[written] = member = RawExpr([die], [1], 0, None)
            return member
    member = _expression(r, member=True)
    if s[r.i : r.i + 1] in _ENDS:
        seen[r.text[r.where[i] : r.where[r.i - 1] + 1]] = member
    return member


def _dice(r: _Reader, count: int | None, start: int) -> RawDice:
    r.i += 1  # the "d" that brought the reader here
    ch = r.s[r.i : r.i + 1]  # the faces are known by their first character
    if "0" <= ch <= "9":
        faces: tuple[str, object] = ("sides", r.number("the number of sides"))
    elif r.take("%"):
        faces = ("sides", 100)
    elif r.take("f"):
        faces = ("fate", None)
    elif r.take("{"):
        listed = [r.number("a face value", signed=True)]
        while r.take(","):
            listed.append(r.number("a face value", signed=True))
            if len(listed) > MAX_FACES:
                raise r.error(f"a die lists more than {MAX_FACES} faces; list 1..{MAX_FACES}")
        if not r.take("}"):
            raise r.unexpected("',' and another face, or '}' closing the faces")
        faces = ("list", tuple(listed))
    else:
        faces = ("sides", r.number("the number of sides, '%', 'F' or '{' listing the faces"))
    d = RawDice(1 if count is None else count, faces, "")
    if r.s[r.i : r.i + 1] in _SUFFIX_STARTS:  # (most dice have none: no call to look)
        _suffixes(r, d.suffixes, allowed=STAGES, what="a die")
    d.text = r.text[r.where[start] : r.where[r.i - 1] + 1]
    return d


def _selector(r: _Reader) -> Selector:
    ch = r.s[r.i : r.i + 1]
    if ch in _COMPARING:
        op = ch + "=" if r.s.startswith("=", r.i + 1) and ch != "=" else ch
        r.i += len(op)
        return op, r.number(_AFTER[op], signed=True)
    return "=", r.number("a number, or a comparison like '>=5'")


def _maybe_selector(r: _Reader) -> Selector | None:
    nxt = r.peek()
    if nxt and ("0" <= nxt <= "9" or nxt in "=<>"):
        return _selector(r)
    return None


# The first characters of every suffix (those :func:`_suffix` tests for)
_SUFFIX_STARTS = frozenset("rm!xkdc*/")


def _suffix(r: _Reader) -> tuple[str, tuple] | None:
    """The next suffix as ``(stage, value)``, or ``None`` where none starts here."""
    ch = r.s[r.i : r.i + 1]  # every suffix is known by its first character: one test each
    if ch == "r":
        if r.take("rr"):
            return "reroll", ("rr", _selector(r))
        if r.take("ro"):
            return "reroll", ("ro", _selector(r))
    elif ch == "m":
        if r.peek(3) in ("min", "max"):
            raise r.unexpected("a suffix")
        if r.take("mi"):
            lo = r.number("a number after 'mi'", signed=True)
            hi = r.number("a number after 'ma'", signed=True) if r.take("ma") else None
            return "clamp", (lo, hi)
        if r.take("ma"):
            return "clamp", (None, r.number("a number after 'ma'", signed=True))
    elif ch == "!":
        if r.take("!p"):
            return "explode", ("!p", _maybe_selector(r), False)
        if r.take("!!") or r.take("!"):
            sel = _maybe_selector(r)
            return "explode", ("!", sel, r.take("o"))
    elif ch == "x":
        r.i += 1
        sel = _maybe_selector(r)
        return "explode", ("x", sel, r.take("o"))
    elif ch == "k" or ch == "d":
        for op in ("kh", "kl", "dh", "dl", "k"):
            if r.s.startswith(op, r.i):
                if not r.peek(len(op) + 1)[len(op) :].isdigit():
                    raise r.unexpected(_AFTER[op])
                r.i += len(op)
                return "keep", ("kh" if op == "k" else op, r.number(_AFTER[op]))
    elif ch == "c":
        if r.take("cs"):
            sel = _selector(r)
            botch = _selector(r) if r.take("df") else None
            return "count", ("cs", sel, botch)
        if r.take("cf"):
            return "count", ("cf", _selector(r), None)
    elif ch == "*":
        r.i += 1
        return "scale", ("*", r.number("a number after '*'"))
    elif ch == "/":
        r.i += 1
        return "scale", ("/", r.number("a number after '/'"))
    return None


def _suffixes(r: _Reader, out: dict, *, allowed: tuple[str, ...], what: str) -> None:
    last, last_text = -1, ""
    while True:
        at = r.i
        found = _suffix(r)
        if found is None:
            return
        stage, value = found
        rank = STAGES.index(stage)
        if (
            stage in allowed
            and rank > last
            and not (stage == "explode" and value[0] == "!p" and r.peek() == "o")
        ):
            out[stage] = value
            last, last_text = rank, r.text[r.where[at] : r.where[r.i - 1] + 1]
            continue
        here = f"{quote(r.text[r.where[at] : r.where[r.i - 1] + 1])} at position {r.pos(at)}"
        if stage not in allowed:
            names = ", ".join(_NAMES.get(a, a) for a in allowed)
            raise r.error(f"{here}: {what} takes no {_NAMES.get(stage, stage)}; it takes {names}")
        if rank == last:
            raise r.error(f"{here} is a second {_NAMES.get(stage, stage)}; a term has at most one")
        if rank < last:
            raise r.error(f"{here} comes after {quote(last_text)}; suffixes go in the order {ORDER}")
        if stage == "explode" and value[0] == "!p" and r.peek() == "o":
            raise r.error(f"{here} followed by 'o': a penetrating explosion has no 'once'")
        out[stage] = value
        last, last_text = rank, r.text[r.where[at] : r.where[r.i - 1] + 1]


__all__ = [
    "MAX_FACES",
    "MAX_QUOTED",
    "MAX_SIDES",
    "MAX_TEXT",
    "quote",
    "UNBOUNDED",
    "Cursor",
    "Interval",
    "NotationError",
    "interval",
    "show_interval",
    "RawDice",
    "RawExpr",
    "RawGroup",
    "Selector",
    "parse_text",
]
