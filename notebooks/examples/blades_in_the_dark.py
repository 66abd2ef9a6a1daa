"""Blades in the Dark action roll: a pool of d6s, the highest die decides.

Roll ``dice`` d6 (the action rating plus bonus dice) and keep the highest: 1-3 is a
``failure`` (a bad outcome), 4-5 a ``partial`` success (with a consequence), a 6 a full
``success``, and two or more 6s a ``critical``. With no dice, roll two and keep the
lower (no critical then). ``result`` is the kept die.

The pool is one input, ``pool("{dice}d6")``: the rule reads it once, as its dice sorted
highest first, so the kept die is ``pool[0]``. The exact engine enumerates its distinct
sorted outcomes (a pool of 6 is 462 of them, not 6^6); the two dice of a zero-dice roll
are an input read only when there are no dice.

    critlab exact notebooks/examples/blades_in_the_dark.py:action_roll --dice 2
"""

from __future__ import annotations

from critlab.analysis.mechanic import Int, mechanic, param, pool


@mechanic(
    labels=("failure", "partial", "success", "critical"),
    values=("result",),
    params={"dice": param(2, Int(0, 12), "d6s in the pool (action rating plus bonus dice)")},
    inputs={"rolled": pool("{dice}d6"), "desperate": pool("2d6")},
)
def action_roll(rolled, desperate, *, dice):
    """Blades in the Dark action roll (highest of a d6 pool; two 6s are a critical)"""
    if dice == 0:
        kept, sixes = desperate[1], 0  # the lower of two dice
    else:
        kept, sixes = rolled[0], 0
        for die in rolled:  # a loop, not rolled == 6: no array made per run of the rule
            sixes += die == 6
    if sixes >= 2:
        return "critical", kept
    if kept == 6:
        return "success", kept
    return ("partial" if kept >= 4 else "failure"), kept
