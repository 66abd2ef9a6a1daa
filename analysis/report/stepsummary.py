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

from critlab.analysis.report.checks import check_cells
from critlab.analysis.report.markdown import paragraph, text

# At most this many change sentences are listed; the report holds them all.
MAX_SENTENCES = 30


def _cell(value: Any) -> str:
    return text(str(value)).replace("|", "\\|")


def render(summary: dict[str, Any], link: str = "index.html", probability: list[bool] | None = None) -> str:
    """The Markdown for one report's ``summary`` (the dictionary ``summary.json`` holds);
    ``probability`` says which checks' quantities are probabilities (shown in percent, as
    the report's page shows them)."""
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
        probs = probability if probability is not None else [False] * len(checks)
        for c, prob in zip(checks, probs, strict=True):
            result = "pass" if c["passed"] else "**FAIL**"
            value, lo, hi = check_cells(c, prob)
            lines.append(f"| {_cell(c['name'])} | {value} | {lo} | {hi} | {result} |")
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
