"""The orders of turns an encounter can take, each with its exact probability.

``a-first`` and ``b-first`` are one order each. Under ``rolled`` every combatant rolls
1d20 + its initiative modifier once, and turns go from the highest roll down; ties go to
the higher modifier, then side a, then listed order. That tie-break is a fixed ranking of
the combatants, so the rolls give a strict order of (roll, rank) pairs, and the chance of
one order of turns is that of a descending chain of neighbours:

    P(c1 before c2 before ... cn) = sum over rolls r1 >= r2 >= ... (ties only where the
    earlier one ranks higher) of the product of each P(roll = r),

which a walk over the orders computes prefix by prefix, carrying the distribution of
the last roll placed (O(n) a step over 60 possible totals). Orders of probability zero
(a +15 against a -5 is never behind it) are never listed.

>>> [(o, round(p, 12)) for o, p in orders_of([0, 0], n_a=1, order="rolled")]   # a wins ties
[((0, 1), 0.525), ((1, 0), 0.475)]
>>> orders_of([0, 0, 0], n_a=2, order="b-first")
[((2, 0, 1), 1.0)]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Totals of 1d20 + a modifier in -20..20 lie in -19..40.
_LO, _SIZE = -19, 60


def _roll_dist(modifier: int) -> np.ndarray:
    p = np.zeros(_SIZE)
    p[1 + modifier - _LO : 21 + modifier - _LO] = 1.0 / 20.0
    return p


def orders_of(
    modifiers: Sequence[int], *, n_a: int, order: str, limit: int | None = None
) -> list[tuple[tuple[int, ...], float]]:
    """``[(order, probability)]``: each order of turns (combatant indices, first to act
    first) with positive probability. ``limit`` stops the walk once more orders than it
    are found (the caller refuses the encounter then), returning ``limit + 1`` of them.
    Under ``simultaneous`` there is no order: one empty order of probability 1."""
    n = len(modifiers)
    if order == "a-first":
        return [(tuple(range(n)), 1.0)]
    if order == "b-first":
        return [(tuple(range(n_a, n)) + tuple(range(n_a)), 1.0)]
    if order == "simultaneous":
        return [((), 1.0)]
    # the tie-break ranking: higher modifier, then side a, then listed order
    rank = {i: (-modifiers[i], 0 if i < n_a else 1, i) for i in range(n)}
    rolls = [_roll_dist(m) for m in modifiers]
    found: list[tuple[tuple[int, ...], float]] = []

    def walk(prefix: list[int], last: np.ndarray, left: list[int]) -> bool:
        if not left:
            found.append((tuple(prefix), float(last.sum())))
            return limit is None or len(found) <= limit
        prev = prefix[-1]
        # above[t]: mass of the last roll strictly above t
        above = np.concatenate([np.cumsum(last[::-1])[::-1][1:], [0.0]])
        for j in left:
            ties = last if rank[prev] < rank[j] else 0.0
            nxt = rolls[j] * (above + ties)
            if nxt.sum() > 0.0 and not walk([*prefix, j], nxt, [k for k in left if k != j]):
                return False
        return True

    for first in range(n):
        if not walk([first], rolls[first], [k for k in range(n) if k != first]):
            break
    return found


__all__ = ["orders_of"]
