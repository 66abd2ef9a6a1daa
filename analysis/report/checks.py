"""Balance checks: stated goals a report holds the rules to, so CI fails when they break.

A report configuration lists them as ``[[checks]]`` tables::

    [[checks]]
    name = "axe crits stay near 10%"       # optional
    system = "crit-range"
    params = { attack_bonus = 5, evasion = 15, crit_range = 2 }   # over the system's defaults
    quantity = "crit"                      # an outcome, outcomes joined by "+", or a metric
    min = 0.09                             # inclusive; min and/or max
    max = 0.11

With ``encounter = "FILE"`` instead of ``system`` a check holds an encounter file (read
from the configuration's folder): ``params`` are its settings (``"ogre.hp" = 60``,
``order = "rolled"``), ``quantity`` one of its labels or metrics (``a_wins``,
``p_any_down_a``), computed by the exact chain; its row carries ``encounter`` where a
system's carries ``system`` (:mod:`critlab.analysis.report.encounter_read`).

Each check is read and probed when the configuration is loaded (an unknown system,
parameter or quantity, or neither bound, is a :class:`ConfigError` naming the file and
key), then computed exactly when the report is built. A null value fails; bounds allow
1e-12 (:func:`critlab.analysis.design.quantity.within`). ``critlab report`` exits 1 when a
check fails, after writing the report.

>>> rows = [{"system": "crit-range", "params": {"attack-bonus": 5, "evasion": 15}, "quantity": "crit",
...          "max": 0.05}]
>>> [c.name for c in parse_checks(rows, "inline.toml")]
['crit-range: crit at most 0.05']
>>> [r["passed"] for r in run_checks(parse_checks(rows, "inline.toml"))]
[True]
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from critlab.analysis.design.quantity import (
    Quantity,
    QuantityError,
    fight_params_of,
    snake,
    split_fight,
    within,
)
from critlab.analysis.encounter.words import quantity_text
from critlab.analysis.model import model_of
from critlab.analysis.report.check import Check, bound_text, read_bounds
from critlab.analysis.report.doc import Heading, Paragraph, Table
from critlab.analysis.report.encounter_read import encounter_check
from critlab.analysis.report.reading import ConfigError, Reader, build_spec, check_param, shown
from critlab.analysis.report.words import words
from critlab.analysis.spec import Spec, SpecError
from critlab.analysis.spec_error import quoted
from critlab.analysis.systems import MODULES, registry
from critlab.analysis.text.human import number

__all__ = ["Check", "checks_blocks", "checks_verdict", "parse_checks", "run_checks"]

CHECK_KEYS = ("name", "system", "params", "quantity", "min", "max")
# The fight's own bounds, checked here so the error names the configuration key.
_FIGHT_BOUNDS = {"hp": (1, 10**6), "attacks_per_round": (1, 100), "max_rounds": (1, 10**6)}


def _read(row: Any, file: str, key: str, spent: list[float]) -> Any:
    """A check read up to its spec (an encounter's whole), priced from its notation: the
    encounter's check, or what builds the rest of a system's (:func:`_build`)."""
    r = Reader(file, row, key)
    if "encounter" in row:  # an encounter file's settings and quantity
        if "system" in row:
            raise r.error("system", "a check holds a system or an encounter, not both")
        return encounter_check(r, spent)  # its work joins the checks' budget
    r.only(CHECK_KEYS)
    sys_name = r.get("system", str, None, what="the name of a system")
    installed = registry()
    if sys_name is not None and sys_name not in installed and ":" in sys_name:  # a designer's mechanic
        from critlab.analysis.mechanic.load import resolve_from

        try:
            installed[sys_name] = resolve_from(sys_name, os.path.dirname(file))
        except ValueError as exc:
            raise r.error("system", str(exc)) from None
    if sys_name is None:
        raise r.error("system", f"name the system, one of: {', '.join(installed)}")
    if sys_name not in installed:
        known = ", ".join(MODULES)
        raise r.error("system", f"unknown system {quoted(sys_name)}; the systems are: {known}")
    system = installed[sys_name]
    raw = r.get("params", dict, {})
    fights = fight_params_of(system)
    params: dict[str, Any] = {}
    sources = {"*": r.sub("params") if raw else key}
    for given, value in raw.items():
        name = snake(given)
        where = f"{r.sub('params')}.{given}"
        if name in params:
            raise ConfigError(file, where, f"parameter {name} is given twice (snake and kebab case)")
        sources[name] = where
        if name in fights:
            lo, hi = _FIGHT_BOUNDS[name]
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ConfigError(file, where, f"fight parameter {name} must be an integer in {lo}..{hi}")
            params[name] = value
        else:
            params[name] = check_param(system, name, value, file, where)
    try:
        spec_params, fight = split_fight(system, params)
    except SpecError as exc:
        raise ConfigError(file, sources.get(exc.name, key), str(exc)) from None
    _budget(spec_cost(system, spec_params), spent, r, "with the checks before it")  # before its dice
    return lambda: _build(r, system, sys_name, spec_params, fight, sources)


def _build(
    r: Reader,
    system: Any,
    sys_name: str,
    spec_params: dict[str, Any],
    fight: Mapping[str, Any],
    sources: dict[str, str],
) -> tuple[Check, _Pending]:
    """The rest of a system's check, once every check is priced from its notation: its
    spec built (its dice computed), its quantity and bounds read; the probe left pending."""
    file, key = r.file, r.key
    spec = build_spec(system, spec_params, file, sources, "")
    text = r.get("quantity", str, None, what="a quantity name")
    if text is None:
        raise r.error("quantity", "name the quantity: an outcome, outcomes joined by '+', or a metric")
    lo, hi = read_bounds(r)
    try:
        quantity = Quantity(system, text)
    except QuantityError as exc:
        raise r.error("quantity", str(exc)) from None

    def probe() -> None:  # after every check is priced: an unknown quantity is found now
        try:
            quantity.value(spec, fight or None)
        except QuantityError as exc:
            raise r.error("quantity", str(exc)) from None
        except SpecError as exc:
            raise ConfigError(file, sources.get(exc.name, sources["*"]), str(exc)) from None
        except ValueError as exc:
            raise ConfigError(file, sources["*"], str(exc)) from None

    name = r.text("name") or f"{sys_name}: {quantity.name} {bound_text(lo, hi)}"
    from critlab.analysis.fight.model import FightModel

    model = FightModel.of(spec, **fight) if fight else model_of(spec)
    settings = {**spec.params(), **fight}
    check = Check(name, key, {"system": sys_name}, model, settings, quantity, lo, hi)
    return check, _Pending(r, spec, fight, probe)


@dataclass(frozen=True)
class _Pending:
    """What is left of reading a system's check once every check is priced: its fight's
    work (which needs the attack's exact damage) and the probe of its quantity."""

    reader: Reader
    spec: Spec
    fight: Mapping[str, Any]
    probe: Callable[[], None]


def parse_checks(rows: Any, file: str) -> tuple[Check, ...]:
    """The ``[[checks]]`` tables of a configuration, each read and probed (numbered from
    1 in errors: ``checks[2].quantity``). Every check is priced before any is probed: from
    its notation first (before any spec is built: building one computes its dice), then
    the fights' (so a heavy list is refused in seconds, not after probing its first ones)."""
    if rows is None:
        return ()
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise ConfigError(file, "checks", f"must be a list of tables [[checks]], got {shown(rows)}")
    spent: list[float] = []
    heads = [_read(row, file, f"checks[{i + 1}]", spent) for i, row in enumerate(rows)]
    read = [h() if callable(h) else (h, None) for h in heads]
    pending = [p for _, p in read if p is not None]
    for p in pending:
        if p.fight:
            _budget(fight_cost(p.spec, p.fight), spent, p.reader, "with the other checks", len(read))
    for p in pending:
        p.probe()
    return tuple(c for c, _ in read)


def spec_cost(system: Any, params: Mapping[str, Any]) -> float:
    """A system check's exact work from its parameters read as notation (before its spec
    is built: that computes its dice), twice: probed now, computed in the report."""
    from critlab.analysis.design.cost import notation_work

    return 2 * notation_work(system, [params]).total


def fight_cost(spec: Spec, fight: Mapping[str, Any]) -> float:
    """A check's fight, twice (probed, computed): the attack's exact damage is computed."""
    from critlab.analysis.design.cost import fight_work

    return 2 * fight_work(spec, fight)


def _budget(work: float, spent: list[float], r: Reader, others: str, checks: int | None = None) -> None:
    """Add ``work`` to the checks' estimated exact work (``spent``), refused at this check
    when they pass the budget together; ``checks``: how many checks that work is of (one
    entry each, by default)."""
    from critlab.analysis.design.cost import Work, check_budget

    spent.append(work)
    n = checks or len(spent)
    try:
        check_budget(Work(n, math.fsum(spent) / n), "checks", "fewer checks or lower hp")
    except SpecError as exc:
        raise r.error(None, f"{others}, {exc}") from None


def run_checks(checks: tuple[Check, ...] | list[Check]) -> list[dict[str, Any]]:
    """Each check computed exactly: ``{name, system, params, quantity, value, min, max,
    passed}`` (the form ``summary.json`` keeps)."""
    out = []
    for c in checks:
        try:
            value = c.value()
        except ValueError:  # the probe passed, so only a changed engine can refuse it now
            value = None
        out.append(
            {
                "name": c.name,
                **c.origin(),  # system, or encounter (its file)
                "params": c.params(),
                "quantity": c.quantity.name,
                "value": value,
                "min": c.min,
                "max": c.max,
                "passed": within(value, c.min, c.max),
            }
        )
    return out


def checks_verdict(results: list[dict[str, Any]]) -> tuple[str, bool]:
    """One line on the checks, and whether all passed.

    >>> checks_verdict([{"name": "a", "passed": True}, {"name": "b", "passed": False}])
    ('Balance checks FAILED: 1 of 2 (b).', False)
    """
    failed = [r["name"] for r in results if not r["passed"]]
    n = len(results)
    if not failed:
        return f"Balance checks: all {n} pass.", True
    return f"Balance checks FAILED: {len(failed)} of {n} ({', '.join(failed)}).", False


def _bound_cell(x: float | None, probability: bool) -> str:
    """A bound as the designer wrote it, in the value's unit (0.09 of a probability is 9%)."""
    if x is None:
        return "–"
    return f"{100 * x:.6g}%" if probability else f"{x:g}"


def check_cells(row: Mapping[str, Any], probability: bool) -> tuple[str, str, str]:
    """A check's value, min and max as the page and ``summary.md`` show them: in percent
    for a probability (a check named "crits 9-11%" reads 10.00%, 9%, 11%).

    >>> check_cells({"value": 0.1, "min": 0.09, "max": 0.11}, True)
    ('10.00%', '9%', '11%')
    >>> check_cells({"value": 3.375, "min": 3, "max": None}, False)
    ('3.375', '3', '–')
    """
    value = number(row["value"], probability=probability, missing="null")
    return value, _bound_cell(row["min"], probability), _bound_cell(row["max"], probability)


def checks_blocks(results: list[dict[str, Any]], checks: Any = ()) -> list:
    """The report's "Balance checks" part: the verdict line and a table of every check,
    a probability's value and bounds in percent (``checks``, the checks behind
    ``results`` in order, say which quantities are probabilities)."""
    if not results:
        return []
    line, ok = checks_verdict(results)
    probability = [c.probability() for c in checks] if checks else [False] * len(results)
    rows = [
        [
            r["name"],
            r["system"] if "system" in r else f"encounter {r['encounter']}",
            # hit+critical_hit -> "hit or critical hit"; a_wins -> "P(side a wins)"
            words(r["quantity"]) if "system" in r else quantity_text(r["quantity"]),
            *check_cells(r, prob),
            "pass" if r["passed"] else "FAIL",
        ]
        for r, prob in zip(results, probability, strict=True)
    ]
    table = Table(
        ["check", "system", "quantity", "value", "min", "max", "result"],
        rows,
        caption="Each check's exact value against its inclusive bounds (within 1e-12); a null value fails.",
        label_columns=3,
        failed_rows=tuple(i for i, r in enumerate(results) if not r["passed"]),
        stack=True,
    )
    # the page's status banner already says pass or fail for checks and validations together
    return [Heading(2, "Balance checks", "balance-checks"), Paragraph(line), table]
