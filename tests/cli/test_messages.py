"""Error lines a person can read: a value is echoed by at most about 200 characters of it
(:data:`critlab.analysis.spec_error.MAX_SHOWN`, the one place values are written into
errors), and no line carries Python's own words for what went wrong (the 4,300-digit
conversion limit, the idna codec, "line None", a class name like ``WrittenFloat``, an empty
``()``). Each case is one a reliability run found."""

from __future__ import annotations

import pytest

from critlab.analysis.cli import main as cli
from critlab.analysis.design.tune import tune
from critlab.analysis.report.config import ConfigError, parse_config
from critlab.analysis.spec import SpecError
from critlab.analysis.spec_error import MAX_SHOWN, shown
from critlab.analysis.systems import get_system

THAC0 = ["thac0", "--thac0", "15", "--target-ac", "5"]
# Python's own words, which no error line may carry
INTERNAL = (
    "set_int_max_str_digits",
    "integer string conversion",
    "idna",
    "line None",
    "WrittenFloat",
    "= ()",
    "= []",
    "negative dimensions",
    "Traceback",
    "<class",
)


def one_line(capsys, argv: list[str], *words: str) -> str:
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert status == 2, err[:500]
    lines = err.splitlines()
    assert len(lines) == 1, err[:500]
    for bad in INTERNAL:
        assert bad not in lines[0], lines[0]
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# -- a value is echoed by its start and its length ----------------------------------------
@pytest.mark.parametrize(
    ("flag", "value", "size"),
    [
        ("--damage", "1d6+" * 750_000 + "1", "3,000,001 characters"),  # 3 MB
        ("--damage", "x" * 131_000, "131,000 characters"),
        ("--thac0", "9" * 401, "401 characters"),
        ("--thac0", "9" * 5000, "5,000 characters"),
    ],
)
def test_a_long_value_is_echoed_by_its_start(capsys, flag, value, size):
    line = one_line(capsys, ["exact", *THAC0, flag, value], flag.lstrip("-"), size)
    assert len(line) < 3 * MAX_SHOWN + 300


def test_a_fights_401_digit_hp_is_echoed_by_its_start(capsys):
    line = one_line(capsys, ["fight", *THAC0, "--hp", "9" * 401], "hp", "401 characters", "1..1000000")
    assert len(line) < 2 * MAX_SHOWN + 200


def test_a_long_quantity_or_vary_is_echoed_by_its_start(capsys):
    line = one_line(capsys, ["tune", *THAC0, "--vary", "to_hit=0..2", "--target", "x" * 100_000 + "=0.5"])
    assert len(line) < 2 * MAX_SHOWN + 300
    line = one_line(capsys, ["tune", *THAC0, "--vary", "y" * 100_000 + "=1..2", "--target", "hit=0.5"])
    assert len(line) < 3 * MAX_SHOWN + 300


def test_shown_is_bounded_and_plain():
    assert len(shown("a" * 10**6)) <= MAX_SHOWN
    assert shown(10**5000) == "an integer of over 4,300 digits"
    assert shown(()) == shown([]) == "an empty list" and shown({}) == "an empty table"
    assert shown(None) == "none" and shown(7) == "7"


# -- no Python-internal text --------------------------------------------------------------
def test_a_5000_digit_integer_given_to_the_api_is_named_as_such():
    with pytest.raises(SpecError) as caught:
        get_system("thac0").make_spec(thac0=10**5000, target_ac=5)
    assert "thac0" in str(caught.value) and "over 4,300 digits" in str(caught.value)
    assert "set_int_max_str_digits" not in str(caught.value)


@pytest.mark.parametrize("value", [(), []])
def test_an_empty_list_as_a_value_is_said_in_words(value):
    with pytest.raises(SpecError, match=r"parameter thac0 = an empty list: must be an integer"):
        get_system("thac0").make_spec(thac0=value, target_ac=5)


def test_an_empty_vary_is_named():
    spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    with pytest.raises(SpecError, match=r"parameter vary = an empty table: must name at least one parameter"):
        tune(spec, vary={}, target=("hit", 0.5))


def _config(**params) -> dict:
    block = {"params": {"thac0": 15, "target_ac": 5, **params}, "sections": [{"kind": "validation"}]}
    return {"systems": {"thac0": block}}


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"thac0": 1.5}, ["thac0", "number 1.5"]),  # read as written: no class name
        ({"damage": 0.5}, ["damage", "must be a string", "number 0.5"]),
        ({"thac0": []}, ["thac0", "an empty list"]),
        ({"crit_option": "x" * 10_000}, ["crit_option", "10,000 characters"]),
    ],
)
def test_a_configurations_values_are_said_in_words(params, words):
    with pytest.raises(ConfigError) as caught:
        parse_config(_config(**params), "c.toml")
    message = str(caught.value)
    assert len(message) < 3 * MAX_SHOWN + 300, message[:400]
    for bad in INTERNAL:
        assert bad not in message, message
    for w in words:
        assert w in message, message


def test_a_report_section_kind_of_a_megabyte_is_echoed_by_its_start():
    data = _config()
    data["systems"]["thac0"]["sections"] = [{"kind": "k" * 10**6}]
    with pytest.raises(ConfigError, match=r"1,000,002 characters") as caught:
        parse_config(data, "c.toml")
    assert len(str(caught.value)) < 3 * MAX_SHOWN + 300


@pytest.mark.parametrize("host", ["a..b", "a" * 64 + ".com", ".lead"])
def test_a_scheduler_host_that_is_no_host_name_is_one_line(capsys, host):
    argv = ["simulate", *THAC0, "--trials", "10", "--seed", "1", "--scheduler", f"tcp://{host}:8786"]
    one_line(capsys, argv, "scheduler", "no host name")


@pytest.mark.parametrize(
    ("source", "words"),
    [
        (b"x = 1\x00\n", ["rules.py: not Python source", "null bytes"]),
        (b"# -*- coding: bogus -*-\nx = 1\n", ["rules.py: not Python source", "bogus"]),
        (b"\xff\xfe = 1\n", ["rules.py, line 1: not Python source", "not UTF-8 text"]),
    ],
)
def test_a_mechanic_file_that_is_not_python_names_no_line_none(capsys, tmp_path, monkeypatch, source, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rules.py").write_bytes(source)
    one_line(capsys, ["exact", "rules.py:rule"], *words)
