"""Pool inputs: ``pool("NdX")``, N dice read at once as their values sorted highest first.

A pool is one input of a mechanic: the rule reads it once and gets the N dice's values as
an integer array, highest first, and does with them what the game does (count the 6s,
keep the best, look for a 1 among the hunger dice). N may name a parameter
(``pool("{skill}d6")``). Each die is one die of the notation, ``1dX`` with its per-die
suffixes (rerolls, clamps, explosions: whatever the notation allows on one die, read by
:func:`critlab.analysis.dice.notation.parse`); keeping and counting across the dice are
the rule's to do, so they are refused here.

Exact, a pool is enumerated as its distinct sorted outcomes, each with its multinomial
probability (:func:`critlab.kernels.outcomes.pool_table`): 12d6 is 6,188 outcomes, not
6^12. Simulated, every die is rolled (:func:`critlab.kernels.mechanic.make_kernels`).

>>> p = pool("12d6")
>>> p.count_and_die("12d6")
(12, '1d6')
>>> table = outcomes(12, "1d6")
>>> len(table.probs), table.values.shape
(6188, (6188, 12))
>>> round(float(table.probs.sum()), 12)
1.0
>>> pool("3d6kh1").count_and_die("3d6kh1")
Traceback (most recent call last):
...
ValueError: pool '3d6kh1': a pool is its dice, each as the notation rolls one die; keep and count them ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from critlab.analysis.dice.notation import KEEP_ALL, parse, parse_die
from critlab.analysis.dist import TAIL_EPS
from critlab.kernels import mechanic as km
from critlab.kernels.outcomes import pool_rows, pool_table

_POOL = re.compile(r"\s*([0-9]+)\s*[dD](.*)$", re.DOTALL)
# Suffixes that act across the dice (keep, drop, count, scale, separate exploded dice) or
# on the sum: the rule does those.
_ACROSS = re.compile(r"k|dh|dl|cs|cf|df|\*|/|\+|-|x", re.IGNORECASE)
# The dice of one pool (the rule's memory holds 512 in all, critlab.kernels.mechanic).
MAX_DICE = 100
# A table of a pool's outcomes is built when it has at most this many dice values in all
# (rows times dice; 80 MB of integers); a larger pool is refused where the rule reads it.
MAX_TABLE_CELLS = 10**7


@dataclass(frozen=True)
class Pool:
    """A pool input's declaration: the dice expression ``NdX`` (N may name a parameter)."""

    text: str

    def count_and_die(self, filled: str) -> tuple[int, str]:
        """The number of dice and one die's expression of the filled-in text
        ``filled`` (its parameters given), or a one-line ``ValueError``."""
        m = _POOL.match(filled)
        if not m:
            raise ValueError(f"pool {filled!r}: write a pool as NdX, e.g. '6d6' or '{{dice}}d10'")
        digits, rest = m.group(1), m.group(2)
        n = int(digits) if len(digits.lstrip("0")) <= 4 else MAX_DICE + 1  # no giant integers
        if n > MAX_DICE:
            raise ValueError(f"pool {filled!r}: {digits} dice; a pool has 0..{MAX_DICE} dice")
        faces = re.match(r"\s*(\{[^}]*\}|[0-9]+|%|[fF])", rest)
        suffix = rest[faces.end() :] if faces else rest
        if _ACROSS.search(suffix):
            raise ValueError(
                f"pool {filled!r}: a pool is its dice, each as the notation rolls one die; "
                "keep and count them in the rule"
            )
        die = f"1d{rest.strip()}"
        try:
            term = parse_die(die)  # the notation's own reading of one die term
        except ValueError as exc:
            raise ValueError(f"pool {filled!r}: {exc}") from None
        if not _one_die(term):
            raise ValueError(
                f"pool {filled!r}: a pool is its dice, each as the notation rolls one die; "
                "keep and count them in the rule"
            )
        return n, die


def _one_die(term: Any) -> bool:
    """Whether the dice term ``term`` is one die on its own: no keep, count, scale or
    separate exploded dice (the fields read with defaults, as the notation grows)."""
    across = (
        getattr(term, "count", 1) != 1,
        getattr(term, "keep_mode", KEEP_ALL) != KEEP_ALL,
        bool(getattr(term, "success_at", 0)),
        bool(getattr(term, "count_kind", "")),
        getattr(term, "exploding", False) and getattr(term, "explode_kind", "!") == "x",
        getattr(term, "mul", 1) != 1 or getattr(term, "div", 1) != 1,
        getattr(term, "sign", 1) != 1,
    )
    return not any(across)


def pool(text: str) -> Pool:
    """A pool input: ``NdX`` dice read at once, sorted highest first (see the module
    docstring).

    Parameters
    ----------
    text
        ``NdX`` with one die's suffixes of the notation (``"6d6"``, ``"{dice}d10"``,
        ``"5d6rr1"``, ``"4d6!"``); N in 0..100, or a parameter in braces.

    Examples
    --------
    >>> pool("{skill}d6")
    Pool(text='{skill}d6')
    """
    if not isinstance(text, str):
        raise ValueError(f"pool({text!r}): a pool is dice notation text, e.g. pool('6d6')")
    return Pool(text)


@dataclass(frozen=True)
class Outcomes:
    """A pool's distinct sorted outcomes: ``values`` (rows of dice, highest first),
    ``probs`` (each row's probability) and ``tail`` (the mass its dice cut off, an
    explosion's); ``None`` values when the table would be too large to build."""

    values: np.ndarray | None
    probs: np.ndarray | None
    tail: float
    rows: int


@lru_cache(maxsize=64)
def outcomes(n: int, die: str) -> Outcomes:
    """The distinct outcomes of ``n`` dice ``die`` (one die's expression), sorted
    highest first, with their multinomial probabilities."""
    d = parse(die).terms[0].dist(TAIL_EPS / max(n, 1))  # the pool's tail stays below 1e-13
    keep = d.probs > 0
    faces = d.values[keep].astype(np.int64)
    probs = d.probs[keep].astype(np.float64)
    rows = pool_rows(n, len(faces))
    # the mass cut off: 1 - (1 - tail)^n, computed without cancellation
    tail = float(-np.expm1(n * np.log1p(-d.tail))) if d.tail else 0.0
    if rows * max(n, 1) > MAX_TABLE_CELLS:
        return Outcomes(None, None, tail, rows)
    vals = np.zeros(rows * n, dtype=np.int64)
    out_probs = np.zeros(rows, dtype=np.float64)
    pool_table(faces, probs, n, vals, out_probs)
    return Outcomes(vals.reshape(rows, n), out_probs, tail, rows)


def places(counts: tuple[int | None, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Where each input's values live in the rule's ``mem`` and how many there are, for
    inputs of ``counts`` (a pool's number of dice, None for a value): ``(offs, widths)``.

    >>> offs, widths = places((None, 3, None, 2))
    >>> (offs - km.POOLS).tolist(), widths.tolist()  # values in their own slots, pools one after another
    ([-96, 0, -94, 3], [1, 3, 1, 2])
    """
    offs, widths, at = [], [], km.POOLS
    for i, n in enumerate(counts):
        if n is None:
            offs.append(km.VALS + i)
            widths.append(1)
        else:
            offs.append(at)
            widths.append(n)
            at += n
    return np.array(offs, dtype=np.int64), np.array(widths, dtype=np.int64)
