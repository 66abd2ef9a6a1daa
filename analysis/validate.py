"""Holding a simulation against the exact engine: chi-square and z-scores.

The outcome labels form one multinomial; each numeric distribution that was simulated
(``damage``, ``margin`` ...) forms another, over its bins plus ``tail``. These groups
come from the same trials, so they are not independent: each group gets its own
chi-square goodness-of-fit test, and the reported ``p_value`` is their Bonferroni
combination ``min(1, k * min p_i)``, a valid (conservative) level-``alpha`` test of the
joint hypothesis "the simulator draws from the exact distribution".

Bins whose expected count is below 5 are pooled with their neighbours (in value order;
the ``tail`` bin always joins the bins before it), the usual condition for the
chi-square approximation. An observation in a bin whose exact probability is 0 fails
outright: no pooling may hide an impossible outcome.

The verdict's ``rows`` (and ``max_abs_z``) are over the same pooled bins the chi-square
tests: a bin expecting 1e-12 counts says nothing, and a row for it would only flood the
table. A pooled row names what it covers: outcome labels joined by ``+``
(``grievous+mort``), a span of a distribution's values (``margin=12..15``), with
``+tail`` when the tail is in it. A pooled row holding an observation in an impossible
bin has z = inf. Every unpooled bin is still in ``bins``.

>>> pooled_names("margin", ["12", "13", "14", "15", "tail"], [(0, 2), (2, 5)])
['margin=12..13', 'margin=14..15+tail']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.text.digits import plain

# Pool until a pooled bin expects this many counts: Cochran's rule for chi-square.
MIN_EXPECTED = 5.0
# the rules' default significance. Tests run at fixed seeds, so a pass is reproducible,
# and at 1e-3 a d20 whose 20 comes up 5.5% instead of 5% is still flagged at 10^7 trials
# (its z is about 70; about 7 at 10^5 trials).
DEFAULT_ALPHA = 1e-3


@dataclass(frozen=True)
class Validation:
    """The verdict of :func:`validate`, with a per-bin table in ``rows``."""

    system: str
    params: dict[str, Any]
    trials: int
    seed: int
    alpha: float
    p_value: float
    max_abs_z: float
    passed: bool
    rows: pd.DataFrame  # the pooled bins: group, outcome, exact, observed, z, expected
    groups: pd.DataFrame
    bins: pd.DataFrame | None = None  # every bin unpooled (same columns but expected)

    def to_json(self) -> dict[str, Any]:
        """The documented JSON (``critlab validate --json``), every number at most 15
        significant digits (:mod:`critlab.analysis.text.digits`)."""

        def num(x: float) -> float | None:
            return None if not np.isfinite(x) else float(x)

        return plain(
            {
                "system": self.system,
                "params": self.params,
                "trials": self.trials,
                "seed": self.seed,
                "alpha": self.alpha,
                "p_value": float(self.p_value),
                "max_abs_z": num(self.max_abs_z),
                "passed": bool(self.passed),
                "rows": [
                    {
                        "outcome": r.outcome,
                        "exact": float(r.exact),
                        "observed": float(r.observed),
                        "z": num(r.z),
                    }
                    for r in self.rows.itertuples()
                ],
            }
        )

    def __repr__(self) -> str:
        verdict = "PASSED" if self.passed else "FAILED"
        return (
            f"<Validation {self.system}: {verdict}, p-value {self.p_value:.3g} (alpha {self.alpha:g}), "
            f"max |z| {self.max_abs_z:.2f}, {self.trials} trials, seed {self.seed}>"
        )

    def _repr_html_(self) -> str:
        """In a notebook: the verdict in words and the bins of largest |z|."""
        from critlab.analysis.display.results import validation_html

        return validation_html(self)

    def verdict(self) -> str:
        """The verdict in words, before any table: whether the simulation agrees with the
        exact engine, and the statistics that say so in one line."""
        where = self.rows.loc[self.rows["z"].abs().idxmax(), "outcome"] if len(self.rows) else "–"
        p = "≥ 0.99" if self.p_value >= 0.995 else f"{self.p_value:.2g}"
        stats = f"chi-square p-value {p}, alpha {self.alpha:g}; largest |z| {self.max_abs_z:.2f}, at {where}"
        if self.passed:
            return f"Passed: {self.trials:,} simulated trials agree with the exact engine ({stats})."
        return f"FAILED: {self.trials:,} simulated trials disagree with the exact engine ({stats})."

    def text(self, most: int = 6) -> str:
        """The verdict in words, then the statistics as a terminal table that fits a
        screen: the pooled outcome rows, and for a distribution of more than ``most``
        pooled bins the ``most`` of largest |z| (``--json`` lists them all)."""
        fmt = {"exact": "{:.6g}".format, "observed": "{:.6g}".format, "z": "{:+.2f}".format}
        shown, notes = [], []
        for group, part in self.rows.groupby("group", sort=False):
            if len(part) > most:
                keep = part["z"].abs().sort_values(ascending=False, kind="stable").index[:most]
                part = part.loc[sorted(keep)]
                notes.append(f"{group}: {len(self.rows[self.rows.group == group])} pooled bins, "
                             f"the {most} of largest |z| shown (--json lists every one)")  # fmt: skip
            shown.append(part)
        table = pd.concat(shown)[["outcome", "exact", "observed", "z"]]
        return "\n".join(
            [
                self.verdict(),
                f"statistics ({self.system}: trials={self.trials} seed={self.seed} alpha={self.alpha})",
                table.to_string(index=False, formatters=fmt),
                *notes,
                self.groups.to_string(index=False, float_format=lambda x: f"{x:.6g}"),
            ]
        )


def _z(count: np.ndarray, p: np.ndarray, n: int) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (count - n * p) / np.sqrt(n * p * (1 - p))
    z = np.where((p <= 0) & (count == 0), 0.0, z)
    z = np.where((p >= 1) & (count == n), 0.0, z)
    return np.where(np.isnan(z), np.inf, z)


def pool_spans(
    expected: np.ndarray, observed: np.ndarray, min_expected: float = MIN_EXPECTED
) -> list[tuple[int, int]]:
    """The ``[start, stop)`` index spans :func:`pool` merges: adjacent bins until each
    expects at least ``min_expected`` counts; a short remainder joins the last span.

    >>> pool_spans(np.array([1.0, 2.0, 3.0, 10.0, 0.5]), np.array([0, 3, 4, 9, 1]))
    [(0, 3), (3, 5)]
    """
    spans: list[tuple[int, int]] = []
    start, e_acc, o_acc = 0, 0.0, 0
    for i, (e, o) in enumerate(zip(expected, observed, strict=True)):
        e_acc += e
        o_acc += o
        if e_acc >= min_expected:
            spans.append((start, i + 1))
            start, e_acc, o_acc = i + 1, 0.0, 0
    if start < len(expected):  # the short remainder
        spans[-1:] = [(spans[-1][0] if spans else 0, len(expected))]
    return spans


def pool(expected: np.ndarray, observed: np.ndarray, min_expected: float = MIN_EXPECTED):
    """Pool adjacent bins until each expects at least ``min_expected`` counts; a short
    remainder joins the last pool. Returns pooled (expected, observed)."""
    spans = pool_spans(expected, observed, min_expected)
    e = np.array([float(np.sum(expected[a:b])) for a, b in spans])
    o = np.array([float(np.sum(observed[a:b])) for a, b in spans], dtype=np.float64)
    return e, o


def pooled_names(group: str | None, names: list[str], spans: list[tuple[int, int]]) -> list[str]:
    """Names of pooled bins: labels joined by ``+`` (``group`` None), or a distribution's
    value span ``group=lo..hi`` with ``+tail`` when its tail bin is in it."""
    out = []
    for a, b in spans:
        part = names[a:b]
        if group is None:
            out.append("+".join(part))
            continue
        tail = part[-1] == "tail"
        values = part[:-1] if tail else part
        text = values[0] if len(values) == 1 else f"{values[0]}..{values[-1]}" if values else ""
        out.append(f"{group}={text}{'+tail' if tail and text else 'tail' if tail else ''}")
    return out


def _pooled_rows(
    group: str | None, names: list[str], p: np.ndarray, c: np.ndarray, drawn: int, *, tail: bool = False
) -> list[tuple[str, str, float, float, float, float]]:
    """One row per pooled bin: (group, name, exact, observed, z, expected count). With ``tail``
    the last bin is a distribution's tail, pooled with the bin before it first (as the
    chi-square pools it)."""
    k = len(p) - 1 if tail and len(p) > 1 else len(p)
    e, o = drawn * p[:k].copy(), c[:k].copy()
    if k < len(p):
        e[-1] += drawn * p[-1]
        o[-1] += c[-1]
    spans = pool_spans(e, o)
    if k < len(p):
        spans[-1] = (spans[-1][0], len(p))
    rows = []
    for name, (a, b) in zip(pooled_names(group, names, spans), spans, strict=True):
        pe, ce = float(p[a:b].sum()), float(c[a:b].sum())
        impossible = bool(((p[a:b] <= 0) & (c[a:b] > 0)).any())
        z = np.inf if impossible else float(_z(np.array([ce]), np.array([pe]), drawn)[0])
        rows.append((group or "outcome", name, pe, ce / drawn if drawn else 0.0, z, drawn * pe))
    return rows


def chi_square(probs: np.ndarray, counts: np.ndarray) -> tuple[float, int, float]:
    """Pooled chi-square test of ``counts`` against ``probs``: (statistic, dof, p-value)."""
    n = int(counts.sum())
    impossible = (probs <= 0) & (counts > 0)
    if impossible.any():
        return float("inf"), max(len(probs) - 1, 1), 0.0
    e, o = pool(n * probs, counts)
    if len(e) < 2:
        return 0.0, 0, 1.0
    e = e * (o.sum() / e.sum())  # the tail (< 1e-12) is the only mass not represented
    stat, p = stats.chisquare(o, e)
    return float(stat), len(e) - 1, float(p)


def validate(exact: ExactResult, sim: SimResult, *, alpha: float = DEFAULT_ALPHA) -> Validation:
    """Test a simulation against the exact result of the same spec.

    Parameters
    ----------
    exact, sim
        Results of ``exact(spec)`` and ``simulate(spec, ...)`` for one spec.
    alpha
        Significance level: passed iff the combined p-value is at least ``alpha``.
    """
    # Wrong arguments named here, not as an AttributeError from deep inside.
    if not isinstance(exact, ExactResult):
        raise TypeError(f"validate: exact must be the result of exact(spec), got {type(exact).__name__}")
    if not isinstance(sim, SimResult):
        raise TypeError(f"validate: sim must be the result of simulate(spec, ...), got {type(sim).__name__}")
    import numbers

    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"validate: alpha must be a number in (0, 1), got {type(alpha).__name__}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if exact.system != sim.system:
        raise ValueError(f"validate: exact is a {exact.system} result but sim a {sim.system} one")
    if tuple(exact.labels) != tuple(sim.labels):
        raise ValueError("exact and simulated results have different outcome labels")
    n = sim.trials
    rows: list[tuple[str, float, float, float]] = []
    groups: list[tuple[str, float, int, float]] = []

    pooled: list[tuple[str, str, float, float, float, float]] = []

    probs = np.asarray(exact.probs, dtype=np.float64)
    counts = sim.tally.counts
    for lab, p, c, z in zip(exact.labels, probs, counts, _z(counts, probs, n), strict=True):
        rows.append((lab, float(p), c / n, float(z)))
    groups.append(("outcome", *chi_square(probs, counts)))
    pooled += _pooled_rows(None, list(exact.labels), probs, np.asarray(counts, dtype=np.float64), n)

    for name, hist in sim.tally.hists.items():
        d = exact.distributions.get(name)
        if d is None:
            continue
        p = np.array([d.pmf(int(v)) for v in hist.values] + [0.0])
        p[-1] = max(0.0, 1.0 - p[:-1].sum())  # tail bin: the exact tail plus anything outside
        c = np.append(hist.counts, hist.tail)
        labels = [f"{name}={v}" for v in hist.values] + [f"{name}=tail"]
        # a histogram's own count of draws: the trials for a per-trial distribution, the
        # weapon lives for one over a weapon's life
        drawn = hist.total or n
        for lab, pi, ci, zi in zip(labels, p, c, _z(c, p, drawn), strict=True):
            rows.append((lab, float(pi), ci / drawn, float(zi)))
        # the tail bin pools with its neighbours: give it no bin of its own
        p_pool, c_pool = p[:-1].copy(), c[:-1].copy()
        if p_pool.size:
            p_pool[-1] += p[-1]
            c_pool[-1] += c[-1]
        groups.append((name, *chi_square(p_pool, c_pool)))
        values = [str(int(v)) for v in hist.values] + ["tail"]
        pooled += _pooled_rows(name, values, p, np.asarray(c, dtype=np.float64), drawn, tail=True)

    bins = pd.DataFrame(rows, columns=["outcome", "exact", "observed", "z"])
    table = pd.DataFrame(pooled, columns=["group", "outcome", "exact", "observed", "z", "expected"])
    group_table = pd.DataFrame(groups, columns=["group", "chi2", "dof", "p_value"])
    p_value = float(min(1.0, len(groups) * group_table["p_value"].min()))
    max_abs_z = float(np.abs(table["z"]).max())
    return Validation(
        system=exact.system,
        params=dict(exact.params),
        trials=n,
        seed=sim.seed,
        alpha=alpha,
        p_value=p_value,
        max_abs_z=max_abs_z,
        passed=p_value >= alpha,
        rows=table,
        groups=group_table,
        bins=bins,
    )
