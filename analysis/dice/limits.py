"""Per-expression limits of the dice notation, checked before any work.

A term is already bounded (at most 100 dice of at most 1000 sides), but an expression may
sum many terms, so the whole expression is bounded too: the dice it rolls in all, the
values its terms' distributions span (dice times sides, explosions to their cut-off), and
the steps of the exact programmes (keep/drop pools, explosion chains). Whatever passes
computes exactly in seconds; the rest is refused with a one-line message stating the limit.

>>> from critlab.analysis.dice.notation import parse
>>> limits(parse("4d6dl1+1d8").terms)
(5, 26, 2850)
"""

from __future__ import annotations

from critlab.analysis.dice import exact as de
from critlab.analysis.dice.exact import KEEP_ALL, MAX_POOL_WORK

# Per whole expression, not per term (a sum of many large terms is bounded too):
MAX_TOTAL_DICE = 1000
# values spanned by the terms' distributions (dice x sides, explosions to their cut-off)
MAX_SPAN = 10**6
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
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def limits(terms) -> tuple[int, int, int]:
    """``(dice, span, steps)`` of an expression's terms: dice rolled in all, values spanned
    by the terms' distributions (explosions to their cut-off), and an upper bound on the
    steps of the exact programmes (pools and explosion chains), for terms like
    :class:`critlab.analysis.dice.notation.DiceTerm`."""
    eps = de.chain_eps(terms)
    dice = span = steps = 0
    for t in terms:
        dice += t.count
        width = t.sides
        classic = de.is_classic(t)
        if t.exploding:
            depth = de.explosion_depth(t.sides, t.explode_from, eps)
            width = t.sides * (depth + (1 if classic else 2))
            if t.success_at:
                width = max(width, t.success_at + t.sides)
            if not classic:
                steps += width * t.sides
        if t.success_at:
            span += t.count + 1
        elif t.keep_mode == KEEP_ALL:
            span += t.count * width
        else:
            span += t.keep * width
            if classic:
                steps += de.classic_pool_work(t.count, t.sides, t.keep)
            else:
                steps += de.pool_work(width, t.count, t.keep)
    return dice, span, steps


def check_limits(text: str, terms, *, partial: bool = False) -> None:
    """Refuse (``ValueError``, one line) an expression beyond the per-expression limits;
    ``partial``: ``terms`` are only the first terms of ``text``."""
    dice, span, steps = limits(terms)
    if dice > MAX_TOTAL_DICE:
        raise ValueError(
            f"bad dice expression {quote(text)}: rolls {'at least ' if partial else ''}{dice} dice in all; "
            f"at most {MAX_TOTAL_DICE} dice per expression"
        )
    if span > MAX_SPAN:
        raise ValueError(
            f"bad dice expression {quote(text)}: spans about {span:,} values (dice times sides, "
            f"explosions included); at most {MAX_SPAN:,} per expression"
        )
    if steps > MAX_POOL_WORK:
        raise ValueError(
            f"bad dice expression {quote(text)}: about {steps:,} steps to compute exactly (kept "
            f"or exploding dice); at most {MAX_POOL_WORK:,} per expression"
        )


__all__ = ["MAX_QUOTED", "MAX_SPAN", "MAX_TOTAL_DICE", "check_limits", "limits", "quote"]
