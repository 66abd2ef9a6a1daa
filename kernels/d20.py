"""The d20 roll modes: one d20, or two keeping the higher (advantage) or the lower
(disadvantage). Both dice are rolled, one after the other, as at a table; the kept die
is the natural for every rule."""

from __future__ import annotations

from critlab.kernels.jit import kernel
from critlab.kernels.rng import die
from critlab.kernels.vocab import vocabulary

RollMode = vocabulary("RollMode", "normal advantage disadvantage", module=__name__)


@kernel(inline="always")
def roll_d20(s, mode):
    """The natural of one d20 roll under roll mode ``mode`` (a :data:`RollMode`); a
    normal roll draws exactly one die."""
    first = die(s, 20)
    if mode == RollMode.NORMAL:
        return first
    second = die(s, 20)
    if mode == RollMode.ADVANTAGE:
        return max(first, second)
    return min(first, second)
