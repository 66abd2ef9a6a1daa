"""Another tabletop tool's dice text, read into a small tree, and the pieces of critlab's
notation that the tree's terms are rewritten into.

A virtual tabletop's formula (Roll20's, Foundry VTT's) is read here as that tool writes
it: ``/roll`` and inline ``[[...]]`` wrappers and ``[label]`` flavour text are set aside,
then terms (``NdX`` with the tool's own modifiers, ``{...}`` groups, numbers, ``floor(...)``
and parentheses) joined by ``+``, ``-``, ``*`` and ``/``. Which modifiers exist, and what
they mean, is the dialect's (:mod:`critlab.analysis.dice.roll20`,
:mod:`critlab.analysis.dice.foundry`): each rewrites the tree into critlab's own grammar,
so one engine answers every dialect.

>>> t = read("/r 4d6r1kh3 [strength]", ("kh", "r"))
>>> t.items[0][1].mods[0].name, t.items[0][1].mods[1].n
('r', 3)
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from critlab.analysis.dice.grammar import MAX_DIGITS, MAX_SIDES, MAX_TEXT, Cursor, NotationError, quote

COMPARE_OPS = ("<=", ">=", "<", ">", "=")
_CHARACTERS = frozenset(string.ascii_lowercase + string.digits + "+-*/%(){},<>=!")
# Parentheses, groups and functions nested deeper than this are no designer's formula.
MAX_NESTING = 16
# The words after a formula tried as its description (Roll20's "/roll 1d20+5 Roll for Initiative").
MAX_COMMENT_WORDS = 32
_WRAPPERS = re.compile(r"^\s*/(?:roll|r|gmroll|gmr|selfroll|sr|blindroll|broll|br)\s+", re.IGNORECASE)


class DialectError(NotationError):
    """A formula of another tool that critlab cannot read, or cannot answer exactly: one
    line naming the dialect, the formula and the element."""


@dataclass
class Mod:
    """One modifier as written: its name (``""`` for a bare compare point), Foundry's
    leading cap (``x5>=8``), its comparison and its number."""

    name: str
    cap: int | None
    op: str | None
    n: int | None
    text: str


@dataclass
class Dice:
    """``NdX`` and its modifiers in the order written (``count`` ``None``: unwritten)."""

    count: int | None
    faces: str  # digits, "f" or "%"
    mods: list[Mod] = field(default_factory=list)
    text: str = ""


@dataclass
class Group:
    """``{E1, E2, ...}`` and its modifiers."""

    members: list[Expr]
    mods: list[Mod] = field(default_factory=list)
    text: str = ""


@dataclass
class Call:
    """``name(expr)``: a function of the tool's math."""

    name: str
    arg: Expr
    text: str


@dataclass
class Product:
    """``left * right``, ``left / right`` (and the tool's other operators, refused)."""

    op: str
    left: Node
    right: Node
    text: str


Node = int | Dice | Group | Call | Product


@dataclass
class Expr:
    """Signed items summed; a trailing comparison where the text has one."""

    items: list[tuple[int, Node]]
    compare: Mod | None = None
    text: str = ""


class Reader(Cursor):
    """A cursor over the formula (labels removed, spaces removed, letters lowered) that
    reads one dialect's modifiers (``names``, tried longest first)."""

    def __init__(self, dialect: str, original: str, text: str, names: Sequence[str]) -> None:
        self.dialect, self.original, self.s, self.i = dialect, original, text, 0
        self.names = sorted(names, key=len, reverse=True)
        self.depth = 0

    def error(self, why: str) -> DialectError:
        return DialectError(f"{self.dialect} dice {quote(self.original)}: {why}")

    def digits(self) -> int | None:
        start = self.i
        while self.i < len(self.s) and self.s[self.i].isdigit():
            self.i += 1
        if self.i == start:
            return None
        if self.i - start > MAX_DIGITS:
            raise self.error(
                f"number {quote(self.s[start : self.i])} is far above every limit of the notation"
            )
        return int(self.s[start : self.i])

    def op(self) -> str | None:
        for op in COMPARE_OPS:
            if self.take(op):
                return op
        return None

    def rest(self) -> str:
        return self.s[self.i :]


