"""The report's page: status first (one banner for the validations and the balance
checks together), then run facts, contents, validation summary, what changed, one part
per system, and the run metadata.

>>> verdict([{"system": "thac0", "title": "V", "passed": True}])
('Everything validated: all 1 simulation agrees with the exact engine.', True)
>>> status([{"system": "thac0", "title": "V", "passed": True}], [{"name": "axe crits", "passed": False}])
('FAILED: 1 of 1 balance checks failed (axe crits); all 1 simulation agrees with the exact engine.', False)
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from critlab.analysis.report.build import SectionOutput, anchor
from critlab.analysis.report.changes import baseline_warning, change_sentences, settings_changed
from critlab.analysis.report.checks import checks_blocks
from critlab.analysis.report.compare import Comparison
from critlab.analysis.report.config import ReportConfig, SweepSection
from critlab.analysis.report.doc import (
    Contents,
    Details,
    Document,
    Findings,
    Heading,
    Paragraph,
    Table,
    fmt,
    fmt_se,
    fmt_z,
)
from critlab.analysis.report.findings import headlines
from critlab.analysis.report.tables import is_probability
from critlab.analysis.report.validation import p_is, summary_sentence, z_text
from critlab.analysis.report.words import words

# More changed numbers than this are listed in tables/changes.csv only: a page of
# thousands of rows helps nobody, and the CSV holds them all.
MAX_CHANGE_ROWS = 200


def verdict(validations: list[dict[str, Any]]) -> tuple[str, bool]:
    """The report's first line, and whether everything validated."""
    failed = [v for v in validations if not v["passed"]]
    n = len(validations)
    if not failed:
        noun = "simulation agrees" if n == 1 else "simulations agree"
        return f"Everything validated: all {n} {noun} with the exact engine.", True
    names = ", ".join(f"{v['system']} · {v['title']}" for v in failed)
    return f"NOT everything validated: {len(failed)} of {n} validations failed ({names}).", False


def status(validations: list[dict[str, Any]], checks: list[dict[str, Any]]) -> tuple[str, bool]:
    """The report's first line for its validations and balance checks together, and
    whether everything passed: a failed check fails the banner as a failed validation does."""
    line, ok = verdict(validations)
    failed = [c["name"] for c in checks if not c["passed"]]
    if not failed:
        if not checks:
            return line, ok
        n = len(checks)
        return f"{line[:-1]}, and {'the' if n == 1 else f'all {n}'} balance check{'s' * (n != 1)} pass.", ok
    bad = f"{len(failed)} of {len(checks)} balance checks failed ({', '.join(failed)})"
    if not ok:
        return f"{line[:-1]}; {bad}.", False
    rest = line.split(": ", 1)[1]
    return f"FAILED: {bad}; {rest}", False


def _validation_table(validations: list[dict[str, Any]]) -> Table:
    rows = [
        [
            v["system"],
            v["title"],
            f"{v['trials']:,}",
            p_is(v["p_value"]).removeprefix("= "),
            "∞" if v["max_abs_z"] is None else z_text(v["max_abs_z"]),
            "pass" if v["passed"] else "FAIL",
        ]
        for v in validations
    ]
    return Table(
        ["system", "validation", "trials", "p-value", "max |z| (pooled bins)", "result"],
        rows,
        caption="Each simulation held against the exact engine: the p-value is the chi-square's, "
        "combined over a validation's groups of bins by Bonferroni (so at most 1, shown as ≥ 0.99).",
        label_columns=2,
        failed_rows=tuple(i for i, v in enumerate(validations) if not v["passed"]),
        stack=True,
    )


