"""Foundry VTT's dice notation (its "Dice Modifiers" article, foundryvtt.com/article/
dice-modifiers, and the ``Die`` term's modifiers in its API documentation), read as it
means there and rewritten in critlab's grammar.

Foundry applies a term's modifiers in the order written, each to the results rolled so
far: ``r`` rerolls once (critlab ``ro``), ``rr`` while the result matches, ``x`` explodes
(each added roll a result of its own: critlab ``x``), ``xo`` once; ``k``/``kh``/``kl``
keep and ``d``/``dl``/``dh`` drop (1 where no number is written); ``min``/``max`` clamp
each result; ``cs`` counts successes, ``cf`` failures, ``df`` deducts one per failure,
``sf`` subtracts a failure's value, ``even``/``odd`` count even/odd results; ``ms``
takes a target off the total (``<``: the total off the target). A result's value after
the counting modifiers is a function of its face: critlab writes it as a count
(``cs``, ``df``, ``cf``), a clamp (``mi``/``ma``) or, where neither says it, as the die's
faces listed (``6d6even`` is ``6d{0,1,0,1,0,1}``). A pool ``{...}`` keeps or counts its
rolls' totals. Compare points are strict (``cs>10`` is 11 or more); ``!`` is not
Foundry's (``x`` explodes) and is refused naming it.

>>> from critlab.analysis.dice.dialect import translate
>>> [translate(e, "foundry") for e in ("5d10x10", "1d20rr<3", "6d6cs>3df", "6d6even", "6d6ms>12")]
['5d10x', '1d20rr<=2', '6d6cs>=4df<=3', '6d{0,1,0,1,0,1}', '6d6-12']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from critlab.analysis.dice.grammar import quote
from critlab.analysis.dice.tabletop import Dice, Expr, Group, Mod, face_values, listed, meets, selector

if TYPE_CHECKING:  # the rewriter calls these; typed, not imported
    from critlab.analysis.dice.rewrite import Rewriter

NAMES = (
    "rr", "r", "xo", "x", "kh", "kl", "k", "dh", "dl", "df", "d", "min", "max",
    "even", "odd", "cs", "cf", "sf", "ms", "!",
)  # fmt: skip
# Foundry's formula is the whole text (its flavour is in [labels]).
COMMENTS = False
_KEEP = {"k": "kh", "kh": "kh", "kl": "kl", "d": "dl", "dl": "dl", "dh": "dh"}
# The order critlab answers a term's modifiers in; Foundry's written order must agree.
_STAGE = {"r": 0, "rr": 0, "x": 1, "xo": 1, **dict.fromkeys(_KEEP, 2), "ms": 4}
_MAPS = ("min", "max", "cs", "cf", "df", "sf", "even", "odd")  # the value a result counts
_STAGE.update(dict.fromkeys(_MAPS, 3))


def _target(rw: Rewriter, m: Mod, default: int | None) -> tuple[str, int]:
    """A modifier's comparison ``(op, T)`` (Foundry's ``=`` where none is written)."""
    if m.cap is not None:
        raise rw.error(
            f"{quote(m.text)}: a cap on the number of rerolls or explosions is not answered by critlab"
        )
    n = default if m.n is None else m.n
    if n is None:
        raise rw.error(f"{quote(m.text)} needs a target (e.g. {m.name}>=10)")
    return m.op or "=", n


class _Result:
    """One result's flags and count as Foundry's counting modifiers leave them, for a
    given face (``count`` ``None``: the face itself counts)."""

    def __init__(self, face: int) -> None:
        self.face, self.count = face, None
        self.success: bool | None = None
        self.failure: bool | None = None


def _value_map(rw: Rewriter, mods: list[Mod], faces: list[int]) -> dict[int, int]:
    """What each face counts after the counting modifiers ``mods`` (in order)."""
    results = {f: _Result(f) for f in faces}
    lowest, highest = min(faces), max(faces)
    flagged = False  # whether a success count flagged successes (then df / sf fail the rest)
    for m in mods:
        if m.name in ("min", "max"):
            if m.op is not None or m.n is None:
                raise rw.error(f"{quote(m.text)}: {m.name} takes a number (e.g. {m.name}3)")
            for r in results.values():
                if (r.face < m.n) if m.name == "min" else (r.face > m.n):
                    r.count = m.n
            continue
        if m.name in ("even", "odd"):
            if m.op is not None or m.n is not None:
                raise rw.error(f"{quote(m.text)}: {m.name} takes nothing after it")
            for r in results.values():
                r.success = (r.face % 2 == 0) == (m.name == "even")
                r.count = int(r.success)
            flagged = True
            continue
        if m.name in ("cs", "cf"):
            test = meets(*_target(rw, m, highest if m.name == "cs" else lowest))
            for r in results.values():
                hit = test(r.face)
                if m.name == "cs":
                    r.success, r.failure = hit, (None if hit else r.failure)
                else:
                    r.failure, r.success = hit, (None if hit else r.success)
                r.count = int(hit)
            flagged = flagged or m.name == "cs"
            continue
        # df / sf: failures by their own target, else the non-successes, else the lowest face
        if m.op is not None or m.n is not None:
            test = meets(*_target(rw, m, lowest))
        elif flagged:
            test = None
        elif any(r.failure for r in results.values()):
            test = lambda f: results[f].failure  # noqa: E731  (cf's failures)
        else:
            test = meets("=", lowest)
        for r in results.values():
            if (r.success is False) if test is None else test(r.face):
                r.failure = True
            if r.failure:
                r.count = -1 if m.name == "df" else -r.face
    return {f: (f if r.count is None else r.count) for f, r in results.items()}


def term(rw: Rewriter, d: Dice) -> tuple[list[tuple[int, str]], int]:
    """One dice term, its modifiers in the order written."""
    faces = face_values(d.faces)
    count = 1 if d.count is None else d.count
    stage, reroll, explode, keep, margin = -1, None, None, None, None
    maps: list[Mod] = []
    for m in d.mods:
        if m.name == "!":
            raise rw.error(
                f"{quote(m.text)}: '!' is not Foundry's; it explodes with 'x' ({d.text.replace('!', 'x')})"
            )
        if m.name == "":
            raise rw.error(
                f"{quote(m.text)} after {quote(d.text[: -len(m.text)] or d.text)}: Foundry compares results "
                f"with a modifier, e.g. cs{m.text}"
            )
        rank = _STAGE[m.name]
        # a clamp before a keep commutes with it (it keeps the order of the faces)
        if rank < stage and not (rank == 2 and all(x.name in ("min", "max") for x in maps)):
            raise rw.error(
                f"{quote(d.text)}: Foundry applies {quote(m.text)} after the modifiers before it; critlab "
                "answers a reroll, then an explosion, a keep or drop, then the counts: write them so"
            )
        stage = max(stage, rank)
        if rank == 0:
            if reroll is not None:
                raise rw.error(
                    f"{quote(d.text)}: a second reroll ({quote(m.text)}) is not answered by critlab"
                )
            op, n = _target(rw, m, min(faces))
            reroll = ("ro" if m.name == "r" else "rr", {f for f in faces if meets(op, n)(f)})
        elif rank == 1:
            if explode is not None:
                raise rw.error(f"{quote(d.text)}: a second explosion ({quote(m.text)})")
            op, n = _target(rw, m, max(faces))
            explode = (m.name, {f for f in faces if meets(op, n)(f)}, f"{'' if op == '=' else op}{n}")
        elif rank == 2:
            if keep is not None:
                raise rw.error(f"{quote(d.text)}: a second keep or drop ({quote(m.text)})")
            if m.op is not None or m.cap is not None:
                raise rw.error(f"{quote(m.text)}: keep and drop take a number of dice, not a comparison")
            keep = (_KEEP[m.name], 1 if m.n is None else m.n)
        elif rank == 3:
            maps.append(m)
        else:
            if m.n is None or m.cap is not None:
                raise rw.error(f"{quote(m.text)}: a margin of success needs its target (e.g. ms>12)")
            margin = (m.op or "=", m.n)
    values = _value_map(rw, maps, faces)
    out = _dice_text(rw, d, count, faces, reroll, explode, keep, values, maps)
    sign, constant = 1, 0
    if out.startswith("-"):
        sign, out = -1, out[1:]
    if margin is not None:  # Foundry's total less the target, or the target less the total
        if margin[0] in ("<", "<="):
            sign, constant = -sign, margin[1]
        else:
            constant = -margin[1]
    return [(sign, out)], constant


def _dice_text(
    rw: Rewriter, d: Dice, count: int, faces, reroll, explode, keep, values: dict[int, int], maps
) -> str:
    """critlab's term for the parts read (a leading ``-`` where it is negated)."""
    die = "F" if d.faces == "f" else d.faces
    if keep is not None and keep[0] in ("kh", "kl") and keep[1] >= count and explode is None:
        keep = None  # Foundry keeps at most the dice there are: all of them
    head = f"{count}d{die}"
    rr = ""
    if reroll is not None:
        sel = selector(reroll[1], faces)
        if sel is None:
            raise rw.error(f"{quote(d.text)}: its reroll meets faces no single critlab selector meets")
        rr = reroll[0] + sel
    x = ""
    if explode is not None:
        sel = selector(explode[1], faces) or explode[2]
        x = ("xo" if explode[0] == "xo" else "x") + ("" if sel == str(max(faces)) else sel)
    kept = "" if keep is None else f"{keep[0]}{keep[1]}"
    identity = all(values[f] == f for f in faces)
    if identity:
        return head + rr + x + kept
    weights = set(values.values())
    if weights <= {-1, 0, 1}:
        hits = selector({f for f in faces if values[f] == 1}, faces)
        misses = {f for f in faces if values[f] == -1}
        botch = selector(misses, faces)
        failures = maps[-1].name == "cf"  # Foundry's failures counted (1 each): critlab's cf
        if hits is not None and (botch is not None or not misses):
            return (
                head + rr + x + kept + ("cf" if failures else "cs") + hits + (f"df{botch}" if misses else "")
            )
        if hits is None and botch is not None and 1 not in weights:
            return "-" + head + rr + x + kept + "cf" + botch  # each failure -1
    clamp = _clamp(values, faces)
    if clamp is not None:
        if explode is not None:
            raise rw.error(f"{quote(d.text)}: a clamp of exploding dice is not answered by critlab")
        return head + rr + clamp + kept
    return _listed(rw, d, count, faces, reroll, explode, keep, values)


