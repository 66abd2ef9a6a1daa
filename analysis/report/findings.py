"""What a section says, in a designer's words: sentences computed from its numbers.

Every sweep section opens with one or two sentences read off its wide table (one row
per grid point), never written by hand:

- a **comparison** when the configuration asks for one (``lead = { axis = "crit_range",
  from = 1, to = 2, at = { weapon = "sword" } }``): "Crit range 2 instead of 1 adds +0.21
  expected damage for the sword (+9% relative; 2.31 → 2.52)."; a probability is said as
  "… makes minor critical 2.1× as likely (4.5% → 9.5%)" or "cuts P(mort) from 15% to 2%";
- a sentence from the section's shape: how the first plotted quantity moves along the x
  axis (and which series ends highest), the range of a heatmap, the outcome that moves
  most in stacked shares, the extremes over a list of choices.

Sections marked ``headline = true`` give the page's "What this report says" list its
items (their first sentence, linked to the section); a system with none marked gives its
first sweep section's.

>>> said_percent(0.0975), said_percent(0.152), said_amount(0.2134), signed(0.2134), ratio(2.125)
('9.75%', '15.2%', '0.213', '+0.213', '2.1×')
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from critlab.analysis.report.config import Axis, SweepSection
from critlab.analysis.report.doc import fmt_value
from critlab.analysis.report.tables import NOISE, is_probability
from critlab.analysis.report.words import phrase
from critlab.analysis.text.human import said_amount, said_percent, signed


# -- numbers in words (percentages and amounts: critlab.analysis.text.human) ----------------
def ratio(r: float) -> str:
    return f"{r:.1f}×" if r < 10 else f"{r:.0f}×"


def _relative(d: float, a: float) -> str:
    r = 100.0 * d / a
    return f"{r:+.0f}%" if abs(r) >= 1 else f"{r:+.1f}%"


# -- names in words --------------------------------------------------------------------------
def _spec_cls(section: SweepSection) -> Any:
    return type(next(iter(section.base_specs.values())))


def axis_words(section: SweepSection, axis: Axis) -> str:
    """An axis as a sentence names it: the x label up to its parenthesis, else the
    declared label (``sm`` → "SM")."""
    from critlab.analysis.params import axis_label

    if section.axes and axis is section.axes[0] and section.x_label:
        return section.x_label.split(" (")[0]
    return _said(section, axis.name) or axis_label(axis.name, _spec_cls(section))


def _said(section: SweepSection, name: str) -> str | None:
    """``name`` as the section's model declares it (a probability's event alone, without
    its ``P(...)``), or None for a section over a system's spec."""
    said = section.model.said(name) if getattr(section, "model", None) is not None else None
    return said[2:-1] if said and said.startswith("P(") and said.endswith(")") else said


def is_prob(section: SweepSection, q: str) -> bool:
    return q in section.outcomes or q == section.label or is_probability(q)


def quantity_words(section: SweepSection, q: str) -> str:
    """``minor_critical`` → "minor critical", ``p_down`` → "down", ``P(serious or worse)``
    → "serious or worse", ``expected_damage`` → "expected damage"."""
    from critlab.analysis.params import axis_label

    said = _said(section, q)
    if said:
        return said
    if q.startswith("P(") and q.endswith(")"):
        return phrase(q[2:-1], _spec_cls(section))
    if q.startswith("p_"):
        return q[2:].replace("_", " ")
    if q in section.outcomes:
        words = q.replace("_", " ")
        # a contest's sides: a_wins -> "A wins"
        return words[0].upper() + words[1:] if q[:2] in ("a_", "b_") else words
    return axis_label(q, _spec_cls(section))


def value_words(section: SweepSection, q: str, x: float) -> str:
    return said_percent(x) if is_prob(section, q) else said_amount(x)


def _where(section: SweepSection, fixed: Mapping[str, Any], skip: tuple[str, ...] = ()) -> str:
    """ " for the sword, at SM 0" for the axes held fixed (those in ``skip`` left out)."""
    variant, at, with_ = [], [], []
    for axis in section.axes:
        if axis.name in skip or axis.name not in fixed or len(axis.values) < 2:
            continue
        value = fmt_value(fixed[axis.name])
        if axis.variant:
            variant.append(f"for the {value}")
        elif axis.name == "mode":
            with_.append(f"in {value} mode")
        elif isinstance(fixed[axis.name], str):
            with_.append(f"with {axis_words(section, axis)} {value}")
        else:
            at.append(f"{axis_words(section, axis)} {value}")
    parts = [*variant, *(["at " + " and ".join(at)] if at else []), *with_]
    return (" " + ", ".join(parts)) if parts else ""