def change_words(
    cfg: ReportConfig, comparison: Comparison, baseline: dict[str, Any] | None, seed: int
) -> tuple[str, list[tuple[str, list[str]]]]:
    """The comparison in words: a loud warning when the baseline is another
    configuration's ("" when not), and the moves as sentences grouped by section."""
    warning = (
        ""
        if baseline is None
        else baseline_warning({"name": cfg.name, "run": {"trials": cfg.trials, "seed": seed}}, baseline)
    )
    specs: dict[str, Any] = {}
    titles: dict[str, str] = {}
    outcomes: dict[str, set[str]] = {}  # the probabilities of each section
    variants: set[str] = set()
    for block in cfg.systems:
        for section in block.sections:
            key = f"{block.name}/{section.id}"
            titles[key] = section.title
            if isinstance(section, SweepSection):
                spec = next(iter(section.base_specs.values()))
                outcomes[key] = {*section.outcomes, *([section.label] if section.sum else [])}
                variants |= {a.name for a in section.axes if a.variant}
            else:
                spec = section.spec
                outcomes[key] = set(spec_labels(block.name, spec))
            specs.setdefault(block.name, type(spec))
    for s in cfg.encounters:  # keys encounters/<id>/<setting>=<value>/<quantity>
        titles[f"encounters/{s.id}"] = s.title
        outcomes[f"encounters/{s.id}"] = set(s.outcomes)  # its probabilities
    models = [s.model for s in cfg.encounters]

    def say(system: str, name: str) -> str:
        if system == "encounters" and system not in specs and models:  # as the models say it
            mine = [m for m in models if any(p.name == name for p in m.parameters)]
            return (mine or models)[0].said(name) or name
        return words(name, specs.get(system), unit=False)

    def probability(key: str, q: str) -> bool:
        return q in outcomes.get(key, ()) or is_probability(q)

    rows = comparison.changes.to_dict(orient="records")
    settings = _settings_moves(cfg, baseline, say) if baseline is not None else {}
    return warning, change_sentences(rows, titles, say, probability, frozenset(variants), settings)


def _settings_moves(cfg: ReportConfig, baseline: dict[str, Any], say: Any) -> dict[str, str]:
    """Each section's changed inputs against the baseline's (``summary.json`` records a
    sweep's settings and a validation's parameters), in words, by section key."""
    from critlab.analysis.report.build import section_settings

    before = {
        f"{s.get('system')}/{s.get('id')}": s.get("settings", s.get("params"))
        for s in [*baseline.get("sections", []), *baseline.get("validations", [])]
        if isinstance(s, dict)
    }
    out = {}
    for block in cfg.systems:
        for section in block.sections:
            key = f"{block.name}/{section.id}"
            then = before.get(key)
            if not isinstance(then, dict):
                continue  # a new section, or a baseline from before settings were recorded
            now = (
                section_settings(section)
                if isinstance(section, SweepSection)
                else dict(section.spec.params())
            )
            out[key] = settings_changed(block.name, then, now, say)
    return out


def spec_labels(system: str, spec: Any) -> tuple[str, ...]:
    """The outcome labels of a validated spec (its exact result's)."""
    from critlab.analysis.systems import get_system

    return tuple(get_system(system).exact(spec).labels)


def _changes(comparison: Comparison, warning: str, groups: list[tuple[str, list[str]]]) -> list:
    blocks: list = [Heading(2, "What changed", "what-changed")]
    if warning:
        blocks.append(Paragraph(warning, "warn"))
    blocks.append(Paragraph(comparison.headline()))
    if comparison.no_change:
        return blocks
    for heading, sentences in groups:  # one paragraph per section, its moves in words
        blocks.append(Paragraph(f"{heading}: " + "; ".join(sentences) + "."))
    shown = comparison.changes[
        comparison.changes["beyond_noise"] | (comparison.changes["kind"] == "exact")
    ].head(MAX_CHANGE_ROWS)
    raw: list = []
    if not shown.empty:
        rows = [
            [
                r.key,
                r.kind,
                fmt_se(r.baseline, r.baseline_se),
                fmt_se(r.current, r.current_se),
                _signed(r.change),
                fmt_z(r.z),
            ]
            for r in shown.itertuples()
        ]
        raw.append(
            Table(
                ["metric key", "kind", "baseline", "now", "change", "z"],
                rows,
                caption="Numbers that moved: exact ones by more than 1e-12, simulated ones beyond noise "
                "(|z| > 4, z from both standard errors). All moves are in tables/changes.csv.",
                label_columns=2,
            )
        )
    quiet = int((~comparison.changes["beyond_noise"]).sum())
    if quiet:
        raw.append(
            Paragraph(
                f"{quiet} simulated numbers differ within noise (|z| ≤ 4); see tables/changes.csv.", "note"
            )
        )
    for what, keys in (("New", comparison.added), ("No longer reported", comparison.removed)):
        if keys:
            more = f" and {len(keys) - 10} more" if len(keys) > 10 else ""
            raw.append(Paragraph(f"{what} ({len(keys)}): " + ", ".join(keys[:10]) + more + ".", "note"))
    if raw:  # the summary's keys, for whoever wants the rows behind the sentences
        blocks.append(Details(f"The {len(shown)} moved numbers by key (raw rows)", raw))
    return blocks


