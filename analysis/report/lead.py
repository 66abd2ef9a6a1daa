"""A section's ``lead`` (the comparison its opening sentence states) and its other
report-only keys, checked when the configuration is read.

``lead = { axis = "crit_range", from = 1, to = 2, at = { weapon = "sword" }, quantity =
"expected_damage" }``: the section's ``quantity`` (default: the first it plots) at ``to``
against ``from`` on ``axis``, the other axes held at ``at`` (default: each parameter's
default, else the axis's first value). :mod:`critlab.analysis.report.findings` says it.

>>> from types import SimpleNamespace as NS
>>> s = NS(axes=(NS(name="crit_range", values=(0, 1, 2)),), plotted=("expected_damage",), outcomes=(),
...        metrics=("expected_damage",))
>>> lead_problem(s, {"axis": "crit_range", "from": 1, "to": 2}), lead_problem(s, {"axis": "x"})[:20]
('', 'axis must be one of ')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from critlab.analysis.report.doc import fmt_value
from critlab.analysis.spec_error import quoted

LEAD_KEYS = ("axis", "from", "to", "at", "quantity")


def lead_problem(section: Any, lead: Mapping[str, Any]) -> str:
    """What is wrong with a ``lead`` table ("" when nothing): an unknown key, an axis
    the section does not sweep, a value not on that axis, a quantity it does not show."""
    unknown = [k for k in lead if k not in LEAD_KEYS]
    if unknown:
        return f"unknown key {quoted(unknown[0])}; lead takes {', '.join(LEAD_KEYS)}"
    axes = {a.name: a for a in section.axes}
    name = lead.get("axis")
    if name not in axes:
        return f"axis must be one of the section's axes ({', '.join(axes) or 'none'}), got {quoted(name)}"
    for key in ("from", "to"):
        if lead.get(key) not in axes[name].values:
            return f"{key} must be a value of {name} ({', '.join(map(fmt_value, axes[name].values))})"
    at = lead.get("at", {})
    if not isinstance(at, Mapping):
        return "at must be a table of axis = value"
    for k, v in at.items():
        if k not in axes or k == name or v not in axes[k].values:
            return f"at.{k} must be another axis of the section at one of its values"
    q = lead.get("quantity", section.plotted[0] if section.plotted else None)
    if q not in (*section.plotted, *section.outcomes, *section.metrics):
        return f"quantity must be one the section shows ({', '.join(section.plotted)}), got {quoted(q)}"
    return ""


def report_keys(r: Any, cumulative: str, labels: tuple[str, ...], fight: Mapping[str, int]) -> dict[str, Any]:
    """A sweep section's fields for what the report says and shows: ``lead``, ``headline``,
    the cumulative view (its word and the labels it sums over) and the fight."""
    return {
        "lead": r.get("lead", dict, {}, what="a table: axis, from, to, at, quantity"),
        "headline": r.get("headline", bool, False),
        "cumulative": cumulative,
        "cumulative_of": labels if cumulative else (),
        "fight": fight,
    }


def check_lead(section: Any, r: Any) -> None:
    """Raise the configuration error (from reader ``r``) for a bad ``lead``, or a
    cumulative section that also sums its outcomes."""
    if section.lead:
        problem = lead_problem(section, section.lead)
        if problem:
            raise r.error("lead", problem)
    if section.sum and section.cumulative:
        raise r.error("sum", "a cumulative section shows each outcome or worse: leave sum out")
