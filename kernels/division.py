"""A designer's rule's own divisions, checked: a division by zero raises, as in Python.

The rule's drivers are compiled with the numpy error model (no check on a division in a
trial loop), under which an integer ``//`` or ``%`` by zero is 0 and ``/`` is inf,
silently. :mod:`critlab.analysis.mechanic.division` rewrites the rule's divisions by
anything but a nonzero constant to these functions, which raise ``ZeroDivisionError``
with the division's line as the second argument, so that the error names the rule's file
and line in one message. A run of the rule that has already missed an input
(``mem[MISS]``, see :mod:`critlab.kernels.mechanic`) goes on with stand-in values and its
result is thrown away: a division by a stand-in 0 there is no error of the rule's.
"""

from __future__ import annotations

from typing import Any

from numba import njit, types
from numba.extending import overload

from critlab.kernels.mechanic import MISS


def checked_floordiv(mem, a, b, line):
    """``a // b``, raising ZeroDivisionError(message, line) when ``b`` is a zero number."""
    return a // b


def checked_mod(mem, a, b, line):
    """``a % b``, raising ZeroDivisionError(message, line) when ``b`` is a zero number."""
    return a % b


def checked_truediv(mem, a, b, line):
    """``a / b``, raising ZeroDivisionError(message, line) when ``b`` is a zero number."""
    return a / b


def _checked(op, message: str) -> Any:
    def typer(mem, a, b, line):
        if not isinstance(b, types.Number | types.Boolean):  # an array divisor: numpy's rules
            return lambda mem, a, b, line: op(a, b)

        def impl(mem, a, b, line):
            if b == 0 and mem[MISS] < 0:
                raise ZeroDivisionError(message, line)
            return op(a, b)

        return impl

    return typer


@njit(inline="always")
def _floordiv(a, b):
    return a // b


@njit(inline="always")
def _mod(a, b):
    return a % b


@njit(inline="always")
def _truediv(a, b):
    return a / b


overload(checked_floordiv)(_checked(_floordiv, "integer division or modulo by zero"))
overload(checked_mod)(_checked(_mod, "integer division or modulo by zero"))
overload(checked_truediv)(_checked(_truediv, "division by zero"))
