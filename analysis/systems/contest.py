"""``contest``: GURPS-style contests (RULES.md; seed 003_1f28e6f26497e1a1.txt).

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
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from critlab.analysis.dist import TAIL_EPS, Dist
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.spec import Spec, SpecError, check_bool, check_choice, check_int
from critlab.analysis.systems.base import BenchCase, RuleSystem, hist_ranges, simulate_tally, simulating
from critlab.analysis.tally import Layout
from critlab.kernels import contest as k

KINDS = ("quick", "resistance", "regular")
MAX_ROUNDS_LIMIT = 10**6
_LABELS = {
    "quick": ("a_wins", "b_wins", "tie"),
    "resistance": ("attack_failed", "resisted", "affected"),
    "regular": ("a_wins", "b_wins", "undecided"),
}
HISTS = {"quick": ("margin", "degree"), "resistance": (), "regular": ("rounds",)}
DISTRIBUTIONS = ("margin", "degree", "rounds")
CRIT_METRICS = (
    "p_a_critical_success",
    "p_a_critical_failure",
    "p_b_critical_success",
    "p_b_critical_failure",
)
COUNTERS = (
    "a_critical_success",
    "a_critical_failure",
    "b_critical_success",
    "b_critical_failure",
    "decided_rounds",
)

# 3d6, the success roll: rolls 3..18 and their probabilities.
ROLL = Dist.die(6).repeat(3)
ROLLS = ROLL.values
# Ways of rolling each total out of 216: success probabilities are whole counts over 216,
# so "always succeeds" is exactly 1 and no rounding can make an endless contest decidable.
ROLL_WAYS = np.rint(ROLL.probs * 216).astype(np.int64)


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
        the critical successes and failures of RULES.md.
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
    kind: Literal["quick", "resistance", "regular"] = "quick"
    a_skill: int | None = None
    b_skill: int | None = None
    criticals: bool = True
    defender: Literal["a", "b"] | None = None
    rule_of_16: bool = True
    max_rounds: int = 1000
    rescale: bool = False

    def validate(self) -> None:
        check_choice("kind", self.kind, KINDS)
        check_int("a_skill", self.a_skill)
        check_int("b_skill", self.b_skill)
        check_bool("criticals", self.criticals)
        if self.defender not in (None, "a", "b"):
            raise SpecError("defender", self.defender, "must be a, b or none")
        check_bool("rule_of_16", self.rule_of_16)
        check_int("max_rounds", self.max_rounds, 1, MAX_ROUNDS_LIMIT)
        check_bool("rescale", self.rescale)
        if self.kind == "regular":
            a, b = self.rolled_skills
            if _decide_probability(a, b, self.criticals) == 0.0:
                raise SpecError(
                    "a_skill, b_skill",
                    f"{self.a_skill}, {self.b_skill}",
                    f"rolling against {a} and {b} with criticals={str(self.criticals).lower()} no round of a "
                    "regular contest can ever decide (both always succeed or both always fail)",
                )

    def unused(self) -> frozenset[str]:
        return {
            "quick": frozenset({"rule_of_16", "max_rounds", "rescale"}),
            "resistance": frozenset({"defender", "max_rounds", "rescale"}),
            "regular": frozenset({"defender", "rule_of_16"}),
        }[self.kind]

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
    return _LABELS[spec.kind]


def effective_attack_skill(attack: int, resistance: int) -> int:
    """The Rule of 16: the attacker's skill capped at max(16, the resistance)."""
    return min(attack, max(16, resistance))


