"""The contract every rule system keeps, checked once for all of them (the registry,
the test-only ``toy-duel`` included): the command line's JSON shapes and hygiene, one
line and exit 2 for a bad parameter, the same counts on 1 and 2 threads, validation
passing at a default point, and ``--help`` naming every parameter's meaning.

Each system's own test file keeps its seed's worked examples and its edge cases.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import sys

import numpy as np
import pytest
from golden.capture import POINTS

from critlab.analysis.cli.main import main
from critlab.analysis.params import Int, declared
from critlab.analysis.systems import registry
from critlab.analysis.validate import validate

SYSTEMS = list(registry())


def point(name: str) -> dict:
    """A legal parameter point of system ``name`` (its first golden point, else defaults)."""
    return POINTS.get(name, [{}])[0]


def argv(params: dict) -> list[str]:
    out = []
    for k, v in params.items():
        out += ["--" + k.replace("_", "-"), str(v).lower() if isinstance(v, bool) else str(v)]
    return out


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _all_numbers(obj) -> bool:
    if isinstance(obj, dict):
        return all(_all_numbers(v) for v in obj.values())
    return obj is None or (isinstance(obj, (int, float)) and not isinstance(obj, bool) and math.isfinite(obj))


@pytest.mark.parametrize("name", SYSTEMS)
def test_exact_json_shape(name, capsys):
    code, out, err = run(capsys, "exact", name, *argv(point(name)), "--json")
    # stdout is the JSON alone; stderr holds at most the note on a capped distribution
    assert code == 0 and all(line.startswith("critlab: note: ") for line in err.splitlines())
    data = json.loads(out)
    assert list(data) == ["system", "params", "outcomes", "distributions", "metrics"]
    system = registry()[name]
    assert data["system"] == name
    assert list(data["params"]) == [f.name for f in dataclasses.fields(system.spec)]
    assert abs(sum(data["outcomes"].values()) - 1) < 1e-9
    assert _all_numbers(data["outcomes"]) and _all_numbers(data["metrics"])
    for dist in data["distributions"].values():
        assert dist is None or ("tail" in dist and _all_numbers(dist) and abs(sum(dist.values()) - 1) < 1e-9)


@pytest.mark.parametrize("name", SYSTEMS)
def test_simulate_json_shape(name, capsys):
    args = [
        "simulate",
        name,
        *argv(point(name)),
        "--trials",
        "20000",
        "--seed",
        "3",
        "--no-progress",
        "--json",
    ]
    code, out, err = run(capsys, *args)
    assert code == 0 and err == ""
    data = json.loads(out)
    exact = json.loads(run(capsys, "exact", name, *argv(point(name)), "--json")[1])
    assert set(data) == set(exact) | {"trials", "seed", "counts", "standard_errors"}
    assert data["trials"] == 20000 and data["seed"] == 3
    assert list(data["counts"]) == list(exact["outcomes"]) == list(data["outcomes"])
    assert sum(data["counts"].values()) == 20000
    assert list(data["distributions"]) == list(exact["distributions"])
    assert data["params"] == exact["params"]


@pytest.mark.parametrize("name", SYSTEMS)
def test_bad_parameter_is_one_line_and_exit_2(name, capsys):
    system = registry()[name]
    ints = [n for n, d in declared(system.spec).items() if isinstance(d.kind, Int)]
    assert ints, "every system has an integer parameter to get wrong"
    bad = ints[0]
    params = {**point(name), bad: declared(system.spec)[bad].kind.hi + 1}
    code, out, err = run(capsys, "exact", name, *argv(params), "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and bad in err and "traceback" not in err.lower()
    code, _, err = run(capsys, "exact", name, "--" + bad.replace("_", "-"), "many")
    assert code == 2 and err.count("\n") == 1 and bad in err


# Values each system's rules refuse, beyond a range (combinations, dice, modes): every one
# is one line on stderr naming the parameter (None: any), exit 2, nothing on stdout.
REFUSED = [
    ("crit-range", ["--attack-bonus", "3", "--evasion", "11", "--crit-range", "25"], "crit_range"),
    ("crits-cats", ["--skill", "1", "--opposing-skill", "1", "--crit-range", "25"], "crit_range"),
    ("crits-cats", ["--skill", "1", "--opposing-skill", "1", "--damage", "1d6!"], "damage"),
    ("crits-cats", ["--mode", "spell", "--skill", "1"], "resistance"),
    ("severity", ["--sm", "5"], "sm"),
    ("severity", ["--ladder", "a:2,b:1"], "ladder"),
    ("severity", ["--magic", "3", "--sm", "1"], None),
    ("contest", ["--a-skill", "12", "--b-skill", "10", "--max-rounds", "0"], "max_rounds"),
    ("contest", ["--a-skill", "12", "--b-skill", "10", "--defender", "c"], "defender"),
    (
        "contest",
        ["--kind", "regular", "--a-skill", "18", "--b-skill", "20", "--criticals", "false"],
        "a_skill",
    ),
    ("contest", ["--b-skill", "10"], "a_skill"),
]


@pytest.mark.parametrize(("name", "args", "param"), REFUSED)
def test_refused_values_are_one_line_and_exit_2(name, args, param, capsys):
    code, out, err = run(capsys, "exact", name, *args, "--json")
    assert code == 2 and out == "" and err.count("\n") == 1
    # A missing value is named as the user typed it (--a-skill); a refused one as its
    # parameter (a_skill).
    flag = None if param is None else "--" + param.replace("_", "-")
    named = param is None or param in err or f"{flag} is required" in err
    assert ("parameter" in err or " is required" in err) and named


# Every d20 roll mode parameter of every system: a word outside the modes is refused,
# naming the parameter, the word and the modes.
ROLL_FLAGS = [
    (name, field)
    for name in SYSTEMS
    for field in ("roll", "opposing_roll")
    if field in {f.name for f in dataclasses.fields(registry()[name].spec)}
]


@pytest.mark.parametrize(("name", "field"), ROLL_FLAGS)
def test_a_bad_roll_mode_exits_2_naming_the_modes(name, field, capsys):
    code, out, err = run(capsys, "exact", name, *argv(point(name)), "--" + field.replace("_", "-"), "twice")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert field in err and "twice" in err and "normal, advantage, disadvantage" in err


@pytest.mark.parametrize("name", SYSTEMS)
def test_same_seed_same_counts_on_1_and_2_threads(name):
    system = registry()[name]
    spec = system.make_spec(**point(name))
    # 3 blocks, so two threads really share the work
    one = system.simulate(spec, trials=600_000, seed=5, threads=1, progress=False)
    two = system.simulate(spec, trials=600_000, seed=5, threads=2, progress=False)
    assert np.array_equal(one.tally.counts, two.tally.counts)
    assert one.to_json() == two.to_json()


@pytest.mark.parametrize("name", SYSTEMS)
def test_validation_passes_at_a_default_point(name):
    system = registry()[name]
    spec = system.make_spec(**point(name))
    # alpha 1e-3 at a fixed seed: a correct simulator fails one system in a thousand
    result = validate(system.exact(spec), system.simulate(spec, trials=200_000, seed=2024, progress=False))
    assert result.passed, result.p_value


@pytest.mark.parametrize("name", SYSTEMS)
def test_seed_from_a_generator_is_recorded(name):
    system = registry()[name]
    spec = system.make_spec(**point(name))
    a = system.simulate(spec, trials=1000, seed=np.random.default_rng(9), progress=False)
    b = system.simulate(spec, trials=1000, seed=a.seed, progress=False)
    assert isinstance(a.seed, int) and np.array_equal(a.tally.counts, b.tally.counts)


@pytest.mark.parametrize("name", SYSTEMS)
def test_help_names_every_parameter_with_its_meaning(name, capsys):
    system = registry()[name]
    try:
        code = main(["exact", name, "--help"])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 0
    text = " ".join(capsys.readouterr().out.split())
    for field, decl in declared(system.spec).items():
        assert "--" + field.replace("_", "-") in text
        assert " ".join(decl.help.split())[:30] in text


@pytest.mark.parametrize("name", SYSTEMS)
def test_wrong_spec_is_a_type_error(name):
    system = registry()[name]
    with pytest.raises(TypeError, match="spec"):
        system.simulate(None, trials=10)


def test_a_first_simulation_says_it_is_compiling(monkeypatch, capsys):
    import critlab.analysis.run as run

    system = registry()["thac0"]
    monkeypatch.setattr(run, "needs_compiling", lambda kernel: True)
    system.simulate(system.make_spec(**point("thac0")), trials=10, seed=1, progress=True)
    assert "compiling the thac0 simulator" in capsys.readouterr().err
    system.simulate(system.make_spec(**point("thac0")), trials=10, seed=1, progress=False)
    assert capsys.readouterr().err == ""


def test_a_first_simulation_says_it_is_compiling_off_a_terminal_too(monkeypatch, capsys):
    # a CI log or a notebook's subprocess: stderr is no terminal, progress left unset
    import critlab.analysis.run as run

    system = registry()["thac0"]
    monkeypatch.setattr(run, "needs_compiling", lambda kernel: True)
    assert not sys.stderr.isatty()
    system.simulate(system.make_spec(**point("thac0")), trials=10, seed=1)
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("critlab: compil")]
    assert said[0].startswith("critlab: compiling the thac0 simulator")
    assert re.fullmatch(r"critlab: compiled the thac0 simulator \(1 of 1, [0-9]+ s\)", said[1])


@pytest.mark.parametrize("name", SYSTEMS)
def test_exact_of_a_wrong_spec_is_a_type_error(name):
    system = registry()[name]
    with pytest.raises(TypeError, match="spec must be"):
        system.exact(None)


# -- how a system looks: declared by the system, read by the style and the report ---------
def _section_of(spec):
    # what the report's palette reads of a sweep section: its spec and whether it is
    # cumulative (a section over a system's spec holds no model of its own)
    from types import SimpleNamespace

    return SimpleNamespace(cumulative=False, base_specs={(): spec}, model=None)


def test_toy_duel_looks_as_its_own_declaration_says():
    from critlab.analysis import style
    from critlab.analysis.report import figures

    duel = registry()["toy-duel"]
    spec = duel.make_spec()
    labels = list(duel.exact(spec).labels)
    # ordered=True in tests/toy_duel/system.py: the report draws its labels as a ladder
    assert figures.outcome_palette(_section_of(spec), labels) == style.ordered_colors(labels)
    # its polarity makes a miss the worst (-2), where the shared words say -1
    colours = style.outcome_colors(labels, duel.polarity_of(labels))
    assert colours["miss"] == style.polar_colour(-2) != style.polar_colour(-1)
    assert colours["crit"] == style.polar_colour(2)


def test_a_system_without_ordered_labels_gets_its_declared_polarity():
    from critlab.analysis import style
    from critlab.analysis.report import figures

    thac0 = registry()["thac0"]
    spec = thac0.make_spec(**point("thac0"))
    labels = list(thac0.exact(spec).labels)
    colours = figures.outcome_palette(_section_of(spec), labels)
    assert colours["fumble"] == style.polar_colour(-2) and colours["critical_hit"] == style.polar_colour(2)
    assert colours["natural20_reduced"] == style.NEUTRAL


def test_labels_without_a_declared_polarity_use_the_qualitative_palette():
    from critlab.analysis import style

    assert style.outcome_colors(("x", "y")) == {"x": style.QUALITATIVE[0], "y": style.QUALITATIVE[1]}


# Points in the other modes, where a mode needs parameters the golden point does not set.
MODE_POINTS = {
    "crit-range": [{"mode": "test", "bonus": 0, "difficulty": 10}],
    "crits-cats": [{"mode": "spell", "skill": 3, "resistance": 2}],
}


@pytest.mark.parametrize("name", SYSTEMS)
def test_declared_polarity_names_only_the_systems_labels(name):
    # a typo in a polarity would silently leave a label grey: every label it names is
    # one of the system's labels in some mode
    system = registry()[name]
    assert all(-2 <= v <= 2 for v in system.polarity.values())
    spec = system.make_spec(**point(name))
    labels = set(system.exact(spec).labels)
    for f in ("mode", "kind"):
        decl = declared(type(spec)).get(f)
        for choice in getattr(decl.kind, "choices", ()) if decl is not None else ():
            try:
                labels |= set(system.exact(spec.replace(**{f: choice})).labels)
            except ValueError:  # a mode that needs parameters this point does not set
                continue
    for params in MODE_POINTS.get(name, []):
        labels |= set(system.exact(system.make_spec(**params)).labels)
    assert set(system.polarity) <= labels, set(system.polarity) - labels
