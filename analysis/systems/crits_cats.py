"""``crits-cats``: criticals and catastrophes (RULES.md; seed 000_23b9bd0385f03b9f.txt).

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

Readings where RULES.md leaves room (each documented where it acts):

- A major catastrophe's hit "that ignores protection" deals one ``backlash_damage`` roll
  (floored at 0) with nothing subtracted; a minor catastrophe's ``hit`` subtracts
  ``attacker_protection``. Both protections are non-negative (0..1000).
- Resisters roll whatever the caster achieved (the seed: "regardless of whatever result
  the caster achieved"), so ``p_any_resister_<class>`` counts casts that failed too.
- Distribution ``resister`` has the class index (0..5, in :data:`LABELS` order) as its
  value; the simulator tallies the first resister of each cast into it.

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
import pandas as pd

from critlab.analysis.dist import Dist
from critlab.analysis.notation import DiceExpr
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.spec import Spec, SpecError, check_choice, check_dice, check_int
from critlab.analysis.systems.base import BenchCase, RuleSystem, hist_ranges, simulate_tally, simulating
from critlab.analysis.tally import Layout
from critlab.kernels import crits_cats as k

LABELS = ("major_catastrophe", "minor_catastrophe", "failure", "success", "minor_critical", "major_critical")
MODES = ("versus", "challenge", "spell")
# Casting cost relative to the spell's normal cost, by the caster's class (in LABELS order).
COST_MULTIPLIER = (2.0, 1.5, 1.0, 1.0, 0.5, 0.0)
COMBAT_PARAMS = frozenset(
    {"damage", "protection", "backlash_damage", "attacker_protection", "minor_catastrophe_effect"}
)
VERSUS_PARAMS = frozenset({"opposing_skill", "responder_naturals", "ties"}) | COMBAT_PARAMS
SPELL_PARAMS = frozenset({"resisters", "resistance"})
METRICS = (
    "p_down",
    "expected_damage",
    "expected_backlash",
    "expected_cost_multiplier",
    "p_affected",
    *(f"p_any_resister_{lab}" for lab in LABELS),
)
DISTRIBUTIONS = ("damage", "backlash", "resister")


@dataclass(frozen=True, kw_only=True)
class CritsCatsSpec(Spec):
    """A d20 + skill roll with criticals and catastrophes, alone, opposed, or as a spell.

    Parameters
    ----------
    mode
        ``versus`` (initiator against responder), ``challenge`` (against ``target``) or
        ``spell`` (a caster's challenge, then each resister against the caster's total).
    crit_range, cat_range
        Naturals ``>= 21 - crit_range`` are criticals, ``<= cat_range`` catastrophes
        (each 0..20, together at most 20).
    skill
        The initiator's, roller's or caster's skill (required).
    target
        The total a challenge or a casting must reach (margin = total − target).
    opposing_skill
        The responder's skill (required in ``versus``).
    responder_naturals
        ``transfer``: the responder's crit is the initiator's catastrophe and its
        catastrophe the initiator's crit; ``ignore``: the responder's natural is ordinary.
    ties
        Who wins a versus tie without a critical or catastrophe: ``responder`` or ``initiator``.
    major_margin
        How far the margin must go for a critical (or catastrophe) to be major.
    damage
        The attack's damage dice (``versus`` only; none: no combat). Must not explode.
    protection
        The defender's protection, subtracted from a normal hit (>= 0).
    backlash_damage
        The defender's damage dice on a catastrophe's hit back (none: same as ``damage``).
    attacker_protection
        The attacker's protection against a minor catastrophe's hit back (>= 0).
    minor_catastrophe_effect
        ``down`` (the attacker goes down) or ``hit`` (the defender hits the attacker).
    resisters
        How many resist the spell (1..100).
    resistance
        Each resister's skill (required in ``spell``).
    """

    system = "crits-cats"
    mode: Literal["versus", "challenge", "spell"] = "versus"
    crit_range: int = 1
    cat_range: int = 1
    skill: int | None = None
    target: int = 21
    opposing_skill: int | None = None
    responder_naturals: Literal["transfer", "ignore"] = "transfer"
    ties: Literal["responder", "initiator"] = "responder"
    major_margin: int = 20
    damage: str | None = None
    protection: int = 0
    backlash_damage: str | None = None
    attacker_protection: int = 0
    minor_catastrophe_effect: Literal["down", "hit"] = "down"
    resisters: int = 1
    resistance: int | None = None

    def validate(self) -> None:
        check_choice("mode", self.mode, MODES)
        check_int("crit_range", self.crit_range, 0, 20)
        check_int("cat_range", self.cat_range, 0, 20)
        if self.crit_range + self.cat_range > 20:
            raise SpecError(
                "cat_range",
                self.cat_range,
                f"crit_range + cat_range must be at most 20 (crit_range is {self.crit_range})",
            )
        check_int("skill", self.skill)
        check_int("target", self.target)
        check_int("major_margin", self.major_margin)
        check_choice("responder_naturals", self.responder_naturals, ("transfer", "ignore"))
        check_choice("ties", self.ties, ("responder", "initiator"))
        check_int("protection", self.protection, 0)
        check_int("attacker_protection", self.attacker_protection, 0)
        check_choice("minor_catastrophe_effect", self.minor_catastrophe_effect, ("down", "hit"))
        check_int("resisters", self.resisters, 1, 100)
        check_dice("damage", self.damage, allow_none=True, allow_explode=False)
        check_dice("backlash_damage", self.backlash_damage, allow_none=True)
        if self.mode == "versus" or self.opposing_skill is not None:
            check_int("opposing_skill", self.opposing_skill)
        if self.mode == "spell" or self.resistance is not None:
            check_int("resistance", self.resistance)

    def unused(self) -> frozenset[str]:
        if self.mode == "challenge":
            return VERSUS_PARAMS | SPELL_PARAMS
        if self.mode == "spell":
            return VERSUS_PARAMS
        return SPELL_PARAMS | {"target"} | (COMBAT_PARAMS if self.damage is None else frozenset())

    def params(self) -> dict[str, Any]:
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


# -- the rules, vectorised (shared by the exact engine and the NumPy benchmark) ---------------
def natural_kind(naturals: np.ndarray, crit_range: int, cat_range: int) -> np.ndarray:
    """+1 for a natural in the crit range, −1 in the catastrophe range, else 0.

    >>> natural_kind(np.arange(1, 21), 2, 3).tolist()[:4], natural_kind(np.array([18, 19, 20]), 2, 3).tolist()
    ([-1, -1, -1, 0], [0, 1, 1])
    """
    n = np.asarray(naturals)
    return np.where(n >= 21 - crit_range, 1, np.where(n <= cat_range, -1, 0))


def classify(kind: np.ndarray, margin: np.ndarray, major_margin: int, succeeded: np.ndarray) -> np.ndarray:
    """Class indices (into :data:`LABELS`): a critical or catastrophe by ``kind``, major
    when the margin reaches ``major_margin`` its way, else success or failure.

    >>> classify(np.array([1, 1, -1, 0]), np.array([20, 19, -20, 0]), 20, np.array([0, 0, 0, 1])).tolist()
    [5, 4, 0, 3]
    """
    return np.where(
        kind > 0,
        np.where(margin >= major_margin, k.MAJOR_CRITICAL, k.MINOR_CRITICAL),
        np.where(
            kind < 0,
            np.where(-margin >= major_margin, k.MAJOR_CATASTROPHE, k.MINOR_CATASTROPHE),
            np.where(succeeded, k.SUCCESS, k.FAILURE),
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


_NATURALS = np.arange(1, 21)


def _challenge_classes(spec: CritsCatsSpec, totals_against: np.ndarray, naturals: np.ndarray, bonus: int):
    """Classes of challenge rollers with ``naturals`` + ``bonus`` against ``totals_against``."""
    margin = naturals + bonus - totals_against
    return classify(
        natural_kind(naturals, spec.crit_range, spec.cat_range), margin, spec.major_margin, margin >= 0
    )


def _class_probs(classes: np.ndarray, weight: float) -> np.ndarray:
    return np.bincount(np.ravel(classes), minlength=len(LABELS)) * weight


def _combat(spec: CritsCatsSpec, probs: np.ndarray) -> tuple[Dist, Dist, float]:
    """Damage and backlash per attack, and P(the attacker ends down), from class probabilities."""
    roll = spec.damage_expr.dist().clip(lo=0)  # each damage roll floored at 0
    top = max(0, spec.damage_expr.max)
    hit = (roll - spec.protection).clip(lo=0)
    damage = Dist.mixture(
        [probs[k.SUCCESS], probs[k.MINOR_CRITICAL], probs[k.MAJOR_CRITICAL], probs[: k.SUCCESS].sum()],
        [hit, Dist.point(top), Dist.point(2 * top), Dist.point(0)],
    )
    back = spec.backlash_expr.dist().clip(lo=0)
    minor_hit = spec.minor_catastrophe_effect == "hit"
    p_minor_back = probs[k.MINOR_CATASTROPHE] if minor_hit else 0.0
    backlash = Dist.mixture(
        [probs[k.MAJOR_CATASTROPHE], p_minor_back, 1.0 - probs[k.MAJOR_CATASTROPHE] - p_minor_back],
        [back, (back - spec.attacker_protection).clip(lo=0), Dist.point(0)],
    )
    p_down = probs[k.MAJOR_CATASTROPHE] + (0.0 if minor_hit else probs[k.MINOR_CATASTROPHE])
    return damage, backlash, float(p_down)


def exact(spec: CritsCatsSpec) -> ExactResult:
    """Exact class probabilities, distributions and metrics (every pair of naturals)."""
    distributions: dict[str, Dist | None] = dict.fromkeys(DISTRIBUTIONS)
    metrics: dict[str, float | None] = dict.fromkeys(METRICS)
    if spec.mode == "versus":
        init, resp = np.meshgrid(_NATURALS, _NATURALS, indexing="ij")
        classes = versus_classes(
            init, resp, skill=spec.skill, opposing_skill=spec.opposing_skill, crit_range=spec.crit_range,
            cat_range=spec.cat_range, transfer=spec.responder_naturals == "transfer",
            ties_initiator=spec.ties == "initiator", major_margin=spec.major_margin,
        )  # fmt: skip
        probs = _class_probs(classes, 1 / 400)
        if spec.combat:
            damage, backlash, p_down = _combat(spec, probs)
            distributions.update(damage=damage, backlash=backlash)
            metrics.update(p_down=p_down, expected_damage=damage.mean, expected_backlash=backlash.mean)
    else:
        caster = _challenge_classes(spec, spec.target, _NATURALS, spec.skill)
        probs = _class_probs(caster, 1 / 20)
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
    )


def _spell(spec: CritsCatsSpec, caster: np.ndarray, distributions: dict, metrics: dict) -> None:
    """Resister results: conditionally independent given the caster's total, so each
    quantity is averaged over the caster's 20 naturals."""
    caster_totals = (_NATURALS + spec.skill)[:, None]
    resister = _challenge_classes(spec, caster_totals, _NATURALS[None, :], spec.resistance)
    # q[c, j]: P(one resister gets class j | caster natural c + 1)
    q = np.stack([np.bincount(row, minlength=len(LABELS)) / 20 for row in resister])
    distributions["resister"] = Dist(0, q.mean(axis=0))
    cast = caster >= k.SUCCESS
    metrics["p_affected"] = float(np.mean(cast * q[:, : k.SUCCESS].sum(axis=1)))
    p_any = 1.0 - np.mean((1.0 - q) ** spec.resisters, axis=0)
    for j, lab in enumerate(LABELS):
        metrics[f"p_any_resister_{lab}"] = float(p_any[j])


