"""One ipywidgets control per declared parameter of a model, made from the declaration
alone (:class:`~critlab.analysis.model.Parameter`), and its value read back as the rules
take it.

An integer range is a slider, a choice a dropdown, a boolean a checkbox, a number a
bounded number box, dice a text box beside its reading in words (or the notation's error,
in place), other text a text box. Each is labelled by the declaration's label and unit
and carries its meaning as a tooltip. Widgets are imported here, never at ``import
critlab``.

>>> from critlab.analysis.systems import get_system
>>> crit = get_system("crit-range").model()
>>> c = control(crit.parameter("crit_range"), 2)
>>> type(c.widget).__name__, c.widget.min, c.widget.max, c.value()
('IntSlider', 0, 20, 2)
>>> dice = control(crit.parameter("damage"), "2d6ro1")
>>> dice.note.value
'2d6ro1: 2 d6, each rerolled once on a 1'
>>> dice.widget.value = "2d"
>>> "error" in dice.note.value
True
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from critlab.analysis.model import BOOLEAN, CHOICE, DICE, INTEGER, NUMBER, Parameter

# Numbers typed or stepped in a browser carry binary noise (0.1 + 0.05 is
# 0.15000000000000002): read back at this many significant digits, as written.
DIGITS = 12
WIDTH = {"description_width": "initial"}
# A slider over a declared range wider than this (an unbounded bonus: -1000..1000) spans
# WINDOW values either side of its start, where a designer moves it; explore(...,
# name=range(lo, hi + 1)) sets any span.
WIDE, WINDOW = 200, 50


def _description(p: Parameter) -> str:
    return f"{p.label} ({p.unit})" if p.unit else p.label


def reading_of(p: Parameter, text: Any) -> str:
    """The note beside a dice box: the expression's reading in words, or why the rules
    refuse it (HTML, the error in the style's warm colour)."""
    from critlab.analysis.dice.reading import reading
    from critlab.analysis.style import polar_colour

    if text is None:
        return "none"
    try:
        p.check(text)
        return html.escape(reading(str(text)))
    except ValueError as exc:
        return f'<span style="color:{polar_colour(-2)}">error: {html.escape(str(exc))}</span>'


@dataclass
class Control:
    """A parameter's control: ``widget`` holds the value (``.value``), ``box`` is what is
    laid out (the widget, and for dice its ``note``)."""

    parameter: Parameter
    widget: Any
    box: Any
    note: Any = None
    given: Any = None  # an optional number's checkbox: unticked, the value is none

    def value(self) -> Any:
        """The widget's value as the rules take it (an empty optional dice box, an
        optional number not ticked: none)."""
        if self.given is not None and not self.given.value:
            return None
        v = self.widget.value
        if self.parameter.kind == NUMBER:
            return float(f"{v:.{DIGITS}g}")
        if isinstance(v, str):
            v = v.strip()
            if not v and self.parameter.optional:
                return None
        return v

    def set_used(self, used: bool, why: str = "") -> None:
        """Grey the control out where the point does not use its parameter."""
        self.widget.disabled = not used
        help = self.parameter.help
        self.widget.tooltip = help if used else f"not used here ({why}): {help}"


def span_of(p: Parameter, value: int, given: range | None = None) -> tuple[int, int, int]:
    """``(lo, hi, step)`` of an integer parameter's slider: ``given`` (checked against the
    declaration), else the declared range and step, or :data:`WINDOW` steps either side of
    ``value`` where that holds more than :data:`WIDE` values.

    >>> from critlab.analysis.params import Int
    >>> p = Parameter("bonus", INTEGER, Int())
    >>> span_of(p, 3), span_of(p, 3, range(-5, 11, 5)), span_of(Parameter("r", INTEGER, Int(0, 20)), 1)
    ((-47, 53, 1), (-5, 10, 5), (0, 20, 1))
    >>> span_of(Parameter("trait", INTEGER, Int(4, 12, step=2)), 8)      # a die's sides
    (4, 12, 2)
    """
    if given is not None:
        if not len(given) or given.step < 0:
            raise ValueError(f"{p.name}: a slider's range must run upwards and hold values, got {given!r}")
        for v in given[:2]:  # its first, its step
            p.check(v)
        p.check(given[-1])
        return given[0], given[-1], given.step
    lo, hi, step = int(p.lo), int(p.hi), p.step
    if (hi - lo) // step > WIDE:  # a value on the declared steps keeps the window on them
        lo, hi = max(lo, value - WINDOW * step), min(hi, value + WINDOW * step)
    return lo, hi, step


def control(p: Parameter, value: Any, span: range | None = None) -> Control:
    """The control of parameter ``p``, showing ``value`` (an integer's slider over
    ``span``, see :func:`span_of`)."""
    import ipywidgets as w

    common = {"description": _description(p), "tooltip": p.help, "style": WIDTH}
    shown = p.start if value is None and p.kind in (INTEGER, NUMBER) else value
    if p.kind == INTEGER:
        shown = 0 if shown is None else int(shown)
        lo, hi, step = span_of(p, shown, span)
        shown = min(max(lo, shown), hi)
        widget = w.IntSlider(value=shown, min=lo, max=hi, step=step, continuous_update=False, **common)
    elif p.kind == CHOICE:
        widget = w.Dropdown(options=list(p.choices), value=value, **common)
    elif p.kind == BOOLEAN:
        widget = w.Checkbox(value=bool(value), indent=False, **common)
    elif p.kind == NUMBER:
        widget = w.BoundedFloatText(value=float(shown or p.lo), min=p.lo, max=p.hi, step=0.05, **common)
    else:  # dice and other text: applied on Enter or when the box is left
        text = "" if value is None else str(value)
        widget = w.Text(value=text, continuous_update=False, **common)
    if p.optional and p.kind in (INTEGER, NUMBER):  # none is a value: a tick gives a number
        given = w.Checkbox(
            value=value is not None, indent=False, description="", layout=w.Layout(width="auto")
        )
        widget.observe(lambda _: setattr(given, "value", True), names="value")  # moved: given
        return Control(p, widget, w.HBox([given, widget]), given=given)
    if p.kind != DICE:
        return Control(p, widget, widget)
    note = w.HTML(reading_of(p, value), layout=w.Layout(margin="0 0 0 1em"))  # under its box, in words
    made = Control(p, widget, w.VBox([widget, note]), note)
    widget.observe(lambda _: setattr(note, "value", reading_of(p, made.value())), names="value")
    return made


def grouped(controls: list[Control]) -> Any:
    """The controls laid out by group, in the order their groups first appear, each
    group under its name (the ungrouped first, without one)."""
    import ipywidgets as w

    groups: dict[str, list[Control]] = {}
    for c in controls:
        groups.setdefault(c.parameter.group, []).append(c)
    rows = []
    for name, members in groups.items():
        if name:
            rows.append(w.HTML(f"<b>{html.escape(name)}</b>"))
        grid = w.GridBox(
            [c.box for c in members],
            layout=w.Layout(grid_template_columns="repeat(auto-fill, minmax(320px, 1fr))"),
        )
        rows.append(grid)
    return w.VBox(rows)


__all__ = ["Control", "DIGITS", "WIDE", "WINDOW", "control", "grouped", "reading_of", "span_of"]
