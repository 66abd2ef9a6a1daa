"""``severity``: weapon severity and critical rolls (RULES.md; seed 002_5a99fffe5e50cfb9.txt).

An opposed roll, attacker against defender, in one of three dice modes: ``lethal``
(1d20), ``risky`` (3d6) or ``stable`` (4d6 drop lowest). A natural maximum explodes (the
side rolls again and adds, without limit); a natural minimum on a side's first roll
implodes (the *opponent* rolls once more, and that roll can explode). The margin of
victory MoV = attacker total − defender total picks a level of the wound ``ladder``;
``sm`` (or a Calling's ``magic``) raises it, capped at the top level, and ``armor``
lowers it.

The exact model. Every roll either ends its chain (an ordinary face), sets off one more
roll of the same side (a natural maximum) or one more roll of the opponent (an
implosion), so each side's first roll starts a chain of rolls that never interacts with
the other side's chain. Seen from the side that makes a roll, a chain's signed worth
(its own rolls minus the opponent's) is, conditioned on the first roll's class,

- an ordinary face ``v``: ``v``;
- the maximum: ``max + W`` (``W``: one additional roll and what it sets off);
- the minimum: ``min − W`` (the opponent's additional roll counts against the roller).

Without ``chain_implosions``, ``W`` is the plain explosion chain ``explode(roll)``; with
it, ``W`` satisfies the same three-way equation and is solved as a fixed point, exact up
to a tail below 1e-14. The margin is then ``C_attacker − C_defender + skill difference``
with two independent copies of ``C``. One side exploding while the other implodes gives
the favoured side both additional rolls without any special case.

Readings where RULES.md is silent: with ``chain_implosions`` *every* additional roll (an
explosion's as well as an implosion's) that shows the natural minimum gives the opponent
a roll; ``sm`` counts as given together with ``magic`` only when it is not its default 0
(an SM of 0 adds nothing), and is then an error; ladder thresholds are integers in
0..1000 like every integer parameter; outcome probabilities cover the represented margin
and so fall short of 1 by its ``tail`` (below 1e-12).

>>> r = exact(SeveritySpec())
>>> r.labels
('none', 'graze', 'light', 'serious', 'grievous', 'mort')
>>> r.metrics["p_attacker_explodes"], round(r.metrics["p_explode_vs_implode"], 6)
(0.05, 0.005)
>>> r.outcomes["mort"] > 0          # "A dagger can therefore inflict a Mortal wound"
True
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import numpy as np
import pandas as pd

from critlab.analysis.dist import TAIL_EPS, Dist, explode
from critlab.analysis.notation import parse
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.spec import Spec, SpecError, check_bool, check_choice, check_int
from critlab.analysis.systems.base import BenchCase, RuleSystem, hist_ranges, simulate_tally, simulating
from critlab.analysis.tally import Layout, Tally
from critlab.kernels import severity as k

MODES = ("lethal", "risky", "stable")
# The roll of each mode in dice notation, and its natural minimum / maximum (RULES.md's table).
ROLLS = {"lethal": "1d20", "risky": "3d6", "stable": "4d6dl1"}
NATURAL_MIN = {"lethal": 1, "risky": 3, "stable": 3}
NATURAL_MAX = {"lethal": 20, "risky": 18, "stable": 18}
DEFAULT_LADDER = "graze:1,light:4,serious:7,grievous:10,mort:13"
NO_WOUND = "none"
# Ladder thresholds follow RULES.md's range for integer parameters.
MAX_THRESHOLD = 1000
MAX_LEVELS = 100
COUNTERS = (
    "attacker_explodes",
    "defender_explodes",
    "attacker_implodes",
    "defender_implodes",
    "explode_vs_implode",
    "success",
    "margin_sum",
)
_LEVEL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(-?\d+)\s*$")


def parse_ladder(text: Any) -> tuple[tuple[str, int], ...]:
    """The wound ladder ``name:threshold,...`` as ``((name, threshold), ...)``.

    Names are distinct identifiers other than ``none`` (level 0, always present);
    thresholds are non-decreasing integers in 0..1000.

    >>> parse_ladder("graze:1, light:4")
    (('graze', 1), ('light', 4))
    >>> parse_ladder("a:3,b:2")
    Traceback (most recent call last):
    ...
    critlab.analysis.spec.SpecError: parameter ladder = a:3,b:2: thresholds must not decrease ...
    """
    form = "must be name:threshold pairs separated by commas, e.g. " + DEFAULT_LADDER
    if not isinstance(text, str) or not text.strip():
        raise SpecError("ladder", text, form)
    levels: list[tuple[str, int]] = []
    for part in text.split(","):
        m = _LEVEL.match(part)
        if m is None:
            raise SpecError("ladder", text, f"{part.strip()!r} is not name:threshold; the ladder {form}")
        name, threshold = m.group(1), int(m.group(2))
        if name == NO_WOUND or name in (n for n, _ in levels):
            raise SpecError(
                "ladder", text, f"level name {name!r} is repeated or reserved ({NO_WOUND!r} is level 0)"
            )
        if not 0 <= threshold <= MAX_THRESHOLD:
            raise SpecError("ladder", text, f"threshold of {name} must be an integer in 0..{MAX_THRESHOLD}")
        if levels and threshold < levels[-1][1]:
            raise SpecError(
                "ladder", text, f"thresholds must not decrease ({name}:{threshold} follows {levels[-1][1]})"
            )
        levels.append((name, threshold))
    if len(levels) > MAX_LEVELS:
        raise SpecError("ladder", text, f"has {len(levels)} levels; at most {MAX_LEVELS} are allowed")
    return tuple(levels)


def calling_sm(magic: int) -> int:
    """A damaging Calling's SM from the Caller's MAGIC (the seed's table: 1–5 → 0,
    6–10 → 1, 11–15 → 2, 16–20 → 3).

    >>> [calling_sm(m) for m in (1, 5, 6, 10, 11, 15, 16, 20)]
    [0, 0, 1, 1, 2, 2, 3, 3]
    """
    magic = check_int("magic", magic, 1, 20)
    return (magic - 1) // 5


@dataclass(frozen=True, kw_only=True)
class SeveritySpec(Spec):
    """An opposed attack roll with exploding and imploding criticals and a wound ladder.

    Parameters
    ----------
    mode
        ``lethal`` (1d20), ``risky`` (3d6) or ``stable`` (4d6 drop lowest).
    attacker_skill, defender_skill
        Added to each side's rolls (totals have no minimum).
    ties
        Who wins MoV 0: ``defender`` (the attack fails) or ``attacker``.
    ladder
        Wound levels above ``none`` with the MoV each needs, ``name:threshold,...``.
    sm
        The weapon's Severity Modifier, 0..3. Must stay 0 when ``magic`` is given.
    magic
        A Calling's MAGIC, 1..20: its SM comes from the seed's table instead of ``sm``.
    armor
        Wound levels removed after SM (integer >= 0).
    cap_before_armor
        Cap at the top level before armor (``true``) or only after it (``false``).
    chain_implosions
        Whether an additional roll showing the natural minimum also gives the opponent a roll.
    """

    system = "severity"
    mode: Literal["lethal", "risky", "stable"] = "lethal"
    attacker_skill: int = 0
    defender_skill: int = 0
    ties: Literal["defender", "attacker"] = "defender"
    ladder: str = DEFAULT_LADDER
    sm: int = 0
    magic: int | None = None
    armor: int = 0
    cap_before_armor: bool = True
    chain_implosions: bool = False

    def validate(self) -> None:
        check_choice("mode", self.mode, MODES)
        check_int("attacker_skill", self.attacker_skill)
        check_int("defender_skill", self.defender_skill)
        check_choice("ties", self.ties, ("defender", "attacker"))
        parse_ladder(self.ladder)
        check_int("sm", self.sm, 0, 3)
        if self.magic is not None:
            check_int("magic", self.magic, 1, 20)
            # sm = 0 is its default and adds nothing, so only a non-zero sm counts as "given".
            if self.sm != 0:
                raise SpecError(
                    "sm",
                    self.sm,
                    f"must stay 0 when magic = {self.magic} is given: a Calling's SM comes from MAGIC",
                )
        check_int("armor", self.armor, 0, 1000)
        check_bool("cap_before_armor", self.cap_before_armor)
        check_bool("chain_implosions", self.chain_implosions)

    def unused(self) -> frozenset[str]:
        return frozenset({"sm"}) if self.magic is not None else frozenset()

    @property
    def levels(self) -> tuple[tuple[str, int], ...]:
        """The ladder's ``(name, threshold)`` pairs above ``none``."""
        return parse_ladder(self.ladder)

    @property
    def effective_sm(self) -> int:
        """The SM applied: ``sm``, or the Calling's SM from ``magic``."""
        return self.sm if self.magic is None else calling_sm(self.magic)


