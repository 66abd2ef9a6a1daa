"""Counting in a fast block loop: a d20 system's per-natural tables, histogram offsets read
once as scalars, and counts added to a bin by value.

The tally helpers of :mod:`critlab.kernels.bins` read the layout array on every count,
and a count written to ``out`` makes the compiler reload whatever it cannot prove
``out`` does not overlap. A block loop that counts each trial's kept natural in
:func:`natural_tables`' ``seen`` (the kernel's own frame) and writes ``out`` only where
a trial has something of its own to count (a damage roll) avoids both; the label
counts follow from ``seen`` and the label table once per block.
"""

from __future__ import annotations

from critlab.kernels.d20 import roll_d20
from critlab.kernels.dice import local_scratch
from critlab.kernels.jit import kernel


@kernel(inline="always")
def natural_tables(label_of, r):
    """``(labels, seen)`` in the kernel's own frame: ``labels[natural] = label_of(natural,
    r)`` for the naturals 1..20, and ``seen`` zeroed, for counting the naturals kept."""
    labels = local_scratch()
    seen = local_scratch()
    for natural in range(1, 21):
        labels[natural] = label_of(natural, r)
        seen[natural] = 0
    return labels, seen


@kernel(inline="always")
def kept_label(s, mode, labels, seen):
    """One d20 roll of ``mode``: its kept natural counted in ``seen``, and that natural's label."""
    natural = roll_d20(s, mode)
    seen[natural] += 1
    return labels[natural]


@kernel(inline="always")
def hist_at(layout, hist):
    """``(start, lo, n_bins)`` of histogram number ``hist`` (see :mod:`critlab.kernels.bins`)."""
    base = 2 + 3 * hist
    return layout[base], layout[base + 1], layout[base + 2]


@kernel(inline="always")
def counter_at(layout, counter):
    """Where counter number ``counter`` sits in ``out``."""
    return layout[2 + 3 * layout[1]] + counter


@kernel(inline="always")
def add_to_bin(out, start, lo, n_bins, value, count):
    """Add ``count`` to the bin of ``value`` (the tail bin when out of range)."""
    i = value - lo
    if i < 0 or i >= n_bins:
        i = n_bins
    out[start + i] += count


@kernel(inline="always")
def settle_totals(
    out, start, lo, n_bins, by_total, totals, natural, seen, settle, damage_at, label, lowest, r
):
    """A natural's joint draws counted by total (``by_total``, ``totals`` slots a natural:
    :func:`critlab.kernels.d20.roll_d20_counted`) settled once per block: each slot's count
    added to ``seen[natural]`` and, where ``settle``, binned once as the damage
    ``damage_at(label, lowest + slot, r)`` (``lowest`` the damage roll of all dice showing 1).
    ``(attacks binned, their damage summed)``."""
    binned = 0
    damage_sum = 0
    for above in range(totals):
        count = by_total[(natural - 1) * totals + above]
        seen[natural] += count
        if settle and count > 0:
            damage = damage_at(label, lowest + above, r)
            add_to_bin(out, start, lo, n_bins, damage, count)
            binned += count
            damage_sum += damage * count
    return binned, damage_sum
