"""One balance check of a report: what it holds, the quantity it bounds, and its bounds.

A check on a system's attack, its fight, a designer's mechanic or an encounter is one
kind of thing: the model it holds at its point (the
:class:`~critlab.analysis.model.Model` protocol) and a quantity that reads itself off a
model. :mod:`critlab.analysis.report.checks` reads the ``[[checks]]`` tables into these
(an encounter's through :mod:`critlab.analysis.report.encounter_read`) and computes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
