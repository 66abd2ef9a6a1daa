"""Savage Worlds trait roll: the higher of an exploding trait die and an exploding d6 wild die.

A Wild Card rolls their trait die (d4 to d12, ``trait`` sides) and a d6 wild die, both
"acing" (exploding on their maximum, without limit), and keeps the higher total. Below
``target`` (default 4) it is a ``failure``; at the target or above a ``success``; at
the target + 4 or more a ``raise``. ``margin`` is the kept total less the target.

    critlab exact notebooks/examples/savage_worlds.py:trait_roll --trait 8 --json
    critlab validate notebooks/examples/savage_worlds.py:trait_roll --trait 8 --trials 1000000 --seed 1
"""

from __future__ import annotations

from critlab.analysis.mechanic import Int, mechanic, param


@mechanic(
    labels=("failure", "success", "raise"),
    values=("margin",),
    params={
        "trait": param(8, Int(4, 12, step=2), "sides of the trait die (d4 to d12)"),
        "target": param(4, Int(1, 100), "the total to reach (a raise is 4 more)"),
    },
    inputs={"trait_die": "1d{trait}!", "wild": "1d6!"},
)
def trait_roll(trait_die, wild, *, target):
    """Savage Worlds trait roll (Wild Card: trait die and wild die, both acing)"""
    best = max(trait_die, wild)
    if best < target:
        return "failure", best - target
    if best >= target + 4:
        return "raise", best - target
    return "success", best - target
