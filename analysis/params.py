"""Parameters declared once, beside their field: kind, range or choices, meaning, and
the modes that use them.

A rule system's spec declares each parameter with :func:`param`::

    crit_range: int = param(1, Int(0, 20), "naturals >= 21 - crit_range are criticals")
    evasion: int | None = param(None, Int(), "the defence to reach", when={"mode": ("attack",)})

From that one declaration the spec's validation, ``null`` for unused parameters, the
command-line flags and their ``--help``, report-configuration checks and the generated
rules page (docs/rules.md) are all derived. Rules that tie two parameters together stay
small explicit checks in the spec's ``validate``.

>>> Int(0, 20).check("crit_range", 25)
Traceback (most recent call last):
...
critlab.analysis.spec.SpecError: parameter crit_range = 25: must be an integer in 0..20
>>> Choice("normal", "advantage").describe()
'one of normal, advantage'
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from critlab.analysis.dice.notation import DiceExpr, parse
from critlab.analysis.spec_error import MissingParameter, SpecError

INT_LO, INT_HI = -1000, 1000
_META = "critlab.param"


class Kind:
    """How one parameter's values are checked, shown and read from text."""

    metavar = "TEXT"

    def check(self, name: str, value: Any) -> Any:
        """The value as the rules use it, or a :class:`SpecError` naming ``name``."""
        raise NotImplementedError

    def describe(self) -> str:
        """What is allowed, in words (for ``--help`` and the rules page)."""
        raise NotImplementedError

    def plain(self, value: Any) -> Any:
        """The value as JSON shows it."""
        return value


@dataclass(frozen=True)
class Int(Kind):
    """An integer in ``lo..hi`` (bools are not integers here), every ``step``-th from
    ``lo`` (a die's sides: ``Int(4, 12, step=2)`` is 4, 6, 8, 10 or 12).

    >>> Int(4, 12, step=2).values(), Int(4, 12, step=2).describe()
    ((4, 6, 8, 10, 12), 'one of 4, 6, 8, 10, 12')
    """

    lo: int = INT_LO
    hi: int = INT_HI
    step: int = 1
    metavar = "INT"

    def check(self, name: str, value: Any) -> int:
        if value is None:
            raise SpecError(name, value, f"is required: {self.describe()}")
        if isinstance(value, bool) or not isinstance(value, int):
            import numpy as np

            if not isinstance(value, np.integer):
                raise SpecError(name, value, f"must be {self.describe()}")
            value = int(value)
        if not self.lo <= value <= self.hi or (value - self.lo) % self.step:
            raise SpecError(name, value, f"must be {self.describe()}")
        return int(value)

    def values(self, lo: int | None = None, hi: int | None = None) -> tuple[int, ...]:
        """The allowed values from ``lo`` to ``hi`` (default: the whole range), in order."""
        lo = self.lo if lo is None else lo
        hi = self.hi if hi is None else hi
        first = lo + (-(lo - self.lo)) % self.step
        return tuple(range(first, hi + 1, self.step))

    def describe(self) -> str:
        if self.step > 1 and (self.hi - self.lo) // self.step < 12:
            return "one of " + ", ".join(map(str, self.values()))
        if self.step > 1:
            return f"an integer in {self.lo}..{self.hi}, every {self.step}th from {self.lo}"
        return f"an integer in {self.lo}..{self.hi}"


@dataclass(frozen=True)
class Choice(Kind):
    """One of a few words."""

    choices: tuple[str, ...]
    metavar = "WORD"

    def __init__(self, *choices: str) -> None:
        if len(choices) == 1 and isinstance(choices[0], list | tuple):  # Choice(("a", "b"))
            choices = tuple(choices[0])
        object.__setattr__(self, "choices", tuple(choices))

    def check(self, name: str, value: Any) -> str:
        if not isinstance(value, str) or value not in self.choices:
            raise SpecError(name, value, "must be one of " + ", ".join(self.choices))
        return value

    def describe(self) -> str:
        return "one of " + ", ".join(self.choices)


@dataclass(frozen=True)
class Bool(Kind):
    """``true`` or ``false``."""

    metavar = "true|false"

    def check(self, name: str, value: Any) -> bool:
        if not isinstance(value, bool):
            raise SpecError(name, value, "must be true or false")
        return value

    def describe(self) -> str:
        return "true or false"

    def plain(self, value: Any) -> Any:
        return value