# -- picking rows ----------------------------------------------------------------------------
def base_value(section: SweepSection, axis: Axis) -> Any:
    """The axis value a sentence reads when it does not vary it: the parameter's
    default when the axis holds it (crit range 1, armor 0, mode lethal), else the
    axis's first value; a variant set's first variant."""
    if axis.variant:
        return axis.values[0]
    fields = {f.name: f.default for f in dataclasses.fields(_spec_cls(section))}
    default = fields.get(axis.name)
    return default if default in axis.values else axis.values[0]


def _rows(section: SweepSection, wide: pd.DataFrame, fixed: Mapping[str, Any]) -> pd.DataFrame:
    d = wide
    for name, value in fixed.items():
        d = d[d[name] == value]
    return d


def _fixed(section: SweepSection, vary: tuple[str, ...], at: Mapping[str, Any] | None = None) -> dict:
    at = dict(at or {})
    return {a.name: at.get(a.name, base_value(section, a)) for a in section.axes if a.name not in vary}


# -- the configured comparison (checked by critlab.analysis.report.lead) --------------------
def compare_sentence(section: SweepSection, wide: pd.DataFrame, lead: Mapping[str, Any]) -> str:
    """The configured comparison: the quantity at ``to`` against ``from`` on ``axis``."""
    axis = next(a for a in section.axes if a.name == lead["axis"])
    q = lead.get("quantity", section.plotted[0])
    fixed = _fixed(section, (axis.name,), lead.get("at"))
    rows = _rows(section, wide, fixed).set_index(axis.name)[q]
    a, b = float(rows.loc[lead["from"]]), float(rows.loc[lead["to"]])
    subject = _subject(section, axis, lead["from"], lead["to"])
    versus = alternative(section, q, axis, fixed, lead["from"], lead["to"])
    return f"{subject} {effect(section, q, a, b)}{_where(section, fixed)}{versus}."


def alternative(
    section: SweepSection, q: str, axis: Axis, fixed: Mapping[str, Any], frm: Any, to: Any
) -> str:
    """For a one-step comparison on an integer axis, how it compares with the strongest
    other integer parameter's +1 that moves ``q`` the same way: ": +1 crit range is worth
    less than +1 attack bonus (+0.225)" ("" when there is none to compare with)."""
    from critlab.analysis.design.sensitivity import sensitivity
    from critlab.analysis.spec import SpecError

    if not numeric_axis(axis) or to - frm != 1 or q.startswith("P("):
        return ""
    variant = next((fixed[a.name] for a in section.axes if a.variant), None)
    spec = section.base_specs.get(variant) or next(iter(section.base_specs.values()))
    point = {a.name: fixed.get(a.name, frm) for a in section.axes if not a.variant}
    point[axis.name] = frm
    try:
        spec = dataclasses.replace(spec, **point)
        data = sensitivity(spec, fight=section.fight or None)
    except (SpecError, ValueError, TypeError):
        return ""
    rows = data[data["quantity"] == q].set_index("param")
    if axis.name not in rows.index:
        return ""
    step = rows.loc[axis.name, "plus_1"] - rows.loc[axis.name, "at"]
    others = (rows["plus_1"] - rows["at"]).drop(axis.name).dropna()
    others = others[(others * step > 0) & (others.abs() > NOISE)]
    if not math.isfinite(step) or abs(step) < NOISE or others.empty:
        return ""
    best = others.abs().idxmax()
    d = float(others[best])
    than = (
        "more than"
        if abs(step) > abs(d) * 1.005
        else "less than"
        if abs(step) < abs(d) * 0.995
        else "as much as"
    )
    show = (lambda v: f"{signed(100 * v)} points") if is_prob(section, q) else signed  # noqa: E731
    return (
        f": +1 {axis_words(section, axis)} is worth {show(step)}, {than} +1 "
        f"{quantity_words_param(section, best)} ({show(d)})"
    )


def quantity_words_param(section: SweepSection, name: str) -> str:
    """A parameter in words, without its unit (``attack_bonus`` → "attack bonus")."""
    from critlab.analysis.report.words import words

    return words(name, _spec_cls(section), unit=False)


def _subject(section: SweepSection, axis: Axis, frm: Any, to: Any) -> str:
    words = axis_words(section, axis)
    if isinstance(to, str):
        return f"{fmt_value(to).capitalize()} {words} instead of {fmt_value(frm)}"
    return f"{words[0].upper()}{words[1:]} {fmt_value(to)} instead of {fmt_value(frm)}"


