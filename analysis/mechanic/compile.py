"""A designer's rule function, rewritten for the kernels and compiled by Numba.

The function is written as it reads: its inputs are plain integers, its parameters are
keyword arguments, and it returns an outcome label (an index into the declared labels,
or one of the label strings written in the return statement) and, when values are
declared, those values after it::

    def trait_roll(trait_die, wild, *, target):
        best = max(trait_die, wild)
        if best < target:
            return "failure", best - target
        ...

:func:`rewrite` turns its source (its syntax tree) into the kernels' form
``trait_roll(mem, trait, target)``: each read of an input becomes
``read(mem, i)`` (:func:`critlab.kernels.mechanic.read`, which lets the engines give an
input a value only when the rule first reads it), every declared parameter becomes a
positional argument in declaration order, and a label string in a return statement
becomes its index (string comparisons have no place in a trial loop). The line numbers
stay the file's own, so Numba's errors point at the designer's line, and
:func:`compile_rule` reports a failure as one line naming the function, the file and
the line.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import re
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critlab.analysis.mechanic.checks import MechanicError as MechanicError  # its home for callers
from critlab.analysis.mechanic.checks import check_no_random, check_no_recursion, where
from critlab.analysis.mechanic.choices import BEGIN, CHOOSE, POLICY, ChooseRewrite, Site, find_sites
from critlab.analysis.mechanic.division import as_load, checked_division, division_globals
from critlab.analysis.mechanic.loops import INTERRUPT as INTERRUPT  # re-exported: rules compiled
from critlab.analysis.mechanic.loops import MAX_LOOP_RUNS as MAX_LOOP_RUNS  # and cached earlier
from critlab.analysis.mechanic.loops import STOP_ARGUMENT, BoundLoops, LoopLimit, interruptible, rule_globals
from critlab.analysis.mechanic.loops import Interrupted as Interrupted  # name these classes here
from critlab.kernels import mechanic as km

_MEM = "_critlab_mem"
_READ = "_critlab_read"
_READ_POOL = "_critlab_read_pool"
# Methods that change an array in place: a pool is one roll, read-only.
_MUTATORS = frozenset("sort fill put resize itemset partition setfield byteswap".split())
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LOCATION = re.compile(r'File "([^"]+)", line (\d+)')


@dataclass(frozen=True)
class Rewritten:
    """The rule's rewritten code and where its source lives."""

    name: str
    filename: str
    line: int
    code: Any
    digest: str = ""  # the rewritten tree's hash, line numbers included (the cache's key)
    sites: tuple[Site, ...] = ()  # its choose calls (critlab.analysis.mechanic.choices)


@dataclass
class Compiled:
    """A rule compiled for the kernels: the njit rule (compiled on its own, which checks
    its types and what it returns), the drivers, and how long Numba took (seconds: the
    rule, then each driver's first call).

    The drivers inline the rule (Numba's ``inline="always"``: the trial loop keeps the
    stream in registers, measured 2-3x faster than a call); should Numba fail to inline a
    rule that compiles on its own, :func:`run_driver` falls back to drivers that call it.
    """

    rule: Any
    inlined: Any
    returns_tuple: bool
    n_params: int
    n_values: int
    seconds: float
    kernels: km.Kernels | None = None
    fell_back: bool = False
    cache: tuple[str, str] | None = None  # (folder, key) of the disk cache, or none
    # a choosing rule: its objective's value index (None: labels), and its solve walk
    objective: tuple[int | None] | None = None
    solve: Any = None
    interpreted: dict[str, Any] = field(default_factory=dict)  # its walks as Python (mechanic.walks)

    def __post_init__(self) -> None:
        self.kernels = km.make_kernels(
            self.inlined, self.n_params, self.n_values, self.returns_tuple, cache=self.cache
        )
        self._solver(self.inlined, "")

    def _solver(self, user: Any, tag: str) -> None:
        if self.objective is not None:
            from critlab.kernels.choices import make_solver

            self.solve = make_solver(
                user, self.n_params, self.returns_tuple, self.objective[0], cache=self.cache, tag=tag
            )

    def fall_back(self) -> None:
        self.kernels = km.make_kernels(
            self.rule, self.n_params, self.n_values, self.returns_tuple, cache=self.cache, tag="called_"
        )
        self._solver(self.rule, "called_")
        self.fell_back = True

    def driver(self, name: str) -> Any:
        """Driver ``name``: one of :class:`~critlab.kernels.mechanic.Kernels`, or ``solve``."""
        return self.solve if name == "solve" else getattr(self.kernels, name)

    def dispatchers(self) -> list[Any]:
        """The rule's and its drivers' Numba dispatchers (their ``stats`` count cache
        hits and misses)."""
        return [self.rule, *self.kernels, *([self.solve] if self.solve is not None else [])]


