"""Where a report is written: checked before any work, built aside, swapped in whole.

A report is built in a hidden folder beside its target (``.NAME.critlab-new-PID-XXXX``)
and put in place only when every file is written, with one rename (an atomic exchange
where the system has one, Linux's ``renameat2``): a reader sees the previous complete
report or the new complete one, never a mix, and an interrupt, a crash or a full disk
at any point leaves the previous report as it was.

A critlab report folder holds a marker file, :data:`MARKER`, that lists every file the
report wrote (its manifest). Only those files are the report's own: a folder is replaced
only when it holds nothing else (an empty folder is used as it is). Any other existing
``--out``, or a report holding a file the report did not write (``tables/mine.csv``, a
sub-folder of the user's), is refused by name before any work, unless ``force``: then the
folder is kept, renamed to ``NAME.replaced-YYYYMMDDTHHMMSS`` beside the new report, so
nothing is ever lost. A report written by an earlier critlab has no manifest (a marker
without a list, or only its ``summary.json``): which of its tables and figures it wrote
cannot be told, so it is replaced but kept beside the new report as ``--force`` keeps a
folder (:attr:`ReportFolder.kept` names it), and a file it could never have written
(``notes.txt``) is refused as in any other folder.
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

from critlab.analysis.report.manifest import (
    FOLDERS,
    MARKER,
    foreign_files,
    is_report,
    manifest,
    marker_text,
)
from critlab.analysis.report.reading import ConfigError

__all__ = ["MARKER", "ReportFolder", "foreign_files", "is_report", "manifest", "write_file"]


def _refuse(message: str) -> ConfigError:
    return ConfigError("command line", "--out", message)


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
        self.kept: Path | None = None  # where the previous folder was kept, if it was
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
        report = is_report(self.path)
        what = "the critlab report there did not write" if report else "are not a critlab report"
        return (
            f"{text} holds files that {what} ({shown}); move them out, choose another --out, "
            f"or add --force to keep that folder as {self.path.name}.replaced-<time> beside the new report"
        )

    # -- building -------------------------------------------------------------------------
    def stage(self) -> Path:
        """Create the hidden folder the report is written into (and any missing parents);
        a path that cannot be written is refused here, before any work. Interrupts wait
        until :attr:`staging` names what was created, so :meth:`discard` always finds it."""
        parent = self.path.parent
        with _interrupts_deferred():
            try:
                missing = []
                p = parent
                while not p.exists():
                    missing.append(p)
                    p = p.parent
                for p in reversed(missing):
                    os.mkdir(p)
                    self._created.append(p)
                _remove_stale(parent, self.path.name)
                staging = parent / f".{self.path.name}.critlab-new-{os.getpid()}-{secrets.token_hex(4)}"
                os.mkdir(staging)
                self.staging = staging
                for name in FOLDERS:
                    os.mkdir(staging / name)
            except OSError as exc:
                self.discard()
                raise _refuse(f"cannot create {self.shown}: {exc.strerror or exc}") from None
        return staging

    def commit(self) -> None:
        """Put the staged report in place: the previous one is replaced in one step. The
        marker lists every file staged (the report's own, from now on)."""
        staging = self.staging
        if staging is None:
            raise RuntimeError("commit() before stage()")
        written = [
            os.path.relpath(os.path.join(root, name), staging).replace(os.sep, "/")
            for root, _, names in os.walk(staging)
            for name in names
        ]
        write_file(staging / MARKER, marker_text(f for f in written if f != MARKER).encode())
        for folder in (*(staging / name for name in FOLDERS), staging):
            _fsync_dir(folder)
        with _interrupts_deferred():
            old = self._swap(staging)
            self.staging = None
            self._created.clear()
            _fsync_dir(self.path.parent)
            if old is None:
                return
            # A file the user put there since the check (the exchange took the folder
            # out of reach) is kept too: only a folder of the report's own files goes.
            if self._aside or _foreign_or_unreadable(old):
                stamp = time.strftime("%Y%m%dT%H%M%S")
                self.kept = _free_name(self.path.parent, f"{self.path.name}.replaced-{stamp}")
                os.rename(old, self.kept)
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
        elif manifest(path) is None and any(path.iterdir()):
            self._aside = True  # an earlier critlab's report: which files it wrote is unknown
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
        is left exactly as it was. A second interrupt waits until that is done."""
        with _interrupts_deferred():
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


def _foreign_or_unreadable(folder: Path) -> bool:
    try:
        return bool(foreign_files(folder))
    except OSError:
        return True


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
