"""One exact point's work, estimated from its parameters alone, in the unit every bound
of exact work shares.

The unit is the fight engine's: one multiply-add of the array loops an exact engine runs
(see :mod:`critlab.analysis.fight.work`, which holds the run-wide budget, and
:mod:`critlab.analysis.design.cost`, which sums points into a run). A spec's exact result
costs :data:`POINT_COST` for building it, :data:`VALUE_COST` for each value its dice
distributions span (the model mixes them) and, once for each distinct expression, the
dice engine's steps. It sits here, among the foundations, so that every kind of model
(:mod:`critlab.analysis.model`) estimates its own work where it lives.

>>> from critlab.analysis.spec import Spec
>>> spec_work(Spec()) == (POINT_COST, 0.0)        # no dice: the point's fixed work
True
"""

from __future__ import annotations

from typing import Any

from critlab.analysis.dice.limits import limits
from critlab.analysis.dice.notation import parse
from critlab.analysis.params import Dice, declared

# One exact point's fixed work: the spec checked, the system's model and its result built
# (measured ~0.9-1.1 ms a point tuning crit-range and thac0; at 0.3 ns a unit).
POINT_COST = 3e6
# Each value a point's dice distributions span, mixed by the system's model at every point.
VALUE_COST = 20.0


def dice_work(text: Any) -> tuple[float, float]:
    """``(per point, once)`` of one dice expression: its values mixed at every point, its
    exact programme's steps once. Text that is not dice notation costs nothing here (the
    rules refuse it at the point).

    >>> dice_work("2d6"), dice_work("not dice")
    ((240.0, 0.0), (0.0, 0.0))
    """
    try:
        terms = parse(str(text)).terms
    except ValueError:
        return 0.0, 0.0
    _, span, steps, summed = limits(terms)
    return span * VALUE_COST, float(steps + summed)


def dice_of(spec: Any) -> list[str]:
    """The dice expressions a spec's exact result uses (its dice parameters in use)."""
    unused = spec.unused() if hasattr(spec, "unused") else frozenset()
    out = []
    for name, decl in declared(type(spec)).items():
        value = getattr(spec, name, None)
        if isinstance(decl.kind, Dice) and value is not None and name not in unused:
            out.append(str(value))
    return out


def spec_work(spec: Any) -> tuple[float, float]:
    """``(per point, once)`` of one spec's exact result: :data:`POINT_COST`, and every dice
    parameter it uses (:func:`dice_work`)."""
    per, once = POINT_COST, 0.0
    for text in dice_of(spec):
        p, o = dice_work(text)
        per, once = per + p, once + o
    return per, once


__all__ = ["POINT_COST", "VALUE_COST", "dice_of", "dice_work", "spec_work"]
