"""Every number the project writes for machines carries at most 15 significant digits
(RULES: no ``0.28500000000000003``): exact --json of every system, dice --json, a
report's CSV tables and summary.json. Integers (counts, seeds) are exact and exempt."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.text.digits import CSV_FLOAT, number, plain

FLOAT = re.compile(r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?")


def significant(token: str) -> int:
    """Significant digits of a written decimal (``0.0285`` has 3, ``2.5e-07`` 2)."""
    mantissa = token.lower().lstrip("-").split("e")[0]
    return len(mantissa.replace(".", "").lstrip("0").rstrip("0") or "0")


def long_floats(text: str) -> list[str]:
    """Written floats (a point or an exponent) of more than 15 significant digits."""
    return [t for t in FLOAT.findall(text) if ("." in t or "e" in t.lower()) and significant(t) > 15]


def run_json(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


EXACT = [
    ("thac0", "--thac0", "15", "--target-ac", "5"),
    ("crit-range", "--attack-bonus", "5", "--evasion", "15", "--roll", "advantage"),
    ("severity", "--mode", "stable", "--sm", "1", "--attacker-skill", "3"),
    ("contest", "--kind", "regular", "--a-skill", "20", "--b-skill", "23"),
    ("crits-cats", "--skill", "5", "--opposing-skill", "2"),
]


@pytest.mark.parametrize("argv", EXACT, ids=lambda a: a[0])
def test_exact_json_of_every_system(capsys, argv):
    text = run_json(capsys, "exact", *argv, "--json")
    assert not long_floats(text)
    json.loads(text)  # and it is still the documented JSON


def test_dice_json(capsys):
    text = run_json(capsys, "dice", "2d6", "1d6!", "4d6dl1", "1d20", "3d6ro1", "--json")
    assert not long_floats(text)
    d20 = json.loads(text)[3]["distribution"]
    assert d20["19"] == 0.05 and d20["tail"] == 0.0


def test_the_writer_rounds_only_the_noise():
    assert number(0.1 + 0.2) == 0.3 and number(0.28500000000000003) == 0.285
    assert number(1 / 3) == pytest.approx(1 / 3, rel=1e-15)
    assert plain({"a": [0.1 + 0.2, 2**63 - 1]}) == {"a": [0.3, 2**63 - 1]}  # integers exact
    assert float(CSV_FLOAT % (1 / 7)) == pytest.approx(1 / 7, rel=1e-15)


def test_capped_json_still_sums_to_one_and_says_so(capsys):
    argv = ["exact", "crit-range", "--attack-bonus", "5", "--evasion", "15", "--condition", "100", "--json"]
    assert main(argv) == 0
    out = capsys.readouterr()
    life = json.loads(out.out)["distributions"]["attacks_to_break"]
    assert len(life) == 1000 + 1 and sum(life.values()) == pytest.approx(1.0, abs=1e-12)
    assert "attacks_to_break has 3786 values" in out.err and "--all-bins" in out.err
    assert main([*argv, "--all-bins"]) == 0
    assert len(json.loads(capsys.readouterr().out)["distributions"]["attacks_to_break"]) == 3786 + 1


REPORT = """
[report]
name = "digits"
title = "Numbers as written"
trials = 20_000
batches = 2
seed = 5

[systems.thac0]
params = { thac0 = 15, target_ac = 5 }

[[systems.thac0.sections]]
kind = "metric_by"
id = "by-ac"
title = "Damage by AC"
grid = { target_ac = { from = -2, to = 4, step = 2 } }
metrics = ["expected_damage"]
outcomes = ["critical_hit"]

[[systems.thac0.sections]]
kind = "validation"
id = "check"
title = "Validation"
"""


def test_a_reports_csv_tables_and_summary(tmp_path):
    from critlab.analysis.report import build_report

    config = tmp_path / "digits.toml"
    config.write_text(REPORT, encoding="utf-8")
    build_report(config, out=tmp_path / "out", progress=False)
    written = [*(tmp_path / "out" / "tables").glob("*.csv"), tmp_path / "out" / "summary.json"]
    assert len(written) >= 3
    for path in written:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".csv":
            cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
            text = " ".join(cells)
        assert not long_floats(text), path.name
