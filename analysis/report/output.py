"""Where a report is written: checked before any work, built aside, swapped in whole.

A report is built in a hidden folder beside its target (``.NAME.critlab-new-PID-XXXX``)
and put in place only when every file is written, with one rename (an atomic exchange
where the system has one, Linux's ``renameat2``): a reader sees the previous complete
report or the new complete one, never a mix, and an interrupt, a crash or a full disk
at any point leaves the previous report as it was.

A critlab report folder holds a marker file, :data:`MARKER`. Only such a folder (or an
empty one, or one written before the marker existed: its ``summary.json`` says so) is
replaced, and only when it holds nothing but the report's own files. Any other
existing ``--out`` is refused before any work, unless ``force``: then it is kept, renamed
to ``NAME.replaced-YYYYMMDDTHHMMSS`` beside the new report, so nothing is ever lost.
An empty path, a file, and a folder that cannot be created are refused.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> (root / "notes").mkdir(); (root / "notes" / "todo.txt").write_text("mine")
4
>>> ReportFolder(root / "notes")
Traceback (most recent call last):
...
critlab.analysis.report.reading.ConfigError: command line: --out: ... (todo.txt); ...
>>> folder = ReportFolder(root / "new"); _ = folder.stage()
>>> (folder.staging / "index.html").write_text("<p>hi</p>"); folder.commit()
9
>>> sorted(p.name for p in (root / "new").iterdir())
['.critlab-report', 'figures', 'index.html', 'tables']
>>> import shutil; shutil.rmtree(root)
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import secrets
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from critlab.analysis.report.reading import ConfigError

MARKER = ".critlab-report"
MARKER_TEXT = (
    "critlab-report/1\n"
    "This folder is a critlab balance report: `critlab report` replaces it whole on every run.\n"
)
# The files a report writes: top-level names, and the folders with the one suffix each holds.
_FILES = frozenset({"index.html", "README.md", "summary.json", "summary.md", MARKER})
_FOLDERS = {"figures": ".png", "tables": ".csv"}
_SUMMARY_FORMAT = "critlab-report-summary/1"  # compare.SUMMARY_FORMAT, without importing pandas


def _refuse(message: str) -> ConfigError:
    return ConfigError("command line", "--out", message)


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
    """Entries of ``folder`` that a report does not write (relative paths, sorted)."""
    out = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name in _FILES and entry.is_file() and not entry.is_symlink():
            continue
        suffix = _FOLDERS.get(entry.name)
        if suffix is not None and entry.is_dir() and not entry.is_symlink():
            out += [
                f"{entry.name}/{f.name}"
                for f in sorted(entry.iterdir(), key=lambda p: p.name)
                if not (f.suffix == suffix and f.is_file() and not f.is_symlink())
            ]
            continue
        out.append(entry.name)
    return out


def _holds(folder: Path, inner: Path) -> bool:
    return inner == folder or folder in inner.parents


def _cwd() -> Path | None:
    try:
        return Path(os.path.abspath(os.getcwd()))
    except OSError:  # the current folder was removed
        return None


def _home() -> Path | None:
    try:
        return Path.home().absolute()
    except (RuntimeError, KeyError):
        return None


class ReportFolder:
    """The output folder of one report run: checked on construction (before any work),
    then :meth:`stage`, write into :attr:`staging`, :meth:`commit` (or :meth:`discard`)."""

    def __init__(self, out: str | os.PathLike[str], *, force: bool = False) -> None:
        text = os.fspath(out)
        if not text.strip():
            raise _refuse("must name a folder, e.g. --out reports/mine (got an empty path)")
        if "\0" in text:
            raise _refuse("must name a folder (the path holds a NUL character)")
        self.shown = Path(text)
        path = Path(os.path.abspath(text))
        if path.is_symlink():
            if not path.exists():
                raise _refuse(f"{text} is a link to nothing")
            path = path.resolve()
        self.path, self.force = path, force
        self.staging: Path | None = None
        self._created: list[Path] = []
        self._check()

    # -- checks ---------------------------------------------------------------------------
    def _check(self) -> None:
        path, text = self.path, str(self.shown)
        if not path.name or path == Path(path.anchor):
            raise _refuse(f"{text} is the root of a file system; name a folder for the report")
        for protected, what in ((_cwd(), "the current folder"), (_home(), "your home folder")):
            if protected is not None and _holds(path, protected) and not self._replaceable():
                raise _refuse(f"{text} is {what} or holds it; name a folder of its own for the report")
        if path.exists() or path.is_symlink():
            if not path.is_dir():
                raise _refuse(f"{text} is a file, not a folder; name a folder for the report")
            if not self._replaceable() and not self.force:
                raise _refuse(self._foreign_message())
            return
        ancestor = path.parent
        while not ancestor.exists():
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise _refuse(f"cannot create {text}: {ancestor} is a file, not a folder")
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise _refuse(f"cannot create {text}: {ancestor} is not writable")

    def _replaceable(self) -> bool:
        """An empty folder, or a critlab report holding nothing else."""
        try:
            entries = list(self.path.iterdir())
            return not entries or (is_report(self.path) and not foreign_files(self.path))
        except OSError:
            return False

    def _foreign_message(self) -> str:
        text = str(self.shown)
        try:
            names = foreign_files(self.path)
        except OSError as exc:
            return f"cannot read {text}: {exc.strerror}"
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        return (
            f"{text} holds files that are not a critlab report ({shown}); choose another --out, "
            f"or add --force to keep that folder as {self.path.name}.replaced-<time> beside the new report"
        )

    # -- building -------------------------------------------------------------------------
    def stage(self) -> Path:
        """Create the hidden folder the report is written into (and any missing parents);
        a path that cannot be written is refused here, before any work."""
        parent = self.path.parent
        try:
            missing = []
            p = parent
            while not p.exists():
                missing.append(p)
                p = p.parent
            for p in reversed(missing):
                p.mkdir()
                self._created.append(p)
            _remove_stale(parent, self.path.name)
            staging = parent / f".{self.path.name}.critlab-new-{os.getpid()}-{secrets.token_hex(4)}"
            staging.mkdir()
        except OSError as exc:
            self._remove_created()
            raise _refuse(f"cannot create {self.shown}: {exc.strerror or exc}") from None
        self.staging = staging
        for name in _FOLDERS:
            (staging / name).mkdir()
        return staging

    def commit(self) -> None:
        """Put the staged report in place: the previous one is replaced in one step."""
        staging = self.staging
        if staging is None:
            raise RuntimeError("commit() before stage()")
        write_file(staging / MARKER, MARKER_TEXT.encode())
        for folder in (*(staging / name for name in _FOLDERS), staging):
            _fsync_dir(folder)
        with _interrupts_deferred():
            old = self._swap(staging)
            self.staging = None
            self._created.clear()
            _fsync_dir(self.path.parent)
            if old is not None:
                if self._aside:
                    stamp = time.strftime("%Y%m%dT%H%M%S")
                    os.rename(old, _free_name(self.path.parent, f"{self.path.name}.replaced-{stamp}"))
                else:
                    shutil.rmtree(old, ignore_errors=True)

    def _swap(self, staging: Path) -> Path | None:
        """Rename ``staging`` to the target; the previous folder (now under a hidden
        name) or ``None``."""
        path = self.path
        self._aside = False
        if not (path.exists() or path.is_symlink()):
            try:
                os.rename(staging, path)
                return None
            except OSError as exc:
                if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
        # It exists (perhaps since the check): the same rules apply now.
        if not path.is_dir() or path.is_symlink():
            raise _refuse(f"{self.shown} is no longer a folder; nothing was written there")
        if not self._replaceable():
            if not self.force:
                raise _refuse(self._foreign_message())
            self._aside = True
        if _exchange(staging, path):
            return staging  # the exchange left the previous report under the staging name
        old = path.parent / f".{path.name}.critlab-old-{os.getpid()}-{secrets.token_hex(4)}"
        os.rename(path, old)
        try:
            os.rename(staging, path)
        except BaseException:
            os.rename(old, path)
            raise
        return old

    def discard(self) -> None:
        """Remove the staged folder (and the parents :meth:`stage` created): the target
        is left exactly as it was."""
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None
        self._remove_created()

    def _remove_created(self) -> None:
        for p in reversed(self._created):
            try:
                p.rmdir()
            except OSError:
                break
        self._created.clear()


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` and flush it to the disk (a full disk raises here)."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _free_name(parent: Path, name: str) -> Path:
    candidate, n = parent / name, 2
    while candidate.exists():
        candidate, n = parent / f"{name}-{n}", n + 1
    return candidate


def _remove_stale(parent: Path, name: str) -> None:
    """Remove staging folders that a killed run left beside ``name`` (their process is gone)."""
    for prefix in (f".{name}.critlab-new-", f".{name}.critlab-old-"):
        for stale in parent.glob(prefix + "*"):
            pid = stale.name[len(prefix) :].split("-", 1)[0]
            if pid.isdigit() and not _alive(int(pid)) and stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``); ``False``
    where the system or file system has no such call."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(code, os.strerror(code), str(b))


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back while the report is swapped in (then deliver them), so
    an interrupt never lands between the two renames of a system without an atomic
    exchange."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous: dict[int, object] = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, lambda signum, frame: caught.append(signum))
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        for signum in dict.fromkeys(caught):
            handler = previous[signum]
            if callable(handler):
                handler(signum, None)
            elif handler == signal.SIG_DFL:
                if signum == signal.SIGINT:
                    raise KeyboardInterrupt
                signal.raise_signal(signum)  # the default: the process ends, the swap done
