"""The report configuration: a TOML file read, checked and turned into specs up front.

Everything that can be wrong with a configuration is found here, before any work
starts: unknown keys, wrong types, values out of range, systems that are not
installed, grid points the rules do not allow (every spec is built through the
system's ``make_spec``, so its :class:`~critlab.analysis.spec.SpecError` applies), outcome and
metric names the system does not report. Each error is one :class:`ConfigError` line
naming the file, the key path and what is allowed; sections are numbered from 1::

    designer.toml: systems.thac0.sections[2].grid.crit_threshold: parameter crit_threshold = 25: ...

Balance checks (``[[checks]]``) are read and probed by :mod:`critlab.analysis.report.checks`;
encounter sections (``[[encounters]]``: an encounter file, one setting varied, its
quantities exact at each point) and encounter checks by
:mod:`critlab.analysis.report.encounter_read`, an encounter section as a
:class:`SweepSection` over the encounter's model, built and shown as every sweep section.
The format is described in ``reports/examples/designer.toml``; the built-in
configuration is ``analysis/report/default.toml``.

>>> data = {"report": {"trials": 1000}, "systems": {"thac0": {"params": {"thac0": 15, "target_ac": 5},
...     "sections": [{"kind": "validation"}]}}}
>>> cfg = parse_config(data, "inline.toml")
>>> cfg.name, cfg.trials, cfg.systems[0].sections[0].spec.thac0
('inline', 1000, 15)
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

from critlab.analysis.design.sweep import grid_points
from critlab.analysis.mechanic.load import resolve_from
from critlab.analysis.params import WrittenFloat
from critlab.analysis.report.checks import parse_checks
from critlab.analysis.report.encounter_read import parse_encounters
from critlab.analysis.report.lead import check_lead, report_keys
from critlab.analysis.report.reading import (
    MAX_POINTS,
    NAME,
    ConfigError,
    Reader,
    build_spec,
    grid_values,
    read_params,
    read_variants,
    section_id,
)
from critlab.analysis.report.sections import (  # noqa: F401
    Axis,
    ReportConfig,
    SweepSection,
    SystemBlock,
    ValidationSection,
)
from critlab.analysis.report.sweeps import cumulative_outcomes, fight_table, probe_point
from critlab.analysis.run import MAX_SEED, MAX_TRIALS
from critlab.analysis.spec import Spec, SpecError
from critlab.analysis.spec_error import quoted
from critlab.analysis.systems import MODULES, RuleSystem, registry
from critlab.analysis.text.documents import load_toml

__all__ = ["ConfigError", "ReportConfig", "SweepSection", "ValidationSection", "load_config", "parse_config"]

DEFAULT_CONFIG = Path(__file__).with_name("default.toml")

SECTION_KINDS = ("outcomes_by", "metric_by", "validation")
CHARTS = ("line", "stacked", "heatmap", "none")
TABLE_LAYOUTS = ("auto", "long", "pivot", "none")
# Beyond this many panels a figure is unreadable on a phone; split the section instead.
MAX_PANELS = 24

_REPORT_KEYS = ("name", "title", "description", "trials", "seed", "batches", "alpha")
_SYSTEM_KEYS = ("title", "note", "params", "variants", "sections")
_SWEEP_KEYS = ("kind", "id", "title", "note", "params", "grid", "variants", "axes", "outcomes", "metrics")
_SWEEP_KEYS += ("chart", "table", "sum", "label", "log_y", "x_label", "y_label")
# What a section says (report.findings, report.lead); cumulative outcomes, fights (report.sweeps)
_SWEEP_KEYS += ("lead", "headline", "cumulative", "fight")
_VALIDATION_KEYS = ("kind", "id", "title", "note", "params", "trials")


# the sections' shapes live in report.sections; re-exported: the configuration's vocabulary


# -- sections ------------------------------------------------------------------------------
def _sweep_section(
    system: RuleSystem, r: Reader, base: dict[str, Any], base_sources: dict[str, str], sets: dict, sid: str
) -> SweepSection:
    r.only(_SWEEP_KEYS)
    kind = r.table["kind"]
    params = {**base, **read_params(system, r)}
    sources = {**base_sources, **{k: f"{r.sub('params')}.{k}" for k in r.table.get("params", {})}}
    grid_table = r.get("grid", dict, {})
    grid = {name: grid_values(system, Reader(r.file, grid_table, r.sub("grid")), name) for name in grid_table}
    set_name, variants, axes = _axes(r, grid, sets)
    n_points = len(variants) * math.prod(len(v) for v in grid.values())
    if n_points > MAX_POINTS:
        raise r.error("grid", f"{n_points} points; at most {MAX_POINTS} per section")
    points = [{**params, **v, **p} for v in variants.values() for p in grid_points(**grid)]
    notation_section_work(system, points, r)  # before any spec: building one computes its dice
    base_specs, specs = _point_specs(system, r, params, sources, grid, (set_name, variants, sets))
    section_work(specs, fight_table(r), r)  # the section's exact work, before its first point's
    first = specs[0] if specs else None
    fight, probe = probe_point(system, first, r)  # the first point, exact (or its fight)
    labels = tuple(probe.labels)
    cumulative, outcomes, metrics = _shown_names(system, r, kind, labels, tuple(probe.metrics))
    chart, total = _chart(r, kind, axes)
    label = r.text("label", "P(" + " or ".join(outcomes) + ")" if total else "")
    section = SweepSection(
        system=system.name,
        id=sid,
        key=r.key,
        kind=kind,
        title=r.text("title") or _default_title(kind, axes, metrics or outcomes),
        note=r.text("note"),
        grid=grid,
        axes=tuple(axes),
        base_specs=base_specs,
        n_points=n_points,
        outcomes=tuple(outcomes),
        metrics=tuple(metrics),
        chart=chart,
        table=r.get("table", str, "auto"),
        sum=total,
        label=label,
        log_y=r.get("log_y", bool, False),
        x_label=r.text("x_label"),
        y_label=r.text("y_label"),
        **report_keys(r, cumulative, labels, fight),
    )
    _check_layout(section, r)
    return section


def _axes(
    r: Reader, grid: dict[str, Any], sets: dict
) -> tuple[str | None, dict[str | None, dict], list[Axis]]:
    """The section's variant set (its name and variants; one unnamed variant without one)
    and its axes: the grid's, then the variant set's, in ``axes`` order if given."""
    set_name = r.get("variants", str, None, what="the name of a variant set")
    variants: dict[str | None, dict[str, Any]] = {None: {}}
    axes = [Axis(name, values) for name, values in grid.items()]
    if set_name is not None:
        if set_name not in sets:
            known = ", ".join(sets) or "none defined"
            raise r.error("variants", f"no variant set {quoted(set_name)} in this system; sets: {known}")
        variants = dict(sets[set_name])
        for vname, vparams in variants.items():
            clash = set(vparams) & set(grid)
            if clash:
                raise r.error(
                    f"grid.{sorted(clash)[0]}",
                    f"is also set by variant {quoted(vname)} of {quoted(set_name)}",
                )
        axes.append(Axis(set_name, tuple(variants), variant=True))
    order = r.names("axes")
    if order is not None:
        by_name = {a.name: a for a in axes}
        if sorted(order) != sorted(by_name):
            raise r.error("axes", f"must list each axis once: {', '.join(by_name)}")
        axes = [by_name[n] for n in order]
    if len(axes) > 3:
        raise r.error("grid", "at most three axes (x, series or rows, panels); split the section")
    return set_name, variants, axes


def _point_specs(
    system: RuleSystem,
    r: Reader,
    params: dict[str, Any],
    sources: dict[str, str],
    grid: dict[str, Any],
    varied: tuple[str | None, dict[str | None, dict], dict],
) -> tuple[dict[str | None, Spec], list[Spec]]:
    """Every point's spec, variant by variant (``varied``: the set's name, its variants and
    every set), each error naming the point and the keys that set its values; and each
    variant's first spec."""
    set_name, variants, sets = varied
    base_specs: dict[str | None, Spec] = {}
    specs: list[Spec] = []
    for vname, vparams in variants.items():
        vsources = {k: f"{_variant_key(r, set_name, vname, sets)}.{k}" for k in vparams}
        for point in grid_points(**grid):
            where = ", ".join(f"{k}={v}" for k, v in point.items())
            where = (
                f"at {where}{'' if vname is None else f' ({set_name} {vname})'}: " if where or vname else ""
            )
            psources = {**sources, **vsources, **{k: f"{r.sub('grid')}.{k}" for k in point}}
            spec = build_spec(system, {**params, **vparams, **point}, r.file, psources, where)
            base_specs.setdefault(vname, spec)
            specs.append(spec)
    return base_specs, specs


