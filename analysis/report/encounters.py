"""A report's encounter sections: each point's exact chain, a figure of the quantities by
the varied setting, a table, the CSV and the summary's keys.

Sections are read by :mod:`critlab.analysis.report.encounter_read`. Each point is one
:func:`~critlab.analysis.encounter.exact.exact_encounter`; the section's wide table has a
row per value of the varied setting and a column per quantity
(``tables/encounters--<id>.csv``), and ``summary.json`` keys its numbers
``encounters/<id>/<setting>=<value>/<quantity>``; names read as words
(:mod:`critlab.analysis.report.encounter_words`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from critlab.analysis import style
from critlab.analysis.design.points import Refused, each_model
from critlab.analysis.encounter.model import as_model
from critlab.analysis.report.build import Progress, SectionOutput
from critlab.analysis.report.doc import Details, Figure, Heading, Paragraph, Table, fmt_value
from critlab.analysis.report.encounter_read import EncounterSection
from critlab.analysis.report.encounter_words import is_probability, quantity_text, setting_text
from critlab.analysis.report.picture import pictures
from critlab.analysis.report.tables import column_format
from critlab.analysis.results import json_number
from critlab.analysis.text.human import said_amount, said_percent
from critlab.analysis.text.numtext import one_line


def _numeric(values: tuple[Any, ...]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


# -- numbers -----------------------------------------------------------------------------------
def encounter_table(section: EncounterSection, client: Any = None) -> pd.DataFrame:
    """One row per value of the varied setting: the setting, then each quantity (exact),
    every point its model's (on the Dask ``client``'s workers when given: the same table)."""
    models = [as_model(enc) for enc in section.points]
    jobs = [section.quantities] * len(models)
    answers = each_model(
        models, _quantities, jobs, name=f"encounters-{section.id}", progress=False, client=client
    )
    rows = []
    for value, answer in zip(section.values, answers, strict=True):
        if isinstance(answer, Refused):  # probed when the configuration was read: a changed engine
            raise answer.error
        rows.append({section.setting: value, **dict(zip(section.quantities, answer, strict=True))})
    return pd.DataFrame(rows, columns=[section.setting, *section.quantities])


def _quantities(model: Any, quantities: tuple[str, ...]) -> list[float | None]:
    return [model.value(q) for q in quantities]


def encounter_metrics(section: EncounterSection, wide: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Summary metrics ``encounters/<id>/<setting>=<value>/<quantity>`` (all exact)."""
    out = {}
    for row in wide.to_dict(orient="records"):
        prefix = f"encounters/{section.id}/{section.setting}={fmt_value(row[section.setting])}"
        for q in section.quantities:
            out[f"{prefix}/{q}"] = {"kind": "exact", "value": json_number(row[q])}
    return out


def lead_sentence(section: EncounterSection, wide: pd.DataFrame) -> str:
    """The first quantity from the first value to the last, in words."""
    if len(wide) < 2:
        return ""
    q = section.quantities[0]
    first, last = wide[q].iloc[0], wide[q].iloc[-1]
    if first is None or last is None or np.isnan(first) or np.isnan(last):
        return ""
    say = said_percent if is_probability(q) else said_amount
    lo, hi = fmt_value(section.values[0]), fmt_value(section.values[-1])
    where = setting_text(section.setting, section.points[0])
    if first == last:
        return f"{quantity_text(q)} stays at {say(first)} from {where} {lo} to {hi}."
    verb = "rises" if last > first else "falls"
    return f"{quantity_text(q)} {verb} from {say(first)} at {where} {lo} to {say(last)} at {hi}."


