"""Choices in a designer's rule: ``choose(NAME, OPTIONS, *seen)``, declared and rewritten.

A rule decides after seeing dice (push or stand, reroll or keep, spend now or later)::

    @mechanic(labels=("done",), values=("value",), inputs={"a": "1d6", "b": "1d6"},
              objective="mean:value")
    def reroll_once(a, b):
        if choose("keep", ("stand", "reroll"), a) == "stand":
            return "done", a
        return "done", b

``NAME`` is a short identifier, unique in the rule; ``OPTIONS`` a tuple (or list) of 2..16
different integers or strings, written in the call or a module-level constant; ``seen``
up to 8 integer values the rule read or computed before choosing, shown in the policy
(the choice may depend on every input read so far, whatever ``seen`` says). A rule that
chooses declares its ``objective``: ``"hit+crit"`` (the probability of these labels) or
``"mean:damage"`` (the expected value of a declared value).

Called by hand (``reroll_once(3, 5)``), ``choose`` takes the first option. In the engines
the call is rewritten (:class:`ChooseRewrite`) to the kernels' choice
(:func:`critlab.kernels.choices.choose_at`), which the exact walk solves and the
simulation follows (:mod:`critlab.analysis.mechanic.policy`).

>>> choose("keep", ("stand", "reroll"), 3)
'stand'
>>> parse_objective("hit+crit", ("miss", "hit", "crit"), ()).labels
(1, 2)
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from critlab.analysis.mechanic.checks import MechanicError, where
from critlab.kernels.mechanic import MAX_OPTIONS, MAX_SEEN

MEM = "_critlab_mem"
POLICY = "_critlab_policy"  # the rewritten rule's argument holding the spec's policy
CHOOSE = "_critlab_choose"
BEGIN = "_critlab_begin"


def choose(name: str, options: Sequence[Any], *seen: Any) -> Any:
    """A decision the rule makes after seeing dice (see the module docstring): the option
    the best play takes, solved exactly over the rule; called by hand, the first option.

    >>> choose("power", (0, 1))
    0
    """
    return options[0]


@dataclass(frozen=True)
class Objective:
    """What a choosing rule's choices maximise: the probability of ``labels`` (their
    indices) or the mean of value ``value`` (its index)."""

    text: str
    labels: tuple[int, ...] | None = None
    value: int | None = None


def parse_objective(text: Any, labels: Sequence[str], values: Sequence[str]) -> Objective:
    """``"hit+crit"`` or ``"mean:damage"`` read against the declaration; a one-line error
    naming what is allowed."""
    allowed = f"labels joined by + ({'+'.join(labels)}) or mean:VALUE ({', '.join(values) or 'no values'})"
    if not isinstance(text, str) or not text.strip():
        raise MechanicError(f"objective={text!r}: give {allowed}")
    text = text.strip()
    if text.startswith("mean:"):
        name = text[5:].strip()
        if name not in values:
            raise MechanicError(f"objective={text!r}: {name!r} is not a declared value; give {allowed}")
        return Objective(text, value=tuple(values).index(name))
    parts = [p.strip() for p in text.split("+")]
    if any(p not in labels for p in parts) or len(set(parts)) < len(parts):
        raise MechanicError(f"objective={text!r}: give {allowed}, each label once")
    return Objective(text, labels=tuple(sorted(tuple(labels).index(p) for p in parts)))


@dataclass(frozen=True)
class Site:
    """One ``choose`` call of a rule: its name, options, the seen values' source text and
    its line."""

    name: str
    options: tuple[Any, ...]
    seen: tuple[str, ...]
    line: int


def _is_choose(fn: Any, func: ast.expr, local: set[str]) -> bool:
    """Whether ``func`` names this module's :func:`choose` (by any name or attribute)."""

    def resolve(n: ast.AST) -> Any:
        if isinstance(n, ast.Name):
            if n.id in local:
                return None
            free = dict(zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True))
            if n.id in free:
                try:
                    return free[n.id].cell_contents
                except ValueError:
                    return None
            return fn.__globals__.get(n.id)
        if isinstance(n, ast.Attribute):
            base = resolve(n.value)
            return getattr(base, n.attr, None) if inspect.ismodule(base) else None
        return None

    return resolve(func) is choose


