"""Stopping a run from outside, as Ctrl-C stops it: while :func:`interrupts_end_the_run`
holds, SIGTERM (a cancelled CI job, ``kill``) raises :class:`KeyboardInterrupt` in the main
thread, and an interrupt that a library's callback swallowed is raised again, so the
command line removes its staging folders, prints one line and exits 130.

>>> with interrupts_end_the_run():
...     pass
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def _terminated(signum: int, frame: object) -> None:
    # workers stopped, staging folders removed, one line and exit 130: never dying mid-write
    raise KeyboardInterrupt


def _interrupt_again(unraisable: Any) -> None:
    # An interrupt that lands inside a library's callback (the JIT compiler's cache notice,
    # called through ctypes) is "ignored" by the interpreter and the run would go on to the
    # end. Swallow the notice and interrupt the main thread once more, from a timer thread
    # (here it would land in the callback again): it lands a moment later, outside it.
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        import _thread

        again = threading.Timer(0.01, _thread.interrupt_main)
        again.daemon = True
        again.start()
        return
    sys.__unraisablehook__(unraisable)


def _sigterm_as_interrupt() -> object | None:
    """Route SIGTERM to :func:`_terminated`; the previous handler (``None`` where it is not
    the default, or off the main thread: left alone)."""
    try:
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return None
        return signal.signal(signal.SIGTERM, _terminated)
    except ValueError:
        return None


@contextmanager
def interrupts_end_the_run() -> Iterator[None]:
    """SIGTERM and swallowed interrupts raised as :class:`KeyboardInterrupt` inside the
    block; the previous handlers back after it."""
    previous = _sigterm_as_interrupt()
    unraisable, sys.unraisablehook = sys.unraisablehook, _interrupt_again
    try:
        yield
    finally:
        sys.unraisablehook = unraisable
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)  # type: ignore[arg-type]


__all__ = ["interrupts_end_the_run"]
