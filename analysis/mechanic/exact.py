"""The exact engine of a mechanic: the tree of its reads over its inputs' exact distributions.

Each input's exact distribution (:meth:`critlab.analysis.dice.notation.DiceExpr.dist`) gives
its support (values of positive probability) and its tail (mass cut off below 1e-13,
e.g. explosions). :func:`critlab.kernels.mechanic.make_kernels`' ``explore`` runs the
compiled rule down the tree of its reads, so an input the rule does not read on a path
is never enumerated there; the work is bounded before it starts by the product of the
support sizes (:data:`MAX_GRID`). Two walks: the first sums the labels' probabilities
and finds each value's range, the second fills the values' histograms.

Where a rule reads an input, the mass of that input's tail (times the weight of the path)
is not followed: it is the result's ``tail`` (the metric, and every value distribution's
``tail`` entry), never dropped silently, and the outcome probabilities sum to 1 − tail.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from critlab.analysis.dist import Dist
from critlab.analysis.mechanic.compile import MechanicError, run_driver
from critlab.analysis.dice.notation import parse
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import Spec

# At most this many combinations of the inputs' values (the product of their support
# sizes, an upper bound on the leaves of the tree) are computed exactly: about a second
# or two of compiled work for a small rule.
MAX_GRID = 10**8
# At most this many histogram bins over all of a mechanic's values.
MAX_VALUE_BINS = 10**7


class ExactTooLarge(MechanicError):
    """The exact engine refuses a mechanic (too many combinations or value bins)."""


def supports(rule: Any, spec: Spec) -> list[tuple[str, np.ndarray, np.ndarray, float]]:
    """``(text, values, probabilities, tail)`` of each input for ``spec``: its support
    (values of positive probability, in order) and the mass cut off into its tail."""
    out = []
    for name, text in zip(rule.inputs, rule.input_texts(spec), strict=True):
        try:
            d = parse(text).dist()
        except ValueError as exc:  # e.g. a pool too large to compute exactly: it still simulates
            raise ExactTooLarge(f"{rule.name}: input {name} = {text!r}: {exc}; simulate it instead") from None
        keep = d.probs > 0
        out.append((text, d.values[keep], d.probs[keep], d.tail))
    return out


def check_grid(rule: Any, spec: Spec, sups: list) -> int:
    """The product of the support sizes, or :class:`ExactTooLarge` (one line) above
    :data:`MAX_GRID`."""
    sizes = [len(v) for _, v, _, _ in sups]
    grid = math.prod(sizes)
    if grid > MAX_GRID:
        parts = " x ".join(
            f"{name} {size}" for name, size in zip(rule.inputs, sizes, strict=True) if size > 1
        )
        raise ExactTooLarge(
            f"{rule.name}: the exact distribution would enumerate up to {grid:,} combinations of its "
            f"inputs ({parts} values), above the limit of {MAX_GRID:,}; simulate it instead (--trials N)"
        )
    return grid


def _walk(rule: Any, spec: Spec, sups: list, fill: int, vmin: np.ndarray, vmax: np.ndarray, hist_off, hist):
    compiled = rule.compiled(rule.param_values(spec))
    k = len(sups)
    sizes = np.array([len(v) for _, v, _, _ in sups], dtype=np.int64)
    sup_start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    sup_vals = np.concatenate([v for _, v, _, _ in sups]).astype(np.int64)
    sup_probs = np.concatenate([p for _, _, p, _ in sups]).astype(np.float64)
    tails = np.array([t for _, _, _, t in sups], dtype=np.float64)
    label_p = np.zeros((2, len(rule.labels)))
    cut = np.zeros((2, 1))
    counts = np.zeros(3, dtype=np.int64)
    bad = np.zeros(1 + k, dtype=np.int64)
    run_driver(
        rule.fn,
        compiled,
        "explore",
        fill,
        rule.param_values(spec),
        sup_start,
        sizes,
        sup_vals,
        sup_probs,
        tails,
        label_p,
        vmin,
        vmax,
        hist_off,
        hist,
        cut,
        counts,
        bad,
    )
    if counts[2]:
        shown = ", ".join(
            f"{name}={v}" for name, v in zip(rule.inputs, bad[1:], strict=True) if v != -(2**62)
        )
        raise MechanicError(
            f"{rule.name}: returned label {bad[0]} (for {shown or 'no inputs read'}); its labels are "
            f"0..{len(rule.labels) - 1}: {', '.join(rule.labels)}"
        )
    # what the walk cost: runs of the rule, and leaves (combinations of the inputs it read)
    rule.last_walk = {"runs": int(counts[0]), "leaves": int(counts[1])}
    return label_p[0] + label_p[1], float(cut[0, 0] + cut[1, 0]), counts


def exact(rule: Any, spec: Spec) -> ExactResult:
    """The exact result of ``spec``: outcome probabilities, each value's distribution,
    ``mean_<value>`` metrics and ``tail``."""
    sups = supports(rule, spec)
    check_grid(rule, spec, sups)
    n_values = len(rule.values)
    vmin = np.full(max(n_values, 1), np.iinfo(np.int64).max, dtype=np.int64)
    vmax = np.full(max(n_values, 1), np.iinfo(np.int64).min, dtype=np.int64)
    empty = np.zeros((2, 1))
    probs, tail, _ = _walk(rule, spec, sups, 0, vmin, vmax, np.zeros(1, dtype=np.int64), empty)
    distributions: dict[str, Dist | None] = {}
    metrics: dict[str, float | None] = {}
    if n_values:
        widths = vmax[:n_values] - vmin[:n_values] + 1
        if int(widths.sum()) > MAX_VALUE_BINS:
            raise ExactTooLarge(
                f"{rule.name}: its values span {int(widths.sum()):,} integers, above the limit of "
                f"{MAX_VALUE_BINS:,} histogram bins; simulate it instead (--trials N)"
            )
        hist_off = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.int64)
        hist = np.zeros((2, int(widths.sum())))
        _walk(rule, spec, sups, 1, vmin, vmax, hist_off, hist)
        filled = hist[0] + hist[1]
        for j, name in enumerate(rule.values):
            lo = int(vmin[j])
            d = Dist(lo, filled[hist_off[j] : hist_off[j] + widths[j]], tail=tail)
            distributions[name] = d
            metrics[f"mean_{name}"] = d.mean
    metrics["tail"] = tail
    return ExactResult(
        system=rule.name,
        params=spec.params(),
        labels=rule.labels,
        probs=np.asarray(probs, dtype=np.float64),
        distributions=distributions,
        metrics=metrics,
    )
