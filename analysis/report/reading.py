"""Reading a TOML configuration with errors that name the file, the key and what is allowed.

:class:`Reader` gives typed access to one table; :func:`check_param` checks a value
against the spec field's type hint; :func:`build_spec` builds a spec through the
system's ``make_spec`` and reports a :class:`~critlab.analysis.spec.SpecError` at the key that
set the offending parameter.

>>> r = Reader("my.toml", {"trials": "many"}, "report")
>>> r.int_in("trials", 1, 10, 5)
Traceback (most recent call last):
...
critlab.analysis.report.reading.ConfigError: my.toml: report.trials: must be an integer in 1..10, ...
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from critlab.analysis.spec import Spec, SpecError, field_types
from critlab.analysis.spec_error import quoted
from critlab.analysis.systems import RuleSystem
from critlab.analysis.text.documents import DocumentError
from critlab.analysis.text.numtext import DecimalText, is_number_text

# Grid points a report section may have (counted from its axes before any is built).
MAX_POINTS = 5000

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class ConfigError(DocumentError):
    """A configuration the report cannot run: names the file, the key and what is allowed."""


class Reader:
    """Typed access to one TOML table, with errors that carry the file and key path."""

    def __init__(self, file: str, table: Any, key: str) -> None:
        self.file, self.key = file, key
        if not isinstance(table, dict):
            raise ConfigError(file, key, f"must be a table, got {shown(table)}")
        self.table = table

    def error(self, name: str | None, message: str) -> ConfigError:
        return ConfigError(self.file, self.sub(name) if name else self.key, message)

    def sub(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def only(self, allowed: tuple[str, ...]) -> None:
        for name in self.table:
            if name not in allowed:
                raise self.error(name, f"unknown key {quoted(name)}; allowed here: {', '.join(allowed)}")

    def get(self, name: str, kind: type | tuple[type, ...], default: Any = None, *, what: str = "") -> Any:
        if name not in self.table:
            return default
        value = self.table[name]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if not ok:
            raise self.error(name, f"must be {what or _kind_name(kinds)}, got {shown(value)}")
        return value

    def int_in(self, name: str, lo: int, hi: int, default: int | None) -> int | None:
        value = self.get(name, int, default, what=f"an integer in {lo}..{hi}")
        if value is not None and not lo <= value <= hi:
            raise self.error(name, f"must be an integer in {lo}..{hi}, got {value}")
        return value

    def text(self, name: str, default: str = "") -> str:
        return self.get(name, str, default)

    def names(self, name: str) -> tuple[str, ...] | None:
        value = self.get(name, list, None, what="a list of names")
        if value is None:
            return None
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self.error(f"{name}[{i + 1}]", f"must be a name (a string), got {shown(item)}")
        return tuple(value)


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        list: "a list",
        dict: "a table",
    }
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def shown(value: Any) -> str:
    """A configuration's value in a message: its TOML kind and its text, bounded
    (:func:`critlab.analysis.spec_error.quoted`).

    >>> from critlab.analysis.params import WrittenFloat
    >>> shown(WrittenFloat("1.5")), shown([]), shown("x" * 1000)[-24:]
    ('number 1.5', 'an empty list', 'xx... (1,002 characters)')
    """
    if value is None:  # JSON's null (a baseline's)
        return "null"
    if isinstance(value, list | dict) and not value:
        return "an empty table" if isinstance(value, dict) else "an empty list"
    kinds = (
        (bool, "boolean"),
        (int, "integer"),
        (float, "number"),
        (str, "string"),
        (list, "list"),
        (dict, "table"),
    )
    kind = next((name for t, name in kinds if isinstance(value, t)), type(value).__name__)
    return f"{kind} {quoted(value)}"


def slug(text: str) -> str:
    """A file-name-safe id from a title.

    >>> slug("Expected damage by target AC (THAC0 15)")
    'expected-damage-by-target-ac-thac0-15'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def section_id(r: Reader, ids: set[str], default: str) -> str:
    """A section's ``id``: as given (file-name safe, not among ``ids``), else a :func:`slug`
    of its title (or of ``default``) numbered on from 2 while taken; added to ``ids``."""
    sid = r.get("id", str, None)
    if sid is not None and (not NAME.match(sid) or sid in ids):
        raise r.error("id", f"must be a unique file-name-safe id, got {quoted(sid)}")
    if sid is None:
        sid = stem = slug(r.text("title") or default)
        n = 2
        while sid in ids:
            sid, n = f"{stem}-{n}", n + 1
    ids.add(sid)
    return sid


# -- parameters ---------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _field_types(spec_cls: type) -> dict[str, tuple[type, bool]]:
    """:func:`field_types`, read once a class: a grid of thousands of values checks each
    (3 ms a call, most of the reading of a large section)."""
    return field_types(spec_cls)


