"""Choices in own mechanics (RULES.md, "Own mechanics: choices, played as well as they can
be"): ``choose`` solved exactly (the references 17/4, 14/3 and 7/6, their thresholds in
words), the best play's objective equal to the best of every policy enumerated by brute
force, the simulation following the same policy (chi-square at fixed seeds), and the
declaration's and the budget's one-line errors."""

from __future__ import annotations

import itertools
import textwrap
from contextlib import contextmanager
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.mechanic import MechanicError, choose, mechanic, resolve
from critlab.analysis.validate import validate

RULES = """
from critlab.analysis.mechanic import Int, choose, mechanic, param

OPTIONS = ("stand", "reroll")
SIDES = {"sides": param(6, Int(2, 8), "sides of each die")}


@mechanic(labels=("done",), values=("value",), params=SIDES, objective="mean:value",
          inputs={"a": "1d{sides}", "b": "1d{sides}"})
def reroll_once(a, b, *, sides):
    if choose("keep", OPTIONS, a) == "stand":
        return "done", a
    return "done", b


@mechanic(labels=("done",), values=("value",), params=SIDES, objective="mean:value",
          inputs={"a": "1d{sides}", "b": "1d{sides}", "c": "1d{sides}"})
def three_tries(a, b, c, *, sides):
    if choose("keep_first", OPTIONS, a) == "stand":
        return "done", a
    if choose("keep_second", OPTIONS, a, b) == "stand":
        return "done", b
    return "done", c


@mechanic(labels=("fail", "success", "great"), params=SIDES, objective="success+great",
          inputs={"a": "1d{sides}", "b": "1d{sides}", "extra": "1d4"})
def gamble(a, b, extra, *, sides):
    how = choose("how", (10, 20, 30), a)
    if how == 10:
        return "great" if a >= sides else "fail"
    if how == 20:
        if a + b > sides + 1:
            return "success"
        return "fail"
    if choose("again", ("keep", "roll"), a, b) == "keep":
        return "success" if b >= 3 else "fail"
    return "success" if extra >= 3 else "fail"
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("choices") / "choosing.py"
    path.write_text(textwrap.dedent(RULES))
    return path


def close(x: float, fraction: float) -> bool:
    return abs(x - fraction) <= 1e-12


def test_the_references_hold_exactly(rules):
    once = resolve(f"{rules}:reroll_once")
    ex = once.exact(once.make_spec())
    assert close(ex.metrics["mean_value"], 17 / 4) and close(ex.metrics["choice_gain"], 17 / 4 - 7 / 2)
    assert ex.policy["keep"]["words"] == "stand when a >= 4, else reroll"
    tries = resolve(f"{rules}:three_tries")
    ex = tries.exact(tries.make_spec())
    assert close(ex.metrics["mean_value"], 14 / 3) and close(ex.metrics["choice_gain"], 7 / 6)
    assert ex.policy["keep_first"]["words"] == "stand when a >= 5, else reroll"
    assert ex.policy["keep_second"]["words"] == "stand when b >= 4, else reroll"
    # the rows: the values read before each choice, the option taken, each option's value
    first = {r["read"]["a"]: r for r in ex.policy["keep_first"]["rows"]}
    assert sorted(first) == [1, 2, 3, 4, 5, 6]
    assert all(first[a]["option"] == ("stand" if a >= 5 else "reroll") for a in first)
    assert all(close(first[a]["values"]["reroll"], 17 / 4) for a in first)
    second = ex.policy["keep_second"]["rows"]
    assert len(second) == 4 * 6  # reached after a reroll of a in 1..4 only
    assert all(r["chosen"] == {"keep_first": "reroll"} and r["read"]["a"] <= 4 for r in second)


def _expected(system, spec, choose_by) -> float:
    """The objective of the plain Python rule over every combination of its inputs (each
    input's exact support), its choices made by ``choose_by(name, seen)``."""
    rule = system.rule
    names = tuple(rule.inputs)
    supports = [_support(rule, spec, n) for n in names]
    params = {p: getattr(spec, p) for p in rule.params}
    total = 0.0
    with _patched_choose(rule.fn, lambda name, options, *seen: choose_by(name, seen)):
        for combo in itertools.product(*supports):
            weight = 1.0
            for _, p in combo:
                weight *= p
            out = rule.fn(**{n: v for n, (v, _) in zip(names, combo, strict=True)}, **params)
            total += weight * _objective(rule, out)
    return total


def _brute_force(system, spec, domains: dict[str, list[tuple]]) -> float:
    """The best objective over every policy: every function from the values seen (here
    every value read before the choice) to an option, for every choice."""
    sites = {s.name: s for s in system.rule.sites}
    tables = [
        [
            dict(zip(domains[name], play, strict=True))
            for play in itertools.product(s.options, repeat=len(domains[name]))
        ]
        for name, s in sites.items()
    ]
    best = -1.0
    for chosen in itertools.product(*tables):
        policy = dict(zip(sites, chosen, strict=True))
        best = max(best, _expected(system, spec, lambda name, seen, p=policy: p[name][seen]))
    return best


def _support(rule, spec, name):
    from critlab.analysis.dice.notation import parse

    text = dict(zip(rule.inputs, rule.input_texts(spec), strict=True))[name]
    d = parse(text).dist()
    return [(int(v), float(p)) for v, p in zip(d.values, d.probs, strict=True) if p > 0]


def _objective(rule, out) -> float:
    label = out[0] if isinstance(out, tuple) else out
    if rule.objective.value is not None:
        return float(out[1 + rule.objective.value])
    return float(rule.labels.index(label) in rule.objective.labels)


@contextmanager
def _patched_choose(fn, policy):
    before = fn.__globals__["choose"]
    fn.__globals__["choose"] = policy
    try:
        yield
    finally:
        fn.__globals__["choose"] = before


def test_best_play_is_the_best_of_every_policy_enumerated(rules):
    tries = resolve(f"{rules}:three_tries")
    spec = tries.make_spec(sides=3)
    values = range(1, 4)
    domains = {"keep_first": [(a,) for a in values], "keep_second": list(itertools.product(values, values))}
    best = _brute_force(tries, spec, domains)
    assert close(tries.exact(spec).metrics["mean_value"], best)
    gamble = resolve(f"{rules}:gamble")
    spec = gamble.make_spec(sides=3)
    domains = {"how": [(a,) for a in values], "again": list(itertools.product(values, values))}
    best = _brute_force(gamble, spec, domains)
    ex = gamble.exact(spec)
    assert close(ex.outcomes["success"] + ex.outcomes["great"], best)
    # and choice_gain: against every fixed play (each choice one option throughout)
    fixed = [
        _expected(gamble, spec, lambda name, seen, how=how, again=again: how if name == "how" else again)
        for how, again in itertools.product((10, 20, 30), ("keep", "roll"))
    ]
    assert close(ex.metrics["choice_gain"], best - max(fixed))


@pytest.mark.parametrize(("name", "params", "seed"), [("three_tries", {}, 11), ("gamble", {"sides": 5}, 12)])
def test_the_simulation_follows_the_exact_policy(rules, name, params, seed):
    system = resolve(f"{rules}:{name}")
    spec = system.make_spec(**params)
    sim = system.simulate(spec, trials=40_000, seed=seed, progress=False)
    v = validate(system.exact(spec), sim)
    assert v.passed, v.text()
    # a policy that ignored the choices (always the first option) is told apart at this size
    if name == "three_tries":
        assert abs(sim.metrics["mean_value"] - 3.5) > 10 * (35 / 12 / 40_000) ** 0.5


def test_the_command_line_prints_the_policy_in_words(rules, capsys):
    assert main(["exact", f"{rules}:three_tries"]) == 0
    out = capsys.readouterr().out
    assert "policy (best play)" in out
    assert "keep_first: stand when a >= 5, else reroll" in out
    assert "keep_second: stand when b >= 4, else reroll" in out
    import json

    assert main(["exact", f"{rules}:three_tries", "--json", "--sides", "4"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["policy"]) == {"keep_first", "keep_second"}
    assert doc["policy"]["keep_first"]["options"] == ["stand", "reroll"]
    assert doc["metrics"]["choice_gain"] > 0


def test_a_walk_past_the_budget_is_one_line_exact_and_simulated(rules, capsys, monkeypatch):
    from critlab.analysis.mechanic import exact as mechanic_exact

    monkeypatch.setattr(mechanic_exact, "MAX_GRID", 20)
    for argv in (
        ["exact", f"{rules}:three_tries", "--sides", "7"],
        ["simulate", f"{rules}:three_tries", "--sides", "7", "--trials", "100", "--no-progress"],
    ):
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1, captured.err
        assert "its simulation follows the exact best play" in captured.err


def test_too_many_positions_for_the_policy_is_one_line(rules, monkeypatch):
    from critlab.analysis.mechanic import policy

    monkeypatch.setattr(policy, "MAX_DECISIONS", 4)
    monkeypatch.setattr(policy, "MAX_KEY_WORDS", 64)
    system = resolve(f"{rules}:three_tries")
    with pytest.raises(MechanicError, match=r"more than 4 positions"):
        system.exact(system.make_spec(sides=8))


def _declare(fn, **kw):
    decl = {"labels": ("done",), "values": ("value",), "inputs": {"a": "1d6", "b": "1d6"}}
    decl.update(kw)
    return mechanic(**decl)(fn)


def no_objective(a, b):
    return "done", a if choose("keep", (0, 1), a) == 0 else b


def no_choice(a, b):
    return "done", a


def twice(a, b):
    x = choose("keep", (0, 1))
    y = choose("keep", (0, 1))
    return "done", x + y


def one_option(a, b):
    return "done", choose("keep", (0,))


def mixed(a, b):
    return "done", choose("keep", (0, "one"))


def unnamed(a, b):
    name = "keep"
    return "done", choose(name, (0, 1))


@pytest.mark.parametrize(
    ("fn", "kw", "message"),
    [
        (no_objective, {}, "declare what its choices maximise: objective="),
        (no_choice, {"objective": "mean:value"}, "objective= is for a rule that chooses"),
        (no_objective, {"objective": "mean:damage"}, "'damage' is not a declared value"),
        (no_objective, {"objective": "done+hit"}, "labels joined by +"),
        (twice, {"objective": "mean:value"}, "choice 'keep' is made at two places"),
        (one_option, {"objective": "mean:value"}, "tuple of 2..16 different integers or strings"),
        (mixed, {"objective": "mean:value"}, "tuple of 2..16 different integers or strings"),
        (unnamed, {"objective": "mean:value"}, "NAME is a short identifier in quotes"),
    ],
)
def test_declaration_errors_are_one_line(fn, kw, message):
    with pytest.raises(MechanicError) as info:
        _declare(fn, **kw)
    text = str(info.value)
    assert message in text and "\n" not in text, text


def test_choose_by_hand_takes_the_first_option():
    assert choose("keep", ("stand", "reroll"), 3) == "stand"


def test_the_same_seed_gives_the_same_counts_on_any_number_of_threads(rules):
    system = resolve(f"{rules}:gamble")
    spec = system.make_spec(sides=4)
    one, two = (
        system.simulate(spec, trials=300_000, seed=9, threads=t, progress=False).tally.counts for t in (1, 2)
    )
    assert one.tolist() == two.tolist()
