"""Blades in the Dark action roll: a pool of d6s, the highest die decides.

Roll ``dice`` d6 (the action rating plus bonus dice, 0..6) and keep the highest: 1-3 is a
``failure`` (a bad outcome), 4-5 a ``partial`` success (with a consequence), a 6 a full
``success``, and two or more 6s a ``critical``. With no dice, roll two and keep the
lower (no critical then). ``result`` is the kept die.

The pool is six inputs, and the rule reads only the first ``dice`` of them: the dice a
smaller pool does not roll are never rolled in the simulation and never enumerated by the
exact engine (a pool of 2 is 36 combinations, not 6^6).

    critlab exact notebooks/examples/blades_in_the_dark.py:action_roll --dice 2
"""

from __future__ import annotations

from critlab.analysis.mechanic import Int, mechanic, param


@mechanic(
    labels=("failure", "partial", "success", "critical"),
    values=("result",),
    params={"dice": param(2, Int(0, 6), "d6s in the pool (action rating plus bonus dice)")},
    inputs={f"die{i}": "1d6" for i in range(1, 7)},
)
def action_roll(die1, die2, die3, die4, die5, die6, *, dice):
    """Blades in the Dark action roll (highest of a d6 pool; two 6s are a critical)"""
    if dice == 0:
        kept, sixes = min(die1, die2), 0
    else:
        # each die is read only when the pool has it: a die not read is not rolled
        kept, sixes = die1, int(die1 == 6)
        if dice >= 2:
            kept, sixes = max(kept, die2), sixes + (die2 == 6)
        if dice >= 3:
            kept, sixes = max(kept, die3), sixes + (die3 == 6)
        if dice >= 4:
            kept, sixes = max(kept, die4), sixes + (die4 == 6)
        if dice >= 5:
            kept, sixes = max(kept, die5), sixes + (die5 == 6)
        if dice >= 6:
            kept, sixes = max(kept, die6), sixes + (die6 == 6)
    if sixes >= 2:
        return "critical", kept
    if kept == 6:
        return "success", kept
    return ("partial" if kept >= 4 else "failure"), kept
