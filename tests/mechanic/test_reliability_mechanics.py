"""A designer's mechanic that fails is one line naming its file and line (exit 2), never a
traceback with exit 1 (which CI reads as "a balance check failed"); a mechanic is found
only where its reference names it."""

from __future__ import annotations

import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main

RULES = """
from critlab.analysis.mechanic import Int, mechanic, param

PARAMS = {{"t": param(3, Int(1, 6), "threshold")}}
DECL = dict(labels=("lo", "hi"), values=(), params=PARAMS, inputs={{"d": "1d6"}})


@mechanic(**DECL)
def breaks(d, *, t):
    if d == 6:
        raise RuntimeError("the rule broke {tag}")
    return ("hi" if d >= t else "lo"),


@mechanic(**DECL)
def asserts(d, *, t):
    assert d < 6, "no six {tag}"
    return ("hi" if d >= t else "lo"),
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory) -> Path:
    # A tag of its own, so that the compiled rules are this file's and not a cache entry of
    # the same source elsewhere.
    path = tmp_path_factory.mktemp("mechanics") / "rules.py"
    path.write_text(textwrap.dedent(RULES.format(tag=uuid.uuid4().hex)))
    return path


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize(
    ("rule", "raised", "statement"),
    [
        ("breaks", "RuntimeError: the rule broke", "raise RuntimeError"),
        ("asserts", "AssertionError: no six", "assert d"),
    ],
)
@pytest.mark.parametrize("command", ["exact", "simulate"])
def test_a_rule_that_raises_is_one_line_naming_its_file_and_line(
    rules, rule, raised, statement, command, capsys
):
    extra = ["--trials", "1000", "--seed", "1", "--no-progress"] if command == "simulate" else []
    assert main([command, f"{rules}:{rule}", *extra]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.count("\n") == 1 and "Traceback" not in err and captured.out == "", err
    assert f"{rule} ({rules}, line {_line_of(rules, statement)}): the rule raised {raised}" in err, err


def test_the_python_api_raises_one_line_too(rules):
    import critlab

    system = critlab.get_system(f"{rules}:breaks")
    with pytest.raises(ValueError, match=r"^breaks \(.*rules\.py, line \d+\): the rule raised RuntimeError"):
        system.exact(system.make_spec())


def test_a_mechanic_file_not_ending_in_py_is_one_line(rules, tmp_path, capsys):
    other = tmp_path / "rules.txt"
    other.write_text(rules.read_text())
    assert main(["exact", f"{other}:breaks"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rules.txt: a mechanic file is Python source" in err, err


def test_a_module_reference_is_never_imported_from_the_current_folder(tmp_path, monkeypatch, capsys):
    marker = tmp_path / "ran"
    (tmp_path / "localrules.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # as python -m and a notebook put it there
    monkeypatch.setattr(sys, "path", ["", *sys.path])
    assert main(["exact", "localrules:rule"]) == 2
    err = capsys.readouterr().err
    assert not marker.exists(), "the module in the current folder ran"
    assert err.count("\n") == 1 and "cannot import localrules" in err and "./localrules.py:" in err, err
    assert "localrules" not in sys.modules


def test_the_same_file_named_as_a_file_is_loaded(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert main(["exact", "notebooks/examples/savage_worlds.py:trait_roll", "--trait", "8", "--json"]) == 0
    assert '"failure": 0.1875' in capsys.readouterr().out


RANDOM_RULES = {
    "np.random.randint(1, 7)": "import numpy as np",
    "random.randint(1, 6)": "import random",
    "ri(1, 6)": "from random import randint as ri",
    "rng.integers(1, 7)": "import numpy as np\nrng = np.random.default_rng(1)",
}


@pytest.mark.parametrize("call", list(RANDOM_RULES))
def test_a_rule_that_draws_its_own_random_numbers_is_refused_when_declared(call, tmp_path, capsys):
    path = tmp_path / "own_random.py"
    path.write_text(
        f"{RANDOM_RULES[call]}\n"
        "from critlab.analysis.mechanic import mechanic\n\n\n"
        '@mechanic(labels=("lo", "hi"), inputs={"d": "1d6"})\n'
        "def rule(d):\n"
        f"    x = {call}\n"
        '    return ("hi" if d + x > 6 else "lo"),\n'
    )
    assert main(["exact", f"{path}:rule"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    line = 7 + RANDOM_RULES[call].count("\n")  # the line of the call
    assert f"rule ({path}, line {line}): the rule draws its own random numbers" in err, err


def test_a_local_name_random_is_no_generator(tmp_path, capsys):
    path = tmp_path / "named_random.py"
    path.write_text(
        "import random\n"
        "from critlab.analysis.mechanic import mechanic\n\n\n"
        '@mechanic(labels=("lo", "hi"), inputs={"d": "1d6"})\n'
        "def rule(d):\n"
        "    random = d * 2\n"
        '    return ("hi" if random > 6 else "lo"),\n'
    )
    assert main(["exact", f"{path}:rule", "--json"]) == 0
    assert '"hi": 0.5' in capsys.readouterr().out


def test_a_rule_reading_past_the_end_of_a_pool_raises_instead_of_reading_memory(tmp_path, capsys):
    path = tmp_path / "past_the_end.py"
    path.write_text(
        "from critlab.analysis.mechanic import Int, mechanic, param, pool\n\n\n"
        '@mechanic(labels=("lo", "hi"), params={"k": param(5, Int(0, 10), "which die")},\n'
        '          inputs={"rolled": pool("3d6")})\n'
        "def rule(rolled, *, k):\n"
        '    return ("hi" if rolled[k] > 3 else "lo"),\n'
    )
    assert main(["exact", f"{path}:rule", "--k", "2", "--json"]) == 0  # the third die: in the pool
    capsys.readouterr()
    for command in (["exact"], ["simulate", "--trials", "1000", "--seed", "1", "--no-progress"]):
        assert main([command[0], f"{path}:rule", *command[1:]]) == 2  # k = 5: past the 3 dice
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "the rule raised IndexError: index is out of bounds" in err, err
