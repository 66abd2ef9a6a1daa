"""A jitted function named by its module, imported (with Numba) on first use.

A rule system is declared with its block kernel, but most of what a system does (its
exact model, tune, sensitivity, the command line's help) never runs it; holding a
:class:`KernelRef` instead of the dispatcher keeps Numba out of those processes. Calling
the reference, or reading any attribute of the dispatcher through it (``signatures``,
``py_func``), imports the kernel's module then. It pickles as its name, so a Dask worker
imports the very same kernel.

>>> ref = KernelRef("critlab.kernels.vocab", "words")     # any module's function
>>> ref.qualified
'critlab.kernels.vocab.words'
>>> import pickle
>>> pickle.loads(pickle.dumps(ref)).qualified
'critlab.kernels.vocab.words'
"""

from __future__ import annotations

import importlib
from typing import Any


class KernelRef:
    """``module.name``, resolved on first use and then called or read straight through."""

    __slots__ = ("_module", "_name", "_target")

    def __init__(self, module: str, name: str = "block") -> None:
        self._module = module
        self._name = name
        self._target: Any = None

    @property
    def qualified(self) -> str:
        """The dotted name of the function referred to."""
        return f"{self._module}.{self._name}"

    def resolve(self) -> Any:
        """The function itself (its module imported on the first call)."""
        if self._target is None:
            self._target = getattr(importlib.import_module(self._module), self._name)
        return self._target

    def __call__(self, *args: Any) -> Any:
        return self.resolve()(*args)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self.resolve(), attr)

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return KernelRef, (self._module, self._name)

    def __repr__(self) -> str:
        return f"KernelRef({self.qualified!r})"
