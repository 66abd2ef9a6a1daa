"""``crits-cats``: criticals and catastrophes (the rules: docs/rules.md; seed 000).

Rolls are d20 + skill. A natural in the crit range (``>= 21 - crit_range``) is a
critical and one in the catastrophe range (``<= cat_range``) a catastrophe; a critical
is **major** when the margin reaches ``major_margin``, a catastrophe when the margin
falls that far short. Three modes:

- ``challenge`` (the seed's 21 Challenge): margin = total − ``target``.
- ``versus``: margin = initiator total − responder total; only the initiator can have a
  critical or catastrophe, and with ``responder_naturals = transfer`` the responder's
  crit counts as the initiator's catastrophe and its catastrophe as the initiator's crit
  (opposite pulls cancel). With ``damage`` dice the challenge is an attack.
- ``spell``: the caster makes a challenge; each of ``resisters`` rolls d20 + ``resistance``
  against the caster's total and is classified on its own natural and margin.

Readings where the rules leave room (each documented where it acts):

- A major catastrophe's hit "that ignores protection" deals one ``backlash_damage`` roll
  (floored at 0) with nothing subtracted; a minor catastrophe's ``hit`` subtracts
  ``attacker_protection``. Both protections are non-negative (0..1000).
- Resisters roll whatever the caster achieved (the seed: "regardless of whatever result
  the caster achieved"), so ``p_any_resister_<class>`` counts casts that failed too.
- Distribution ``resister`` (one resister's class) is over the six labels: its values
  are class indices in :data:`LABELS` order, reported by label; the simulator tallies
  the first resister of each cast into it.

Design views (tables and plots) are in :mod:`critlab.analysis.views.crits_cats`.

>>> r = exact(CritsCatsSpec(skill=5, opposing_skill=5))
>>> r.outcomes["major_critical"] + r.outcomes["major_catastrophe"]   # equal skill: no majors
0.0
>>> r.outcomes["minor_critical"] * 400    # own 20 (19 pairs) or the responder's 1 (18 more)
37.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from critlab.analysis.dice.notation import DiceExpr
from critlab.analysis.dist import Dist
from critlab.analysis.params import Choice, Dice, Int, param
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import Spec, SpecError, check_dice
from critlab.analysis.systems.base import RuleSystem
from critlab.analysis.systems.d20 import natural_probs, roll_code, roll_param
from critlab.analysis.tally import Tally
from critlab.kernels.vocab import crits_cats as k  # its vocabularies; the kernel loads on first run
from critlab.kernels.vocab import words
from critlab.kernels.vocab.dice import plan_fields, simple_only

LABELS = words(k.Outcome)
MODES = words(k.Mode)
# Casting cost relative to the spell's normal cost, by the caster's class (in LABELS order).
COST_MULTIPLIER = (2.0, 1.5, 1.0, 1.0, 0.5, 0.0)
COMBAT_PARAMS = frozenset(
    {"damage", "protection", "backlash_damage", "attacker_protection", "minor_catastrophe_effect"}
)
METRICS = (
    "p_down",
    "expected_damage",
    "expected_backlash",
    "expected_cost_multiplier",
    "p_affected",
) + tuple(f"p_any_resister_{lab}" for lab in LABELS)
DISTRIBUTIONS = words(k.Hist)

VERSUS = {"mode": ("versus",)}
SPELL = {"mode": ("spell",)}


def _versus_damage(dice: Dice, help: str) -> Any:
    """A versus roll's damage dice parameter: none by default (optional), in hit points."""
    return param(None, dice, help, when=VERSUS, optional=True, unit="hp")