def _shown_names(
    system: RuleSystem, r: Reader, kind: str, labels: tuple[str, ...], metric_names: tuple[str, ...]
) -> tuple[Any, Any, tuple[str, ...]]:
    """The outcomes and metrics the section names, each one the system reports here (a
    metric_by section needs metrics), and its cumulative outcomes."""
    outcomes = r.names("outcomes")
    metrics = r.names("metrics") or ()
    for name, given in (("outcomes", outcomes), ("metrics", r.names("metrics"))):
        if given is not None and not given:
            raise r.error(name, "must name at least one (or leave the key out)")
    for name in outcomes or ():
        if name not in labels:
            raise r.error(
                "outcomes", f"{system.name} has no outcome {quoted(name)} here; outcomes: {', '.join(labels)}"
            )
    for name in metrics:
        if name not in metric_names:
            raise r.error(
                "metrics", f"{system.name} has no metric {quoted(name)}; metrics: {', '.join(metric_names)}"
            )
    if kind == "metric_by" and not metrics:
        raise r.error(
            "metrics", f"metric_by needs metrics = [...]; {system.name} reports: {', '.join(metric_names)}"
        )
    cumulative, outcomes = cumulative_outcomes(r, kind, labels, outcomes)
    return cumulative, outcomes, metrics