def labels(spec: SeveritySpec) -> tuple[str, ...]:
    """The outcome labels: ``none`` then the ladder's level names.

    >>> labels(SeveritySpec(ladder="hit:1,kill:10"))
    ('none', 'hit', 'kill')
    """
    return (NO_WOUND, *(name for name, _ in spec.levels))


def wound_level(margin: np.ndarray | int, spec: SeveritySpec) -> np.ndarray:
    """The wound level index (0 = ``none``) of each MoV, vectorised.

    >>> wound_level([0, 1, 12, 13, 40], SeveritySpec()).tolist()
    [0, 1, 4, 5, 5]
    >>> wound_level([0, 12], SeveritySpec(ties="attacker", sm=3, armor=2)).tolist()
    [0, 3]
    """
    mov = np.asarray(margin, dtype=np.int64)
    thresholds = np.array([t for _, t in spec.levels], dtype=np.int64)
    top = thresholds.size
    success = mov >= 0 if spec.ties == "attacker" else mov > 0
    # Thresholds do not decrease, so the count met is the highest level met.
    base = np.where(success, np.searchsorted(thresholds, mov, side="right"), 0)
    sm = spec.effective_sm
    if spec.cap_before_armor:
        level = np.maximum(np.minimum(base + sm, top) - spec.armor, 0)
    else:
        level = np.minimum(np.maximum(base + sm - spec.armor, 0), top)
    # A success that meets no threshold is none, and SM does not lift it.
    return np.where(base > 0, level, 0)


