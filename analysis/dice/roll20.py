"""Roll20's dice notation (its Dice Reference, help.roll20.net "Dice Reference"), read as
it means there and rewritten in critlab's grammar.

Where Roll20 differs from critlab: ``!`` adds each explosion as a die of its own
(critlab ``x``), ``!!`` compounds (critlab ``!``), ``!p`` penetrates; a compare point
``>T`` means T or more and ``<T`` T or less, for explosions, rerolls and counts; a bare
compare point after a dice term makes it a success count (``8d6>4``), and ``fT`` after it
subtracts failures; ``r`` rerolls while the die matches (several ``r`` join), ``ro`` once;
``k`` is ``kh`` and ``d`` is ``dl``; ``cs``/``cf`` only colour a roll, and sorting
(``s``, ``sa``, ``sd``) orders it: neither changes a value; a group ``{...}`` of one
roll applies its modifiers to that roll's dice (``{5d6!!}>8`` counts compounded dice of
8 or more), of several rolls to their totals; computed dice (``(1+2)d6``) are integers;
words after the formula (or after a backslash) say what the roll is for. Matches (``m``,
``mt``) are refused.

>>> from critlab.analysis.dice.dialect import translate
>>> [translate(e, "roll20") for e in ("3d6!>4", "5d6!!", "10d10>8f1", "2d8r8r1", "{5d6!!}>8")]
['3d6x>=4', '5d6!', '10d10cs>=8df1', '2d{2,3,4,5,6,7}', '5d6!cs>=8']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from critlab.analysis.dice.grammar import quote
from critlab.analysis.dice.tabletop import Dice, Expr, Group, Mod, face_values, listed, meets, selector

if TYPE_CHECKING:  # the rewriter calls these; typed, not imported
    from critlab.analysis.dice.rewrite import Rewriter

NAMES = (
    "!!",
    "!p",
    "!",
    "ro",
    "r",
    "kh",
    "kl",
    "k",
    "dh",
    "dl",
    "d",
    "cs",
    "cf",
    "f",
    "sa",
    "sd",
    "s",
    "mt",
    "m",
)
# Words after the formula (and text after a backslash) say what the roll is for.
COMMENTS = True
_KEEP = {"k": "kh", "kh": "kh", "kl": "kl", "d": "dl", "dl": "dl", "dh": "dh"}
_EXPLODE = {"!": "x", "!!": "!", "!p": "!p"}


def point(rw: Rewriter, m: Mod, default: int | None = None) -> tuple[str, int]:
    """A compare point as ``(op, T)`` in critlab's meaning: Roll20's ``>T`` is T or more,
    ``<T`` T or less (its ``>=`` / ``<=`` read alike), a bare ``T`` T alone."""
    if m.cap is not None:
        raise rw.error(f"{quote(m.text)}: a number before a compare point is not Roll20's")
    if m.n is None:
        if default is None:
            raise rw.error(f"{quote(m.text)} needs a compare point (e.g. {m.name}>4)")
        return "=", default
    return {None: "=", "=": "=", ">": ">=", ">=": ">=", "<": "<=", "<=": "<="}[m.op], m.n


def term(rw: Rewriter, d: Dice, extra: list[Mod] | None = None) -> tuple[list[tuple[int, str]], int]:
    """One dice term (``extra``: a one-roll group's modifiers, applied to its dice)."""
    faces = face_values(d.faces)
    count = 1 if d.count is None else d.count
    rerolls: dict[str, set[int]] = {}
    explode = keep = None
    success: tuple[str, int] | None = None
    failure: tuple[str, int] | None = None
    for m in [*d.mods, *(extra or [])]:
        if m.name in ("r", "ro"):
            op, n = point(rw, m)
            rerolls.setdefault(m.name, set()).update(f for f in faces if meets(op, n)(f))
        elif m.name in _EXPLODE:
            if explode is not None:
                raise rw.error(f"{quote(d.text)}: a second explosion ({quote(m.text)})")
            explode = (_EXPLODE[m.name], point(rw, m, max(faces)))
        elif m.name in _KEEP:
            if keep is not None:
                raise rw.error(f"{quote(d.text)}: a second keep or drop ({quote(m.text)})")
            if m.op is not None or m.cap is not None:
                raise rw.error(f"{quote(m.text)}: keep and drop take a number of dice, not a compare point")
            keep = f"{_KEEP[m.name]}{1 if m.n is None else m.n}"
        elif m.name == "":
            success = point(rw, m)
        elif m.name == "f":
            failure = point(rw, m)
        elif m.name in ("mt", "m"):
            raise rw.error(f"{quote(m.text)}: Roll20's dice matching ('m', 'mt') is not answered by critlab")
        # cs / cf colour a roll, s / sa / sd sort it: the value is the same
    if len(rerolls) > 1:
        raise rw.error(f"{quote(d.text)}: 'r' and 'ro' together are not read")
    if failure is not None and success is None:
        raise rw.error(f"{quote(d.text)}: failures (f) count against a success target, e.g. 10d10>8f1")
    out = f"{count}d{'F' if d.faces == 'f' else d.faces}"
    if rerolls:
        ((kind, met),) = rerolls.items()
        sel = selector(met, faces)
        if sel is None:
            if kind == "ro" or explode is not None:
                raise rw.error(f"{quote(d.text)}: its rerolls meet faces no single selector meets")
            out = f"{count}d{listed([f for f in faces if f not in met])}"  # rerolled while met: the rest
        else:
            out += ("rr" if kind == "r" else "ro") + sel
    summed = explode is not None and explode[0] != "x"  # a die's rolls added into one total
    if explode is not None:
        kind, (op, n) = explode
        if kind == "!p" and (keep or success):
            raise rw.error(
                f"{quote(d.text)}: penetrating dice kept or counted roll by roll are not answered by critlab"
            )
        sel = selector({f for f in faces if meets(op, n)(f)}, faces) or f"{'' if op == '=' else op}{n}"
        out += kind + ("" if sel == str(max(faces)) else sel)
    if keep:
        out += keep
    if success is not None:
        out += "cs" + _count(success, faces, summed)
        if failure is not None:
            out += "df" + _count(failure, faces, summed)
    return [(1, out)], 0


def _count(p: tuple[str, int], faces: list[int], summed: bool) -> str:
    """A success or failure point as critlab's count selector: over the faces, or over
    compounded totals (which pass the faces)."""
    op, n = p
    if not summed:
        sel = selector({f for f in faces if meets(op, n)(f)}, faces)
        if sel is not None:
            return sel
    return f"{op}{n}"


def group(rw: Rewriter, g: Group) -> tuple[list[tuple[int, str]], int]:
    """A grouped roll: of one roll, its modifiers act on that roll's dice; of several, on
    the rolls' totals (keep/drop, a success point, failures)."""
    if len(g.members) == 1:
        (member,) = g.members
        if member.compare is None and len(member.items) == 1 and isinstance(member.items[0][1], Dice):
            sign, dice = member.items[0]
            terms, c = term(rw, dice, g.mods)
            return [(sign * s, t) for s, t in terms], sign * c
        keeps = [m for m in g.mods if m.name in _KEEP]
        points = [m for m in g.mods if m.name == ""]
        if len(keeps) + len(points) != len(g.mods) or len(keeps) > 1 or len(points) > 1:
            raise rw.error(f"{quote(g.text)}: a one-roll group takes a keep or drop and a success point")
        if not points:
            return rw.sum(member)  # one total kept of one
        op, n = point(rw, points[0])
        return [(1, "{" + rw.expression(member) + f"{op}{n}, 0}}")], 0  # 1 where the total meets it
    keep = success = failure = None
    for m in g.mods:
        if m.name in _KEEP and keep is None and m.op is None:
            keep = f"{_KEEP[m.name]}{1 if m.n is None else m.n}"
        elif m.name == "" and success is None:
            success = point(rw, m)
        elif m.name == "f" and failure is None:
            failure = point(rw, m)
        else:
            raise rw.error(f"{quote(m.text)}: a group takes one keep or drop, a success point and failures")
    out = "{" + ", ".join(rw.expression(mem) for mem in g.members) + "}" + (keep or "")
    if success is not None:
        out += "cs" + _count(success, [], True) + ("df" + _count(failure, [], True) if failure else "")
    elif failure is not None:
        raise rw.error(f"{quote(g.text)}: failures (f) count against a success target")
    return [(1, out)], 0


def whole(rw: Rewriter, e: Expr) -> str | None:
    """The whole formula a one-roll group with a success point (``{3d20+5}>21``): critlab's
    comparison of the total."""
    if e.compare is None and len(e.items) == 1 and e.items[0][0] == 1 and isinstance(e.items[0][1], Group):
        g = e.items[0][1]
        if len(g.members) == 1 and [m.name for m in g.mods] == [""]:
            (member,) = g.members
            single = (
                member.compare is None and len(member.items) == 1 and isinstance(member.items[0][1], Dice)
            )
            if not single:
                op, n = point(rw, g.mods[0])
                return rw.expression(member) + f"{op}{n}"
    return None


def compare(rw: Rewriter, e: Expr, top: bool) -> str:
    """A compare point after a number or a sum: Roll20 compares dice, not totals, except
    a one-roll group's (``{3d20+5}>21``) read as the whole formula."""
    raise rw.error(
        f"{quote(e.compare.text)} after {quote(e.text[: -len(e.compare.text)])}: Roll20 compares dice, not "
        f"totals; a total is compared as a group, e.g. {{{e.text[: -len(e.compare.text)]}}}{e.compare.text}"
    )


__all__ = ["NAMES", "compare", "group", "point", "term", "whole"]