_where = where


def _source_tree(fn: Any) -> ast.FunctionDef:
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        raise MechanicError(
            f"{fn.__qualname__}: its source cannot be read; define the mechanic in a file or a notebook cell"
        ) from None
    tree = ast.parse(source)
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise MechanicError(f"{_where(fn)}: a mechanic is a plain function (def), not {type(node).__name__}")
    return node


def _check_signature(fn: Any, node: ast.FunctionDef, inputs: Sequence[str], params: Sequence[str]) -> None:
    a = node.args
    if a.vararg or a.kwarg:
        raise MechanicError(
            f"{_where(fn, node)}: a mechanic takes named inputs and parameters, not *args/**kwargs"
        )
    if a.defaults or any(d is not None for d in a.kw_defaults):
        raise MechanicError(
            f"{_where(fn, node)}: give parameter defaults in params=..., not in the signature"
        )
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    for name in names:
        if name not in inputs and name not in params:
            raise MechanicError(
                f"{_where(fn, node)}: argument {name!r} is neither an input ({', '.join(inputs)}) "
                f"nor a parameter ({', '.join(params) or 'none'})"
            )
    for name in inputs:
        if name not in names:
            raise MechanicError(f"{_where(fn, node)}: input {name!r} is declared but not an argument")


class _Rewrite(ast.NodeTransformer):
    """Input reads to ``read(mem, i)``; label strings in return statements to indices."""

    def __init__(
        self, fn: Any, inputs: Sequence[str], labels: Sequence[str], pools: Sequence[str] = ()
    ) -> None:
        self.fn, self.inputs, self.labels, self.pools = fn, list(inputs), list(labels), set(pools)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if isinstance(node.ctx, ast.Store | ast.Del) and isinstance(node.value, ast.Name):
            if node.value.id in self.pools:
                raise MechanicError(
                    f"{_where(self.fn, node)}: pool {node.value.id!r} is changed; a pool is one roll, "
                    "read-only: copy it (np.copy) to change it"
                )
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id in self.pools and node.attr in _MUTATORS:
            raise MechanicError(
                f"{_where(self.fn, node)}: pool {node.value.id!r} is changed by .{node.attr}(); a pool "
                "is one roll, read-only, and already sorted highest first: copy it (np.copy) to change it"
            )
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id.startswith("_critlab_"):
            raise MechanicError(f"{_where(self.fn, node)}: names starting with _critlab_ are reserved")
        if node.id not in self.inputs:
            return node
        if not isinstance(node.ctx, ast.Load):
            raise MechanicError(
                f"{_where(self.fn, node)}: input {node.id!r} is assigned to; an input is one roll, "
                "read-only: give the new value another name"
            )
        call = ast.Call(
            func=ast.Name(_READ_POOL if node.id in self.pools else _READ, ast.Load()),
            args=[ast.Name(_MEM, ast.Load()), ast.Constant(self.inputs.index(node.id))],
            keywords=[],
        )
        return ast.copy_location(call, node)

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        return checked_division(node.left, node.op, node.right, node) or node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        load = as_load(node.target)
        call = checked_division(load, node.op, node.value, node) if load is not None else None
        if call is None:
            return node
        return ast.copy_location(ast.Assign(targets=[node.target], value=call), node)

    def visit_Return(self, node: ast.Return) -> ast.AST:
        self.generic_visit(node)
        returned = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        for part in returned:
            if isinstance(part, ast.List | ast.ListComp | ast.Set | ast.SetComp | ast.Dict | ast.DictComp):
                raise MechanicError(
                    f"{_where(self.fn, part)}: returns a {type(part).__name__.removesuffix('Comp').lower()}; "
                    'return a label and the declared values as a tuple (return "hit", damage)'
                )
        if isinstance(node.value, ast.Tuple) and node.value.elts:
            node.value.elts[0] = self._label(node.value.elts[0])
        elif node.value is not None:
            node.value = self._label(node.value)
        return node

    def _label(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.IfExp):
            node.body, node.orelse = self._label(node.body), self._label(node.orelse)
            return node
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value not in self.labels:
                raise MechanicError(
                    f"{_where(self.fn, node)}: returns label {node.value!r}, which is not one of "
                    f"{', '.join(self.labels)}"
                )
            return ast.copy_location(ast.Constant(self.labels.index(node.value)), node)
        return node


