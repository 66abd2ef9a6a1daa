"""Every notebook runs top to bottom, and none is committed with outputs.

nbformat is imported where a notebook runs, not at collection: it imports jsonschema,
whose format checkers build some forty grammars on import (9 s of every test worker's
collection, where one worker runs the notebooks). A stored notebook is read as the JSON
it is."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4, f"{path.name}: nbformat {nb['nbformat']}, not 4"
    dirty = [
        i
        for i, c in enumerate(nb["cells"])
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))
    ]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; clear them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_top_to_bottom(path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")  # the path layout jupyter_core moves to
    monkeypatch.setenv("MPLBACKEND", "Agg")
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    resources = {"metadata": {"path": str(path.parent)}}
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources=resources)
    client.execute(cwd=str(path.parent), env=dict(os.environ))
