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
from pathlib import Path

import numpy as np
import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.params import Int, declared
from critlab.analysis.systems import registry
from critlab.analysis.validate import validate

POINTS = json.loads((Path(__file__).parent / "golden" / "points.json").read_text())
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
    assert code == 0 and err == ""
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
    import critlab.analysis.systems.base as base

    system = registry()["thac0"]
    monkeypatch.setattr(base, "needs_compiling", lambda kernel: True)
    system.simulate(system.make_spec(**point("thac0")), trials=10, seed=1, progress=True)
    assert "compiling the thac0 simulator" in capsys.readouterr().err
    system.simulate(system.make_spec(**point("thac0")), trials=10, seed=1, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("name", SYSTEMS)
def test_exact_of_a_wrong_spec_is_a_type_error(name):
    system = registry()[name]
    with pytest.raises(TypeError, match="spec must be"):
        system.exact(None)
