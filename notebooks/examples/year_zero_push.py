"""Year Zero Engine (Mutant: Year Zero, Forbidden Lands) with the push decided: push or
stand on the dice seen, as well as it can be played.

Roll base dice (the attribute), skill dice and gear dice, all d6: every 6 is a success, a 1
on a base die or a gear die is a **bane**. The player sees the roll and may **push** it:
every die showing neither a 6 nor a bane is rolled again (a skill die's 1 included). A
pushed roll costs a point of the attribute for each bane on a base die (``damage``) and a
point of the gear's bonus for each bane on a gear die (``gear_lost``), the first roll's and
the push's alike. The roll succeeds with at least ``need`` successes.

Whether to push is a choice: ``choose("push", ("stand", "push"), successes, banes)``, made
to maximise the mean ``score``: a success is worth ``worth`` points of the attribute to
the player, each point of damage costs one. The exact walk follows both options of every
first roll to the end (the pushed dice enumerated), takes the better, and says the best
play in words; ``choice_gain`` is what deciding is worth against the best fixed habit
(always push, or never).

Each die is read as what the rules need of it (``d{1,0,0,0,0,6}``: a bane, a blank or a
success; a skill die's 1 is a blank), the first roll as three pools, and the push as pools
of exactly the dice rolled again, one input for each number of them (``pb3``: three base
dice pushed): an input the rule does not read costs nothing, and the push's dice are
never seen before the choice.

    critlab exact notebooks/examples/year_zero_push.py:decided_push --base 3 --skill 2 --gear 1
"""

from __future__ import annotations

from critlab.analysis.mechanic import Int, choose, mechanic, param, pool

BANE_DIE = "d{1,0,0,0,0,6}"  # base and gear dice: 1 a bane, 6 a success
SKILL_DIE = "d{0,0,0,0,0,6}"  # skill dice: 6 a success, a 1 no bane
PUSHED = {
    **{f"pb{m}": pool(f"{m}{BANE_DIE}") for m in range(1, 7)},
    **{f"ps{m}": pool(f"{m}{SKILL_DIE}") for m in range(1, 7)},
    **{f"pg{m}": pool(f"{m}{BANE_DIE}") for m in range(1, 5)},
}


@mechanic(
    labels=("failure", "success", "pushed_failure", "pushed_success"),
    values=("successes", "damage", "gear_lost", "score"),
    params={
        "base": param(3, Int(1, 6), "base dice (the attribute)"),
        "skill": param(2, Int(0, 6), "skill dice (the skill level)"),
        "gear": param(1, Int(0, 4), "gear dice (the gear's bonus)"),
        "need": param(1, Int(1, 6), "successes needed"),
        "worth": param(2, Int(0, 10), "what a success is worth, in points of the attribute"),
    },
    inputs={
        "base_dice": pool("{base}" + BANE_DIE),
        "skill_dice": pool("{skill}" + SKILL_DIE),
        "gear_dice": pool("{gear}" + BANE_DIE),
        **PUSHED,
    },
    objective="mean:score",
)
def decided_push(
    base_dice,
    skill_dice,
    gear_dice,
    pb1,
    pb2,
    pb3,
    pb4,
    pb5,
    pb6,
    ps1,
    ps2,
    ps3,
    ps4,
    ps5,
    ps6,
    pg1,
    pg2,
    pg3,
    pg4,
    *,
    need,
    worth,
):
    """Year Zero roll, pushed when pushing is worth it (6s succeed; 1s on base and gear dice are banes)"""

    def tally(dice):  # a pool's successes and banes
        sixes, ones = 0, 0
        for die in dice:
            sixes += die == 6
            ones += die == 1
        return sixes, ones

    base_six, banes = tally(base_dice)
    skill_six, _ = tally(skill_dice)
    gear_six, gear_lost = tally(gear_dice)
    successes = base_six + skill_six + gear_six
    if choose("push", ("stand", "push"), successes, banes) == "stand":
        done = successes >= need
        return ("success" if done else "failure"), successes, 0, 0, worth * done
    # the dice rolled again: those neither a success nor a bane (a skill die's 1 rolled too)
    again_base = len(base_dice) - base_six - banes
    again_skill = len(skill_dice) - skill_six
    again_gear = len(gear_dice) - gear_six - gear_lost
    more, pushed_banes, gear_banes = 0, 0, 0
    if again_base == 1:
        more, pushed_banes = tally(pb1)
    elif again_base == 2:
        more, pushed_banes = tally(pb2)
    elif again_base == 3:
        more, pushed_banes = tally(pb3)
    elif again_base == 4:
        more, pushed_banes = tally(pb4)
    elif again_base == 5:
        more, pushed_banes = tally(pb5)
    elif again_base == 6:
        more, pushed_banes = tally(pb6)
    extra = 0
    if again_skill == 1:
        extra, _ = tally(ps1)
    elif again_skill == 2:
        extra, _ = tally(ps2)
    elif again_skill == 3:
        extra, _ = tally(ps3)
    elif again_skill == 4:
        extra, _ = tally(ps4)
    elif again_skill == 5:
        extra, _ = tally(ps5)
    elif again_skill == 6:
        extra, _ = tally(ps6)
    more += extra
    if again_gear == 1:
        extra, gear_banes = tally(pg1)
    elif again_gear == 2:
        extra, gear_banes = tally(pg2)
    elif again_gear == 3:
        extra, gear_banes = tally(pg3)
    elif again_gear == 4:
        extra, gear_banes = tally(pg4)
    more += extra
    successes += more
    damage = banes + pushed_banes
    gear_lost += gear_banes
    done = successes >= need
    return (
        ("pushed_success" if done else "pushed_failure"),
        successes,
        damage,
        gear_lost,
        worth * done - damage,
    )
