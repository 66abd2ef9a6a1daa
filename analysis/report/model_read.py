"""Reading a report section or check over a :class:`~critlab.analysis.model.Model`: its
settings, dotted TOML keys flattened to the model's parameter names (``ogre.hp``), each
value checked against the parameter the model declares and applied by ``model.at``; one
parameter varied over its values; its quantities named against the model's labels and
quantities. What a kind of model adds (an encounter's file and its chain's bound) is read
beside it (:mod:`critlab.analysis.report.encounter_read`).

>>> flatten({"ogre": {"hp": 60, "defense": {"target_ac": 4}}, "order": "rolled"})
{'ogre.hp': 60, 'ogre.defense.target_ac': 4, 'order': 'rolled'}
>>> read_range("20..40")
range(20, 41)
"""

from __future__ import annotations

import re
from typing import Any

from critlab.analysis.model import CHOICE, INTEGER
from critlab.analysis.report.reading import ConfigError, Reader, shown
from critlab.analysis.spec import SpecError
from critlab.analysis.spec_error import quoted

_RANGE = re.compile(r"\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*")


def flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted TOML keys (``ogre.hp = 60`` is ``{"ogre": {"hp": 60}}``) as setting names."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        name = f"{prefix}{str(k).replace('-', '_')}"
        if isinstance(v, dict) and not {"from", "to"} & set(v):
            out.update(flatten(v, name + "."))
        else:
            out[name] = v
    return out


def read_range(text: str) -> range | None:
    """``"LO..HI"`` as a range (``None`` when it is not one)."""
    m = _RANGE.fullmatch(text)
    return None if m is None else range(int(m.group(1)), int(m.group(2)) + 1)


def quantity_name(model: Any, text: str) -> str:
    """``text`` as a quantity's snake-case name: labels of ``model`` (joined by ``+``, each
    once) or one of its metrics, read from its declared names before any work; a
    SpecError naming those it has otherwise."""
    parts = [p.strip().replace("-", "_") for p in str(text).split("+")]
    labels = model.labels
    if all(p in labels for p in parts):
        if len(set(parts)) < len(parts):
            raise SpecError("quantity", text, "names a label twice: join distinct labels with '+'")
        return "+".join(parts)
    if len(parts) == 1 and parts[0] in model.quantities():
        return parts[0]
    known = ", ".join(model.quantities())
    raise SpecError("quantity", text, f"is not an outcome or metric of {model.name}; known: {known}")


def check_value(model: Any, setting: str, value: Any, file: str, key: str) -> Any:
    """One setting's value checked against its declared parameter (integers in range, a
    choice's words)."""
    try:
        p = model.parameter(setting)
    except SpecError as exc:
        raise ConfigError(file, key, str(exc)) from None
    if p.kind == INTEGER:
        lo, hi = p.lo, p.hi
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ConfigError(file, key, f"{setting} must be an integer in {lo}..{hi}, got {shown(value)}")
    elif p.kind == CHOICE and value not in p.choices:
        raise ConfigError(file, key, f"{setting} must be one of {', '.join(p.choices)}, got {shown(value)}")
    elif isinstance(value, (dict, list)):
        raise ConfigError(file, key, f"{setting} takes one value, got {shown(value)}")
    return value


def apply(model: Any, settings: dict[str, Any], file: str, keys: dict[str, str], where: str = "") -> Any:
    """The model at ``settings``; a refusal is reported at the key that set it."""
    try:
        return model.at(**settings)
    except SpecError as exc:
        key = keys.get(str(exc.name), keys.get(next(iter(keys), ""), ""))
        raise ConfigError(file, key, f"{where}{exc}") from None


def read_settings(r: Reader, name: str, model: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings table at ``name`` (flattened) and each setting's key, every value checked
    and applied on its own first, so a refusal names its key."""
    table = r.get(name, dict, {})
    settings, keys = {}, {}
    for setting, value in flatten(table).items():
        key = f"{r.sub(name)}.{setting}"
        settings[setting] = check_value(model, setting, value, r.file, key)
        keys[setting] = key
        apply(model, {setting: settings[setting]}, r.file, {setting: key})
    return settings, keys


def read_vary(
    r: Reader, model: Any, fixed: dict[str, Any], most: int, noun: str
) -> tuple[str, str, tuple[Any, ...]]:
    """``vary``: one parameter of ``model`` and its values (a list, ``"LO..HI"`` or
    ``{ from, to[, step] }``), 1 to ``most`` of them (``noun`` says what a point is), each
    checked against its declaration; its name, key and values."""
    table = r.get(
        "vary", dict, None, what='a table of one setting and its values, e.g. { "ogre.hp" = "20..40" }'
    )
    flat = flatten(table) if table is not None else {}
    if len(flat) != 1:
        raise r.error(
            "vary",
            f'vary exactly one setting over its values, e.g. {{ "ogre.hp" = "20..40" }}; got {len(flat)}',
        )
    ((setting, given),) = flat.items()
    key = f"{r.sub('vary')}.{setting}"
    if setting in fixed:
        raise ConfigError(r.file, key, f"{setting} is also given in set: vary it or set it, not both")
    try:
        kind = model.parameter(setting).kind
    except SpecError as exc:
        raise ConfigError(r.file, key, str(exc)) from None
    if isinstance(given, dict):
        rng = Reader(r.file, given, key)
        rng.only(("from", "to", "step"))
        lo, hi = rng.get("from", int, None), rng.get("to", int, None)
        step = rng.get("step", int, 1, what="a non-zero integer")
        if lo is None or hi is None or step == 0 or (hi - lo) * step < 0:
            raise ConfigError(
                r.file, key, "a range needs from and to, and a step leading from one to the other"
            )
        count = (hi - lo) // step + 1
        values: Any = range(lo, hi + (1 if step > 0 else -1), step) if count <= most else ()
    elif isinstance(given, str) and kind == INTEGER and read_range(given) is not None:
        values = read_range(given)
        count = len(values)
        if not count:
            raise ConfigError(r.file, key, f"LO..HI needs LO <= HI, got {quoted(given)}")
    elif isinstance(given, list):
        values, count = given, len(given)
    else:
        raise ConfigError(
            r.file, key, f'must be a list of values, "LO..HI" or {{ from, to[, step] }}, got {shown(given)}'
        )
    if count < 1 or count > most:
        raise ConfigError(
            r.file,
            key,
            f"{count:,} values; {noun}",
        )
    checked = tuple(check_value(model, setting, v, r.file, f"{key}[{i + 1}]") for i, v in enumerate(values))
    if len(set(map(repr, checked))) != len(checked):
        raise ConfigError(r.file, key, "has a value twice")
    return setting, key, checked


__all__ = ["apply", "check_value", "flatten", "quantity_name", "read_range", "read_settings", "read_vary"]