def _chart(r: Reader, kind: str, axes: list[Axis]) -> tuple[str, bool]:
    """The chart and whether it shows the outcomes' sum, each fitting the section's kind and axes."""
    chart = r.get("chart", str, "stacked" if kind == "outcomes_by" else "line")
    if chart not in CHARTS:
        raise r.error("chart", f"must be one of {', '.join(CHARTS)}, got {quoted(chart)}")
    total = r.get("sum", bool, False)
    if chart == "stacked" and (kind != "outcomes_by" or total):
        raise r.error("chart", "stacked bars show an outcomes_by section's outcomes (without sum = true)")
    if chart == "heatmap" and len(axes) < 2:
        raise r.error("chart", "a heatmap needs two axes (x and y) in grid / variants")
    if chart in ("line", "stacked") and not axes:
        raise r.error("grid", f"a {chart} chart needs at least one axis in grid or variants")
    if "label" in r.table and not total:
        raise r.error("label", "names the sum of the outcomes: set sum = true as well")
    return chart, total


def _check_layout(section: SweepSection, r: Reader) -> None:
    """The built section's table layout, lead and number of panels."""
    if section.table not in TABLE_LAYOUTS:
        raise r.error("table", f"must be one of {', '.join(TABLE_LAYOUTS)}, got {quoted(section.table)}")
    check_lead(section, r)
    panels = _panels(section)
    if panels > MAX_PANELS:
        raise r.error("grid", f"the chart would have {panels} panels; at most {MAX_PANELS}")


def section_work(specs: list[Spec], fight: dict[str, int], r: Reader) -> None:
    """A section whose points' estimated exact work passes the budget
    (:mod:`critlab.analysis.design.cost`) is a configuration error at its grid."""
    from critlab.analysis.design.cost import check_budget, points_work

    shrink = "use fewer grid points" + (", a lower fight.hp or fewer attacks_per_round" if fight else "")
    try:
        check_budget(points_work([(spec, fight or None) for spec in specs]), "grid", shrink)
    except SpecError as exc:
        raise r.error("grid", str(exc)) from None


def notation_section_work(system: RuleSystem, points: list[dict[str, Any]], r: Reader) -> None:
    """:func:`section_work` from the points' parameters read as notation, before any spec
    is built (building one computes its dice)."""
    from critlab.analysis.design.cost import check_budget, notation_work

    try:
        check_budget(notation_work(system, points), "grid", "use fewer grid points or smaller dice")
    except SpecError as exc:
        raise r.error("grid", str(exc)) from None


def _panels(s: SweepSection) -> int:
    if s.chart == "stacked":
        return math.prod(len(a.values) for a in s.axes[1:])
    if s.chart == "heatmap":
        return len(s.plotted) * (len(s.axes[2].values) if len(s.axes) > 2 else 1)
    if s.chart == "line":
        return len(s.axes[2].values) if len(s.axes) > 2 else 1
    return 0


def _validation_section(
    system: RuleSystem, r: Reader, base: dict[str, Any], base_sources: dict[str, str], sid: str, batches: int
) -> ValidationSection:
    r.only(_VALIDATION_KEYS)
    params = {**base, **read_params(system, r)}
    sources = {**base_sources, **{k: f"{r.sub('params')}.{k}" for k in r.table.get("params", {})}}
    spec = build_spec(system, params, r.file, sources, "")
    return ValidationSection(
        system=system.name,
        id=sid,
        key=r.key,
        title=r.text("title") or "Validation",
        note=r.text("note"),
        spec=spec,
        # each batch needs at least one trial
        trials=r.int_in("trials", batches, MAX_TRIALS, None),
    )


def _variant_key(r: Reader, set_name: str | None, vname: str | None, sets: dict) -> str:
    if set_name is None or vname is None:
        return r.key
    index = list(sets[set_name]).index(vname) + 1
    system_key = r.key.rsplit(".sections", 1)[0]
    return f"{system_key}.variants.{set_name}[{index}]"


def _default_title(kind: str, axes: list[Axis], names: tuple[str, ...]) -> str:
    what = ", ".join(names) if kind == "metric_by" else "outcomes"
    return f"{what} by {' × '.join(a.name for a in axes)}" if axes else what


