"""A generated function's Numba disk cache, in a folder and under a key of its caller's.

The drivers of an own mechanic (:mod:`critlab.kernels.mechanic`) are built from source at
run time, so Numba's own per-file cache cannot key them: :func:`cache_in` marks such a
function with a folder and a key (the caller's: the rule's source, its declaration, the
versions), and :class:`KeyedCacheLocator` makes Numba cache it there (Numba writes its
cache files to a temporary name and renames them, so processes may share the folder).
"""

from __future__ import annotations

from typing import Any

from numba.core import caching

# The generated drivers' jit options: critlab.kernels.jit's, and bounds checks on: a rule
# is a designer's code, and one that indexes past the end of a pool must raise IndexError
# (one line naming its file and line), not read whatever memory holds. The disk cache is
# keyed per mechanic (cache_in), not per file; this file's text is part of the key.
OPTIONS = {"error_model": "numpy", "nogil": True, "boundscheck": True}


class KeyedCacheLocator(caching._CacheLocator):
    """Numba's cache for a function marked by :func:`cache_in`: its folder, and its key as
    the freshness stamp (the generated source has no file to stamp)."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._py_file = py_file
        self._folder, self._key = py_func._critlab_cache

    def get_cache_path(self) -> str:
        return self._folder

    def get_source_stamp(self) -> str:
        return self._key

    def get_disambiguator(self) -> str:
        return self._key[:12]

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> KeyedCacheLocator | None:
        if getattr(py_func, "_critlab_cache", None) is None:
            return None
        return cls(py_func, py_file)


def _register_locator() -> None:
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if isinstance(classes, list) and KeyedCacheLocator not in classes:
        classes.insert(0, KeyedCacheLocator)


_register_locator()


def cache_in(py_func: Any, folder: str | None, key: str) -> dict[str, Any]:
    """Mark ``py_func`` to be cached in ``folder`` under ``key``; the jit options to
    compile it with (no disk cache when ``folder`` is None)."""
    if folder is None:
        return dict(OPTIONS)
    py_func._critlab_cache = (folder, key)
    return {**OPTIONS, "cache": True}
