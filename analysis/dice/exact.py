"""Exact evaluation of the dice notation: one die's total, a term's dice, an expression.

One die is rolled, rerolled (``rrT`` while its face is <= T, ``roT`` once), then explodes
(``!`` on its maximum, ``!>=E`` on E or more; the added rolls are never rerolled), and its
total is the sum of its rolls. A term then keeps the highest or lowest totals
(:func:`keep_pool`, a dynamic programme over values that never enumerates the
``values ** count`` outcomes) and adds them, or counts those >= a threshold
(:func:`success_count`, a binomial). Explosions are exact up to an explicit tail; the
1e-12 budget is shared by every exploding die of an expression (:func:`chain_eps`).

>>> round(die_dist(6, REROLL_ONCE, 1, 6, 1e-15).mean, 12)       # 1d6ro1!: 71/15
4.733333333333
>>> round(success_count(die_dist(10, REROLL_NONE, 0, 0, 0.0), 5, 5, KEEP_ALL, 8, exploding=False).mean, 12)
1.5

Expressions written in the notation's first form (no reroll, explosion only on the
maximum of a die that is not kept or counted) are computed exactly as they always were,
so their floating-point results do not move. The general forms are in
:mod:`critlab.analysis.dice.forms`, groups in :mod:`critlab.analysis.dice.order`, and a
whole expression's evaluation in :mod:`critlab.analysis.dice.evaluate`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from math import fsum
from typing import NamedTuple, Protocol, get_type_hints

import numpy as np

from critlab.analysis.dice.multisets import fits, multiset_pool
from critlab.analysis.dist import TAIL_EPS, Dist, explode

KEEP_ALL, KEEP_HIGHEST, KEEP_LOWEST = 0, 1, 2
REROLL_NONE, REROLL_ALWAYS, REROLL_ONCE = 0, 1, 2
# Work bound of the exact pool programmes (inner steps, summed over an expression): beyond
# it an expression is refused rather than left computing for minutes.
MAX_POOL_WORK = 2 * 10**9
# The whole expression's tail stays below 1e-12: its exploding dice share 1e-13.
EXPRESSION_TAIL = 1e-13


class TermLike(Protocol):
    """What the exact engine reads of a parsed term (see critlab.analysis.dice.notation.DiceTerm)."""

    sign: int
    count: int
    sides: int
    keep_mode: int
    keep: int
    exploding: bool
    reroll_mode: int
    reroll_at: int
    explode_at: int
    success_at: int


LegacyTerm = NamedTuple("LegacyTerm", list(get_type_hints(TermLike).items()))
LegacyTerm.__doc__ = """A term in the notation's first form: the fields of :class:`TermLike` alone."""


def per_member(members, fn) -> list:
    """``[fn(m) for m in members]``, computed once per distinct member: the reader makes
    a member written again (``{d6, d6}``) one object, and a group's members are its
    costliest part to read and compute.

    >>> calls = []
    >>> d6 = object()
    >>> per_member([d6, d6], lambda m: calls.append(m) or 6), len(calls)
    ([6, 6], 1)
    """
    # by identity (the members live in their group's tuple), in one pass: a group's few
    # members make this loop's own steps a share of the whole to count
    known: dict[int, object] = {}
    out = []
    for m in members:
        i = id(m)
        if i in known:
            out.append(known[i])
        else:
            out.append(value := fn(m))
            known[i] = value
    return out


def exploding_dice(terms) -> int:
    """Exploding dice whose tails count against the expression's budget (groups' members
    included; a count of exploding totals in the first form has none)."""
    n = 0
    for t in terms:
        if hasattr(t, "members"):
            n += _members_exploding(t.members)
        elif t.exploding:
            n += _chains(t)
    return n


def _members_exploding(members) -> int:
    """:func:`exploding_dice` of a group's members, each counted ((d6!, d6!): two dice):
    a member of dice that do not explode (most) is settled by a look at its terms, the
    others counted once per distinct member (a group's few members make a call each a
    share of the whole to count)."""
    n = 0
    known: dict[int, int] = {}
    for m in members:
        for u in m.terms:  # (a loop, not any(): no generator made per member)
            if u.exploding or hasattr(u, "members"):
                break
        else:
            continue
        k = known.get(id(m))
        if k is None:
            k = known[id(m)] = exploding_dice(m.terms)
        n += k
    return n


def _chains(t) -> int:
    """The exploding dice of an exploding term that count: not a first-form count's."""
    old = t.legacy()
    return t.count if old is None or not old.success_at else 0


def chain_eps(terms) -> float:
    """Tail allowed to each exploding die of an expression: 1e-13 shared among them.

    >>> chain_eps([])
    1e-14
    """
    return min(TAIL_EPS, EXPRESSION_TAIL / max(exploding_dice(terms), 1))


def explosion_depth(sides: int, at: int, eps: float) -> int:
    """Explosions after which an ``at``-or-more chain on a d``sides`` has less than ``eps``
    left: the smallest ``k`` with ``q**k < eps``, ``q = (sides - at + 1) / sides``."""
    q = (sides - at + 1) / sides
    k = max(1, math.ceil(math.log(eps) / math.log(q)))
    while q**k >= eps:
        k += 1
    return k


