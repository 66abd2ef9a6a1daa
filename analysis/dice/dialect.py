"""Dialects: another tool's dice notation, meaning what it means there, rewritten into
critlab's own grammar (one engine answers them all).

``roll20`` reads Roll20's Dice Reference, ``foundry`` Foundry VTT's dice modifiers
(:mod:`critlab.analysis.dice.roll20`, :mod:`critlab.analysis.dice.foundry`); ``critlab`` is
the notation of docs/rules.md. A dice parameter's value written ``roll20:EXPR`` or
``foundry:EXPR`` is read in that dialect wherever dice are read, ``critlab dice
--dialect D`` reads its expressions so (or :data:`ENVIRONMENT` names the dialect, the flag
winning), and ``critlab.dice(expr, dialect=D)`` likewise. Every element of a tool's
documentation is read as it means there and answered exactly, or refused with one line
naming it.

>>> translate("8d6>4", "roll20")
'8d6cs>=4'
>>> translate("2d6!kh1", "roll20"), translate("1d20cs>=19", "roll20")
('2d6xkh1', '1d20')
>>> translate("4d6r1", "foundry"), translate("1d20min10", "foundry"), translate("2d6+1d6[fire]", "foundry")
('4d6ro1', '1d20mi10', '2d6+1d6')
>>> split("roll20: 4d6d1")
('roll20', '4d6d1')
"""

from __future__ import annotations

import os
import re

from critlab.analysis.dice.grammar import NotationError
from critlab.analysis.dice.rewrite import Rewriter
from critlab.analysis.dice.tabletop import DialectError, read

DIALECTS = ("critlab", "roll20", "foundry")
ENVIRONMENT = "CRITLAB_DIALECT"
_PREFIX = re.compile(r"^\s*(critlab|roll20|foundry)\s*:", re.IGNORECASE)


def split(text: str) -> tuple[str | None, str]:
    """``(dialect, expression)`` of a dice value written ``DIALECT:EXPR``; ``(None, text)``
    where it names none."""
    m = _PREFIX.match(text) if isinstance(text, str) else None
    if m is None:
        return None, text
    return m.group(1).lower(), text[m.end() :].strip()


def check_dialect(name: str, value: str) -> str:
    """``value`` as a dialect's name; anything else raises a ``ValueError`` naming ``name``."""
    low = value.strip().lower() if isinstance(value, str) else value
    if low not in DIALECTS:
        raise ValueError(f"{name} = {value!r}: must be one of {', '.join(DIALECTS)}")
    return low


def from_environment() -> str | None:
    """The dialect :data:`ENVIRONMENT` names (``None`` where it is unset or empty)."""
    value = os.environ.get(ENVIRONMENT, "")
    return check_dialect(ENVIRONMENT, value) if value.strip() else None


def translate(text: str, dialect: str) -> str:
    """``text`` in ``dialect`` rewritten in critlab's grammar (``critlab``: unchanged); a
    form the dialect does not define, or one critlab cannot answer exactly, raises
    :class:`~critlab.analysis.dice.tabletop.DialectError` naming it."""
    if dialect == "critlab":
        return text
    if dialect == "roll20":
        from critlab.analysis.dice import roll20 as tool
    elif dialect == "foundry":
        from critlab.analysis.dice import foundry as tool
    else:
        raise NotationError(f"dialect {dialect!r}: must be one of {', '.join(DIALECTS)}")
    tree = read(text, tool.NAMES, dialect, comments=tool.COMMENTS)
    rw = Rewriter(dialect, text, tool)
    return tool.whole(rw, tree) or rw.expression(tree, top=True)


__all__ = [
    "DIALECTS",
    "ENVIRONMENT",
    "DialectError",
    "check_dialect",
    "from_environment",
    "split",
    "translate",
]
