"""The one place where critlab's jit policy is set.

Every kernel is compiled with ``cache=True`` (the compiled code is written beside the
source, so only the first call on a machine pays the compile), ``error_model="numpy"``
(no Python exception checks on division in hot loops) and ``nogil=True`` (blocks run on
a thread pool in parallel; see :mod:`kernels.runner`).

Helpers called in trial loops (dice, bins, a system's rule steps) are plain kernels too:
LLVM inlines them across functions. Numba's own IR-level ``inline="always"`` was measured
here to cost 20-50 s of first-call compile per rule system for no measurable speed-up,
so critlab does not use it.
"""

from __future__ import annotations

from numba import njit

JIT_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}


def kernel(fn=None, /, **extra):
    """Decorate a function as a critlab kernel (``@kernel`` or ``@kernel``)."""

    def wrap(f):
        return njit(**JIT_OPTIONS, **extra)(f)

    return wrap(fn) if fn is not None else wrap
