"""Numbers written for people, in one place: probabilities as percentages, amounts to a
few significant digits, an exact sum's floating-point noise as the zero it is, and a
simulated number to the precision its standard error allows.

Machines read ``--json``, CSV and ``summary.json`` (15 significant digits,
:mod:`critlab.analysis.text.digits`); everything a designer reads (tables on the
terminal, the report's page, a notebook's repr, a sentence) goes through here, so one
number reads the same everywhere. Tables and terminals use :func:`percent` and
:func:`amount`; sentences the shorter :func:`said_percent` and :func:`said_amount`.

>>> percent(0.6195277957), percent(1 / 6), percent(9.155273438e-06), percent(0.0)
('61.95%', '16.67%', '<0.01%', '0.00%')
>>> percent(0.0017, se=0.00004)
'0.1700% ± 0.0040%'
>>> amount(5.18425), amount(2.22e-16), amount(4000.0), amount(1263.3289), amount(-0.225)
('5.184', '0', '4000', '1263', '-0.225')
>>> said_percent(0.565), said_amount(0.8999999), signed(0.2567)
('56.5%', '0.900', '+0.257')
>>> number(0.5, probability=True), number(3.375, probability=False), number(None, probability=True)
('50.00%', '3.375', '–')
"""

from __future__ import annotations

import math

# Below this an exact answer is the rounding noise of a sum (2.22e-16, 8.6e-14), not a
# value: the engines' own cut-offs are 1e-12.
NOISE = 1e-12
MISSING = "–"


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _trim(text: str) -> str:
    """An amount without the zeros its rounding left at the end (``0.2250`` is 0.225)."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _se_decimals(se: float) -> int:
    """Decimals that show a standard error to its second significant digit."""
    return min(12, max(0, 1 - math.floor(math.log10(se))))


def percent(p: float | None, se: float | None = None, *, missing: str = MISSING) -> str:
    """A probability as a percentage with two decimals: "<0.01%" for a positive one
    below (however small: a rare outcome is never shown as impossible), ">99.99%" for one
    short of 1 above, 1 up to the rounding of a sum as 100%; with ``se``, both to the
    standard error's second significant digit.

    >>> percent(0.1), percent(3e-5), percent(0.99999), percent(1 - 1e-15), percent(0.5, se=0.0)
    ('10.00%', '<0.01%', '>99.99%', '100.00%', '50.00% ± 0%')
    """
    if _missing(p):
        return missing
    p = float(p)
    if se is not None and not _missing(se):
        if se <= 0:
            return f"{percent(p)} ± 0%"
        d = _se_decimals(100.0 * se)
        return f"{100.0 * p:.{d}f}% ± {100.0 * se:.{d}f}%"
    if p <= 0.0:
        return "0.00%"
    if p >= 1.0 - NOISE:  # 1 up to the rounding of a sum of many terms
        return "100.00%"
    if p < 0.00005:
        return "<0.01%"
    if p >= 0.99995:
        return ">99.99%"
    return f"{p * 100:.2f}%"


def amount(x: float | None, *, missing: str = MISSING) -> str:
    """An amount (damage, rounds, hit points) in a table: four significant digits, whole
    numbers written whole, noise as 0.

    >>> amount(117), amount(0.00012346), amount(123456.7), amount(float("inf"))
    ('117', '0.0001235', '123457', 'inf')
    """
    if _missing(x):
        return missing
    v = float(x)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if abs(v) < NOISE:
        return "0"
    if abs(v) >= 1e4 or v.is_integer():
        return _trim(f"{v:.0f}")
    digits = 4 - 1 - math.floor(math.log10(abs(v)))
    return _trim(f"{v:.{max(0, digits)}f}")


def number(x: float | None, *, probability: bool, se: float | None = None, missing: str = MISSING) -> str:
    """``x`` as :func:`percent` writes a probability, else as :func:`amount` (with ``se``,
    both to the standard error's second significant digit)."""
    if probability:
        return percent(x, se, missing=missing)
    if se is None or _missing(se) or _missing(x):
        return amount(x, missing=missing)
    if se <= 0:
        return f"{amount(x)} ± 0"
    d = _se_decimals(float(se))
    return f"{float(x):.{d}f} ± {float(se):.{d}f}"


def said_percent(p: float) -> str:
    """A probability in a sentence: a percentage of three significant digits."""
    v = 100.0 * p
    if abs(v) < 100 * NOISE:
        return "0%"
    if abs(v) < 0.001:
        return "< 0.001%"
    return f"{v:.3g}%"


def said_amount(x: float) -> str:
    """An amount in a sentence: three significant digits, in fixed notation."""
    if abs(x) < NOISE:
        return "0"
    digits = max(0, 2 - math.floor(math.log10(abs(x))))
    return f"{x:.{min(digits, 6)}f}"


def signed(x: float) -> str:
    """A change in a sentence: :func:`said_amount` with its sign."""
    text = said_amount(x)
    return text if text.startswith("-") else "+" + text


def change(x: float | None, *, probability: bool, missing: str = MISSING) -> str:
    """A difference for people: percentage points for probabilities (``+2.00 pp``), a
    signed amount otherwise; noise is 0.

    >>> change(0.02, probability=True), change(-0.0302469, probability=False), change(1e-15, probability=True)
    ('+2.00 pp', '-0.03025', '0 pp')
    """
    if _missing(x):
        return missing
    if probability:
        return "0 pp" if abs(x) < NOISE else f"{100.0 * x:+.2f} pp"
    text = amount(x)
    return text if text.startswith("-") or text == "0" else "+" + text
