"""Kernel of the test-only ``toy-duel``: one die plus a bonus against a target."""

from __future__ import annotations

from collections import namedtuple

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state
from critlab.kernels.vocab import vocabulary

Outcome = vocabulary("Outcome", "miss hit crit", module=__name__)
Hist = vocabulary("Hist", "total", module=__name__)
Counter = vocabulary("Counter", "total_sum", module=__name__)
Args = namedtuple("Args", "sides bonus target")


@kernel(inline="always")
def trial(s, a):
    """One roll: ``(label, total)``; the die's maximum is a crit."""
    natural = die(s, a.sides)
    total = natural + a.bonus
    if natural == a.sides:
        return Outcome.CRIT, total
    if total >= a.target:
        return Outcome.HIT, total
    return Outcome.MISS, total


@kernel
def block(s, n, out, layout, a):
    s = local_state(s)
    for _ in range(n):
        label, total = trial(s, a)
        add_label(out, label)
        add_value(out, layout, Hist.TOTAL, total)
        add_counter(out, layout, Counter.TOTAL_SUM, total)