# -- the exact engine ------------------------------------------------------------------
@cache
def roll_dist(mode: str) -> Dist:
    """One roll of ``mode`` (1d20, 3d6 or 4d6 drop lowest).

    >>> roll_dist("stable").pmf(3) * 1296    # four 1s
    1.0...
    """
    return parse(ROLLS[mode]).dist()


def first_roll_odds(mode: str) -> tuple[float, float]:
    """``(P(implode), P(explode))`` of one first roll in ``mode``.

    >>> [round(p * 1296) for p in first_roll_odds("stable")]
    [1, 21]
    """
    roll = roll_dist(mode)
    return roll.pmf(NATURAL_MIN[mode]), roll.pmf(NATURAL_MAX[mode])


def _branches(mode: str, further: Dist) -> Dist:
    """A roll's signed chain worth, given ``further`` (the worth of one additional roll):
    an ordinary face counts itself, a maximum adds ``further``, a minimum subtracts it."""
    roll = roll_dist(mode)
    lo, hi = NATURAL_MIN[mode], NATURAL_MAX[mode]
    ordinary = Dist(roll.offset, np.where((roll.values == lo) | (roll.values == hi), 0.0, roll.probs))
    p_min, p_max = roll.pmf(lo), roll.pmf(hi)
    return Dist.mixture([1.0, p_max, p_min], [ordinary, hi + further, lo - further])


@cache
def additional_roll(mode: str, chain_implosions: bool) -> Dist:
    """The signed worth of one additional roll and every roll it sets off, seen from
    the side that makes it.

    Without chained implosions this is the explosion chain; with them, the fixed point
    of ``W = ordinary | max + W | min − W``, iterated until the unresolved mass (chains
    longer than the iteration depth) is below 1e-14 and reported as ``tail``.

    >>> round(additional_roll("lethal", False).mean, 9)    # 10.5 * 20/19
    11.052631579
    """
    if not chain_implosions:
        return explode(roll_dist(mode))
    w = Dist(0, [], 1.0)  # nothing resolved yet
    while w.tail >= TAIL_EPS:
        w = _branches(mode, w)
    return w


