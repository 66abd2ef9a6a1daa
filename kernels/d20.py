"""The d20 roll modes: one d20, or two keeping the higher (advantage) or the lower
(disadvantage). Both dice are rolled, one after the other, as at a table; the kept die
is the natural for every rule."""

from __future__ import annotations

from critlab.kernels.jit import kernel
from critlab.kernels.joint import digits3
from critlab.kernels.rng import die
from critlab.kernels.vocab.d20 import (  # noqa: F401  (re-exported: the kernel's names)
    RollMode,
)


@kernel(inline="always")
def roll_d20(s, mode):
    """The natural of one d20 roll under roll mode ``mode`` (a :data:`RollMode`); a
    normal roll draws exactly one die."""
    # the dice drawn at one place for every mode: each place inlines the generator, and
    # the compile time grows with each
    natural = 0 if mode == RollMode.ADVANTAGE else 21
    for _ in range(1 if mode == RollMode.NORMAL else 2):
        face = die(s, 20)
        natural = max(natural, face) if mode == RollMode.ADVANTAGE else min(natural, face)
    return natural


@kernel(inline="always")
def roll_d20_with(s, mode, outcomes):
    """``(natural, index)``: the natural of a d20 roll under roll mode ``mode`` and a
    uniform index in ``0 .. outcomes-1`` (another roll's dice), drawn together as one
    bounded draw (:mod:`critlab.kernels.joint`: the same dice as drawn apart)."""
    # one draw at one place for every mode (a normal roll's second die has one face):
    # each place inlines the generator, and the compile time grows with each
    first, second, index = digits3(s, 20, 1 if mode == RollMode.NORMAL else 20, outcomes)
    if mode == RollMode.DISADVANTAGE:
        return min(first, second) + 1, index
    return max(first, second) + 1, index


@kernel(inline="always")
def roll_d20_counted(s, mode, outcomes, totals, slot, by_total):
    """:func:`roll_d20_with`, the trial counted by its natural and damage total:
    ``by_total[(natural - 1) * totals + slot[index]] += 1`` (``slot`` from
    :func:`critlab.kernels.joint.total_slots`). ``(natural, slot of its total)``."""
    natural, index = roll_d20_with(s, mode, outcomes)
    above = slot[index]
    by_total[(natural - 1) * totals + above] += 1
    return natural, above
