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
