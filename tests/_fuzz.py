"""What every fuzz test holds a case to, shared by the fuzz suites (tests/cli/test_fuzz_*.py).

The contract for every case: exit 0 with valid JSON, or exit 2 with one line on stderr,
never a traceback, never Python's own words for what went wrong (:data:`INTERNAL`), never
more than about 200 characters of a value echoed (the line stays under
:data:`MAX_LINE`), never a hang (each case runs under a watchdog far above what any case
takes) and never a memory blow-up (the ``bounded_memory`` fixture of tests/cli/conftest.py).
"""

from __future__ import annotations

import json
import signal
from contextlib import contextmanager

from hypothesis import HealthCheck, settings

from critlab.analysis.cli import main as cli

# A hang guard, not a speed test: no legal case comes near it.
CASE_SECONDS = 30
PEAK_GROWTH_BYTES = 1 << 30
FUZZ = settings(
    max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
# Python's own words, which no error line may carry (each was once seen in one).
INTERNAL = (
    "Traceback",
    "set_int_max_str_digits",
    "integer string conversion",
    "codec",
    "line None",
    "WrittenFloat",
    "negative dimensions",
    "<class ",
    "object has no attribute",
    "NoneType",
    "unsupported operand",
    "not supported between instances",
    "multiple indices",
)
# An error line: its own words and a few values of at most ~200 characters each.
MAX_LINE = 2000


class CaseRanTooLong(BaseException):
    """Raised by the watchdog; a BaseException, so no ``except Exception`` swallows it."""


@contextmanager
def watchdog(seconds: float = CASE_SECONDS):
    def expired(signum, frame):
        raise CaseRanTooLong(f"a fuzz case ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check_line(line: str) -> None:
    """One error line held to the contract's words and length."""
    assert all(ch.isprintable() for ch in line), line[:400]
    assert len(line) <= MAX_LINE, f"{len(line)} characters: {line[:400]}"
    for words in INTERNAL:
        assert words not in line, line[:400]


def check_cli(argv: list[str], capsys, seconds: float = CASE_SECONDS) -> int:
    """Run the command line in-process and hold it to the contract."""
    with watchdog(seconds):
        status = cli.main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err
    if status == 0:
        json.loads(captured.out)
    else:
        assert status == 2, (status, captured.err)
        assert captured.out == ""
        lines = captured.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("critlab"), captured.err
        check_line(lines[0])
    return status