def face_probs(sides: int, reroll_mode: int, reroll_at: int) -> np.ndarray:
    """Probabilities of the face a die is left with, over ``1..sides``.

    >>> (face_probs(4, REROLL_ONCE, 1) * 16).tolist()
    [1.0, 5.0, 5.0, 5.0]
    >>> (face_probs(4, REROLL_ALWAYS, 1) * 3).tolist()
    [0.0, 1.0, 1.0, 1.0]
    """
    p = np.full(sides, 1.0 / sides)
    if reroll_mode == REROLL_ALWAYS:
        p[:reroll_at] = 0.0
        p[reroll_at:] = 1.0 / (sides - reroll_at)
    elif reroll_mode == REROLL_ONCE:
        # a low first face is replaced by a second roll, whatever it shows
        p = p * (reroll_at / sides)
        p[reroll_at:] += 1.0 / sides
    return p


def chain_dist(sides: int, at: int, eps: float, reach: int = 0) -> Dist:
    """The sum of plain d``sides`` rolls until one shows less than ``at`` (``at`` in
    ``2..sides``), represented at least up to ``reach``, the rest (< ``eps``) in its tail.

    >>> d = chain_dist(6, 6, 1e-15)
    >>> round(d.mean, 12), d.pmf(6)
    (4.2, 0.0)
    """
    from critlab.kernels.pools import explosion_chain

    probs, tail = explosion_chain(sides, at, eps, reach, 0)
    return Dist(0, probs, tail)


def die_dist(
    sides: int, reroll_mode: int, reroll_at: int, explode_at: int, eps: float, reach: int = 0
) -> Dist:
    """One die's total: its face after any reroll, plus, when that face is >= ``explode_at``
    (0: the die does not explode), a chain of plain rolls exploding by the same rule;
    represented at least up to ``reach``, the tail (< ``eps``) above every value.

    >>> die_dist(20, REROLL_ALWAYS, 1, 0, 0.0).to_dict() == {v: 1 / 19 for v in range(2, 21)}
    True
    >>> round(die_dist(6, REROLL_NONE, 0, 5, 1e-15).mean, 12)      # 1d6!>=5: 21/4
    5.25
    """
    faces = face_probs(sides, reroll_mode, reroll_at)
    if not explode_at:
        return Dist._of(1, faces, 0.0)  # made here: finite and non-negative
    if reroll_mode == REROLL_NONE:
        return chain_dist(sides, explode_at, eps, reach)  # the first roll is the chain's
    from critlab.kernels.pools import explosion_chain

    # Face f >= explode_at continues with a chain C. Cut at L = sides + m0 (m0: the chain's
    # first length with less than eps beyond): f + C <= L needs C <= L - f, at most
    # m0 + sides - explode_at, so the chain is computed that far; and P(C > L - f) <=
    # P(C > m0) < eps, so the die's tail is below eps and lies above every kept value.
    spread = sides - explode_at
    chain, chain_tail = explosion_chain(sides, explode_at, eps, max(reach - sides, 0), spread)
    m0 = chain.size - 1 - spread
    top = sides + m0
    out = np.zeros(top)  # values 1..top
    out[: explode_at - 1] = faces[: explode_at - 1]
    beyond = chain_tail + np.cumsum(chain[::-1])[::-1]  # beyond[j] = P(C >= j), j <= m
    tail = 0.0
    for f in range(explode_at, sides + 1):
        room = top - f  # C may be 1..room
        out[f : f + room] += faces[f - 1] * chain[1 : room + 1]
        tail += faces[f - 1] * (beyond[room + 1] if room + 1 < beyond.size else chain_tail)
    return Dist(1, out, tail)


def keep_pool(die: Dist, count: int, keep: int, mode: int) -> Dist:
    """The sum of the highest (``KEEP_HIGHEST``) or lowest ``keep`` of ``count`` dice of
    distribution ``die``, whose tail lies above all its values.

    A kept tail die puts the pool in the tail; a dropped one does not (keeping the lowest,
    a die beyond the represented values is dropped once ``keep`` lower dice are kept).

    >>> round(keep_pool(Dist.die(6), 4, 3, KEEP_HIGHEST).mean * 1296, 9)   # 4d6dl1: 15869/1296
    15869.0
    """
    if not die.tail and fits(die.probs.size, count):
        # a small pool (4d6ro1): its few multisets cost less than the programme's steps
        return multiset_pool(die, count, keep, highest=mode == KEEP_HIGHEST)
    from critlab.kernels.pools import keep_pool_weights

    probs = np.ascontiguousarray(die.probs, dtype=np.float64)
    if mode == KEEP_HIGHEST:
        final, _ = keep_pool_weights(probs[::-1].copy(), count, keep, 0.0)
        # every tail die is kept (it is the highest): the pool is cut off with it
        tail = -math.expm1(count * math.log1p(-die.tail)) if die.tail else 0.0
        return Dist(keep * die.min, final[::-1], tail)
    final, leftover = keep_pool_weights(probs, count, keep, die.tail)
    return Dist(keep * die.min, final, leftover)


