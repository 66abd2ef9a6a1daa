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

import dataclasses
from bisect import bisect_left
from collections.abc import Sequence
from functools import lru_cache

from critlab.analysis.dice.dialect import DialectError, check_dialect, split, translate
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
from critlab.analysis.dice.grammar import (
    MAX_FACES,
    MAX_SIDES,
    UNBOUNDED,
    Interval,
    NotationError,
    RawDice,
    RawExpr,
    RawGroup,
    interval,
    parse_text,
    show_interval,
)
from critlab.analysis.dice.limits import MAX_SPAN, MAX_TOTAL_DICE, check_limits, limits
from critlab.analysis.dice.limits import quote as _show
from critlab.analysis.dice.terms import DiceExpr, DiceGroup, DiceTerm
from critlab.analysis.dist import TAIL_EPS, Dist
from critlab.kernels.vocab.dice import DROP_HIGHEST, DROP_LOWEST

MAX_DICE = 1000
MAX_MEMBERS = 100
MAX_SCALE = 100
MAX_CONSTANT = 10**6


@lru_cache(maxsize=1024)
def parse(text: str, dialect: str | None = None) -> DiceExpr:
    """Parse dice notation; a malformed expression raises :class:`NotationError` (a
    ``ValueError``) naming the bad part.

    ``dialect`` (``"roll20"``, ``"foundry"``; default ``"critlab"``) reads the text as that
    tool does (:mod:`critlab.analysis.dice.dialect`), as does a text written
    ``roll20:EXPR`` / ``foundry:EXPR`` whatever ``dialect`` says: the expression is then
    critlab's rewriting of it, its :attr:`~DiceExpr.source` the text as written.

    >>> parse("d20").terms[0].count
    1
    >>> parse("3d6kh4")
    Traceback (most recent call last):
    ...
    critlab.analysis.dice.grammar.NotationError: bad dice expression '3d6kh4': 'kh4' keeps 4 of 3 dice; ...
    >>> e = parse("roll20:8d6>4")
    >>> e.text, e.source
    ('8d6cs>=4', 'roll20 8d6>4')
    """
    named, body = split(text)
    chosen = named or (dialect or "critlab").lower()
    if chosen == "critlab":
        return _expr(body, parse_text(body), member=False)
    return _translated(body, chosen)


def _translated(text: str, dialect: str) -> DiceExpr:
    """``text`` in ``dialect``, rewritten and parsed by critlab's grammar."""
    ours = translate(text, dialect)
    try:
        expr = parse(ours)
    except NotationError as exc:
        why = str(exc).split(f"{_show(ours)}: ", 1)[-1]
        raise DialectError(f"{dialect} dice {_show(text)} (critlab: {_show(ours)}): {why}") from None
    return dataclasses.replace(expr, source=f"{dialect} {text}")


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
    # (positional: a keyword call costs a pool's members a share of the whole to count)
    return DiceExpr(text, tuple(terms), raw.constant, compare, member)


def _error(text: str, why: str) -> NotationError:
    whole = _show(text.strip()) + ": "
    if why.startswith(whole):  # the term is the whole expression: name it once
        why = why[len(whole) :]
    return NotationError(f"bad dice expression {_show(text)}: {why}")


def _written(op: str, sel: tuple[str, int]) -> str:
    """A suffix with its selector as written (a bare number for equality)."""
    return f"'{op}{'' if sel[0] == '=' else sel[0]}{sel[1]}'"


def _meets(iv: Interval, values: list[int]) -> bool:
    """Whether some of the (ascending) ``values`` lies in ``iv``: the first not below it."""
    i = bisect_left(values, iv[0])
    return i < len(values) and values[i] <= iv[1]


