"""Stand or reroll, played well: RULES.md's reference rules for choices.

A player rolls 1d6 and may stand on it or reroll (once, or twice in three tries), keeping
the last roll; the value is the die kept. The best play stands on a high enough roll:

- ``reroll_once``: stand when a >= 4; mean 17/4 (3.5 without the choice);
- ``three_tries``: stand on the first when a >= 5, on the second when b >= 4; mean 14/3,
  and ``choice_gain`` 14/3 - 7/2 = 7/6 (the best fixed play, never rerolling, gets 7/2).

    critlab exact notebooks/examples/three_tries.py:three_tries
"""

from __future__ import annotations

from critlab.analysis.mechanic import Int, choose, mechanic, param

OPTIONS = ("stand", "reroll")
SIDES = {"sides": param(6, Int(2, 100), "sides of the die")}


@mechanic(
    labels=("done",),
    values=("value",),
    params=SIDES,
    inputs={"a": "1d{sides}", "b": "1d{sides}"},
    objective="mean:value",
)
def reroll_once(a, b, *, sides):
    """A die, stood on or rerolled once"""
    if choose("keep", OPTIONS, a) == "stand":
        return "done", a
    return "done", b


@mechanic(
    labels=("done",),
    values=("value",),
    params=SIDES,
    inputs={"a": "1d{sides}", "b": "1d{sides}", "c": "1d{sides}"},
    objective="mean:value",
)
def three_tries(a, b, c, *, sides):
    """A die, stood on or rerolled, three tries at most"""
    if choose("keep_first", OPTIONS, a) == "stand":
        return "done", a
    if choose("keep_second", OPTIONS, b) == "stand":
        return "done", b
    return "done", c