def _signed(x: float) -> str:
    text = fmt(x)
    return text if text.startswith("-") or text == "–" else "+" + text


def assemble(
    cfg: ReportConfig,
    seed: int,
    outputs: dict[str, list[SectionOutput]],
    comparison: Comparison | None,
    meta: dict[str, Any],
    wall_time: float,
    checks: list[dict[str, Any]] | None = None,
    baseline: dict[str, Any] | None = None,
    encounters: list[SectionOutput] | None = None,
) -> Document:
    """The document: the blocks both writers render (``baseline``: the summary the
    comparison was made against, to say whether it is this configuration's)."""
    validations = [o.info for outs in outputs.values() for o in outs if "passed" in o.info]
    line, all_ok = status(validations, checks or [])
    ok = verdict(validations)[1]
    doc = Document(cfg.title)
    doc.add(Paragraph(line, "ok" if all_ok else "fail"))  # the one status banner
    doc.add(*checks_blocks(checks or [], cfg.checks))  # balance checks at the top, failures first seen
    found = headlines([o.info for outs in [*outputs.values(), encounters or []] for o in outs])
    if found:  # the conclusions, computed from the sections' numbers, each linked to its section
        doc.add(Heading(2, "What this report says", "findings"), Findings(found))
    warning, groups = ("", []) if comparison is None else change_words(cfg, comparison, baseline, seed)
    if comparison is not None:
        doc.add(Paragraph(comparison.headline(), "note"))
        if warning:
            doc.add(Paragraph(warning, "warn"))
    commit = meta.get("git_commit")
    commit_text = (
        f", commit {commit[:12]}{' with local changes' if meta.get('git_dirty') else ''}" if commit else ""
    )
    doc.add(
        Paragraph(
            f"Built {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by critlab {meta.get('critlab_version')}"
            f"{commit_text}; seed {seed}; {cfg.trials:,} trials per validation in {cfg.batches} batches; "
            f"wall time {wall_time:.1f} s. Configuration: {cfg.file}. Sweep figures and tables are exact; "
            "validation figures and tables are simulated, each simulated number with its standard error.",
            "meta",
        )
    )
    if cfg.description:
        doc.add(Paragraph(cfg.description))
    doc.add(Contents())
    doc.add(
        Heading(2, "Validation summary", "validation-summary"),
        Paragraph(summary_sentence(validations), "" if ok else "note"),
        Details(f"Statistics of the {len(validations)} validations", [_validation_table(validations)]),
    )
    if comparison is not None:
        doc.add(*_changes(comparison, warning, groups))
    titles = {b.name: b for b in cfg.systems}
    for name, outs in outputs.items():
        block = titles[name]
        doc.add(Heading(2, f"{name}: {block.title}", anchor(name)))
        if block.note:
            doc.add(Paragraph(block.note, "note"))
        for o in outs:
            doc.add(*o.blocks)
    if encounters:  # [[encounters]]: sweep sections over encounter models, after the systems
        doc.add(Heading(2, "Encounters", "encounters"), *(b for o in encounters for b in o.blocks))
    rows = [
        ["critlab", str(meta.get("critlab_version"))],
        ["git commit", f"{commit}{' (local changes)' if meta.get('git_dirty') else ''}" if commit else "–"],
        ["python", meta["python"]],
        *[[lib, str(v)] for lib, v in meta["libraries"].items()],
        ["platform", meta["platform"]],
        ["cores", str(meta["cpu_count"])],
        ["seed", str(seed)],
        ["trials per validation", f"{cfg.trials:,}"],
        ["batches", str(cfg.batches)],
        ["alpha", f"{cfg.alpha:g}"],
        ["wall time", f"{wall_time:.1f} s"],
    ]
    doc.add(
        Heading(2, "Run metadata", "run-metadata"),
        Details(
            "critlab, libraries, platform, seed and timing", [Table(["item", "value"], rows, label_columns=2)]
        ),
    )
    return doc
