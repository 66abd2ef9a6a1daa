"""Vampire: The Masquerade 5th edition: a pool of d10s with hunger dice.

Roll ``regular`` plain d10s and ``hunger`` hunger d10s (the pool is both): each die of 6
or more is a success, and each **pair** of 10s, on any dice, counts 4 successes instead of
2 (a critical). The roll wins with at least ``difficulty`` successes.

- ``critical``: a win with a pair of 10s; ``messy_critical`` when a 10 of it is a hunger
  die (the Beast takes its due).
- ``bestial_failure``: a failed roll with a 1 on a hunger die.
- ``success`` and ``failure`` otherwise. ``successes`` is the count, ``margin`` the
  successes beyond the difficulty.

Two pools, ``pool("{regular}d10")`` and ``pool("{hunger}d10")``, each read once as its
dice sorted highest first: exact over their distinct sorted outcomes (10 plain and 2
hunger dice: 92,378 x 55 combinations, not 10^12).

    critlab exact notebooks/examples/vampire_v5.py:v5_roll --regular 10 --hunger 2 --difficulty 4
"""

from __future__ import annotations

from critlab.analysis.mechanic import Int, mechanic, param, pool


@mechanic(
    labels=("bestial_failure", "failure", "success", "critical", "messy_critical"),
    values=("successes", "margin"),
    params={
        "regular": param(10, Int(0, 20), "plain d10s in the pool"),
        "hunger": param(2, Int(0, 5), "hunger d10s in the pool (the character's hunger)"),
        "difficulty": param(4, Int(1, 15), "successes the roll needs"),
    },
    inputs={"plain": pool("{regular}d10"), "beast": pool("{hunger}d10")},
)
def v5_roll(plain, beast, *, difficulty):
    """Vampire: The Masquerade V5 roll (pairs of 10s are criticals; hunger dice make them messy)"""
    # loops, not np.count_nonzero(plain >= 6): no array made per run of the rule (the exact
    # walk runs it five million times for 12 dice)
    successes, tens, beast_tens, beast_ones = 0, 0, 0, 0
    for die in plain:
        successes += die >= 6
        tens += die == 10
    for die in beast:
        successes += die >= 6
        beast_tens += die == 10
        beast_ones += die == 1
    tens += beast_tens
    successes += 2 * (tens // 2)  # each pair of 10s: 4 successes instead of 2
    margin = successes - difficulty
    if successes < difficulty:
        return ("bestial_failure" if beast_ones > 0 else "failure"), successes, margin
    if tens >= 2:
        return ("messy_critical" if beast_tens > 0 else "critical"), successes, margin
    return "success", successes, margin
