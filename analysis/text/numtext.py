"""Numbers read from text (command line, report options): ASCII digits only, exact
decimals kept as typed, and every message one printable line.

Python's ``int`` and ``float`` accept more than a user means: ``int("1_0")`` is 10,
``int("٣")`` is 3 (Arabic-Indic digits), ``float("inf")`` and ``float("1e400")`` are
infinite and ``float("0.800000000000000001")`` is 0.8. The readers here accept only
plain ASCII decimal notation, refuse what is not finite, and keep the digits typed.

>>> read_int("n", "-12"), read_int("n", "+3")
(-12, 3)
>>> read_int("n", "1_0")
Traceback (most recent call last):
...
ValueError: n = 1_0: must be an integer written in ASCII digits, e.g. 12 or -3
>>> x = read_number("dr", "0.800000000000000001")
>>> str(x), x == 0.8, isinstance(x, float)
('0.800000000000000001', True, True)
>>> one_line("bad\\nvalue\\x1b[31m")
'bad\\\\nvalue\\\\x1b[31m'
"""

from __future__ import annotations

import math
import re
import unicodedata
from decimal import Decimal

from critlab.analysis.spec_error import clip

_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
# Longer than this an integer is no parameter value (and Python refuses >4300 digits anyway).
MAX_DIGITS = 40


def one_line(text: object) -> str:
    """``text`` as one printable line: control and format characters (newlines, tabs,
    terminal escapes, bidirectional overrides) written as Python escapes.

    >>> one_line("a\\tb")
    'a\\\\tb'
    """
    out = []
    for ch in str(text):
        if unicodedata.category(ch)[0] == "C":
            out.append(ascii(ch)[1:-1])
        else:
            out.append(ch)
    return "".join(out)


def _message(name: str, text: str, allowed: str) -> str:
    return f"{name} = {clip(one_line(text))}: {allowed}"


def is_int_text(text: str) -> bool:
    """Whether ``text`` (stripped) is a plain ASCII integer such as ``-12``.

    >>> is_int_text(" 7 "), is_int_text("７"), is_int_text("1e3")
    (True, False, False)
    """
    t = text.strip()
    return _INT.fullmatch(t) is not None and len(t.lstrip("+-")) <= MAX_DIGITS


def read_int(
    name: str, text: str, allowed: str = "must be an integer written in ASCII digits, e.g. 12 or -3"
) -> int:
    """``text`` as an int, or a ``ValueError`` naming ``name`` and what is allowed."""
    if not isinstance(text, str) or not is_int_text(text):
        raise ValueError(_message(name, str(text), allowed))
    return int(text.strip())


class DecimalText(float):
    """A float that remembers the decimal digits it was read from: ``str()`` gives them
    back, so an exact-decimal check (``Decimal(str(x))``) sees what was typed, while
    arithmetic, comparison and JSON see the nearest float.

    >>> x = DecimalText("0.10")
    >>> str(x), repr(x), x + 1
    ('0.10', '0.10', 1.1)
    >>> import json, pickle
    >>> json.dumps({"x": x}), str(pickle.loads(pickle.dumps(x)))
    ('{"x": 0.1}', '0.10')
    """

    _text: str

    def __new__(cls, text: str) -> DecimalText:
        self = super().__new__(cls, text)
        self._text = text
        return self

    def __getnewargs__(self) -> tuple[str]:  # type: ignore[override]
        return (self._text,)

    def __str__(self) -> str:
        return self._text

    __repr__ = __str__


def is_number_text(text: str) -> bool:
    """Whether ``text`` (stripped) is plain ASCII decimal notation (``0.25``, ``-3``,
    ``1e-3``; no ``inf``, ``nan``, underscores or other scripts' digits).

    >>> [is_number_text(t) for t in ("0.25", ".5", "1e-3", "inf", "1_0", "٣")]
    [True, True, True, False, False, False]
    """
    return _NUMBER.fullmatch(text.strip()) is not None


def read_number(
    name: str, text: str, allowed: str = "must be a finite number written in ASCII digits, e.g. 0.25"
) -> DecimalText:
    """``text`` as a finite number that keeps its typed digits (:class:`DecimalText`),
    or a ``ValueError`` naming ``name`` and what is allowed."""
    if not isinstance(text, str) or not is_number_text(text):
        raise ValueError(_message(name, str(text), allowed))
    t = text.strip()
    value = DecimalText(t)
    if not math.isfinite(value):
        raise ValueError(_message(name, t, allowed))
    return value


def count_text(text: str) -> int | None:
    """A count written as a plain integer or as an exact integer in scientific form
    (``1e6``, ``2.5E7``: how trial counts are said), else None (``1.5e0``, ``1e-3``,
    ``1e40``, which no count needs).

    >>> count_text("1e6"), count_text("2.5e7"), count_text(" 200000 "), count_text("1.5"), count_text("1e40")
    (1000000, 25000000, 200000, None, None)
    """
    t = text.strip() if isinstance(text, str) else ""
    if is_int_text(t):
        return int(t)
    if not is_number_text(t) or not re.search(r"[eE]", t):
        return None
    mantissa, _, exponent = t.lower().partition("e")
    if len(mantissa) > MAX_DIGITS or not -MAX_DIGITS <= int(exponent) <= 20:
        return None
    value = Decimal(t)
    return int(value) if value == value.to_integral_value() else None