def _dice(text: str, raw: RawDice, sign: int) -> DiceTerm:
    n = raw.count
    if not 1 <= n <= MAX_DICE:
        raise _error(text, f"{_show(raw.text)}: dice count {n} is not in 0..{MAX_DICE}")
    s = raw.suffixes
    kind, sides = raw.faces
    if not s and kind == "sides" and 1 <= sides <= MAX_SIDES:
        return DiceTerm(sign, n, sides)  # plain NdX (a pool's member): nothing else to set
    fields: dict = {"face_kind": kind}
    sides, listed = _die_faces(text, raw, fields)
    if not s:
        return DiceTerm(sign, n, sides, **fields)
    here = _show(raw.text)  # (quoted for the messages only where a suffix may need it)
    every = list(listed) if type(listed) is range else sorted(set(listed))  # a range is in order
    faces = every
    if "reroll" in s:
        faces = _reroll(text, here, s["reroll"], faces, fields)
    if "clamp" in s:
        faces = _clamp(text, here, s["clamp"], faces, fields)
    if "explode" in s:
        if "clamp" in s:
            raise _error(text, f"{here}: a term clamps or explodes, not both")
        _explode(text, here, s["explode"], every, fields)
    if "keep" in s:
        _dice_keep(text, here, s["keep"], n, fields)
    if "count" in s:
        _count(text, here, s["count"], faces, fields)
    _scale(text, here, s, fields)
    return DiceTerm(sign, n, sides, **fields)


def _die_faces(text: str, raw: RawDice, fields: dict) -> tuple[int, Sequence[int]]:
    """A die's sides and its faces as :attr:`DiceTerm.face_values` lists them (one term
    is built, at the end), checked; a listed die's faces go into ``fields``."""
    kind, value = raw.faces
    if kind == "sides":
        if not 1 <= value <= MAX_SIDES:
            raise _error(text, f"{_show(raw.text)}: d{value} has no sides in 1..{MAX_SIDES}")
        return value, range(1, value + 1)
    if kind == "fate":
        return 3, (-1, 0, 1)
    if not 1 <= len(value) <= MAX_FACES:
        raise _error(text, f"{_show(raw.text)}: lists {len(value)} faces; list 1..{MAX_FACES}")
    if any(abs(v) > MAX_CONSTANT for v in value):
        raise _error(text, f"{_show(raw.text)}: a face beyond ±{MAX_CONSTANT}")
    fields["faces"] = tuple(value)
    return len(value), fields["faces"]


def _reroll(text: str, here: str, suffix: tuple, faces: list[int], fields: dict) -> list[int]:
    """A reroll (``rN``, ``rrN``): the faces left once ``rr`` rerolls until none is met."""
    op, sel = suffix
    iv = interval(*sel)
    left = [f for f in faces if not iv[0] <= f <= iv[1]]
    if not _meets(iv, faces):
        raise _error(text, f"{here}: {_written(op, sel)} meets no face; the faces are {_span(faces)}")
    if op == "rr" and not left:
        raise _error(text, f"{here}: {_written(op, sel)} rerolls every face and never stops; leave a face")
    fields.update(reroll_mode=op, reroll=iv)
    return left if op == "rr" else faces


def _clamp(text: str, here: str, suffix: tuple, faces: list[int], fields: dict) -> list[int]:
    """A clamp (``miN``, ``maN``) inside the faces: the faces it leaves."""
    lo, hi = suffix
    lo_ok = lo is None or faces[0] <= lo <= faces[-1]
    hi_ok = hi is None or faces[0] <= hi <= faces[-1]
    if not (lo_ok and hi_ok):
        raise _error(text, f"{here}: a clamp must lie inside the faces {_span(faces)}")
    if lo is not None and hi is not None and lo > hi:
        raise _error(text, f"{here}: 'mi{lo}' exceeds 'ma{hi}'; mi may not exceed ma")
    iv = (-UNBOUNDED if lo is None else lo, UNBOUNDED if hi is None else hi)
    fields["clamp"] = iv
    return sorted({min(max(f, iv[0]), iv[1]) for f in faces})


def _explode(text: str, here: str, suffix: tuple, all_faces: list[int], fields: dict) -> None:
    """An explosion over the die's own faces: it meets some face but not every one, and
    never adds below 0 (which would lower the total without end)."""
    kind_x, sel, once = suffix
    iv = interval(*sel) if sel else (all_faces[-1], UNBOUNDED)
    if not _meets(iv, all_faces):
        raise _error(text, f"{here}: the explosion meets no face; the faces are {_span(all_faces)}")
    if all(iv[0] <= f <= iv[1] for f in all_faces):
        raise _error(text, f"{here}: the explosion meets every face and never stops")
    least = min(f - (1 if kind_x == "!p" else 0) for f in all_faces if iv[0] <= f <= iv[1])
    if least < 0:
        raise _error(text, f"{here}: an explosion may not add below 0 (it would lower the total without end)")
    met = [f for f in all_faces if iv[0] <= f <= iv[1]]
    on_top = met == [all_faces[-1]]  # the same as no selector: the maximum
    fields.update(
        exploding=True, explode_kind=kind_x, explode_at=None if on_top else iv, explode_once=bool(once)
    )


