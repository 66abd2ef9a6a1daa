"""What a report folder owns: the marker that says a folder is a critlab report and lists
the files the report wrote (its manifest), and the entries that are not the report's.

Only the listed files are a report's own, so a table or figure the user put beside them
is never mistaken for one. A report of an earlier critlab listed nothing: for it, what
such a report could have written (its top-level files, ``figures/*.png``,
``tables/*.csv``) is all that can be said.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> (root / "tables").mkdir(); _ = (root / "tables" / "a.csv").write_text("x\\n")
>>> _ = (root / MARKER).write_text(marker_text(["tables/a.csv"]))
>>> sorted(manifest(root)), foreign_files(root)
(['tables/a.csv'], [])
>>> _ = (root / "tables" / "mine.csv").write_text("y\\n"); foreign_files(root)
['tables/mine.csv']
>>> import shutil; shutil.rmtree(root)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

MARKER = ".critlab-report"
MARKER_FORMAT = "critlab-report/2"  # /1 had no list of files
_MARKER_ABOUT = (
    "This folder is a critlab balance report: `critlab report` replaces it whole on every run.\n"
    "The files listed below are the ones it wrote; any other file here makes it refuse the folder\n"
    "(--force keeps the folder, renamed, beside the new report).\n"
)
_FILES_LINE = "files:"
_MANIFEST_LIMIT = 4 << 20  # bytes: a report lists a few hundred short names
# What an earlier report (no list) could have written: top-level names, and the folders
# with the one suffix each holds.
_FILES = frozenset({"index.html", "README.md", "summary.json", "summary.md", MARKER})
FOLDERS = {"figures": ".png", "tables": ".csv"}
_SUMMARY_FORMAT = "critlab-report-summary/1"  # compare.SUMMARY_FORMAT, without importing pandas


def marker_text(files: Iterable[str]) -> str:
    """The marker of a report that wrote ``files`` (relative paths, ``/``-separated).

    >>> print(marker_text(["tables/a.csv", "index.html"]).splitlines()[-2:])
    ['index.html', 'tables/a.csv']
    """
    return f"{MARKER_FORMAT}\n{_MARKER_ABOUT}{_FILES_LINE}\n" + "".join(f"{f}\n" for f in sorted(files))


def manifest(folder: Path) -> frozenset[str] | None:
    """The files the report in ``folder`` wrote, as its marker lists them; ``None`` where
    there is no such list (no marker, one from an earlier critlab, or not a marker)."""
    marker = folder / MARKER
    if marker.is_symlink() or not marker.is_file():  # never open a FIFO or a device
        return None
    try:
        with open(marker, "rb") as f:
            data = f.read(_MANIFEST_LIMIT + 1)
        lines = data.decode("utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    if len(data) > _MANIFEST_LIMIT or lines[0] != MARKER_FORMAT or _FILES_LINE not in lines:
        return None
    return frozenset(f for f in lines[lines.index(_FILES_LINE) + 1 :] if f)


def is_report(folder: Path) -> bool:
    """Whether ``folder`` is a critlab report: it has the marker, or (written before the
    marker) a ``summary.json`` in the report format."""
    if (folder / MARKER).is_file():
        return True
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(summary, dict) and summary.get("format") == _SUMMARY_FORMAT


def foreign_files(folder: Path) -> list[str]:
    """Entries of ``folder`` that its report did not write (relative paths, a folder's
    with a trailing ``/``, sorted): with a manifest, everything it does not list; without
    one, everything an earlier report could not have written."""
    own = manifest(folder)
    if own is None:

        def own_file(rel: str) -> bool:
            head, _, name = rel.rpartition("/")
            return rel in _FILES if not head else FOLDERS.get(head) == os.path.splitext(name)[1]

        own_dirs: set[str] = set(FOLDERS)
    else:
        listed = own | {MARKER}
        own_file = listed.__contains__
        own_dirs = set(FOLDERS) | {p for f in own for p in _parents(f)}
    out: list[str] = []

    def walk(at: str, prefix: str) -> None:
        with os.scandir(at) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_symlink():  # a report writes no links: the user's
                out.append(rel)
            elif entry.is_dir():
                if rel in own_dirs:
                    walk(entry.path, rel + "/")
                else:
                    out.append(rel + "/")
            elif not (entry.is_file() and own_file(rel)):
                out.append(rel)

    walk(os.fspath(folder), "")
    return out


def _parents(rel: str) -> Iterator[str]:
    head = rel.rpartition("/")[0]
    while head:
        yield head
        head = head.rpartition("/")[0]


__all__ = ["MARKER", "MARKER_FORMAT", "foreign_files", "is_report", "manifest", "marker_text"]
