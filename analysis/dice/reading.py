"""A dice expression's reading in plain words: what was read, so nothing is a surprise.

``reading(expr)`` (text or a parsed :class:`~critlab.analysis.dice.notation.DiceExpr`)
is the line ``critlab dice`` prints above its table. A bare number in a reroll means that
face alone, as in the field's tools; where it once meant "that face or less" the reading
says how to write that.

>>> reading("2d6ro2")
'2d6ro2: 2 d6, each rerolled once on a 2 (only 2s; rerolling 2 or less is ro<=2)'
>>> reading("4d6dl1")
'4d6dl1: 4 d6, keep the highest 3'
>>> reading("{d6, d8, d12}kh2")
'{d6, d8, d12}kh2: the highest 2 of {a d6; a d8; a d12}'
>>> reading("1d20+5>=15")
'1d20+5>=15: a d20, plus 5; then 1 if the total is 15 or more, else 0'
"""

from __future__ import annotations

from critlab.analysis.dice.notation import (
    KEEP_HIGHEST,
    KEEP_LOWEST,
    UNBOUNDED,
    DiceExpr,
    DiceGroup,
    DiceTerm,
    parse,
)
from critlab.kernels.vocab.dice import DROP_HIGHEST, DROP_LOWEST

KEEP_WORDS = {KEEP_HIGHEST: "highest", KEEP_LOWEST: "lowest"}
DROP_WORDS = {DROP_LOWEST: "lowest", DROP_HIGHEST: "highest"}  # an 'x' term's drop


def _a(n: int) -> str:
    """'a 2', 'an 8', 'an 11', 'an 18'."""
    spoken = str(n)
    vowel = (
        spoken.startswith("8")
        or spoken in ("11", "18")
        or spoken.startswith(("11", "18"))
        and len(spoken) in (5, 6)
    )
    return f"{'an' if vowel else 'a'} {n}"


def selector_words(iv: tuple[int, int]) -> str:
    """The values a selector meets, in words: 'a 2', '2 or less', '8 or more'.

    >>> selector_words((2, 2)), selector_words((-UNBOUNDED, 2)), selector_words((8, UNBOUNDED))
    ('a 2', '2 or less', '8 or more')
    """
    lo, hi = iv
    if lo == hi:
        return _a(lo)
    if lo <= -UNBOUNDED:
        return f"{hi} or less"
    if hi >= UNBOUNDED:
        return f"{lo} or more"
    return f"{lo} to {hi}"


def _faces(t: DiceTerm) -> tuple[str, str]:
    """``(one, many)``: 'a d6' / '4 d6'."""
    if t.face_kind == "fate":
        return "a Fate die (-1, 0, +1)", f"{t.count} Fate dice (-1, 0, +1)"
    if t.face_kind == "list":
        listed = ", ".join(map(str, t.faces))
        return f"a die with faces {listed}", f"{t.count} dice with faces {listed}"
    return f"a d{t.sides}", f"{t.count} d{t.sides}"


def _on_faces(t: DiceTerm, iv: tuple[int, int]) -> str:
    """A selector over a die's faces in words ('a 6' where it meets the 6 alone)."""
    met = sorted({f for f in t.face_values if iv[0] <= f <= iv[1]})
    return _a(met[0]) if len(met) == 1 else selector_words(iv)


