"""A rule's own bugs (issue 36): a division by zero, a list returned, a file that ends
the program when loaded: each one line naming the rule's file and line, exit 2, exact
and simulated, and the same line raised in Python; never a traceback, and never a
silent 0 (the rules are compiled with the numpy error model, under which an integer
``//`` or ``%`` by zero is 0)."""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.mechanic import MechanicError, mechanic, resolve

DIVISIONS = """
from critlab.analysis.mechanic import mechanic

DECL = dict(labels=("lo", "hi"), values=("q",), inputs={{"d": "1d6", "e": "1d4"}})
# {tag}


@mechanic(**DECL)
def floor_divides(d, e):
    q = 6 // (d - 1)
    return "hi", q


@mechanic(**DECL)
def remainder(d, e):
    q = 7 % (d - 2)
    return "hi", q


@mechanic(**DECL)
def divides_in_place(d, e):
    q = 12
    if d > 3:
        q //= d - 4
    return "hi", q


@mechanic(**DECL)
def true_divides(d, e):
    return "hi", int(12 / (e - 3))


@mechanic(**DECL)
def by_an_input(d, e):
    return "hi", (7 * d) // e + d % e


@mechanic(**DECL)
def by_constants(d, e):
    q = d // 2 + d % 3 + int(d / 4)
    return ("hi" if q > 3 else "lo"), q
"""


@pytest.fixture(scope="module")
def divisions(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bugs") / "divisions.py"
    path.write_text(textwrap.dedent(DIVISIONS.format(tag=uuid.uuid4().hex)))
    return path


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _one_line(capsys, *argv: str) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    return captured.err


@pytest.mark.parametrize(
    ("rule", "statement"),
    [
        ("floor_divides", "6 // (d - 1)"),
        ("remainder", "7 % (d - 2)"),
        ("divides_in_place", "q //= d - 4"),
        ("true_divides", "12 / (e - 3)"),
    ],
)
@pytest.mark.parametrize("command", ["exact", "simulate"])
def test_a_division_by_zero_is_one_line_naming_its_line(divisions, rule, statement, command, capsys):
    extra = ["--trials", "2000", "--seed", "3", "--no-progress"] if command == "simulate" else []
    err = _one_line(capsys, command, f"{divisions}:{rule}", *extra)
    line = _line_of(divisions, statement)
    assert f"{rule} ({divisions}, line {line}): the rule raised ZeroDivisionError" in err, err


def test_the_python_api_raises_the_same_line(divisions):
    system = resolve(f"{divisions}:floor_divides")
    spec = system.make_spec()
    line = _line_of(divisions, "6 // (d - 1)")
    runs = (lambda: system.exact(spec), lambda: system.simulate(spec, trials=500, seed=1, progress=False))
    for run in runs:
        with pytest.raises(MechanicError, match=rf"^floor_divides \(.*divisions\.py, line {line}\): "):
            run()


def test_division_by_a_nonzero_constant_is_left_as_it_was(divisions):
    system = resolve(f"{divisions}:by_constants")
    exact = system.exact(system.make_spec())
    # Python's own floor division and modulo, over the six faces
    expected = sum(d // 2 + d % 3 + int(d / 4) for d in range(1, 7)) / 6
    assert exact.metrics["mean_q"] == pytest.approx(expected, abs=1e-12)


def test_a_divisor_never_zero_divides_in_simulation_too(divisions):
    # the simulation runs the rule on with a stand-in 0 for an input not yet rolled (its
    # result then thrown away): no error there, and the counts agree with exact
    from critlab.analysis.validate import validate

    system = resolve(f"{divisions}:by_an_input")
    spec = system.make_spec()
    sim = system.simulate(spec, trials=20_000, seed=5, progress=False)
    assert validate(system.exact(spec), sim).passed
    expected = sum((7 * d) // e + d % e for d in range(1, 7) for e in range(1, 5)) / 24
    assert system.exact(spec).metrics["mean_q"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("returned", "what"),
    [("[die]", "list"), ('"hit", [die]', "list"), ("{die}", "set"), ('"hit", {"a": die}', "dict")],
)
def test_a_rule_returning_a_list_is_refused_when_declared(returned, what, tmp_path, capsys):
    path = tmp_path / "returns.py"
    path.write_text(
        "from critlab.analysis.mechanic import mechanic\n\n\n"
        '@mechanic(labels=("miss", "hit"), values=("v",), inputs={"die": "1d6"})\n'
        "def listing(die):\n"
        f"    return {returned}\n"
    )
    for argv in (["exact", f"{path}:listing"], ["simulate", f"{path}:listing", "--trials", "10"]):
        err = _one_line(capsys, *argv)
        assert f"listing ({path}, line 6): returns a {what}" in err, err

    def listing(die):
        return [die]

    with pytest.raises(MechanicError, match=r"listing \(.*, line \d+\): returns a list; return a label"):
        mechanic(labels=("miss", "hit"), inputs={"die": "1d6"})(listing)


def test_a_list_that_numba_cannot_type_is_one_line(tmp_path, capsys):
    # a list made elsewhere and returned by name: Numba's typing raises a TypeError of its own
    path = tmp_path / "named.py"
    path.write_text(
        "from critlab.analysis.mechanic import mechanic\n\n\n"
        '@mechanic(labels=("miss", "hit"), values=("v",), inputs={"die": "1d6"})\n'
        "def named(die):\n"
        '    out = ["hit", die]\n'
        "    return out\n"
    )
    for argv in (["exact", f"{path}:named"], ["simulate", f"{path}:named", "--trials", "10"]):
        err = _one_line(capsys, *argv)
        assert f"named ({path}, line " in err, err


@pytest.mark.parametrize("command", ["exact", "simulate"])
def test_a_file_calling_sys_exit_on_import_is_one_line(command, tmp_path, capsys):
    path = tmp_path / "exits.py"
    path.write_text("import sys\n\n\nsys.exit(3)\n")
    extra = ["--trials", "10"] if command == "simulate" else []
    err = _one_line(capsys, command, f"{path}:rule", *extra)
    assert f"{path}, line 4: the file calls sys.exit(3) when it is loaded" in err, err
    with pytest.raises(ValueError, match=r"line 4: the file calls sys.exit\(3\)"):
        resolve(f"{path}:rule")