def simulate(
    spec: CritsCatsSpec,
    *,
    trials: int,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
) -> SimResult:
    """Simulate ``trials`` challenges, attacks or casts die by die (see :mod:`critlab.kernels.crits_cats`);
    ``client`` (a Dask client) runs the same blocks on a cluster."""
    ex = exact(spec)
    if spec.combat:
        layout = Layout(
            LABELS, hist_ranges(ex, ("damage", "backlash")), ("damage_sum", "backlash_sum", "down")
        )
    elif spec.mode == "spell":
        layout = Layout(
            LABELS, hist_ranges(ex, ("resister",)), (*(f"any_{lab}" for lab in LABELS), "affected")
        )
    else:
        layout = Layout(LABELS)
    lay = layout.array
    dmg_terms, dmg_const = (spec.damage_expr if spec.combat else DiceExpr("0", (), 0)).encode()
    bl_terms, bl_const = (spec.backlash_expr if spec.combat else DiceExpr("0", (), 0)).encode()
    dmg_max = max(0, spec.damage_expr.max) if spec.combat else 0
    args = (
        MODES.index(spec.mode), 21 - spec.crit_range, spec.cat_range, spec.skill, spec.target,
        spec.opposing_skill or 0, spec.responder_naturals == "transfer", spec.ties == "initiator",
        spec.major_margin, spec.combat, dmg_terms, dmg_const, dmg_max, spec.protection,
        bl_terms, bl_const, spec.attacker_protection, spec.minor_catastrophe_effect == "hit",
        spec.resisters, spec.resistance or 0,
    )  # fmt: skip

    def block(state: np.ndarray, n: int, out: np.ndarray) -> None:
        k.block(state, n, out, lay, *args)

    tally = simulate_tally(
        layout,
        block,
        trials=trials,
        seed=seed,
        threads=threads,
        progress=progress,
        desc="crits-cats",
        client=client,
    )
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
    return SimResult.of(ex, tally, metrics)


