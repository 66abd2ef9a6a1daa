"""Finding a rule system by reference: ``path/to/rules.py:name`` or ``package.module:name``.

A designer's mechanic is named by the reference that finds it: one loaded from a file
by the file as the reference wrote it (``notebooks/examples/savage_worlds.py:
trait_roll``, which is what the command line's JSON reports), one defined in an
importable module by ``module:function``. :func:`resolve` is what
:func:`critlab.analysis.systems.get_system` calls for a name with a ``:``, so the
command line, sweeps, tune and reports all find such systems the same way.

What a reference finds tells its rule system itself, by one method:
``__rule_system__()`` returns the :class:`~critlab.analysis.systems.base.RuleSystem` it
stands for (a mechanic returns itself). So this module knows nothing of how a mechanic
is declared or compiled, and nothing in ``systems/`` imports ``mechanic/``.

A file is loaded as its own module (its folder first on ``sys.path`` while it runs, as
for a script); a module is imported from the installed packages, never from the current
folder (a file there is named as a file, ``./rules.py:f``). Either way the reference
runs that code: name only files and modules you trust. Systems registered in this
process are found by name without loading anything.

>>> told(object()) is None
True
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from critlab.analysis.spec_error import quoted
from critlab.analysis.systems.base import RuleSystem

# The commands whose next word is a SYSTEM.
SYSTEM_COMMANDS = ("exact", "simulate", "validate", "fight", "tune", "sensitivity")

_KNOWN: dict[str, RuleSystem] = {}
# module name of a loaded file -> (the file as the reference wrote it, its absolute path)
_FILES: dict[str, tuple[str, str]] = {}
# module name of a loaded file -> the file's modification time when it was loaded: a file
# edited since is loaded again (a designer changing the rules in a notebook session)
_STAMPS: dict[str, int] = {}


def _stamp(path: str | Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def told(obj: Any) -> RuleSystem | None:
    """The rule system ``obj`` stands for, by its ``__rule_system__()`` method, or ``None``
    when it tells none (a plain function, a number, a built-in system's module)."""
    tell = getattr(obj, "__rule_system__", None)
    if not callable(tell):
        return None
    system = tell()
    return system if isinstance(system, RuleSystem) else None


def _stale(system: Any) -> bool:
    # the spec class lives in the module of the rule that declared it
    module_name = system.spec.__module__
    if module_name not in _FILES:
        return False
    now = _stamp(_FILES[module_name][1])
    return now is not None and now != _STAMPS.get(module_name)


def is_reference(name: str) -> bool:
    """Whether a system name is a mechanic reference (it has a ``:``).

    >>> is_reference("rules.py:attack"), is_reference("thac0")
    (True, False)
    """
    return isinstance(name, str) and ":" in name


def register(system: Any) -> None:
    """Make a system found by reference (a mechanic) findable by its ``name`` and its
    loadable reference ``where``."""
    _KNOWN[system.name] = system
    _KNOWN[system.where] = system


def file_reference(fn: Any) -> tuple[str, str]:
    """``(name, where)`` of a function that declares a system: named by its file as the loading
    reference wrote it when it was loaded from a file, else ``module:function``;
    ``where`` loads it again from anywhere (an absolute path)."""
    written = _FILES.get(fn.__module__)
    if written is None:
        ref = f"{fn.__module__}:{fn.__qualname__}"
        return ref, ref
    return f"{written[0]}:{fn.__qualname__}", f"{written[1]}:{fn.__qualname__}"


def _split(ref: str) -> tuple[str, str]:
    target, _, func = ref.rpartition(":")
    if not target or not func.isidentifier():
        raise ValueError(
            f"bad mechanic reference {quoted(ref)}: "
            "write path/to/rules.py:function or package.module:function"
        )
    return target, func


def _is_file(target: str) -> bool:
    # a file that exists under the name is one (rules.txt:f), not a module to import
    return target.endswith(".py") or "/" in target or os.sep in target or Path(target).is_file()


def _load_file(target: str, path: Path | None = None) -> Any:
    """The module of file ``path`` (default: ``target``), its mechanics named by ``target``."""
    path = Path(target) if path is None else path
    if not path.is_file():
        raise ValueError(f"no file {target} (a mechanic reference is path/to/rules.py:function)")
    if path.suffix != ".py":
        raise ValueError(f"{target}: a mechanic file is Python source, its name ending in .py (rules.py:f)")
    key = f"{target}\0{path.resolve()}"
    module_name = "critlab_mechanic_" + hashlib.sha1(key.encode()).hexdigest()[:12]
    stamp = _stamp(path)
    if module_name in sys.modules and _STAMPS.get(module_name) == stamp:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    _FILES[module_name] = (target, str(path.resolve()))
    _STAMPS[module_name] = stamp
    sys.modules[module_name] = module
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:  # a null byte or a bad coding line has no line of its own
        del sys.modules[module_name]
        where = f", line {exc.lineno}" if exc.lineno else ""
        why = "the file is not UTF-8 text" if str(exc.msg).startswith("(unicode error)") else exc.msg
        raise ValueError(f"{target}{where}: not Python source: {why}") from None
    except ValueError:  # a mechanic declared wrongly, or a bad default: already one line
        del sys.modules[module_name]
        raise
    except Exception as exc:
        del sys.modules[module_name]
        raise ValueError(f"loading {target} failed: {type(exc).__name__}: {exc}") from None
    except SystemExit as exc:  # the file ends the program (sys.exit): its line, not critlab's exit
        del sys.modules[module_name]
        frames = traceback.extract_tb(exc.__traceback__)
        lines = [f.lineno for f in frames if Path(f.filename).resolve() == path.resolve()]
        at = f", line {lines[-1]}" if lines else ""
        raise ValueError(f"{target}{at}: the file calls sys.exit({exc.code!r}) when it is loaded") from None
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    return module


def _import(target: str) -> Any:
    """Import module ``target`` from the installed packages, never from the current
    folder: a module reference runs that module's code, and a folder someone else filled
    (a checkout, a download) must not decide what runs. A file there is named as a file
    (``./rules.py:f``). ``python -m`` and an interactive session put the current folder
    on ``sys.path``; it is left out while the module is found."""
    cwd = os.getcwd()
    kept = sys.path[:]
    sys.path[:] = [p for p in kept if os.path.abspath(p or ".") != cwd]
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        local = Path(*target.split(".")).with_suffix(".py")
        hint = f"; to run ./{local} from this folder, name the file: ./{local}:..." if local.is_file() else ""
        raise ValueError(f"cannot import {target}: {exc}{hint}") from None
    finally:
        sys.path[:] = kept


def resolve(ref: str, folder: str | Path | None = None) -> Any:
    """The rule system that ``ref`` names, loading its file or module when needed (a
    relative file from ``folder`` when it is there); a clear ValueError when there is none.
    A file edited since it was loaded is loaded again."""
    if ref in _KNOWN and not _stale(_KNOWN[ref]):
        return _KNOWN[ref]
    target, func = _split(ref)
    if _is_file(target):
        beside = None if folder is None or Path(target).is_absolute() else Path(folder) / target
        module = _load_file(target, beside if beside is not None and beside.is_file() else None)
    else:
        module = _import(target)
    obj = getattr(module, func, None)
    found = told(obj)
    if found is None:
        mechanics = [k for k, v in vars(module).items() if told(v) is not None]
        if obj is None:
            listed = f"; its mechanics: {', '.join(mechanics)}" if mechanics else "; it declares no mechanic"
            raise ValueError(f"{target} defines no {quoted(func)}{listed}")
        raise ValueError(f"{ref}: {func} is not a mechanic (decorate it with @mechanic)")
    _KNOWN[ref] = found
    return found


def resolve_from(ref: str, folder: str | Path) -> Any:
    """The rule system ``ref`` names, a relative file path read from ``folder`` when the
    file is there (a report configuration's folder), else as :func:`resolve` reads it."""
    return resolve(ref, folder)


def systems_in_argv(argv: Sequence[str]) -> list[Any]:
    """The system a command line names by reference as its SYSTEM (``critlab exact rules.py:f ...``),
    so the command line can give it its parameters' flags; none for a built-in."""
    argv = list(argv)
    if (
        len(argv) >= 2
        and argv[0] in SYSTEM_COMMANDS
        and is_reference(argv[1])
        and not argv[1].startswith("-")
    ):
        return [resolve(argv[1])]
    return []
