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


class MissingParameter(SpecError):
    """A required parameter that was not given: named for what it is, not as a value.

    >>> str(MissingParameter("attack_bonus", "an integer in -1000..1000"))
    'parameter attack_bonus is required here: an integer in -1000..1000'
    >>> MissingParameter("attack_bonus", "an integer in -1000..1000").flag_text()
    '--attack-bonus is required: an integer in -1000..1000'
    """

    def __init__(self, name: str, kind: str) -> None:
        self.kind = kind
        super().__init__(name, None, f"is required here: {kind}")
        ValueError.__init__(self, f"parameter {name} is required here: {kind}")

    def flag_text(self) -> str:
        """The command line's words: the flag to give."""
        return f"--{self.name.replace('_', '-')} is required: {self.kind}"


# Shown under the module users import it from.
SpecError.__module__ = MissingParameter.__module__ = "critlab.analysis.spec"
