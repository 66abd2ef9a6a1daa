"""A designer's rule's loops, bounded and interruptible.

A rule is compiled code that runs without returning to Python, so a loop that never ends
(``while True``, or ``while x > 0`` where x never falls) would hang the exact walk and the
simulation alike, and not even a Ctrl-C would stop it. :class:`BoundLoops` rewrites the
rule's syntax tree (:func:`critlab.analysis.mechanic.compile.rewrite` calls it) so that
each iteration of a counted loop adds one to a counter and raises :class:`LoopLimit`
past :data:`MAX_LOOP_RUNS` in one run of the rule, and reads a stop flag
(:data:`INTERRUPT`) that :func:`interruptible` sets at a Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import ast
import os
import signal
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numba.core import types
from numba.extending import intrinsic

# The most loop iterations one run of a rule may take, all of its loops together (every
# ``while`` and every ``for`` over a ``range`` that is not a short literal one): a work
# bound in iterations, not seconds, so that the same rule stops at the same place on any
# machine. A rule is run once per trial (and once per input it reads); 10^6 iterations
# are about a millisecond of compiled work, thousands of times what any table rule needs,
# and a rule that reaches them is stuck in a loop that does not end (``while True``, or
# ``while x > 0`` where x never falls), stopped with one line instead of hanging.
MAX_LOOP_RUNS = 10**6
# A ``for`` over a literal range this short needs no counter: its length is in its text.
_SHORT_RANGE = 1000
_STEPS = "_critlab_steps"
_LOOP_LIMIT = "_critlab_loop_limit"
_STOP = "_critlab_stop"
_INTERRUPTED = "_critlab_interrupted"
_FLAG = "_critlab_flag"
# The rule's last argument, which its counted loops read (once in _POLL iterations): 1
# once a Ctrl-C or SIGTERM arrived during a run (see interruptible).
# Compiled code that never returns to Python cannot see a signal any other way.
INTERRUPT = np.zeros(1, dtype=np.int64)


class LoopLimit(RuntimeError):
    """Raised by a rule's compiled code when its loops run past :data:`MAX_LOOP_RUNS`
    iterations in one run (:func:`critlab.analysis.mechanic.compile.raised_by_rule` makes
    it one line naming the loop's file and line)."""


@intrinsic
def read_flag(typingctx: Any, flag: Any) -> Any:
    """``flag[0]`` read from memory each time (an atomic, relaxed load), in compiled code.

    A plain read of an array that the loop does not write is hoisted out of the loop by
    the compiler, so that a loop would never see the flag change; measured: a counting
    loop set to stop from another thread ran on, and stops within a millisecond with this.
    """

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.load_atomic(array.data, "monotonic", 8)

    return types.int64(flag), codegen


class Interrupted(Exception, KeyboardInterrupt):
    """Raised by a rule's compiled code when :data:`INTERRUPT` is set: a
    ``KeyboardInterrupt`` (what a Ctrl-C is everywhere), and an ``Exception`` too, the only
    kind Numba's compiled code can raise."""


def _watch(read_fd: int, previous: int) -> None:
    """Set :data:`INTERRUPT` at each SIGINT or SIGTERM the signal module writes to
    ``read_fd`` (its wakeup file), passing the bytes on to ``previous``; a 0 byte ends it."""
    wanted = {signal.SIGINT, signal.SIGTERM}
    while True:
        data = os.read(read_fd, 64)
        if any(b in wanted for b in data):
            INTERRUPT[0] = 1
        if previous >= 0 and data.strip(b"\0"):
            try:
                os.write(previous, data.strip(b"\0"))
            except OSError:  # the previous reader's pipe is full or gone: the signal still lands
                pass
        if not data or 0 in data:
            return


_watching = [0]  # how many interruptible() blocks are open (the outermost one watches)


@contextmanager
def interruptible() -> Iterator[None]:
    """Compiled rules run meanwhile end promptly at a Ctrl-C or SIGTERM, with
    ``KeyboardInterrupt``.

    A signal's Python handler runs only when the main thread runs Python, and a compiled
    block or exact walk does not return to Python until it is done: a rule whose loops are
    bounded but long would hold a Ctrl-C for minutes. The signal module also writes each
    signal's number to a wakeup file at once, from the signal itself; a thread watching it
    sets :data:`INTERRUPT`, which the rule's counted loops read once in 1024 iterations,
    raising :class:`Interrupted`. Off the main thread (where signals are not handled)
    or where the wakeup file cannot be set, nothing changes.

    >>> with interruptible():
    ...     int(INTERRUPT[0])
    0
    """
    if _watching[0] or os.name != "posix" or threading.current_thread() is not threading.main_thread():
        yield
        return
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)  # the signal handler never waits for the watcher
    try:
        previous = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    except (ValueError, OSError):  # pragma: no cover - another thread or an odd interpreter
        os.close(read_fd)
        os.close(write_fd)
        yield
        return
    INTERRUPT[0] = 0
    watcher = threading.Thread(target=_watch, args=(read_fd, previous), name="critlab-interrupt", daemon=True)
    watcher.start()
    _watching[0] += 1
    try:
        yield
    except Interrupted:
        raise KeyboardInterrupt from None
    finally:
        _watching[0] -= 1
        signal.set_wakeup_fd(previous, warn_on_full_buffer=False)
        os.set_blocking(write_fd, True)
        os.write(write_fd, b"\0")
        watcher.join()
        os.close(read_fd)
        os.close(write_fd)
        INTERRUPT[0] = 0  # a rule run outside (an encounter's, by hand) is not stopped by it