@cache
def first_roll_chain(mode: str, chain_implosions: bool) -> Dist:
    """The signed worth of a side's first roll and everything it sets off: the mixture
    over the first roll's class (minimum, maximum, ordinary)."""
    return _branches(mode, additional_roll(mode, chain_implosions))


@cache
def _chain_difference(mode: str, chain_implosions: bool) -> Dist:
    chain = first_roll_chain(mode, chain_implosions)
    return chain - chain


def margin_dist(mode: str, chain_implosions: bool, skill_difference: int) -> Dist:
    """The MoV: attacker chain − defender chain + (attacker_skill − defender_skill).

    >>> round(margin_dist("risky", False, 3).mean, 9)
    3.0
    """
    return _chain_difference(mode, chain_implosions) + int(skill_difference)


def exact(spec: SeveritySpec) -> ExactResult:
    """Exact wound-level probabilities, MoV distribution and critical-roll metrics.

    The outcome probabilities cover the represented margin; they fall short of 1 by the
    margin's ``tail`` (below 1e-12).
    """
    labs = labels(spec)
    margin = margin_dist(spec.mode, spec.chain_implosions, spec.attacker_skill - spec.defender_skill)
    levels = wound_level(margin.values, spec)
    probs = np.bincount(levels, weights=margin.probs, minlength=len(labs))
    success = margin.values >= 0 if spec.ties == "attacker" else margin.values > 0
    p_min, p_max = first_roll_odds(spec.mode)
    metrics = {
        "p_attacker_explodes": p_max,
        "p_defender_explodes": p_max,
        "p_attacker_implodes": p_min,
        "p_defender_implodes": p_min,
        "p_explode_vs_implode": 2 * p_max * p_min,
        "mean_margin": margin.mean,
        "p_success": float(margin.probs[success].sum()),
        "margin_q05": float(margin.quantile(0.05)),
        "margin_median": float(margin.quantile(0.5)),
        "margin_q95": float(margin.quantile(0.95)),
    }
    return ExactResult(
        system=spec.system,
        params=spec.params(),
        labels=labs,
        probs=probs,
        distributions={"margin": margin},
        metrics=metrics,
    )


# -- simulation ------------------------------------------------------------------------
def _hist_quantile(tally: Tally, name: str, q: float) -> float | None:
    hist = tally.hists[name]
    counts = np.cumsum(hist.counts)
    if counts.size == 0 or counts[-1] == 0:
        return None
    i = int(np.searchsorted(counts, q * tally.trials - 1e-9, side="left"))
    return float(hist.offset + min(i, counts.size - 1))


def simulate(
    spec: SeveritySpec,
    *,
    trials: int,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
) -> SimResult:
    """Simulate ``trials`` opposed attacks roll by roll (see :mod:`critlab.kernels.severity`);
    ``client`` (a Dask client) runs the same blocks on a cluster."""
    ex = exact(spec)
    layout = Layout(ex.labels, hist_ranges(ex, ("margin",)), counters=COUNTERS)
    lay = layout.array
    thresholds = np.array([t for _, t in spec.levels], dtype=np.int64)
    mode = MODES.index(spec.mode)
    nat_min, nat_max = NATURAL_MIN[spec.mode], NATURAL_MAX[spec.mode]

    def block(state: np.ndarray, n: int, out: np.ndarray) -> None:
        k.block(
            state, n, out, lay, mode, nat_min, nat_max, spec.attacker_skill, spec.defender_skill,
            spec.ties == "attacker", thresholds, spec.effective_sm, spec.armor, spec.cap_before_armor,
            spec.chain_implosions,
        )  # fmt: skip

    tally = simulate_tally(
        layout,
        block,
        trials=trials,
        seed=seed,
        threads=threads,
        progress=progress,
        desc="severity",
        client=client,
    )
    c, n = tally.counters, tally.trials
    metrics = {
        "p_attacker_explodes": c["attacker_explodes"] / n,
        "p_defender_explodes": c["defender_explodes"] / n,
        "p_attacker_implodes": c["attacker_implodes"] / n,
        "p_defender_implodes": c["defender_implodes"] / n,
        "p_explode_vs_implode": c["explode_vs_implode"] / n,
        "mean_margin": c["margin_sum"] / n,
        "p_success": c["success"] / n,
        "margin_q05": _hist_quantile(tally, "margin", 0.05),
        "margin_median": _hist_quantile(tally, "margin", 0.5),
        "margin_q95": _hist_quantile(tally, "margin", 0.95),
    }
    return SimResult.of(ex, tally, metrics)


