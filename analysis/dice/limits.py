"""Per-expression limits of the dice notation, checked before any work.

A term is already bounded (at most 100 dice of at most 1000 sides), but an expression may
sum many terms, so the whole expression is bounded too: the dice it rolls in all, the
values its terms' distributions span (dice times sides, explosions to their cut-off), and
the steps of the exact programmes (keep/drop pools, explosion chains, groups' order
statistics, and summing the terms: a term's values times the values spanned before it, so
a thousand ``1d1000`` are refused rather than left convolving for a minute). Whatever passes
computes exactly in seconds; the rest is refused with a one-line message stating the limit.

>>> from critlab.analysis.dice.notation import parse
>>> limits(parse("4d6dl1+1d8").terms)
(5, 26, 2850, 26)
"""

from __future__ import annotations

import math

from critlab.analysis.dice import exact as de
from critlab.analysis.dice.exact import KEEP_ALL, MAX_POOL_WORK
from critlab.analysis.dice.grammar import MAX_QUOTED, NotationError, quote
from critlab.analysis.dice.order import members_work
from critlab.kernels.vocab.dice import DROP_HIGHEST, DROP_LOWEST

# Per whole expression, not per term (a sum of many large terms is bounded too):
MAX_TOTAL_DICE = 1000
# values spanned by the terms' distributions (dice x sides, explosions to their cut-off)
MAX_SPAN = 10**6
# values spanned after each term of a sum, added up (terms times support)
MAX_SUM_WORK = 10**7


def _legacy_cost(t, eps: float) -> tuple[int, int]:
    """``(span, steps)`` of a term in the notation's first form."""
    width = t.sides
    span = steps = 0
    classic = de.is_classic(t)
    if t.exploding:
        depth = de.explosion_depth(t.sides, t.explode_at or t.sides, eps)
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
    return span, steps


def _depth(go: float, eps: float) -> int:
    """Explosions after which less than ``eps`` of a chain continuing with ``go`` is left."""
    return max(1, math.ceil(math.log(eps) / math.log(go))) if 0 < go < 1 else 1


def _general_cost(t, eps: float) -> tuple[int, int]:
    """``(span, steps)`` of a term in the general forms (an upper bound)."""
    faces = t.face_values
    lo, hi = min(faces), max(faces)
    width = hi - lo + 1
    steps = len(faces) * 4
    if t.exploding:
        e_lo, e_hi = t.explode
        go = sum(1 for f in faces if e_lo <= f <= e_hi) / len(faces)
        depth = 1 if t.explode_once else _depth(go, eps)
        if t.explode_kind == "x" and t.keep_mode in (DROP_LOWEST, DROP_HIGHEST):
            # the kept rolls' sum grows with the chains: a chain's sums, then all the dice's
            k, chain = t.keep, depth * ((hi - min(lo, 0) + 1) if not t.count_kind else 3) + 1
            walk, joins = depth * len(faces) * k * (k + 1) * chain, t.count**2 * (k * (k + 1)) ** 2 * chain**2
            steps += width * (walk + joins)
            return t.count * chain * t.mul, steps
        if t.explode_kind == "x" and t.keep_mode != KEEP_ALL:
            k, size = t.keep, t.keep * (hi - min(lo, 0) + 1)
            steps += width * (depth * len(faces) * k * k * size + t.count * k**4 * size * size)
            return t.keep * (hi - min(lo, 0) + 1), steps
        if t.count_kind and t.explode_kind == "x":
            steps += depth * depth * 3
            width = 2 * depth + 3
        else:
            width = depth * max(hi, 1) + width + max(t.count_reach if t.count_kind else 0, 0)
            steps += width * len(faces)
    if t.count_kind:
        span = 2 * t.count + 1 if not (t.exploding and t.explode_kind == "x") else t.count * width
        if t.keep_mode != KEEP_ALL:
            steps += members_work([width] * t.count, t.keep, 2)
    elif t.keep_mode == KEEP_ALL:
        span = t.count * width
    else:
        span = t.keep * width
        steps += de.pool_work(width, t.count, t.keep)
    return span * t.mul, steps


def _cost(t, eps: float) -> tuple[int, int, int]:
    """``(dice, span, steps)`` of one term or group."""
    if hasattr(t, "members"):
        dice = span = steps = 0
        sizes = []
        for d, s, w, *_ in de.per_member(t.members, lambda m: _member_cost(m, eps)):
            dice, steps = dice + d, steps + w
            sizes.append(s + 1)
            span += s + 1
        if t.keep_mode != KEEP_ALL:
            top = max(sizes) if not t.count_kind else 3
            steps += members_work(sizes, t.keep, top)
        if t.count_kind:
            span = len(t.members) * 2 + 1
        return dice, span * t.mul, steps
    old = t.legacy()
    span, steps = _legacy_cost(old, eps) if old is not None else _general_cost(t, eps)
    return t.count, span, steps


def _member_cost(m, eps: float) -> tuple[int, ...]:
    """A group member's ``(dice, span, steps, ...)``: of a member of one term (most), that
    term's cost, which is what :func:`limits` adds up of it."""
    return _cost(m.terms[0], eps) if len(m.terms) == 1 else limits(m.terms, eps=eps)


def limits(terms, *, eps: float | None = None) -> tuple[int, int, int, int]:
    """``(dice, span, steps)`` of an expression's terms: dice rolled in all (before
    explosions), values spanned by the terms' distributions (explosions to their
    cut-off), and an upper bound on the steps of the exact programmes (pools, explosion
    chains, groups' order statistics, and the sums of the terms: each term's values times
    the values spanned so far), for terms like
    :class:`critlab.analysis.dice.notation.DiceTerm`; and the sums' work, the values
    spanned after each term added up (terms times support)."""
    eps = de.chain_eps(terms) if eps is None else eps
    dice = span = steps = summed = 0
    for i, t in enumerate(terms):
        d, s, w = _cost(t, eps)
        dice, steps, span = dice + d, steps + w, span + s
        if i:
            summed += span
    return dice, span, steps, summed


def check_limits(text: str, terms, *, partial: bool = False) -> None:
    """Refuse (``NotationError``, one line) an expression beyond the per-expression limits;
    ``partial``: ``terms`` are only the first terms of ``text``."""
    dice, span, steps, summed = limits(terms)
    if dice > MAX_TOTAL_DICE:
        raise NotationError(
            f"bad dice expression {quote(text)}: rolls {'at least ' if partial else ''}{dice} dice in all; "
            f"at most {MAX_TOTAL_DICE} dice per expression"
        )
    if span > MAX_SPAN:
        raise NotationError(
            f"bad dice expression {quote(text)}: spans about {span:,} values (dice times sides, "
            f"explosions included); at most {MAX_SPAN:,} per expression"
        )
    if summed > MAX_SUM_WORK:
        raise NotationError(
            f"bad dice expression {quote(text)}: summing its {len(terms)} terms spans about {summed:,} "
            f"values in all (terms times support); at most {MAX_SUM_WORK:,} per expression"
        )
    if steps > MAX_POOL_WORK:
        raise NotationError(
            f"bad dice expression {quote(text)}: about {steps:,} steps to compute exactly (kept, "
            f"exploding or grouped dice, and the terms' sums: values times values); at most "
            f"{MAX_POOL_WORK:,} per expression"
        )


__all__ = ["MAX_QUOTED", "MAX_SPAN", "MAX_SUM_WORK", "MAX_TOTAL_DICE", "check_limits", "limits", "quote"]