@dataclass(frozen=True, kw_only=True)
class CritsCatsSpec(Spec):
    """A d20 + skill roll with criticals and catastrophes, alone, opposed, or as a spell.

    Parameters
    ----------
    mode
        ``versus`` (initiator against responder), ``challenge`` (against ``target``) or
        ``spell`` (a caster's challenge, then each resister against the caster's total).
    roll, opposing_roll
        The d20 roll modes (``normal``, ``advantage``, ``disadvantage``) of the initiator,
        roller or caster, and of the responder and every resister (not in ``challenge``).
    crit_range, cat_range
        Naturals ``>= 21 - crit_range`` are criticals, ``<= cat_range`` catastrophes
        (each 0..20, together at most 20).
    skill, opposing_skill, resistance
        The initiator's, roller's or caster's skill; the responder's (``versus``); each
        resister's (``spell``).
    target
        The total a challenge or a casting must reach (margin = total − target).
    responder_naturals
        ``transfer``: the responder's crit is the initiator's catastrophe and its
        catastrophe the initiator's crit; ``ignore``: the responder's natural is ordinary.
    ties
        Who wins a versus tie without a critical or catastrophe: ``responder`` or ``initiator``.
    major_margin
        How far the margin must go for a critical (or catastrophe) to be major.
    damage, backlash_damage
        The attack's damage dice (``versus`` only; none: no combat; must not explode) and
        the defender's on a catastrophe's hit back (none: the same as ``damage``).
    protection, attacker_protection
        The defender's protection against a normal hit, the attacker's against a minor
        catastrophe's hit back (both >= 0).
    minor_catastrophe_effect
        ``down`` (the attacker goes down) or ``hit`` (the defender hits the attacker).
    resisters
        How many resist the spell (1..100).
    """

    system = "crits-cats"
    mode: Literal["versus", "challenge", "spell"] = param(
        "versus",
        Choice(*MODES),
        "versus (initiator against responder), challenge (one roller against target) or spell "
        "(a caster's challenge, then each resister against the caster's total)",
    )
    roll: Literal["normal", "advantage", "disadvantage"] = roll_param("the initiator's, roller's or caster")
    opposing_roll: Literal["normal", "advantage", "disadvantage"] = roll_param(
        "the responder's or each resister", when={"mode": ("versus", "spell")}
    )
    crit_range: int = param(1, Int(0, 20), "naturals >= 21 - crit_range are criticals")
    cat_range: int = param(1, Int(0, 20), "naturals <= cat_range are catastrophes")
    skill: int | None = param(None, Int(), "the initiator's, roller's or caster's skill")
    target: int = param(
        21, Int(), "the total a challenge or casting must reach", when={"mode": ("challenge", "spell")}
    )
    opposing_skill: int | None = param(None, Int(), "the responder's skill", when=VERSUS)
    responder_naturals: Literal["transfer", "ignore"] = param(
        "transfer",
        Choice("transfer", "ignore"),
        "transfer: the responder's crit is the initiator's catastrophe and its catastrophe the "
        "initiator's crit; ignore: the responder's natural is ordinary",
        when=VERSUS,
    )
    ties: Literal["responder", "initiator"] = param(
        "responder",
        Choice("responder", "initiator"),
        "who wins a versus tie without a critical or catastrophe",
        when=VERSUS,
    )
    major_margin: int = param(20, Int(), "how far the margin must go for a major critical or catastrophe")
    damage: str | None = _versus_damage(Dice(explode=False), "the attack's damage dice (none: no combat)")
    protection: int = param(
        0, Int(0), "the defender's protection, subtracted from a normal hit (with damage)", when=VERSUS
    )
    backlash_damage: str | None = _versus_damage(
        Dice(), "the defender's damage dice on a catastrophe's hit back (none: the same as damage)"
    )
    attacker_protection: int = param(
        0, Int(0), "the attacker's protection against a minor catastrophe's hit back", when=VERSUS
    )
    minor_catastrophe_effect: Literal["down", "hit"] = param(
        "down",
        Choice("down", "hit"),
        "a minor catastrophe puts the attacker down, or the defender hits the attacker",
        when=VERSUS,
    )
    resisters: int = param(1, Int(1, 100), "how many resist the spell", when=SPELL)
    resistance: int | None = param(None, Int(), "each resister's skill", when=SPELL)

    def validate(self) -> None:
        if self.crit_range + self.cat_range > 20:
            raise SpecError(
                "cat_range",
                self.cat_range,
                f"crit_range + cat_range must be at most 20 (crit_range is {self.crit_range})",
            )

    def unused(self) -> frozenset[str]:
        # the combat parameters are used only by a versus challenge with damage dice
        return super().unused() | (frozenset() if self.combat else COMBAT_PARAMS)

    def params(self) -> dict:
        out = super().params()
        if out["backlash_damage"] is None and self.combat:
            out["backlash_damage"] = self.damage  # "default the same as damage": report what is rolled
        return out

    @property
    def combat(self) -> bool:
        """Whether this is an attack: a versus challenge with damage dice."""
        return self.mode == "versus" and self.damage is not None

    @property
    def damage_expr(self) -> DiceExpr:
        return check_dice("damage", self.damage)

    @property
    def backlash_expr(self) -> DiceExpr:
        return check_dice(
            "backlash_damage", self.damage if self.backlash_damage is None else self.backlash_damage
        )