# -- design questions: tables and plots --------------------------------------------------
def wound_table(
    spec: SeveritySpec,
    *,
    modes: tuple[str, ...] = MODES,
    sms: range | tuple[int, ...] = range(4),
    armors: range | tuple[int, ...] = range(4),
    skill_gaps: tuple[int, ...] = (0, 3),
) -> pd.DataFrame:
    """Wound-level distribution by SM × armor × mode at each attacker − defender skill
    gap (the defender keeps ``spec.defender_skill``), as a tidy DataFrame with columns
    ``mode, skill_gap, attacker_skill, defender_skill, sm, armor, wound, probability``.

    >>> df = wound_table(SeveritySpec(), modes=("lethal",), sms=(0, 3), armors=(0,), skill_gaps=(0,))
    >>> df.groupby("sm")["probability"].sum().round(9).tolist()
    [1.0, 1.0]
    """
    from critlab.analysis.sweep import sweep

    base = spec.replace(magic=None)
    d = spec.defender_skill
    df = sweep(
        base, mode=list(modes), attacker_skill=[d + g for g in skill_gaps], sm=list(sms), armor=list(armors)
    )
    out = df[df.kind == "outcome"].rename(columns={"name": "wound", "exact": "probability"})
    out = out.assign(defender_skill=d, skill_gap=out.attacker_skill - d)
    cols = ["mode", "skill_gap", "attacker_skill", "defender_skill", "sm", "armor", "wound", "probability"]
    return out[cols].reset_index(drop=True)