def read(text: str, names: Sequence[str], dialect: str = "roll20", *, comments: bool = False) -> Expr:
    """``text`` as the tool writes it, with modifiers ``names``; a text its grammar does
    not produce raises :class:`DialectError` naming the place. ``comments``: words after
    the formula, and anything after a backslash, describe the roll (Roll20's "Including
    Additional Information") and are set aside."""
    if comments and isinstance(text, str) and len(text) <= MAX_TEXT:
        formula = text.split("\\", 1)[0]
        try:
            return read(formula, names, dialect)
        except DialectError as whole:
            words = formula.split()
            cuts = [c for c in range(len(words) - 1, 0, -1) if words[c][:1].isalpha()]
            for cut in cuts[:MAX_COMMENT_WORDS]:  # the longest start that is a formula, then words
                try:
                    return read(" ".join(words[:cut]), names, dialect)
                except DialectError:
                    continue
            raise whole
    if not isinstance(text, str):
        raise DialectError(f"a dice expression must be text, got {text!r}")
    if len(text) > MAX_TEXT:
        raise DialectError(
            f"{dialect} dice {quote(text)}: at most {MAX_TEXT:,} characters, got {len(text):,}"
        )
    body = _WRAPPERS.sub("", text, count=1).strip()
    if body.startswith("[[") and body.endswith("]]"):
        body = body[2:-2]
    body = re.sub(r"\[[^\[\]]*\]", "", body)  # flavour labels: no part of the value
    r = Reader(dialect, text, "".join(body.split()).lower(), names)
    if not r.s:
        raise r.error("it is empty; expected e.g. '1d20' or '2d6+1'")
    bad = next((ch for ch in r.s if ch not in _CHARACTERS), None)
    if bad in ("@", "?", "&", "#"):
        raise r.error(f"{quote(bad)}: attributes, queries and macros have no value here; write the number")
    if bad is not None:
        raise r.error(f"{quote(bad)} is no part of its dice notation")
    expr = _expression(r)
    if r.i < len(r.s):
        raise r.error(f"unexpected {quote(r.rest())}; expected '+', '-' or a modifier of the term before it")
    return expr


def _expression(r: Reader) -> Expr:
    r.depth += 1
    if r.depth > MAX_NESTING:
        raise r.error(f"nested more than {MAX_NESTING} deep")
    try:
        return _sum(r)
    finally:
        r.depth -= 1


def _sum(r: Reader) -> Expr:
    start = r.i
    items: list[tuple[int, Node]] = []
    sign = -1 if r.take("-") else 1
    if sign == 1:
        r.take("+")
    while True:
        items.append((sign, _product(r)))
        if r.peek() in ("+", "-"):
            sign = 1 if r.peek() == "+" else -1
            r.i += 1
            continue
        break
    compare = None
    if r.peek() in ("<", ">", "="):
        at = r.i
        op = r.op()
        n = r.digits()
        if n is None:
            raise r.error(f"a number after {quote(op)}")
        compare = Mod("", None, op, n, r.s[at : r.i])
    return Expr(items, compare, r.s[start : r.i])


def _product(r: Reader) -> Node:
    start = r.i
    node = _factor(r)
    while r.peek() in ("*", "/", "%"):
        op = "**" if r.take("**") else r.s[r.i]
        if op != "**":
            r.i += 1
        node = Product(op, node, _factor(r), r.s[start : r.i])
    return node


def _factor(r: Reader) -> Node:
    start = r.i
    if r.take("("):
        inner = _expression(r)
        if not r.take(")"):
            raise r.error(f"unexpected {quote(r.rest()) if r.rest() else 'end of text'}; expected ')'")
        if r.peek() == "d":  # computed dice: (1+2)d6
            return _dice(r, _computed(r, inner, r.s[start : r.i]), start)
        return Call("", inner, r.s[start : r.i])
    name = re.match(r"[a-z]{2,}(?=\()", r.rest())
    if name:
        r.i += len(name.group(0)) + 1
        inner = _expression(r)
        if not r.take(")"):
            raise r.error(f"unexpected {quote(r.rest()) if r.rest() else 'end of text'}; expected ')'")
        return Call(name.group(0), inner, r.s[start : r.i])
    if r.peek() == "{":
        return _group(r)
    n = r.digits()
    if r.peek() == "d":
        return _dice(r, n, start)
    if n is None:
        got = quote(r.rest()) if r.rest() else "end of text"
        raise r.error(f"unexpected {got}; expected a die like '2d6', a group like '{{4d6, 3d8}}' or a number")
    return n


def _group(r: Reader) -> Group:
    start = r.i
    r.take("{")
    members = [_expression(r)]
    while r.take(","):
        members.append(_expression(r))
    if not r.take("}"):
        raise r.error(f"unexpected {quote(r.rest()) if r.rest() else 'end of text'}; expected ',' or '}}'")
    g = Group(members)
    g.mods = _mods(r, group=True)
    g.text = r.s[start : r.i]
    return g


