"""One exact point's work, estimated from its parameters alone, in the unit every bound
of exact work shares.

The unit is the fight engine's: one multiply-add of the array loops an exact engine runs
(see :mod:`critlab.analysis.fight.work`, which holds the run-wide budget, and
:mod:`critlab.analysis.design.cost`, which sums points into a run). A spec's exact result
costs :data:`POINT_COST` for building it, :data:`VALUE_COST` for each value its dice
distributions span (the model convolves, mixes and sums them) and, once for each distinct
expression, the dice engine's own work (its values, steps and sums, as
:func:`critlab.analysis.dice.limits.limits` counts them from the notation). It sits here,
among the foundations, so that every kind of model (:mod:`critlab.analysis.model`)
estimates its own work where it lives.

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
# Each value a point's dice distributions span, at every point: the systems' models
# convolve (FFT), mix, clip and sum them with compensated sums, ~0.6-1.5 us a value
# (thac0, crit-range and crits-cats over 1d8 .. 100d1000, measured on the development
# machine, where a unit is 0.26-0.45 ns).
VALUE_COST = 3000.0
# The dice engine, once per distinct expression (measured likewise over 1d8 .. 100d1000,
# pools, explosions, rerolls and groups): its fixed cost (~0.5 ms), each value of the
# terms' distributions (~200-300 ns), each step of a pool's or a chain's exact programme
# (2-160 ns: the count is an upper bound), and each value summed after a term (~60-200 ns).
EXPRESSION_COST = 1.5e6
DICE_VALUE_COST = 1000.0
STEP_COST = 30.0
SUM_COST = 500.0


def dice_work(text: Any) -> tuple[float, float]:
    """``(per point, once)`` of one dice expression: its values mixed at every point, and
    the dice engine's own work computing it, once. Text that is not dice notation costs
    nothing here (the rules refuse it at the point).

    >>> dice_work("2d6"), dice_work("not dice")
    ((36000.0, 1512000.0), (0.0, 0.0))
    >>> per, once = dice_work("100d1000")   # ~0.1 s a point in thac0's model, ~0.03 s once
    >>> f"{per:.2g} {once:.2g}"
    '3e+08 1e+08'
    """
    try:
        terms = parse(str(text)).terms
    except ValueError:
        return 0.0, 0.0
    _, span, steps, summed = limits(terms)
    once = EXPRESSION_COST + DICE_VALUE_COST * span + STEP_COST * steps + SUM_COST * summed
    return span * VALUE_COST, once


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


__all__ = [
    "DICE_VALUE_COST",
    "EXPRESSION_COST",
    "POINT_COST",
    "STEP_COST",
    "SUM_COST",
    "VALUE_COST",
    "dice_of",
    "dice_work",
    "spec_work",
]
