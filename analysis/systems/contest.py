"""``contest``: GURPS-style contests (the seed text 003_1f28e6f26497e1a1).

Every side makes a success roll, 3d6 <= effective skill, judged with the critical rules
when ``criticals`` is on, and carries a signed margin m = skill − roll.

- ``quick``: one roll each; a lone success wins, otherwise the larger margin wins and
  equal margins tie (or go to the ``defender``).
- ``resistance``: A must succeed (else ``attack_failed``) and must beat B, who wins
  ties; the Rule of 16 caps A's skill at max(16, B's skill).
- ``regular``: rounds until one side succeeds while the other fails, at most
  ``max_rounds``; ``rescale`` brings both values of an endless-looking contest to 9–12.

>>> effective_attack_skill(18, 16), effective_attack_skill(18, 17), effective_attack_skill(18, 20)
(16, 17, 18)
>>> rescale_skills(20, 23), rescale_skills(3, 4)   # the seed's two examples
((10, 12), (9, 12))
>>> r = exact(ContestSpec(a_skill=10, b_skill=10, defender="b"))
>>> r.outcomes["tie"], round(r.outcomes["a_wins"] + r.outcomes["b_wins"], 12)
(0.0, 1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from critlab.analysis.dist import TAIL_EPS, Dist
from critlab.analysis.params import Bool, Choice, Int, param
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import Spec, SpecError
from critlab.analysis.systems.base import RuleSystem
from critlab.analysis.tally import Tally
from critlab.kernels.vocab import contest as k  # its vocabularies; the kernel loads on first run
from critlab.kernels.vocab import words

KINDS = words(k.Kind)
MAX_ROUNDS_LIMIT = 10**6
# The kernel's outcome vocabulary of each kind.
OUTCOMES = {kind: k.OUTCOMES[k.Kind[kind.upper()]] for kind in KINDS}
DISTRIBUTIONS = words(k.Hist)
CRIT_METRICS = (
    "p_a_critical_success",
    "p_a_critical_failure",
    "p_b_critical_success",
    "p_b_critical_failure",
)

# 3d6, the success roll: rolls 3..18 and their probabilities.
ROLL = Dist.die(6).repeat(3)
ROLLS = ROLL.values
# Ways of rolling each total out of 216: success probabilities are whole counts over 216,
# so "always succeeds" is exactly 1 and no rounding can make an endless contest decidable.
ROLL_WAYS = np.rint(ROLL.probs * 216).astype(np.int64)
# Built once (every exact quick or resistance contest reads them): the two rolls' joint
# probabilities [roll of A, roll of B], and B's roll less A's, the margin m_A - m_B less
# a - b (the same sum as (a - ROLL) - (b - ROLL), shifted).
JOINT = np.outer(ROLL.probs, ROLL.probs)
JOINT.setflags(write=False)
SPREAD = (-ROLL) + ROLL


@dataclass(frozen=True, kw_only=True)
class ContestSpec(Spec):
    """A contest between side A (``a_skill``) and side B (``b_skill``).

    Parameters
    ----------
    kind
        ``quick`` (one roll each), ``resistance`` (A attacks, B resists) or ``regular``
        (rounds until one succeeds and the other fails).
    a_skill, b_skill
        The values each side rolls against (required).
    criticals
        Judge rolls with the critical rules: 3–4 always succeed, 17–18 always fail, and
        the critical successes and failures of the rules.
    defender
        Quick contests: the side that wins ties (``a`` or ``b``); ``None`` leaves a tie.
    rule_of_16
        Resistance: cap A's effective skill at max(16, ``b_skill``).
    max_rounds
        Regular: rounds after which an undecided contest stops (1..10^6).
    rescale
        Regular: rescale both values when both are 1–6 or both 14+ (see :func:`rescale_skills`).

    Examples
    --------
    >>> ContestSpec(kind="regular", a_skill=3, b_skill=4, rescale=True).rolled_skills
    (9, 12)
    >>> ContestSpec(kind="regular", a_skill=18, b_skill=19, criticals=False)
    Traceback (most recent call last):
    ...
    critlab.analysis.spec.SpecError: parameter a_skill, b_skill = 18, 19: ... can ever decide ...
    """

    system = "contest"
    kind: Literal["quick", "resistance", "regular"] = param(
        "quick",
        Choice(*KINDS),
        "quick (one roll each), resistance (A attacks, B resists) or regular (rounds until one side "
        "succeeds and the other fails)",
    )
    a_skill: int | None = param(None, Int(), "the value side A rolls 3d6 against", label="A's skill")
    b_skill: int | None = param(None, Int(), "the value side B rolls 3d6 against", label="B's skill")
    criticals: bool = param(
        True,
        Bool(),
        "judge rolls with the critical rules: 3-4 always succeed, 17-18 always fail, critical "
        "successes and failures",
    )
    defender: Literal["a", "b"] | None = param(
        None,
        Choice("a", "b"),
        "the side that wins ties of a quick contest (none: a tie is a tie)",
        when={"kind": ("quick",)},
        optional=True,
    )
    rule_of_16: bool = param(
        True, Bool(), "cap A's effective skill at max(16, b_skill)", when={"kind": ("resistance",)}
    )
    max_rounds: int = param(
        1000,
        Int(1, MAX_ROUNDS_LIMIT),
        "rounds after which an undecided regular contest stops",
        when={"kind": ("regular",)},
        label="maximum rounds",
    )
    rescale: bool = param(
        False,
        Bool(),
        "rescale both values when both are 1-6 or both 14 or more, bringing the lower to 9-12",
        when={"kind": ("regular",)},
    )

    def validate(self) -> None:
        if self.kind == "regular":
            a, b = self.rolled_skills
            if _decide_probability(a, b, self.criticals) == 0.0:
                raise SpecError(
                    "a_skill, b_skill",
                    f"{self.a_skill}, {self.b_skill}",
                    f"rolling against {a} and {b} with criticals={str(self.criticals).lower()} no round of a "
                    "regular contest can ever decide (both always succeed or both always fail)",
                )

    @property
    def rolled_skills(self) -> tuple[int, int]:
        """The values A and B roll against (after the Rule of 16 or rescaling)."""
        a, b = self.a_skill, self.b_skill
        if self.kind == "resistance" and self.rule_of_16:
            return effective_attack_skill(a, b), b
        if self.kind == "regular" and self.rescale:
            return rescale_skills(a, b)
        return a, b


def labels(spec: ContestSpec) -> tuple[str, ...]:
    """The outcome labels of ``spec``'s kind.

    >>> labels(ContestSpec(kind="resistance", a_skill=12, b_skill=10))
    ('attack_failed', 'resisted', 'affected')
    """
    return words(OUTCOMES[spec.kind])


def effective_attack_skill(attack: int, resistance: int) -> int:
    """The Rule of 16: the attacker's skill capped at max(16, the resistance)."""
    return min(attack, max(16, resistance))


