"""``crit-range``: CRIT and CRITFAIL ranges on a d20 (from the seed text 001_cad0bd1b00dfae4f).

A d20 natural at or below ``critfail_range`` is a ``critfail`` (an automatic miss that
costs the weapon 1 Condition); at or above 21 − ``crit_range`` a ``crit`` (an automatic
hit plus the ``crit_dice``, which always explode); otherwise natural + ``attack_bonus``
>= ``evasion`` is a ``hit``, else a ``miss``. Damage is the ``damage`` roll less ``dt``
(floored at 0); the CRIT dice are added after DT and the sum is reduced by ``dr``,
rounding down exactly. In ``test`` mode, d20 + ``bonus`` against ``difficulty`` gives
``critfail``, ``failure``, ``success`` or ``crit``, with no damage. Under a ``roll`` of
advantage or disadvantage two d20s are rolled and the kept one is the natural for every
rule.

>>> spec = CritRangeSpec(attack_bonus=3, evasion=11, crit_range=2)
>>> r = exact(spec)
>>> r.labels
('critfail', 'miss', 'hit', 'crit')
>>> r.outcomes["crit"], r.metrics["mean_attacks_to_break"]     # 19-20; 10 Condition / (1/20)
(0.1, 200.0)
>>> round(crit_bonus_roll(spec).pmf(10) * 36, 12)             # the seed: a 6, then a 4
1.0
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from critlab.analysis.dice.notation import KEEP_ALL, DiceExpr
from critlab.analysis.dist import TAIL_EPS, Dist
from critlab.analysis.params import Choice, Decimal01, Dice, Int, param
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import Spec, SpecError, check_dice
from critlab.analysis.systems.base import RuleSystem
from critlab.analysis.systems.d20 import natural_probs, roll_code, roll_param
from critlab.analysis.tally import Tally
from critlab.kernels.vocab import crit_range as k  # its vocabularies; the kernel loads on first run
from critlab.kernels.vocab import words
from critlab.kernels.vocab.dice import joint_plan, plan

ATTACK_LABELS = words(k.AttackOutcome)
TEST_LABELS = words(k.TestOutcome)
MODES = words(k.Mode)
ATTACK = {"mode": ("attack",)}
TEST = {"mode": ("test",)}
# DR read exactly with at most 18 decimal places: its denominator stays below 2**61 for
# the kernel's overflow-free floor.
DR = Decimal01(places=18)
INT64_MAX = 2**63 - 1
# The kept d20's chances are whole multiples of 1/400 in every roll mode.
NATURAL_DENOMINATOR = 400


def labels(spec: CritRangeSpec) -> tuple[str, ...]:
    """The outcome labels of ``spec``'s mode, in a fixed order.

    >>> labels(CritRangeSpec(mode="test", bonus=2, difficulty=15))
    ('critfail', 'failure', 'success', 'crit')
    """
    return ATTACK_LABELS if spec.mode == "attack" else TEST_LABELS


@dataclass(frozen=True, kw_only=True)
class CritRangeSpec(Spec):
    """An attack (or a skill test) on a d20 with CRIT and CRITFAIL ranges.

    Parameters
    ----------
    mode
        ``attack`` (d20 + attack_bonus against evasion, with damage and wear) or ``test``
        (d20 + bonus against difficulty).
    roll
        The roller's d20: ``normal``, ``advantage`` (two, keep the higher) or
        ``disadvantage`` (two, keep the lower); the kept die is the natural for the
        crit and critfail ranges and the hit.
    attack_bonus, evasion
        Required in attack mode.
    crit_range, critfail_range
        Naturals >= 21 − crit_range are CRITs, naturals <= critfail_range CRITFAILs;
        each in 0..20 and together at most 20.
    crit_dice
        CRIT dice added on a CRIT; every die explodes, written with ``!`` or not. Only
        added dice and a constant (no subtracted, kept or dropped dice).
    damage
        The weapon's damage roll (floored at 0).
    dt, dr
        Damage threshold (an integer >= 0, subtracted before the CRIT dice are added) and
        damage resistance (an exact decimal in [0, 1), applied last, rounding down).
    condition
        The weapon's Condition (1..1000); each CRITFAIL costs 1.
    bonus, difficulty
        Required in test mode.
    """

    system = "crit-range"
    mode: Literal["attack", "test"] = param(
        "attack",
        Choice(*MODES),
        "attack: d20 + attack_bonus against evasion, with damage and wear; test: d20 + bonus "
        "against difficulty",
    )
    roll: Literal["normal", "advantage", "disadvantage"] = roll_param()
    attack_bonus: int | None = param(None, Int(), "bonus added to the natural d20 of an attack", when=ATTACK)
    evasion: int | None = param(
        None, Int(), "the target's Evasion: natural + attack_bonus must reach it", when=ATTACK
    )
    crit_range: int = param(1, Int(0, 20), "naturals >= 21 - crit_range are CRITs (automatic hits)")
    critfail_range: int = param(1, Int(0, 20), "naturals <= critfail_range are CRITFAILs (automatic misses)")
    crit_dice: str = param(
        "1d6",
        Dice(),
        "dice added on a CRIT, after DT; every die explodes, written with ! or not",
        when=ATTACK,
    )
    damage: str = param("1d10", Dice(), "the weapon's damage roll (floored at 0)", when=ATTACK, unit="hp")
    dt: int = param(
        0,
        Int(0, 1000),
        "damage threshold, subtracted from the damage roll (floored at 0)",
        when=ATTACK,
        label="DT",
    )
    dr: float = param(
        0.0,
        DR,
        "damage resistance, applied last as floor(x * (1 - dr)), read as an exact decimal",
        when=ATTACK,
        label="DR",
    )
    condition: int = param(10, Int(1, 1000), "the weapon's Condition; each CRITFAIL costs 1", when=ATTACK)
    bonus: int | None = param(None, Int(), "bonus added to the natural d20 of a test", when=TEST)
    difficulty: int | None = param(
        None, Int(), "the test's difficulty: natural + bonus must reach it", when=TEST
    )

    def validate(self) -> None:
        r, f = self.crit_range, self.critfail_range
        if r + f > 20:
            raise SpecError(
                "crit_range", r, f"crit_range + critfail_range must be at most 20 (critfail_range = {f})"
            )
        exploding_crit_dice(self.crit_dice)

    @property
    def damage_expr(self) -> DiceExpr:
        return check_dice("damage", self.damage)

    @property
    def crit_dice_expr(self) -> DiceExpr:
        """``crit_dice`` with every die exploding (the rules: ``!`` or not)."""
        return exploding_crit_dice(self.crit_dice)

    @property
    def dr_fraction(self) -> Fraction:
        """``dr`` read as an exact decimal (0.8 is 4/5)."""
        return DR.exact("dr", self.dr)


def exploding_crit_dice(text: Any) -> DiceExpr:
    """Parse CRIT dice and make every die explode, whether written with ``!`` or not.

    >>> str(exploding_crit_dice("2d6+1d4"))
    '2d6!+1d4!'
    >>> exploding_crit_dice("1d6!") == exploding_crit_dice("1d6")
    True
    """
    expr = check_dice("crit_dice", text)
    for t in expr.terms:
        if t.sign < 0:
            raise SpecError(
                "crit_dice", text, "CRIT dice are added: no subtracted dice (an exploding die has no floor)"
            )
        if t.keep_mode != KEEP_ALL:
            raise SpecError("crit_dice", text, "CRIT dice explode, so they cannot keep or drop dice")
        if t.sides < 2:
            raise SpecError("crit_dice", text, "a CRIT die needs at least 2 sides to explode")
    terms = tuple(dataclasses.replace(t, exploding=True) for t in expr.terms)
    parts = [t.notation for t in terms]
    if expr.constant or not parts:
        parts.append(str(expr.constant))
    canonical = "+".join(parts).replace("+-", "-")
    return DiceExpr(text=canonical, terms=terms, constant=expr.constant)


# -- the exact model --------------------------------------------------------------------
def crit_bonus_roll(spec: CritRangeSpec) -> Dist:
    """The CRIT dice's bonus on one CRIT (exploding without limit, floored at 0), exact
    up to an explicit tail.

    >>> d = crit_bonus_roll(CritRangeSpec(attack_bonus=0, evasion=10))
    >>> round(d.mean, 9), round(d.pmf(6), 12)      # 1d6!: mean 4.2; a 6 never stands alone
    (4.2, 0.0)
    """
    return spec.crit_dice_expr.dist().clip(lo=0)


def reduce_by_dr(values: np.ndarray, dr: Fraction) -> np.ndarray:
    """``floor(x * (1 − dr))`` in exact integer arithmetic.

    >>> reduce_by_dr(np.array([5, 10, 7]), Fraction(4, 5)).tolist()
    [1, 2, 1]
    """
    keep = 1 - dr
    return np.array([(int(v) * keep.numerator) // keep.denominator for v in values], dtype=np.int64)


def weapon_damage(spec: CritRangeSpec) -> tuple[Dist, Dist]:
    """Exact damage of a ``hit`` and of a ``crit``: (floor(after_dt × (1 − dr)),
    floor((after_dt + crit bonus) × (1 − dr))), after_dt = max(0, damage − dt).

    >>> hit, crit = weapon_damage(CritRangeSpec(attack_bonus=0, evasion=10, damage="5", dr=0.8))
    >>> hit.to_dict()
    {1: 1.0}
    """
    dr = spec.dr_fraction
    after_dt = (spec.damage_expr.dist().clip(lo=0) - spec.dt).clip(lo=0)
    before_dr = after_dt + crit_bonus_roll(spec)
    if dr == 0:
        return after_dt, before_dr
    return after_dt.map(lambda v: reduce_by_dr(v, dr)), before_dr.map(lambda v: reduce_by_dr(v, dr))


def attacks_to_break(condition: int, p_critfail: Fraction) -> Dist:
    """Attacks until the ``condition``-th CRITFAIL, counting the breaking attack: a
    negative binomial over the weapon's life, exact up to an explicit tail.

    >>> d = attacks_to_break(1, Fraction(1, 20))       # geometric: the first CRITFAIL
    >>> round(d.pmf(1), 12), round(d.pmf(2), 12)
    (0.05, 0.0475)
    """
    if p_critfail == 1:
        return Dist.point(condition)
    # scipy.special, and scipy.stats only past _PRODUCT_CONDITIONS: a second less to
    # import, on every command
    from scipy.special import nbdtrc

    p = float(p_critfail)
    # failures (non-critfail attacks) before the condition-th critfail: the first count
    # whose survival is at most TAIL_EPS (as nbinom.isf finds it), plus one
    lo, hi = 0, 1
    while nbdtrc(hi, condition, p) > TAIL_EPS:
        hi *= 2
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if nbdtrc(mid, condition, p) <= TAIL_EPS else (mid + 1, hi)
    last = lo + 1
    failures = np.arange(last + 1)
    if condition > _PRODUCT_CONDITIONS:
        from scipy import stats

        pmf = stats.nbinom.pmf(failures, condition, p)
    else:
        # C(k + n - 1, n - 1) p^n (1 - p)^k: the binomial as n - 1 factors, the powers
        # through log1p; within 2e-14 of the true values (checked against 40-digit
        # decimals), as close as nbinom.pmf
        ways = np.ones(last + 1)
        for i in range(1, condition):
            ways *= (failures + i) / i
        pmf = ways * np.exp(condition * np.log(p) + failures * np.log1p(-p))
    return Dist(condition, pmf, float(nbdtrc(last, condition, p)))


# Conditions up to this take the product above (its binomial stays far inside float64's
# range); larger ones scipy.stats' negative binomial.
_PRODUCT_CONDITIONS = 16


def label_chances(spec: CritRangeSpec) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """The exact chance of each label, in label order: the naturals that give it, each
    weighted by the kept d20's chance under ``spec.roll`` (1/20 on a normal roll).

    >>> [str(p) for p in label_chances(CritRangeSpec(attack_bonus=5, evasion=15, roll="advantage"))]
    ['1/400', '1/5', '7/10', '39/400']
    """
    r, f = spec.crit_range, spec.critfail_range
    if spec.mode == "attack":
        need = spec.evasion - spec.attack_bonus
    else:
        need = spec.difficulty - spec.bonus
    # P(natural = k) in 400ths: (2k - 1) under advantage, (41 - 2k) under disadvantage
    weight = np.rint(natural_probs(spec.roll) * NATURAL_DENOMINATOR).astype(np.int64)
    ordinary_lo, ordinary_hi = f + 1, 20 - r
    split = min(max(ordinary_lo, need), ordinary_hi + 1)  # the first ordinary natural that succeeds
    counts = (
        weight[:f].sum(),
        weight[ordinary_lo - 1 : split - 1].sum(),
        weight[split - 1 : ordinary_hi].sum(),
        weight[ordinary_hi:].sum(),
    )
    return tuple(Fraction(int(c), NATURAL_DENOMINATOR) for c in counts)


def exact(spec: CritRangeSpec) -> ExactResult:
    """Exact outcome probabilities; per-attack ``damage`` and ``crit_bonus`` and the
    weapon's ``attacks_to_break``; ``expected_damage``, ``mean_attacks_to_break``,
    ``p_crit`` and ``p_critfail`` (damage and wear are null in test mode, wear also when
    critfail_range is 0)."""
    chances = label_chances(spec)
    probs = np.array([float(c) for c in chances])
    distributions: dict[str, Dist | None] = {"damage": None, "crit_bonus": None, "attacks_to_break": None}
    metrics: dict[str, float | None] = {
        "expected_damage": None,
        "mean_attacks_to_break": None,
        "p_crit": float(chances[3]),
        "p_critfail": float(chances[0]),
    }
    if spec.mode == "attack":
        hit, crit = weapon_damage(spec)
        p_hit, p_crit = probs[2], probs[3]
        damage = Dist.mixture([1 - p_hit - p_crit, p_hit, p_crit], [Dist.point(0), hit, crit])
        distributions["damage"] = damage
        distributions["crit_bonus"] = Dist.mixture(
            [1 - p_crit, p_crit], [Dist.point(0), crit_bonus_roll(spec)]
        )
        metrics["expected_damage"] = damage.mean
        if spec.critfail_range > 0:
            distributions["attacks_to_break"] = attacks_to_break(spec.condition, chances[0])
            metrics["mean_attacks_to_break"] = float(spec.condition / chances[0])
    return ExactResult(
        system=spec.system,
        params=spec.params(),
        labels=labels(spec),
        probs=probs,
        distributions=distributions,
        metrics=metrics,
    )


def kernel_args(spec: CritRangeSpec) -> k.Args:
    """The kernel's arguments for ``spec``."""
    dmg_terms, dmg_const = spec.damage_expr.encode()
    crit_terms, crit_const = spec.crit_dice_expr.encode()
    dmg_simple, dmg_count, dmg_sides, dmg_explode = plan(dmg_terms)
    crit_simple, crit_count, crit_sides, crit_explode = plan(crit_terms)
    # drawn with the d20 where the damage dice allow it and the CRIT dice need no interpreter
    joint, joint_totals = joint_plan(dmg_simple, dmg_count, dmg_sides, dmg_explode) if crit_simple else (0, 0)
    keep = 1 - spec.dr_fraction
    attack = spec.mode == "attack"
    critfail = label_chances(spec)[0]
    wear = attack and spec.critfail_range > 0
    rules = k.Rules(
        attack=attack,
        roll=roll_code(spec.roll),
        bonus=spec.attack_bonus if attack else spec.bonus,
        target=spec.evasion if attack else spec.difficulty,
        crit_from=21 - spec.crit_range,
        critfail_to=spec.critfail_range,
        dmg_simple=dmg_simple,
        dmg_count=dmg_count,
        dmg_sides=dmg_sides,
        dmg_explode=dmg_explode,
        dmg_const=dmg_const,
        crit_simple=crit_simple,
        crit_count=crit_count,
        crit_sides=crit_sides,
        crit_explode=crit_explode,
        crit_const=crit_const,
        dt=spec.dt,
        keep=keep.numerator,
        den=keep.denominator,
        x_max=INT64_MAX // max(1, keep.numerator),
        condition=spec.condition,
        # P(critfail) / condition: about one weapon life per 1 / that attacks
        wear_num=int(critfail * NATURAL_DENOMINATOR) if wear else 0,
        wear_den=spec.condition * NATURAL_DENOMINATOR,
        joint=joint,
        joint_totals=joint_totals,
    )
    return k.Args(rules=rules, dmg_terms=dmg_terms, crit_terms=crit_terms)


