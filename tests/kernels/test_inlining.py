"""Numba's inliner with one memo per copy of a callee (critlab.kernels.inlining)."""

from __future__ import annotations

import copy

import numpy as np
from numba import njit
from numba.core import inline_closurecall, ir

from critlab.kernels import inlining


def test_it_is_installed_on_this_numba():
    # A Numba whose inliner is laid out otherwise leaves compiles correct but slow: fail here, not silently.
    assert inlining.install()
    assert inlining.install()  # twice: still the one wrapper
    assert inline_closurecall.InlineWorker.inline_ir._critlab_shared_copies
    assert inline_closurecall.InlineWorker.inline_function.__name__ == "kept_inline_function"


@njit(inline="always")
def _twice(x):
    total = 0
    for k in range(2):
        if x > k:
            total += x
        else:
            total -= k
    return total


@njit
def _caller(values):
    out = np.empty(values.size, dtype=np.int64)
    for i in range(values.size):
        out[i] = _twice(values[i]) + _twice(values[i] - 1)  # two sites: the callee copied twice
    return out


def test_an_inlined_helper_computes_what_python_computes():
    values = np.arange(-3, 5)
    expected = [_twice.py_func(v) + _twice.py_func(v - 1) for v in values]
    assert _caller(values).tolist() == expected


def test_the_blocks_of_one_copy_share_one_copied_scope():
    scope = ir.Scope(None, ir.Loc("f", 1))
    blocks = [ir.Block(scope, ir.Loc("f", k)) for k in range(3)]
    for block in blocks:
        block.append(ir.Assign(ir.Const(1, block.loc), scope.redefine("x", block.loc), block.loc))
    inlining._memos.by_scope = {}
    try:
        copies = [inline_closurecall.copy.deepcopy(b) for b in blocks]
    finally:
        inlining._memos.by_scope = None
    assert len({id(c.scope) for c in copies}) == 1 and copies[0].scope is not scope
    plain = [copy.deepcopy(b) for b in blocks]  # outside an inlining: each its own, as Numba does
    assert len({id(c.scope) for c in plain}) == 3


@njit(inline="always")
def _thrice(x):
    return _twice(x) + _twice(x + 1) + _twice(x + 2)


def test_a_callee_front_end_runs_once_for_all_its_places(monkeypatch):
    ran = []
    front_end = inline_closurecall.InlineWorker.run_untyped_passes

    def counted(self, func, *args, **kwargs):
        ran.append(func.__name__)
        return front_end(self, func, *args, **kwargs)

    monkeypatch.setattr(inline_closurecall.InlineWorker, "run_untyped_passes", counted)

    @njit
    def six_places(x):
        return _thrice(x) + _thrice(x - 5)  # _thrice twice, and _twice three times in each

    assert six_places(3) == _thrice.py_func(3) + _thrice.py_func(-2)
    # _thrice's front end once, and _twice's at most once (not at all where an earlier compile read it)
    assert ran.count("_thrice") == 1 and ran.count("_twice") <= 1


def test_the_dropped_original_reuses_the_spliced_blocks():
    scope = ir.Scope(None, ir.Loc("f", 1))
    block = ir.Block(scope, ir.Loc("f", 1))
    block.append(ir.Assign(ir.Const(1, block.loc), scope.redefine("x", block.loc), block.loc))
    inlining._memos.by_scope, inlining._memos.made = {}, set()
    try:
        spliced = inline_closurecall.copy.deepcopy(block)
        original = inline_closurecall.copy.deepcopy(spliced)  # the inliner's second copy, of its first
    finally:
        inlining._memos.by_scope, inlining._memos.made = None, None
    assert spliced is not block and original is spliced