# -- the file -----------------------------------------------------------------------------
def load_config(path: str | Path | None = None) -> ReportConfig:
    """Read and check a report configuration (default: the built-in one).

    Raises
    ------
    ConfigError
        Naming the file, the key and what is allowed.
    """
    file = str(path) if path is not None else "analysis/report/default.toml"
    path = Path(path) if path is not None else DEFAULT_CONFIG
    try:
        data, raw = load_toml(path, file, parse_float=WrittenFloat, error=ConfigError)  # decimals as written
    except OSError as exc:
        raise ConfigError(file, "", f"cannot read the configuration: {exc.strerror or exc}") from None
    return parse_config(data, file, sha256=hashlib.sha256(raw).hexdigest())


def parse_config(data: dict[str, Any], file: str, *, sha256: str = "") -> ReportConfig:
    """Check an already-parsed TOML document; ``file`` names it in errors.

    Every system it names must be installed; every spec is built up front.
    """
    top = Reader(file, data, "")
    top.only(("report", "systems", "checks", "encounters"))
    rep = Reader(file, top.get("report", dict, {}), "report")
    rep.only(_REPORT_KEYS)
    name = rep.text("name", Path(file).stem)
    if not NAME.match(name):
        raise rep.error("name", f"must be a folder name (letters, digits, '_', '.', '-'), got {quoted(name)}")
    batches = rep.int_in("batches", 2, 1000, 10)
    trials = rep.int_in("trials", 1, MAX_TRIALS, 200_000)
    if trials < batches:
        raise rep.error("trials", f"must be at least batches = {batches}, got {trials}")
    alpha = rep.get("alpha", (float, int), 1e-3, what="a number in (0, 1)")
    if not 0 < alpha < 1:
        raise rep.error("alpha", f"must be a number in (0, 1), got {alpha}")

    systems_table = top.get("systems", dict, None) or {}
    if not systems_table and "checks" not in data and "encounters" not in data:  # checks-only is fine
        raise ConfigError(
            file, "systems", "name at least one system, e.g. [systems.NAME], [[encounters]] or [[checks]]"
        )
    installed = registry()
    blocks = []
    for sys_name, block in systems_table.items():
        key = f"systems.{sys_name}"
        if sys_name not in installed and ":" in sys_name:  # a designer's mechanic, rules.py:function
            try:
                installed[sys_name] = resolve_from(sys_name, Path(file).parent)
            except ValueError as exc:
                raise ConfigError(file, key, str(exc)) from None
        if sys_name not in installed:
            if sys_name in MODULES:
                msg = f"system {quoted(sys_name)} is not installed ({MODULES[sys_name]} is missing)"
            else:
                msg = f"unknown system {quoted(sys_name)}; the systems are: {', '.join(MODULES)}"
            raise ConfigError(file, key, f"{msg}; installed: {', '.join(installed) or 'none'}")
        blocks.append(_system_block(installed[sys_name], Reader(file, block, key), batches))
    return ReportConfig(
        file=file,
        name=name,
        title=rep.text("title", "critlab balance report"),
        description=rep.text("description"),
        trials=trials,
        seed=rep.int_in("seed", 0, MAX_SEED, None),
        batches=batches,
        alpha=float(alpha),
        systems=tuple(blocks),
        checks=parse_checks(data.get("checks"), file),
        encounters=parse_encounters(data.get("encounters"), file),
        sha256=sha256,
    )


def _system_block(system: RuleSystem, r: Reader, batches: int) -> SystemBlock:
    r.only(_SYSTEM_KEYS)
    base = read_params(system, r)
    base_sources = {"*": r.sub("params"), **{k: f"{r.sub('params')}.{k}" for k in base}}
    sets = read_variants(system, r)
    rows = r.get("sections", list, None, what=f"a list of tables [[{r.sub('sections')}]]")
    if not rows:
        raise r.error("sections", f"add at least one [[{r.sub('sections')}]] table")
    sections: list[SweepSection | ValidationSection] = []
    ids: set[str] = set()
    for i, row in enumerate(rows):
        sr = Reader(r.file, row, f"{r.sub('sections')}[{i + 1}]")
        kind = sr.get("kind", str, None)
        if kind not in SECTION_KINDS:
            raise sr.error("kind", f"must be one of {', '.join(SECTION_KINDS)}, got {quoted(kind)}")
        sid = section_id(sr, ids, f"{kind}-{i + 1}")
        sources = {**base_sources, "*": sr.sub("params") if "params" in row else base_sources["*"]}
        if kind == "validation":
            sections.append(_validation_section(system, sr, base, sources, sid, batches))
        else:
            sections.append(_sweep_section(system, sr, base, sources, sets, sid))
    if not any(isinstance(s, ValidationSection) for s in sections):
        raise r.error("sections", 'each system needs at least one section with kind = "validation"')
    return SystemBlock(
        name=system.name, title=r.text("title", system.title), note=r.text("note"), sections=tuple(sections)
    )
