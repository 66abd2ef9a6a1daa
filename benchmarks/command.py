"""The command line of a benchmark module that prints one table
(``python -m benchmarks.cold``, ``benchmarks.explore``, ``benchmarks.encounter``): its
parser, its rows measured, progress on stderr, and printed as its Markdown table
(:func:`markdown`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any


def parser_of(module: str, doc: str) -> argparse.ArgumentParser:
    """The parser of ``python -m MODULE``, described by its docstring's first line."""
    return argparse.ArgumentParser(prog=f"python -m {module}", description=doc.splitlines()[0])


def _progress(message: str) -> None:
    print(message, file=sys.stderr)


def print_table(measure: Callable[..., list], table: Callable[[list], str], **options: Any) -> int:
    """``measure(**options)``'s rows, its progress lines on stderr, printed as ``table``
    makes them; the command's exit status."""
    print(table(measure(**options, log=_progress)))
    return 0


def markdown(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table of ``header`` and ``rows`` (each row's cells as text).

    >>> print(markdown(["a", "b"], [["1", "2"]]))
    | a | b |
    |---|---|
    | 1 | 2 |
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join([*lines, *("| " + " | ".join(cells) + " |" for cells in rows)])