_LIMIT_MESSAGE = (
    f"its loops ran past {MAX_LOOP_RUNS:,} iterations in one run of the rule, the most one run may "
    "take: a loop that never ends (while True, or a condition that never turns false) stops here"
)


def _counted(loop: ast.While | ast.For) -> bool:
    """Whether ``loop`` gets an iteration counter: every ``while``, and a ``for`` over a
    ``range`` unless its arguments are integer literals and it is short (a ``for`` over a
    pool or a tuple is as long as they are)."""
    if isinstance(loop, ast.While):
        return True
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
        return False
    if it.keywords or not all(isinstance(a, ast.Constant) and type(a.value) is int for a in it.args):
        return True
    try:
        return len(range(*(a.value for a in it.args))) > _SHORT_RANGE
    except (TypeError, ValueError):  # a malformed range: left for Numba to refuse
        return False


# A loop reads the stop flag once in this many iterations (about a microsecond of work).
# Measured on a rule halving a d100 (a few iterations a trial, one thread): a read in
# every iteration and one where each run of the rule starts cost 27% of its simulation
# speed (13.9 -> 10.2 M trials/s), the read at each start alone about 20%; once in 1024
# iterations, nothing measurable. A loop of fewer iterations ends within its trial, and a
# block of such trials returns to Python within a second or so.
_POLL = 1024
_STOP_CHECK = f"if {_FLAG}({_STOP}) != 0:\n    raise {_INTERRUPTED}('interrupted')\n"


class BoundLoops(ast.NodeTransformer):
    """Every counted loop (:func:`_counted`) of a function, and of the functions defined
    in it, starts each iteration by adding one to the function's counter and raising
    :class:`LoopLimit` past :data:`MAX_LOOP_RUNS`; the counter is set to 0 where the
    function starts. The new statements carry the loop's line, which the error names.
    A ``while True`` becomes ``while counter >= 0`` (as true, but not a constant), so
    that the compiler keeps the code after it and the rule's return type stays its own.

    The rule itself (not a function defined in it) also reads its stop flag (its last
    argument, :data:`INTERRUPT`) once in 1024 iterations of each counted loop, and raises
    :class:`Interrupted` when it is set."""

    def __init__(self) -> None:
        self.counted: list[bool] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.counted.append(False)
        self.generic_visit(node)
        first = node.body[0]
        if self.counted.pop():
            init = ast.Assign(targets=[ast.Name(_STEPS, ast.Store())], value=ast.Constant(0))
            node.body.insert(0, _at(init, first))
        return node

    def _loop(self, node: ast.While | ast.For) -> ast.AST:
        self.generic_visit(node)
        if not self.counted or not _counted(node):
            return node
        self.counted[-1] = True
        guard = ast.parse(
            f"{_STEPS} += 1\nif {_STEPS} > {MAX_LOOP_RUNS}:\n    raise {_LOOP_LIMIT}({_LIMIT_MESSAGE!r})\n"
            + (
                f"if {_STEPS} & {_POLL - 1} == 0:\n" + textwrap.indent(_STOP_CHECK, "    ")
                if len(self.counted) == 1
                else ""
            )
        ).body
        node.body[:0] = [_at(stmt, node) for stmt in guard]
        if isinstance(node, ast.While) and isinstance(node.test, ast.Constant) and node.test.value:
            test = ast.Compare(ast.Name(_STEPS, ast.Load()), [ast.GtE()], [ast.Constant(0)])
            node.test = _at(test, node.test)
        return node

    visit_While = _loop
    visit_For = _loop


def _at(new: ast.AST, where: ast.AST) -> Any:
    """``new`` and everything in it placed at ``where``'s line."""
    for sub in ast.walk(new):
        if "lineno" in sub._attributes:
            sub.lineno = sub.end_lineno = where.lineno
            sub.col_offset = sub.end_col_offset = where.col_offset
    return new


STOP_ARGUMENT = _STOP


def rule_globals() -> dict[str, Any]:
    """The names the rewritten rule's guards use, for its namespace."""
    return {_LOOP_LIMIT: LoopLimit, _INTERRUPTED: Interrupted, _FLAG: read_flag}
