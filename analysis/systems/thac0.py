"""``thac0``: AD&D criticals and fumbles (RULES.md; seed 004_dc1e9f3425f32a69.txt).

need = ``thac0`` − ``target_ac``; a roll hits iff natural + ``to_hit`` >= need. A
natural 1 is a fumble, unless it would have hit and a −20 reroll could hit: then that
reroll decides between ``fumble_reroll_hit`` (minimum damage) and ``fumble``. A natural
20 hits automatically when the shortfall s = need − (20 + to_hit) is at most 10, and
beyond that is ``natural20_reduced``: damage halved ceil((s − 10) / 5) times. A natural
at or above ``crit_threshold`` that hits by 5 or more is a ``critical_hit``.

>>> spec = Thac0Spec(thac0=16, target_ac=2)
>>> r = exact(spec)
>>> round(r.outcomes["critical_hit"], 4)    # the seed's example: 20 hits by 6
0.05
>>> r.params["severity_dice"] is None       # unused unless crit_option = severity
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from critlab.analysis.dist import Dist
from critlab.analysis.notation import DiceExpr
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.spec import Spec, SpecError, check_choice, check_dice, check_int
from critlab.analysis.systems.base import BenchCase, RuleSystem, hist_ranges, simulate_tally, simulating
from critlab.analysis.tally import Layout
from critlab.kernels import thac0 as k

LABELS = ("miss", "fumble", "fumble_reroll_hit", "hit", "natural20_reduced", "critical_hit")
CRIT_OPTIONS = ("double", "max", "severity")


@dataclass(frozen=True, kw_only=True)
class Thac0Spec(Spec):
    """An AD&D attack: THAC0 against AC, with fumbles, natural 20s and critical hits.

    Parameters
    ----------
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
    thac0: int | None = None
    target_ac: int | None = None
    to_hit: int = 0
    damage: str = "1d8"
    crit_threshold: int = 20
    crit_option: Literal["double", "max", "severity"] = "double"
    severity_dice: str = "2d6"
    fumble_without_reroll: Literal["fumble", "miss"] = "fumble"

    def validate(self) -> None:
        check_int("thac0", self.thac0)
        check_int("target_ac", self.target_ac)
        check_int("to_hit", self.to_hit)
        check_int("crit_threshold", self.crit_threshold, 2, 20)
        check_choice("crit_option", self.crit_option, CRIT_OPTIONS)
        check_choice("fumble_without_reroll", self.fumble_without_reroll, ("fumble", "miss"))
        dmg = check_dice("damage", self.damage, allow_explode=self.crit_option != "max")
        if dmg.min is None:
            raise SpecError("damage", self.damage, "needs a minimum (a fumble reroll hit deals it)")
        if self.crit_option == "severity":
            check_dice("severity_dice", self.severity_dice)

    def unused(self) -> frozenset[str]:
        return frozenset() if self.crit_option == "severity" else frozenset({"severity_dice"})

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

    for natural in range(1, 21):
        p = 1 / 20
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


def simulate(
    spec: Thac0Spec,
    *,
    trials: int,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
) -> SimResult:
    """Simulate ``trials`` attacks die by die (see :mod:`critlab.kernels.thac0`); ``client``
    (a Dask client) runs the same blocks on a cluster."""
    ex = exact(spec)
    hists = ("damage", "severity") if spec.crit_option == "severity" else ("damage",)
    layout = Layout(LABELS, hist_ranges(ex, hists), counters=("damage_sum",))
    lay = layout.array
    dmg_terms, dmg_const = spec.damage_expr.encode()
    sev_terms, sev_const = spec.severity_expr.encode()
    option = CRIT_OPTIONS.index(spec.crit_option)
    dmg_min = max(0, spec.damage_expr.min)
    dmg_max = max(0, spec.damage_expr.max or 0)

    def block(state: np.ndarray, n: int, out: np.ndarray) -> None:
        k.block(
            state, n, out, lay, spec.need, spec.to_hit, spec.crit_threshold,
            spec.fumble_without_reroll == "miss", option,
            dmg_terms, dmg_const, dmg_min, dmg_max, sev_terms, sev_const,
        )  # fmt: skip

    tally = simulate_tally(
        layout,
        block,
        trials=trials,
        seed=seed,
        threads=threads,
        progress=progress,
        desc="thac0",
        client=client,
    )
    metrics = {"expected_damage": tally.counters["damage_sum"] / tally.trials}
    return SimResult.of(ex, tally, metrics)