def plot_wounds(
    spec: SeveritySpec,
    *,
    modes: tuple[str, ...] = MODES,
    sms: range | tuple[int, ...] = range(4),
    armors: range | tuple[int, ...] = range(4),
    skill_gaps: tuple[int, ...] = (0, 3),
    ax=None,
):
    """Stacked bars of the wound-level distribution for each SM × armor, one panel per
    mode (columns) and skill gap (rows); ``ax`` is a 2-D array of axes of that shape."""
    import matplotlib.pyplot as plt

    df = wound_table(spec, modes=modes, sms=sms, armors=armors, skill_gaps=skill_gaps)
    if ax is None:
        fig, ax = plt.subplots(
            len(skill_gaps), len(modes), figsize=(5 * len(modes), 3.6 * len(skill_gaps)),
            squeeze=False, constrained_layout=True, sharey=True,
        )  # fmt: skip
    else:
        ax = np.asarray(ax).reshape(len(skill_gaps), len(modes))
        fig = ax[0, 0].figure
    labs = labels(spec)
    colours = plt.get_cmap("magma_r")(np.linspace(0.08, 0.92, len(labs)))
    for i, gap in enumerate(skill_gaps):
        for j, mode in enumerate(modes):
            a = ax[i, j]
            part = df[(df["mode"] == mode) & (df.skill_gap == gap)]
            table = part.pivot_table(index=["sm", "armor"], columns="wound", values="probability", sort=False)
            table = table[list(labs)]
            x = np.arange(len(table))
            bottom = np.zeros(len(table))
            for lab, colour in zip(labs, colours, strict=True):
                a.bar(x, table[lab].to_numpy(), bottom=bottom, color=colour, label=lab, width=0.85)
                bottom += table[lab].to_numpy()
            a.set_xticks(x, [f"{s}/{r}" for s, r in table.index], rotation=90, fontsize="x-small")
            a.set(
                xlabel="SM / armor",
                ylabel="probability",
                title=f"{mode}, skills {spec.defender_skill + gap} vs {spec.defender_skill} (exact)",
            )
    ax[0, -1].legend(fontsize="small", title="wound", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def mismatch_table(
    spec: SeveritySpec, *, modes: tuple[str, ...] = MODES, gaps: range | tuple[int, ...] = range(-10, 21)
) -> pd.DataFrame:
    """P(top wound level) against the skill gap (attacker − defender) per mode, with the
    spec's SM and armor: columns ``mode, skill_gap, p_top, p_success``.

    >>> t = mismatch_table(SeveritySpec(), modes=("lethal",), gaps=(-20, 0, 20))
    >>> bool(t.p_top.is_monotonic_increasing and (t.p_top > 0).all())
    True
    """
    from critlab.analysis.sweep import sweep

    top = labels(spec)[-1]
    d = spec.defender_skill
    df = sweep(spec, mode=list(modes), attacker_skill=[d + g for g in gaps])
    p_top = df[(df.kind == "outcome") & (df.name == top)].set_index(["mode", "attacker_skill"])["exact"]
    p_success = df[(df.kind == "metric") & (df.name == "p_success")].set_index(["mode", "attacker_skill"])[
        "exact"
    ]
    out = pd.DataFrame({"p_top": p_top, "p_success": p_success}).reset_index()
    out.insert(1, "skill_gap", out.pop("attacker_skill") - d)
    return out


def plot_mismatch(
    spec: SeveritySpec,
    *,
    modes: tuple[str, ...] = MODES,
    gaps: range | tuple[int, ...] = range(-10, 21),
    ax=None,
):
    """The mismatch curve: P(top wound) against the skill gap, per mode, on a log scale
    (can a weak weapon kill, and how often)."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    else:
        fig = ax.figure
    table = mismatch_table(spec, modes=modes, gaps=gaps)
    top = labels(spec)[-1]
    for mode in modes:
        part = table[table["mode"] == mode]
        ax.semilogy(part.skill_gap, part.p_top, marker="o", ms=3, label=mode)
    ax.set(
        xlabel="skill gap (attacker − defender)",
        ylabel=f"P({top})",
        title=f"Mismatch: P({top}) with SM {spec.effective_sm}, armor {spec.armor} (exact)",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return fig


def calling_table(
    spec: SeveritySpec, *, magic_values: range | tuple[int, ...] = range(1, 21)
) -> pd.DataFrame:
    """The seed's MAGIC → SM table applied to a damaging Calling: one row per MAGIC with
    its SM and the exact wound-level probabilities of the spec's contest.

    >>> t = calling_table(SeveritySpec(), magic_values=(1, 6, 11, 16))
    >>> t.calling_sm.tolist()
    [0, 1, 2, 3]
    """
    from critlab.analysis.sweep import sweep

    df = sweep(spec.replace(sm=0), magic=list(magic_values))
    wide = df[df.kind == "outcome"].pivot(index="magic", columns="name", values="exact")[list(labels(spec))]
    wide.columns.name = None
    wide.insert(0, "calling_sm", [calling_sm(int(m)) for m in wide.index])
    return wide.reset_index()


def plot_callings(spec: SeveritySpec, *, magic_values: range | tuple[int, ...] = range(1, 21), ax=None):
    """Stacked bars of a Calling's wound-level distribution against the Caller's MAGIC."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 4.5), constrained_layout=True)
    else:
        fig = ax.figure
    table = calling_table(spec, magic_values=magic_values)
    labs = labels(spec)
    colours = plt.get_cmap("magma_r")(np.linspace(0.08, 0.92, len(labs)))
    bottom = np.zeros(len(table))
    for lab, colour in zip(labs, colours, strict=True):
        ax.bar(table.magic, table[lab], bottom=bottom, color=colour, label=lab)
        bottom += table[lab].to_numpy()
    ax.set_xticks(table.magic)
    ax.set(
        xlabel="Caller's MAGIC (SM = 0, 1, 2, 3 by fives)",
        ylabel="probability",
        title=f"Calling wounds by MAGIC, {spec.mode}, {spec.attacker_skill} vs {spec.defender_skill} (exact)",
    )
    ax.legend(fontsize="small", title="wound", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


# -- benchmark -------------------------------------------------------------------------
BENCH_SKILLS = dict(attacker_skill=5, defender_skill=2)


def _numpy_roll(rng: np.random.Generator, mode: str, n: int) -> np.ndarray:
    """``n`` rolls of ``mode``, vectorised."""
    if mode == "lethal":
        return rng.integers(1, 21, n)
    if mode == "risky":
        return rng.integers(1, 7, (n, 3)).sum(axis=1)
    dice = rng.integers(1, 7, (n, 4))
    return dice.sum(axis=1) - dice.min(axis=1)


def _numpy_contest(trials: int, mode: str, chunk: int = 1 << 20, seed: int = 0) -> np.ndarray:
    """An idiomatic vectorised NumPy version of the contest (default ladder, SM 0, no
    armor, implosions not chained): wound-level counts. Explosion chains are resolved by
    rolling again for the still-pending subset until none is left."""
    rng = np.random.default_rng(seed)
    lo, hi = NATURAL_MIN[mode], NATURAL_MAX[mode]
    thresholds = np.array([t for _, t in parse_ladder(DEFAULT_LADDER)])
    counts = np.zeros(thresholds.size + 1, dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        a, d = _numpy_roll(rng, mode, n), _numpy_roll(rng, mode, n)
        totals = [a + BENCH_SKILLS["attacker_skill"], d + BENCH_SKILLS["defender_skill"]]
        # pending additional rolls per side: its own explosion, the opponent's implosion
        pending = [(a == hi).astype(np.int64) + (d == lo), (d == hi).astype(np.int64) + (a == lo)]
        for total, wait in zip(totals, pending, strict=True):
            idx = np.flatnonzero(wait)
            while idx.size:
                r = _numpy_roll(rng, mode, idx.size)
                total[idx] += r
                wait[idx] += (r == hi).astype(np.int64) - 1
                idx = idx[wait[idx] > 0]
        mov = totals[0] - totals[1]
        level = np.where(mov > 0, np.searchsorted(thresholds, mov, side="right"), 0)
        counts += np.bincount(level, minlength=counts.size)
    return counts


def _icepool_margin(mode: str):
    """The same contest's MoV distribution in icepool (explosions to depth 12)."""
    import icepool

    die = {
        "lethal": icepool.d20,
        "risky": 3 @ icepool.d6,
        "stable": icepool.d6.highest(4, 3),
    }[mode]
    lo, hi = NATURAL_MIN[mode], NATURAL_MAX[mode]
    further = die.explode(depth=12)
    chain = die.map(lambda v: v + further if v == hi else (v - further if v == lo else v))
    return chain - chain + (BENCH_SKILLS["attacker_skill"] - BENCH_SKILLS["defender_skill"])


def bench_cases() -> list[BenchCase]:
    cases = []
    for mode in ("lethal", "stable"):
        spec = SeveritySpec(mode=mode, **BENCH_SKILLS)

        def exact_margin(spec: SeveritySpec = spec) -> Dist:
            _chain_difference.cache_clear()  # time the engine, not the cache
            first_roll_chain.cache_clear()
            additional_roll.cache_clear()
            return exact(spec).distributions["margin"]

        cases.append(
            BenchCase(
                name=f"severity {mode} contest (skills 5 vs 2)",
                critlab=simulating(simulate, spec),
                numpy=lambda trials, mode=mode: _numpy_contest(trials, mode),
                exact=exact_margin,
                icepool=functools.partial(_icepool_margin, mode),  # picklable: timed in a new process
            )
        )
    return cases


SYSTEM = RuleSystem(
    name="severity",
    title="Weapon severity and critical rolls",
    spec=SeveritySpec,
    exact=exact,
    legacy_simulate=simulate,
    legacy_plots={"wounds": plot_wounds, "mismatch": plot_mismatch, "callings": plot_callings},
    legacy_bench=bench_cases,
)
