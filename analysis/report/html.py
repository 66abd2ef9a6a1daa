"""The report as one self-contained HTML page: figures embedded as base64 PNG, plain
CSS that reads on a phone (fluid images, scrolling tables) and prints cleanly.

>>> from critlab.analysis.report.doc import Document, Heading, Paragraph, Contents
>>> page = render(Document("T", [Paragraph("All passed.", "ok"), Contents(), Heading(2, "A & B", "a")]))
>>> '<a href="#a">A &amp; B</a>' in page, page.count("<img")
(True, 0)
"""

from __future__ import annotations

import base64
from html import escape

from critlab.analysis.report.doc import Document, Heading, Renderer, Table

CSS = """
:root { color-scheme: light; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1b1b1b;
       background: #fff; }
main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; margin: .5rem 0; }
h2 { font-size: 1.3rem; margin-top: 2.2rem; border-bottom: 2px solid #ddd; }
h3 { font-size: 1.1rem; margin-top: 1.6rem; }
p.ok, p.fail { font-weight: 600; padding: .5rem .75rem; border-radius: 4px; }
p.ok { background: #e6f4ea; border-left: 4px solid #1e8e3e; }
p.fail { background: #fdecea; border-left: 4px solid #d93025; }
p.warn { background: #fff4e5; border-left: 4px solid #b06000; font-weight: 600; padding: .5rem .75rem; }
tr.fail td { background: #fdecea; color: #a50e0e; font-weight: 600; }
p.meta, p.note, figcaption, caption { color: #444; font-size: .9rem; }
p.lead { font-size: 1.02rem; margin: .4rem 0 .6rem; }
ul.findings { padding-left: 1.2rem; }
ul.findings li { margin: .35rem 0; }
ul.findings a { white-space: nowrap; font-size: .9rem; }
details { margin: .5rem 0; border: 1px solid #e2e2e2; border-radius: 4px; padding: .3rem .6rem; }
details > summary { cursor: pointer; color: #2a4d69; font-size: .9rem; }
details[open] > summary { margin-bottom: .4rem; }
a.csv { font-size: .85rem; }
figure { margin: .6rem 0; }
img { max-width: 100%; height: auto; display: block; }
a.full { display: block; cursor: zoom-in; }
/* a word longer than its line (a file name, a metric key) breaks rather than widen the
   page; other words wrap whole ("anywhere" would break "range" as "rang e") */
p, li, summary, figcaption { overflow-wrap: break-word; }
.scroll { overflow-x: auto; max-width: 100%; margin: .75rem 0; }
table { border-collapse: collapse; font-size: .85rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; padding: .25rem 0; }
th, td { border: 1px solid #ccc; padding: .2rem .5rem; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; }
td.l, th.l { text-align: left; }
td.l { white-space: normal; overflow-wrap: break-word; hyphens: auto; }
nav ol { padding-left: 1.4rem; }
nav ol ol { padding-left: 0; margin: .1rem 0 .3rem; font-size: .9rem; }
nav ol ol li { display: inline; }
nav ol ol li + li::before { content: " · "; color: #888; }
@media (max-width: 40rem) {
  body { font-size: 15px; }
  main { padding: .5rem; }
  /* a stacked table: each row a card, each cell "header: value" on its own line */
  table.stack, table.stack caption, table.stack tbody, table.stack tr, table.stack td {
    display: block; width: 100%; box-sizing: border-box; }
  table.stack { font-size: .95rem; }
  table.stack thead { display: none; }
  table.stack tr { border: 1px solid #ccc; border-radius: 4px; margin: .5rem 0; padding: .2rem 0; }
  table.stack td { border: none; text-align: left; white-space: normal; padding: .1rem .6rem; }
  table.stack td::before { content: attr(data-label) ": "; color: #555; font-weight: 600; }
  table.stack td:first-child { font-weight: 600; }
  table.stack td:first-child::before { content: ""; }
}
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  nav { break-after: page; }
  h2, h3 { break-after: avoid; }
  figure, table, p.ok, p.fail { break-inside: avoid; }
  details > summary { display: none; }
  .scroll { overflow: visible; }
  a { color: inherit; text-decoration: none; }
}
"""