def success_prob(die: Dist, at: int) -> tuple[float, float]:
    """``(P(total >= at), P(total < at))`` of one die, each a sum of positive terms (the
    tail, above every represented value, is a success; ``die`` must reach ``at - 1``)."""
    i = max(at - die.offset, 0)
    probs = die.probs.tolist()  # a die's few values: compensated sums in Python are quicker
    return fsum(probs[i:]) + die.tail, fsum(probs[:i])


def success_count(die: Dist, count: int, keep: int, mode: int, at: int, *, exploding: bool) -> Dist:
    """The number of kept dice whose total is >= ``at``: with ``S`` ~ Binomial(``count``, p)
    successes among all dice, the highest ``keep`` hold ``min(keep, S)`` of them and the
    lowest ``keep`` hold ``max(0, S - (count - keep))``. Exact: an explosion only decides
    whether a die succeeds, which its chain up to ``at`` settles.

    >>> success_count(Dist.die(2), 2, 2, KEEP_ALL, 2, exploding=False).to_dict()
    {0: 0.25, 1: 0.5, 2: 0.25}
    """
    p, q = success_prob(die, at)
    pmf = np.array([math.comb(count, s) * p**s * q ** (count - s) for s in range(count + 1)])
    if mode == KEEP_ALL:
        return Dist._of(0, pmf, 0.0)  # made here: finite and non-negative
    s = np.arange(count + 1)
    kept = np.minimum(keep, s) if mode == KEEP_HIGHEST else np.maximum(0, s - (count - keep))
    return Dist._of(0, np.bincount(kept, weights=pmf, minlength=keep + 1), 0.0)


def is_classic(t: TermLike) -> bool:
    """Whether a term is in the notation's first form (computed as it always was)."""
    plain = t.reroll_mode == REROLL_NONE and not t.success_at and t.explode_at in (0, t.sides)
    return plain and not (t.exploding and t.keep_mode != KEEP_ALL)


def legacy_term_dist(t: TermLike, eps: float = TAIL_EPS) -> Dist:
    """Exact distribution of one term in the notation's first form (its sign applied)."""
    if is_classic(t):
        d = _classic_dist(t, eps)
    else:
        at = (t.explode_at or t.sides) if t.exploding else 0
        die = die_dist(t.sides, t.reroll_mode, t.reroll_at, at, eps, reach=t.success_at)
        if t.success_at:
            d = success_count(die, t.count, t.keep, t.keep_mode, t.success_at, exploding=t.exploding)
        elif t.keep_mode == KEEP_ALL:
            d = die.repeat(t.count)
        else:
            d = keep_pool(die, t.count, t.keep, t.keep_mode)
    return d if t.sign > 0 else -d


def _classic_dist(t: TermLike, eps: float) -> Dist:
    if t.exploding:
        return explode(Dist.die(t.sides), eps=eps).repeat(t.count)
    if t.keep_mode == KEEP_ALL:
        return Dist.die(t.sides).repeat(t.count)
    d = keep_highest(t.count, t.sides, t.keep)
    if t.keep_mode == KEEP_LOWEST:
        # Reflect faces v -> sides + 1 - v: the lowest k become the highest k.
        d = t.keep * (t.sides + 1) - d
    return d


@lru_cache(maxsize=256)
def keep_highest(count: int, sides: int, keep: int) -> Dist:
    """Exact sum of the highest ``keep`` of ``count`` fair ``sides``-sided dice.

    A dynamic programme over faces (see :func:`critlab.kernels.pools.keep_highest_weights`),
    never the ``sides ** count`` face combinations: 10d10 keep 3 takes microseconds.

    >>> round(keep_highest(4, 6, 3).mean, 6)
    12.244599
    """
    work = classic_pool_work(count, sides, keep)
    if work > MAX_POOL_WORK:
        raise ValueError(f"pool {count}d{sides} keep {keep} is too large to compute exactly")
    from critlab.kernels.pools import keep_highest_weights

    return Dist(0, keep_highest_weights(count, sides, keep))


def classic_pool_work(count: int, sides: int, keep: int) -> int:
    """Inner steps of :func:`keep_highest` (an upper bound)."""
    return sides * (count + 1) ** 2 * (keep * sides + 1)


def pool_work(values: int, count: int, keep: int) -> int:
    """Inner steps of :func:`keep_pool` on a die of ``values`` values (an upper bound)."""
    return values * values * keep**3 // 6 + values * keep * count + count * count


__all__ = [
    "KEEP_ALL",
    "KEEP_HIGHEST",
    "LegacyTerm",
    "KEEP_LOWEST",
    "REROLL_ALWAYS",
    "REROLL_NONE",
    "REROLL_ONCE",
    "chain_dist",
    "chain_eps",
    "die_dist",
    "explosion_depth",
    "exploding_dice",
    "legacy_term_dist",
    "face_probs",
    "keep_highest",
    "keep_pool",
    "success_count",
]
