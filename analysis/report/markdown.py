"""The report as README.md: the same blocks as the HTML page, figures as relative PNGs.

>>> from critlab.analysis.report.doc import Document, Table
>>> print(render(Document("T", [Table(["x", "p"], [["a|b", "0.5"]])])).strip())
# T
<BLANKLINE>
| x | p |
| :-- | --: |
| a\\|b | 0.5 |
"""

from __future__ import annotations

from critlab.analysis.report.doc import Contents, Document, Figure, Heading, Paragraph, Table


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(t: Table) -> str:
    lines = []
    if t.caption:
        lines.append(f"*{t.caption}*\n")
    lines.append("| " + " | ".join(_cell(h) for h in t.header) + " |")
    lines.append(
        "| " + " | ".join(":--" if i < t.label_columns else "--:" for i in range(len(t.header))) + " |"
    )
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in t.rows]
    return "\n".join(lines)


def _contents(doc: Document) -> str:
    lines = ["## Contents", ""]
    for h in doc.headings():
        indent = "  " * (h.level - 2)
        lines.append(f"{indent}- [{h.text}](#{h.anchor})")
    return "\n".join(lines)


def _block(doc: Document, b) -> str:
    if isinstance(b, Heading):
        # an explicit anchor: heading slugs differ between Markdown renderers
        return f'<a id="{b.anchor}"></a>\n\n{"#" * b.level} {b.text}'
    if isinstance(b, Paragraph):
        return f"**{b.text}**" if b.style in ("ok", "fail") else b.text
    if isinstance(b, Figure):
        return f"![{b.caption}]({b.file})\n\n*{b.caption}*"
    if isinstance(b, Table):
        return _table(b)
    if isinstance(b, Contents):
        return _contents(doc)
    raise TypeError(f"unknown report block {b!r}")


def render(doc: Document) -> str:
    """The whole README as a string."""
    parts = [f"# {doc.title}"] + [_block(doc, b) for b in doc.blocks]
    return "\n\n".join(parts) + "\n"
