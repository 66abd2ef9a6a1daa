"""Balance reports: ``critlab report [--config FILE] [--out DIR] [--force] [--trials N]
[--seed S] [--baseline SUMMARY.json]``.

A TOML configuration (:mod:`critlab.analysis.report.config`; built in: ``default.toml``)
names the rule systems, their parameters, the grids to sweep and the specs to
validate. The report goes to ``reports/<name>/``:

- ``index.html``: one self-contained page (figures embedded), readable on a phone and in print;
- ``README.md``: the same, figures as relative PNGs;
- ``figures/*.png``, ``tables/*.csv``;
- ``summary.md``: the verdict, balance checks and changes in Markdown, for a CI job's summary;
- ``summary.json``: every headline number (``metrics``: exact ones, and simulated ones
  with their standard errors), every validation, and the run's metadata.

With ``--baseline`` an earlier ``summary.json`` adds a "what changed" section
(:mod:`critlab.analysis.report.compare`). Balance checks (``[[checks]]``,
:mod:`critlab.analysis.report.checks`) head the page and ``summary.json``. The exit status
is 0 when every validation and check passed, 1 when one failed (the report is still
written), 2 for a bad configuration, option or output folder.

The configuration, the baseline and the output folder are all checked before any work.
The report is written beside its folder and swapped in whole
(:mod:`critlab.analysis.report.output`): an interrupt or a full disk leaves the previous
report as it was, and a folder holding any file the earlier report did not write (its marker lists
those it did) is never overwritten.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from critlab.analysis.report import stepsummary
from critlab.analysis.report.build import Progress, SectionOutput, plain_progress, run_system, sweep_section
from critlab.analysis.report.checks import checks_verdict, run_checks
from critlab.analysis.report.compare import SUMMARY_FORMAT, Comparison, compare, load_baseline
from critlab.analysis.report.config import ConfigError, ReportConfig, load_config
from critlab.analysis.report.meta import run_metadata
from critlab.analysis.report.output import ReportFolder, write_file
from critlab.analysis.report.page import assemble, change_words, status, verdict
from critlab.analysis.report.warm import warm_kernels
from critlab.analysis.run import MAX_SEED, MAX_TRIALS
from critlab.analysis.text.digits import CSV_FLOAT, plain
from critlab.analysis.text.numtext import count_text, is_int_text, one_line
from critlab.analysis.work import on_workers, workers_of
from critlab.kernels.runner import resolve_seed

__all__ = ["ConfigError", "ReportResult", "build_report", "load_config", "main"]


@dataclass(frozen=True)
class ReportResult:
    out: Path
    summary: dict[str, Any]
    passed: bool
    kept: Path | None = None  # where the previous folder was kept beside the report, if it was


def _json_safe(x: Any) -> Any:
    """Plain JSON values: NaN and infinities become null, numpy scalars Python numbers."""
    if isinstance(x, dict):
        return {str(k): _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        x = x.item()
    if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
        return None
    return x


def build_report(
    config: str | Path | None = None,
    *,
    out: str | Path | None = None,
    trials: int | None = None,
    seed: int | None = None,
    baseline: str | Path | None = None,
    progress: bool = True,
    force: bool = False,
    client: Any = None,
) -> ReportResult:
    """Build a report; see the module docstring. Configuration, baseline and output folder
    are checked before any work starts (:class:`ConfigError` otherwise); ``force`` lets a
    folder that is not a critlab report be set aside (renamed) rather than refused. With
    ``client`` (a Dask client) the sections' exact points are computed on its workers (the
    same report) and every work budget is times the workers it reports."""
    with on_workers(workers_of(client)):
        return _report(config, out, trials, seed, baseline, progress, force, client)


def _report(
    config: str | Path | None,
    out: str | Path | None,
    trials: int | None,
    seed: int | None,
    baseline: str | Path | None,
    progress: bool,
    force: bool,
    client: Any,
) -> ReportResult:
    start = time.perf_counter()
    cfg: ReportConfig = load_config(config).with_overrides(trials=trials, seed=seed)
    base = load_baseline(baseline) if baseline is not None else None
    folder = ReportFolder(out if out is not None else Path("reports") / cfg.name, force=force)
    out_dir = folder.shown
    say = plain_progress(progress)
    try:
        folder.stage()  # inside: an interrupt the instant the staging folder appears removes it
        summary, passed, line = _build(cfg, base, baseline, folder, say, progress, start, client)
    except BaseException:
        folder.discard()  # the target is left exactly as it was
        raise
    say(
        f"{line} Wrote {out_dir / 'index.html'} and {out_dir / 'README.md'} "
        f"in {time.perf_counter() - start:.1f} s"
    )
    return ReportResult(out=out_dir, summary=summary, passed=passed, kept=folder.kept)


@dataclass(frozen=True)
class _Sections:
    """Every section's output: each system block's, by its name, then the encounter sweeps'."""

    systems: dict[str, list[SectionOutput]]
    encounters: list[SectionOutput]

    def groups(self) -> list[list[SectionOutput]]:
        return [*self.systems.values(), self.encounters]

    def metrics(self) -> dict[str, dict[str, Any]]:
        metrics: dict[str, dict[str, Any]] = {}
        for outs in self.groups():
            for o in outs:
                metrics.update(o.metrics)
        return metrics

    def validations(self) -> list[dict[str, Any]]:
        return [o.info for outs in self.systems.values() for o in outs if "passed" in o.info]

    def tables(self) -> dict[str, Any]:
        tables = {
            rel: frame for outs in self.systems.values() for o in outs for rel, frame in o.tables.items()
        }
        tables.update({rel: frame for o in self.encounters for rel, frame in o.tables.items()})
        return tables