# -- design questions: tables ---------------------------------------------------------------
EXTREMES = ("major_catastrophe", "minor_catastrophe", "minor_critical", "major_critical")


def _outcome_table(df: pd.DataFrame, index: str) -> pd.DataFrame:
    table = df[df.kind == "outcome"].pivot(index=index, columns="name", values="exact")[list(LABELS)]
    table["major"] = table["major_catastrophe"] + table["major_critical"]
    table["extreme"] = table[list(EXTREMES)].sum(axis=1)
    table.columns.name = None
    return table


def extremes_by_skill_difference(spec: CritsCatsSpec, differences=range(-20, 21)) -> pd.DataFrame:
    """Versus class probabilities against skill − opposing_skill (exact), with the
    ``major`` and ``extreme`` (any critical or catastrophe) shares; one row per difference.

    A spec in another mode is read as a versus challenge against an equal opponent's skill.

    >>> t = extremes_by_skill_difference(CritsCatsSpec(skill=0, opposing_skill=0), [-3, 0, 3])
    >>> (t["major"] * 400).round(6).tolist()
    [5.0, 0.0, 5.0]
    """
    from critlab.analysis.sweep import sweep

    base = _as_versus(spec)
    df = sweep(base, skill=[base.opposing_skill + d for d in differences])
    df["skill_difference"] = df["skill"] - base.opposing_skill
    return _outcome_table(df, "skill_difference")


