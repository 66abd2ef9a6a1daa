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
The expression interpreter (:func:`critlab.kernels.dice.roll_expr`) is the exception: it
is compiled once and called, its stream passed by value so the caller's stays in
registers. Inlined at each of its sites it cost 4x the compile time (a fight's and an
encounter's first simulation: 208 CPU s against 51) for about 20% on an interpreted roll.
Numba's inliner itself is made to copy a callee once per inlining, not once per block
(:mod:`critlab.kernels.inlining`: a third of the compile time of an encounter).

The cache: Numba keys a cached kernel on its own source file only, so a kernel that
inlines a helper from another module would keep running the old helper after that
module changed (after a ``git pull``, or an upgrade that leaves the kernel's own file as
it was). Every critlab kernel's cache is therefore stamped with :data:`SOURCES_STAMP`,
a hash of every source file in this folder (and its ``vocab/`` package, whose
vocabularies and argument tuples the kernels compile in) as well: any change to any of them compiles
the kernels again on their next call. ``make clean-cache`` only frees the disk.
"""

from __future__ import annotations

import hashlib
import importlib
import threading
import types as pytypes
from pathlib import Path
from typing import Any

from numba import njit
from numba.core import caching

from critlab.kernels.flags import install as install_flags
from critlab.kernels.inlining import install as install_inlining

JIT_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}
_MARK = "__critlab_kernel__"


def sources_stamp(folder: Path) -> str:
    """A hash of every ``*.py`` file in ``folder`` and its sub-folders, names and contents.

    >>> len(sources_stamp(Path(__file__).parent))
    64
    """
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        name = path.relative_to(folder).as_posix()
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


SOURCES_STAMP = sources_stamp(Path(__file__).parent)
"""The stamp every kernel's cache carries beside its own file's (see the module docstring)."""


class _Stamped:
    """A Numba cache locator that claims critlab's kernels only, and stamps their caches
    with :data:`SOURCES_STAMP` as well as their own file's hash."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if not getattr(py_func, _MARK, False):
            return None
        return super().from_function(py_func, py_file)

    def get_source_stamp(self):
        return (super().get_source_stamp(), SOURCES_STAMP)


def _stamped_locators() -> list[type]:
    """Stamped versions of Numba's own locators, in Numba's order of preference (the
    directory of ``NUMBA_CACHE_DIR``, the source's ``__pycache__``, the user's cache)."""
    names = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")
    found = [getattr(caching, n, None) or getattr(caching, "_" + n, None) for n in names]
    return [type("Stamped" + base.__name__.lstrip("_"), (_Stamped, base), {}) for base in found if base]


def _register() -> None:
    """Put the stamped locators first in Numba's list (once per process). Where Numba's
    cache internals are not as expected the kernels keep Numba's own per-file stamp."""
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if not isinstance(classes, list) or any(issubclass(c, _Stamped) for c in classes):
        return
    classes[:0] = _stamped_locators()


_register()
install_inlining()  # every kernel compiles with it: see critlab.kernels.inlining
install_flags()  # the flags of every typed call compared in one pass: see critlab.kernels.flags


def mark(f):
    """Mark ``f`` as a critlab kernel, for the stamped cache locators above (what
    :func:`kernel` does; a ``cfunc`` is marked so before it is compiled)."""
    setattr(f, _MARK, True)
    return f


def kernel(fn=None, /, **extra):
    """Decorate a function as a critlab kernel (``@kernel`` or ``@kernel(inline="always")``)."""

    def wrap(f):
        return njit(**JIT_OPTIONS, **extra)(mark(f))

    return wrap(fn) if fn is not None else wrap


def bind(template, name: str | None = None, /, **names):
    """A copy of the function ``template`` whose global ``names`` are bound to the given
    objects, named ``name`` (default: the template's own name).

    The one way a kernel is specialised: the copy is compiled as a kernel of its own
    (``kernel(bind(...))``), Numba reading the bound objects (other kernels, constants) as
    the globals they replace. The name is the compiled copy's cache file name, so two
    specialisations of one template cached side by side need two names.

    >>> def f():
    ...     return step() + 1
    >>> g = bind(f, "f_two", step=lambda: 2)
    >>> g(), g.__qualname__
    (3, 'f_two')
    """
    name = name or template.__name__
    fn = pytypes.FunctionType(
        template.__code__,
        {**template.__globals__, **names},
        name,
        template.__defaults__,
        template.__closure__,
    )
    fn.__qualname__ = name
    fn.__doc__ = template.__doc__
    fn.__module__ = template.__module__
    return fn


class Paths:
    """A block compiled once per path it takes, each path only when first run.

    ``template`` is the block's code (a plain function, not a kernel) in which the global
    ``PATH`` names the path: ``if PATH == JOINT:`` and the like, each path's name a global
    string of the module. Numba reads a bound global as a constant and drops the branches
    it rules out before typing them, so a path's kernel compiles its own code only (the
    helpers of another path, the dice interpreter among them, are never typed). ``path_of``
    reads the kernel's arguments in Python and names their path; each path is
    :func:`bind`'s copy of the template (named ``<name>_<path>``, its own cache file),
    compiled by :func:`kernel` on first use.

    Why (measured on a first ``critlab simulate`` from an empty cache): one block holding
    every mode compiled each of them, the interpreter included, for a simulation that ran
    one: crit-range's first simulation of a simple weapon compiled 25 s where its own path
    needs a fraction of that.

    A path whose code is a kernel of its own already, taking the block's arguments
    (``kernels={path: kernel}``), runs that kernel itself: a template's copy that only
    called it would be one more function to compile (a third of a second each, measured
    on the first compile of a contest's three kinds). Where every path has its kernel,
    ``template`` is ``None``.

    Called like the block it stands for, ``paths(state, n, out, layout, args)``; pickled
    by its module and name, so a cluster's workers use their own copy.
    """

    def __init__(
        self, template, path_of, *, paths: tuple[str, ...], name: str = "block", kernels: dict | None = None
    ) -> None:
        kernels = dict(kernels or {})
        unknown = set(kernels) - set(paths)
        if unknown:
            raise ValueError(f"{name}: kernels for paths it does not have: {', '.join(sorted(unknown))}")
        if template is None and set(kernels) != set(paths):
            raise ValueError(f"{name}: without a template every path needs its kernel")
        self.template, self.path_of, self.paths, self.name = template, path_of, paths, name
        # read as a dispatcher's: the module its rules live in
        self.py_func = template if template is not None else next(iter(kernels.values())).py_func
        self.__module__ = self.py_func.__module__
        self.__doc__ = template.__doc__ if template is not None else None
        self._kernels: dict[str, Any] = kernels
        self._lock = threading.Lock()

    def of(self, args: Any) -> Any:
        """The compiled kernel (a Numba dispatcher) of ``args``'s path."""
        path = self.path_of(args)
        with self._lock:
            found = self._kernels.get(path)
            if found is None:
                if path not in self.paths:
                    raise ValueError(f"{self.name}: no path {path!r}; paths: {', '.join(self.paths)}")
                found = kernel(bind(self.template, f"{self.name}_{path}", PATH=path))
                self._kernels[path] = found
        return found

    def __call__(self, state, n, out, layout, args) -> None:
        self.of(args)(state, n, out, layout, args)

    def __reduce__(self):
        return (_module_attribute, (self.__module__, self.name))


def _module_attribute(module: str, name: str) -> Any:
    """``module.name``, imported (how a :class:`Paths` is unpickled)."""
    return getattr(importlib.import_module(module), name)


def compiled_for(block: Any, args: Any) -> Any:
    """The kernel that runs ``block`` on ``args``: its path's where ``block`` is a
    :class:`Paths` (or refers to one), else ``block`` itself (what is asked whether it
    must compile)."""
    of = getattr(block, "of", None)  # a Paths, or a KernelRef to one
    return of(args) if callable(of) else block