def _clamp(values: dict[int, int], faces: list[int]) -> str | None:
    """``miT``/``maT`` where each face counts as the face clamped inside the faces."""
    lo = min(values.values())
    hi = max(values.values())
    if lo < min(faces) or hi > max(faces) or not all(values[f] == min(max(f, lo), hi) for f in faces):
        return None
    return (f"mi{lo}" if lo > min(faces) else "") + (f"ma{hi}" if hi < max(faces) else "")


def _listed(rw: Rewriter, d: Dice, count: int, faces, reroll, explode, keep, values: dict[int, int]) -> str:
    """The die's faces listed as what each counts: exact where no explosion needs the
    faces themselves, and a keep (by the faces) keeps the same dice by what they count."""
    if explode is not None:
        raise rw.error(f"{quote(d.text)}: exploding dice counted this way are not answered by critlab")
    ordered: Callable[[int], int] = values.__getitem__
    if keep is not None and any(ordered(a) > ordered(b) for a, b in zip(faces, faces[1:], strict=False)):
        raise rw.error(
            f"{quote(d.text)}: a keep or drop by the faces, then this count, is not answered by critlab"
        )
    pool = list(faces)
    if reroll is not None:
        kind, met = reroll
        if kind == "rr":
            pool = [f for f in faces if f not in met]  # rerolled while met: the rest, each alike
        else:  # once: a met face is replaced by any face
            pool = [f for f in faces for _ in range(len(faces) if f not in met else 0)] + list(faces) * len(
                met
            )
    if len(pool) > 100:
        raise rw.error(f"{quote(d.text)}: more than 100 faces to list; critlab does not answer it")
    kept = "" if keep is None else f"{keep[0]}{keep[1]}"
    return f"{count}d{listed([values[f] for f in pool])}{kept}"


