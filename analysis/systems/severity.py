"""``severity``: weapon severity and critical rolls (the seed text 002_5a99fffe5e50cfb9).

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

Readings where the rules are silent: with ``chain_implosions`` *every* additional roll (an
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

import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import numpy as np

from critlab.analysis.dice.notation import parse
from critlab.analysis.dist import TAIL_EPS, Dist, explode
from critlab.analysis.params import Bool, Choice, Int, Text, param
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import Spec, SpecError, check_int
from critlab.analysis.spec_error import quoted
from critlab.analysis.systems.base import RuleSystem
from critlab.analysis.tally import Tally
from critlab.kernels.vocab import severity as k  # its vocabularies; the kernel loads on first run
from critlab.kernels.vocab import words

MODES = words(k.Mode)
# The roll of each mode in dice notation, and its natural minimum / maximum (the rules' table).
ROLLS = {"lethal": "1d20", "risky": "3d6", "stable": "4d6dl1"}
NATURAL_MIN = {"lethal": 1, "risky": 3, "stable": 3}
NATURAL_MAX = {"lethal": 20, "risky": 18, "stable": 18}
DEFAULT_LADDER = "graze:1,light:4,serious:7,grievous:10,mort:13"
NO_WOUND = k.NO_WOUND
# Ladder thresholds follow the rules' range for integer parameters.
MAX_THRESHOLD = 1000
MAX_LEVELS = 100
_LEVEL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(-?[0-9]+)\s*$")  # ASCII digits only


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
            raise SpecError(
                "ladder", text, f"{quoted(part.strip())} is not name:threshold; the ladder {form}"
            )
        name, threshold = m.group(1), int(m.group(2))
        if name == NO_WOUND or name in (n for n, _ in levels):
            raise SpecError(
                "ladder", text, f"level name {quoted(name)} is repeated or reserved ({NO_WOUND!r} is level 0)"
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
    mode: Literal["lethal", "risky", "stable"] = param(
        "lethal",
        Choice(*MODES),
        "the dice of every roll: lethal 1d20 (explodes on 20, implodes on 1), risky 3d6 (18 / 3), "
        "stable 4d6 drop lowest (18 / four 1s)",
    )
    attacker_skill: int = param(0, Int(), "added to the attacker's rolls", label="attacker skill")
    defender_skill: int = param(0, Int(), "added to the defender's rolls", label="defender skill")
    ties: Literal["defender", "attacker"] = param(
        "defender", Choice("defender", "attacker"), "who wins a margin of victory of 0"
    )
    ladder: str = param(
        DEFAULT_LADDER,
        Text(parse_ladder, "name:threshold pairs, thresholds non-decreasing integers in 0..1000"),
        "the wound levels above none, each with the margin of victory it needs",
    )
    sm: int = param(
        0,
        Int(0, 3),
        "the weapon's Severity Modifier, added to the wound level (must stay 0 when magic is given)",
        when={"magic": (None,)},
        label="SM",
    )
    magic: int | None = param(
        None,
        Int(1, 20),
        "a damaging Calling's MAGIC: its SM comes from the seed's table (1-5: 0, 6-10: 1, 11-15: 2, "
        "16-20: 3) instead of sm",
        optional=True,
        label="MAGIC",
    )
    armor: int = param(0, Int(0, 1000), "wound levels removed after SM")
    cap_before_armor: bool = param(
        True, Bool(), "cap at the top level before armor (true) or only after it (false)"
    )
    chain_implosions: bool = param(
        False, Bool(), "whether an additional roll showing the natural minimum also gives the opponent a roll"
    )

    def validate(self) -> None:
        # sm = 0 is its default and adds nothing, so only a non-zero sm counts as "given".
        if self.magic is not None and self.sm != 0:
            raise SpecError(
                "sm",
                self.sm,
                f"must stay 0 when magic = {self.magic} is given: a Calling's SM comes from MAGIC",
            )

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
def kernel_args(spec: SeveritySpec) -> k.Args:
    """The kernel's arguments for ``spec``."""
    return k.Args(
        rolls=_roll_table(spec.mode),
        attacker_skill=spec.attacker_skill,
        defender_skill=spec.defender_skill,
        ties_attacker=spec.ties == "attacker",
        thresholds=np.array([t for _, t in spec.levels], dtype=np.int64),
        sm=spec.effective_sm,
        armor=spec.armor,
        cap_before_armor=spec.cap_before_armor,
        chain_implosions=spec.chain_implosions,
    )


@cache
def _roll_table(mode: str) -> np.ndarray:
    return k.roll_table(k.Mode[mode.upper()])


def _hist_quantile(tally: Tally, name: str, q: float) -> float | None:
    hist = tally.hists[name]
    counts = np.cumsum(hist.counts)
    if counts.size == 0 or counts[-1] == 0:
        return None
    i = int(np.searchsorted(counts, q * tally.trials - 1e-9, side="left"))
    return float(hist.offset + min(i, counts.size - 1))


def simulated_metrics(spec: SeveritySpec, tally: Tally) -> dict[str, float | None]:
    c, n = tally.counters, tally.trials
    return {
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


SYSTEM = RuleSystem.of_kernel(
    "severity",
    "Weapon severity and critical rolls",
    spec=SeveritySpec,
    exact=exact,
    kernel=k,
    args=kernel_args,
    metrics=simulated_metrics,
    outcomes=lambda spec: k.wounds(tuple(name for name, _ in spec.levels)),
    ordered=True,  # the wound ladder, from none to the worst level
)
simulate = SYSTEM.simulate
