"""The command line's JSON at fixed points, byte for byte, against golden files captured
before the rule systems were rebuilt on the shared mechanism (tests/golden/capture.py).

``exact`` must never change. ``simulate`` files hold for kernels whose dice are drawn as
when the files were captured; a kernel that draws its dice differently (the same dice,
another use of the stream) re-captures its files in the same change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden.capture import argv

from critlab.analysis.cli.main import main

GOLDEN = Path(__file__).parent / "golden"
POINTS = json.loads((GOLDEN / "points.json").read_text())
CASES = [(s, i, c) for s, plist in POINTS.items() for i in range(len(plist)) for c in ("exact", "simulate")]


@pytest.mark.parametrize(("system", "index", "command"), CASES)
def test_json_is_unchanged(system, index, command, capsys):
    extra = ["--seed", "1", "--trials", "100000", "--no-progress"] if command == "simulate" else []
    assert main([command, system, *argv(system, POINTS[system][index]), *extra, "--json"]) == 0
    assert capsys.readouterr().out == (GOLDEN / f"{system}-{index}-{command}.json").read_text()
