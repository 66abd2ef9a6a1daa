"""Build a report: run each configured section, collect figures, tables and metrics.

Sweep sections (``outcomes_by``, ``metric_by``, and ``[[encounters]]``: a sweep over an
encounter's model) are exact and one path over the Model protocol: each variant's model
(a spec's, a fight's, an encounter's) at every grid point, its rows by
:func:`~critlab.analysis.design.sweep.sweep_model`, reshaped into a *wide table* (one row
per grid point, one column per axis and quantity), drawn, tabulated, summarised and led
alike.

Validation sections simulate the spec in ``batches`` independent runs (seeds derived
from the report seed and the section's key, so adding a section never changes another's
numbers), merge the tallies for
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

from critlab.analysis.design.sweep import grid_points, point_seeds, sweep_model
from critlab.analysis.model import model_of
from critlab.analysis.report import figures, findings, sweeps, tables, validation
from critlab.analysis.report.config import ReportConfig, SweepSection, SystemBlock, ValidationSection
from critlab.analysis.report.doc import Details, Figure, Heading, Paragraph, fmt_value, slug
from critlab.analysis.results import SimResult
from critlab.analysis.results import json_number as _num
from critlab.analysis.spec import Spec
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


def anchor(system: str, section_id: str = "") -> str:
    return f"{slug(system)}--{section_id}" if section_id else f"sys-{slug(system)}"


# -- sweeps -----------------------------------------------------------------------------
def section_settings(section: SweepSection) -> dict[str, Any]:
    """The settings a sweep section holds fixed (every parameter it does not vary), as
    ``summary.json`` records them so that "what changed" can name an input that changed:
    ``{param: value}``, or ``{"variant.param": value}`` per variant of a variant axis."""
    varied = {a.name for a in section.axes}
    if section.model is not None:  # a model's settings given over its own (an encounter's set)
        return {k: _setting(v) for k, v in section.facts.get("set", {}).items() if k not in varied}
    fixed: dict[str, Any] = {}
    for vname, spec in section.base_specs.items():
        for k, v in spec.params().items():
            if k not in varied and v is not None:
                fixed[k if vname is None else f"{vname}.{k}"] = _setting(v)
    return {**fixed, **{k: _setting(v) for k, v in section.fight.items()}}


def _setting(v: Any) -> Any:
    """A setting as JSON keeps it (a number, a string, a boolean)."""
    return v if isinstance(v, (bool, int, float, str)) else str(v)


def section_models(section: SweepSection) -> list[tuple[str | None, Any]]:
    """The model each variant of the section sweeps (``None``: no variants): its own model
    (an encounter's), else its spec's, the fight of its attack with ``fight = {...}``."""
    if section.model is not None:
        return [(None, section.model)]
    from critlab.analysis.fight.model import FightModel

    out = []
    for name, spec in section.base_specs.items():
        out.append((name, FightModel.of(spec, **section.fight) if section.fight else model_of(spec)))
    return out


def run_sweep(section: SweepSection, client: Any = None) -> pd.DataFrame:
    """The section's tidy sweep frame: each variant's model at every grid point, its rows
    (:func:`~critlab.analysis.design.sweep.sweep_model`), a variant column added (its points
    on the Dask ``client``'s workers when given: the same frame)."""
    frames = []
    variant_axis = next((a for a in section.axes if a.variant), None)
    points = grid_points(**section.grid)
    # a system's own sweep may show a progress bar on a terminal; fights and models do not
    progress = None if client is None and not section.fight and section.model is None else False
    for name, base in section_models(section):
        models = [base.at(**point) for point in points]
        df = sweep_model(
            models, points, name=f"{section.system}-{section.id}", progress=progress, client=client
        )
        if section.cumulative:
            df = sweeps.add_cumulative(df, section.cumulative_of, section.cumulative, list(section.grid))
        if variant_axis is not None:
            df.insert(0, variant_axis.name, name)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def table_columns(section: SweepSection) -> list[str]:
    """Quantities in the section's table: the plotted ones first, then the extras (a
    model's quantities in their order)."""
    if section.quantities:
        return list(section.quantities)
    if section.kind == "metric_by":
        return [*section.metrics, *section.outcomes]
    return [*([section.label] if section.sum else []), *section.outcomes, *section.metrics]


def wide_table(section: SweepSection, tidy: pd.DataFrame) -> pd.DataFrame:
    """One row per grid point (outer axes first, the x axis varying fastest), columns:
    the axes (outermost first) and the section's quantities."""
    names = [a.name for a in section.axes]
    wanted = [*section.outcomes, *section.metrics]
    joined = {q: q.split("+") for q in wanted if "+" in q and q not in set(tidy["name"])}
    wanted += [p for parts in joined.values() for p in parts]
    sub = tidy[tidy["name"].isin(wanted)]
    if names:
        wide = sub.set_index([*names, "name"])["exact"].unstack("name").reset_index()
    else:
        wide = sub.set_index("name")["exact"].to_frame().T.reset_index(drop=True)
    wide.columns.name = None
    for q, parts in joined.items():  # labels joined by "+": their probabilities summed
        wide[q] = [math.fsum(row) for row in wide[parts].to_numpy(dtype=float)]
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


def sweep_section(section: SweepSection, say: Progress, client: Any = None) -> SectionOutput:
    start = time.perf_counter()
    tidy = run_sweep(section, client)
    wide = wide_table(section, tidy)
    out = SectionOutput()
    stem = f"{slug(section.system)}--{section.id}"
    out.blocks.append(Heading(3, section.title, anchor(section.system, section.id)))
    lead = findings.section_lead(section, wide)  # what the numbers say, computed
    if lead:
        out.blocks.append(Paragraph(" ".join(lead), "lead"))
    if section.about:  # what a section over a model is (the encounter file, its settings)
        out.blocks.append(Paragraph(section.about, "note"))
    if section.note:
        out.blocks.append(Paragraph(section.note, "note"))
    figure_file = None
    csv = f"tables/{stem}.csv"
    drawn = figures.figure(section, wide)
    if drawn is not None:
        figure_file = f"figures/{stem}.png"
        shows = figures.describe(section)  # what it draws, in the declared words
        caption = f"Exact: {shows[:-1]} ({section.n_points} points)."
        picture, narrow = figures.pictures(drawn)
        out.blocks.append(Figure(figure_file, picture, caption, alt=" ".join([shows, *lead]), narrow=narrow))
    shown = tables.sweep_tables(section, wide, csv, table_columns(section))
    if shown:
        out.blocks.append(
            Details(f"{tables.table_summary(shown, section.n_points)} · full CSV: {csv}", shown)
        )
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
        "settings": section_settings(section),
        "anchor": anchor(section.system, section.id),
        "lead": lead,
        "headline": section.headline,
        "figure": figure_file,
        "table": f"tables/{stem}.csv",
        **section.facts,  # a model's own (an encounter's file, vary, set, quantities, states)
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
    out = SectionOutput()
    stem = f"{slug(section.system)}--{section.id}"
    verdict = "Passed" if v.passed else "FAILED"
    out.blocks.append(Heading(3, f"{section.title}", anchor(section.system, section.id)))
    run = validation.ValidationRun(section, cfg, exact, sim, v, metric_se, trials, vseed)
    z_outcomes = validation.validation_output(run, out)
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
        "pooled_bins": len(v.rows),
        "passed": bool(v.passed),
        "groups": v.groups.to_dict(orient="records"),
        "figure": f"figures/{stem}.png",
        "table": f"tables/{stem}.csv",
        "seconds": round(seconds, 3),
    }
    say(
        f"{section.system} · {section.title}: {verdict.lower()} (p {validation.p_is(v.p_value)}), "
        f"{trials:,} trials in {seconds:.1f} s"
    )
    return out


def run_system(
    block: SystemBlock,
    cfg: ReportConfig,
    seed: int,
    say: Progress,
    progress: bool | None,
    client: Any = None,
) -> list[SectionOutput]:
    """Every section of one system block, in the configured order (the sweeps' exact
    points on the Dask ``client``'s workers when given)."""
    outs = []
    for section in block.sections:
        if isinstance(section, ValidationSection):
            outs.append(validation_section(section, cfg, seed, say, progress))
        else:
            outs.append(sweep_section(section, say, client))
    return outs