def _options(fn: Any, node: ast.expr) -> tuple[Any, ...]:
    try:
        given = ast.literal_eval(node)
    except ValueError:
        given = fn.__globals__.get(node.id) if isinstance(node, ast.Name) else None
    ok = isinstance(given, tuple | list) and 2 <= len(given) <= MAX_OPTIONS
    if ok:
        kinds = {type(o) for o in given}
        ok = (kinds == {int} or kinds == {str}) and len(set(given)) == len(given)
    if not ok:
        raise MechanicError(
            f"{where(fn, node)}: choose's OPTIONS are a tuple of 2..{MAX_OPTIONS} different integers or "
            f"strings, written in the call or a module constant, got {ast.unparse(node)}"
        )
    return tuple(given)


def find_sites(fn: Any, node: ast.FunctionDef, pools: Sequence[str]) -> list[Site]:
    """Every ``choose`` call of the rule, checked (name, options, seen values), in the
    order they are written."""
    local = {x.arg for x in ast.walk(node.args) if isinstance(x, ast.arg)}
    local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    sites: list[Site] = []
    calls = [c for c in ast.walk(node) if isinstance(c, ast.Call) and _is_choose(fn, c.func, local)]
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        at = where(fn, call)
        if call.keywords or len(call.args) < 2 or any(isinstance(a, ast.Starred) for a in call.args):
            raise MechanicError(f"{at}: call choose(NAME, OPTIONS, *seen), its arguments in that order")
        name_node, options_node, *seen = call.args
        name = name_node.value if isinstance(name_node, ast.Constant) else None
        if not isinstance(name, str) or not name.isidentifier() or len(name) > 32:
            raise MechanicError(
                f"{at}: choose's NAME is a short identifier in quotes, got {ast.unparse(name_node)}"
            )
        if any(s.name == name for s in sites):
            raise MechanicError(
                f"{at}: choice {name!r} is made at two places; give each choose a name of its own"
            )
        if len(seen) > MAX_SEEN:
            raise MechanicError(f"{at}: choice {name!r} sees {len(seen)} values; at most {MAX_SEEN}")
        for s in seen:
            if isinstance(s, ast.Name) and s.id in pools:
                raise MechanicError(
                    f"{at}: choice {name!r} sees pool {s.id!r}; seen values are integers (a pool read "
                    "before the choice is always part of what it depends on)"
                )
        sites.append(Site(name, _options(fn, options_node), tuple(ast.unparse(s) for s in seen), call.lineno))
    return sites


class ChooseRewrite(ast.NodeTransformer):
    """Each ``choose(NAME, OPTIONS, *seen)`` of ``sites`` to ``OPTIONS[_critlab_choose(mem,
    policy, site, n, line, seen..., 0...)]``; the rule starts with ``_critlab_begin(mem)``."""

    def __init__(self, fn: Any, sites: Sequence[Site]) -> None:
        self.fn, self.sites = fn, {(s.line, s.name): i for i, s in enumerate(sites)}
        self.options = [s.options for s in sites]
        self.depth = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        if self.depth == 0:
            begin = ast.Expr(ast.Call(ast.Name(BEGIN, ast.Load()), [ast.Name(MEM, ast.Load())], []))
            node.body.insert(0, ast.copy_location(begin, node.body[0]))
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        first = node.args[0] if node.args else None
        key = (node.lineno, first.value if isinstance(first, ast.Constant) else None)
        if key not in self.sites:
            return node
        i = self.sites[key]
        seen = list(node.args[2:]) + [ast.Constant(0)] * (MAX_SEEN - len(node.args[2:]))
        call = ast.Call(
            ast.Name(CHOOSE, ast.Load()),
            [
                ast.Name(MEM, ast.Load()),
                ast.Name(POLICY, ast.Load()),
                ast.Constant(i),
                ast.Constant(len(self.options[i])),
                ast.Constant(node.lineno),
                *seen,
            ],
            [],
        )
        out = ast.Subscript(ast.Constant(self.options[i]), call, ast.Load())
        return ast.fix_missing_locations(ast.copy_location(out, node))
