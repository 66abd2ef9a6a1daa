"""Frozen, validated rule-system specs and the checks they share.

Every rule system's spec is a ``@dataclass(frozen=True, kw_only=True)`` subclass of
:class:`Spec`. Construction validates every parameter; a bad one raises
:class:`SpecError` (a ``ValueError``) whose one-line message names the parameter, the
value given and what is allowed, e.g.::

    parameter crit_range = 25: must be an integer in 0..20

The command line and the report configuration build specs from text through
:func:`coerce`, which reads each field's type hint.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, ClassVar

from critlab.analysis.dice.notation import DiceExpr
from critlab.analysis.params import INT_HI, INT_LO, Int, _declared_of, check_declared
from critlab.analysis.params import check_dice as check_dice  # re-exported: the systems read it here
from critlab.analysis.spec_error import MissingParameter as MissingParameter  # re-exported
from critlab.analysis.spec_error import SpecError


def check_int(name: str, value: Any, lo: int = INT_LO, hi: int = INT_HI) -> int:
    """``value`` as an int in ``lo..hi`` (bools are not integers here); ``None`` is
    reported as a missing required parameter."""
    return Int(lo, hi).check(name, value)


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``."""
    if value not in choices:
        raise SpecError(name, value, "must be one of " + ", ".join(choices))
    return value


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is a bool."""
    if not isinstance(value, bool):
        raise SpecError(name, value, "must be true or false")
    return value


def check_fraction(name: str, value: Any, lo: Fraction, hi: Fraction, *, hi_open: bool = False) -> Fraction:
    """``value`` read as an exact decimal (``0.8`` is 4/5, not the nearest binary float)."""
    try:
        exact = Fraction(Decimal(str(value)))
    except (InvalidOperation, ValueError, TypeError):
        raise SpecError(name, value, "must be a number") from None
    upper = "<" if hi_open else "<="
    if exact < lo or exact > hi or (hi_open and exact == hi):
        raise SpecError(name, value, f"must be a number with {float(lo):g} <= {name} {upper} {float(hi):g}")
    return exact


@dataclasses.dataclass(frozen=True, kw_only=True)
class Spec:
    """Base of every rule system's spec: frozen, keyword-only, validated on construction."""

    system: ClassVar[str] = ""

    def __post_init__(self) -> None:
        check_declared(self)
        self.validate()

    def validate(self) -> None:
        """Rules that tie parameters together (each declared parameter is already checked
        on its own); subclasses raise :class:`SpecError`."""

    def unused(self) -> frozenset[str]:
        """Names of parameters that the current mode does not use (reported as ``null``):
        by default those whose declaration's ``when`` does not hold."""
        return frozenset(name for name, decl in _declared_of(type(self)).items() if not decl.used(self))

    def params(self) -> dict[str, Any]:
        """Every parameter, defaults included, ``None`` where unused (the documented JSON)."""
        # a spec is frozen: its parameters are read once (every exact result carries them)
        own = getattr(self, "__dict__", None)
        cached = own.get("_params") if own is not None else None
        if cached is None:
            cached = self._read_params()
            if own is not None:
                object.__setattr__(self, "_params", cached)
        return dict(cached)

    def _read_params(self) -> dict[str, Any]:
        skip = self.unused()
        decls = _declared_of(type(self))
        out = {}
        for name in _field_names(type(self)):
            v = getattr(self, name)
            decl = decls.get(name)
            if name in skip:
                out[name] = None
            elif decl is not None and v is not None:
                out[name] = decl.kind.plain(v)
            else:
                out[name] = _plain(v)
        return out

    def replace(self, **changes: Any) -> Spec:
        """A copy with some parameters changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def __model__(self) -> Any:
        """The model at this spec's point (see :func:`critlab.analysis.model.model_of`)."""
        return system_of(self).model(self)


@functools.lru_cache(maxsize=256)
def _field_names(spec_cls: type) -> tuple[str, ...]:
    """A spec class's field names in order, read once."""
    return tuple(f.name for f in dataclasses.fields(spec_cls))