def majors_become_common(
    spec: CritsCatsSpec, threshold: float = 0.01, max_difference: int = 40
) -> int | None:
    """The smallest |skill difference| at which P(major critical or catastrophe) in a
    versus challenge exceeds ``threshold`` (either side ahead); None if none up to
    ``max_difference``.

    >>> majors_become_common(CritsCatsSpec(skill=0, opposing_skill=0))   # 5/400 at ±3
    3
    """
    table = extremes_by_skill_difference(spec, range(-max_difference, max_difference + 1))
    common = table.index[table["major"] > threshold]
    return int(np.abs(common).min()) if len(common) else None


def extremes_by_skill(spec: CritsCatsSpec, skills=None) -> pd.DataFrame:
    """21 Challenge class probabilities against skill (exact), one row per skill; by
    default skills from ``target − 31`` to ``target + 19`` (majors need a 20-point margin).

    >>> t = extremes_by_skill(CritsCatsSpec(mode="challenge", skill=0), [0, 10, 21])
    >>> t.loc[[0, 21], ["major_catastrophe", "major_critical"]].to_numpy().tolist()
    [[0.05, 0.0], [0.0, 0.05]]
    """
    from critlab.analysis.sweep import sweep

    base = spec.replace(mode="challenge")
    if skills is None:
        skills = range(base.target - 31, base.target + 20)
    return _outcome_table(sweep(base, skill=list(skills)), "skill")