def _dice_keep(text: str, here: str, suffix: tuple, n: int, fields: dict) -> None:
    op, k = suffix
    if fields.get("explode_kind") == "x" and op in ("dh", "dl"):
        # the dice rolled vary in number: the K dropped ones are chosen from all of them
        if not 1 <= k <= n:
            why = f"'{op}{k}' drops {k} of {n} dice (before explosions); drop 1..{n}"
            raise _error(text, f"{here}: {why}")
        fields.update(keep_mode=DROP_LOWEST if op == "dl" else DROP_HIGHEST, keep=k)
    else:
        _keep(text, here, op, k, n, "dice", fields)


def _count(text: str, here: str, suffix: tuple, faces: list[int], fields: dict) -> None:
    """A success count (and botch) whose selectors meet some total: some face, or, when
    the die explodes, anything up to its unbounded top."""
    op, sel, botch = suffix
    iv = interval(*sel)
    fields.update(count_kind=op, count_range=iv)
    exploding = fields.get("exploding", False)
    for what, c in (("count", iv), ("botch", interval(*botch) if botch else None)):
        if c is None:
            continue
        ok = (c[1] >= faces[0]) if exploding else _meets(c, faces)
        if not ok:
            raise _error(text, f"{here}: the {what} selector meets no total; the faces are {_span(faces)}")
    if botch:
        fields["botch"] = interval(*botch)


def _span(faces) -> str:
    return f"{faces[0]}..{faces[-1]}" if len(faces) > 1 else str(faces[0])


def _keep(text: str, here: str, op: str, k: int, n: int, what: str, fields: dict) -> None:
    """A keep or drop suffix (``khK``, ``klK``, ``dhK``, ``dlK``) on ``n`` dice or members
    (``what``) as the fields it sets: which end is kept and how many, none where all are."""
    if op in ("kh", "kl"):
        if not 1 <= k <= n:
            raise _error(text, f"{here}: '{op}{k}' keeps {k} of {n} {what}; keep 1..{n}")
        mode, kept = (KEEP_HIGHEST if op == "kh" else KEEP_LOWEST), k
    else:
        if not 1 <= k < n:
            raise _error(text, f"{here}: '{op}{k}' drops {k} of {n} {what}; drop 1..{n - 1}")
        mode, kept = (KEEP_HIGHEST if op == "dl" else KEEP_LOWEST), n - k
    if kept < n:
        fields.update(keep_mode=mode, keep=kept)


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
    # a member written again (a Cortex pool's second d6) is the expression built the first
    # time: the reader gives it the same reading (:func:`grammar._member`), built once here
    # (by identity: the readings live in the group's list meanwhile) into the same object,
    # so the group's cost and values are each computed once per distinct member
    read: dict[int, DiceExpr] = {}
    built = []
    for reading in raw.members:
        member = read.get(id(reading))
        if member is None:
            member = read[id(reading)] = _expr(text, reading, member=True)
        built.append(member)
    members = tuple(built)
    fields: dict = {}
    s = raw.suffixes
    m = len(members)
    if "keep" in s:
        op, k = s["keep"]
        _keep(text, here, op, k, m, "members", fields)
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


def dice_dist(text: str, dialect: str | None = None) -> Dist:
    """Exact distribution of a dice expression given as text (``dialect``: read as that
    tool does, see :func:`parse`).

    >>> round(dice_dist("3d6 - 3d6").mean, 12)
    0.0
    >>> round(dice_dist("2d6ro<=2").mean * 3, 12)       # 25/3
    25.0
    >>> round(dice_dist("2d6!kh1", dialect="roll20").mean, 2)   # Roll20's ! adds dice of their own
    4.47
    """
    if dialect is not None:
        dialect = check_dialect("dialect", dialect)
    return parse(text, dialect).dist()


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
    "Interval",
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
    "show_interval",
]
