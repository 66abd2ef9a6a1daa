"""Every command of README.md runs as printed, in the printed order, on a copy of what a
fresh clone holds: each ``$ critlab ...`` line of a ``console`` block exits 0, and the
output lines the README shows under a command are lines it prints (so the README's
numbers are the engine's, not remembered ones).

The commands run in this process, through the command line's own entry point (the
console script and ``python -m critlab`` only call it; their start-up is tested in
tests/cli and tests/test_architecture.py): a process each spent more time importing than
most commands take, and its reports are built without drawing their figures (their words
are what the README shows; drawing is tested in tests/report)."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What the README's commands read: the shipped examples, copied so that the reports
# they write land in a temporary folder, never in the checkout.
CARRIED = ("reports/examples", "notebooks/examples")


def commands() -> list[tuple[str, list[str]]]:
    """``(command, output lines shown under it)`` for every ``$ critlab`` line of the
    README's console blocks, in order."""
    out: list[tuple[str, list[str]]] = []
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for block in re.findall(r"^```console\n(.*?)^```", text, re.M | re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif out and line.strip():
                out[-1][1].append(line)
    return out


def _argv(command: str) -> list[str]:
    words = shlex.split(command, comments=True)
    assert words[0] == "critlab", command
    return words[1:]


def _shown(line: str) -> str:
    """An output line as the README shows it, without its trailing comment."""
    return " ".join(line.split("  #")[0].split())


def test_the_readme_has_commands():
    found = commands()
    assert len(found) >= 15
    assert any(c.startswith("critlab report") for c, _ in found)


@pytest.mark.slow
def test_every_readme_command_runs_as_printed(tmp_path, monkeypatch, capsys, undrawn):
    from critlab.analysis.cli.main import main

    for folder in CARRIED:
        shutil.copytree(ROOT / folder, tmp_path / folder)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRITLAB_DIALECT", raising=False)
    for command, shown in commands():
        status = main(_argv(command))
        out, err = capsys.readouterr()
        assert status == 0, f"{command}\n{err[-2000:]}"
        printed = {" ".join(line.split()) for line in out.splitlines()}
        for line in shown:
            if line.strip() == "...":  # the README leaves out lines here
                continue
            assert _shown(line) in printed, f"{command}: the README shows {line!r}; it printed:\n{out}"
