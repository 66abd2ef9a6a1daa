"""The report as README.md: the same blocks as the HTML page, figures as relative PNGs.

Every text of the document (much of it from the configuration: titles, notes, variant
names) is written inert: HTML escaped, link and image brackets escaped, one line, so a
configuration cannot put markup, a ``javascript:`` link or a new heading into the README.

>>> from critlab.analysis.report.doc import Document, Table
>>> print(render(Document("T", [Table(["x", "p"], [["a|b", "0.5"]])])).strip())
# T
<BLANKLINE>
| x | p |
| :-- | --: |
| a\\|b | 0.5 |
>>> text('<b>[click](javascript:alert(1))</b>')
'&lt;b&gt;\\\\[click\\\\](javascript:alert(1))&lt;/b&gt;'
>>> paragraph("# not a heading\\n\\n- nor a list"), paragraph("1. nor this")
('\\\\# not a heading - nor a list', '1\\\\. nor this')
"""

from __future__ import annotations

import re
from html import escape

from critlab.analysis.report.doc import Document, Renderer, Table

_INERT = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\\": "\\\\", "[": "\\[", "]": "\\]", "*": "\\*"}
)
# What starts a block when it leads a paragraph: a heading, list, rule, fence or table row
# (a quote's ">" is escaped anyway); an ordered list's "1." is escaped at its dot.
_LEADING_MARK = re.compile(r"^(?=[#+\-=~`|_])")
_LEADING_NUMBER = re.compile(r"^(\d+)([.)])")


def text(value: str) -> str:
    """``value`` as inert Markdown inline text on one line."""
    return " ".join(str(value).split()).translate(_INERT)


def paragraph(value: str) -> str:
    """``value`` as one inert Markdown paragraph (nothing at its start opens a block)."""
    inline = _LEADING_MARK.sub("\\\\", text(value))
    return _LEADING_NUMBER.sub(r"\1\\\2", inline)


def _cell(value: str) -> str:
    return text(value).replace("|", "\\|")


def _table(t: Table) -> str:
    lines = []
    if t.caption:
        lines.append(f"*{text(t.caption)}*\n")
    lines.append("| " + " | ".join(_cell(h) for h in t.header) + " |")
    lines.append(
        "| " + " | ".join(":--" if i < t.label_columns else "--:" for i in range(len(t.header))) + " |"
    )
    failed = set(t.failed_rows)
    # a failed row's cells in bold, so the failure reads in plain text too
    lines += [
        "| " + " | ".join(f"**{_cell(c)}**" if k in failed and c else _cell(c) for c in row) + " |"
        for k, row in enumerate(t.rows)
    ]
    return "\n".join(lines)


def _contents(doc: Document) -> str:
    lines = ["## Contents", ""]
    for h in doc.headings():
        indent = "  " * (h.level - 2)
        lines.append(f"{indent}- [{text(h.text)}](#{h.anchor})")
    return "\n".join(lines)


class _Readme(Renderer):
    """The blocks as Markdown."""

    def heading(self, doc: Document, b) -> str:
        # an explicit anchor: heading slugs differ between Markdown renderers
        return f'<a id="{escape(b.anchor)}"></a>\n\n{"#" * b.level} {text(b.text)}'

    def paragraph(self, doc: Document, b) -> str:
        if b.style == "warn":
            return f"> **Warning: {text(b.text)}**"
        return f"**{text(b.text)}**" if b.style in ("ok", "fail") else paragraph(b.text)

    def figure(self, doc: Document, b) -> str:
        return f"![{text(b.alt or b.caption)}]({b.file})\n\n*{text(b.caption)}*"

    def table(self, doc: Document, b) -> str:
        return _table(b) + (f"\n\n[Full table (CSV)]({b.csv})" if b.csv else "")

    def details(self, doc: Document, b) -> str:
        # GitHub renders <details>; the blank lines keep Markdown inside it
        inner = "\n\n".join(self.block(doc, x) for x in b.blocks)
        # HTML-escaped, and brackets as entities: no renderer can read a link in it
        summary = escape(" ".join(b.summary.split())).replace("[", "&#91;").replace("]", "&#93;")
        return f"<details><summary>{summary}</summary>\n\n{inner}\n\n</details>"

    def findings(self, doc: Document, b) -> str:
        return "\n".join(f"- {text(t)} ([→ section](#{a}))" for t, a in b.items)

    def contents(self, doc: Document, b) -> str:
        return _contents(doc)


def render(doc: Document) -> str:
    """The whole README as a string."""
    parts = [f"# {text(doc.title)}"] + [_Readme().block(doc, b) for b in doc.blocks]
    return "\n\n".join(parts) + "\n"