def rewrite(
    fn: Any, inputs: Sequence[str], params: Sequence[str], labels: Sequence[str], pools: Sequence[str] = ()
) -> Rewritten:
    """``fn`` in the kernels' form ``fn(mem, *params)`` (see the module docstring).

    Every declared parameter is an argument, in declaration order; one that ``fn`` does
    not take (it only shapes an input's dice, e.g. a die's size) gets a name of its own.
    The inputs named in ``pools`` are read whole, as arrays.
    """
    node = _source_tree(fn)
    _check_signature(fn, node, inputs, params)
    check_no_random(fn, node)
    check_no_recursion(fn, node)
    takes = {x.arg for x in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    node.decorator_list = []
    node.returns = None
    sites = tuple(find_sites(fn, node, pools))
    node = _Rewrite(fn, inputs, labels, pools).visit(node)
    if sites:  # after the rewrite: the seen values' inputs are reads
        node = ChooseRewrite(fn, sites).visit(node)
    node = BoundLoops().visit(node)  # after the rewrite: its names are not the rule's own
    args = (
        [_MEM]
        + [p if p in takes else f"_critlab_unused_{i}" for i, p in enumerate(params)]
        + ([POLICY] if sites else [])
        + [STOP_ARGUMENT]
    )
    node.args = ast.arguments(
        posonlyargs=[], args=[ast.arg(a) for a in args], kwonlyargs=[], kw_defaults=[], defaults=[]
    )
    module = ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[]))
    digest = hashlib.sha256(ast.dump(module, include_attributes=True).encode()).hexdigest()
    code = compile(module, fn.__code__.co_filename, "exec")
    return Rewritten(
        fn.__qualname__, fn.__code__.co_filename, fn.__code__.co_firstlineno, code, digest, sites
    )


def _one_line(fn: Any, exc: Exception) -> str:
    """Numba's error as one line: the function, its file and line, and the reason."""
    text = _ANSI.sub("", str(exc))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    skip = ("Failed in", "During:", "File ", "Return of:")
    at = next((i for i, ln in enumerate(lines) if not ln.startswith(skip)), None)
    reason = type(exc).__name__ if at is None else lines[at]
    if at is not None and reason.endswith(":") and at + 1 < len(lines):  # "... for signature:" and the next
        reason = f"{reason} {lines[at + 1].lstrip('> ')}"
    if len(reason) > 240:
        reason = reason[:237] + "..."
    where = [(f, int(n)) for f, n in _LOCATION.findall(text)]
    own = [n for f, n in where if f == fn.__code__.co_filename]
    line = own[0] if own else (where[0][1] if where else fn.__code__.co_firstlineno)
    return f"{fn.__qualname__} ({fn.__code__.co_filename}, line {line}): Numba cannot compile it: {reason}"


def _returns(fn: Any, ret: Any, n_values: int, value_names: Sequence[str]) -> bool:
    """Whether the compiled rule returns a tuple; a clear error when its result is not
    a label and the declared values."""
    from numba.core import types

    def integer(t: Any) -> bool:
        return isinstance(t, (types.Integer, types.Boolean))

    wanted = "a label" + (f" and {', '.join(value_names)}" if n_values else "")
    if isinstance(ret, types.BaseTuple):
        parts = list(ret.types) if hasattr(ret, "types") else [ret.dtype] * ret.count
        if len(parts) != 1 + n_values:
            raise MechanicError(
                f"{_where(fn)}: returns {len(parts)} items; it should return {wanted} ({1 + n_values})"
            )
        if not isinstance(parts[0], types.Integer):
            raise MechanicError(f"{_where(fn)}: its label must be an index or a label string, got {parts[0]}")
        for name, t in zip(value_names, parts[1:], strict=True):
            if not integer(t):
                raise MechanicError(f"{_where(fn)}: value {name!r} must be an integer, got {t}")
        return True
    if isinstance(ret, types.Integer) and n_values == 0:
        return False
    if isinstance(ret, types.Optional) or ret == types.none:
        raise MechanicError(f"{_where(fn)}: returns nothing on some path; every path returns {wanted}")
    if isinstance(ret, (types.UnicodeType, types.StringLiteral)):
        raise MechanicError(
            f"{_where(fn)}: returns text; write a label as a string in the return statement "
            '(return "success", ...) or as an index'
        )
    raise MechanicError(f"{_where(fn)}: returns {ret}; it should return {wanted}")


