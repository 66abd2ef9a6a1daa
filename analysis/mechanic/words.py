"""A solved policy in words: ``keep_first: stand when a >= 5, else reroll``.

The rows of a choice (:func:`critlab.analysis.mechanic.policy.rows`) say, for every
position the best play reaches, what was read before it and the option taken. The words
use the choice's seen values where the option is a function of them (else the inputs read
and the earlier choices), keep only the variables the option depends on (dropping one at a
time while it stays a function of the rest), and describe the option over the first
variable as ranges of its values, each option but the most common named with its ranges,
the most common after "else"; where more variables are needed, one phrase per range of the
first variable, of the rest.

>>> rows = [{"read": {"a": a}, "chosen": {}, "seen": {}, "option": "stand" if a >= 5 else "reroll"}
...         for a in range(1, 7)]
>>> describe(rows, ("stand", "reroll"))
'stand when a >= 5, else reroll'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# Words longer than this say what the choice depends on instead (the rows hold the rest).
MAX_WORDS = 320


def _hashable(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def _tables(rows: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    seen = [{k: _hashable(v) for k, v in r["seen"].items()} for r in rows]
    read = [
        {**{k: _hashable(v) for k, v in r["read"].items()}, **{k: v for k, v in r["chosen"].items()}}
        for r in rows
    ]
    return [seen, read] if rows and rows[0]["seen"] else [read]


def _names(table: Sequence[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for row in table:
        out.extend(k for k in row if k not in out)
    return out


def _functional(table: Sequence[dict[str, Any]], options: Sequence[Any], names: Sequence[str]) -> bool:
    taken: dict[tuple, Any] = {}
    for row, option in zip(table, options, strict=True):
        key = tuple(row.get(n) for n in names)
        if taken.setdefault(key, option) != option:
            return False
    return True


def _range(name: str, lo: Any, hi: Any, values: Sequence[Any]) -> str:
    if lo == hi:
        return f"{name} = {lo}"
    if hi == values[-1]:
        return f"{name} >= {lo}"
    if lo == values[0]:
        return f"{name} <= {hi}"
    return f"{name} in {lo}..{hi}"


def _runs(values: Sequence[Any], labels: Sequence[Any]) -> list[tuple[Any, Any, Any]]:
    """Maximal runs of consecutive ``values`` of one label: ``(lo, hi, label)``."""
    out: list[list[Any]] = []
    for v, lab in zip(values, labels, strict=True):
        if out and out[-1][2] == lab:
            out[-1][1] = v
        else:
            out.append([v, v, lab])
    return [tuple(r) for r in out]


def _phrase(table, options, names, order) -> str:
    distinct = list(dict.fromkeys(options))
    if len(distinct) == 1:
        return f"always {distinct[0]}"
    first, rest = names[0], names[1:]
    values = sorted({row.get(first) for row in table}, key=lambda v: (v is None, str(type(v)), v))
    if not rest:
        by_value = {row.get(first): o for row, o in zip(table, options, strict=True)}
        labels = [by_value[v] for v in values]
    else:
        labels = []
        for v in values:
            sub = [(row, o) for row, o in zip(table, options, strict=True) if row.get(first) == v]
            labels.append(_phrase([r for r, _ in sub], [o for _, o in sub], rest, order))
    runs = _runs(values, labels)
    if rest:
        return "; ".join(f"when {_range(first, lo, hi, values)}: {lab}" for lo, hi, lab in runs)
    counts = {lab: sum(1 for x in labels if x == lab) for lab in labels}
    # the default: the option over the most values (ties: the one at the lowest value)
    default = max(counts, key=lambda lab: (counts[lab], -labels.index(lab)))
    parts = []
    for option in sorted({lab for lab in labels if lab != default}, key=order.index):
        where = " or ".join(_range(first, lo, hi, values) for lo, hi, lab in runs if lab == option)
        parts.append(f"{option} when {where}")
    return ", ".join(parts) + f", else {default}"


def describe(rows: Sequence[dict[str, Any]], options: Sequence[Any]) -> str:
    """The choice's rows in words (see the module docstring)."""
    if not rows:
        return "never reached"
    taken = [r["option"] for r in rows]
    for table in _tables(rows):
        names = _names(table)
        if _functional(table, taken, names):
            break
    for name in list(names):
        fewer = [n for n in names if n != name]
        if _functional(table, taken, fewer):
            names = fewer
    if len(set(taken)) > 1 and any(
        not all(isinstance(row.get(n), int | type(None)) for row in table) for n in names
    ):
        return f"depends on {', '.join(names)} ({len(rows):,} positions: see the policy's rows)"
    words = _phrase(table, taken, names, list(options))
    if len(words) > MAX_WORDS:
        return f"depends on {', '.join(names)} ({len(rows):,} positions: see the policy's rows)"
    return words
