"""Every Roll20 and Foundry VTT element, each by an example from that tool's own
documentation (the page and section named), with critlab's rewriting of it and an
independent reference for its value: an icepool die built from the documented meaning.

Shared by tests/dice/test_dialects.py (the rewriting and the exact distribution) and
tests/kernels/test_dice_kernels.py (the same expression simulated through the
interpreter, chi-square at a fixed seed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import icepool

DEPTH = 20  # icepool's explosions: the truncated mass is far below the tests' 1e-8
d6, d8, d10, d20, d100 = (icepool.d(n) for n in (6, 8, 10, 20, 100))
fate = icepool.Die([-1, 0, 1])

ROLL20 = "Roll20, Dice Reference (help.roll20.net/hc/en-us/articles/360037773133-Dice-Reference)"
FOUNDRY = "Foundry VTT, Dice Modifiers (foundryvtt.com/article/dice-modifiers)"
FOUNDRY_API = "Foundry VTT API, Die term modifiers (foundryvtt.com/api/classes/foundry.dice.terms.Die.html)"
ISSUE = "the four pasted examples of the dialects' issue (Roll20 / Foundry meaning)"


@dataclass(frozen=True)
class Example:
    """One documented example: ``dialect`` text, critlab's rewriting, where it comes from,
    and a reference die (``None`` where the reference is the mean alone)."""

    dialect: str
    text: str
    critlab: str
    source: str
    ref: Any
    mean: float | None = None

    @property
    def id(self) -> str:
        return f"{self.dialect}:{self.text}"


def _map(die: icepool.Die, f) -> icepool.Die:
    return die.map(lambda v: int(f(v)))


EXAMPLES = [
    # -- Roll20 ------------------------------------------------------------------------
    Example("roll20", "3d6!", "3d6x", f"{ROLL20}, Exploding Dice", 3 @ d6.explode(depth=DEPTH)),
    Example(
        "roll20",
        "3d6!>4",
        "3d6x>=4",
        f"{ROLL20}, Exploding Dice (explodes on 4 or more)",
        3 @ d6.explode([4, 5, 6], depth=45),
    ),  # half the faces explode: deeper
    Example(
        "roll20",
        "3d6!3",
        "3d6x3",
        f"{ROLL20}, Exploding Dice (only on a 3)",
        3 @ d6.explode([3], depth=DEPTH),
    ),
    Example(
        "roll20",
        "2d6!kh1",
        "2d6xkh1",
        f"{ISSUE}: Roll20's ! adds dice of their own, mean 4.47",
        d6.explode_to_pool(2, [6], depth=DEPTH).highest(1).sum(),
    ),
    Example("roll20", "5d6!!", "5d6!", f"{ROLL20}, Compounding Exploding Dice", 5 @ d6.explode(depth=DEPTH)),
    Example(
        "roll20",
        "{5d6!!}>8",
        "5d6!cs>=8",
        f"{ROLL20}, Compounding Exploding Dice (compared for successes)",
        5 @ _map(d6.explode(depth=DEPTH), lambda v: v >= 8),
    ),
    Example(
        "roll20",
        "5d6!p",
        "5d6!p",
        f"{ROLL20}, Penetrating Exploding Dice (each added roll less 1)",
        None,
        mean=20.0,
    ),
    Example(
        "roll20", "8d100k4", "8d100kh4", f"{ROLL20}, Drop/Keep", icepool.Pool([d100] * 8).highest(4).sum()
    ),
    Example(
        "roll20", "8d100d3", "8d100dl3", f"{ROLL20}, Drop/Keep", icepool.Pool([d100] * 8).lowest(drop=3).sum()
    ),
    Example(
        "roll20",
        "4d6d1",
        "4d6dl1",
        f"{ISSUE}: Roll20's d drops the lowest",
        icepool.Pool([d6] * 4).lowest(drop=1).sum(),
    ),
    Example(
        "roll20",
        "8d100kl4",
        "8d100kl4",
        f"{ROLL20}, Roll20 Dice Specification, Keep / Drop Dice khN/klN/dhN/dlN",
        icepool.Pool([d100] * 8).lowest(4).sum(),
    ),
    Example(
        "roll20",
        "4d6dh1",
        "4d6dh1",
        f"{ROLL20}, Roll20 Dice Specification, Keep / Drop Dice khN/klN/dhN/dlN",
        icepool.Pool([d6] * 4).highest(drop=1).sum(),
    ),
    Example(
        "roll20",
        "8d6>4",
        "8d6cs>=4",
        f"{ISSUE}: Roll20 counts the dice of 4 or more",
        8 @ _map(d6, lambda v: v >= 4),
    ),
    Example(
        "roll20", "3d6>3", "3d6cs>=3", f"{ROLL20}, Target Number (Successes)", 3 @ _map(d6, lambda v: v >= 3)
    ),
    Example(
        "roll20",
        "5d10<3",
        "5d10cs<=3",
        f"{ROLL20}, Target Number (Successes): < is 3 or less",
        5 @ _map(d10, lambda v: v <= 3),
    ),
    Example(
        "roll20",
        "3d6=6",
        "3d6cs6",
        f"{ROLL20}, Target Number (Successes): = is that face",
        3 @ _map(d6, lambda v: v == 6),
    ),
    Example(
        "roll20",
        "10d10>8f1",
        "10d10cs>=8df1",
        f"{ROLL20}, Roll20 Dice Specification, Failures fCP",
        10 @ d10.map(lambda v: 1 if v >= 8 else (-1 if v == 1 else 0)),
    ),
    Example(
        "roll20", "1d20cs>10", "1d20", f"{ROLL20}, Critical Success and Fumble Points (colour only)", d20
    ),
    Example("roll20", "1d20cf<3", "1d20", f"{ROLL20}, Critical Success and Fumble Points (colour only)", d20),
    Example("roll20", "1d20cs>=19", "1d20", f"{ISSUE}: Roll20's cs only highlights", d20),
    Example(
        "roll20",
        "2d10r<2",
        "2d10rr<=2",
        f"{ROLL20}, Rerolling Dice (while it shows 2 or less)",
        2 @ icepool.Die(range(3, 11)),
    ),
    Example(
        "roll20",
        "2d8r8r1",
        "2d{2,3,4,5,6,7}",
        f"{ROLL20}, Rerolling Dice (several points)",
        2 @ icepool.Die(range(2, 8)),
    ),
    Example(
        "roll20",
        "8d6r2r4r6",
        "8d{1,3,5}",
        f"{ROLL20}, Rerolling Dice (2s, 4s and 6s rerolled)",
        8 @ icepool.Die([1, 3, 5]),
    ),
    Example(
        "roll20",
        "2d10ro<2",
        "2d10ro<=2",
        f"{ROLL20}, Rerolling Dice (reroll once)",
        2 @ d10.reroll([1, 2], depth=1),
    ),
    Example("roll20", "4dF", "4dF", f"{ROLL20}, FATE Dice", 4 @ fate),
    Example("roll20", "floor(1d6/2)", "1d6/2", f"{ROLL20}, Rounding Rolls and Math Functions", d6 // 2),
    Example(
        "roll20",
        "3d6*2",
        "3d6*2",
        f"{ROLL20}, Roll20 Dice Specification, Math Operators and Functions",
        (3 @ d6) * 2,
    ),
    Example(
        "roll20",
        "{4d6+3d8, 4d10}kh1",
        "{4d6+3d8, 4d10}kh1",
        f"{ROLL20}, Grouping Rolls (keep the higher total)",
        icepool.highest(4 @ d6 + 3 @ d8, 4 @ d10),
    ),
    Example(
        "roll20",
        "{3d20+5}>21",
        "3d20+5>=21",
        f"{ROLL20}, Grouped Roll Modifiers, Target Number (a total)",
        _map(3 @ d20 + 5, lambda v: v >= 21),
    ),
    Example(
        "roll20",
        "2d20+5[Fire Damage] + 3d6+5[Ice Damage]",
        "2d20+3d6+10",
        f"{ROLL20}, Inline Labels",
        2 @ d20 + 3 @ d6 + 10,
    ),
    Example("roll20", "8d6sd", "8d6", f"{ROLL20}, Roll20 Dice Specification, Sorting Dice sa/sd", 8 @ d6),
    Example(
        "roll20", "(1+2)d6", "3d6", f"{ROLL20}, Roll20 Dice Specification, Computed Dice Roll (N+Y)dX", 3 @ d6
    ),
    Example(
        "roll20", "2d(3+3)", "2d6", f"{ROLL20}, Roll20 Dice Specification, Computed Dice Roll Nd(X+Y)", 2 @ d6
    ),
    Example(
        "roll20",
        "/roll 1d20+5 Roll for Initiative",
        "1d20+5",
        f"{ROLL20}, How to Roll Dice (text after the formula)",
        d20 + 5,
    ),
    Example(
        "roll20",
        "/roll 1d20+5 \\ +5 Roll for Initiative",
        "1d20+5",
        f"{ROLL20}, How to Roll Dice (text after a backslash)",
        d20 + 5,
    ),
    # -- Foundry VTT -------------------------------------------------------------------
    Example(
        "foundry",
        "1d10r1",
        "1d10ro1",
        f"{FOUNDRY}, Re-rolls and Exploding Dice (r: once)",
        d10.reroll([1], depth=1),
    ),
    Example(
        "foundry",
        "1d20r<10",
        "1d20ro<=9",
        f"{FOUNDRY}, Re-rolls and Exploding Dice (below 10, once)",
        d20.reroll(list(range(1, 10)), depth=1),
    ),
    Example(
        "foundry",
        "1d20rr<3",
        "1d20rr<=2",
        f"{FOUNDRY}, Re-rolls and Exploding Dice (rr: recursive)",
        icepool.Die(range(3, 21)),
    ),
    Example("foundry", "4d6r1", "4d6ro1", f"{ISSUE}: Foundry's r rerolls once", 4 @ d6.reroll([1], depth=1)),
    Example(
        "foundry",
        "5d10x10",
        "5d10x",
        f"{FOUNDRY}, Re-rolls and Exploding Dice (x: each 10 rolls again)",
        5 @ d10.explode(depth=DEPTH),
    ),
    Example(
        "foundry",
        "5d10xo10",
        "5d10xo",
        f"{FOUNDRY}, Re-rolls and Exploding Dice (xo: explode once)",
        5 @ d10.explode(depth=1),
    ),
    Example(
        "foundry",
        "20d20k",
        "20d20kh1",
        f"{FOUNDRY_API}, keep: Keep the 1 highest die",
        icepool.Pool([d20] * 20).highest(1).sum(),
    ),
    Example(
        "foundry",
        "20d20kh10",
        "20d20kh10",
        f"{FOUNDRY_API}, keep: Keep the 10 highest",
        icepool.Pool([d20] * 20).highest(10).sum(),
    ),
    Example(
        "foundry",
        "20d20kl10",
        "20d20kl10",
        f"{FOUNDRY_API}, keep: Keep the 10 lowest",
        icepool.Pool([d20] * 20).lowest(10).sum(),
    ),
    Example(
        "foundry",
        "20d20d",
        "20d20dl1",
        f"{FOUNDRY_API}, drop: Drop the 1 lowest die",
        icepool.Pool([d20] * 20).lowest(drop=1).sum(),
    ),
    Example(
        "foundry",
        "20d20dh10",
        "20d20dh10",
        f"{FOUNDRY_API}, drop: Drop the 10 highest",
        icepool.Pool([d20] * 20).highest(drop=10).sum(),
    ),
    Example(
        "foundry",
        "6d6min2",
        "6d6mi2",
        f"{FOUNDRY_API}, minimum: each result at least 2",
        6 @ d6.map(lambda v: max(v, 2)),
    ),
    Example(
        "foundry",
        "6d6max5",
        "6d6ma5",
        f"{FOUNDRY_API}, maximum: each result at most 5",
        6 @ d6.map(lambda v: min(v, 5)),
    ),
    Example(
        "foundry", "1d20min10", "1d20mi10", f"{ISSUE}: Foundry's min clamps", d20.map(lambda v: max(v, 10))
    ),
    Example(
        "foundry",
        "20d20cs",
        "20d20cs20",
        f"{FOUNDRY_API}, countSuccess: the dice which rolled a 20",
        20 @ _map(d20, lambda v: v == 20),
    ),
    Example(
        "foundry",
        "20d20cs>10",
        "20d20cs>=11",
        f"{FOUNDRY_API}, countSuccess: higher than 10",
        20 @ _map(d20, lambda v: v > 10),
    ),
    Example(
        "foundry",
        "6d6cf",
        "6d6cf1",
        f"{FOUNDRY_API}, countFailures: the dice which rolled a 1",
        6 @ _map(d6, lambda v: v == 1),
    ),
    Example(
        "foundry",
        "6d6cf>4",
        "6d6cf>=5",
        f"{FOUNDRY_API}, countFailures: greater than 4",
        6 @ _map(d6, lambda v: v > 4),
    ),
    Example(
        "foundry",
        "6d6even",
        "6d{0,1,0,1,0,1}",
        f"{FOUNDRY_API}, countEven",
        6 @ _map(d6, lambda v: v % 2 == 0),
    ),
    Example(
        "foundry", "6d6odd", "6d{1,0,1,0,1,0}", f"{FOUNDRY_API}, countOdd", 6 @ _map(d6, lambda v: v % 2 == 1)
    ),
    Example(
        "foundry",
        "6d6df",
        "6d{-1,2,3,4,5,6}",
        f"{FOUNDRY_API}, deductFailures: a 1 counts -1",
        6 @ d6.map(lambda v: -1 if v == 1 else v),
    ),
    Example(
        "foundry",
        "6d6cs>3df",
        "6d6cs>=4df<=3",
        f"{FOUNDRY_API}, deductFailures: 3 or less deducted",
        6 @ d6.map(lambda v: 1 if v > 3 else -1),
    ),
    Example(
        "foundry",
        "6d6cf<3df",
        "-6d6cf<=2",
        f"{FOUNDRY_API}, deductFailures: less than 3 deducted",
        6 @ d6.map(lambda v: -1 if v < 3 else 0),
    ),
    Example(
        "foundry",
        "6d6sf<3",
        "6d{-1,-2,3,4,5,6}",
        f"{FOUNDRY_API}, subtractFailures: a failure's value off",
        6 @ d6.map(lambda v: -v if v < 3 else v),
    ),
    Example("foundry", "6d6ms>12", "6d6-12", f"{FOUNDRY_API}, marginSuccess: 12 off the total", 6 @ d6 - 12),
    Example("foundry", "2d6+1d6[fire]", "2d6+1d6", f"{ISSUE}: Foundry's flavour text", 3 @ d6),
]

# Documented elements critlab does not answer: refused with one line naming them.
REFUSED = [
    ("roll20", "2d6m", "'m'", f"{ROLL20}, Dice Matching"),
    ("roll20", "4d6mt", "'mt'", f"{ROLL20}, Dice Matching"),
    ("roll20", "1d6/2", "write floor(1d6/2)", f"{ROLL20}, Math Operators and Functions (/ keeps fractions)"),
    ("roll20", "ceil(1d6/2)", "ceil()", f"{ROLL20}, Rounding Rolls and Math Functions"),
    ("roll20", "1d20+5>15", "{1d20+5}>15", f"{ROLL20}, Target Number (dice, not totals)"),
    ("roll20", "(1d4)d6", "a computed count", f"{ROLL20}, Roll20 Dice Specification, Computed Dice Roll"),
    ("foundry", "2d6!", "'x'", f"{FOUNDRY}: Foundry explodes with x"),
    ("foundry", "20d20r1=1", "a cap", f"{FOUNDRY_API}, reroll: 20d20r1=1 rerolls a single 1"),
    ("foundry", "5d10x3>=8", "a cap", f"{FOUNDRY}, Explode with Numeric Cap"),
    ("foundry", "4d6kh3r1", "after the modifiers before it", f"{FOUNDRY}: in written order"),
]