def effect(section: SweepSection, q: str, a: float, b: float) -> str:
    """How ``q`` moves from ``a`` to ``b``, said as a designer would."""
    words = quantity_words(section, q)
    a, b = (0.0 if abs(v) < NOISE else v for v in (a, b))
    if is_prob(section, q):
        if a == b:
            return f"leaves P({words}) at {said_percent(a)}"
        if b > a:
            if a == 0:
                return f"makes {words} possible ({said_percent(b)}, from never)"
            if b / a >= 1.5:
                return f"makes {words} {ratio(b / a)} as likely ({said_percent(a)} → {said_percent(b)})"
            return f"raises P({words}) from {said_percent(a)} to {said_percent(b)}"
        if b == 0:
            return f"rules out {words} (from {said_percent(a)})"
        return f"cuts P({words}) from {said_percent(a)} to {said_percent(b)}"
    d = b - a
    if d == 0:
        return f"leaves {words} at {said_amount(a)}"
    rel = f"{_relative(d, a)} relative; " if a else ""
    if d > 0:
        return f"adds {signed(d)} {words} ({rel}{said_amount(a)} → {said_amount(b)})"
    return f"takes {said_amount(-d)} off {words} ({rel}{said_amount(a)} → {said_amount(b)})"


# -- the shape's sentence --------------------------------------------------------------------
def numeric_axis(axis: Axis) -> bool:
    return not axis.variant and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in axis.values
    )


def shape_sentence(section: SweepSection, wide: pd.DataFrame) -> str:
    """One sentence from the section's shape (see the module docstring); "" when the
    section has no axis to read along."""
    if not section.axes or not section.plotted or wide.empty:
        return ""
    if section.chart == "stacked":
        return _stacked_sentence(section, wide)
    # a figure of several quantities is a panel (or a line) a quantity: the sentence
    # covers each of them, the first in full, the others by their own movement alone
    if section.chart == "heatmap" and len(section.axes) >= 2:
        clauses = [_range_sentence(section, wide, q) for q in section.plotted]
    else:
        clauses = [_along_sentence(section, wide, q, brief=i > 0) for i, q in enumerate(section.plotted)]
    clauses = [c.rstrip(".") for c in clauses if c]
    if not clauses:
        return ""
    rest = [c[0].lower() + c[1:] if not c.startswith("P(") else c for c in clauses[1:]]
    return "; ".join([clauses[0], *rest]) + "."


def _along_sentence(section: SweepSection, wide: pd.DataFrame, q: str, brief: bool = False) -> str:
    """How ``q`` moves along the first axis (the second axis at its base value), then,
    unless ``brief``, how the second axis' values compare at the axis' far end."""
    x = section.axes[0]
    words = quantity_words(section, q)
    label = (
        "P(" + words + ")"
        if is_prob(section, q) and not q.startswith("P(")
        else phrase(q, _spec_cls(section))
        if q.startswith("P(")
        else words
    )
    label = label[0].upper() + label[1:]
    fixed = _fixed(section, (x.name,))
    line = _rows(section, wide, fixed).set_index(x.name)[q].astype(float)
    line = line.reindex([v for v in x.values if v in line.index])
    if line.empty:
        return ""
    show = lambda v: value_words(section, q, v)  # noqa: E731
    xw = axis_words(section, x)
    if not numeric_axis(x):
        hi, lo = line.idxmax(), line.idxmin()
        if line[hi] - line[lo] < NOISE or show(line[hi]) == show(line[lo]):
            return f"{label} is {show(line[hi])} for every {xw}{_where(section, fixed)}."
        return (
            f"{label} is highest for {fmt_value(hi)} ({show(line[hi])}) and lowest for "
            f"{fmt_value(lo)} ({show(line[lo])})" + ("" if brief else _where(section, fixed)) + "."
        )
    first, last = line.index[0], line.index[-1]
    a, b = float(line.iloc[0]), float(line.iloc[-1])
    peak = line.idxmax()
    if peak not in (first, last) and line[peak] > max(a, b) * 1.05:
        at = f" at {xw} {fmt_value(peak)}" if not brief else f" at {fmt_value(peak)}"
        move = f"peaks at {show(line[peak])}{at}"
        if not brief:
            move += f" (from {show(a)} at {fmt_value(first)})"
    elif abs(b - a) < NOISE:
        span = f" from {xw} {fmt_value(first)} to {fmt_value(last)}"
        move = f"stays at {show(a)}" + ("" if brief else span)
    else:
        verb = "rises" if b > a else "falls"
        move = (
            f"{verb} from {show(a)} to {show(b)}"
            if brief  # the same axis and held values as the clause before it
            else f"{verb} from {show(a)} at {xw} {fmt_value(first)} to {show(b)} at {fmt_value(last)}"
        )
    text = f"{label} {move}" + ("" if brief else _where(section, fixed))
    series = section.axes[1] if len(section.axes) > 1 and not brief else None
    if series is not None and len(series.values) > 1:
        keep = {k: v for k, v in fixed.items() if k != series.name}
        ends = _rows(section, wide, {**keep, x.name: last}).set_index(series.name)[q].astype(float)
        if len(series.values) == 2 and len(ends) == 2 and ends.max() - ends.min() > NOISE:
            # two values: the one comparison there is, stated as a difference
            base, other = series.values[0], series.values[1]
            subject = _subject(section, series, base, other)
            change = effect(section, q, float(ends[base]), float(ends[other]))
            text += f"; at {xw} {fmt_value(last)}, {subject[0].lower()}{subject[1:]} {change}"
        elif len(ends) > 1 and ends.max() - ends.min() > NOISE:
            hi, lo = ends.idxmax(), ends.idxmin()
            sw = "the " if series.variant else f"{axis_words(section, series)} "
            text += (
                f"; at {xw} {fmt_value(last)} it is highest for {sw}{fmt_value(hi)} "
                f"({show(ends[hi])}) and lowest for {sw}{fmt_value(lo)} ({show(ends[lo])})"
            )
    return text + "."


