"""A validation section in a designer's words: the verdict in one short sentence, the
answer (the outcomes and metrics the section simulated, exact), then the statistics one
click away.

The statistics open with a sentence that gives the trials, the p-value named for what
it is (one group's own, or the Bonferroni combination of several, never a bare "p =
1"), and how far the worst pooled bin strays, in standard errors at the tables'
precision, set against what chance lets the worst of that many bins do
(:func:`expected_max_z`). The collapsed details hold that sentence, the figure (exact
bars against simulated points, every outcome's z and the worst bin's), the outcomes and
metrics (exact at full precision beside simulated ± SE), and one line per group of bins
(its pooled bins, the largest |z| and where, the chi-square). Every row and |z| is over
the pooled bins (:func:`critlab.analysis.validate.validate`): a bin expecting 1e-12
counts is never shown. A bin's ``se`` and ``z`` both come from its exact probability,
on the page and in the CSV, which holds every pooled bin.

>>> verdict_sentence(True, 10_000_000, "margin=7", 1.84)
'Passed: 10,000,000 simulated trials agree with the exact engine.'
>>> trust_sentence(True, 10_000_000, 1.84, "margin=7", 0.43, 157, 0.001)[:72]
'The simulator (10,000,000 trials) agrees with the exact engine here (chi'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.report import validation_chart
from critlab.analysis.report.doc import Details, Figure, Paragraph, Table, fmt_se, fmt_z, slug
from critlab.analysis.report.tables import is_probability
from critlab.analysis.report.words import params_words, words
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.results import json_number as _num
from critlab.analysis.text.human import number, percent
from critlab.analysis.validate import Validation


def p_is(p: float) -> str:
    """A p-value as a sentence states it, never "= 1": a Bonferroni combination is capped
    at 1, which says only that it is at least the printed bound.

    >>> p_is(0.683), p_is(1.0), p_is(0.9971), p_is(3.2e-7)
    ('= 0.68', '≥ 0.99', '≥ 0.99', '= 3.2e-07')
    """
    if p >= 0.995:  # would print as 1
        return "≥ 0.99"
    return f"= {p:.2g}"


def z_text(z: float) -> str:
    """|z| at the one precision every table and sentence of a validation prints it."""
    return "∞" if not math.isfinite(z) else f"{abs(z):.2f}"


def expected_max_z(n: int) -> float:
    """The expected largest |z| of ``n`` independent standard normal bins,
    ``∫₀^∞ 1 − (2Φ(x) − 1)ⁿ dx`` (what chance alone lets the worst of n bins stray).

    >>> round(expected_max_z(1), 4), round(expected_max_z(100), 2)
    (0.7979, 2.75)
    """
    from scipy import integrate, special

    n = max(1, int(n))
    value, _ = integrate.quad(lambda x: 1.0 - special.erf(x / math.sqrt(2.0)) ** n, 0.0, 40.0, limit=200)
    return float(value)


def p_sentence(p_value: float, group_p: list[float]) -> str:
    """The chi-square's p-value in words: one group's own p-value, or several groups'
    smallest and their Bonferroni combination, named as such.

    >>> print(p_sentence(1.0, [0.68, 0.9, 0.75]).replace("; ", ";\\n"))
    the smallest of 3 groups' chi-square p-values is 0.68;
    combined over the 3 groups (Bonferroni), p ≥ 0.99
    """
    if len(group_p) <= 1:
        return f"chi-square p {p_is(p_value)}"
    smallest = min(group_p)
    return (
        f"the smallest of {len(group_p)} groups' chi-square p-values is {smallest:.2g}; combined over the "
        f"{len(group_p)} groups (Bonferroni), p {p_is(p_value)}"
    )


def trust_sentence(
    passed: bool,
    trials: int,
    max_z: float,
    where: str,
    p_value: float,
    bins: int,
    alpha: float,
    group_p: list[float] | None = None,
    worst_expected: float | None = None,
) -> str:
    """The section's verdict as a designer reads it: the largest deviation at the printed
    precision of the tables, set against what chance lets ``bins`` bins do, and the
    p-value named for what it is."""
    z = z_text(max_z)
    pv = p_sentence(p_value, group_p if group_p is not None else [p_value])
    if not passed:
        return (
            f"FAILED: the simulator ({trials:,} trials) disagrees with the exact engine here: {where} is "
            f"{z} standard errors off ({pv} < α = {alpha:g}). Do not trust these numbers until the "
            "difference is explained."
        )
    expect = expected_max_z(bins)
    chance = f"chance gives the worst of {bins} bins (their expected largest |z| is {expect:.2f})"
    if not math.isfinite(max_z) or max_z <= 1.25 * expect:
        against = f"{'less than' if max_z < 0.75 * expect else 'about what'} {chance}"
    else:
        against = (
            f"more than the expected largest |z| of {bins} bins ({expect:.2f}), yet the chi-square over "
            "the whole distribution does not reject it"
        )
        if worst_expected is not None and worst_expected < 50:
            against += (
                f": that bin expects only {worst_expected:.0f} counts, and a small count's z runs further "
                "than a normal variable's"
            )
    return (
        f"The simulator ({trials:,} trials) agrees with the exact engine here ({pv}). Every one of "
        f"{bins} pooled bins lies within {z} standard errors of its exact probability; the largest "
        f"({where}) is {against}."
    )


def verdict_sentence(passed: bool, trials: int, where: str, max_z: float) -> str:
    """A validation's verdict in words, before any statistic: what agrees or where it
    does not."""
    if passed:
        return f"Passed: {trials:,} simulated trials agree with the exact engine."
    return (
        f"FAILED: {trials:,} simulated trials disagree with the exact engine at {where} ({z_text(max_z)} "
        "standard errors off). Do not trust these numbers until the difference is explained."
    )


# The answer names at most this many outcomes (the likeliest) and metrics; the tables
# one click away hold every one.
ANSWER_OUTCOMES = 8
ANSWER_METRICS = 3


def answer_sentence(exact: ExactResult, spec_cls: Any) -> str:
    """What the validated point's numbers are, exact, in a designer's words: its outcomes
    (the likeliest first when there are many; none that these rules cannot reach) in
    percent and its first metrics.

    >>> from types import SimpleNamespace as NS
    >>> r = NS(outcomes={"hit": 0.6075, "crit": 0.19, "miss": 0.2025}, metrics={"expected_damage": 5.18425})
    >>> answer_sentence(r, None)
    'Exact: hit 60.75%, crit 19.00%, miss 20.25%; expected damage 5.184.'
    """
    outcomes = [(k, p) for k, p in exact.outcomes.items() if p != 0.0]  # not what cannot happen here
    if len(outcomes) > ANSWER_OUTCOMES:
        outcomes = sorted(outcomes, key=lambda kv: -kv[1])[:ANSWER_OUTCOMES]
    said = ", ".join(f"{words(k, spec_cls)} {percent(p)}" for k, p in outcomes)
    metrics = [(k, v) for k, v in exact.metrics.items() if v is not None][:ANSWER_METRICS]
    if metrics:
        said += "; " + ", ".join(
            f"{words(k, spec_cls)} {number(v, probability=is_probability(k))}" for k, v in metrics
        )
    return f"Exact: {said}."


def summary_sentence(validations: list[dict[str, Any]]) -> str:
    """The validation summary's one line: "the simulator (N trials) agrees with the
    exact engine: every number in this report can be trusted to ±SE", with the SE of a
    5% chance at the smallest trial count, computed."""
    if not validations:
        return "Nothing was simulated: the report's numbers are the exact engine's alone."
    failed = [v for v in validations if not v["passed"]]
    trials = min(v["trials"] for v in validations)
    most = max(v["trials"] for v in validations)
    count = f"{trials:,}" if trials == most else f"{trials:,} to {most:,}"
    se = math.sqrt(0.05 * 0.95 / trials)
    if not failed:
        return (
            f"The simulator ({count} trials per validation, {len(validations)} validations) agrees with "
            f"the exact engine: every number in this report can be trusted to ±SE (a 5% chance is measured "
            f"to ±{100 * se:.2g} percentage points)."
        )
    names = ", ".join(f"{v['system']} · {v['title']}" for v in failed)
    return (
        f"The simulator disagrees with the exact engine in {len(failed)} of {len(validations)} validations "
        f"({names}): the numbers of those systems cannot be trusted until this is explained."
    )


def _worst(rows: pd.DataFrame) -> tuple[float, str]:
    if rows.empty:
        return 0.0, "–"
    z = rows["z"].abs()
    i = z.idxmax()
    return float(z[i]), str(rows.loc[i, "outcome"])


def _worst_row(rows: pd.DataFrame) -> pd.Series | None:
    return None if rows.empty else rows.loc[rows["z"].abs().idxmax()]


def pooled_se(rows: pd.DataFrame, trials: int) -> np.ndarray:
    """Each pooled row's standard error, ``sqrt(p (1 − p) / draws)`` from its *exact*
    probability ``p``: the same standard error its ``z`` divides by (draws from the
    expected count over ``p``; the trials where ``p`` is 0)."""
    p = rows["exact"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        drawn = np.where(p > 0, rows["expected"].to_numpy(dtype=float) / p, float(trials))
        return np.sqrt(p * (1 - p) / drawn)


def exact_text(x: float | None) -> str:
    """An exact value at full precision (12 significant digits; noise below 1e-12 is 0).

    >>> exact_text(0.0975), exact_text(1 / 3), exact_text(2.4e-17)
    ('0.0975', '0.333333333333', '0')
    """
    if x is None or math.isnan(x):
        return "–"
    return "0" if abs(x) < 1e-12 else f"{x:.12g}"


@dataclass(frozen=True)
class ValidationRun:
    """What one validation section compared: the section and its configuration, the exact
    result, the batched simulation (each metric's batch-means SE), their comparison, and
    the trials and seed it ran with."""

    section: Any
    cfg: Any
    exact: ExactResult
    sim: SimResult
    v: Validation
    metric_se: dict[str, float | None]
    trials: int
    seed: int

    @property
    def spec_cls(self) -> Any:
        return type(self.section.spec)  # names in words from its declarations

    @property
    def key(self) -> str:
        return f"{self.section.system}/{self.section.id}"

    @property
    def stem(self) -> str:
        return f"{slug(self.section.system)}--{self.section.id}"

    @property
    def p_exact(self) -> np.ndarray:
        return np.asarray(self.exact.probs, dtype=float)

    @property
    def se(self) -> np.ndarray:
        """Each outcome's SE from its exact probability, as its z is."""
        return np.sqrt(self.p_exact * (1 - self.p_exact) / self.trials)

    @property
    def z_label(self) -> pd.Series:
        """Each bin's z by its outcome label."""
        bins = self.v.bins if self.v.bins is not None else self.v.rows
        return bins.set_index("outcome")["z"]

    @property
    def outcome_rows(self) -> pd.DataFrame:
        return self.v.rows[self.v.rows["group"] == "outcome"]

    @property
    def group_p(self) -> list[float]:
        return [float(g) for g in self.v.groups["p_value"]]

    def said(self, name: str) -> str:
        return words(name, self.spec_cls)


def validation_output(run: ValidationRun, out: Any) -> float:
    """Fill a section's output (blocks after its heading, metrics, CSV); returns the
    largest |z| over the pooled outcome rows."""
    z_outcomes, _ = _worst(run.outcome_rows)
    max_z, where = _worst(run.v.rows)
    if run.section.note:
        out.blocks.append(Paragraph(run.section.note, "note"))
    verdict = verdict_sentence(run.v.passed, run.trials, run.said(where), max_z)
    out.blocks.append(Paragraph(verdict, "ok" if run.v.passed else "fail"))
    out.blocks.append(Paragraph(answer_sentence(run.exact, run.spec_cls), "lead"))
    stats: list = [
        Paragraph(_trust(run, max_z, where)),
        _figure(run, max_z, where),
        _outcome_table(run),
    ]
    metrics = _metric_table(run, out)
    if metrics is not None:
        stats.append(metrics)
    stats.append(_group_table(run))
    out.blocks.append(Details(f"Statistics: {len(run.v.rows)} pooled bins, max |z| {z_text(max_z)}", stats))
    _outcome_metrics(run, out)
    csv = run.v.rows.assign(se=pooled_se(run.v.rows, run.trials))
    out.tables[f"tables/{run.stem}.csv"] = csv[
        ["group", "outcome", "exact", "observed", "se", "z", "expected"]
    ]
    return z_outcomes


def _trust(run: ValidationRun, max_z: float, where: str) -> str:
    worst = _worst_row(run.v.rows)
    return trust_sentence(
        run.v.passed,
        run.trials,
        max_z,
        run.said(where),
        run.v.p_value,
        len(run.v.rows),
        run.cfg.alpha,
        run.group_p,
        None if worst is None else float(worst["expected"]),
    )


def _figure(run: ValidationRun, max_z: float, where: str) -> Figure:
    """Exact bars against simulated points, every outcome's z, and the worst bin's too
    where it is pooled or not an outcome."""
    labels = list(run.exact.labels)
    worst = _worst_row(run.v.rows)
    worst_label = run.said(where)
    extra = None
    if worst is not None and worst_label not in [run.said(lab) for lab in labels]:
        extra = (worst_label, float(worst["z"]))
    z_label = run.z_label
    picture, narrow = validation_chart.validation_pictures(
        run.section.title,
        [run.said(lab) for lab in labels],
        run.p_exact,
        run.sim.tally.frequencies,
        run.se,
        np.array([z_label[lab] for lab in labels]),
        run.trials,
        extra=extra,
        worst=worst_label,
    )
    return Figure(
        f"figures/{run.stem}.png",
        picture,
        f"Exact vs simulated ({run.trials:,} trials): each outcome's exact probability (bar) and simulated "
        f"frequency (point, ± 1 SE) agree; the right panel gives each bin's z, the largest "
        f"{z_text(max_z)} at {worst_label}.",
        narrow=narrow,
    )


def _outcome_table(run: ValidationRun) -> Table:
    rows = run.outcome_rows
    pse = pooled_se(rows, run.trials)
    cells = [
        [run.said(r.outcome), exact_text(r.exact), fmt_se(r.observed, s), fmt_z(r.z)]
        for r, s in zip(rows.itertuples(), pse, strict=True)
    ]
    return Table(
        ["outcome", "exact", "simulated ± SE", "z"],
        cells,
        caption="Outcomes (rare ones pooled); exact to 12 significant digits, SE and z both from the "
        "exact probability.",
        csv=f"tables/{run.stem}.csv",
    )


def _metric_table(run: ValidationRun, out: Any) -> Table | None:
    """Each metric exact beside simulated ± its batch-means SE (None without metrics);
    both recorded in the output's metrics."""
    key, trials = run.key, run.trials
    mrows = []
    for name, ev in run.exact.metrics.items():
        sv, sse = run.sim.metrics.get(name), run.metric_se.get(name)
        z = (sv - ev) / sse if None not in (sv, sse, ev) and sse > 0 else math.nan
        mrows.append([run.said(name), exact_text(ev), fmt_se(sv, sse), fmt_z(z)])
        out.metrics[f"{key}/exact/{name}"] = {"kind": "exact", "value": _num(ev)}
        out.metrics[f"{key}/simulated/{name}"] = {
            "kind": "simulated",
            "value": _num(sv),
            "se": _num(sse),
            "exact": _num(ev),
            "z": _num(z),
            "trials": trials,
        }
    if not mrows:
        return None
    return Table(
        ["metric", "exact", "simulated ± SE", "z"],
        mrows,
        caption=f"Metrics; standard errors from {run.cfg.batches} batch means.",
    )


def _group_table(run: ValidationRun) -> Table:
    """One line per group of bins, and how the groups' p-values make the verdict."""
    v, cfg, group_p = run.v, run.cfg, run.group_p
    grows = []
    for g in v.groups.itertuples():
        part = v.rows[v.rows["group"] == g.group]
        gz, gwhere = _worst(part)
        grows.append(
            [
                run.said(g.group),
                str(len(part)),
                f"{z_text(gz)} ({run.said(gwhere)})",
                f"{g.chi2:.4g}",
                str(int(g.dof)),
                f"{g.p_value:.3g}",
            ]
        )
    combined = (
        f"the verdict is the group's own p-value (p {p_is(v.p_value)} against α = {cfg.alpha:g})"
        if len(group_p) <= 1
        else f"the verdict is their Bonferroni combination, min(1, {len(group_p)} × the smallest p-value) "
        f"(p {p_is(v.p_value)} against α = {cfg.alpha:g})"
    )
    params = params_words({k: val for k, val in run.exact.params.items()}, run.spec_cls)
    return Table(
        ["group", "pooled bins", "max |z| (where)", "chi²", "dof", "p-value"],
        grows,
        caption=f"Bins pooled to ≥ 5 expected counts; {combined}. Simulated with seed {run.seed} in "
        f"{cfg.batches} batches. Parameters: {params}.",
    )


def _outcome_metrics(run: ValidationRun, out: Any) -> None:
    """Each outcome's exact probability and simulated frequency, into the output's metrics."""
    p_exact, freq, se, z_label = run.p_exact, run.sim.tally.frequencies, run.se, run.z_label
    for i, lab in enumerate(run.exact.labels):
        out.metrics[f"{run.key}/exact/{lab}"] = {"kind": "exact", "value": float(p_exact[i])}
        out.metrics[f"{run.key}/simulated/{lab}"] = {
            "kind": "simulated",
            "value": float(freq[i]),
            "se": float(se[i]),
            "exact": float(p_exact[i]),
            "z": _num(z_label[lab]) if math.isfinite(z_label[lab]) else None,
            "trials": run.trials,
        }
