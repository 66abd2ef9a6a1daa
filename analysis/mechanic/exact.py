"""The exact engine of a mechanic: the tree of its reads over its inputs' exact distributions.

Each input's exact distribution (:meth:`critlab.analysis.dice.notation.DiceExpr.dist`) gives
its support (values of positive probability) and its tail (mass cut off below 1e-13,
e.g. explosions); a pool's outcomes are its distinct sorted dice with their multinomial
probabilities (:func:`critlab.analysis.mechanic.pools.outcomes`).
:func:`critlab.kernels.mechanic.make_kernels`' ``explore`` runs the compiled rule down the
tree of its reads, so an input the rule does not read on a path is never enumerated
there. The work is counted as the walk goes, in leaves of that tree (combinations of the
inputs a run of the rule read), and the walk stops past :data:`MAX_GRID` of them: an
input that is declared but never read costs nothing. Two walks: the first sums the
labels' probabilities and finds each value's range, the second fills the values'
histograms.

Where a rule reads an input, the mass of that input's tail (times the weight of the path)
is not followed: it is the result's ``tail`` (the metric, and every value distribution's
``tail`` entry), never dropped silently, and the outcome probabilities sum to 1 − tail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critlab.analysis.dice.notation import parse
from critlab.analysis.dist import Dist
from critlab.analysis.mechanic.checks import ExactTooLarge as ExactTooLarge  # its home for callers
from critlab.analysis.mechanic.compile import MechanicError
from critlab.analysis.mechanic.pools import outcomes, places
from critlab.analysis.mechanic.walks import run_walk
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import Spec

# At most this many leaves of the tree of reads (combinations of the inputs' values that
# a run of the rule read) are computed exactly: a few seconds of compiled work for a
# small rule. Counted as the walk goes.
MAX_GRID = 10**8
# At most this many histogram bins over all of a mechanic's values.
MAX_VALUE_BINS = 10**7


@dataclass(frozen=True)
class Supports:
    """Every input's exact outcomes for one spec, flat, in the walk's layout: input ``j``
    has ``rows[j]`` outcomes (-1: a pool too large to tabulate), outcome ``q`` has
    probability ``probs[start[j] + q]`` and values ``values[val_start[j] + q * widths[j]:]``
    (``widths[j]`` of them, at ``offs[j]`` in the rule's ``mem``), ``tails[j]`` its cut-off."""

    start: np.ndarray
    rows: np.ndarray
    val_start: np.ndarray
    offs: np.ndarray
    widths: np.ndarray
    values: np.ndarray
    probs: np.ndarray
    tails: np.ndarray

    def walked(self) -> tuple[np.ndarray, ...]:
        """The tables as the exact walks take them, in their order (``sup_start, sup_len,
        val_start, offs, widths, sup_vals, sup_probs``: :mod:`critlab.kernels.outcomes`)."""
        return self.start, self.rows, self.val_start, self.offs, self.widths, self.values, self.probs


def supports(rule: Any, spec: Spec) -> Supports:
    """The exact outcomes of every input for ``spec``: a value's support (values of
    positive probability, in order) or a pool's distinct sorted outcomes, each input's
    tail (the mass cut off) beside them."""
    rolls = rule.rolls(spec)
    offs, widths = places(tuple(n for _, n, _ in rolls))
    vals, probs, tails, rows = [], [], [], []
    for name, (text, n, die) in zip(rule.inputs, rolls, strict=True):
        try:
            if n is None:
                d = parse(text).dist()
                keep = d.probs > 0
                v, p, tail = d.values[keep], d.probs[keep], d.tail
            else:
                table = outcomes(n, die)
                v, p, tail = table.values, table.probs, table.tail
        except ValueError as exc:  # e.g. a pool too large to compute exactly: it still simulates
            raise ExactTooLarge(f"{rule.name}: input {name} = {text!r}: {exc}; simulate it instead") from None
        if v is None:  # a pool too large to tabulate: refused if the rule reads it
            v, p = np.zeros(0, np.int64), np.zeros(0)
        vals.append(np.asarray(v, dtype=np.int64).ravel())
        probs.append(np.asarray(p, dtype=np.float64))
        tails.append(tail)
        rows.append(len(p) if len(p) else -1)
    sizes = np.array([len(p) for p in probs], dtype=np.int64)
    cells = np.array([len(v) for v in vals], dtype=np.int64)
    return Supports(
        start=np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64),
        rows=np.array(rows, dtype=np.int64),
        val_start=np.concatenate([[0], np.cumsum(cells)[:-1]]).astype(np.int64),
        offs=offs,
        widths=widths,
        values=np.concatenate(vals).astype(np.int64),
        probs=np.concatenate(probs).astype(np.float64),
        tails=np.array(tails, dtype=np.float64),
    )


