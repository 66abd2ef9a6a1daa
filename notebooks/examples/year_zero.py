"""Year Zero Engine (Mutant: Year Zero, Forbidden Lands): a roll pushed on a failure, with banes.

Roll base dice (the attribute), skill dice and gear dice, all d6: every 6 is a success.
With no success, the player may **push** (``push="on_failure"``): every die that shows
neither a 6 nor a **bane** (a 1 on a base or gear die) is rolled again, skill dice's 1s
included. A pushed roll costs a point of the attribute for each 1 on a base die
(``damage``) and a point of the gear's bonus for each 1 on a gear die (``gear_lost``),
those of the first roll and those of the push alike; an unpushed roll costs nothing.

Each die is one input value of a pool, written as the two rolls it may make: its first
face and the face it would show if pushed, one of 36 equally likely pairs. What the rules
need of a pair is one of five codes, so a die is a ``d{...}`` of 36 listed faces (the
same dice, drawn as one draw over their pairs) and a pool of 12 such dice has a few
thousand distinct outcomes, all enumerated exactly:

- 6: a 6 at once (a success, never rerolled)
- 1: a 1 at once (a bane on a base or gear die; on a skill die, rerolled as below)
- 2: rolled again, and a 6 then (a success on the push)
- 3: rolled again, and a 1 then (a bane on the push)
- 4: rolled again, and neither then

    critlab exact notebooks/examples/year_zero.py:pushed_roll --base 5 --skill 4 --gear 3
"""

from __future__ import annotations

from critlab.analysis.mechanic import Choice, Int, mechanic, param, pool

SIX, ONE, PUSHED_SIX, PUSHED_ONE, PUSHED_BLANK = 6, 1, 2, 3, 4


def _die(ones_stay: bool) -> str:
    """One die's 36 pairs (first roll, push roll) as the listed faces of its codes."""
    faces = []
    for first in range(1, 7):
        for again in range(1, 7):
            if first == 6 or (first == 1 and ones_stay):
                faces.append(first)  # never rerolled
            else:
                faces.append(PUSHED_SIX if again == 6 else PUSHED_ONE if again == 1 else PUSHED_BLANK)
    return "d{" + ",".join(map(str, faces)) + "}"


BANE_DIE = _die(ones_stay=True)  # base and gear dice: a 1 stays (a bane)
SKILL_DIE = _die(ones_stay=False)  # skill dice: a 1 is rolled again


@mechanic(
    labels=("failure", "success", "pushed_failure", "pushed_success"),
    values=("successes", "damage", "gear_lost"),
    params={
        "base": param(5, Int(0, 12), "base dice (the attribute)"),
        "skill": param(4, Int(0, 12), "skill dice (the skill level)"),
        "gear": param(3, Int(0, 12), "gear dice (the gear's bonus)"),
        "push": param("on_failure", Choice(("never", "on_failure")), "whether a failed roll is pushed"),
    },
    inputs={
        "base_dice": pool("{base}" + BANE_DIE),
        "skill_dice": pool("{skill}" + SKILL_DIE),
        "gear_dice": pool("{gear}" + BANE_DIE),
    },
)
def pushed_roll(base_dice, skill_dice, gear_dice, *, push):
    """Year Zero roll, pushed on a failure (6s succeed; 1s on base and gear dice are banes)"""
    # loops, not np.count_nonzero(base_dice == SIX): no array made per run of the rule
    first, pushed, damage, gear_lost = 0, 0, 0, 0
    for die in base_dice:
        first += die == SIX
        pushed += die == PUSHED_SIX
        damage += (die == ONE) + (die == PUSHED_ONE)
    for die in skill_dice:
        first += die == SIX
        pushed += die == PUSHED_SIX
    for die in gear_dice:
        first += die == SIX
        pushed += die == PUSHED_SIX
        gear_lost += (die == ONE) + (die == PUSHED_ONE)
    if first > 0:
        return "success", first, 0, 0
    if push == "never":
        return "failure", 0, 0, 0
    return ("pushed_success" if pushed > 0 else "pushed_failure"), pushed, damage, gear_lost
