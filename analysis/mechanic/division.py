"""A designer's rule's divisions, rewritten to checked ones: a division by zero in a rule
raises ``ZeroDivisionError`` naming the rule's file and line, exact and simulated, as the
rule run by hand in Python does (see :mod:`critlab.kernels.division`: the drivers' numpy
error model would make an integer ``//`` or ``%`` by zero 0, silently). A division by a
nonzero constant is left as it is (it needs no check, so it costs nothing); measured on a
rule dividing by an input in every trial (``python -m benchmarks.own_mechanics``, checked
against unchecked, medians on one thread of the busy 2-core machine), 0.97x and 1.14x in
two runs: within its noise.

>>> import ast
>>> ast.unparse(checked_division(ast.Name("a"), ast.FloorDiv(), ast.Name("b"), ast.Name("a", lineno=7)))
'_critlab_floordiv(_critlab_mem, a, b, 7)'
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from critlab.kernels import division as kd

MEM = "_critlab_mem"  # the rewritten rule's first argument (critlab.analysis.mechanic.compile)
# The rule's divisions, checked: the operator, the name of its checked form in the rule's namespace
DIVISIONS = {ast.FloorDiv: "_critlab_floordiv", ast.Mod: "_critlab_mod", ast.Div: "_critlab_truediv"}


def division_globals() -> dict[str, Any]:
    """The checked divisions by the names the rewritten rule calls them."""
    return {
        DIVISIONS[ast.FloorDiv]: kd.checked_floordiv,
        DIVISIONS[ast.Mod]: kd.checked_mod,
        DIVISIONS[ast.Div]: kd.checked_truediv,
    }


def checked_division(left: ast.expr, op: ast.operator, right: ast.expr, at: ast.AST) -> ast.expr | None:
    """``left op right`` as a checked division when ``op`` divides by anything but a
    nonzero constant (which needs no check, so costs nothing), else None."""
    name = DIVISIONS.get(type(op))
    if name is None:
        return None
    if isinstance(right, ast.Constant) and type(right.value) in (int, float) and right.value != 0:
        return None
    call = ast.Call(
        func=ast.Name(name, ast.Load()),
        args=[ast.Name(MEM, ast.Load()), left, right, ast.Constant(at.lineno)],
        keywords=[],
    )
    return ast.copy_location(call, at)


def as_load(target: ast.expr) -> ast.expr | None:
    """An augmented assignment's target read (``x`` of ``x //= y``; a subscript's too)."""
    if isinstance(target, ast.Name):
        return ast.copy_location(ast.Name(target.id, ast.Load()), target)
    if isinstance(target, ast.Subscript | ast.Attribute):
        node = copy.deepcopy(target)
        node.ctx = ast.Load()
        return node
    return None
