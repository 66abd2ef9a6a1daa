"""The dice notation's syntax end to end on the command line: every element of the
grammar is accepted by ``critlab dice`` (exit 0, a reading, probabilities summing to 1),
and every refusal is one line on stderr with exit 2, never a traceback."""

from __future__ import annotations

import json

import pytest

from critlab.analysis.cli.main import main

# every production of the grammar, at least once
ELEMENTS = [
    # expression: terms, signs, constants, a comparison of each kind
    "7", "-3", "d20", "2d6+1d4-1", "-1d6+3", "2d6+0+1",
    "1d20+5>=15", "2d6=7", "2d6<5", "2d6<=4", "2d6>9", "2d6>=10", "1d20-5>=-2",
    # faces
    "1d6", "3d1000", "1d%", "4dF", "4df", "d{1,1,2}", "2d{-1,0,3}", "0d6", "0d6+2",
    # selectors, in a reroll
    "1d6rr2", "1d6rr=2", "1d6rr<2", "1d6rr<=2", "1d6rr>5", "1d6rr>=5", "2d6ro1", "2d6ro<=2",
    # clamps
    "2d6mi3", "2d6ma5", "2d6mi2ma5", "4dFmi0",
    # explosions
    "1d6!", "1d6!>=5", "1d6!5", "1d6!o", "1d6!>=5o", "1d6!!", "1d6!!=5o", "1d6!p", "1d6!p>=5",
    "3d6x", "5d10x10", "5d10x>=9o", "1d6rr1!",
    # keep
    "4d6kh3", "4d6kl3", "4d6dh1", "4d6dl1", "4d6k3", "6d10!kh3", "4d6xkh3", "4d6xkl1",
    "4d6xdl1", "3d6xdh1", "4d6xdl4",
    # counts
    "5d10cs>=8", "5d10cs10", "10d10cs>=6df=1", "10d10cs>5df<2", "6d6cf<=2", "5d10!cs>=8",
    "5d10x10cs>=8", "6d10kh3cs>=8",
    # scale
    "2d6*2", "1d6/2", "4d6kh3*10", "5d10cs>=8*2",
    # groups
    "{1d6, 1d8}", "{1d8!, 1d6!}kh1", "{d6, d6, d8, d12}kh2", "{1d6, 1d8}k1*2", "{1d6, 1d8}dl1",
    "{1d6, 1d8, 1d10}cs>=5", "{1d6, 1d8, 1d10}cs>=5df1", "{2d6+1, 1d12}kl1/2",
    "{1d20>=11, 1d20>=11}", "-{1d6, 1d6}kh1+1d4",
    # spaces and case
    "2D6 + 1", " 4 d 6 k h 3 ",
]  # fmt: skip

# every refusal: what the grammar does not produce, and what the rules refuse
REFUSALS = [
    "", "   ", "foo", "2d6y", "2d6+", "+", "1d6++1", "2d-6", "d0", "1d1001", "1001d6", "2d6+-1d6",
    "1d20+9999999", "99999999999d6", "1d6\n", "2d6\t+1", "１d６",
    "d{}", "d{1,2", "d{" + ",".join(["1"] * 101) + "}", "0d6!", "0d6kh1",
    "1d6rr", "1d6rr<=6", "1d6rr0", "1d6ro7", "1d1rr1",
    "1d6mi7", "1d6ma0", "2d6mi5ma3", "2d6ma5mi2", "2d6mi3!",
    "1d6!>=1", "1d1!", "1d6!>=7", "1d6!>=", "1d6!po", "dF!<=0", "1d6!>=5!", "1d6!!!",
    "3d6kh0", "3d6kh4", "6d10!dl6", "4d6dl0", "3d6kh", "6d10kh3dl1", "4d6xdl5",
    "5d10cs", "5d10cs>=11", "5d10cs>=8df>=11", "5d10cs>=8cs>=9", "5d10cf", "5d10df1",
    "1d6*0", "1d6/0", "1d6/101", "1d6*2*2",
    "6d10kh3!", "6d10cs>=8kh3", "1d6!rr1", "2d6*2mi3",
    "{1d6}", "{1d6, 1d4", "{1d6, {1d4, 1d4}}", "{1d6, 1d6}kh3", "{1d6, 1d6}rr1", "{1d6, 1d6}!",
    "{1d6, 1d6}cs>=7", "{}", "{,}", "2d6>=", "2d6>=7>=8",
    "+".join(["100d1000"] * 100), "+".join(["1d1000"] * 1000), "1" + "+1" * 500_000,
    "100d1000!kh50",
]  # fmt: skip


def run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


@pytest.mark.parametrize("expr", ELEMENTS)
def test_every_grammar_element_is_accepted(expr, capsys):
    assert run(["dice", expr, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["reading"].startswith(f"{expr}: ") or out["reading"].split(":")[0] == expr
    dist = out["distribution"]
    assert abs(sum(dist.values()) - 1.0) <= 1e-12 and dist["tail"] < 1e-12


@pytest.mark.parametrize("expr", REFUSALS, ids=lambda e: e if len(e) < 40 else f"{e[:30]}...({len(e)})")
def test_every_refusal_is_one_line_and_exit_2(expr, capsys):
    assert run(["dice", expr, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and len(lines[0]) < 600, captured.err
    assert lines[0].startswith("critlab: error:") and "Traceback" not in captured.err


# another tool's spelling, refused with critlab's (docs/rules.md: "a refusal of a form
# another tool writes names critlab's spelling")
TAUGHT = [
    ("4d6r1", "critlab writes rr1 (while it shows) or ro1 (once)"),
    ("4d6r<3", "rr<3 (while it shows) or ro<3 (once)"),
    ("4d6r", "rr1 (while it shows) or ro1 (once)"),
    ("4d6d1", "critlab writes dl1"),
    ("1d20min10", "critlab writes mi10"),
    ("2d6max5", "critlab writes ma5"),
    ("2d6+1d6[fire]", "'[fire]' at position 8 is a flavour label, read only in a dialect: --dialect"),
    ("2d20kh", "kh1"),
    ("2d20k", "kh1"),
    ("4d6sa", "sorting"),
    ("10d10>8f1", "df1"),
    ("6d6sf<3", "--dialect"),
    ("6d6even", "--dialect"),
    ("2d6m", "critlab has no matches"),
    ("1d{" + ",".join(map(str, range(2000))) + "}", "more than 100 faces; list 1..100"),
]


@pytest.mark.parametrize(("expr", "spelling"), TAUGHT, ids=lambda e: e[:20])
def test_another_tools_spelling_is_refused_with_critlabs(expr, spelling, capsys):
    assert run(["dice", expr]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and spelling in err, err