def check_param(system: RuleSystem, name: str, value: Any, file: str, key: str) -> Any:
    """A TOML value checked against the spec field's type; ``"none"`` is absence."""
    types = _field_types(system.spec)
    if name not in types:
        known = ", ".join(sorted(types))
        raise ConfigError(file, key, f"{quoted(name)} is not a parameter of {system.name}; known: {known}")
    base, optional = types[name]
    if isinstance(value, str) and value.strip().lower() == "none":
        if optional:
            return None
        raise ConfigError(file, key, f"parameter {name} is required here; none is not allowed")
    if base is float and isinstance(value, float) and not math.isfinite(value):
        # TOML has inf and nan (and reads 1e400 as inf): no parameter takes them
        raise ConfigError(file, key, f"parameter {name} must be a finite number, got {shown(value)}")
    if base is float and isinstance(value, str):
        # a number in quotes keeps every digit typed ("0.800000000000000001"), as on the
        # command line; a TOML float is already the nearest binary float
        if not is_number_text(value) or not math.isfinite(float(value)):
            allowed = 'a finite number (e.g. 0.25 or "0.25")'
            raise ConfigError(file, key, f"parameter {name} must be {allowed}, got {shown(value)}")
        return DecimalText(value.strip())
    expected = {int: (int,), float: (int, float), bool: (bool,), str: (str,)}.get(base)
    if expected is not None and (
        not isinstance(value, expected) or (isinstance(value, bool) and bool not in expected)
    ):
        what = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}[base]
        raise ConfigError(file, key, f"parameter {name} must be {what}, got {shown(value)}")
    return value


def read_params(system: RuleSystem, reader: Reader, name: str = "params") -> dict[str, Any]:
    table = reader.get(name, dict, {})
    return {k: check_param(system, k, v, reader.file, f"{reader.sub(name)}.{k}") for k, v in table.items()}


def grid_values(system: RuleSystem, reader: Reader, name: str) -> tuple[Any, ...]:
    value = reader.table[name]
    key = f"{reader.sub(name)}"
    if isinstance(value, dict):
        rng = Reader(reader.file, value, key)
        rng.only(("from", "to", "step"))
        lo = rng.get("from", int, None, what="an integer")
        hi = rng.get("to", int, None, what="an integer")
        step = rng.get("step", int, 1, what="a non-zero integer")
        if lo is None or hi is None:
            raise ConfigError(
                reader.file, key, "a range needs both from and to, e.g. { from = -10, to = 10 }"
            )
        if step == 0 or (hi - lo) * step < 0:
            raise ConfigError(reader.file, f"{key}.step", f"step {step} does not lead from {lo} to {hi}")
        # counted before it is built: { from = 0, to = 2_000_000_000_000 } is refused at once
        _check_axis_length(reader.file, key, (hi - lo) // step + 1)
        values = list(range(lo, hi + (1 if step > 0 else -1), step))
    elif isinstance(value, list):
        values = value
    else:
        raise ConfigError(
            reader.file,
            key,
            f"must be a list of values or a range {{ from, to[, step] }}, got {shown(value)}",
        )
    if not values:
        raise ConfigError(reader.file, key, "must have at least one value")
    _check_axis_length(reader.file, key, len(values))
    checked = tuple(
        check_param(system, name, v, reader.file, f"{key}[{i + 1}]") for i, v in enumerate(values)
    )
    if len(set(map(repr, checked))) != len(checked):
        raise ConfigError(reader.file, key, "has a value twice")
    return checked


def _check_axis_length(file: str, key: str, n: int) -> None:
    """One axis can hold no more values than a whole section may have points."""

    if n > MAX_POINTS:
        raise ConfigError(file, key, f"{n:,} values; a section has at most {MAX_POINTS:,} points")


def read_variants(system: RuleSystem, reader: Reader) -> dict[str, dict[str, dict[str, Any]]]:
    """``{set name: {variant name: params}}`` from ``[[systems.X.variants.SET]]`` tables."""
    sets = reader.get("variants", dict, {})
    out: dict[str, dict[str, dict[str, Any]]] = {}
    params = set(_field_types(system.spec))
    for set_name, rows in sets.items():
        key = f"{reader.sub('variants')}.{set_name}"
        if set_name in params or not NAME.match(set_name):
            raise ConfigError(reader.file, key, "a variant set needs a name that is not a parameter name")
        if not isinstance(rows, list) or not rows:
            raise ConfigError(reader.file, key, f"must be a non-empty list of tables [[{key}]]")
        out[set_name] = {}
        for i, row in enumerate(rows):
            r = Reader(reader.file, row, f"{key}[{i + 1}]")
            name = r.get("name", str, None)
            if not name:
                raise r.error("name", 'each variant needs a name, e.g. name = "longsword"')
            if name in out[set_name]:
                raise r.error("name", f"variant {quoted(name)} appears twice")
            out[set_name][name] = {
                k: check_param(system, k, v, r.file, r.sub(k)) for k, v in row.items() if k != "name"
            }
    return out


def build_spec(
    system: RuleSystem, params: dict[str, Any], file: str, sources: dict[str, str], where: str
) -> Spec:
    """``make_spec(**params)``; a SpecError is reported at the key that set the parameter."""
    try:
        return system.make_spec(**params)
    except SpecError as exc:
        key = sources.get(exc.name, sources["*"])
        raise ConfigError(file, key, f"{where}{exc}") from None
    except (ValueError, TypeError) as exc:
        raise ConfigError(file, sources["*"], f"{where}{exc}") from None
