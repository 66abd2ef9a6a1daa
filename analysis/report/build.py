"""Build a report: run each configured section, collect figures, tables and metrics.

Sweep sections (``outcomes_by``, ``metric_by``) are exact: one :func:`critlab.analysis.sweep.sweep`
per variant, reshaped into a *wide table* (one row per grid point, one column per
axis and quantity). Validation sections simulate the spec in ``batches`` independent
runs (seeds derived from the report seed and the section's key, so adding a section
never changes another's numbers), merge the tallies for
:func:`critlab.analysis.validate.validate`, and take each simulated metric's standard error
from the spread of its batch estimates (batch means), which needs nothing but the
metric itself.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import operator
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.report import figures
from critlab.analysis.report.config import ReportConfig, SweepSection, SystemBlock, ValidationSection
from critlab.analysis.report.doc import Figure, Heading, Paragraph, Table, fmt, fmt_se, fmt_value, fmt_z
from critlab.analysis.results import SimResult
from critlab.analysis.spec import Spec
from critlab.analysis.sweep import point_seeds, sweep
from critlab.analysis.systems import RuleSystem, get_system
from critlab.analysis.validate import validate

Progress = Callable[[str], None]


def plain_progress(enabled: bool = True) -> Progress:
    """Plain progress lines on stderr, each stamped with the seconds since the start."""
    start = time.perf_counter()

    def say(message: str) -> None:
        if enabled:
            print(f"[{time.perf_counter() - start:7.1f} s] {message}", file=sys.stderr, flush=True)

    return say


@dataclass
class SectionOutput:
    """What one section adds: document blocks, CSV tables, summary metrics and facts."""

    blocks: list = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


def _num(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def anchor(system: str, section_id: str = "") -> str:
    return f"{system}--{section_id}" if section_id else f"sys-{system}"


# -- sweeps -----------------------------------------------------------------------------
def run_sweep(section: SweepSection) -> pd.DataFrame:
    """The section's tidy sweep frame: one :func:`sweep` per variant, a variant column added."""
    frames = []
    variant_axis = next((a for a in section.axes if a.variant), None)
    grid = {k: list(v) for k, v in section.grid.items()}
    for name, spec in section.base_specs.items():
        df = sweep(spec, **grid)
        if variant_axis is not None:
            df.insert(0, variant_axis.name, name)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def table_columns(section: SweepSection) -> list[str]:
    """Quantities in the section's table: the plotted ones first, then the extras."""
    if section.kind == "metric_by":
        return [*section.metrics, *section.outcomes]
    return [*([section.label] if section.sum else []), *section.outcomes, *section.metrics]


def wide_table(section: SweepSection, tidy: pd.DataFrame) -> pd.DataFrame:
    """One row per grid point (outer axes first, the x axis varying fastest), columns:
    the axes (outermost first) and the section's quantities."""
    names = [a.name for a in section.axes]
    wanted = [*section.outcomes, *section.metrics]
    sub = tidy[tidy["name"].isin(wanted)]
    if names:
        wide = sub.set_index([*names, "name"])["exact"].unstack("name").reset_index()
    else:
        wide = sub.set_index("name")["exact"].to_frame().T.reset_index(drop=True)
    wide.columns.name = None
    if section.sum:
        wide[section.label] = wide[list(section.outcomes)].sum(axis=1)
    order = [f"_pos{i}" for i in range(len(names))]
    for i, axis in enumerate(section.axes):
        where = {v: k for k, v in enumerate(axis.values)}
        wide[order[i]] = wide[axis.name].map(lambda v, where=where: where[v])
    wide = wide.sort_values(order[::-1]).drop(columns=order).reset_index(drop=True)
    return wide[[*names[::-1], *table_columns(section)]]


