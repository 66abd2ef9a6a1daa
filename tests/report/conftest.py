"""The shipped reports, each built once for the whole run: the trust tests read them and
the browser tests load them (a build of the built-in report is some 10 s of a worker's
time; drawing its figures took 45 s more, so each picture is a white one of its size,
which is what the words and the page's layout need). The first worker to ask builds it,
under a lock, into a folder that every worker of this run shares; each test module gets
a copy of its own (the browser tests write beside the page)."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from _pictures import blank_png

from critlab.analysis.report import build_report, picture

# The trust tests' trials: every validation's check passes at alpha with these.
SHIPPED_TRIALS = 20_000


@pytest.fixture(scope="session")
def shipped(tmp_path_factory) -> Callable[[str, Path], Path]:
    """``shipped(name, config)``: a copy of the shipped report ``name`` (its folder),
    built from ``config`` once per run of the suite."""
    base = tmp_path_factory.getbasetemp()
    # under xdist each worker's base folder is in the run's own: that one is shared
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shipped-reports"

    def copy_of(name: str, config: Path) -> Path:
        root.mkdir(exist_ok=True)
        built = root / name
        with open(root / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if not (built / "summary.json").is_file():  # written last: a whole report
                with pytest.MonkeyPatch.context() as patch:  # words and layout, not drawing
                    patch.setattr(picture, "png", blank_png)
                    build_report(config, out=built, trials=SHIPPED_TRIALS, progress=False)
        mine = tmp_path_factory.mktemp(name) / "out"
        shutil.copytree(built, mine)
        return mine

    return copy_of