def refuse(rule: Any, spec: Spec, counts: np.ndarray, what: str = "the exact distribution") -> None:
    """One line for a walk that stopped: its budget spent, or a pool too large read. A
    choosing rule's simulation follows its exact policy, so it cannot be simulated then."""
    instead = (
        "; its simulation follows the exact best play, so read fewer inputs before its choices"
        if rule.sites
        else "; simulate it instead (--trials N)"
    )
    if counts[4]:
        name = tuple(rule.inputs)[counts[4] - 1]
        text, n, die = rule.rolls(spec)[counts[4] - 1]
        rows = outcomes(n, die).rows
        raise ExactTooLarge(
            f"{rule.name}: pool {name} = {text!r} has too many distinct outcomes to enumerate exactly "
            f"(at least {rows:,}){instead}"
        )
    if counts[3]:
        raise ExactTooLarge(
            f"{rule.name}: {what} needs more than {MAX_GRID:,} combinations of the inputs "
            f"it reads (leaves of its tree of reads){instead}"
        )


def _walk(rule: Any, spec: Spec, sups: Supports, params: tuple, fill: int, vmin, vmax, hist_off, hist):
    compiled = rule.compiled(params)
    k = len(sups.rows)
    label_p = np.zeros((2, len(rule.labels)))
    cut = np.zeros((2, 1))
    counts = np.zeros(5, dtype=np.int64)
    bad = np.zeros(1 + k, dtype=np.int64)
    walked = (fill, params, *sups.walked(), sups.tails)
    args = (*walked, MAX_GRID, label_p, vmin, vmax, hist_off, hist, cut, counts, bad)
    run_walk(rule.fn, compiled, "explore", *args, leaves_at=len(walked), counts_at=len(walked) + 7)
    refuse(rule, spec, counts)
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
    params, solved = rule.param_values(spec), None
    if rule.sites:  # a choosing rule: its best play solved first, then walked as any rule
        from critlab.analysis.mechanic import policy

        solved = rule.solved(spec, sups)
        marked = policy.marked(solved)
        params = rule.param_values(spec, policy=marked)
    n_values = len(rule.values)
    vmin = np.full(max(n_values, 1), np.iinfo(np.int64).max, dtype=np.int64)
    vmax = np.full(max(n_values, 1), np.iinfo(np.int64).min, dtype=np.int64)
    empty = np.zeros((2, 1))
    probs, tail, _ = _walk(rule, spec, sups, params, 0, vmin, vmax, np.zeros(1, dtype=np.int64), empty)
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
        _walk(rule, spec, sups, params, 1, vmin, vmax, hist_off, hist)
        filled = hist[0] + hist[1]
        for j, name in enumerate(rule.values):
            lo = int(vmin[j])
            d = Dist(lo, filled[hist_off[j] : hist_off[j] + widths[j]], tail=tail)
            distributions[name] = d
            metrics[f"mean_{name}"] = d.mean
    metrics["tail"] = tail
    result = {
        "system": rule.name,
        "params": spec.params(),
        "labels": rule.labels,
        "probs": np.asarray(probs, dtype=np.float64),
        "distributions": distributions,
    }
    if solved is None:
        return ExactResult(**result, metrics=metrics)
    gain, chosen = _best_play(rule, spec, sups, solved, marked)
    return ChoiceResult(**result, metrics={**metrics, "choice_gain": gain}, policy=chosen)


@dataclass(frozen=True)
class ChoiceResult(ExactResult):
    """The exact result of a choosing rule under its best play, with ``policy``: per
    choice, its options, seen values, the policy in ``words`` and ``rows`` (see
    :func:`critlab.analysis.mechanic.policy.rows`)."""

    policy: dict[str, Any] = field(default_factory=dict)

    def _json(self) -> dict[str, Any]:
        return {**super()._json(), "policy": self.policy}

    def policy_lines(self) -> list[str]:
        """The policy in words, a line a choice (``keep_first: stand when a >= 5, else reroll``)."""
        return [f"{name}: {p['words']}" for name, p in self.policy.items()]


# At most this many rows of a choice in a result (its JSON); ``row_count`` says how many.
MAX_POLICY_ROWS = 5000


def _best_play(rule, spec, sups, solved, marked) -> tuple[float | None, dict[str, Any]]:
    """What a choosing rule's best play adds to its result: ``choice_gain`` (the best play's
    objective over the best fixed play's, None past the budget) and its ``policy``."""
    from critlab.analysis.mechanic import policy
    from critlab.analysis.mechanic.words import describe

    fixed = policy.fixed_best(rule, spec, sups, MAX_GRID, refuse)
    table = policy.rows(rule, spec, marked)
    out = {}
    for site in rule.sites:
        rows = table[site.name]
        out[site.name] = {
            "options": list(site.options),
            "seen": list(site.seen),
            "words": describe(rows, site.options),
            "row_count": len(rows),
            "rows": rows[:MAX_POLICY_ROWS],
        }
    return (None if fixed is None else max(solved.best - fixed, 0.0)), out


def solve(rule: Any, spec: Spec, sups: Supports | None = None) -> Any:
    """A choosing rule's best play for ``spec`` within the exact budget
    (:func:`critlab.analysis.mechanic.policy.solve`)."""
    from critlab.analysis.mechanic import policy

    return policy.solve(rule, spec, supports(rule, spec) if sups is None else sups, MAX_GRID, refuse)