def cost_by_skill(spec: CritsCatsSpec, skills=range(-5, 31)) -> pd.DataFrame:
    """Expected casting-cost multiplier and the caster's class probabilities against
    casting skill (exact), one row per skill.

    >>> t = cost_by_skill(CritsCatsSpec(mode="spell", skill=10, resistance=10), [10, 21])
    >>> t["cost"].round(4).tolist()     # 1.5 and 0.5 balance; at 21 a natural 20 is a major
    [1.0, 0.975]
    """
    from critlab.analysis.sweep import sweep

    base = _as_spell(spec)
    df = sweep(base, skill=list(skills))
    table = _outcome_table(df, "skill")
    metric = df[(df.kind == "metric") & (df.name == "expected_cost_multiplier")].set_index("skill")["exact"]
    table["cost"] = metric
    return table


def resisters_table(spec: CritsCatsSpec, resisters=range(1, 7)) -> pd.DataFrame:
    """P(at least one resister gets each class) against the number of resisters (exact):
    the seed's Fireball, cast into a crowd. One row per count, one column per class,
    plus ``p_affected`` (one resister).

    >>> t = resisters_table(CritsCatsSpec(mode="spell", skill=10, resistance=10), [1, 6])
    >>> round(float(t.loc[6, "minor_critical"]), 4)    # 1 - (19/20)**6: some resister rolls a 20
    0.2649
    """
    from critlab.analysis.sweep import sweep

    df = sweep(_as_spell(spec), resisters=list(resisters))
    m = df[df.kind == "metric"].pivot(index="resisters", columns="name", values="exact")
    table = m[[f"p_any_resister_{lab}" for lab in LABELS] + ["p_affected"]]
    table.columns = [*LABELS, "p_affected"]
    return table


def caster_resister_table(spec: CritsCatsSpec) -> pd.DataFrame:
    """Joint probabilities of the caster's class (rows) and one resister's class
    (columns), exact: the seed's point that both results stand independently.

    >>> t = caster_resister_table(CritsCatsSpec(mode="spell", skill=10, resistance=10))
    >>> float(t.loc["minor_critical", "minor_critical"] * 400)   # both roll a natural 20
    1.0
    """
    base = _as_spell(spec)
    caster = _challenge_classes(base, base.target, _NATURALS, base.skill)
    resister = _challenge_classes(
        base, (_NATURALS + base.skill)[:, None], _NATURALS[None, :], base.resistance
    )
    joint = np.zeros((len(LABELS), len(LABELS)))
    np.add.at(joint, (np.broadcast_to(caster[:, None], resister.shape), resister), 1 / 400)
    return pd.DataFrame(
        joint, index=pd.Index(LABELS, name="caster"), columns=pd.Index(LABELS, name="resister")
    )


