"""Where a mechanic's compiled form is cached on disk, and the key that names it.

Numba compiles a mechanic's rule and its drivers from source made at run time, so its own
cache (keyed by a function's file) cannot hold them; they are cached by
:class:`critlab.kernels.mechanic.KeyedCacheLocator` instead, in a folder per key. The key
is a hash of everything the compiled code depends on: the rewritten rule (line numbers
included), the text of the file it lives in (its constants and helpers), the declaration
(labels, values, inputs, parameters and their kinds), and the critlab, Numba, NumPy and
kernel-source versions. A change to any of them is a new key, so only the first call
after an edit compiles; an old key's folder is simply never read again.

The folder is ``$CRITLAB_MECHANIC_CACHE`` when set, else ``mechanics/`` in the kernels'
own ``__pycache__`` (beside the kernels' caches: ``make clean-cache`` frees both), else,
where the package cannot be written to, the user's cache folder. Numba writes every
cache file to a temporary name and renames it, so processes may share the folder.

>>> len(key_of("rule source", ("labels",)))
64
"""

from __future__ import annotations

import hashlib
import inspect
import os
import sys
from pathlib import Path
from typing import Any

import numba
import numpy as np

import critlab
from critlab.kernels import mechanic as km
from critlab.kernels.jit import SOURCES_STAMP

ENV = "CRITLAB_MECHANIC_CACHE"


def key_of(*parts: Any) -> str:
    """A hash of ``parts`` (their ``repr``) and of the versions the compiled code depends on."""
    digest = hashlib.sha256()
    versions = (critlab.__version__, numba.__version__, np.__version__, SOURCES_STAMP, sys.version)
    for part in (*versions, *parts):
        digest.update(repr(part).encode() + b"\0")
    return digest.hexdigest()


def _file_text(fn: Any) -> str:
    """The source of the file defining ``fn`` (its globals' values live there), or its
    own source where the file cannot be read (a notebook cell)."""
    try:
        return Path(inspect.getsourcefile(fn) or "").read_text(encoding="utf-8")
    except (OSError, TypeError, ValueError):
        try:
            return inspect.getsource(fn)
        except (OSError, TypeError):
            return ""


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return os.access(folder, os.W_OK)
    except OSError:
        return False


def cache_root() -> Path | None:
    """The folder that holds the mechanics' caches (see the module docstring), or None
    when nowhere can be written."""
    given = os.environ.get(ENV)
    if given:
        return Path(given) if _writable(Path(given)) else None
    beside = Path(km.__file__).parent / "__pycache__" / "mechanics"
    if _writable(beside):
        return beside
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "critlab" / "mechanics"
    return home if _writable(home) else None


def cache_for(rule: Any, params: tuple[Any, ...]) -> tuple[str, str] | None:
    """``(folder, key)`` of ``rule``'s compiled form for parameters like ``params`` (their
    types), or None when there is nowhere to cache it."""
    root = cache_root()
    if root is None:
        return None
    declaration = (
        rule.labels,
        rule.values,
        tuple((name, repr(field.metadata.get("critlab.param"))) for name, field in rule.params.items()),
        tuple((name, repr(given)) for name, given in rule.inputs.items()),
        tuple(type(p).__name__ for p in params),
        repr(getattr(rule, "objective", None)),  # a choosing rule's solve walk maximises it
    )
    key = key_of(rule.rewritten.digest, _file_text(rule.fn), declaration)
    return str(root / key[:32]), key
