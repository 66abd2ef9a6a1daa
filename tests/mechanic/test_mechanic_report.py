"""A report configuration names a mechanic by reference (a file path, read from the
configuration's folder first, or ``module:function``): its sections, validation and
balance checks work as a built-in system's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.report.config import parse_config
from critlab.analysis.report.reading import ConfigError

EXAMPLES = Path(__file__).resolve().parents[2] / "notebooks" / "examples"
REF = "examples/savage_worlds.py:trait_roll"

CONFIG = f"""
[report]
name = "mech"
trials = 4000
batches = 2
seed = 7

[systems."{REF}"]
params = {{ trait = 8 }}

[[systems."{REF}".sections]]
kind = "outcomes_by"
id = "by-trait"
title = "Failure, success and raise by trait die"
grid = {{ trait = [4, 8, 12] }}

[[systems."{REF}".sections]]
kind = "validation"

[[checks]]
system = "{REF}"
params = {{ trait = 8 }}
quantity = "raise"
min = 0.24
max = 0.25
"""


def test_a_configuration_reads_a_mechanic_beside_it(tmp_path):
    import tomllib

    cfg = parse_config(tomllib.loads(CONFIG), str(EXAMPLES.parent / "inline.toml"))
    (block,) = cfg.systems
    assert block.name == REF and block.sections[-1].spec.trait == 8  # the validation section


def test_a_bad_reference_is_a_configuration_error():
    data = {"systems": {"nowhere.py:f": {"sections": [{"kind": "validation"}]}}}
    with pytest.raises(ConfigError, match=r"systems\.nowhere\.py:f: no file nowhere\.py"):
        parse_config(data, "inline.toml")


def test_a_report_with_a_mechanic(tmp_path, capsys):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    (tmp_path / "mech.toml").write_text(CONFIG)
    out = tmp_path / "out"
    code = main(["report", "--config", str(tmp_path / "mech.toml"), "--out", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["checks"][0]["passed"] and summary["run"]["systems"] == [REF]
    # file names and anchors spell the reference without its / and :
    assert (out / "figures" / "examples-savage_worlds.py-trait_roll--by-trait.png").is_file()
