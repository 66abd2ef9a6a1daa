"""``crit-range``: CRIT and CRITFAIL ranges on a d20 (RULES.md; seed 001_cad0bd1b00dfae4f.txt).

A d20 natural at or below ``critfail_range`` is a ``critfail`` (an automatic miss that
costs the weapon 1 Condition); at or above 21 − ``crit_range`` a ``crit`` (an automatic
hit plus the ``crit_dice``, which always explode); otherwise natural + ``attack_bonus``
>= ``evasion`` is a ``hit``, else a ``miss``. Damage is the ``damage`` roll less ``dt``
(floored at 0); the CRIT dice are added after DT and the sum is reduced by ``dr``,
rounding down exactly. In ``test`` mode, d20 + ``bonus`` against ``difficulty`` gives
``critfail``, ``failure``, ``success`` or ``crit``, with no damage.

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
import pandas as pd
from scipy import stats

from critlab.analysis.dist import TAIL_EPS, Dist
from critlab.analysis.notation import KEEP_ALL, DiceExpr
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.spec import Spec, SpecError, check_choice, check_dice, check_fraction, check_int
from critlab.analysis.systems.base import BenchCase, RuleSystem, hist_ranges, simulate_tally, simulating
from critlab.analysis.tally import Layout
from critlab.kernels import crit_range as k

ATTACK_LABELS = ("critfail", "miss", "hit", "crit")
TEST_LABELS = ("critfail", "failure", "success", "crit")
MODES = ("attack", "test")
ATTACK_ONLY = ("attack_bonus", "evasion", "crit_dice", "damage", "dt", "dr", "condition")
TEST_ONLY = ("bonus", "difficulty")
# DR's exact denominator must stay below 2**61 for the kernel's overflow-free floor.
MAX_DR_DENOMINATOR = 10**18
INT64_MAX = 2**63 - 1


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
    mode: Literal["attack", "test"] = "attack"
    attack_bonus: int | None = None
    evasion: int | None = None
    crit_range: int = 1
    critfail_range: int = 1
    crit_dice: str = "1d6"
    damage: str = "1d10"
    dt: int = 0
    dr: float = 0.0
    condition: int = 10
    bonus: int | None = None
    difficulty: int | None = None

    def validate(self) -> None:
        check_choice("mode", self.mode, MODES)
        r = check_int("crit_range", self.crit_range, 0, 20)
        f = check_int("critfail_range", self.critfail_range, 0, 20)
        if r + f > 20:
            raise SpecError(
                "crit_range", r, f"crit_range + critfail_range must be at most 20 (critfail_range = {f})"
            )
        attack = self.mode == "attack"
        # A required parameter is checked where its mode uses it; a value given to the
        # other mode is still checked, so a typo never passes silently.
        for name in ("attack_bonus", "evasion"):
            if attack or getattr(self, name) is not None:
                check_int(name, getattr(self, name))
        for name in ("bonus", "difficulty"):
            if not attack or getattr(self, name) is not None:
                check_int(name, getattr(self, name))
        check_int("dt", self.dt, 0, 1000)
        check_int("condition", self.condition, 1, 1000)
        check_dice("damage", self.damage)
        exploding_crit_dice(self.crit_dice)
        dr = check_fraction("dr", self.dr, Fraction(0), Fraction(1), hi_open=True)
        if dr.denominator > MAX_DR_DENOMINATOR:
            raise SpecError("dr", self.dr, "must be a number with 0 <= dr < 1 and at most 18 decimal places")

    def unused(self) -> frozenset[str]:
        return frozenset(TEST_ONLY if self.mode == "attack" else ATTACK_ONLY)

    @property
    def damage_expr(self) -> DiceExpr:
        return check_dice("damage", self.damage)

    @property
    def crit_dice_expr(self) -> DiceExpr:
        """``crit_dice`` with every die exploding (RULES.md: ``!`` or not)."""
        return exploding_crit_dice(self.crit_dice)

    @property
    def dr_fraction(self) -> Fraction:
        """``dr`` read as an exact decimal (0.8 is 4/5)."""
        return check_fraction("dr", self.dr, Fraction(0), Fraction(1), hi_open=True)

    @property
    def p_crit(self) -> Fraction:
        return Fraction(self.crit_range, 20)

    @property
    def p_critfail(self) -> Fraction:
        return Fraction(self.critfail_range, 20)


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
    parts = [f"{t.count}d{t.sides}!" for t in terms]
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
    p = float(p_critfail)
    # failures (non-critfail attacks) before the condition-th critfail
    last = int(stats.nbinom.isf(TAIL_EPS, condition, p)) + 1
    while stats.nbinom.sf(last, condition, p) >= TAIL_EPS:
        last *= 2
    failures = np.arange(last + 1)
    return Dist(
        condition, stats.nbinom.pmf(failures, condition, p), float(stats.nbinom.sf(last, condition, p))
    )


def _naturals(spec: CritRangeSpec) -> tuple[int, int, int, int]:
    """How many of the 20 naturals give each label, in label order."""
    r, f = spec.crit_range, spec.critfail_range
    if spec.mode == "attack":
        need = spec.evasion - spec.attack_bonus
    else:
        need = spec.difficulty - spec.bonus
    ordinary_lo, ordinary_hi = f + 1, 20 - r
    succeed = max(0, ordinary_hi - max(ordinary_lo, need) + 1)
    fail = (ordinary_hi - ordinary_lo + 1) - succeed
    return f, fail, succeed, r


def exact(spec: CritRangeSpec) -> ExactResult:
    """Exact outcome probabilities; per-attack ``damage`` and ``crit_bonus`` and the
    weapon's ``attacks_to_break``; ``expected_damage``, ``mean_attacks_to_break``,
    ``p_crit`` and ``p_critfail`` (damage and wear are null in test mode, wear also when
    critfail_range is 0)."""
    counts = _naturals(spec)
    probs = np.array([c / 20 for c in counts])
    distributions: dict[str, Dist | None] = {"damage": None, "crit_bonus": None, "attacks_to_break": None}
    metrics: dict[str, float | None] = {
        "expected_damage": None,
        "mean_attacks_to_break": None,
        "p_crit": float(spec.p_crit),
        "p_critfail": float(spec.p_critfail),
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
            distributions["attacks_to_break"] = attacks_to_break(spec.condition, spec.p_critfail)
            metrics["mean_attacks_to_break"] = float(spec.condition / spec.p_critfail)
    return ExactResult(
        system=spec.system,
        params=spec.params(),
        labels=labels(spec),
        probs=probs,
        distributions=distributions,
        metrics=metrics,
    )


def simulate(
    spec: CritRangeSpec,
    *,
    trials: int,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
) -> SimResult:
    """Simulate ``trials`` attacks (or tests) die by die (see :mod:`critlab.kernels.crit_range`).

    The per-attack distributions ``damage`` and ``crit_bonus`` are tallied; the weapon's
    ``attacks_to_break`` spans many attacks, so it is not tallied per attack, and
    ``mean_attacks_to_break`` is estimated as condition / (observed CRITFAIL frequency)
    (null when no CRITFAIL was observed). ``client`` (a Dask client) runs the same
    blocks on a cluster.
    """
    ex = exact(spec)
    attack = spec.mode == "attack"
    hists = hist_ranges(ex, ("damage", "crit_bonus")) if attack else {}
    layout = Layout(labels(spec), hists, counters=("damage_sum",))
    lay = layout.array
    dmg_terms, dmg_const = spec.damage_expr.encode()
    crit_terms, crit_const = spec.crit_dice_expr.encode()
    keep = 1 - spec.dr_fraction
    x_max = INT64_MAX // max(1, keep.numerator)
    if attack:
        bonus, target = spec.attack_bonus, spec.evasion
    else:
        bonus, target = spec.bonus, spec.difficulty

    def block(state: np.ndarray, n: int, out: np.ndarray) -> None:
        k.block(
            state, n, out, lay, attack, bonus, target, 21 - spec.crit_range, spec.critfail_range,
            dmg_terms, dmg_const, crit_terms, crit_const, spec.dt, keep.numerator, keep.denominator, x_max,
        )  # fmt: skip

    tally = simulate_tally(
        layout,
        block,
        trials=trials,
        seed=seed,
        threads=threads,
        progress=progress,
        desc="crit-range",
        client=client,
    )
    freq = dict(zip(tally.labels, tally.frequencies, strict=True))
    metrics: dict[str, float | None] = {
        "expected_damage": tally.counters["damage_sum"] / tally.trials if attack else None,
        "mean_attacks_to_break": None,
        "p_crit": float(freq["crit"]),
        "p_critfail": float(freq["critfail"]),
    }
    if attack and spec.critfail_range > 0 and freq["critfail"] > 0:
        metrics["mean_attacks_to_break"] = spec.condition / float(freq["critfail"])
    return SimResult.of(ex, tally, metrics)


# -- design questions ------------------------------------------------------------------
def _require_attack(spec: CritRangeSpec) -> None:
    if spec.mode != "attack":
        raise SpecError("mode", spec.mode, "damage plots need mode attack")


def _heatmap_grid(spec: CritRangeSpec, crit_ranges, evasions) -> pd.DataFrame:
    from critlab.analysis.sweep import sweep

    _require_attack(spec)
    return sweep(spec, crit_range=list(crit_ranges), evasion=list(evasions))


def _pivot(grid: pd.DataFrame, quantity: str) -> pd.DataFrame:
    rows = grid[grid.name == quantity]
    if rows.empty:
        raise SpecError("quantity", quantity, "must be a metric or an outcome label of crit-range")
    return rows.pivot(index="crit_range", columns="evasion", values="exact")


def heatmap_table(
    spec: CritRangeSpec,
    *,
    quantity: str = "expected_damage",
    crit_ranges=range(1, 6),
    evasions=range(5, 26),
) -> pd.DataFrame:
    """Exact ``quantity`` (a metric such as ``expected_damage`` or ``p_crit``, or an
    outcome label) by crit_range (rows) and evasion (columns) for ``spec``'s weapon.

    >>> t = heatmap_table(CritRangeSpec(attack_bonus=3, evasion=11), crit_ranges=[1, 2], evasions=[30])
    >>> t.round(4).to_dict()                       # only CRITs hit: 1d10 + 1d6!, 5.5 + 4.2
    {30: {1: 0.485, 2: 0.97}}
    """
    return _pivot(_heatmap_grid(spec, crit_ranges, evasions), quantity)


def plot_heatmap(spec: CritRangeSpec, *, crit_ranges=range(1, 6), evasions=range(5, 26), ax=None):
    """Heatmaps of expected damage and of P(hit or CRIT) by crit_range × evasion (exact);
    ``ax`` is a pair of axes (the CRIT rate itself is in :func:`heatmap_table`)."""
    import matplotlib.pyplot as plt

    grid = _heatmap_grid(spec, crit_ranges, evasions)
    if ax is None:
        fig, ax = plt.subplots(1, 2, figsize=(12, 3.8), constrained_layout=True)
    else:
        fig = ax[0].figure
    # The CRIT rate alone is crit_range / 20 at every evasion; what moves with evasion
    # is how much of the damage the CRITs bring, so the second panel shows P(hit or CRIT).
    panels = (
        (_pivot(grid, "expected_damage"), "expected damage per attack", "viridis"),
        (_pivot(grid, "hit") + _pivot(grid, "crit"), "P(hit or CRIT)", "magma"),
    )
    weapon = f"{spec.attack_bonus:+d}, {spec.damage} + {spec.crit_dice_expr}"
    for a, (t, what, cmap) in zip(ax, panels, strict=True):
        mesh = a.pcolormesh(t.columns, t.index, t.values, cmap=cmap, shading="nearest")
        fig.colorbar(mesh, ax=a, label=what)
        a.set_yticks(list(t.index))
        a.set(xlabel="evasion", ylabel="crit range", title=f"{what[0].upper()}{what[1:]}, {weapon} (exact)")
    return fig


def _inverse(bonuses: np.ndarray, damage: np.ndarray, target: float) -> float:
    """The least (linearly interpolated) bonus whose expected damage reaches ``target``
    on a non-decreasing curve; NaN when none does."""
    tol = 1e-12 * max(1.0, abs(target))
    if target > damage[-1] + tol:
        return float("nan")
    i = int(np.argmax(damage >= target - tol))
    if i == 0 or damage[i] - target <= tol:
        return float(bonuses[i])
    frac = (target - damage[i - 1]) / (damage[i] - damage[i - 1])
    return float(bonuses[i - 1] + frac * (bonuses[i] - bonuses[i - 1]))


def bonus_equivalent_table(spec: CritRangeSpec, *, crit_ranges=range(1, 6), evasions=None) -> pd.DataFrame:
    """How much CRIT range is worth in flat attack bonus (exact).

    For each evasion (default: ``spec``'s) and crit_range, ``equivalent_attack_bonus``
    is the attack bonus that gives the same expected damage at crit_range 1,
    interpolated linearly between whole bonuses (NaN where no flat bonus reaches it),
    and ``bonus_worth`` is that less the equivalent of ``spec``'s own attack bonus at
    crit_range 1 (the attack bonus itself wherever damage still rises with bonus).

    >>> t = bonus_equivalent_table(CritRangeSpec(attack_bonus=3, evasion=11), crit_ranges=[1, 2])
    >>> t.round(3)[["crit_range", "bonus_worth"]].values.tolist()
    [[1.0, 0.0], [2.0, 0.764]]
    """
    from critlab.analysis.sweep import sweep

    _require_attack(spec)
    evasions = [spec.evasion] if evasions is None else list(evasions)
    rows = []
    for ev in evasions:
        # crit_range 1's damage rises with bonus from "only CRITs hit" (need 20) to
        # "every non-CRITFAIL natural hits"; beyond either end it is flat.
        lo, hi = max(-1000, ev - 20), min(1000, max(ev - 20, ev - spec.critfail_range - 1))
        curve = sweep(spec.replace(crit_range=1, evasion=ev), attack_bonus=range(lo, hi + 1))
        curve = curve[curve.name == "expected_damage"]
        bonuses, damage = curve.attack_bonus.to_numpy(float), curve.exact.to_numpy()
        own = float(exact(spec.replace(crit_range=1, evasion=ev)).metrics["expected_damage"])
        reference = _inverse(bonuses, damage, own)
        at = sweep(spec.replace(evasion=ev), crit_range=list(crit_ranges))
        at = at[at.name == "expected_damage"]
        for r, target in zip(at.crit_range, at.exact, strict=True):
            equivalent = _inverse(bonuses, damage, float(target))
            rows.append(
                {
                    "evasion": ev,
                    "crit_range": int(r),
                    "expected_damage": float(target),
                    "equivalent_attack_bonus": equivalent,
                    "bonus_worth": equivalent - reference,
                }
            )
    return pd.DataFrame(rows)


def plot_bonus_equivalent(spec: CritRangeSpec, *, crit_ranges=range(1, 6), evasions=None, ax=None):
    """Flat attack bonus that each crit range is worth, one line per evasion (exact)."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    else:
        fig = ax.figure
    if evasions is None:
        evasions = [spec.evasion - 4, spec.evasion, spec.evasion + 4]
    t = bonus_equivalent_table(spec, crit_ranges=crit_ranges, evasions=evasions)
    weapon = spec.crit_dice_expr
    # Lines often coincide (the worth is the same wherever every step stays on the d20),
    # so each gets its own marker size and dash to stay visible.
    styles = [("o", 9, "-"), ("s", 6, "--"), ("^", 4, ":")]
    for i, (ev, part) in enumerate(t.groupby("evasion")):
        marker, size, dash = styles[i % len(styles)]
        ax.plot(part.crit_range, part.bonus_worth, marker=marker, ms=size, ls=dash, label=f"evasion {ev}")
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xticks(list(crit_ranges))
    ax.set(
        xlabel="crit range",
        ylabel="equivalent flat attack bonus at crit range 1",
        title=f"CRIT range as attack bonus, {spec.attack_bonus:+d}, {spec.damage} + {weapon} (exact)",
    )
    ax.legend()
    return fig


# -- benchmark -------------------------------------------------------------------------
BENCH_SPEC = dict(attack_bonus=3, evasion=11, crit_range=2)


def _numpy_attack(trials: int, chunk: int = 1 << 20, seed: int = 0) -> float:
    """An idiomatic vectorised NumPy version of the same attack (1d10, CRIT 1d6!)."""
    rng = np.random.default_rng(seed)
    total = 0
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        nat = rng.integers(1, 21, n)
        crit = nat >= 19
        hit = (nat > 1) & ~crit & (nat + 3 >= 11)
        dmg = rng.integers(1, 11, n)
        # CRIT dice: re-roll only the dice still showing a 6
        bonus = np.zeros(n, dtype=np.int64)
        rolling = np.flatnonzero(crit)
        while rolling.size:
            face = rng.integers(1, 7, rolling.size)
            bonus[rolling] += face
            rolling = rolling[face == 6]
        total += int(np.where(hit, dmg, 0).sum() + np.where(crit, dmg + bonus, 0).sum())
    return total / trials


def bench_cases() -> list[BenchCase]:
    spec = CritRangeSpec(**BENCH_SPEC)
    return [
        BenchCase(
            name="crit-range d20 attack (crit range 2, +3 vs 11)",
            critlab=simulating(simulate, spec),
            numpy=_numpy_attack,
        )
    ]


SYSTEM = RuleSystem(
    name="crit-range",
    title="CRIT and CRITFAIL ranges",
    spec=CritRangeSpec,
    exact=exact,
    legacy_simulate=simulate,
    legacy_plots={"heatmap": plot_heatmap, "bonus_equivalent": plot_bonus_equivalent},
    legacy_bench=bench_cases,
)