def rescale_skills(a: int, b: int) -> tuple[int, int]:
    """Rescale a regular contest's values (the rules): both in 1–6 are multiplied, both
    14+ divided (rounding up), by the smallest whole k >= 2 that puts the lower in 9–12;
    otherwise, or when no k does, they stay as they are.

    >>> rescale_skills(5, 6), rescale_skills(1, 2), rescale_skills(15, 30), rescale_skills(12, 20)
    ((10, 12), (9, 18), (15, 30), (12, 20))
    """
    lower, higher = min(a, b), max(a, b)
    if lower >= 1 and higher <= 6:
        for factor in range(2, 13):
            if 9 <= factor * lower <= 12:
                return a * factor, b * factor
    elif lower >= 14:
        factor = 2
        while -(-lower // factor) >= 9:  # ceil(lower / k) falls as k grows
            if -(-lower // factor) <= 12:
                return -(-a // factor), -(-b // factor)
            factor += 1
    return a, b


def judge(
    skill: int, rolls: np.ndarray, *, criticals: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(success, critical success, critical failure)`` of 3d6 ``rolls`` against ``skill``.

    >>> ok, cs, cf = judge(15, np.array([4, 5, 6, 15, 16, 17]))
    >>> ok.astype(int).tolist(), cs.astype(int).tolist(), cf.astype(int).tolist()
    ([1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1])
    """
    r = np.asarray(rolls)
    if not criticals:
        none = np.zeros(r.shape, dtype=bool)
        return r <= skill, none, none.copy()
    always = r <= 4
    crit_success = always | ((r == 5) & (skill >= 15)) | ((r == 6) & (skill >= 16))
    crit_failure = ~always & ((r == 18) | ((r == 17) & (skill <= 15)) | (r >= skill + 10))
    return always | ((r <= skill) & (r <= 16)), crit_success, crit_failure


@lru_cache(maxsize=256)
def _judged(skill: int, criticals: bool) -> tuple[np.ndarray, float, float]:
    """:func:`judge` of every 3d6 roll (read-only), and P(critical success), P(critical
    failure): computed once per skill, since every exact contest reads them."""
    ok, cs, cf = judge(skill, ROLLS, criticals=criticals)
    ok.setflags(write=False)
    p = ROLL.probs
    return ok, float(p[cs].sum()), float(p[cf].sum())


def _success_probability(skill: int, criticals: bool) -> float:
    return int(ROLL_WAYS[_judged(skill, criticals)[0]].sum()) / 216


def _decide_probability(a: int, b: int, criticals: bool) -> float:
    """P(a round of a regular contest decides): exactly one side succeeds."""
    pa, pb = _success_probability(a, criticals), _success_probability(b, criticals)
    return pa * (1 - pb) + pb * (1 - pa)


def _joint_dist(values: np.ndarray, weights: np.ndarray) -> Dist:
    lo = int(values.min())
    return Dist(lo, np.bincount((values - lo).ravel(), weights=weights.ravel()))


def _crit_metrics(a: int, b: int, criticals: bool, b_rolls: float = 1.0) -> dict[str, float]:
    _, cs_a, cf_a = _judged(a, criticals)
    _, cs_b, cf_b = _judged(b, criticals)
    return dict(zip(CRIT_METRICS, (cs_a, cf_a, b_rolls * cs_b, b_rolls * cf_b), strict=True))


def _quick(spec: ContestSpec) -> tuple[np.ndarray, dict, dict]:
    a, b = spec.rolled_skills
    ok_a, ok_b = _judged(a, spec.criticals)[0], _judged(b, spec.criticals)[0]
    joint = JOINT
    m_a, m_b = (a - ROLLS)[:, None], (b - ROLLS)[None, :]
    same = ok_a[:, None] == ok_b[None, :]
    a_wins = (ok_a[:, None] & ~ok_b[None, :]) | (same & (m_a > m_b))
    b_wins = (ok_b[None, :] & ~ok_a[:, None]) | (same & (m_b > m_a))
    tie = same & (m_a == m_b)
    if spec.defender is not None:
        a_wins, b_wins = (a_wins | tie, b_wins) if spec.defender == "a" else (a_wins, b_wins | tie)
        tie = np.zeros_like(tie)
    probs = np.array([joint[a_wins].sum(), joint[b_wins].sum(), joint[tie].sum()])
    diff = m_a - m_b
    degree = np.where(a_wins, diff, np.where(b_wins, -diff, 0))
    dists = {"margin": SPREAD + (a - b), "degree": _joint_dist(degree, joint), "rounds": None}
    return probs, dists, _crit_metrics(a, b, spec.criticals)


def _resistance(spec: ContestSpec) -> tuple[np.ndarray, dict, dict]:
    a, b = spec.rolled_skills
    ok_a, ok_b = _judged(a, spec.criticals)[0], _judged(b, spec.criticals)[0]
    joint = JOINT
    # B wins ties, and B's lone success beats an attack that succeeded by less
    beats = ~ok_b[None, :] | ((a - ROLLS)[:, None] > (b - ROLLS)[None, :])
    affected = float(joint[ok_a[:, None] & beats].sum())
    p_attack = float(ROLL.probs[ok_a].sum())
    probs = np.array([1.0 - p_attack, p_attack - affected, affected])
    dists = dict.fromkeys(DISTRIBUTIONS)
    return probs, dists, _crit_metrics(a, b, spec.criticals, b_rolls=p_attack)


def rounds_dist(q: float, max_rounds: int, eps: float = TAIL_EPS) -> Dist:
    """Rounds played when each round decides with probability ``q``, stopping at
    ``max_rounds``: geometric, with the mass still going at ``max_rounds`` placed there,
    and cut into ``tail`` once what remains is below ``eps``.

    >>> rounds_dist(0.5, 3).to_dict()
    {1: 0.5, 2: 0.25, 3: 0.25}
    >>> d = rounds_dist(0.5, 10**6)
    >>> d.max, d.tail < 1e-14
    (47, True)
    """
    if q >= 1.0:
        return Dist.point(1)
    log_r = math.log1p(-q)
    # smallest n with (1 - q)**n < eps: the geometric has died out beyond it
    n_cut = max(1, math.ceil(math.log(eps) / log_r))
    while math.exp(n_cut * log_r) >= eps:
        n_cut += 1
    n = np.arange(1, min(n_cut, max_rounds) + 1)
    probs = q * np.exp((n - 1) * log_r)
    if n_cut >= max_rounds:
        probs[-1] = math.exp((max_rounds - 1) * log_r)  # decided in the last round, or never
        return Dist(1, probs)
    return Dist(1, probs, math.exp(n_cut * log_r))


def _regular(spec: ContestSpec) -> tuple[np.ndarray, dict, dict]:
    a, b = spec.rolled_skills
    pa, pb = _success_probability(a, spec.criticals), _success_probability(b, spec.criticals)
    win_a, win_b = pa * (1 - pb), pb * (1 - pa)
    q = win_a + win_b
    m = spec.max_rounds
    if q >= 1.0:
        undecided, mean_rounds = 0.0, 1.0
    else:
        undecided = math.exp(m * math.log1p(-q))
        # E[rounds | decided] of a geometric truncated at m: 1/q − m r^m / (1 − r^m)
        mean_rounds = 1 / q - m * undecided / -math.expm1(m * math.log1p(-q))
    decided = 1.0 - undecided
    probs = np.array([win_a / q * decided, win_b / q * decided, undecided])
    dists = {"margin": None, "degree": None, "rounds": rounds_dist(q, m)}
    metrics = {**_crit_metrics(a, b, spec.criticals), "mean_rounds": mean_rounds}
    return probs, dists, metrics


def exact(spec: ContestSpec) -> ExactResult:
    """Exact outcome probabilities, distributions and metrics of a contest.

    Examples
    --------
    >>> r = exact(ContestSpec(kind="regular", a_skill=10, b_skill=10, criticals=False, max_rounds=3))
    >>> {k: round(p, 12) for k, p in r.outcomes.items()}
    {'a_wins': 0.4375, 'b_wins': 0.4375, 'undecided': 0.125}
    >>> r.distributions["rounds"].to_dict(), round(r.metrics["mean_rounds"], 4)
    ({1: 0.5, 2: 0.25, 3: 0.25}, 1.5714)
    """
    probs, dists, metrics = {"quick": _quick, "resistance": _resistance, "regular": _regular}[spec.kind](spec)
    regular = spec.kind == "regular"
    a, b = spec.rolled_skills
    all_metrics: dict[str, float | None] = {name: float(metrics[name]) for name in CRIT_METRICS}
    all_metrics["mean_rounds"] = metrics.get("mean_rounds")
    all_metrics["rescaled_a"] = float(a) if regular else None
    all_metrics["rescaled_b"] = float(b) if regular else None
    return ExactResult(
        system=spec.system,
        params=spec.params(),
        labels=labels(spec),
        probs=probs,
        distributions={name: dists[name] for name in DISTRIBUTIONS},
        metrics=all_metrics,
    )


# -- simulation ------------------------------------------------------------------------------
def kernel_args(spec: ContestSpec) -> k.Args:
    """The kernel's arguments for ``spec``: the values rolled against, after the Rule of
    16 or rescaling."""
    a, b = spec.rolled_skills
    return k.Args(
        kind=KINDS.index(spec.kind),
        a_skill=a,
        b_skill=b,
        criticals=spec.criticals,
        defender=int(k.Defender[(spec.defender or "none").upper()]),
        max_rounds=spec.max_rounds,
    )


def simulated_metrics(spec: ContestSpec, tally: Tally) -> dict[str, float | None]:
    c, n = tally.counters, tally.trials
    metrics: dict[str, float | None] = {m: c[m.removeprefix("p_")] / n for m in CRIT_METRICS}
    regular = spec.kind == "regular"
    decided = int(tally.counts[0] + tally.counts[1]) if regular else 0
    metrics["mean_rounds"] = c["decided_rounds"] / decided if decided else None
    a, b = spec.rolled_skills
    metrics["rescaled_a"] = float(a) if regular else None
    metrics["rescaled_b"] = float(b) if regular else None
    return metrics


SYSTEM = RuleSystem.of_kernel(
    "contest",
    "GURPS-style contests (quick, resistance, regular)",
    spec=ContestSpec,
    exact=exact,
    kernel=k,
    args=kernel_args,
    metrics=simulated_metrics,
    outcomes=lambda spec: OUTCOMES[spec.kind],
    # from side A's view (the one acting): A winning, or the resisted effect landing, is good
    polarity={
        "a_wins": 1,
        "b_wins": -1,
        "tie": 0,
        "undecided": 0,
        "attack_failed": -1,
        "resisted": -1,
        "affected": 1,
    },
)
simulate = SYSTEM.simulate
