"""A mechanic that cannot be declared, compiled or computed exactly says so in one line
(exit status 2 on the command line), before any work."""

from __future__ import annotations

import re
import textwrap

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.mechanic import Int, MechanicError, mechanic, param
from critlab.analysis.mechanic import exact as mechanic_exact


def write(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    head = "from critlab.analysis.mechanic import Choice, Int, mechanic, param\n\n"
    path.write_text(head + textwrap.dedent(body))
    return str(path)


def one_line_exit_2(capsys, *args: str) -> str:
    code = main(list(args))
    out, err = capsys.readouterr()
    # a first compile on a fresh machine is said before it (not an error line)
    err = "".join(line for line in err.splitlines(True) if not line.startswith("critlab: compil"))
    assert code == 2 and out == ""
    assert err.startswith("critlab: error: ") and err.count("\n") == 1, err
    return err


def test_a_rule_numba_cannot_compile_names_the_function_and_its_line(tmp_path, capsys):
    path = write(
        tmp_path,
        "rules.py",
        """
        @mechanic(labels=("miss", "hit"), inputs={"die": "1d20"})
        def lookup(die):
            table = {"a": 1}
            return "hit" if die > table else "miss"
        """,
    )
    err = one_line_exit_2(capsys, "exact", f"{path}:lookup", "--json")
    assert "lookup (" in err and "rules.py, line 7)" in err and "Numba cannot compile it" in err
    # simulate and validate fail the same way, before any trial
    assert "line 7" in one_line_exit_2(capsys, "simulate", f"{path}:lookup", "--trials", "10")


def test_a_walk_past_the_budget_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    path = write(
        tmp_path,
        "big.py",
        """
        @mechanic(labels=("low", "high"), values=("total",),
                  inputs={"a": "1d100", "b": "1d100", "c": "1d100", "d": "1d100", "e": "1d100"})
        def five(a, b, c, d, e):
            return ("high" if a + b + c + d + e > 250 else "low"), a + b + c + d + e
        """,
    )
    # the budget is counted as the walk goes: a smaller one refuses the same way, sooner
    monkeypatch.setattr(mechanic_exact, "MAX_GRID", 10**5)
    err = one_line_exit_2(capsys, "exact", f"{path}:five")
    assert f"more than {10**5:,} combinations" in err and "simulate" in err
    assert "combinations" in one_line_exit_2(capsys, "validate", f"{path}:five", "--trials", "100")
    # the simulation itself works: its histogram's range comes from a pilot run
    assert main(["simulate", f"{path}:five", "--trials", "20000", "--seed", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "high" in out


@pytest.mark.parametrize(
    "ref, message",
    [
        ("nowhere/rules.py:f", "no file nowhere/rules.py"),
        ("no_such_module_xyz:f", "cannot import no_such_module_xyz"),
        ("rules.py:", "bad mechanic reference"),
    ],
)
def test_a_bad_reference_is_one_line(capsys, ref, message):
    assert message in one_line_exit_2(capsys, "exact", ref)


def test_a_file_without_that_mechanic(tmp_path, capsys):
    path = write(
        tmp_path,
        "some.py",
        """
        @mechanic(labels=("a", "b"), inputs={"x": "1d2"})
        def coin(x):
            return x - 1

        def plain():
            return 1
        """,
    )
    assert "defines no 'other'; its mechanics: coin" in one_line_exit_2(capsys, "exact", f"{path}:other")
    assert "plain is not a mechanic" in one_line_exit_2(capsys, "exact", f"{path}:plain")
    assert main(["exact", f"{path}:coin", "--json"]) == 0  # a label given as an index
    capsys.readouterr()


def test_a_label_out_of_range_is_caught(tmp_path, capsys, monkeypatch):
    path = write(
        tmp_path,
        "off.py",
        """
        @mechanic(labels=("a", "b"), inputs={"x": "1d3"})
        def off(x):
            return x - 1

        # it reads every input: 3 x 1000^3 leaves, past the exact budget, so the
        # simulation's own check is the one that speaks
        @mechanic(labels=("a", "b"), inputs={"x": "1d3", "u": "1d1000", "v": "1d1000", "w": "1d1000"})
        def off_big(x, u, v, w):
            return x - 1 + 0 * (u + v + w)
        """,
    )
    monkeypatch.setattr(mechanic_exact, "MAX_GRID", 10**4)  # refused sooner, the same way
    err = one_line_exit_2(capsys, "exact", f"{path}:off")
    assert "returned label 2 (for x=3)" in err and "0..1: a, b" in err
    assert "returned label 2" in one_line_exit_2(capsys, "simulate", f"{path}:off", "--trials", "100")
    err = one_line_exit_2(capsys, "simulate", f"{path}:off_big", "--trials", "3000", "--seed", "1")
    found = re.search(r"returned a label outside 0\.\.1 \(a, b\) in ([0-9,]+) of 3,000 trials", err)
    # x = 3 in a third of the trials: 1000 +- 25.8 (binomial sd), within 4 sd at this seed
    assert found and abs(int(found.group(1).replace(",", "")) - 1000) < 4 * 25.9


def declare(fn, **kw):
    kw.setdefault("labels", ("no", "yes"))
    kw.setdefault("inputs", {"die": "1d6"})
    return mechanic(**kw)(fn)


def test_declaration_errors_are_one_line():
    def assigns(die):
        die = die + 1
        return "yes"

    def unknown(die, *, mystery):
        return "yes"

    def defaults(die, *, target=4):
        return "yes"

    def wrong_label(die):
        return "maybe"

    def ok(die, *, target):
        return "yes" if die >= target else "no"

    cases = [
        (assigns, {}, "input 'die' is assigned to"),
        (unknown, {}, "argument 'mystery' is neither an input"),
        (defaults, {"params": {"target": 4}}, "give parameter defaults in params"),
        (wrong_label, {}, "returns label 'maybe', which is not one of no, yes"),
        (ok, {"params": {"trials": 4}}, "parameter 'trials' is a name the command line"),
        (
            ok,
            {"params": {"target": 4}, "inputs": {"die": "1d{sides}"}},
            "names {sides}, which is not a parameter",
        ),
        (ok, {"params": {"target": 4}, "inputs": {"die": "2d6q"}}, "bad dice expression '2d6q'"),
        (ok, {"params": {"target": 2.5}}, "declare it with param"),
        (ok, {"params": {"target": 4}, "labels": ()}, "declare at least one label"),
        (ok, {"params": {"target": 4}, "values": ("tail",)}, "value 'tail'"),
    ]
    for fn, kw, message in cases:
        with pytest.raises(MechanicError, match=None) as info:
            declare(fn, **kw)
        assert message in str(info.value) and "\n" not in str(info.value), (fn.__name__, str(info.value))


def test_returns_that_do_not_fit_the_declaration():
    def no_values(die):
        return "yes"

    def too_many(die):
        return "yes", die, die

    def text(die):
        label = "yes"
        return label

    def floats(die):
        return "yes", die / 2

    for fn, kw, message in [
        (no_values, {"values": ("total",)}, "should return a label and total"),
        (too_many, {"values": ("total",)}, "returns 3 items"),
        (text, {}, "returns text"),
        (floats, {"values": ("half",)}, "value 'half' must be an integer"),
    ]:
        m = declare(fn, **kw)
        with pytest.raises(MechanicError) as info:
            m.exact(m.make_spec())
        assert message in str(info.value), str(info.value)


def test_a_parameter_that_makes_an_input_invalid_names_the_parameter():
    m = declare(
        lambda_free_rule,
        params={"sides": param(6, Int(1, 100), "sides of the die")},
        inputs={"die": "1d{sides}!"},
    )
    with pytest.raises(ValueError, match=r"parameter sides = 1: makes input die = '1d1!'"):
        m.make_spec(sides=1)


def lambda_free_rule(die, *, sides):
    return "yes" if die == sides else "no"


def test_a_rules_file_edited_since_it_was_loaded_is_loaded_again(tmp_path):
    import os

    from critlab.analysis.systems import get_system

    rules = """
        @mechanic(labels=("no", "yes"), inputs={"die": "1d6"})
        def test(die):
            return "yes" if die >= NEED else "no"
        """
    path = write(tmp_path, "rules.py", "NEED = 5\n" + textwrap.dedent(rules))
    first = get_system(f"{path}:test")
    assert first.exact(first.make_spec()).outcomes["yes"] == pytest.approx(2 / 6)
    assert get_system(f"{path}:test") is first
    write(tmp_path, "rules.py", "NEED = 4\n" + textwrap.dedent(rules))
    os.utime(path, ns=(1, 10**18))  # a later modification time, whatever the clock's resolution
    again = get_system(f"{path}:test")
    assert again is not first and again.exact(again.make_spec()).outcomes["yes"] == pytest.approx(3 / 6)
