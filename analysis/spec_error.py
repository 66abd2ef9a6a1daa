"""The one error every bad parameter value raises, wherever it was given."""

from __future__ import annotations

from typing import Any


def shown(value: Any) -> str:
    """A value as one line of a message: ``none`` for None, control characters escaped."""
    if value is None:
        return "none"
    text = str(value)
    if any(not ch.isprintable() for ch in text):
        text = repr(text)[1:-1]
    return text


class SpecError(ValueError):
    """A parameter value that the rules do not allow.

    >>> str(SpecError("crit_range", 25, "must be an integer in 0..20"))
    'parameter crit_range = 25: must be an integer in 0..20'
    """

    def __init__(self, name: str, value: Any, allowed: str) -> None:
        self.name, self.value, self.allowed = name, value, allowed
        super().__init__(f"parameter {name} = {shown(value)}: {allowed}")


# Shown under the module users import it from.
SpecError.__module__ = "critlab.analysis.spec"