def sweep_metrics(section: SweepSection, wide: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Summary metrics ``system/section/axis=value,.../quantity`` (all exact)."""
    out = {}
    names = [a.name for a in section.axes]
    for row in wide.to_dict(orient="records"):
        point = ",".join(f"{n}={fmt_value(row[n])}" for n in names)
        prefix = f"{section.system}/{section.id}/" + (f"{point}/" if point else "")
        for q in table_columns(section):
            out[prefix + q] = {"kind": "exact", "value": _num(row[q])}
    return out


def display_tables(section: SweepSection, wide: pd.DataFrame) -> list[Table]:
    """The section's tables for the page: long (a row per point) or pivoted (x down,
    the second axis across; one table per quantity and value of a third axis)."""
    columns = table_columns(section)
    axes = section.axes
    facet_values = axes[2].values if len(axes) > 2 else (None,)
    layout = section.table
    if layout == "auto":
        pivots = len(columns) * len(facet_values)
        layout = (
            "pivot" if len(axes) >= 2 and section.chart in ("heatmap", "line") and pivots <= 6 else "long"
        )
    if layout == "none":
        return []
    if layout == "long" or len(axes) < 2:
        lead = [a.name for a in axes][::-1]
        rows = [
            [fmt_value(r[n]) for n in lead] + [fmt(r[q]) for q in columns] for r in wide.to_dict("records")
        ]
        return [Table(header=[*lead, *columns], rows=rows, caption="Exact values.", label_columns=len(lead))]
    x, y = axes[0], axes[1]
    tables = []
    for q in columns:
        for f in facet_values:
            d = wide if f is None else wide[wide[axes[2].name] == f]
            m = figures.matrix(d, x, y, q)
            rows = [
                [fmt_value(xv), *(fmt(m[j, i]) for j in range(len(y.values)))]
                for i, xv in enumerate(x.values)
            ]
            where = "" if f is None else f", {axes[2].name} = {fmt_value(f)}"
            tables.append(
                Table(
                    header=[f"{x.name} ↓ {y.name} →", *(fmt_value(v) for v in y.values)],
                    rows=rows,
                    caption=f"{q}{where} (exact).",
                )
            )
    return tables


def sweep_section(section: SweepSection, say: Progress) -> SectionOutput:
    start = time.perf_counter()
    tidy = run_sweep(section)
    wide = wide_table(section, tidy)
    out = SectionOutput()
    stem = f"{section.system}--{section.id}"
    out.blocks.append(Heading(3, section.title, anchor(section.system, section.id)))
    if section.note:
        out.blocks.append(Paragraph(section.note, "note"))
    draw = {"line": figures.line_chart, "stacked": figures.stacked_chart, "heatmap": figures.heatmap_chart}
    figure_file = None
    if section.chart in draw:
        figure_file = f"figures/{stem}.png"
        axes_text = " × ".join(a.name for a in section.axes)
        out.blocks.append(
            Figure(
                figure_file,
                draw[section.chart](section, wide),
                f"Exact: {section.title}, over {axes_text} ({section.n_points} points).",
            )
        )
    out.blocks.extend(display_tables(section, wide))
    out.tables[f"tables/{stem}.csv"] = wide
    out.metrics = sweep_metrics(section, wide)
    seconds = time.perf_counter() - start
    out.info = {
        "system": section.system,
        "id": section.id,
        "title": section.title,
        "kind": section.kind,
        "chart": section.chart,
        "values": "exact",
        "points": section.n_points,
        "figure": figure_file,
        "table": f"tables/{stem}.csv",
        "seconds": round(seconds, 3),
    }
    say(f"{section.system} · {section.title}: {section.n_points} exact points in {seconds:.1f} s")
    return out


# -- validations --------------------------------------------------------------------------
def validation_seed(report_seed: int, system: str, section_id: str) -> int:
    """A validation's seed, fixed by the report seed and the section's key alone.

    >>> a, b = validation_seed(1, "thac0", "a"), validation_seed(1, "thac0", "b")
    >>> a == validation_seed(1, "thac0", "a") != b
    True
    """
    ss = np.random.SeedSequence([report_seed, zlib.crc32(f"{system}/{section_id}".encode())])
    return int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def batch_sizes(trials: int, batches: int) -> list[int]:
    """``trials`` split into ``batches`` near-equal parts.

    >>> batch_sizes(10, 3)
    [4, 3, 3]
    """
    q, r = divmod(trials, batches)
    return [q + (i < r) for i in range(batches)]


def simulate_batched(
    system: RuleSystem, spec: Spec, *, trials: int, seed: int, batches: int, progress: bool | None
) -> tuple[SimResult, dict[str, float | None]]:
    """A merged simulation of ``batches`` runs and each metric's batch-means standard error."""
    sizes = batch_sizes(trials, batches)
    sims = [
        system.simulate(spec, trials=n, seed=s, progress=progress)
        for n, s in zip(sizes, point_seeds(seed, len(sizes)), strict=True)
    ]
    tally = dataclasses.replace(functools.reduce(operator.add, (s.tally for s in sims)), seed=seed)
    weights = np.array(sizes, dtype=float) / trials
    metrics: dict[str, float | None] = {}
    errors: dict[str, float | None] = {}
    for name in sims[0].metrics:
        values = [s.metrics.get(name) for s in sims]
        if any(v is None or math.isnan(float(v)) for v in values):
            metrics[name] = errors[name] = None
            continue
        v = np.array(values, dtype=float)
        metrics[name] = float(np.dot(weights, v))
        # batch means: the spread of equal-sized batch estimates, over sqrt(batches)
        errors[name] = float(np.std(v, ddof=1) / math.sqrt(len(v)))
    merged = SimResult(system=sims[0].system, params=sims[0].params, tally=tally, metrics=metrics)
    return merged, errors