class WrittenFloat(float):
    """A float that keeps the decimal it was written as (a report configuration's TOML
    numbers are read this way), so that :class:`Decimal01` reads ``0.123456789012345678``
    as written, not as the nearest binary float's 17 digits.

    >>> x = WrittenFloat("0.123456789012345678")
    >>> x == 0.123456789012345678, x.written
    (True, '0.123456789012345678')
    """

    written: str

    def __new__(cls, text: str) -> WrittenFloat:
        number = super().__new__(cls, text)
        number.written = str(text)
        return number

    def __reduce__(self):  # pickled (to report workers) with the text it was written as
        return (WrittenFloat, (self.written,))


@dataclass(frozen=True)
class Decimal01(Kind):
    """A number read as the exact decimal written (``0.8`` is 4/5, not the nearest binary
    float), in ``[lo, hi]`` or ``[lo, hi)``, with at most ``places`` decimal places."""

    lo: Fraction = Fraction(0)
    hi: Fraction = Fraction(1)
    hi_open: bool = True
    places: int = 18
    metavar = "NUMBER"

    def exact(self, name: str, value: Any) -> Fraction:
        """``value`` as an exact fraction, or a SpecError."""
        if isinstance(value, bool):
            raise SpecError(name, value, "must be a number")
        if isinstance(value, float) and not math.isfinite(value):
            raise SpecError(name, value, f"must be a finite number: {self.describe()}")
        try:
            dec = Decimal(getattr(value, "written", str(value)).strip())
        except (InvalidOperation, ValueError, TypeError):
            raise SpecError(name, value, f"must be a number: {self.describe()}") from None
        if not dec.is_finite():
            raise SpecError(name, value, f"must be a finite number: {self.describe()}")
        exponent = dec.as_tuple().exponent
        if isinstance(exponent, int) and (exponent > 6 or exponent < -self.places - 6):
            # a value like 1e400 or 1e-400: far outside any range here, refused before
            # building a huge fraction
            raise SpecError(name, value, f"must be {self.describe()}")
        frac = Fraction(dec)
        if frac < self.lo or frac > self.hi or (self.hi_open and frac == self.hi):
            raise SpecError(name, value, f"must be {self.describe()}")
        if frac.denominator > 10**self.places:
            raise SpecError(
                name, value, f"must be {self.describe()} with at most {self.places} decimal places"
            )
        return frac

    def check(self, name: str, value: Any) -> Any:
        self.exact(name, value)
        return value

    def describe(self) -> str:
        upper = ")" if self.hi_open else "]"
        return f"a number in [{float(self.lo):g}, {float(self.hi):g}{upper}"

    def plain(self, value: Any) -> Any:
        return float(self.exact("value", value))


@dataclass(frozen=True)
class Dice(Kind):
    """A dice expression; ``explode=False`` where the rules need its maximum."""

    explode: bool = True
    metavar = "DICE"

    def check(self, name: str, value: Any) -> Any:
        check_dice(name, value, allow_none=False, allow_explode=self.explode)
        return value

    def describe(self) -> str:
        return "dice notation" + ("" if self.explode else " that does not explode")

    def plain(self, value: Any) -> Any:
        return str(value)


def check_dice(
    name: str, value: Any, *, allow_none: bool = False, allow_explode: bool = True
) -> DiceExpr | None:
    """``value`` parsed as dice notation (``None`` allowed where the rules allow absence)."""
    if value is None:
        if allow_none:
            return None
        raise SpecError(name, value, "a dice expression is required, e.g. 1d8")
    try:
        expr = parse(str(value))
    except ValueError as exc:
        raise SpecError(name, value, str(exc)) from None
    if not allow_explode and expr.exploding:
        raise SpecError(name, value, "must not explode: the rule needs the expression's maximum")
    return expr


@dataclass(frozen=True)
class Text(Kind):
    """Free text read by a system's own parser (e.g. a wound ladder)."""

    parse: Callable[[Any], Any]
    meaning: str
    metavar = "TEXT"

    def check(self, name: str, value: Any) -> Any:
        self.parse(value)
        return value

    def describe(self) -> str:
        return self.meaning