def _die_clauses(t: DiceTerm) -> list[str]:
    out = []
    if t.reroll is not None:
        lo, hi = t.reroll
        on = _on_faces(t, t.reroll)
        if t.reroll_mode == "rr":
            out.append(f"rerolled while it shows {on}")
        else:
            out.append(f"rerolled once on {on}")
        if lo == hi and min(t.face_values) < lo < max(t.face_values):
            out[-1] += f" (only {lo}s; rerolling {lo} or less is {t.reroll_mode}<={lo})"
    if t.clamp is not None:
        lo, hi = t.clamp
        if lo > -UNBOUNDED:
            out.append(f"showing at least {lo} (a lower face counts as {lo})")
        if hi < UNBOUNDED:
            out.append(f"showing at most {hi} (a higher face counts as {hi})")
    if t.exploding:
        on = _on_faces(t, t.explode)
        if t.explode_kind == "!p":
            out.append(f"penetrating on {on} (each added roll counts 1 less, and explodes on its own face)")
        elif t.explode_kind == "x":
            again = "once" if t.explode_once else "again on each added roll"
            out.append(f"exploding on {on} ({again}), each added roll a die of its own")
        elif t.explode_once:
            out.append(f"exploding once on {on} (one added roll at most)")
        else:
            out.append(f"exploding on {on} (again on each added roll)")
    return out


def _pool_clauses(x, things: str) -> list[str]:
    """Keep, count and scale of a term or group, in words."""
    out = []
    if x.keep_mode in DROP_WORDS:
        out.append(f"drop the {DROP_WORDS[x.keep_mode]} {x.keep} of all the rolls")
    elif x.keep_mode:
        out.append(f"keep the {KEEP_WORDS[x.keep_mode]} {x.keep}")
    if x.count_kind:
        what = "successes" if x.count_kind == "cs" else "failures"
        counted = f"count {things} showing {selector_words(x.count_range)} ({what})"
        if x.botch is not None:
            counted += f", minus those showing {selector_words(x.botch)} (botches)"
        out.append(counted)
    if x.mul != 1:
        out.append(f"times {x.mul}")
    if x.div != 1:
        out.append(f"divided by {x.div}, rounded down")
    return out


def _term(t: DiceTerm) -> str:
    one, many = _faces(t)
    clauses = _die_clauses(t)
    if t.count == 1:
        head = one + (" " + ", ".join(clauses) if clauses else "")
    else:
        head = many + (", each " + ", ".join(clauses) if clauses else "")
    return ", ".join([head, *_pool_clauses(t, "the dice" if t.count > 1 else "it")])


def _group(g: DiceGroup) -> str:
    members = "; ".join(_expression(m, member=True) for m in g.members)
    if g.keep_mode:
        head = f"the {KEEP_WORDS[g.keep_mode]} {g.keep} of {{{members}}}"
        rest = _pool_clauses(g, "the kept members")[1:]
    else:
        head = f"the sum of {{{members}}}" if not g.count_kind else f"{{{members}}}"
        rest = _pool_clauses(g, "the members")
    return ", ".join([head, *rest])


def _expression(e: DiceExpr, *, member: bool = False) -> str:
    parts = []
    for i, t in enumerate(e.terms):
        words = _group(t) if isinstance(t, DiceGroup) else _term(t)
        if t.sign < 0:
            words = "minus " + words
        elif i:
            words = "plus " + words
        parts.append(words)
    if e.constant or not parts:
        if not parts:
            parts.append(str(e.constant))
        else:
            parts.append(f"{'plus' if e.constant > 0 else 'minus'} {abs(e.constant)}")
    out = ", ".join(parts)
    if e.compare is not None:
        out += f"{',' if member else ';'} then 1 if the total is {selector_words(e.compare)}, else 0"
    return out


def reading(expr: str | DiceExpr) -> str:
    """``"TEXT: what it means"`` in plain words, for dice notation as text or parsed.

    >>> reading("1d6!")
    '1d6!: a d6 exploding on a 6 (again on each added roll)'
    >>> reading("4dF")
    '4dF: 4 Fate dice (-1, 0, +1)'
    >>> reading("roll20:8d6>4")
    'roll20 8d6>4 = 8d6cs>=4: 8 d6, count the dice showing 4 or more (successes)'
    """
    e = parse(expr) if isinstance(expr, str) else expr
    said = f"{e.source} = {e.text}" if e.source else e.text  # another tool's text, restated
    return f"{said}: {_expression(e)}"


__all__ = ["reading", "selector_words"]