def combat_table(spec: CritsCatsSpec) -> pd.DataFrame:
    """Damage and backlash distributions of one attack (exact), tidy: ``quantity``,
    ``value``, ``probability``; needs ``damage`` dice.

    >>> t = combat_table(CritsCatsSpec(skill=0, opposing_skill=0, damage="1d6"))
    >>> t[(t.quantity == "damage") & (t.value == 6)].probability.round(5).tolist()   # a 6, or a minor crit
    [0.15625]
    """
    r = exact(_as_combat(spec))
    rows = [
        (name, v, p)
        for name in ("damage", "backlash")
        for v, p in r.distributions[name].to_dict(tail=True).items()
    ]
    return pd.DataFrame(rows, columns=["quantity", "value", "probability"])


def _as_versus(spec: CritsCatsSpec) -> CritsCatsSpec:
    opp = spec.skill if spec.opposing_skill is None else spec.opposing_skill
    return spec.replace(mode="versus", opposing_skill=opp)


def _as_spell(spec: CritsCatsSpec) -> CritsCatsSpec:
    res = spec.skill if spec.resistance is None else spec.resistance
    return spec.replace(mode="spell", resistance=res)


def _as_combat(spec: CritsCatsSpec) -> CritsCatsSpec:
    base = _as_versus(spec)
    if base.damage is None:
        raise SpecError("damage", None, "combat needs damage dice, e.g. 1d8")
    return base


# -- design questions: plots ----------------------------------------------------------------
def _axes(ax, ncols: int = 1, width: float = 6.5):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(1, ncols, figsize=(width, 4), constrained_layout=True)
        return fig, ax
    return (ax[0] if ncols > 1 else ax).figure, ax


def _plot_extremes(table: pd.DataFrame, ax, threshold: float | None = None) -> None:
    styles = {
        "major_catastrophe": "C3",
        "minor_catastrophe": "C1",
        "minor_critical": "C0",
        "major_critical": "C2",
    }
    for lab, color in styles.items():
        ls = "-" if lab.startswith("major") else "--"
        ax.plot(table.index, table[lab], ls=ls, color=color, marker=".", label=lab.replace("_", " "))
    if threshold is not None:
        ax.axhline(threshold, color="grey", lw=0.7, ls=":", label=f"{threshold:.0%}")
    ax.set_ylabel("probability")
    ax.legend(fontsize="small")


def plot_versus_extremes(
    spec: CritsCatsSpec, *, differences=range(-20, 21), threshold: float = 0.01, ax=None
):
    """P(minor / major critical / catastrophe) against skill difference in a Versus
    Challenge (exact), with where majors first exceed ``threshold``."""
    fig, ax = _axes(ax)
    table = extremes_by_skill_difference(spec, differences)
    _plot_extremes(table, ax, threshold)
    common = majors_become_common(spec, threshold, max(abs(d) for d in differences))
    where = "never" if common is None else f"from |difference| {common}"
    ax.set(
        xlabel="skill − opposing skill",
        title=f"Versus: crits and cats by mismatch; majors > {threshold:.0%} {where} (exact)",
    )
    return fig


def plot_challenge_extremes(spec: CritsCatsSpec, *, skills=None, ax=None):
    """P(minor / major critical / catastrophe) against skill in a 21 Challenge (exact)."""
    fig, ax = _axes(ax)
    table = extremes_by_skill(spec, skills)
    _plot_extremes(table, ax)
    ax.set(xlabel="skill", title=f"21 Challenge (target {spec.target}): crits and cats by skill (exact)")
    return fig


def plot_casting_cost(spec: CritsCatsSpec, *, skills=range(-5, 31), ax=None):
    """Expected casting-cost multiplier against casting skill (exact)."""
    fig, ax = _axes(ax)
    table = cost_by_skill(spec, skills)
    ax.plot(table.index, table["cost"], marker=".")
    ax.axhline(1.0, color="grey", lw=0.7, ls=":")
    ax.set(
        xlabel="casting skill",
        ylabel="expected casting-cost multiplier",
        title=f"Spell casting cost against skill, target {spec.target} (exact)",
    )
    return fig