def _build(
    cfg: ReportConfig,
    base: dict[str, Any] | None,
    baseline: str | Path | None,
    folder: ReportFolder,
    say: Progress,
    progress: bool,
    start: float,
    client: Any = None,
) -> tuple[dict[str, Any], bool, str]:
    """Run every section, write the files into the staged folder and swap it in."""
    run_seed = resolve_seed(cfg.seed)
    _announce(cfg, run_seed, say)
    meta = run_metadata()
    warm_kernels(cfg, say)  # every core compiles a system's simulator before the report runs
    sections = _run_sections(cfg, run_seed, say, progress, client)
    metrics = sections.metrics()
    validations = sections.validations()
    line, passed = verdict(validations)
    checks = run_checks(cfg.checks)  # balance goals, exact; they fail the run in main
    line, everything = status(validations, checks)  # the first line: validations and checks together
    comparison: Comparison | None = None
    if base is not None:
        comparison = compare(metrics, base["metrics"], name=str(baseline))
    wall = time.perf_counter() - start
    doc = assemble(
        cfg,
        run_seed,
        sections.systems,
        comparison,
        meta,
        wall,
        checks=checks,
        baseline=base,
        encounters=sections.encounters,
    )
    files = _page_files(doc, sections, comparison)
    summary = {
        "format": SUMMARY_FORMAT,
        "name": cfg.name,
        "title": cfg.title,
        "validated": passed,
        "passed": everything,
        "verdict": line,
        "run": _run_json(cfg, meta, run_seed, wall),
        "validations": validations,
        "checks": checks,
        "sections": [o.info for outs in sections.groups() for o in outs],
        "comparison": None if comparison is None else _comparison_json(cfg, comparison, base, run_seed),
        "metrics": metrics,
    }
    summary = _json_safe(summary)
    files.update(_summary_files(cfg, summary))
    _write(folder, files)
    return summary, passed, line


def _announce(cfg: ReportConfig, run_seed: int, say: Progress) -> None:
    n_sections = sum(len(b.sections) for b in cfg.systems) + len(cfg.encounters)
    over = [b.name for b in cfg.systems] + sorted({s.facts["encounter"] for s in cfg.encounters})
    say(
        f"report {cfg.name!r}: {n_sections} sections over {', '.join(over)}; "
        f"seed {run_seed}, {cfg.trials:,} trials per validation"
    )


def _run_sections(cfg: ReportConfig, run_seed: int, say: Progress, progress: bool, client: Any) -> _Sections:
    """Every system block's sections, in order, then the sweeps over encounter models."""
    outputs: dict[str, list[SectionOutput]] = {}
    for block in cfg.systems:
        outputs[block.name] = run_system(block, cfg, run_seed, say, None if progress else False, client)
    encounters = [sweep_section(s, say, client) for s in cfg.encounters]
    return _Sections(outputs, encounters)


def _page_files(doc: Any, sections: _Sections, comparison: Comparison | None) -> dict[str, bytes]:
    """The figures, the tables as CSV, and the page as HTML and Markdown."""
    from critlab.analysis.report import html, markdown

    files: dict[str, bytes] = {fig.file: fig.png for fig in doc.figures()}
    tables = sections.tables()
    if comparison is not None:
        tables["tables/changes.csv"] = comparison.changes
    # numbers as people write them: at most 15 significant digits (critlab.analysis.text.digits)
    csv = {rel: frame.to_csv(index=False, float_format=CSV_FLOAT) for rel, frame in tables.items()}
    files.update({rel: text.encode("utf-8") for rel, text in csv.items()})
    files["index.html"] = html.render(doc).encode("utf-8")
    files["README.md"] = markdown.render(doc).encode("utf-8")
    return files