def simulated_metrics(spec: CritRangeSpec, tally: Tally) -> dict[str, float | None]:
    """Metrics read off the tally: ``mean_attacks_to_break`` is the mean of the simulated
    weapon lives (null in test mode and when critfail_range is 0)."""
    attack = spec.mode == "attack"
    freq = dict(zip(tally.labels, tally.frequencies, strict=True))
    life = tally.hists.get("attacks_to_break")
    return {
        "expected_damage": tally.counters["damage_sum"] / tally.trials if attack else None,
        "mean_attacks_to_break": tally.counters["attacks_sum"] / life.total if life and life.total else None,
        "p_crit": float(freq["crit"]),
        "p_critfail": float(freq["critfail"]),
    }


SYSTEM = RuleSystem.of_kernel(
    "crit-range",
    "CRIT and CRITFAIL ranges",
    spec=CritRangeSpec,
    exact=exact,
    kernel=k,
    args=kernel_args,
    metrics=simulated_metrics,
    outcomes=lambda spec: k.AttackOutcome if spec.mode == "attack" else k.TestOutcome,
    polarity={"critfail": -2, "miss": -1, "failure": -1, "hit": 1, "success": 1, "crit": 2},
    fights="mode attack",
    fight_mode="attack",
)
simulate = SYSTEM.simulate
