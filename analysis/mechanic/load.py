"""Finding a mechanic by reference (``path/to/rules.py:function`` or
``package.module:function``): the registry's own reference resolution,
:mod:`critlab.analysis.systems.refs`, under the name mechanics have always used.

A mechanic is code: resolving a reference runs its file (or imports its module) with the
user's permissions, on the command line and while a report configuration that names it
is checked. Name only files you trust. A module reference is imported from the installed
packages only, never from the current folder (a file there is named as a file,
``./rules.py:f``).

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
