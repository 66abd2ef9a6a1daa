"""One balance check of a report: what it holds, the quantity it bounds, and its bounds.

A check on a system's attack, its fight, a designer's mechanic or an encounter is one
kind of thing: the model it holds at its point (the
:class:`~critlab.analysis.model.Model` protocol) and a quantity that reads itself off a
model. :mod:`critlab.analysis.report.checks` reads the ``[[checks]]`` tables into these
(an encounter's through :mod:`critlab.analysis.report.encounter_read`) and computes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from critlab.analysis.report.reading import Reader, shown


@dataclass(frozen=True)
class Check:
    """One balance check, read and probed: the model it holds (a system's spec, its fight,
    a mechanic or an encounter, at the check's point), the quantity named and its bounds.
    Every kind is computed the one way, through the :class:`~critlab.analysis.model.Model`
    protocol: ``quantity.read(model)``."""

    name: str
    key: str
    holds: dict[str, Any]  # what the summary row names: {"system": ...} or {"encounter": FILE}
    model: Any = field(repr=False)
    settings: dict[str, Any]  # every parameter of the check (a system's: exact --json's, then the fight's)
    quantity: Any  # .name, .read(model), .is_probability_at(model)
    min: float | None
    max: float | None

    def params(self) -> dict[str, Any]:
        return dict(self.settings)

    def value(self) -> float | None:
        return self.quantity.read(self.model)

    def origin(self) -> dict[str, Any]:
        """What the check holds, as its summary row names it."""
        return dict(self.holds)

    def probability(self) -> bool:
        """Whether the quantity is a probability (an outcome, outcomes joined, a ``p_``
        metric; a fight's own outcomes), shown in percent, else an amount."""
        return self.quantity.is_probability_at(self.model)


def read_bounds(r: Reader) -> tuple[float | None, float | None]:
    """A check's ``min`` and ``max`` (inclusive; at least one, finite, in order), every
    fault one error naming its key."""
    lo, hi = _bound(r, "min"), _bound(r, "max")
    if lo is None and hi is None:
        raise r.error(None, "give min and/or max (inclusive bounds on the quantity)")
    if lo is not None and hi is not None and lo > hi:
        raise r.error("min", f"min = {lo:g} is above max = {hi:g}")
    return lo, hi


def _bound(r: Reader, name: str) -> float | None:
    value = r.get(name, (int, float), None, what="a number")
    if value is not None and not math.isfinite(value):
        raise r.error(name, f"must be a finite number, got {shown(value)}")
    return None if value is None else float(value)


def bound_text(lo: float | None, hi: float | None) -> str:
    """The bounds in words, as a check's default name says them.

    >>> bound_text(0.4, 0.6), bound_text(None, 3)
    ('between 0.4 and 0.6', 'at most 3')
    """
    if lo is not None and hi is not None:
        return f"between {lo:g} and {hi:g}"
    return f"at least {lo:g}" if lo is not None else f"at most {hi:g}"
