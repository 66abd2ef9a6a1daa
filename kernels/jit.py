"""The one place where critlab's jit policy is set.

Every kernel is compiled with ``cache=True`` (the compiled code is written beside the
source, so only the first call on a machine pays the compile), ``error_model="numpy"``
(no Python exception checks on division in hot loops) and ``nogil=True`` (blocks run on
a thread pool in parallel; see :mod:`kernels.runner`).
"""

from __future__ import annotations

from numba import njit

JIT_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}


def kernel(fn=None, /, **extra):
    """Decorate a function as a critlab kernel (``@kernel`` or ``@kernel(inline="always")``)."""

    def wrap(f):
        return njit(**JIT_OPTIONS, **extra)(f)

    return wrap(fn) if fn is not None else wrap