def rescale_skills(a: int, b: int) -> tuple[int, int]:
    """Rescale a regular contest's values (RULES.md): both in 1–6 are multiplied, both
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


def _success_probability(skill: int, criticals: bool) -> float:
    return int(ROLL_WAYS[judge(skill, ROLLS, criticals=criticals)[0]].sum()) / 216


def _decide_probability(a: int, b: int, criticals: bool) -> float:
    """P(a round of a regular contest decides): exactly one side succeeds."""
    pa, pb = _success_probability(a, criticals), _success_probability(b, criticals)
    return pa * (1 - pb) + pb * (1 - pa)


def _joint_dist(values: np.ndarray, weights: np.ndarray) -> Dist:
    lo = int(values.min())
    return Dist(lo, np.bincount((values - lo).ravel(), weights=weights.ravel()))


def _crit_metrics(a: int, b: int, criticals: bool, b_rolls: float = 1.0) -> dict[str, float]:
    _, cs_a, cf_a = judge(a, ROLLS, criticals=criticals)
    _, cs_b, cf_b = judge(b, ROLLS, criticals=criticals)
    p = ROLL.probs
    return dict(
        zip(
            CRIT_METRICS,
            (p[cs_a].sum(), p[cf_a].sum(), b_rolls * p[cs_b].sum(), b_rolls * p[cf_b].sum()),
            strict=True,
        )
    )


def _quick(spec: ContestSpec) -> tuple[np.ndarray, dict, dict]:
    a, b = spec.rolled_skills
    ok_a, _, _ = judge(a, ROLLS, criticals=spec.criticals)
    ok_b, _, _ = judge(b, ROLLS, criticals=spec.criticals)
    joint = np.outer(ROLL.probs, ROLL.probs)  # [roll of A, roll of B]
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
    dists = {"margin": (a - ROLL) - (b - ROLL), "degree": _joint_dist(degree, joint), "rounds": None}
    return probs, dists, _crit_metrics(a, b, spec.criticals)


def _resistance(spec: ContestSpec) -> tuple[np.ndarray, dict, dict]:
    a, b = spec.rolled_skills
    ok_a, _, _ = judge(a, ROLLS, criticals=spec.criticals)
    ok_b, _, _ = judge(b, ROLLS, criticals=spec.criticals)
    joint = np.outer(ROLL.probs, ROLL.probs)
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


def simulate(
    spec: ContestSpec,
    *,
    trials: int,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    client: Any = None,
) -> SimResult:
    """Simulate ``trials`` contests roll by roll (see :mod:`critlab.kernels.contest`); ``client``
    (a Dask client) runs the same blocks on a cluster.

    Examples
    --------
    >>> spec = ContestSpec(kind="resistance", a_skill=18, b_skill=12)
    >>> sim = simulate(spec, trials=10_000, seed=1, progress=False)
    >>> sim.trials, int(sim.tally.counts.sum()), sim.labels
    (10000, 10000, ('attack_failed', 'resisted', 'affected'))
    """
    ex = exact(spec)
    layout = Layout(labels(spec), hist_ranges(ex, HISTS[spec.kind]), counters=COUNTERS)
    lay = layout.array
    a, b = spec.rolled_skills
    kind = KINDS.index(spec.kind)
    defender = {None: k.NO_DEFENDER, "a": k.DEFENDER_A, "b": k.DEFENDER_B}[spec.defender]

    def block(state: np.ndarray, n: int, out: np.ndarray) -> None:
        k.block(state, n, out, lay, kind, a, b, spec.criticals, defender, spec.max_rounds)

    tally = simulate_tally(
        layout,
        block,
        trials=trials,
        seed=seed,
        threads=threads,
        progress=progress,
        desc="contest",
        client=client,
    )
    c, n = tally.counters, tally.trials
    metrics: dict[str, float | None] = {
        m: c[name] / n for m, name in zip(CRIT_METRICS, COUNTERS[:4], strict=True)
    }
    regular = spec.kind == "regular"
    decided = int(tally.counts[0] + tally.counts[1]) if regular else 0
    metrics["mean_rounds"] = c["decided_rounds"] / decided if decided else None
    metrics["rescaled_a"] = float(a) if regular else None
    metrics["rescaled_b"] = float(b) if regular else None
    return SimResult.of(ex, tally, metrics)


# -- design tables and plots ----------------------------------------------------------------
def rescale_table(spec: ContestSpec, *, skills: Iterable[int] = range(1, 21)) -> pd.DataFrame:
    """Regular contests with and without rescaling, for every pair of ``skills`` (exact).

    One row per (``a_skill``, ``b_skill``): the rescaled values, P(A wins) and the mean
    rounds of a decided contest, plain and rescaled, and the change in P(A wins). A pair
    that no round can decide (only with criticals off) has NaN in that setting.

    >>> t = rescale_table(ContestSpec(a_skill=10, b_skill=10), skills=[3, 4, 20, 23])
    >>> row = t[(t.a_skill == 20) & (t.b_skill == 23)].iloc[0]
    >>> int(row.rescaled_a), int(row.rescaled_b), bool(row.mean_rounds > row.mean_rounds_rescaled)
    (10, 12, True)
    """
    from critlab.analysis.sweep import sweep

    # Every pair is swept, so the base spec's own skills do not matter; 10 vs 11 is any
    # pair a regular contest accepts, whatever ``criticals`` says.
    base = spec.replace(kind="regular", a_skill=10, b_skill=11)
    skills = list(skills)
    frames = []
    for rescale in (False, True):
        for a in skills:
            decidable = [
                b
                for b in skills
                if _decide_probability(*(rescale_skills(a, b) if rescale else (a, b)), base.criticals) > 0
            ]
            if decidable:
                frames.append(sweep(base, a_skill=[a], b_skill=decidable, rescale=[rescale]))
    df = pd.concat(frames, ignore_index=True)
    df = df[df.name.isin(["a_wins", "mean_rounds", "rescaled_a", "rescaled_b"])]
    wide = df.pivot(index=["a_skill", "b_skill"], columns=["name", "rescale"], values="exact")
    out = pd.DataFrame(index=pd.MultiIndex.from_product([skills, skills], names=["a_skill", "b_skill"]))
    out["rescaled_a"] = wide[("rescaled_a", True)]
    out["rescaled_b"] = wide[("rescaled_b", True)]
    out["p_a_wins"] = wide[("a_wins", False)]
    out["p_a_wins_rescaled"] = wide[("a_wins", True)]
    out["p_a_wins_change"] = out["p_a_wins_rescaled"] - out["p_a_wins"]
    out["mean_rounds"] = wide[("mean_rounds", False)]
    out["mean_rounds_rescaled"] = wide[("mean_rounds", True)]
    return out.reset_index()


def _axes(ax, n: int, width: float):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(1, n, figsize=(width, 4.2), constrained_layout=True)
        return fig, np.atleast_1d(ax)
    axes = np.atleast_1d(ax)
    return axes[0].figure, axes


def _heatmap(ax, grid: pd.DataFrame, *, title: str, label: str, **style):
    """Draw ``grid`` (index b_skill, columns a_skill) as a heatmap with a colour bar."""
    image = ax.imshow(
        grid.to_numpy(dtype=float),
        origin="lower",
        aspect="auto",
        extent=(
            grid.columns.min() - 0.5,
            grid.columns.max() + 0.5,
            grid.index.min() - 0.5,
            grid.index.max() + 0.5,
        ),
        **style,
    )
    ax.set(xlabel="A's skill", ylabel="B's skill", title=title)
    ax.figure.colorbar(image, ax=ax, label=label)
    return image


def plot_regular_rescale(spec: ContestSpec, *, skills: Iterable[int] = range(1, 21), ax=None):
    """How rescaling changes a regular contest, for every pair of skills (exact): the
    change in P(A wins) and how many times shorter the decided contest gets."""
    from matplotlib.colors import LogNorm

    table = rescale_table(spec, skills=skills)
    fig, axes = _axes(ax, 2, 11)
    change = table.pivot(index="b_skill", columns="a_skill", values="p_a_wins_change")
    limit = max(float(np.nanmax(np.abs(change.to_numpy()))), 1e-9)
    _heatmap(
        axes[0], change, title="Rescaling: change in P(A wins) (exact)", label="rescaled − plain",
        cmap="RdBu", vmin=-limit, vmax=limit,
    )  # fmt: skip
    ratio = table.assign(r=table.mean_rounds / table.mean_rounds_rescaled).pivot(
        index="b_skill", columns="a_skill", values="r"
    )
    _heatmap(
        axes[1], ratio, title="Rescaling: mean rounds, plain / rescaled (exact)", label="times shorter",
        cmap="viridis", norm=LogNorm(vmin=max(float(np.nanmin(ratio.to_numpy())), 1e-3)),
    )  # fmt: skip
    return fig


def plot_quick_heatmap(spec: ContestSpec, *, skills: Iterable[int] = range(3, 21), ax=None):
    """Quick contests over skill pairs (exact): P(A wins) and P(tie)."""
    from critlab.analysis.sweep import sweep

    skills = list(skills)
    df = sweep(spec.replace(kind="quick"), a_skill=skills, b_skill=skills)
    fig, axes = _axes(ax, 2, 11)
    for axis, name, title in ((axes[0], "a_wins", "P(A wins)"), (axes[1], "tie", "P(tie)")):
        grid = df[(df.kind == "outcome") & (df.name == name)].pivot(
            index="b_skill", columns="a_skill", values="exact"
        )
        _heatmap(
            axis, grid, title=f"Quick contest: {title} (exact)", label="probability", cmap="magma", vmin=0
        )
    return fig


def plot_quick_margin(spec: ContestSpec, *, a_skills: Iterable[int] | None = None, ax=None):
    """Quick contests against B's skill (exact): the margin m_A − m_B and the degree of
    victory for a few skills of A (default A's skill −3, +0, +3)."""
    a_skills = [spec.a_skill - 3, spec.a_skill, spec.a_skill + 3] if a_skills is None else list(a_skills)
    fig, axes = _axes(ax, 2, 11)
    for a in a_skills:
        r = exact(spec.replace(kind="quick", a_skill=a))
        for axis, name in zip(axes, ("margin", "degree"), strict=True):
            d = r.distributions[name]
            axis.plot(d.values, d.probs, marker=".", label=f"A {a} vs B {spec.b_skill}")
    axes[0].axvline(0, color="grey", lw=0.5)
    axes[0].set(xlabel="m_A − m_B", ylabel="probability", title="Quick contest: margin m_A − m_B (exact)")
    axes[1].set(
        xlabel="degree of victory (0 on a tie)", ylabel="probability", title="Degree of victory (exact)"
    )
    for axis in axes:
        axis.legend(fontsize="small")
    return fig


def plot_resistance(
    spec: ContestSpec,
    *,
    a_skills: Iterable[int] = (14, 18, 22),
    b_skills: Iterable[int] = range(3, 25),
    ax=None,
):
    """Resistance rolls (exact): P(affected) against the resistance, with the Rule of 16
    (solid) and without it (dashed)."""
    from critlab.analysis.sweep import sweep

    a_skills = list(a_skills)
    df = sweep(
        spec.replace(kind="resistance"), a_skill=a_skills, b_skill=list(b_skills), rule_of_16=[True, False]
    )
    hit = df[(df.kind == "outcome") & (df.name == "affected")]
    fig, axes = _axes(ax, 1, 6.5)
    for a in a_skills:
        with_rule = hit[(hit.a_skill == a) & hit.rule_of_16]
        (line,) = axes[0].plot(with_rule.b_skill, with_rule.exact, label=f"attack {a}, Rule of 16")
        without = hit[(hit.a_skill == a) & ~hit.rule_of_16]
        axes[0].plot(
            without.b_skill, without.exact, ls="--", color=line.get_color(), label=f"attack {a}, no cap"
        )
    axes[0].set(
        xlabel="resistance (B's skill)", ylabel="P(affected)", title="Resistance rolls: P(affected) (exact)"
    )
    axes[0].legend(fontsize="small", ncols=2)
    return fig


# -- benchmark --------------------------------------------------------------------------------
BENCH_QUICK = dict(a_skill=12, b_skill=10)
BENCH_REGULAR = dict(kind="regular", a_skill=16, b_skill=15)  # ~16 rounds a contest


def _numpy_quick(trials: int, chunk: int = 1 << 20, seed: int = 0, a: int = 12, b: int = 10) -> np.ndarray:
    """An idiomatic vectorised NumPy quick contest: outcome frequencies and margin counts."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(3, dtype=np.int64)
    margins = np.zeros(a - b + 31, dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        roll_a = rng.integers(1, 7, (n, 3)).sum(axis=1)
        roll_b = rng.integers(1, 7, (n, 3)).sum(axis=1)
        ok_a, ok_b = judge(a, roll_a)[0], judge(b, roll_b)[0]
        diff = (a - roll_a) - (b - roll_b)
        a_wins = (ok_a & ~ok_b) | ((ok_a == ok_b) & (diff > 0))
        b_wins = (ok_b & ~ok_a) | ((ok_a == ok_b) & (diff < 0))
        counts += [a_wins.sum(), b_wins.sum(), n - a_wins.sum() - b_wins.sum()]
        margins += np.bincount(diff - (a - b - 15), minlength=margins.size)
    return counts / trials


def _numpy_regular(
    trials: int, chunk: int = 1 << 18, seed: int = 0, a: int = 16, b: int = 15, max_rounds: int = 1000
) -> np.ndarray:
    """An idiomatic vectorised NumPy regular contest: each round rolls only for the
    contests still undecided."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(3, dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        active = np.arange(n)
        winner = np.full(n, 2)
        rounds = np.full(n, max_rounds)
        for r in range(1, max_rounds + 1):
            if not active.size:
                break
            ok_a = judge(a, rng.integers(1, 7, (active.size, 3)).sum(axis=1))[0]
            ok_b = judge(b, rng.integers(1, 7, (active.size, 3)).sum(axis=1))[0]
            decided = ok_a != ok_b
            winner[active[decided]] = np.where(ok_a[decided], 0, 1)
            rounds[active[decided]] = r
            active = active[~decided]
        counts += np.bincount(winner, minlength=3)
    return counts / trials


def _icepool_quick(a: int = 12, b: int = 10) -> tuple[Any, Any]:
    """The same quick contest in icepool: the outcome die and the margin die."""
    import icepool

    roll = 3 @ icepool.d6

    def succeeds(skill: int, r: int) -> bool:
        return r <= 4 or (r <= skill and r <= 16)

    def outcome(ra: int, rb: int) -> str:
        ok_a, ok_b = succeeds(a, ra), succeeds(b, rb)
        diff = (a - ra) - (b - rb)
        if ok_a != ok_b:
            return "a_wins" if ok_a else "b_wins"
        return "a_wins" if diff > 0 else "b_wins" if diff < 0 else "tie"

    return icepool.map(outcome, roll, roll), (a - roll) - (b - roll)


def bench_cases() -> list[BenchCase]:
    quick, regular = ContestSpec(**BENCH_QUICK), ContestSpec(**BENCH_REGULAR)
    return [
        BenchCase(
            name="contest quick (skills 12 vs 10)",
            critlab=simulating(simulate, quick),
            numpy=_numpy_quick,
            exact=lambda: exact(quick).distributions["margin"],
            icepool=_icepool_quick,
        ),
        BenchCase(
            name="contest regular (skills 16 vs 15)",
            critlab=simulating(simulate, regular),
            numpy=_numpy_regular,
        ),
    ]


SYSTEM = RuleSystem(
    name="contest",
    title="GURPS-style contests (quick, resistance, regular)",
    spec=ContestSpec,
    exact=exact,
    legacy_simulate=simulate,
    legacy_plots={
        "quick_heatmap": plot_quick_heatmap,
        "quick_margin": plot_quick_margin,
        "resistance": plot_resistance,
        "regular_rescale": plot_regular_rescale,
    },
    legacy_bench=bench_cases,
)

__all__ = [
    "ContestSpec", "SYSTEM", "bench_cases", "effective_attack_skill", "exact", "judge", "labels",
    "plot_quick_heatmap", "plot_quick_margin", "plot_regular_rescale", "plot_resistance", "rescale_skills",
    "rescale_table", "rounds_dist", "simulate",
]  # fmt: skip
