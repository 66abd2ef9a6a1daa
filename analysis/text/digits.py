"""Numbers as the project writes them to JSON and CSV: at most 15 significant digits.

A double holds 15 significant decimal digits faithfully and the 16th and 17th only as
noise of its binary rounding, which is how ``0.1 + 0.2`` prints as
``0.30000000000000004``. Every number critlab writes for machines (results' JSON, the
command line's ``--json``, a report's CSV tables and ``summary.json``) goes through
:func:`number` (or :func:`plain`, for a whole JSON document), so it reads as people
write it; 15 digits round-trip through any reader to the same double or its nearest
15-digit neighbour, far below every probability's standard error.

>>> number(0.1 + 0.2), number(0.28500000000000003), number(2), number(None)
(0.3, 0.285, 2, None)
>>> plain({"p": [1 / 3, True, float("nan")], "n": 10**13})
{'p': [0.333333333333333, True, nan], 'n': 10000000000000}
>>> CSV_FLOAT % (2 / 3)
'0.666666666666667'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

SIGNIFICANT = 15
CSV_FLOAT = f"%.{SIGNIFICANT}g"
"""The ``float_format`` of every CSV the project writes (``DataFrame.to_csv``)."""


def number(x: Any) -> Any:
    """``x`` with a float rounded to :data:`SIGNIFICANT` significant digits; integers,
    booleans, ``None`` and non-finite floats unchanged (JSON writers refuse the last)."""
    if isinstance(x, bool) or x is None or isinstance(x, int):
        return x
    if isinstance(x, float):
        return float(f"{x:.{SIGNIFICANT}g}") if math.isfinite(x) else x
    if hasattr(x, "dtype") and getattr(x, "shape", None) == ():  # a NumPy scalar
        return number(x.item())
    return x


def plain(obj: Any) -> Any:
    """A JSON document with every float rounded by :func:`number` (mappings, lists and
    tuples walked; keys kept)."""
    if isinstance(obj, Mapping):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return number(obj)


__all__ = ["CSV_FLOAT", "SIGNIFICANT", "number", "plain"]