# -- the rules, vectorised (the exact engine's enumeration over naturals) -------------------
def natural_kind(naturals: np.ndarray, crit_range: int, cat_range: int) -> np.ndarray:
    """+1 for a natural in the crit range, −1 in the catastrophe range, else 0.

    >>> natural_kind(np.arange(1, 21), 2, 3).tolist()[:4], natural_kind(np.array([18, 19, 20]), 2, 3).tolist()
    ([-1, -1, -1, 0], [0, 1, 1])
    """
    n = np.asarray(naturals)
    # the two ranges never overlap (crit_range + cat_range <= 20): one difference of tests
    return np.subtract(n >= 21 - crit_range, n <= cat_range, dtype=np.int64)


def classify(kind: np.ndarray, margin: np.ndarray, major_margin: int, succeeded: np.ndarray) -> np.ndarray:
    """Class indices (into :data:`LABELS`): a critical or catastrophe by ``kind``, major
    when the margin reaches ``major_margin`` its way, else success or failure.

    >>> classify(np.array([1, 1, -1, 0]), np.array([20, 19, -20, 0]), 20, np.array([0, 0, 0, 1])).tolist()
    [5, 4, 0, 3]
    """
    o = k.Outcome
    return np.where(
        kind > 0,
        np.where(margin >= major_margin, o.MAJOR_CRITICAL, o.MINOR_CRITICAL),
        np.where(
            kind < 0,
            np.where(-margin >= major_margin, o.MAJOR_CATASTROPHE, o.MINOR_CATASTROPHE),
            np.where(succeeded, o.SUCCESS, o.FAILURE),
        ),
    )


def versus_classes(
    initiator: np.ndarray,
    responder: np.ndarray,
    *,
    skill: int,
    opposing_skill: int,
    crit_range: int = 1,
    cat_range: int = 1,
    transfer: bool = True,
    ties_initiator: bool = False,
    major_margin: int = 20,
) -> np.ndarray:
    """The initiator's class for arrays of initiator and responder naturals.

    >>> versus_classes(np.array([20, 20, 10]), np.array([1, 20, 1]), skill=0, opposing_skill=0).tolist()
    [4, 2, 4]
    """
    kind = natural_kind(initiator, crit_range, cat_range)
    if transfer:
        # Responder crit -> initiator catastrophe, responder catastrophe -> initiator crit;
        # opposite pulls cancel (the margin decides), equal ones stand.
        kind = np.sign(kind - natural_kind(responder, crit_range, cat_range))
    margin = initiator + skill - responder - opposing_skill
    won = (margin > 0) | ((margin == 0) & ties_initiator)
    return classify(kind, margin, major_margin, won)


NATURALS = np.arange(1, 21)


def challenge_classes(
    spec: CritsCatsSpec, totals_against: np.ndarray | int, naturals: np.ndarray, bonus: int
) -> np.ndarray:
    """Classes of challenge rollers with ``naturals`` + ``bonus`` against ``totals_against``."""
    margin = naturals + bonus - totals_against
    return classify(
        natural_kind(naturals, spec.crit_range, spec.cat_range), margin, spec.major_margin, margin >= 0
    )


def kept_weights(roll: str) -> tuple[np.ndarray, int]:
    """Integer weights of the kept naturals 1..20 under roll mode ``roll`` and their
    total: P(natural) = weight / total, exactly (1 of 20 each for a normal roll;
    ``2d20kh1`` or ``2d20kl1`` in units of 1/400 otherwise).

    >>> w, total = kept_weights("advantage")
    >>> int(w[0]), int(w[19]), total
    (1, 39, 400)
    """
    total = 20 if roll == "normal" else 400
    return np.rint(natural_probs(roll) * total), total