def system_of(spec: Any) -> Any:
    """The rule system a spec belongs to (each spec class knows its own, designers'
    mechanics included), or a TypeError naming what was given.

    >>> system_of(None)
    Traceback (most recent call last):
    ...
    TypeError: spec must be a rule system's spec (e.g. Thac0Spec), got NoneType
    """
    system = getattr(type(spec), "rule_system", None)
    if not isinstance(spec, Spec) or system is None:
        raise TypeError(f"spec must be a rule system's spec (e.g. Thac0Spec), got {type(spec).__name__}")
    return system


def _plain(v: Any) -> Any:
    if isinstance(v, (DiceExpr, Fraction)):
        return str(v) if isinstance(v, DiceExpr) else float(v)
    return v


def field_types(spec_cls: type[Spec]) -> dict[str, tuple[type, bool]]:
    """``{name: (base type, accepts None)}`` for each field of a spec class."""
    hints = typing.get_type_hints(spec_cls)
    out = {}
    for f in dataclasses.fields(spec_cls):
        hint = hints[f.name]
        optional = False
        if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
            args = [a for a in typing.get_args(hint) if a is not type(None)]
            optional = len(args) < len(typing.get_args(hint))
            hint = args[0]
        if typing.get_origin(hint) is typing.Literal:
            hint = str
        out[f.name] = (hint, optional)
    return out


def _allowed(spec_cls: type[Spec], name: str, fallback: str) -> str:
    """What a declared parameter allows, in words (``fallback`` for an undeclared one)."""
    from critlab.analysis.params import declared as _declared

    decl = _declared(spec_cls).get(name)
    return decl.kind.describe() if decl is not None else fallback


def coerce(spec_cls: type[Spec], name: str, text: str) -> Any:
    """Convert a command-line or config string to the field's type.

    >>> from critlab.analysis.spec import Spec
    >>> import dataclasses
    >>> @dataclasses.dataclass(frozen=True, kw_only=True)
    ... class Demo(Spec):
    ...     bonus: int = 0
    ...     damage: str | None = None
    >>> coerce(Demo, "bonus", "-3"), coerce(Demo, "damage", "none")
    (-3, None)
    >>> coerce(Demo, "bonus", "1_0")
    Traceback (most recent call last):
    ...
    critlab.analysis.spec.SpecError: parameter bonus = 1_0: must be an integer, written in ASCII digits
    """
    import math

    from critlab.analysis.text.numtext import DecimalText, is_int_text, is_number_text

    types_ = field_types(spec_cls)
    if name not in types_:
        raise SpecError(name, text, f"is not a parameter of {spec_cls.system or spec_cls.__name__}")
    base, optional = types_[name]
    if not isinstance(text, str):
        return text
    if text.strip().lower() == "none":
        if optional:
            return None
        raise SpecError(name, text, "is required here; none is not allowed")
    if base is bool:
        low = text.strip().lower()
        if low not in ("true", "false"):
            raise SpecError(name, text, "must be true or false")
        return low == "true"
    if base is int:
        # ASCII digits only: int() would also take "1_0" and other scripts' digits
        if not is_int_text(text):
            allowed = _allowed(spec_cls, name, "an integer")
            raise SpecError(name, text, f"must be {allowed}, written in ASCII digits")
        return int(text)
    if base is float:
        # Not float(text): "0.800000000000000001" would become 0.8 before the spec's
        # exact-decimal check. DecimalText keeps the digits typed; inf and nan are refused.
        allowed = _allowed(spec_cls, name, "a finite number")
        if not is_number_text(text):
            raise SpecError(name, text, f"must be {allowed}, written in ASCII digits")
        if not math.isfinite(float(text)):  # 1e400: no float holds it, and no range here does
            raise SpecError(name, text, f"must be {allowed}")
        return DecimalText(text.strip())
    return text
