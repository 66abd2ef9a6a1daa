"""What a rule may not do, refused when its mechanic is declared, in one line naming the
rule's file and line: draw its own random numbers, or call itself."""

from __future__ import annotations

import ast
import inspect
from typing import Any


class MechanicError(ValueError):
    """A mechanic that cannot be declared, compiled or computed: one line naming it."""


class ExactTooLarge(MechanicError):
    """The exact engine refuses a mechanic (too many combinations or value bins)."""


def where(fn: Any, node: ast.AST | None = None) -> str:
    """``rule (file, line N)``: the rule and the line of ``node`` (default: its first)."""
    line = getattr(node, "lineno", None) or fn.__code__.co_firstlineno
    return f"{fn.__qualname__} ({fn.__code__.co_filename}, line {line})"


# Modules whose functions draw random numbers: a rule that calls one is not a function of
# its inputs, so its "exact" answer would be one random draw and its simulation unseeded.
_RANDOM_MODULES = ("random", "secrets", "numpy.random")


def _random_source(obj: Any) -> bool:
    """A random module, one of its functions, or a generator (``np.random.default_rng()``)."""
    names = [obj.__name__] if inspect.ismodule(obj) else [getattr(obj, "__module__", None)]
    names.append(type(obj).__module__)
    return any(
        isinstance(name, str) and any(name == m or name.startswith(m + ".") for m in _RANDOM_MODULES)
        for name in names
    )


def check_no_random(fn: Any, node: ast.FunctionDef) -> None:
    """Refuse, when the mechanic is declared, a rule that names a random generator of its
    own (``random.randint``, ``np.random.integers``, a ``from random import`` name): the
    rule's dice are its declared inputs."""
    local = {x.arg for x in ast.walk(node.args) if isinstance(x, ast.arg)}
    local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def resolve(n: ast.AST) -> Any:
        if isinstance(n, ast.Name):
            return None if n.id in local else fn.__globals__.get(n.id)
        if isinstance(n, ast.Attribute):
            base = resolve(n.value)
            return getattr(base, n.attr, None) if inspect.ismodule(base) else None
        return None

    for sub in ast.walk(node):
        if isinstance(sub, ast.Name | ast.Attribute):
            obj = resolve(sub)
            if obj is not None and _random_source(obj):
                raise MechanicError(
                    f"{where(fn, sub)}: the rule draws its own random numbers ({ast.unparse(sub)}); "
                    "declare its dice as inputs, which the exact walk enumerates and the simulation rolls"
                )


def check_no_recursion(fn: Any, node: ast.FunctionDef) -> None:
    """Refuse a rule that calls itself: its depth would be bounded by nothing (the loop
    bound counts iterations, not calls), and Numba compiles no call to the declared
    mechanic; a repetition is a loop."""
    local = {x.arg for x in ast.walk(node.args) if isinstance(x, ast.arg)}
    local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if fn.__name__ in local:
        return
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == fn.__name__:
            raise MechanicError(
                f"{where(fn, sub)}: the rule calls itself ({fn.__name__}(...)); a mechanic is one run "
                "of its rule: write the repetition as a loop"
            )
