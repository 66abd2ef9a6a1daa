"""A validation section in a designer's words: one sentence saying whether the simulator
agrees with the exact engine, and the statistics one click away.

The sentence gives the trials and how far the worst pooled bin strays, in standard
errors; the collapsed details hold the figure (exact bars against simulated points, each
outcome's z), the outcomes and metrics with their standard errors, and one line per
group of bins (its pooled bins, the largest |z| and where, the chi-square). Every row
and |z| is over the pooled bins (:func:`critlab.analysis.validate.validate`): a bin
expecting 1e-12 counts is never shown. The CSV holds every pooled bin.

>>> trust_sentence(True, 10_000_000, 1.84, "margin=7", 0.43, 157, 0.001)[:72]
'Passed: the simulator (10,000,000 trials) agrees with the exact engine h'
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.report import figures
from critlab.analysis.report.doc import Details, Figure, Paragraph, Table, fmt, fmt_se, fmt_value, fmt_z, slug
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.validate import Validation


def _num(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def trust_sentence(
    passed: bool, trials: int, max_z: float, where: str, p_value: float, bins: int, alpha: float
) -> str:
    """The section's verdict as a designer reads it."""
    z = "∞" if not math.isfinite(max_z) else f"{max_z:.1f}"
    if passed:
        return (
            f"Passed: the simulator ({trials:,} trials) agrees with the exact engine here; every one of "
            f"{bins} pooled bins lies within {z} standard errors of its exact probability (the largest: "
            f"{where}; chi-square p = {p_value:.2g})."
        )
    return (
        f"FAILED: the simulator ({trials:,} trials) disagrees with the exact engine here: {where} is "
        f"{z} standard errors off (chi-square p = {p_value:.2g} < α = {alpha:g}). Do not trust these "
        "numbers until the difference is explained."
    )


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
            f"The simulator ({count} trials per check, {len(validations)} checks) agrees with the exact "
            f"engine: every number in this report can be trusted to ±SE (a 5% chance is measured to "
            f"±{100 * se:.2g} percentage points)."
        )
    names = ", ".join(f"{v['system']} · {v['title']}" for v in failed)
    return (
        f"The simulator disagrees with the exact engine in {len(failed)} of {len(validations)} checks "
        f"({names}): the numbers of those systems cannot be trusted until this is explained."
    )


def _worst(rows: pd.DataFrame) -> tuple[float, str]:
    if rows.empty:
        return 0.0, "–"
    z = rows["z"].abs()
    i = z.idxmax()
    return float(z[i]), str(rows.loc[i, "outcome"])


def _pooled_se(rows: pd.DataFrame) -> np.ndarray:
    """Each pooled row's standard error from its observed frequency and its draws."""
    with np.errstate(divide="ignore", invalid="ignore"):
        drawn = np.where(rows["exact"] > 0, rows["expected"] / rows["exact"], np.nan)
        f = rows["observed"].to_numpy(dtype=float)
        return np.sqrt(f * (1 - f) / drawn)


def validation_output(
    section: Any,
    cfg: Any,
    exact: ExactResult,
    sim: SimResult,
    v: Validation,
    metric_se: dict[str, float | None],
    trials: int,
    seed: int,
    out: Any,
) -> float:
    """Fill a section's output (blocks after its heading, metrics, CSV); returns the
    largest |z| over the pooled outcome rows."""
    labels = list(exact.labels)
    p_exact = np.asarray(exact.probs, dtype=float)
    freq, se = sim.tally.frequencies, sim.tally.standard_errors
    bins = v.bins if v.bins is not None else v.rows
    z_label = bins.set_index("outcome")["z"]
    outcome_rows = v.rows[v.rows["group"] == "outcome"]
    z_outcomes, _ = _worst(outcome_rows)
    max_z, where = _worst(v.rows)
    key = f"{section.system}/{section.id}"
    stem = f"{slug(section.system)}--{section.id}"

    if section.note:
        out.blocks.append(Paragraph(section.note, "note"))
    out.blocks.append(
        Paragraph(
            trust_sentence(v.passed, trials, max_z, where, v.p_value, len(v.rows), cfg.alpha),
            "ok" if v.passed else "fail",
        )
    )
    params = ", ".join(f"{k} = {fmt_value(val)}" for k, val in exact.params.items() if val is not None)
    stats: list = [
        Figure(
            f"figures/{stem}.png",
            figures.validation_chart(
                section.title, labels, p_exact, freq, se, np.array([z_label[lab] for lab in labels]), trials
            ),
            f"Exact vs simulated ({trials:,} trials): exact probabilities (bars) against simulated "
            "frequencies (points, ±2 SE), and each outcome's z-score.",
        )
    ]
    pse = _pooled_se(outcome_rows)
    rows = [
        [r.outcome, fmt(r.exact), fmt_se(r.observed, s), fmt_z(r.z)]
        for r, s in zip(outcome_rows.itertuples(), pse, strict=True)
    ]
    stats.append(
        Table(
            ["outcome", "exact", "simulated ± SE", "z"],
            rows,
            caption="Outcomes (rare ones pooled).",
            csv=f"tables/{stem}.csv",
        )
    )
    mrows = []
    for name, ev in exact.metrics.items():
        sv, sse = sim.metrics.get(name), metric_se.get(name)
        z = (sv - ev) / sse if None not in (sv, sse, ev) and sse > 0 else math.nan
        mrows.append([name, fmt(ev), fmt_se(sv, sse), fmt_z(z)])
        out.metrics[f"{key}/exact/{name}"] = {"kind": "exact", "value": _num(ev)}
        out.metrics[f"{key}/simulated/{name}"] = {
            "kind": "simulated",
            "value": _num(sv),
            "se": _num(sse),
            "exact": _num(ev),
            "z": _num(z),
            "trials": trials,
        }
    if mrows:
        stats.append(
            Table(
                ["metric", "exact", "simulated ± SE", "z"],
                mrows,
                caption=f"Metrics; standard errors from {cfg.batches} batch means.",
            )
        )
    grows = []
    for g in v.groups.itertuples():
        part = v.rows[v.rows["group"] == g.group]
        gz, gwhere = _worst(part)
        grows.append(
            [
                g.group,
                str(len(part)),
                f"{gz:.2f} ({gwhere})",
                f"{g.chi2:.4g}",
                str(int(g.dof)),
                f"{g.p_value:.3g}",
            ]
        )
    stats.append(
        Table(
            ["group", "pooled bins", "max |z| (where)", "chi²", "dof", "p-value"],
            grows,
            caption=f"Bins pooled to ≥ 5 expected counts; the verdict is the Bonferroni combination "
            f"(p = {v.p_value:.3g} against α = {cfg.alpha:g}). Simulated with seed {seed} in "
            f"{cfg.batches} batches. Parameters: {params}.",
        )
    )
    out.blocks.append(Details(f"Statistics: {len(v.rows)} pooled bins, max |z| {max_z:.2f}", stats))

    for i, lab in enumerate(labels):
        out.metrics[f"{key}/exact/{lab}"] = {"kind": "exact", "value": float(p_exact[i])}
        out.metrics[f"{key}/simulated/{lab}"] = {
            "kind": "simulated",
            "value": float(freq[i]),
            "se": float(se[i]),
            "exact": float(p_exact[i]),
            "z": _num(z_label[lab]) if math.isfinite(z_label[lab]) else None,
            "trials": trials,
        }
    csv = v.rows.assign(se=_pooled_se(v.rows))
    out.tables[f"tables/{stem}.csv"] = csv[["group", "outcome", "exact", "observed", "se", "z", "expected"]]
    return z_outcomes