def _range_sentence(section: SweepSection, wide: pd.DataFrame, q: str) -> str:
    x, y = section.axes[0], section.axes[1]
    fixed = _fixed(section, (x.name, y.name))
    d = _rows(section, wide, fixed)
    values = d[q].astype(float).to_numpy()
    if not np.isfinite(values).any():
        return ""
    i, j = int(np.nanargmin(values)), int(np.nanargmax(values))
    lo, hi = d.iloc[i], d.iloc[j]
    words = quantity_words(section, q)
    spec_cls = _spec_cls(section)
    label = phrase(q, spec_cls) if q.startswith("P(") else f"P({words})" if is_prob(section, q) else words
    label = label[0].upper() + label[1:]

    def at(r: pd.Series) -> str:
        xs, ys = axis_words(section, x), axis_words(section, y)
        return f"{xs} {fmt_value(r[x.name])}, {ys} {fmt_value(r[y.name])}"

    show = lambda v: value_words(section, q, v)  # noqa: E731
    return (
        f"{label} ranges from {show(lo[q])} ({at(lo)}) to {show(hi[q])} ({at(hi)}){_where(section, fixed)}."
    )


def own_outcome(section: SweepSection) -> str | None:
    """The outcome a stacked section is about: the configured lead's quantity, else the
    outcome named by the x axis (``crit_range`` → ``crit``, ``critfail_range`` →
    ``critfail``), else None (the section is about all of its outcomes)."""
    q = (getattr(section, "lead", None) or {}).get("quantity")
    if q in section.outcomes:
        return q
    x_words = set(section.axes[0].name.split("_"))
    named = [lab for lab in section.outcomes if lab in x_words or set(lab.split("_")) <= x_words]
    return named[0] if named else None


def _stacked_sentence(section: SweepSection, wide: pd.DataFrame) -> str:
    x = section.axes[0]
    fixed = _fixed(section, (x.name,))
    d = _rows(section, wide, fixed).set_index(x.name)
    d = d.reindex([v for v in x.values if v in d.index])
    if len(d) < 2:
        return ""
    first, last = d.index[0], d.index[-1]
    moves = {lab: float(d.loc[last, lab]) - float(d.loc[first, lab]) for lab in section.outcomes}
    lab = own_outcome(section) or max(moves, key=lambda k: abs(moves[k]))
    xw = axis_words(section, x)
    a, b = float(d.loc[first, lab]), float(d.loc[last, lab])
    said = effect(section, lab, a, b)
    subject = f"{xw[0].upper()}{xw[1:]} {fmt_value(last)} instead of {fmt_value(first)}"
    return f"{subject} {said}{_where(section, fixed)}."


def section_lead(section: SweepSection, wide: pd.DataFrame) -> list[str]:
    """The section's opening sentences: its comparison (if configured), then its shape's."""
    out = []
    lead = getattr(section, "lead", None)
    if lead:
        out.append(compare_sentence(section, wide, lead))
    shape = shape_sentence(section, wide)
    if shape:
        out.append(shape)
    return out[:2]


def headlines(infos: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The "What this report says" items: ``(sentence, anchor)`` of the sections marked
    ``headline``, and of the first sweep section of each system with none marked, in
    page order."""
    sweeps = [i for i in infos if i.get("lead")]
    marked = {i["system"] for i in sweeps if i.get("headline")}
    seen: set[str] = set()
    picked = []
    for i in sweeps:
        first = i["system"] not in marked and i["system"] not in seen
        seen.add(i["system"])
        if i.get("headline") or first:
            picked.append((i["lead"][0], i["anchor"]))
    return picked
