"""Fights: how many rounds a target with ``hp`` hit points lasts against an attack.

A fight repeats a spec's attack (each attack an independent trial of it),
``attacks_per_round`` attacks a round, until the damage accumulated at the end of a round
reaches ``hp`` or ``max_rounds`` rounds have been played. Any system whose exact result
has a per-attack ``damage`` distribution can fight: crit-range (mode attack), thac0 and
crits-cats (mode versus with damage dice).

The exact engine is a dynamic programme over the damage accumulated so far (the target's
remaining hit points are ``hp`` minus it): damage is never negative, so the target is
defeated by round ``n`` exactly when the sum of ``n`` rounds' damage reaches ``hp``. Each
round convolves the still-running fights with one round's damage (the ``attacks_per_round``
-fold convolution of the attack's damage); what reaches ``hp`` is defeated that round, and
by how much it passed ``hp`` is its overkill, read off the same convolution.

Every probability the programme cannot represent is cut explicitly: the attack's own
damage tail (an exploding die cut below 1e-14) on every attack, either edge of the window
of running fights while it holds below 1e-30, and the fights still running once they are
below 1e-15 of the total. That cut mass, which must total below 1e-12 (a fight that would
cut more is refused), is the ``tail`` of ``rounds`` and of ``overkill`` and is counted in
``undecided``, so the outcome probabilities sum to 1.

>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> r = fight(spec, hp=10)
>>> r.outcomes["defeated"] > 0.999999, r.metrics["median_rounds"]
(True, 4)
>>> round(r.metrics["p_defeated_by_round_1"] * 320, 9)   # 7/320
7.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critlab.analysis.dist import Dist
from critlab.analysis.results import JSON_BINS, ExactResult, cap_bins
from critlab.analysis.spec import Spec, SpecError, check_int, system_of
from critlab.analysis.text.digits import plain

LABELS = ("defeated", "undecided")
MAX_HP = 10**6
MAX_ATTACKS_PER_ROUND = 100
MAX_ROUNDS = 10**6
# Total probability the exact fight may leave unrepresented (the rules' bound).
CUT = 1e-12
# Rounds stop once less than this of the fights is still running: well inside CUT, so
# that mean_rounds, which weighs each round by its number, is right to ~1e-13 and not
# only to ~CUT x the rounds played (the rules' reference 4.7409396734 needs the former).
STOP = 1e-15
# Mass dropped each round at either edge of the running fights' window of damage so far:
# far below anything reported, it keeps the window as narrow as the probabilities are.
TRIM = 1e-30
# The work bound, in multiply-adds of the rounds' convolutions, each round also counted
# as ROUND_COST of them for its fixed overhead. Measured: numpy's direct convolution
# does ~3.8e9 a second and a round's bookkeeping costs ~10 us, so the bound is ~5 s.
WORK_LIMIT = 2e10
ROUND_COST = 4e4
# The most damage values a round may take (attacks_per_round × one attack's support):
# 10^7 float64s are 80 MB a copy, and convolving the attacks into a round holds a few.
MAX_ROUND_SUPPORT = 10**7


def fighting() -> str:
    """Which systems and modes fight, in words, from each system's own declaration
    (``RuleSystem.fights``), for the errors.

    >>> fighting()
    'crits-cats (mode versus with damage), crit-range (mode attack), thac0'
    """
    from critlab.analysis.systems import registry

    fights = [(name, s.fights) for name, s in registry().items() if s.fights is not None]
    return ", ".join(f"{name} ({words})" if words else name for name, words in fights)


@dataclass(frozen=True)
class Fight:
    """A fight's own parameters: the target's ``hp``, ``attacks_per_round`` and
    ``max_rounds`` (validated on construction).

    >>> Fight(hp=30).to_json()
    {'hp': 30, 'attacks_per_round': 1, 'max_rounds': 1000}
    >>> Fight(hp=0)
    Traceback (most recent call last):
    ...
    critlab.analysis.spec.SpecError: parameter hp = 0: must be an integer in 1..1000000
    """

    hp: int
    attacks_per_round: int = 1
    max_rounds: int = 1000

    def __post_init__(self) -> None:
        object.__setattr__(self, "hp", check_int("hp", self.hp, 1, MAX_HP))
        k = check_int("attacks_per_round", self.attacks_per_round, 1, MAX_ATTACKS_PER_ROUND)
        object.__setattr__(self, "attacks_per_round", k)
        object.__setattr__(self, "max_rounds", check_int("max_rounds", self.max_rounds, 1, MAX_ROUNDS))

    def to_json(self) -> dict[str, int]:
        return {"hp": self.hp, "attacks_per_round": self.attacks_per_round, "max_rounds": self.max_rounds}


@dataclass(frozen=True, repr=False)
class FightResult(ExactResult):
    """The exact result of a fight: an :class:`ExactResult` (``params`` are the attack's)
    that also carries the :class:`Fight`, shown as ``"fight"`` in its JSON."""

    fight: Fight | None = field(default=None, kw_only=True)

    def __repr__(self) -> str:
        """One line, as every result prints in a REPL: the answer.

        >>> from critlab.analysis.systems import get_system
        >>> fight(get_system("thac0").make_spec(thac0=15, target_ac=5), hp=30)
        <FightResult thac0 against 30 hp: mean rounds 12.11, median 12, defeated 100.00%>
        """
        from critlab.analysis.text.human import amount, percent

        mean, median = self.metrics.get("mean_rounds"), self.metrics.get("median_rounds")
        hp = self.fight.hp if self.fight else "?"
        rounds = "never defeated" if mean is None else f"mean rounds {amount(mean)}, median {median}"
        return f"<FightResult {self.system} against {hp} hp: {rounds}, defeated {percent(self.probs[0])}>"

    def p_defeated_by(self, r: int) -> float:
        """P(defeated by round ``r``); from ``max_rounds`` on, P(defeated).

        >>> from critlab.analysis.systems import get_system
        >>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
        >>> round(fight(spec, hp=10).p_defeated_by(4), 10)
        0.5445361274
        """
        if r >= self.fight.max_rounds:
            return float(self.probs[0])
        rounds = self.distributions["rounds"]  # below max_rounds every fight in it was defeated
        return float(rounds.probs[: max(0, r - rounds.offset + 1)].sum())

    def to_json(self) -> dict[str, Any]:
        return self.capped_json(None)[0]

    def capped_json(self, most: int | None = JSON_BINS) -> tuple[dict[str, Any], dict[str, int]]:
        """The JSON, each distribution of more than ``most`` values capped as ``exact
        --json`` caps them (:func:`~critlab.analysis.results.cap_bins`) before its numbers
        are written (a 100d1000 fight's overkill has over a million); ``None``: all. Also
        ``{name: values it had}`` of those capped."""
        body = self._json()
        capped = {} if most is None else cap_bins(body["distributions"], most)
        head = {"system": body.pop("system"), "params": body.pop("params")}
        return plain({**head, "fight": self.fight.to_json() if self.fight else None, **body}), capped


def attack_damage(spec: Spec) -> Dist:
    """The exact per-attack damage of ``spec``, or a one-line SpecError when its system or
    mode deals none (or no attack can deal damage).

    >>> from critlab.analysis.systems import get_system
    >>> attack_damage(get_system("crit-range").make_spec(mode="test", bonus=0, difficulty=10))
    Traceback (most recent call last):
    ...
    critlab.analysis.spec.SpecError: parameter mode = test: a fight needs mode attack (an attack with damage)
    """
    system = system_of(spec)
    dists = system.exact(spec).distributions
    if "damage" not in dists:
        raise SpecError("system", spec.system, f"deals no damage to fight with; fights take {fighting()}")
    damage = dists["damage"]
    if damage is None:
        mode = system.fight_mode
        if mode is not None and getattr(spec, "mode", mode) != mode:
            raise SpecError("mode", spec.mode, f"a fight needs mode {mode} (an attack with damage)")
        raise SpecError("damage", getattr(spec, "damage", None), "a fight needs damage dice, e.g. 1d8")
    if damage.max <= 0:
        raise SpecError("damage", getattr(spec, "damage", None), "no attack of this spec can deal damage")
    return damage


def _round_cost(width: int, m: int) -> float:
    """The work of one round: ``width`` running states convolved with ``m`` damage values.

    The convolution is direct: exact, with none of an FFT's rounding noise among small
    probabilities, and fast enough at the sizes the work bound admits."""
    return float(width) * (m + 16) + ROUND_COST


def _edge(v: np.ndarray) -> int:
    """How many leading states of ``v`` together hold at most :data:`TRIM` (a prefix is
    summed, growing only while all of it is that small, so this costs O(edge))."""
    size = 64
    while True:
        head = np.cumsum(v[:size])
        edge = int(np.searchsorted(head, TRIM, side="right"))
        if edge < head.size or size >= v.size:
            return edge
        size *= 4


def _cut_too_much(hp: int, damage: Dist, rounds: int) -> SpecError:
    return SpecError(
        "hp",
        hp,
        f"the exact fight would leave more than {CUT:.0e} of the fights unrepresented "
        f"(the attack's damage tail, {damage.tail:.2g} an attack, over {rounds} rounds); lower hp",
    )


def _too_much(hp: int, work: str) -> SpecError:
    return SpecError(
        "hp",
        hp,
        f"the exact fight needs {work} steps, over the bound of {WORK_LIMIT:.0e}; lower hp or max_rounds",
    )


def _check_work(damage: Dist, fight: Fight) -> None:
    """Refuse up front, from the attack's damage alone (before a round's damage is
    convolved, which allocates ``attacks_per_round`` × its support), a fight whose round
    has more than :data:`MAX_ROUND_SUPPORT` damage values or whose programme is sure to
    exceed :data:`WORK_LIMIT`."""
    k = fight.attacks_per_round
    support = k * (damage.probs.size - 1) + 1  # the round's damage values
    if support > MAX_ROUND_SUPPORT:
        raise SpecError(
            "attacks_per_round",
            k,
            f"a round's damage would take {support:.2g} values ({k} attacks × {damage.probs.size:,} damage "
            f"values each), over the bound of {MAX_ROUND_SUPPORT:.0e}; fewer attacks or smaller damage dice",
        )
    mean, sd = k * damage.mean, math.sqrt(k) * damage.sd  # the round's, without convolving it
    rounds = min(fight.max_rounds, math.ceil(fight.hp / mean))
    width = min(fight.hp, support + 25 * sd * math.sqrt(rounds))
    work = rounds * _round_cost(int(width), support)
    if work > WORK_LIMIT:
        raise _too_much(fight.hp, f"about {work:.2g}")


def rounds_played(mean: float, sd: float, miss: float, hp: int, max_rounds: int) -> int:
    """About how many rounds an exact programme over hit points plays against ``hp``, for a
    round of damage of this ``mean`` and ``sd`` that deals none with probability ``miss``:
    until a round-sum 8 standard deviations below its mean reaches ``hp`` (a normal tail
    below 1e-15), and at least until a run of rounds without damage is that rare.

    >>> rounds_played(4.5, 2.3, 0.0, 10, 1000), rounds_played(2.0, 3.0, 0.55, 10, 1000)
    (21, 154)
    """
    if mean <= 0:
        return max_rounds
    root = (8 * sd + math.sqrt(64 * sd * sd + 4 * mean * hp)) / (2 * mean)
    rounds = root * root
    if 0 < miss < 1:
        rounds = max(rounds, math.log(STOP) / math.log(miss))
    return max(1, min(max_rounds, math.ceil(rounds)))


def estimate_work(damage: Dist, fight: Fight) -> float:
    """The work :func:`fight_distributions` will do, in the units of :data:`WORK_LIMIT`
    (multiply-adds of the rounds' convolutions), from the attack's damage alone: within a
    factor of about 2 either way of the work counted as it runs (measured over hp 10 to
    10^5, 1 to 4 attacks a round, flat and exploding damage). A fight refused up front
    costs nothing (0.0); any other stops at :data:`WORK_LIMIT`.

    >>> round(estimate_work(Dist.die(8), Fight(hp=10)) / 1e6, 2)
    0.85
    >>> estimate_work(Dist.die(6), Fight(hp=10**6, max_rounds=10**6))   # refused up front
    0.0
    """
    try:
        _check_work(damage, fight)
    except SpecError:
        return 0.0
    k = fight.attacks_per_round
    support = k * (damage.probs.size - 1) + 1
    miss = float(damage.pmf(0)) ** k if damage.min <= 0 else 0.0
    rounds = rounds_played(k * damage.mean, math.sqrt(k) * damage.sd, miss, fight.hp, fight.max_rounds)
    width = min(fight.hp, support + 8 * math.sqrt(k) * damage.sd * math.sqrt(rounds))
    return min(rounds * _round_cost(int(width), support), WORK_LIMIT)


@dataclass(frozen=True)
class FightDists:
    """The exact fight of one damage distribution, before it is dressed as a result."""

    defeated: float
    undecided: float
    rounds: Dist
    overkill: Dist
    by_round: np.ndarray  # P(defeated by round r), r = 1 .. len(by_round)


def fight_distributions(damage: Dist, fight: Fight) -> FightDists:
    """The exact fight of an attack whose per-attack damage is ``damage``.

    >>> f = fight_distributions(Dist.die(6), Fight(hp=6))
    >>> round(f.rounds.pmf(1), 12), f.overkill.to_dict()[0] * 6 > 1
    (0.166666666667, True)
    """
    if damage.min < 0:
        raise ValueError(f"damage must be non-negative, its minimum is {damage.min}")
    if damage.max <= 0:
        raise SpecError("damage", str(damage), "no attack can deal damage")
    hp = fight.hp
    _check_work(damage, fight)
    per_round = damage.repeat(fight.attacks_per_round)
    r0, rp, r_tail = per_round.offset, per_round.probs, per_round.tail
    # rounding leaves the round's represented mass a few ulps off 1 - tail; over hundreds
    # of rounds that drift would pass for cut mass, so it is taken out once here
    rp = rp * ((1.0 - r_tail) / rp.sum())
    overkill = np.zeros(per_round.max + 1)
    defeated: list[float] = []
    v, lo = np.ones(1), 0  # running fights by damage so far: v[i] is P(damage = lo + i)
    cut = work = undecided = 0.0
    alive = 1.0
    for n in range(1, fight.max_rounds + 1):
        work += _round_cost(v.size, rp.size)
        if work > WORK_LIMIT:
            raise _too_much(hp, f"more than {WORK_LIMIT:.0e} (in {n} rounds)")
        cut += alive * r_tail
        full = np.convolve(v, rp)
        split = hp - lo - r0  # full[j] is damage lo + r0 + j; j >= split reaches hp
        if split < full.size:
            dead = full[max(split, 0) :]
            start = max(-split, 0)  # the overkill of dead[0]
            overkill[start : start + dead.size] += dead
            defeated.append(float(dead.sum()))
        else:
            defeated.append(0.0)
        v, lo = full[: max(split, 0)], lo + r0
        low, high = _edge(v), _edge(v[::-1])
        if low or high:
            if low + high >= v.size:
                low, high = v.size, 0
            cut += float(v[:low].sum()) + float(v[v.size - high :].sum())
            v, lo = v[low : v.size - high], lo + low
        alive = float(v.sum())
        if cut >= CUT:
            raise _cut_too_much(hp, damage, n)
        if n == fight.max_rounds:
            undecided = alive
        elif alive < STOP:  # so few fights still running: they are cut
            cut += alive
            break
    if cut >= CUT:
        raise _cut_too_much(hp, damage, n)
    # Rounding leaves the running mass a few ulps off (over a million rounds up to ~1e-13),
    # so every probability is clamped into [0, 1], the undecided share first: a fight
    # nobody wins is undecided 1 and defeated 0, never 1 + 9e-14 and -9e-14.
    undecided = min(max(undecided, 0.0), 1.0 - cut)
    per = np.array(defeated)
    rounds_probs = per.copy()
    if undecided > 0:
        rounds_probs[-1] += undecided  # an undecided fight played max_rounds rounds
    overkill[0] += undecided
    return FightDists(
        defeated=max(min(math.fsum(defeated), 1.0 - undecided - cut), 0.0),
        undecided=min(undecided + cut, 1.0),
        rounds=Dist(1, np.minimum(rounds_probs, 1.0), cut),
        overkill=Dist(0, np.minimum(overkill, 1.0), cut),
        by_round=np.clip(np.cumsum(per), 0.0, 1.0),
    )


def fight_metrics(by_round: np.ndarray) -> dict[str, Any]:
    """The fight's metrics from P(defeated by round r), r = 1, 2, ...: ``mean_rounds``
    (of defeated fights), ``median_rounds`` (1e-12 tolerance) and
    ``p_defeated_by_round_1`` .. ``_3`` (beyond the last round, its value).

    >>> fight_metrics(np.array([0.25, 0.5, 1.0]))["median_rounds"]
    2
    """
    by_round = np.asarray(by_round, dtype=np.float64)
    total = float(by_round[-1]) if by_round.size else 0.0
    per = np.diff(np.concatenate([[0.0], by_round]))
    r = np.arange(1, by_round.size + 1)
    mean = float(np.dot(r, per) / total) if total > 0 else None
    hit = np.flatnonzero(by_round >= 0.5 - 1e-12)
    metrics: dict[str, Any] = {
        "mean_rounds": mean,
        "median_rounds": int(hit[0]) + 1 if hit.size else None,
    }
    for k in (1, 2, 3):
        metrics[f"p_defeated_by_round_{k}"] = float(by_round[min(k, by_round.size) - 1]) if total else 0.0
    return metrics


def fight(spec: Spec, *, hp: int, attacks_per_round: int = 1, max_rounds: int = 1000) -> FightResult:
    """The exact fight of ``spec``'s attack against a target of ``hp`` hit points.

    Parameters
    ----------
    spec
        A spec whose attack deals damage (crit-range attack, thac0, crits-cats versus
        with damage).
    hp
        The target's hit points, 1..10^6.
    attacks_per_round
        Attacks a round, 1..100; a round is always played out.
    max_rounds
        Rounds at most, 1..10^6; a target still standing then is ``undecided``.

    Returns
    -------
    FightResult
        Labels ``defeated`` and ``undecided``; distributions ``rounds`` and ``overkill``;
        metrics ``mean_rounds``, ``median_rounds``, ``p_defeated_by_round_1`` .. ``_3``.
        ``params`` are the attack's and ``fight`` the fight's own parameters.

    Examples
    --------
    >>> from critlab.analysis.systems import get_system
    >>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    >>> round(fight(spec, hp=10, attacks_per_round=2).metrics["p_defeated_by_round_2"], 10)
    0.5445361274
    """
    f = Fight(hp=hp, attacks_per_round=attacks_per_round, max_rounds=max_rounds)
    dists = fight_distributions(attack_damage(spec), f)
    return FightResult(
        system=spec.system,
        params=spec.params(),
        labels=LABELS,
        probs=np.array([dists.defeated, dists.undecided]),
        distributions={"rounds": dists.rounds, "overkill": dists.overkill},
        metrics=fight_metrics(dists.by_round),
        fight=f,
    )


def fight_of(spec: Spec, params: Mapping[str, Any]) -> FightResult:
    """:func:`fight` with the fight's parameters in a mapping (``hp`` required)."""
    return fight(spec, **dict(params))


__all__ = [
    "CUT",
    "Fight",
    "FightDists",
    "FightResult",
    "LABELS",
    "attack_damage",
    "estimate_work",
    "fight",
    "fight_distributions",
    "fight_metrics",
    "fight_of",
    "rounds_played",
]