def _class_probs(classes: np.ndarray, weights: np.ndarray, total: int) -> np.ndarray:
    """Class probabilities of equally shaped ``classes`` and integer ``weights`` summing to
    ``total``: integer sums, divided once (so a normal roll counts naturals as ever)."""
    counts = np.bincount(np.ravel(classes), weights=np.ravel(weights), minlength=len(LABELS))
    return counts * (1 / total)


def _combat(spec: CritsCatsSpec, probs: np.ndarray) -> tuple[Dist, Dist, float]:
    """Damage and backlash per attack, and P(the attacker ends down), from class probabilities."""
    o = k.Outcome
    roll = spec.damage_expr.dist().clip(lo=0)  # each damage roll floored at 0
    top = max(0, spec.damage_expr.max)
    hit = (roll - spec.protection).clip(lo=0)
    damage = Dist.mixture(
        [probs[o.SUCCESS], probs[o.MINOR_CRITICAL], probs[o.MAJOR_CRITICAL], probs[: o.SUCCESS].sum()],
        [hit, Dist.point(top), Dist.point(2 * top), Dist.point(0)],
    )
    back = spec.backlash_expr.dist().clip(lo=0)
    minor_hit = spec.minor_catastrophe_effect == "hit"
    p_minor_back = probs[o.MINOR_CATASTROPHE] if minor_hit else 0.0
    backlash = Dist.mixture(
        [probs[o.MAJOR_CATASTROPHE], p_minor_back, 1.0 - probs[o.MAJOR_CATASTROPHE] - p_minor_back],
        [back, (back - spec.attacker_protection).clip(lo=0), Dist.point(0)],
    )
    p_down = probs[o.MAJOR_CATASTROPHE] + (0.0 if minor_hit else probs[o.MINOR_CATASTROPHE])
    return damage, backlash, float(p_down)


def exact(spec: CritsCatsSpec) -> ExactResult:
    """Exact class probabilities, distributions and metrics (every pair of naturals)."""
    distributions: dict[str, Dist | None] = dict.fromkeys(DISTRIBUTIONS)
    metrics: dict[str, float | None] = dict.fromkeys(METRICS)
    if spec.mode == "versus":
        classes = versus_classes(
            NATURALS[:, None], NATURALS[None, :],  # every pair, [initiator, responder]
            skill=spec.skill, opposing_skill=spec.opposing_skill, crit_range=spec.crit_range,
            cat_range=spec.cat_range, transfer=spec.responder_naturals == "transfer",
            ties_initiator=spec.ties == "initiator", major_margin=spec.major_margin,
        )  # fmt: skip
        # the pairs of naturals weighted by the outer product of the two kept dice
        (w_init, t_init), (w_resp, t_resp) = kept_weights(spec.roll), kept_weights(spec.opposing_roll)
        probs = _class_probs(classes, np.outer(w_init, w_resp), t_init * t_resp)
        if spec.combat:
            damage, backlash, p_down = _combat(spec, probs)
            distributions.update(damage=damage, backlash=backlash)
            metrics.update(p_down=p_down, expected_damage=damage.mean, expected_backlash=backlash.mean)
    else:
        caster = challenge_classes(spec, spec.target, NATURALS, spec.skill)
        probs = _class_probs(caster, *kept_weights(spec.roll))
        if spec.mode == "spell":
            _spell(spec, caster, distributions, metrics)
            metrics["expected_cost_multiplier"] = float(np.dot(probs, COST_MULTIPLIER))
    return ExactResult(
        system=spec.system,
        params=spec.params(),
        labels=LABELS,
        probs=probs,
        distributions=distributions,
        metrics=metrics,
        value_labels={"resister": LABELS},
    )


