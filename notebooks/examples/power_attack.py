"""A 5e-style power attack (Great Weapon Master): -5 to hit for +10 damage, chosen per target.

The attacker declares the power attack before rolling, knowing the target's armour class:
d20 + ``bonus`` against ``ac`` (a natural 20 always hits and is a critical, rolling the
weapon's dice twice; a natural 1 always misses). The choice maximises the mean damage, so
the best play is one option per armour class: power attack against low armour, a normal
attack against high. ``critlab exact`` prints it in words, and a sweep over ``ac`` (or an
encounter, where each target's ``defense = {ac = ...}`` is its own armour) finds the
armour at which the choice turns.

    critlab exact notebooks/examples/power_attack.py:power_attack --ac 15
"""

from __future__ import annotations

from critlab.analysis.mechanic import Int, choose, mechanic, param


@mechanic(
    labels=("miss", "hit", "crit"),
    values=("damage",),
    params={
        "bonus": param(7, Int(-5, 20), "attack bonus"),
        "ac": param(15, Int(1, 30), "the target's armour class"),
        "modifier": param(4, Int(-5, 10), "damage modifier"),
    },
    inputs={"d20": "1d20", "weapon": "2d6", "crit_dice": "2d6"},
    objective="mean:damage",
)
def power_attack(d20, weapon, crit_dice, *, bonus, ac, modifier):
    """A greatsword attack, power attacking (-5/+10) when that deals more on average"""
    power = choose("attack", ("normal", "power")) == "power"
    extra = 10 if power else 0
    if d20 == 20:
        return "crit", weapon + crit_dice + modifier + extra
    if d20 == 1 or d20 + bonus - (5 if power else 0) < ac:
        return "miss", 0
    return "hit", max(weapon + modifier + extra, 0)