@dataclass(frozen=True)
class Param:
    """One declared parameter: its kind, meaning, and when it is used.

    ``when`` maps another parameter's name to the values under which this one is used
    (``{"mode": ("attack",)}``); without it the parameter is always used. ``required``
    parameters (default ``None`` and not ``optional``) must be given where used.
    ``optional`` means ``none`` is a meaningful value (an absent dice expression).
    """

    kind: Kind
    help: str
    when: Mapping[str, tuple[Any, ...]] | None = None
    optional: bool = False
    unit: str | None = None
    label: str | None = None

    def used(self, spec: Any) -> bool:
        """Whether ``spec``'s mode uses this parameter."""
        if not self.when:
            return True
        return all(getattr(spec, other) in values for other, values in self.when.items())

    def describe_when(self) -> str:
        if not self.when:
            return ""
        parts = []
        for k, vals in self.when.items():
            if tuple(vals) == (None,):
                parts.append(f"{k} is not given")
            else:
                shown = "/".join(str(v).lower() if isinstance(v, bool) else str(v) for v in vals)
                parts.append(f"{k} is {shown}")
        return "used when " + " and ".join(parts)


def param(
    default: Any,
    kind: Kind,
    help: str,
    *,
    when: Mapping[str, tuple[Any, ...]] | None = None,
    optional: bool = False,
    unit: str | None = None,
    label: str | None = None,
) -> Any:
    """A dataclass field with its declaration (see the module docstring).

    ``label`` is the human axis label (defaults to the name with spaces), ``unit`` its unit.
    """
    decl = Param(kind, help, dict(when) if when else None, optional, unit, label)
    return dataclasses.field(default=default, metadata={_META: decl})


def declared(spec_cls: Any) -> dict[str, Param]:
    """``{name: Param}`` for each declared field of a spec class, in field order."""
    if isinstance(spec_cls, type):
        return dict(_declared_of(spec_cls))  # a copy: the class's own stays as declared
    return {f.name: f.metadata[_META] for f in dataclasses.fields(spec_cls) if _META in f.metadata}


@functools.lru_cache(maxsize=256)
def _declared_of(spec_cls: type) -> dict[str, Param]:
    """:func:`declared` of a class, read once (every exact result reads its spec's)."""
    return {f.name: f.metadata[_META] for f in dataclasses.fields(spec_cls) if _META in f.metadata}


def axis_label(name: str, spec_cls: Any = None) -> str:
    """A human axis label for a parameter, metric or quantity name: from ``spec_cls``'s
    declaration of it when it declares a ``label`` (and ``unit``), else the style's word.

    >>> axis_label("expected_damage")
    'expected damage'
    """
    from critlab.analysis.style import label_text

    decl = declared(spec_cls).get(name) if spec_cls is not None else None
    return label_text(name, decl.label if decl else None, decl.unit if decl else None)


def default_of(spec_cls: Any, name: str) -> Any:
    """The default of field ``name`` (``None`` when it has none)."""
    for f in dataclasses.fields(spec_cls):
        if f.name == name:
            return None if f.default is dataclasses.MISSING else f.default
    raise KeyError(name)


def check_declared(spec: Any) -> None:
    """Check every declared parameter of ``spec``: a used one must be valid (and given,
    if required); an unused one that was given anyway is checked too, so a typo in a
    parameter of another mode never passes silently."""
    for name, decl in declared(type(spec)).items():
        value = getattr(spec, name)
        used = decl.used(spec)
        if value is None:
            if decl.optional or not used:
                continue
            if default_of(type(spec), name) is None:
                raise MissingParameter(name, decl.kind.describe())
        normal = decl.kind.check(name, value)
        if normal is not value and type(normal) is not type(value):
            object.__setattr__(spec, name, normal)  # np.int64(3) -> 3: plain values in JSON


def help_line(spec_cls: Any, name: str) -> str:
    """One ``--help`` line: meaning, what is allowed, when used, default."""
    decl = declared(spec_cls)[name]
    default = default_of(spec_cls, name)
    if default is None:
        shown = "none" if decl.optional else "required where used"
    else:
        shown = str(default).lower() if isinstance(default, bool) else str(default)
    parts = [decl.help.rstrip("."), decl.kind.describe()]
    if decl.when:
        parts.append(decl.describe_when())
    parts.append(f"default: {shown}")
    return "; ".join(parts)
