"""Tallying into one flat int64 array: outcome labels, histograms and counters.

A block kernel writes every count into a single ``out`` array laid out by
:class:`critlab.analysis.tally.Layout`; the layout array passed to kernels is
``[n_labels, n_hists, (start, lo, n_bins) * n_hists, counters_start]``. A histogram has
``n_bins`` bins for ``lo .. lo + n_bins - 1`` and one more, the ``tail`` bin, for any
value outside that range (the exact engine's tail).
"""

from __future__ import annotations

from critlab.kernels.jit import kernel


@kernel(inline="always")
def add_label(out, label):
    """Count one trial with outcome index ``label``."""
    out[label] += 1


@kernel(inline="always")
def add_value(out, layout, hist, value):
    """Count ``value`` in histogram number ``hist``; out-of-range values go to its tail bin."""
    base = 2 + 3 * hist
    start, lo, n_bins = layout[base], layout[base + 1], layout[base + 2]
    i = value - lo
    if i < 0 or i >= n_bins:
        i = n_bins
    out[start + i] += 1


@kernel(inline="always")
def add_counter(out, layout, counter, amount):
    """Add ``amount`` to counter number ``counter``."""
    out[layout[2 + 3 * layout[1]] + counter] += amount