def plot_resisters(spec: CritsCatsSpec, *, resisters=range(1, 7), ax=None):
    """P(at least one resister gets each class) against the number of resisters (exact)."""
    fig, ax = _axes(ax)
    table = resisters_table(spec, resisters)
    for lab in LABELS:
        # dashed catastrophes: at equal skill they coincide with the criticals
        ls = "--" if "catastrophe" in lab else "-"
        ax.plot(table.index, table[lab], marker="o", ls=ls, label=lab.replace("_", " "))
    base = _as_spell(spec)
    ax.set(
        xlabel="resisters",
        ylabel="P(at least one resister)",
        title=f"Resisting a spell: skill {base.skill} vs resistance {base.resistance} (exact)",
    )
    ax.legend(fontsize="small")
    return fig


def plot_combat(spec: CritsCatsSpec, *, ax=None):
    """Damage dealt and backlash taken per attack (exact), with their expectations."""
    fig, ax = _axes(ax, ncols=2, width=11)
    r = exact(_as_combat(spec))
    for a, name, color in ((ax[0], "damage", "C0"), (ax[1], "backlash", "C3")):
        d = r.distributions[name]
        a.bar(d.values, d.probs, color=color)
        a.set(
            xlabel=name,
            ylabel="probability per attack",
            title=f"{name}: mean {d.mean:.3f} (exact)",
        )
    fig.suptitle(f"Attack {r.params['damage']} vs protection {r.params['protection']} (exact)")
    return fig


# -- benchmark ------------------------------------------------------------------------------
BENCH_SPEC = dict(skill=5, opposing_skill=2)


def _numpy_versus(trials: int, chunk: int = 1 << 20, seed: int = 0) -> np.ndarray:
    """An idiomatic vectorised NumPy version of the same versus challenge: class counts."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(LABELS), dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        initiator = rng.integers(1, 21, n)
        responder = rng.integers(1, 21, n)
        counts += np.bincount(versus_classes(initiator, responder, **BENCH_SPEC), minlength=len(LABELS))
    return counts


def _icepool_versus() -> object:
    """The same versus challenge's class distribution in icepool (the exact-engine ratio)."""
    import icepool

    def kind(natural: int) -> int:
        return 1 if natural == 20 else (-1 if natural == 1 else 0)

    def initiator_class(initiator: int, responder: int) -> int:
        pull = kind(initiator) - kind(responder)
        margin = initiator + BENCH_SPEC["skill"] - responder - BENCH_SPEC["opposing_skill"]
        if pull > 0:
            return k.MAJOR_CRITICAL if margin >= 20 else k.MINOR_CRITICAL
        if pull < 0:
            return k.MAJOR_CATASTROPHE if -margin >= 20 else k.MINOR_CATASTROPHE
        return k.SUCCESS if margin > 0 else k.FAILURE

    return icepool.map(initiator_class, icepool.d20, icepool.d20).probabilities()


def bench_cases() -> list[BenchCase]:
    spec = CritsCatsSpec(**BENCH_SPEC)
    return [
        BenchCase(
            name="crits-cats versus (skill 5 vs 2)",
            critlab=simulating(simulate, spec),
            numpy=_numpy_versus,
            exact=lambda: exact(spec),
            icepool=_icepool_versus,
        )
    ]


SYSTEM = RuleSystem(
    name="crits-cats",
    title="Criticals and catastrophes",
    spec=CritsCatsSpec,
    exact=exact,
    legacy_simulate=simulate,
    legacy_plots={
        "versus_extremes": plot_versus_extremes,
        "challenge_extremes": plot_challenge_extremes,
        "casting_cost": plot_casting_cost,
        "resisters": plot_resisters,
        "combat": plot_combat,
    },
    legacy_bench=bench_cases,
)
