"""Faster ``inline="always"``: a callee's IR copied once per inlining, not once per block.

Every kernel inlines its helpers (the dice, the stream: see :mod:`critlab.kernels.dice`),
and Numba's inliner copies the callee's IR before it splices it in. It deep-copies each
block with a memo of its own, and every variable of a block refers to the function's one
scope, which holds every variable of the function; so each block copies the whole scope
anew, and a callee that has inlined helpers of its own (hundreds of blocks, thousands of
variables) costs blocks times variables. Measured on the first simulation of the example
encounter from an empty cache, this copying was 40% of the compile.

:func:`install` has the blocks of one copy share one memo (keyed by the scope they are
copied from, so the two copies Numba takes of a callee stay apart): the copy is the same
IR, its blocks sharing one scope as the original's do, at the cost of copying it once.
The compiled code is the same (the same seed gives the same tallies). Where Numba's
inliner is not laid out as expected, nothing is changed and compiles take their old time.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

_memos = threading.local()  # the memos of the inlining under way on this thread, by scope


class _SharedCopies:
    """``copy`` as the inliner's module sees it: a block deep-copied inside an inlining
    shares the memo of the blocks copied from the same scope."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    def deepcopy(self, x: Any, memo: dict | None = None) -> Any:
        memos = getattr(_memos, "by_scope", None)
        scope = getattr(x, "scope", None)
        if memo is None and memos is not None and scope is not None and hasattr(x, "body"):
            memo = memos.setdefault(id(scope), {})
        return copy.deepcopy(x, memo)


def install() -> bool:
    """Have Numba's inliner copy a callee's blocks with one memo per copy (idempotent);
    whether it now does."""
    try:
        from numba.core import inline_closurecall as icc

        worker = icc.InlineWorker
        inline_ir = worker.inline_ir
    except (ImportError, AttributeError):
        return False
    if getattr(inline_ir, "_critlab_shared_copies", False):
        return True
    if icc.copy is not copy:  # laid out otherwise than this was written for: leave it
        return False

    def shared_inline_ir(self, *args, **kwargs):
        outer = getattr(_memos, "by_scope", None)
        _memos.by_scope = {}
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            _memos.by_scope = outer

    shared_inline_ir._critlab_shared_copies = True
    shared_inline_ir.__doc__ = inline_ir.__doc__
    icc.copy = _SharedCopies()
    worker.inline_ir = shared_inline_ir
    return True
