"""The one error every bad parameter value raises, wherever it was given."""

from __future__ import annotations

from typing import Any

# The most of a value an error line echoes: a 3 MB dice expression or a 401-digit integer
# is named by its start and its length.
MAX_SHOWN = 200


def clip(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut to about ``limit`` characters, saying how long it was.

    >>> clip("9" * 401)[-30:]
    '9999999999... (401 characters)'
    """
    if len(text) <= limit:
        return text
    return f"{text[: limit - 30]}... ({len(text):,} characters)"


def shown(value: Any) -> str:
    """A value as one line of a message: ``none`` for None, control characters escaped,
    at most about :data:`MAX_SHOWN` characters of it, never a Python-internal text (an
    empty list is "an empty list", an integer past Python's 4,300 digits "an integer of
    over 4,300 digits").

    >>> shown(None), shown(()), len(shown("1d6+" * 10**6)), shown(10**5000)
    ('none', 'an empty list', 196, 'an integer of over 4,300 digits')
    """
    if value is None:
        return "none"
    if isinstance(value, list | tuple | set | frozenset | dict) and not value:
        return "an empty table" if isinstance(value, dict) else "an empty list"
    try:
        text = str(value)
    except ValueError:  # str() of an integer past 4,300 digits (or of a list holding one)
        return "an integer of over 4,300 digits" if isinstance(value, int) else f"a {type(value).__name__}"
    if any(not ch.isprintable() for ch in text):
        text = repr(text)[1:-1]
    return clip(text)


def quoted(value: Any) -> str:
    """``repr(value)`` for a message, as :func:`shown` bounds it.

    >>> quoted("kind"), quoted("x" * 10**6)[-24:]
    ("'kind'", '... (1,000,002 characters)')
    """
    try:
        return clip(repr(value))
    except ValueError:
        return shown(value)


class SpecError(ValueError):
    """A parameter value that the rules do not allow.

    >>> str(SpecError("crit_range", 25, "must be an integer in 0..20"))
    'parameter crit_range = 25: must be an integer in 0..20'
    """

    def __init__(self, name: str, value: Any, allowed: str) -> None:
        self.name, self.value, self.allowed = name, value, allowed
        super().__init__(f"parameter {shown(name)} = {shown(value)}: {allowed}")  # a typed name may be long

    def __reduce__(self) -> tuple:
        # as it is, line and fields: a refusal computed on a Dask worker comes back whole
        return (_rebuilt, (type(self), self.args, dict(self.__dict__)))


def _rebuilt(cls: type, args: tuple, state: dict) -> SpecError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


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