# -- the figure --------------------------------------------------------------------------------
def encounter_figure(section: EncounterSection, wide: pd.DataFrame) -> MplFigure:
    """The quantities by the varied setting: probabilities in one panel (0 to 1), each
    amount in a panel of its own (rounds and hit points never share an axis)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    probs = [q for q in section.quantities if is_probability(q)]
    panels = ([probs] if probs else []) + [[q] for q in section.quantities if not is_probability(q)]
    ncols = min(2, len(panels))
    nrows = -(-len(panels) // ncols)
    fig = MplFigure(figsize=(7.5 if ncols == 1 else 10.0, 2.9 * nrows + 0.45), layout="constrained")
    FigureCanvasAgg(fig)
    numeric = _numeric(section.values)
    x = np.asarray(section.values, dtype=float) if numeric else np.arange(len(section.values))
    colours = dict(zip(section.quantities, style.LINE_QUALITATIVE * 2, strict=False))
    for k, group in enumerate(panels):
        ax = fig.add_subplot(nrows, ncols, k + 1)
        for q in group:
            y = wide[q].to_numpy(dtype=float)
            # a choice's values are no scale: points, not a line between them
            line = dict(ls="-", ms=3, lw=1.6) if numeric else dict(ls="none", ms=6)
            ax.plot(x, y, marker="o", color=colours[q], label=quantity_text(q), **line)
        if not numeric:
            ax.set_xticks(x, [fmt_value(v) for v in section.values])
            ax.set_xlim(-0.5, len(x) - 0.5)
        ax.set_xlabel(setting_text(section.setting, section.points[0]))
        ax.set_ylabel("probability" if group is probs and len(group) > 1 else quantity_text(group[0]))
        if group is probs:
            ax.set_ylim(0, 1.02)
            if len(group) > 1:
                style.legend_outside(ax)
        else:
            ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{section.title} (exact)", fontsize="medium")
    return fig


def _shows(section: EncounterSection) -> str:
    what = ", ".join(quantity_text(q) for q in section.quantities)
    return f"{what} by {setting_text(section.setting, section.points[0])}"


def _table(section: EncounterSection, wide: pd.DataFrame) -> Table:
    formats = {q: column_format(list(wide[q]), probability=is_probability(q)) for q in section.quantities}
    rows = [
        [fmt_value(row[section.setting]), *(formats[q](row[q]) for q in section.quantities)]
        for row in wide.to_dict(orient="records")
    ]
    header = [
        setting_text(section.setting, section.points[0]),
        *(quantity_text(q) for q in section.quantities),
    ]
    return Table(header, rows, caption=f"Exact: {_shows(section)}.", label_columns=1)


# -- the section -------------------------------------------------------------------------------
def encounter_section(section: EncounterSection, say: Progress, client: Any = None) -> SectionOutput:
    """One encounter section: every point exact, its figure, table, CSV and summary keys."""
    start = time.perf_counter()
    wide = encounter_table(section, client)
    stem = f"encounters--{section.id}"
    out = SectionOutput()
    out.blocks.append(Heading(3, section.title, stem))
    lead = lead_sentence(section, wide)
    if lead:
        out.blocks.append(Paragraph(lead, "lead"))
    set_text = "; ".join(
        f"{setting_text(k, section.points[0])} {fmt_value(v)}" for k, v in section.settings.items()
    )
    about = f"Encounter file {section.file}" + (f", with {set_text}" if set_text else "") + "."
    out.blocks.append(Paragraph(one_line(about), "note"))
    if section.note:
        out.blocks.append(Paragraph(section.note, "note"))
    figure_file = f"figures/{stem}.png"
    caption = f"Exact: {_shows(section)} ({len(section.values)} points, each an absorbing chain)."
    alt = " ".join(t for t in (_shows(section) + ".", lead) if t)
    picture, narrow = pictures(encounter_figure(section, wide))
    out.blocks.append(Figure(figure_file, picture, caption, alt=alt, narrow=narrow))
    csv = f"tables/{stem}.csv"
    out.blocks.append(
        Details(
            f"Exact values: table, {len(section.values)} points · full CSV: {csv}", [_table(section, wide)]
        )
    )
    out.tables[csv] = wide
    out.metrics = encounter_metrics(section, wide)
    seconds = time.perf_counter() - start
    out.info = {
        "encounter": section.file,
        "id": section.id,
        "title": section.title,
        "kind": "encounter",
        "values": "exact",
        "vary": section.setting,
        "set": dict(section.settings),
        "quantities": list(section.quantities),
        "points": len(section.values),
        "states": section.states,
        "anchor": stem,
        "figure": figure_file,
        "table": csv,
        "seconds": round(seconds, 3),
    }
    say(f"encounter {section.file} · {section.title}: {len(section.values)} exact points in {seconds:.1f} s")
    return out


def encounter_blocks(outputs: list[SectionOutput]) -> list:
    """The page's "Encounters" part: its heading and every section's blocks."""
    if not outputs:
        return []
    blocks: list = [Heading(2, "Encounters", "encounters")]
    for o in outputs:
        blocks += o.blocks
    return blocks


__all__ = ["encounter_blocks", "encounter_figure", "encounter_section", "encounter_table"]