def _contents(doc: Document) -> str:
    groups: list[tuple[Heading | None, list[Heading]]] = []
    for h in doc.headings():
        if h.level == 2 or not groups:
            groups.append((h if h.level == 2 else None, []))
        if h.level == 3:
            groups[-1][1].append(h)

    def link(h: Heading) -> str:
        return f'<a href="#{escape(h.anchor)}">{escape(h.text)}</a>'

    items = []
    for top, subs in groups:
        inner = "<ol>" + "".join(f"<li>{link(h)}</li>" for h in subs) + "</ol>" if subs else ""
        items.append(f"<li>{link(top) if top else ''}{inner}</li>")
    return "<nav><h2>Contents</h2><ol>" + "".join(items) + "</ol></nav>"


def _table(t: Table) -> str:
    def cell(tag: str, i: int, text: str) -> str:
        cls = ' class="l"' if i < t.label_columns else ""
        # a stacked table's cell names its column, shown before it on a narrow screen
        label = f' data-label="{escape(t.header[i])}"' if t.stack and tag == "td" else ""
        return f"<{tag}{cls}{label}>{escape(text)}</{tag}>"

    head = "".join(cell("th", i, h) for i, h in enumerate(t.header))
    failed = set(t.failed_rows)

    def row_tag(k: int) -> str:
        return '<tr class="fail">' if k in failed else "<tr>"

    body = "".join(
        row_tag(k) + "".join(cell("td", i, c) for i, c in enumerate(row)) + "</tr>"
        for k, row in enumerate(t.rows)
    )
    link = f' <a class="csv" href="{escape(t.csv)}">full table (CSV)</a>' if t.csv else ""
    caption = f"<caption>{escape(t.caption)}{link}</caption>" if t.caption or link else ""
    cls = ' class="stack"' if t.stack else ""
    table = f"<table{cls}>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="scroll">{table}</div>'


class _Page(Renderer):
    """The blocks as HTML."""

    def heading(self, doc: Document, b) -> str:
        return f'<h{b.level} id="{escape(b.anchor)}">{escape(b.text)}</h{b.level}>'

    def paragraph(self, doc: Document, b) -> str:
        cls = f' class="{b.style}"' if b.style else ""
        return f"<p{cls}>{escape(b.text)}</p>"

    def figure(self, doc: Document, b) -> str:
        data = base64.b64encode(b.png).decode("ascii")
        # a narrow screen gets the figure's narrow form, its text at the size it was drawn
        narrow = (
            f'<source media="(max-width: 40rem)" srcset="data:image/png;base64,'
            f'{base64.b64encode(b.narrow).decode("ascii")}">'
            if b.narrow
            else ""
        )
        # the image links to its full-size file beside the page: a phone can open and zoom it
        return (
            f'<figure><a class="full" href="{escape(b.file)}" title="open the full-size figure">'
            f'<picture>{narrow}<img src="data:image/png;base64,{data}" alt="{escape(b.alt or b.caption)}">'
            f"</picture></a><figcaption>{escape(b.caption)}</figcaption></figure>"
        )

    def table(self, doc: Document, b) -> str:
        return _table(b)

    def details(self, doc: Document, b) -> str:
        inner = "\n".join(self.block(doc, x) for x in b.blocks)
        return f"<details><summary>{escape(b.summary)}</summary>\n{inner}\n</details>"

    def findings(self, doc: Document, b) -> str:
        items = "".join(
            f'<li>{escape(text)} <a href="#{escape(anchor)}">→ section</a></li>' for text, anchor in b.items
        )
        return f'<ul class="findings">{items}</ul>'

    def contents(self, doc: Document, b) -> str:
        return _contents(doc)


def render(doc: Document) -> str:
    """The whole page as a string."""
    body = "\n".join(_Page().block(doc, b) for b in doc.blocks)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(doc.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        f"<h1>{escape(doc.title)}</h1>\n{body}\n</main>\n</body>\n</html>\n"
    )