def group(rw: Rewriter, g: Group) -> tuple[list[tuple[int, str]], int]:
    """A pool ``{E1, E2, ...}``: its rolls' totals kept or dropped, counted (``cs``, ``cf``)."""
    keep = count = ""
    for m in g.mods:
        if m.name in _KEEP and not keep and m.op is None:
            keep = f"{_KEEP[m.name]}{1 if m.n is None else m.n}"
        elif m.name in ("cs", "cf") and not count:
            if m.n is None:
                raise rw.error(f"{quote(m.text)}: a pool's count needs its target (e.g. cs>=10)")
            op, n = m.op or "=", m.n
            count = m.name + {"=": f"={n}", ">": f">={n + 1}", "<": f"<={n - 1}"}.get(op, f"{op}{n}")
        else:
            raise rw.error(f"{quote(m.text)}: a pool takes one keep or drop and one count (cs, cf)")
    if len(g.members) == 1:
        (member,) = g.members
        if count:
            return [(1, "{" + rw.expression(member) + count[2:] + ", 0}")], 0  # 1 where it meets
        return rw.sum(member)  # one roll, kept of one
    return [(1, "{" + ", ".join(rw.expression(m) for m in g.members) + "}" + keep + count)], 0


def whole(rw: Rewriter, e: Expr) -> str | None:
    return None


def compare(rw: Rewriter, e: Expr, top: bool) -> str:
    """Foundry compares results within a term, not a formula's total."""
    raise rw.error(
        f"{quote(e.compare.text)}: Foundry compares results within a term (e.g. cs{e.compare.text}), "
        "not the formula's total"
    )


__all__ = ["NAMES", "compare", "group", "term", "whole"]
