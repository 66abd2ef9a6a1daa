"""Run metadata for summary.json: versions, git commit, machine.

>>> info = run_metadata()
>>> sorted(info)[:3], sorted(info["libraries"])[:2]
(['cpu_count', 'critlab_version', 'git_commit'], ['matplotlib', 'numba'])
"""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

LIBRARIES = ("numpy", "scipy", "pandas", "matplotlib", "numba", "tqdm")
_ROOT = Path(__file__).resolve().parents[2]


def version(dist: str) -> str | None:
    """An installed distribution's version, or ``None`` when it is not installed."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def git(*args: str) -> str | None:
    """Output of a read-only git command in the source tree, or ``None`` outside a
    checkout or without git (an installed critlab has no commit to report)."""
    try:
        out = subprocess.run(
            ["git", *args], cwd=_ROOT, capture_output=True, text=True, timeout=10, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.strip()


def run_metadata() -> dict[str, Any]:
    """critlab's version, the git commit (and whether the tree had local changes), the
    Python, library versions and the machine."""
    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {
        "critlab_version": version("critlab"),
        "git_commit": commit or None,
        "git_dirty": None if status is None else bool(status),
        "python": platform.python_version(),
        "libraries": {lib: version(lib) for lib in LIBRARIES},
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
    }
