"""Faster ``inline="always"``: a callee read once per process and copied once per inlining.

Every kernel inlines its helpers (the dice, the stream: see :mod:`critlab.kernels.dice`).
For each call it inlines, Numba's inliner runs the callee's whole front end (bytecode
to IR, and the inlining of the callee's own helpers, recursively), then deep-copies
the resulting IR twice: once to splice in, once as an "original" that its callers drop.
Each block is deep-copied with a memo of its own, and every variable of a block refers
to the function's one scope, which holds every variable of the function; so each block
copies the whole scope anew, and a callee that has inlined helpers of its own (hundreds
of blocks, thousands of variables) costs blocks times variables.

:func:`install` changes three things, none of them the IR that is spliced in:

- the blocks of one copy share one memo (keyed by the scope they are copied from): the
  same IR, its blocks sharing one scope as the original's do, copied once (measured on
  the first simulation of the example encounter: this copying was 40% of the compile);
- a callee's front end is run once per process (for the flags it was run with) and
  its IR kept: every inlining copies it, so the kept IR is never changed;
- the "original" copy, which the one caller here (Numba's ``InlineInlinables`` pass)
  drops, reuses the spliced copy's blocks instead of copying them again.

The compiled code is the same (the same seed gives the same tallies). Where Numba's
inliner is not laid out as expected, nothing is changed and compiles take their old time.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

_memos = threading.local()  # the inlining under way on this thread: its memos, its copies
_front_ends: dict[tuple, Any] = {}  # a callee's IR after its front end, by callee and flags
_front_ends_lock = threading.Lock()


class _SharedCopies:
    """``copy`` as the inliner's module sees it: a block deep-copied inside an inlining
    shares the memo of the blocks copied from the same scope; where the inlining's
    "original" is dropped, a block this inlining copied already is not copied again."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    def deepcopy(self, x: Any, memo: dict | None = None) -> Any:
        memos = getattr(_memos, "by_scope", None)
        scope = getattr(x, "scope", None)
        if memo is None and memos is not None and scope is not None and hasattr(x, "body"):
            made = getattr(_memos, "made", None)
            if made is not None and id(x) in made:
                return x  # the dropped "original": the spliced copy's own block
            memo = memos.setdefault(id(scope), {})
            y = copy.deepcopy(x, memo)
            if made is not None:
                made.add(id(y))
            return y
        return copy.deepcopy(x, memo)


def _flags_key(flags: Any) -> tuple:
    """The values of Numba's compile ``flags`` as a key (``enable_ssa`` aside: the front
    end run for an inlining always sets it off, on the caller's flags too)."""
    values = flags.values() if hasattr(flags, "values") else {}
    return tuple(sorted((k, repr(v)) for k, v in values.items() if k != "enable_ssa"))


def install() -> bool:
    """Have Numba's inliner copy a callee's blocks with one memo per copy, and run a
    callee's front end once (idempotent); whether it now does."""
    try:
        from numba.core import inline_closurecall as icc

        worker = icc.InlineWorker
        inline_ir = worker.inline_ir
        inline_function = worker.inline_function
    except (ImportError, AttributeError):
        return False
    if getattr(inline_ir, "_critlab_shared_copies", False):
        return True
    if icc.copy is not copy:  # laid out otherwise than this was written for: leave it
        return False

    def shared_inline_ir(self, *args, **kwargs):
        outer = getattr(_memos, "by_scope", None), getattr(_memos, "made", None)
        _memos.by_scope = {}
        _memos.made = set() if getattr(_memos, "drop_original", False) else None
        _memos.drop_original = False  # for this inlining only, not one nested in it
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            _memos.by_scope, _memos.made = outer

    def kept_inline_function(self, caller_ir, block, i, function, arg_typs=None):
        key = (function, self.typingctx, self.targetctx, type(self.pipeline), _flags_key(self.flags),
               repr(sorted((self.locals or {}).items())))  # fmt: skip
        with _front_ends_lock:
            callee_ir = _front_ends.get(key)
        if callee_ir is None:
            callee_ir = self.run_untyped_passes(function)
            with _front_ends_lock:
                _front_ends[key] = callee_ir
        else:
            self.flags.enable_ssa = False  # as the front end run would have left it
        _memos.drop_original = True
        try:
            freevars = function.__code__.co_freevars
            return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
        finally:
            _memos.drop_original = False

    shared_inline_ir._critlab_shared_copies = True
    shared_inline_ir.__doc__ = inline_ir.__doc__
    kept_inline_function.__doc__ = inline_function.__doc__
    icc.copy = _SharedCopies()
    worker.inline_ir = shared_inline_ir
    worker.inline_function = kept_inline_function
    return True
