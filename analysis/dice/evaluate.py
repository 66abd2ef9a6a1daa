"""A whole dice expression's exact distribution: its terms (the first form as it always
was, :mod:`critlab.analysis.dice.exact`; the general forms, :mod:`critlab.analysis.dice.forms`),
its groups (:mod:`critlab.analysis.dice.order`), summed, and its comparison.

>>> from critlab.analysis.dice.notation import parse
>>> e = parse("{1d8!, 1d6!}kh1+1")
>>> round(expr_dist(e.terms, e.constant).mean, 10)
7.4786477603
"""

from __future__ import annotations

import math
from typing import Any

from critlab.analysis.dice import forms
from critlab.analysis.dice.exact import KEEP_ALL, KEEP_HIGHEST, chain_eps, legacy_term_dist, per_member
from critlab.analysis.dice.forms import scaled
from critlab.analysis.dice.order import counter, keep_members, weight_dist
from critlab.analysis.dist import TAIL_EPS, Dist


def term_dist(t: Any, eps: float = TAIL_EPS) -> Dist:
    """Exact distribution of one term or group (its sign applied); each exploding die is
    cut off at a tail below ``eps``. A term in the notation's first form is computed as
    it always was."""
    if hasattr(t, "members"):
        return group_dist(t, eps)
    old = t.legacy()
    if old is not None:
        return legacy_term_dist(old, eps)
    return forms.term_dist(t, eps)


def group_dist(g: Any, eps: float = TAIL_EPS) -> Dist:
    """A group's distribution: its members' values kept, summed or counted, then scaled
    and signed (:mod:`critlab.analysis.dice.order`)."""
    members = per_member(g.members, lambda m: _member_dist(m, eps))
    weight = counter(*g.count_range, g.botch) if g.count_kind else None
    if g.keep_mode != KEEP_ALL:
        d = keep_members(members, g.keep, highest=g.keep_mode == KEEP_HIGHEST, weight=weight)
    else:
        d = Dist.point(0)
        for m in members:
            d = d + (weight_dist(m, weight) if weight else m)
    return scaled(d, g.mul, g.div, g.sign)


def _member_dist(m: Any, eps: float) -> Dist:
    """A group member's distribution: of a lone term (most members), that term's, which
    is what :func:`expr_dist` returns of it."""
    if len(m.terms) == 1 and not m.constant and m.compare is None:
        return term_dist(m.terms[0], eps)
    return expr_dist(m.terms, m.constant, m.compare, eps=eps)


def expr_dist(
    terms, constant: int, compare: tuple[int, int] | None = None, *, eps: float | None = None
) -> Dist:
    """Exact distribution of ``constant`` plus the terms (uncached; the tail of the whole
    expression below 1e-12); with ``compare`` (an interval of totals) 1 where the total
    lies in it, else 0 (the tail stays a tail: its totals are not known)."""
    eps = chain_eps(terms) if eps is None else eps
    d = None
    for t in terms:
        d = term_dist(t, eps) if d is None else d + term_dist(t, eps)
    d = Dist.point(constant) if d is None else d + constant if constant else d
    if compare is None:
        return d
    v = d.values
    inside = (v >= compare[0]) & (v <= compare[1])
    yes = math.fsum(d.probs[inside].tolist())
    no = math.fsum(d.probs[~inside].tolist())
    return Dist(0, [no, yes], d.tail)


__all__ = ["expr_dist", "group_dist", "term_dist"]