# -- plots ------------------------------------------------------------------------------
def plot_by_ac(spec: Thac0Spec, *, thac0_values=(20, 15, 10, 5), ac_range=range(-10, 11), ax=None):
    """Outcome shares and expected damage against target AC for a few THAC0 values (exact)."""
    import matplotlib.pyplot as plt
    from critlab.analysis.sweep import sweep

    df = sweep(spec, thac0=list(thac0_values), target_ac=list(ac_range))
    if ax is None:
        fig, ax = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    else:
        fig = ax[0].figure
    crit = df[(df.kind == "outcome") & (df.name == "critical_hit")]
    hitting = ["hit", "critical_hit", "fumble_reroll_hit", "natural20_reduced"]
    hit = df[(df.kind == "outcome") & df.name.isin(hitting)]
    dmg = df[(df.kind == "metric") & (df.name == "expected_damage")]
    for t in thac0_values:
        h = hit[hit.thac0 == t].groupby("target_ac")["exact"].sum()
        (line,) = ax[0].plot(h.index, h.values, label=f"THAC0 {t}: any hit")
        c = crit[crit.thac0 == t]
        ax[0].plot(c.target_ac, c.exact, ls="--", color=line.get_color(), label=f"THAC0 {t}: critical")
        d = dmg[dmg.thac0 == t]
        ax[1].plot(d.target_ac, d.exact, color=line.get_color(), label=f"THAC0 {t}")
    ax[0].set(xlabel="target AC", ylabel="probability", title="Hit and critical-hit chance (exact)")
    ax[1].set(
        xlabel="target AC",
        ylabel="expected damage per attack",
        title=f"Expected damage, {spec.damage}, crit {spec.crit_option} (exact)",
    )
    ax[0].legend(fontsize="small", ncols=2, loc="lower right")
    ax[1].legend(fontsize="small")
    return fig


def plot_threshold_gain(spec: Thac0Spec, *, ac_range=range(-10, 11), thresholds=(19, 18), ax=None):
    """Expected-damage gain of a wider crit threshold (19–20, 18–20) over 20 alone, per AC."""
    import matplotlib.pyplot as plt
    from critlab.analysis.sweep import sweep

    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    else:
        fig = ax.figure
    df = sweep(spec, crit_threshold=[20, *thresholds], target_ac=list(ac_range))
    dmg = df[(df.kind == "metric") & (df.name == "expected_damage")].pivot(
        index="target_ac", columns="crit_threshold", values="exact"
    )
    for t in thresholds:
        ax.plot(dmg.index, dmg[t] - dmg[20], marker="o", label=f"{t}–20 vs 20")
    ax.axhline(0, color="grey", lw=0.5)
    ax.set(
        xlabel="target AC",
        ylabel="extra expected damage per attack",
        title=f"Gain of a wider crit threshold (THAC0 {spec.thac0}, exact)",
    )
    ax.legend()
    return fig


# -- benchmark -------------------------------------------------------------------------
BENCH_SPEC = dict(thac0=10, target_ac=0, to_hit=12)  # fumble rerolls happen here


def _numpy_attack(trials: int, chunk: int = 1 << 20, seed: int = 0) -> float:
    """An idiomatic vectorised NumPy version of the same attack (damage 1d8, double)."""
    rng = np.random.default_rng(seed)
    need, to_hit = 10, 12
    total = 0
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        nat = rng.integers(1, 21, n)
        hit_by = nat + to_hit - need
        reroll = rng.integers(1, 21, n)
        fumble_hit = (nat == 1) & (to_hit >= need) & (reroll + to_hit - 20 >= need)
        hit = (nat > 1) & ((hit_by >= 0) | (nat == 20))
        crit = hit & (nat >= 20) & (hit_by >= 5)
        d1 = rng.integers(1, 9, n)
        d2 = rng.integers(1, 9, n)
        dmg = np.where(crit, d1 + d2, np.where(hit, d1, 0)) + fumble_hit * 1
        total += int(dmg.sum())
    return total / trials


def bench_cases() -> list[BenchCase]:
    spec = Thac0Spec(**BENCH_SPEC)
    return [
        BenchCase(
            name="thac0 attack (THAC0 10 vs AC 0, +12)",
            critlab=simulating(simulate, spec),
            numpy=_numpy_attack,
        )
    ]


SYSTEM = RuleSystem(
    name="thac0",
    title="AD&D criticals and fumbles (THAC0)",
    spec=Thac0Spec,
    exact=exact,
    simulate=simulate,
    plots={"by_ac": plot_by_ac, "threshold_gain": plot_threshold_gain},
    bench=bench_cases,
)
