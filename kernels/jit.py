"""The one place where critlab's jit policy is set.

Every kernel is compiled with ``cache=True`` (the compiled code is written beside the
source, so only the first call on a machine pays the compile), ``error_model="numpy"``
(no Python exception checks on division in hot loops) and ``nogil=True`` (blocks run on
a thread pool in parallel; see :mod:`critlab.kernels.runner`).

Inlining, measured here: a call from one kernel to another that LLVM does not inline
costs about 10 ns, so the leaf helpers of every trial loop (the generator in
:mod:`critlab.kernels.rng`, the counters in :mod:`critlab.kernels.bins`, the dice in
:mod:`critlab.kernels.dice`)
are ``inline="always"`` (numba inlines them in its IR), which made a 1d8 damage roll
3x faster. Compile time grows with every die written out after inlining, so each
helper rolls its dice at as few places as it can (one ``die`` in a loop, not four in a
row): that took the first-call compile of all five systems from about 120 s to 30 s.

The cache is keyed on each kernel's own source file: after editing a helper in another
module, delete the ``*.nbi``/``*.nbc`` files under ``__pycache__`` (``make clean-cache``) so that
kernels which inline it are compiled again.
"""

from __future__ import annotations

from numba import njit

JIT_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}


def kernel(fn=None, /, **extra):
    """Decorate a function as a critlab kernel (``@kernel`` or ``@kernel(inline="always")``)."""

    def wrap(f):
        return njit(**JIT_OPTIONS, **extra)(f)

    return wrap(fn) if fn is not None else wrap
