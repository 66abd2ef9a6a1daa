"""Encounter files are read as configurations and baselines are (16 MiB, 32 levels of
nesting, integers below 2^63), by the same reader, wherever one is named: ``critlab
encounter``, ``tune``, ``sensitivity``, a report's ``[[encounters]]`` and a ``[[checks]]``
entry's ``encounter``. Each refusal is one line and exit 2."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.encounter.load import load_encounter
from critlab.analysis.text.documents import MAX_DEPTH, DocumentError

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")

SECTION = """
[[encounters]]
file = "{file}"
vary = {{ "hero.hp" = [5, 6] }}
"""
CHECK = """
[[checks]]
encounter = "{file}"
quantity = "a_wins"
min = 0.5
"""


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    """Encounter files that a reader without bounds cannot survive."""
    (tmp_path / "zero.toml").symlink_to("/dev/zero")
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    tables = tmp_path / "tables.toml"
    tables.write_text("[" + ".".join(["t"] * 200) + "]\nx = 1\n", encoding="utf-8")
    digits = tmp_path / "digits.toml"
    digits.write_text("max_rounds = " + "9" * 5000 + "\n", encoding="utf-8")
    return {"zero": tmp_path / "zero.toml", "deep": deep, "tables": tables, "digits": digits}


WORDS = {
    "zero": "larger than 16 MiB",
    "deep": f"nested more than {MAX_DEPTH}",
    "tables": f"nested more than {MAX_DEPTH}",
    "digits": "integer of over 4,300 digits",
}


def _refused(argv: list[str], capsys, *words: str) -> str:
    t0 = time.monotonic()
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "sys.set_int_max_str_digits" not in err and "recursion" not in err, err
    for w in words:
        assert w in err, err
    assert time.monotonic() - t0 < 20  # read to a bound, not for ever
    return err


@pytest.mark.parametrize("kind", list(WORDS))
def test_load_encounter_reads_within_the_bounds(tmp_path, kind):
    path = _bad_files(tmp_path)[kind]
    with pytest.raises(DocumentError, match=WORDS[kind]) as caught:
        load_encounter(path)
    assert str(caught.value).startswith(path.name)


def test_dev_zero_itself_as_an_encounter_file(capsys):
    _refused(["encounter", "/dev/zero"], capsys, "zero", "larger than 16 MiB")


@pytest.mark.parametrize("kind", list(WORDS))
@pytest.mark.parametrize(
    "command",
    [
        ["encounter", "{f}"],
        ["encounter", "{f}", "--trials", "100", "--seed", "1"],
        ["tune", "{f}", "--vary", "hero.hp=5..6", "--target", "a_wins=0.5"],
        ["sensitivity", "{f}"],
    ],
    ids=["encounter", "encounter-simulated", "tune", "sensitivity"],
)
def test_every_command_reads_an_encounter_file_within_the_bounds(tmp_path, capsys, kind, command):
    path = _bad_files(tmp_path)[kind]
    argv = [a.replace("{f}", str(path)) for a in command]
    _refused(argv, capsys, path.name, WORDS[kind])


@pytest.mark.parametrize("kind", list(WORDS))
@pytest.mark.parametrize("where", [SECTION, CHECK], ids=["encounters-section", "check"])
def test_a_report_reads_its_encounter_files_within_the_bounds(tmp_path, capsys, kind, where):
    path = _bad_files(tmp_path)[kind]
    conf = tmp_path / "conf.toml"
    conf.write_text(where.format(file=path.name), encoding="utf-8")
    out = tmp_path / "out"
    _refused(
        ["report", "--config", str(conf), "--out", str(out), "--no-progress"],
        capsys,
        "conf.toml",
        WORDS[kind],
    )
    assert not out.exists()