def compile_rule(
    fn: Any,
    rewritten: Rewritten,
    params: Sequence[Any],
    value_names: Sequence[str],
    cache: tuple[str, str] | None = None,
    objective: tuple[int | None] | None = None,
) -> Compiled:
    """Compile the rewritten rule for parameters like ``params`` (their types), check
    what it returns, and build its drivers (compiled on their first call). With
    ``cache`` (a folder and a key, see :mod:`critlab.analysis.mechanic.cache`) the rule
    and its drivers are loaded from the disk cache when they are there, and written to it
    when they are compiled."""
    from numba import njit, typeof
    from numba.core.errors import NumbaError

    start = time.perf_counter()
    namespace = dict(fn.__globals__)
    if fn.__closure__:  # a mechanic defined inside a function: its free variables
        namespace.update(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__), strict=True))
    namespace[_READ] = km.read
    namespace[_READ_POOL] = km.read_pool
    if rewritten.sites:  # a choosing rule: its reads are recorded, its choices the kernels'
        from critlab.kernels import choices as kc

        namespace.update({_READ: kc.read_seen, _READ_POOL: kc.read_pool_seen, CHOOSE: kc.choose_at})
        namespace[BEGIN] = kc.begin
    namespace.update(division_globals())
    namespace.update(rule_globals())
    # Numba imports the module a cached function names when it loads it: one that any
    # process can import (a rules file's own module may not be loaded there yet)
    namespace["__name__"] = km.__name__
    exec(rewritten.code, namespace)
    py_rule = namespace[fn.__name__]
    rule = njit(**(km.cache_in(py_rule, *cache) if cache else km.cache_in(py_rule, None, "")))(py_rule)
    signature = (typeof(np.zeros(km.MEM_SIZE, np.int64)), *(typeof(p) for p in params))
    try:
        rule.compile(signature)
    except (NumbaError, TypeError, ValueError, LookupError) as exc:  # Numba's own, or its typing's
        raise MechanicError(_one_line(fn, exc)) from None
    ret = rule.overloads[rule.signatures[-1]].signature.return_type
    returns_tuple = _returns(fn, ret, len(value_names), value_names)
    inlined = njit(error_model="numpy", nogil=True, boundscheck=True, inline="always")(namespace[fn.__name__])
    seconds = time.perf_counter() - start
    return Compiled(
        rule, inlined, returns_tuple, len(params), len(value_names), seconds, cache=cache, objective=objective
    )


def raised_by_rule(fn: Any, exc: BaseException, *, surely: bool = False) -> MechanicError | None:
    """An exception that the rule ``fn`` itself raised (any kind: a RuntimeError, a failed
    assert, a ValueError), as one line naming the rule, its file and line; ``None`` for
    one raised elsewhere (or an interrupt), which is left as it is.

    Numba's compiled code puts the rule's frame (its name, file and line) in the
    traceback it raises; ``surely`` says the exception came out of the rule's compiled
    driver, so it is the rule's even without that frame. The line is the frame's when the
    frame is this file's (a compile cached from the same rule in another file has that
    file's lines), else the rule's first line.
    """
    if not isinstance(exc, Exception) or isinstance(exc, MechanicError | KeyboardInterrupt):
        return None
    import traceback

    file = fn.__code__.co_filename
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.name == fn.__name__]
    # a checked division (critlab.kernels.division) or a choice (critlab.kernels.choices) carries its line
    division = (
        isinstance(exc, ZeroDivisionError | RuntimeError) and len(exc.args) == 2 and type(exc.args[1]) is int
    )
    if not frames and not surely and not division:
        return None
    own = [f for f in frames if f.filename == file]
    line = exc.args[1] if division else own[-1].lineno if own else fn.__code__.co_firstlineno
    if isinstance(exc, LoopLimit):
        return MechanicError(f"{fn.__qualname__} ({file}, line {line}): {exc}")
    reason = " ".join(str(exc.args[0] if division else exc).split()) or "(no message)"
    if len(reason) > 240:
        reason = reason[:237] + "..."
    return MechanicError(
        f"{fn.__qualname__} ({file}, line {line}): the rule raised {type(exc).__name__}: {reason}"
    )


def run_driver(fn: Any, compiled: Compiled, name: str, *args: Any) -> Any:
    """Call driver ``name`` of ``compiled`` (its first call compiles it, and the time is
    added to ``compiled.seconds``); a Numba failure is reported as one line, after one
    try with drivers that call the rule instead of inlining it."""
    from numba.core.errors import NumbaError

    start = time.perf_counter()
    try:
        with interruptible():  # an exact walk can be long: Ctrl-C ends it
            try:
                return compiled.driver(name)(*args)
            except NumbaError as exc:
                if compiled.fell_back:
                    raise MechanicError(_one_line(fn, exc)) from None
                compiled.fall_back()
            try:
                return compiled.driver(name)(*args)
            except NumbaError as exc:
                raise MechanicError(_one_line(fn, exc)) from None
    except Exception as exc:
        own = raised_by_rule(fn, exc, surely=not isinstance(exc, (NumbaError, MechanicError)))
        if own is None:
            raise
        raise own from None
    finally:
        driver = compiled.driver(name)
        if not getattr(driver, "_critlab_timed", False) and driver.signatures:
            compiled.seconds += time.perf_counter() - start  # the first call: its compile
            driver._critlab_timed = True
