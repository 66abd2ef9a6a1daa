"""Finding a mechanic by reference (``path/to/rules.py:function`` or
``package.module:function``): the registry's own reference resolution,
:mod:`critlab.analysis.systems.refs`, under the name mechanics have always used.

>>> is_reference("rules.py:attack"), is_reference("thac0")
(True, False)
"""

from __future__ import annotations

from critlab.analysis.systems.refs import (
    SYSTEM_COMMANDS,
    file_reference,
    is_reference,
    register,
    resolve,
    resolve_from,
    systems_in_argv,
    told,
)

__all__ = [
    "SYSTEM_COMMANDS",
    "file_reference",
    "is_reference",
    "register",
    "resolve",
    "resolve_from",
    "systems_in_argv",
    "told",
]