def validation_section(
    section: ValidationSection, cfg: ReportConfig, seed: int, say: Progress, progress: bool | None
) -> SectionOutput:
    start = time.perf_counter()
    system = get_system(section.system)
    trials = section.trials or cfg.trials
    # a system's first simulation compiles its kernel (cached afterwards): say so before the wait
    say(f"{section.system} · {section.title}: simulating {trials:,} trials in {cfg.batches} batches")
    vseed = validation_seed(seed, section.system, section.id)
    exact = system.exact(section.spec)
    sim, metric_se = simulate_batched(
        system, section.spec, trials=trials, seed=vseed, batches=cfg.batches, progress=progress
    )
    v = validate(exact, sim, alpha=cfg.alpha)
    labels = list(exact.labels)
    p_exact = np.asarray(exact.probs, dtype=float)
    freq, se = sim.tally.frequencies, sim.tally.standard_errors
    # every bin on its own (the verdict's rows pool the rare ones as the chi-square does)
    bins = v.bins if v.bins is not None else v.rows
    z_out = bins.set_index("outcome")["z"]

    out = SectionOutput()
    stem = f"{section.system}--{section.id}"
    key = f"{section.system}/{section.id}"
    verdict = "Passed" if v.passed else "FAILED"
    z_outcomes = float(np.max(np.abs([z_out[lab] for lab in labels])))
    out.blocks.append(Heading(3, f"{section.title}", anchor(section.system, section.id)))
    if section.note:
        out.blocks.append(Paragraph(section.note, "note"))
    params = ", ".join(f"{k} = {fmt_value(val)}" for k, val in exact.params.items() if val is not None)
    out.blocks.append(
        Paragraph(
            f"{verdict}: combined chi-square p-value {v.p_value:.3g} "
            f"{'≥' if v.passed else '<'} α = {cfg.alpha:g}; max |z| {z_outcomes:.2f} over the outcomes "
            f"({v.max_abs_z:.2f} over all {len(v.rows)} bins, pooled to at least 5 expected counts as the "
            f"chi-square pools them). Simulated: {trials:,} trials in {cfg.batches} batches, seed {vseed}. "
            f"Parameters: {params}.",
            "ok" if v.passed else "fail",
        )
    )
    out.blocks.append(
        Figure(
            f"figures/{stem}.png",
            figures.validation_chart(
                section.title, labels, p_exact, freq, se, np.array([z_out[lab] for lab in labels]), trials
            ),
            f"Exact vs simulated ({trials:,} trials): {section.title}. Exact probabilities (bars) against "
            "simulated frequencies (points, ±2 SE), and each outcome's z-score.",
        )
    )
    rows = [[lab, fmt(p_exact[i]), fmt_se(freq[i], se[i]), fmt_z(z_out[lab])] for i, lab in enumerate(labels)]
    out.blocks.append(
        Table(["outcome", "exact", "simulated ± SE", "z"], rows, caption="Outcomes: exact against simulated.")
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
        out.blocks.append(
            Table(
                ["metric", "exact", "simulated ± SE", "z"],
                mrows,
                caption=f"Metrics; standard errors from {cfg.batches} batch means.",
            )
        )
    grows = [[g.group, f"{g.chi2:.4g}", str(int(g.dof)), f"{g.p_value:.3g}"] for g in v.groups.itertuples()]
    out.blocks.append(
        Table(
            ["group", "chi²", "dof", "p-value"],
            grows,
            caption="Chi-square goodness of fit per group (bins pooled to ≥ 5 expected); "
            "the verdict uses their Bonferroni combination.",
        )
    )
    for i, lab in enumerate(labels):
        out.metrics[f"{key}/exact/{lab}"] = {"kind": "exact", "value": float(p_exact[i])}
        out.metrics[f"{key}/simulated/{lab}"] = {
            "kind": "simulated",
            "value": float(freq[i]),
            "se": float(se[i]),
            "exact": float(p_exact[i]),
            "z": _num(z_out[lab]) if math.isfinite(z_out[lab]) else None,
            "trials": trials,
        }
    csv = bins.assign(kind=["outcome" if r in labels else "bin" for r in bins["outcome"]])
    csv["se"] = [float(se[labels.index(r)]) if r in labels else math.nan for r in csv["outcome"]]
    out.tables[f"tables/{stem}.csv"] = csv[["kind", "outcome", "exact", "observed", "se", "z"]]
    seconds = time.perf_counter() - start
    out.info = {
        "system": section.system,
        "id": section.id,
        "title": section.title,
        "params": dict(exact.params),
        "trials": trials,
        "batches": cfg.batches,
        "seed": vseed,
        "alpha": cfg.alpha,
        "p_value": v.p_value,
        "max_abs_z": _num(v.max_abs_z) if math.isfinite(v.max_abs_z) else None,
        "max_abs_z_outcomes": z_outcomes if math.isfinite(z_outcomes) else None,
        "passed": bool(v.passed),
        "groups": v.groups.to_dict(orient="records"),
        "figure": f"figures/{stem}.png",
        "table": f"tables/{stem}.csv",
        "seconds": round(seconds, 3),
    }
    say(
        f"{section.system} · {section.title}: {verdict.lower()} (p {v.p_value:.3g}), "
        f"{trials:,} trials in {seconds:.1f} s"
    )
    return out


def run_system(
    block: SystemBlock, cfg: ReportConfig, seed: int, say: Progress, progress: bool | None
) -> list[SectionOutput]:
    """Every section of one system block, in the configured order."""
    outs = []
    for section in block.sections:
        if isinstance(section, ValidationSection):
            outs.append(validation_section(section, cfg, seed, say, progress))
        else:
            outs.append(sweep_section(section, say))
    return outs