def _spell(spec: CritsCatsSpec, caster: np.ndarray, distributions: dict, metrics: dict) -> None:
    """Resister results: conditionally independent given the caster's total, so each
    quantity is averaged over the caster's kept natural."""
    caster_totals = (NATURALS + spec.skill)[:, None]
    resister = challenge_classes(spec, caster_totals, NATURALS[None, :], spec.resistance)
    # q[c, j]: P(one resister gets class j | caster natural c + 1)
    w_res, t_res = kept_weights(spec.opposing_roll)
    q = np.stack([np.bincount(row, weights=w_res, minlength=len(LABELS)) / t_res for row in resister])
    distributions["resister"] = Dist(0, _over_caster(spec, q))
    cast = caster >= k.Outcome.SUCCESS
    metrics["p_affected"] = float(_over_caster(spec, cast * q[:, : k.Outcome.SUCCESS].sum(axis=1)))
    p_any = 1.0 - _over_caster(spec, (1.0 - q) ** spec.resisters)
    for j, lab in enumerate(LABELS):
        metrics[f"p_any_resister_{lab}"] = float(p_any[j])


def _over_caster(spec: CritsCatsSpec, values: np.ndarray) -> np.ndarray:
    """The mean of ``values`` (one row per caster natural 1..20) over the caster's kept
    natural: a plain mean for a normal roll, weighted by the kept die's law otherwise."""
    if spec.roll == "normal":
        return np.mean(values, axis=0)
    return np.average(values, axis=0, weights=natural_probs(spec.roll))


# -- the simulator ---------------------------------------------------------------------------
def kernel_args(spec: CritsCatsSpec) -> k.Args:
    """The kernel's arguments for ``spec``."""
    none = DiceExpr("0", (), 0)
    dmg_terms, dmg_const = (spec.damage_expr if spec.combat else none).encode()
    bl_terms, bl_const = (spec.backlash_expr if spec.combat else none).encode()
    args = k.Args(
        mode=MODES.index(spec.mode),
        roll=roll_code(spec.roll),
        opposing_roll=roll_code(spec.opposing_roll or "normal"),
        crit_lo=21 - spec.crit_range,
        cat_hi=spec.cat_range,
        skill=spec.skill,
        target=spec.target,
        opposing_skill=spec.opposing_skill or 0,
        transfer=spec.responder_naturals == "transfer",
        ties_initiator=spec.ties == "initiator",
        major_margin=spec.major_margin,
        combat=spec.combat,
        dmg_terms=dmg_terms,
        dmg_const=dmg_const,
        dmg_max=max(0, spec.damage_expr.max) if spec.combat else 0,
        protection=spec.protection,
        bl_terms=bl_terms,
        bl_const=bl_const,
        attacker_protection=spec.attacker_protection,
        minor_hit=spec.minor_catastrophe_effect == "hit",
        resisters=spec.resisters,
        resistance=spec.resistance or 0,
        **plan_fields("dmg", dmg_terms),
        **plan_fields("bl", bl_terms),
    )
    return simple_only(args)  # simple dice: the kernel compiles without the interpreter


def simulated_metrics(spec: CritsCatsSpec, tally: Tally) -> dict[str, float | None]:
    n = tally.trials
    metrics: dict[str, float | None] = dict.fromkeys(METRICS)
    c = tally.counters
    if spec.combat:
        metrics.update(
            p_down=c["down"] / n, expected_damage=c["damage_sum"] / n, expected_backlash=c["backlash_sum"] / n
        )
    elif spec.mode == "spell":
        metrics["expected_cost_multiplier"] = float(np.dot(tally.frequencies, COST_MULTIPLIER))
        # every resister is one draw of "one resister": all of them estimate p_affected
        metrics["p_affected"] = c["affected"] / (n * spec.resisters)
        for lab in LABELS:
            metrics[f"p_any_resister_{lab}"] = c[f"any_{lab}"] / n
    return metrics


SYSTEM = RuleSystem.of_kernel(
    "crits-cats",
    "Criticals and catastrophes",
    spec=CritsCatsSpec,
    exact=exact,
    kernel=k,
    args=kernel_args,
    metrics=simulated_metrics,
    polarity={
        "major_catastrophe": -2,
        "minor_catastrophe": -1,
        "failure": -1,
        "success": 1,
        "minor_critical": 2,
        "major_critical": 2,
    },
    fights="mode versus with damage",
    fight_mode="versus",
)
simulate = SYSTEM.simulate