def _dice(r: Reader, count: int | None, start: int) -> Dice:
    r.take("d")
    if r.take("%"):
        faces = "%"
    elif r.peek() == "f" and not any(r.s.startswith(n, r.i) for n in r.names if len(n) > 1 and n[0] == "f"):
        r.i += 1
        faces = "f"
    elif r.peek() == "(":  # computed faces: 2d(3+3)
        at = r.i
        r.i += 1
        inner = _expression(r)
        if not r.take(")"):
            raise r.error(f"unexpected {quote(r.rest()) if r.rest() else 'end of text'}; expected ')'")
        faces = str(_computed(r, inner, r.s[at : r.i]))
    else:
        n = r.digits()
        if n is None:
            got = quote(r.rest()) if r.rest() else "end of text"
            raise r.error(f"unexpected {got} after {quote(r.s[start : r.i])}; expected its number of faces")
        faces = str(n)
    if faces not in ("f", "%") and not 1 <= int(faces) <= MAX_SIDES:
        raise r.error(f"{quote(r.s[start : r.i])}: a die has 1..{MAX_SIDES} faces")
    d = Dice(count, faces)
    d.mods = _mods(r, group=False)
    d.text = r.s[start : r.i]
    return d


def _computed(r: Reader, e: Expr, text: str) -> int:
    """A computed dice count or number of faces: integers under ``+``, ``-`` and ``*``."""

    def value(node: Node) -> int | None:
        if isinstance(node, int):
            return node
        if isinstance(node, Call) and node.name == "":
            return total(node.arg)
        if isinstance(node, Product) and node.op == "*":
            a, b = value(node.left), value(node.right)
            return None if a is None or b is None else a * b
        return None

    def total(x: Expr) -> int | None:
        parts = [value(n) for _, n in x.items]
        if x.compare is not None or None in parts:
            return None
        return sum(sign * v for (sign, _), v in zip(x.items, parts, strict=True))

    n = total(e)
    if n is None or n < 0:
        raise r.error(f"{quote(text)}: a computed count of dice or faces is integers under +, - and *")
    return n


def _mods(r: Reader, *, group: bool) -> list[Mod]:
    """The modifiers after a term, in the order written: a name (or none: a bare compare
    point), then ``[cap][op][number]``."""
    out: list[Mod] = []
    while r.i < len(r.s):
        at = r.i
        name = next((n for n in r.names if r.s.startswith(n, r.i)), None)
        if name is None:
            if r.peek() not in ("<", ">", "="):
                return out
            name = ""
        r.i += len(name)
        first = r.digits()
        op = r.op()
        second = r.digits() if op or first is None else None
        if op and second is None:
            raise r.error(f"{quote(r.s[at : r.i])}: a number after {quote(op)}")
        cap, n = (first, second) if op else (None, first)
        out.append(Mod(name, cap, op, n, r.s[at : r.i]))
    return out


# -- critlab's side: faces, sets of faces as selectors -----------------------------------
def face_values(faces: str) -> list[int]:
    """The faces of one die of ``faces`` (digits, ``"f"`` Fate, ``"%"``)."""
    if faces == "f":
        return [-1, 0, 1]
    return list(range(1, (100 if faces == "%" else int(faces)) + 1))


def meets(op: str, n: int) -> Callable[[int], bool]:
    """A comparison as a test of one value."""
    return {
        "=": lambda v: v == n,
        "<": lambda v: v < n,
        "<=": lambda v: v <= n,
        ">": lambda v: v > n,
        ">=": lambda v: v >= n,
    }[op]


def selector(met: set[int], faces: Sequence[int]) -> str | None:
    """critlab's selector meeting exactly the faces ``met`` of ``faces``: a bare number
    for one face, ``<=T`` / ``>=T`` for a side of the faces; ``None`` where no selector
    does (two faces apart, both ends).

    >>> selector({4, 5, 6}, range(1, 7)), selector({1}, range(1, 7)), selector({2, 4}, range(1, 7))
    ('>=4', '1', None)
    """
    met = {f for f in faces if f in met}
    if not met:
        return None
    if len(met) == 1:
        return str(next(iter(met)))
    if met == {f for f in faces if f <= max(met)}:
        return f"<={max(met)}"
    if met == {f for f in faces if f >= min(met)}:
        return f">={min(met)}"
    return None


def listed(values: Sequence[int]) -> str:
    """Faces written out: ``{1,1,2}``."""
    return "{" + ",".join(map(str, values)) + "}"


__all__ = [
    "COMPARE_OPS",
    "Call",
    "Dice",
    "DialectError",
    "Expr",
    "Group",
    "Mod",
    "Node",
    "Product",
    "Reader",
    "face_values",
    "listed",
    "meets",
    "read",
    "selector",
]
