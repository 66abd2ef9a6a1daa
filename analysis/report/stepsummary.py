"""``summary.md``: the report's verdict, balance checks and changes in a few lines of
Markdown, for a CI job's summary (GitHub's ``$GITHUB_STEP_SUMMARY``) or a pull request
comment. It is written from ``summary.json``'s own content, so both say the same.

>>> text = render({"title": "T", "verdict": "Everything validated: all 1 simulation agrees.", "passed": True,
...                "checks": [], "validations": [], "comparison": None})
>>> text.splitlines()[0]
'### ✅ T'
"""

from __future__ import annotations

from typing import Any

from critlab.analysis.report.markdown import paragraph, text

# At most this many change sentences are listed; the report holds them all.
MAX_SENTENCES = 30


def _cell(value: Any) -> str:
    return text(str(value)).replace("|", "\\|")


def _number(x: float | None) -> str:
    return "null" if x is None else f"{x:.10g}"


def render(summary: dict[str, Any], link: str = "index.html") -> str:
    """The Markdown for one report's ``summary`` (the dictionary ``summary.json`` holds)."""
    ok = bool(summary.get("passed", summary.get("validated")))
    lines = [
        f"### {'✅' if ok else '❌'} {text(summary.get('title', ''))}",
        "",
        f"**{text(summary['verdict'])}**",
        "",
    ]
    checks = summary.get("checks") or []
    if checks:
        lines += ["| balance check | value | min | max | result |", "| :-- | --: | --: | --: | :-- |"]
        for c in checks:
            result = "pass" if c["passed"] else "**FAIL**"
            lo = "–" if c["min"] is None else f"{c['min']:g}"
            hi = "–" if c["max"] is None else f"{c['max']:g}"
            lines.append(f"| {_cell(c['name'])} | {_number(c['value'])} | {lo} | {hi} | {result} |")
        lines.append("")
    failed = [v for v in summary.get("validations") or [] if not v["passed"]]
    for v in failed:
        lines.append(f"- validation FAILED: {text(v['system'])} · {text(v['title'])}")
    if failed:
        lines.append("")
    comparison = summary.get("comparison")
    if comparison is not None:
        lines.append("**What changed**")
        lines.append("")
        if comparison.get("warning"):
            lines += [f"> **Warning: {text(comparison['warning'])}**", ""]
        lines.append(paragraph(comparison.get("headline", "")))
        lines.append("")
        said = [(h, s) for h, sentences in comparison.get("sentences") or [] for s in sentences]
        for heading, sentence in said[:MAX_SENTENCES]:
            lines.append(f"- {text(heading)}: {text(sentence)}")
        if len(said) > MAX_SENTENCES:
            lines.append(f"- and {len(said) - MAX_SENTENCES} more in the report")
        if said:
            lines.append("")
    lines.append(f"The whole report: `{text(summary.get('name', ''))}/{link}` in the job's artifact.")
    return "\n".join(lines) + "\n"
