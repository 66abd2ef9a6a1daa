"""``thac0``: AD&D criticals and fumbles (from the seed text 004_dc1e9f3425f32a69).

need = ``thac0`` − ``target_ac``; a roll hits iff natural + ``to_hit`` >= need. A
natural 1 is a fumble, unless it would have hit and a −20 reroll could hit: then that
reroll decides between ``fumble_reroll_hit`` (minimum damage) and ``fumble``. A natural
20 hits automatically when the shortfall s = need − (20 + to_hit) is at most 10, and
beyond that is ``natural20_reduced``: damage halved ceil((s − 10) / 5) times. A natural
at or above ``crit_threshold`` that hits by 5 or more is a ``critical_hit``. Under a
``roll`` of advantage or disadvantage the kept d20 is the natural for every rule; the
fumble reroll is one plain d20 whatever the roll mode.

>>> spec = Thac0Spec(thac0=16, target_ac=2)
>>> r = exact(spec)
>>> round(r.outcomes["critical_hit"], 4)    # the seed's example: 20 hits by 6
0.05
>>> r.params["severity_dice"] is None       # unused unless crit_option = severity
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from critlab.analysis.dice.notation import DiceExpr
from critlab.analysis.dist import Dist
from critlab.analysis.params import Choice, Dice, Int, param
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import Spec, SpecError, check_dice
from critlab.analysis.systems.base import RuleSystem
from critlab.analysis.systems.d20 import natural_probs, roll_code, roll_param
from critlab.analysis.tally import Tally
from critlab.kernels.vocab import thac0 as k  # its vocabularies; the kernel loads on first run
from critlab.kernels.vocab import words
from critlab.kernels.vocab.dice import joint_plan, plan

LABELS = words(k.Outcome)
CRIT_OPTIONS = words(k.CritOption)


@dataclass(frozen=True, kw_only=True)
class Thac0Spec(Spec):
    """An AD&D attack: THAC0 against AC, with fumbles, natural 20s and critical hits.

    Parameters
    ----------
    roll
        The attacker's d20: ``normal``, ``advantage`` (two, keep the higher) or
        ``disadvantage`` (two, keep the lower).
    thac0, target_ac
        The attacker's THAC0 and the target's armour class (required).
    to_hit
        Bonus added to the natural roll.
    damage
        Damage dice (floored at 0 per roll).
    crit_threshold
        Naturals at or above it that hit by 5 or more are critical hits (2..20).
    crit_option
        ``double`` (two damage rolls), ``max`` (the damage maximum) or ``severity``
        (one damage roll, plus a ``severity_dice`` roll reported on its own).
    fumble_without_reroll
        Label of a natural 1 that would have hit but whose −20 reroll could not:
        ``fumble`` or ``miss``.
    """

    system = "thac0"
    roll: Literal["normal", "advantage", "disadvantage"] = roll_param("the attacker")
    thac0: int | None = param(None, Int(), "the attacker's THAC0 (To Hit Armor Class 0)", label="THAC0")
    target_ac: int | None = param(None, Int(), "the target's armour class", label="target AC")
    to_hit: int = param(0, Int(), "bonus added to the natural d20", label="to-hit bonus")
    damage: str = param("1d8", Dice(), "damage dice of one hit (each roll floored at 0)", unit="hp")
    crit_threshold: int = param(
        20, Int(2, 20), "naturals at or above it that hit by 5 or more are critical hits"
    )
    crit_option: Literal["double", "max", "severity"] = param(
        "double",
        Choice(*CRIT_OPTIONS),
        "a critical hit deals two damage rolls (double), the damage maximum (max), or one roll "
        "plus a severity_dice roll reported on its own (severity)",
    )
    severity_dice: str = param(
        "2d6", Dice(), "the severity roll of a critical hit", when={"crit_option": ("severity",)}
    )
    fumble_without_reroll: Literal["fumble", "miss"] = param(
        "fumble",
        Choice("fumble", "miss"),
        "label of a natural 1 that would have hit but whose -20 reroll could not",
    )

    def validate(self) -> None:
        dmg = check_dice("damage", self.damage, allow_explode=self.crit_option != "max")
        if dmg.min is None:
            raise SpecError("damage", self.damage, "needs a minimum (a fumble reroll hit deals it)")

    @property
    def need(self) -> int:
        """The natural + to_hit needed to hit: THAC0 − AC."""
        return self.thac0 - self.target_ac

    @property
    def damage_expr(self) -> DiceExpr:
        return check_dice("damage", self.damage)

    @property
    def severity_expr(self) -> DiceExpr:
        return check_dice("severity_dice", self.severity_dice)


def halvings(shortfall: int) -> int:
    """How many times a natural 20 that falls ``shortfall`` short halves damage:
    ceil((s − 10) / 5) beyond the first 10 points, else 0.

    >>> [halvings(s) for s in (10, 11, 15, 16, 20, 21)]
    [0, 1, 1, 2, 2, 3]
    """
    return max(0, -((10 - shortfall) // 5))


def halve(values: np.ndarray, times: int) -> np.ndarray:
    """Damage halved ``times`` times: [0.5, 1) deals 1, below 0.5 deals 0, else floor."""
    v = np.asarray(values, dtype=np.int64)
    if times >= 62:
        return np.zeros_like(v)
    scale = 1 << times
    return np.where(v >= scale, v >> times, np.where(2 * v >= scale, 1, 0))


def exact(spec: Thac0Spec) -> ExactResult:
    """Exact outcome probabilities, damage distribution and expected damage."""
    need, to_hit = spec.need, spec.to_hit
    roll = spec.damage_expr.dist().clip(lo=0)  # each damage roll floored at 0
    dmg_min = max(0, spec.damage_expr.min)
    crit_damage = {
        "double": lambda: roll + roll,
        "max": lambda: Dist.point(max(0, spec.damage_expr.max or 0)),
        "severity": lambda: roll,
    }[spec.crit_option]()

    probs = dict.fromkeys(LABELS, 0.0)
    weights: list[float] = []
    damages: list[Dist] = []
    p_crit = 0.0

    def add(label: str, p: float, damage: Dist) -> None:
        probs[label] += p
        weights.append(p)
        damages.append(damage)

    # the kept d20's distribution (1/20 each on a normal roll); the reroll is a plain d20
    for natural, p in zip(range(1, 21), natural_probs(spec.roll).tolist(), strict=True):
        if natural == 1:
            if 1 + to_hit >= need and to_hit >= need:
                # the -20 reroll hits on reroll >= need - to_hit + 20
                hits = sum(1 for r in range(1, 21) if r + to_hit - 20 >= need) / 20
                add("fumble_reroll_hit", p * hits, Dist.point(dmg_min))
                add("fumble", p * (1 - hits), Dist.point(0))
            elif 1 + to_hit >= need:
                add(spec.fumble_without_reroll, p, Dist.point(0))
            else:
                add("fumble", p, Dist.point(0))
            continue
        hit_by = natural + to_hit - need
        shortfall = need - (20 + to_hit)
        if natural == 20 and shortfall > 10:
            h = halvings(shortfall)
            add("natural20_reduced", p, roll.map(lambda v, h=h: halve(v, h)))
        elif hit_by >= 0 or natural == 20:
            if natural >= spec.crit_threshold and hit_by >= 5:
                add("critical_hit", p, crit_damage)
                p_crit += p
            else:
                add("hit", p, roll)
        else:
            add("miss", p, Dist.point(0))

    damage = Dist.mixture(weights, damages)
    distributions: dict[str, Dist | None] = {"damage": damage, "severity": None}
    if spec.crit_option == "severity":
        sev = spec.severity_expr.dist()
        distributions["severity"] = Dist.mixture([p_crit, 1 - p_crit], [sev, Dist.point(0)])
    return ExactResult(
        system=spec.system,
        params=spec.params(),
        labels=LABELS,
        probs=np.array([probs[lab] for lab in LABELS]),
        distributions=distributions,
        metrics={"expected_damage": damage.mean},
    )


def kernel_args(spec: Thac0Spec) -> k.Args:
    """The kernel's arguments for ``spec``."""
    dmg_terms, dmg_const = spec.damage_expr.encode()
    sev_terms, sev_const = spec.severity_expr.encode()
    dmg_simple, dmg_count, dmg_sides, dmg_explode = plan(dmg_terms)
    sev_simple, sev_count, sev_sides, sev_explode = plan(sev_terms)
    # drawn with the d20 where the damage dice allow it and no dice need the interpreter
    joint, joint_totals = (
        joint_plan(dmg_simple, dmg_count, dmg_sides, dmg_explode)
        if sev_simple or spec.crit_option != "severity"
        else (0, 0)
    )
    rules = k.Rules(
        roll=roll_code(spec.roll),
        need=spec.need,
        to_hit=spec.to_hit,
        crit_threshold=spec.crit_threshold,
        fumble_is_miss=spec.fumble_without_reroll == "miss",
        crit_option=CRIT_OPTIONS.index(spec.crit_option),
        halvings=halvings(spec.need - (20 + spec.to_hit)),
        dmg_min=max(0, spec.damage_expr.min),
        dmg_max=max(0, spec.damage_expr.max or 0),
        dmg_simple=dmg_simple,
        dmg_count=dmg_count,
        dmg_sides=dmg_sides,
        dmg_explode=dmg_explode,
        dmg_const=dmg_const,
        sev_simple=sev_simple,
        sev_count=sev_count,
        sev_sides=sev_sides,
        sev_explode=sev_explode,
        sev_const=sev_const,
        joint=joint,
        joint_totals=joint_totals,
    )
    return k.Args(rules=rules, dmg_terms=dmg_terms, sev_terms=sev_terms)


def simulated_metrics(spec: Thac0Spec, tally: Tally) -> dict[str, float]:
    return {"expected_damage": tally.counters["damage_sum"] / tally.trials}


SYSTEM = RuleSystem.of_kernel(
    "thac0",
    "AD&D criticals and fumbles (THAC0)",
    spec=Thac0Spec,
    exact=exact,
    kernel=k,
    args=kernel_args,
    metrics=simulated_metrics,
    polarity={
        "fumble": -2,
        "miss": -1,
        "natural20_reduced": 0,
        "fumble_reroll_hit": 1,
        "hit": 1,
        "critical_hit": 2,
    },
    fights="",
)
simulate = SYSTEM.simulate