def _run_json(cfg: ReportConfig, meta: dict[str, Any], run_seed: int, wall: float) -> dict[str, Any]:
    """The run's metadata as summary.json keeps it."""
    return {
        **meta,
        "config": cfg.file,
        "config_sha256": cfg.sha256,
        "seed": run_seed,
        "trials": cfg.trials,
        "batches": cfg.batches,
        "alpha": cfg.alpha,
        "systems": [b.name for b in cfg.systems],
        "encounters": sorted({s.facts["encounter"] for s in cfg.encounters}),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - wall)),
        "wall_time_s": round(wall, 3),
    }


def _summary_files(cfg: ReportConfig, summary: dict[str, Any]) -> dict[str, bytes]:
    """summary.json, and summary.md for a CI job's summary."""
    probability = [c.probability() for c in cfg.checks]
    return {
        "summary.json": (json.dumps(plain(summary), indent=1, allow_nan=False) + "\n").encode("utf-8"),
        "summary.md": stepsummary.render(summary, probability=probability).encode("utf-8"),
    }


def _comparison_json(
    cfg: ReportConfig, comparison: Comparison, base: dict[str, Any] | None, seed: int
) -> dict[str, Any]:
    """The comparison as summary.json keeps it, with its headline, warning and sentences."""
    warning, groups = change_words(cfg, comparison, base, seed)
    words = {"headline": comparison.headline(), "warning": warning, "sentences": groups}
    return {**comparison.to_json(), **words}


def _write(folder: ReportFolder, files: dict[str, bytes]) -> None:
    """Every file into the staged folder, then the folder swapped in (summary.json last,
    though no reader sees the staged folder before the swap)."""
    stage = folder.staging
    assert stage is not None
    try:
        for rel, data in files.items():
            write_file(stage / rel, data)
        folder.commit()
    except OSError as exc:
        raise ConfigError(
            "command line", "--out", f"cannot write {folder.shown}: {exc.strerror or exc}; it is unchanged"
        ) from None


def _int_option(flag: str, text: str | None, lo: int, hi: int, *, count: bool = False) -> int | None:
    """An integer option; a ``count`` (``--trials``) also in exact scientific form (``1e6``)."""
    if text is None:
        return None
    value = count_text(str(text)) if count else (int(text) if is_int_text(str(text)) else None)
    if value is None:
        form = "written in ASCII digits" + (", e.g. 20000 or 2e4" if count else "")
        allowed = f"must be an integer in {lo}..{hi}, {form}, got {one_line(repr(text))}"
        raise ConfigError("command line", flag, allowed)
    if not lo <= value <= hi:
        raise ConfigError("command line", flag, f"must be an integer in {lo}..{hi}, got {value}")
    return value


def _cluster(scheduler: str | None) -> Any:
    if scheduler is None:
        return nullcontext(None)
    from critlab.kernels.scheduler import connect

    return connect(scheduler)


def main(args: argparse.Namespace) -> int:
    """The ``critlab report`` command: 0 when everything validated and every balance check
    passed, 1 when one did not (the report is still written), 2 for a bad configuration
    or option. ``--scheduler`` computes the exact points on a Dask cluster."""
    try:
        options = dict(
            out=args.out,
            trials=_int_option("--trials", args.trials, 1, MAX_TRIALS, count=True),
            seed=_int_option("--seed", args.seed, 0, MAX_SEED),
            baseline=args.baseline,
            progress=not args.no_progress,
            force=getattr(args, "force", False),
        )
        with _cluster(getattr(args, "scheduler", None)) as client:  # Dask only when asked for
            result = build_report(args.config, **options, client=client)
    except ConfigError as exc:
        print(f"critlab report: error: {one_line(exc)}", file=sys.stderr)
        return 2
    print(result.summary["verdict"])
    checks_line, checks_ok = checks_verdict(result.summary["checks"])
    if result.summary["checks"]:
        print(checks_line)
    print(f"report: {result.out / 'index.html'}")
    if result.kept is not None:
        print(f"critlab report: note: the previous {result.out} is kept as {result.kept}", file=sys.stderr)
    return 0 if result.passed and checks_ok else 1
