"""Your own mechanic: the shipped examples against independent computations (icepool,
closed forms), the command line's JSON contract, laziness (an unused input costs
nothing and changes nothing), thread determinism, sweeps, plots and pickling."""

from __future__ import annotations

import json
import math
import pickle
from fractions import Fraction
from pathlib import Path

import icepool
import numpy as np
import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.design.sweep import sweep
from critlab.analysis.mechanic import Bool, Int, Mechanic, mechanic, param
from critlab.analysis.systems import get_system
from critlab.analysis.validate import validate

EXAMPLES = Path(__file__).resolve().parents[2] / "notebooks" / "examples"
SAVAGE = f"{EXAMPLES / 'savage_worlds.py'}:trait_roll"
BLADES = f"{EXAMPLES / 'blades_in_the_dark.py'}:action_roll"
TOL = 1e-12


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def icepool_trait_roll(trait: int) -> icepool.Die:
    # icepool truncates explosions at a depth: its last level (18 explosions of the trait die)
    # keeps what would explode further, so bins are compared below it; the outcome
    # probabilities keep all of that mass on the right side of every threshold. critlab's
    # own tail is below 1e-13.
    return icepool.highest(icepool.Die(range(1, trait + 1)).explode(depth=18), icepool.d6.explode(depth=20))


@pytest.mark.parametrize("trait", [4, 6, 8, 10, 12])
@pytest.mark.parametrize("target", [4, 6, 9])
def test_trait_roll_matches_icepool(trait, target):
    m = get_system(SAVAGE)
    ours = m.exact(m.make_spec(trait=trait, target=target))
    best = icepool_trait_roll(trait)
    expected = {
        "failure": best.probability("<", target),
        "raise": best.probability(">=", target + 4),
    }
    expected["success"] = 1 - expected["failure"] - expected["raise"]
    for label, p in expected.items():
        assert abs(ours.outcomes[label] - float(p)) <= TOL, label
    margin = ours.distributions["margin"]
    for outcome in best.outcomes():
        if outcome < 18 * trait:  # below the last level of icepool's truncated chains
            assert abs(margin.pmf(outcome - target) - float(best.probability(outcome))) <= TOL
    assert 0 < ours.metrics["tail"] < 1e-12
    assert margin.tail == ours.metrics["tail"]


def test_exact_json_of_trait_roll_matches_icepool(capsys):
    code, out, err = run(capsys, "exact", SAVAGE, "--trait", "8", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert list(data) == ["system", "params", "outcomes", "distributions", "metrics"]
    assert data["params"] == {"trait": 8, "target": 4}
    best = icepool_trait_roll(8)
    assert abs(data["outcomes"]["failure"] - float(best.probability("<", 4))) <= TOL
    assert abs(data["outcomes"]["raise"] - float(best.probability(">=", 8))) <= TOL
    assert abs(sum(data["outcomes"].values()) + data["metrics"]["tail"] - 1) < 1e-15
    assert data["distributions"]["margin"]["tail"] == data["metrics"]["tail"]


def test_trait_roll_validates(capsys):
    # the README and CI run this at 10^7 trials; here 10^5
    code, out, err = run(
        capsys,
        "validate",
        SAVAGE,
        "--trait",
        "8",
        "--trials",
        "100000",
        "--seed",
        "1",
        "--no-progress",
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["passed"] and data["trials"] == 100000 and data["seed"] == 1
    assert {"outcome", "exact", "observed", "z"} <= set(data["rows"][0])


def test_simulate_json_contract(capsys):
    args = ("simulate", SAVAGE, "--trait", "6", "--trials", "20000", "--seed", "3", "--no-progress", "--json")
    code, out, err = run(capsys, *args)
    assert code == 0 and err == ""
    data = json.loads(out)
    keys = "system params trials seed outcomes counts standard_errors distributions metrics"
    assert list(data) == keys.split()
    assert sum(data["counts"].values()) == 20000
    assert set(data["metrics"]) == {"mean_margin", "tail"}
    assert run(capsys, *args)[1] == out  # same seed, same JSON


def test_blades_action_roll_matches_the_closed_form():
    m = get_system(BLADES)
    for n in range(13):
        r = m.exact(m.make_spec(dice=n))
        if n == 0:  # two dice, the lower kept: P(lower >= k) = ((7 - k) / 6)^2
            want = {"failure": 1 - Fraction(1, 4), "partial": Fraction(1, 4) - Fraction(1, 36)}
            want |= {"success": Fraction(1, 36), "critical": 0}
        else:
            one_six = n * Fraction(1, 6) * Fraction(5, 6) ** (n - 1)
            want = {"failure": Fraction(1, 2) ** n, "partial": Fraction(5, 6) ** n - Fraction(1, 2) ** n}
            want |= {"success": one_six, "critical": 1 - Fraction(5, 6) ** n - one_six}
        for label, p in want.items():
            assert r.outcomes[label] == pytest.approx(float(p), abs=1e-15), (n, label)
        # one pool read: its distinct sorted outcomes, C(n + 5, 5) (two dice when there are none)
        assert m.rule.last_walk["leaves"] == math.comb((n or 2) + 5, 5)


def test_blades_validates_on_two_threads_with_the_same_counts():
    m = get_system(BLADES)
    spec = m.make_spec(dice=3)
    one = m.simulate(spec, trials=300_000, seed=9, threads=1, progress=False)
    two = m.simulate(spec, trials=300_000, seed=9, threads=2, progress=False)
    assert np.array_equal(one.tally.counts, two.tally.counts)
    assert np.array_equal(one.tally.hists["result"].counts, two.tally.hists["result"].counts)
    assert validate(m.exact(spec), one).passed


@pytest.mark.parametrize(("where", "params"), [(SAVAGE, {"trait": 8}), (BLADES, {"dice": 3})])
def test_simple_inputs_roll_by_their_plans_the_dice_the_interpreter_rolls(where, params, monkeypatch):
    # exploding trait and wild dice; a pool of d6: every input simple, so the block rolls
    # them without the interpreter (no interpreter to compile), and must draw the same dice
    from critlab.analysis.mechanic import sim

    m = get_system(where)
    spec = m.make_spec(**params)
    assert sim.simple_args(sim.kernel_args(m.rule, spec)).terms is None
    planned = m.simulate(spec, trials=100_000, seed=5, progress=False)
    monkeypatch.setattr(sim, "simple_args", lambda args: args)  # the interpreter's rolls
    interpreted = m.simulate(spec, trials=100_000, seed=5, progress=False)
    assert np.array_equal(planned.tally.counts, interpreted.tally.counts)
    for name, hist in planned.tally.hists.items():
        assert np.array_equal(hist.counts, interpreted.tally.hists[name].counts), name


@mechanic(
    labels=("low", "high"),
    values=("total",),
    params={"split": param(7, Int(2, 12), "a total at or above it is high")},
    inputs={"a": "1d6", "b": "1d6"},
)
def two_dice(a, b, *, split):
    return ("high" if a + b >= split else "low"), a + b


@mechanic(
    labels=("low", "high"),
    values=("total",),
    params={"split": param(7, Int(2, 12), "a total at or above it is high")},
    inputs={"a": "1d6", "spare": "1d20!", "b": "1d6", "never": "10d10!"},
)
def two_dice_and_spares(a, spare, b, never, *, split):
    if a + b > 100:  # never true: spare and never are declared, never read
        return "high", spare + never
    return ("high" if a + b >= split else "low"), a + b


def test_an_unused_input_costs_nothing_and_changes_nothing():
    plain, spared = two_dice.make_spec(split=8), two_dice_and_spares.make_spec(split=8)
    ex_plain, ex_spared = two_dice.exact(plain), two_dice_and_spares.exact(spared)
    assert ex_plain.outcomes == ex_spared.outcomes
    assert ex_plain.distributions["total"].to_dict() == ex_spared.distributions["total"].to_dict()
    assert two_dice_and_spares.rule.last_walk["leaves"] == 36  # not 36 x 20-odd x thousands
    a = two_dice.simulate(plain, trials=50_000, seed=11, progress=False)
    b = two_dice_and_spares.simulate(spared, trials=50_000, seed=11, progress=False)
    assert np.array_equal(a.tally.counts, b.tally.counts)  # the same dice, drawn in the same order
    assert np.array_equal(a.tally.hists["total"].counts, b.tally.hists["total"].counts)


def test_mechanic_is_a_rule_system_with_sweeps_and_plots():
    assert isinstance(two_dice, Mechanic) and two_dice(3, 4, split=7) == ("high", 7)
    spec = two_dice.make_spec()
    df = sweep(spec, split=range(2, 13))
    outcomes = df[df.kind == "outcome"]
    assert outcomes.groupby("split")["exact"].sum().round(12).eq(1).all()
    high = outcomes[outcomes.name == "high"].set_index("split")["exact"]
    assert high[7] == pytest.approx(21 / 36) and high[2] == pytest.approx(1.0)
    from critlab.analysis.style import legend_inside_figure, uses_default_cycle

    for name, plot in two_dice.plots.items():
        fig = plot(spec, "split") if name == "outcomes" else plot(spec, "total")
        assert fig.axes and legend_inside_figure(fig) and not uses_default_cycle(fig.axes[0])
    import matplotlib.pyplot as plt

    plt.close("all")


def test_specs_and_blocks_travel_by_reference():
    m = get_system(SAVAGE)
    spec = m.make_spec(trait=10)
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and type(again) is type(spec)
    from critlab.analysis.mechanic.sim import MechanicBlock, kernel_args
    from critlab.analysis.tally import Layout

    layout = Layout(m.rule.labels, {"margin": (-3, 40)}, counters=("margin_sum", "label_out_of_range"))
    block = MechanicBlock(m, layout.array, kernel_args(m.rule, spec))
    copy = pickle.loads(pickle.dumps(block))
    from critlab.kernels.rng import stream_state

    out1, out2 = np.zeros(layout.n_out, np.int64), np.zeros(layout.n_out, np.int64)
    block(stream_state(5, 0), 1000, out1)
    copy(stream_state(5, 0), 1000, out2)
    assert np.array_equal(out1, out2) and out1[:3].sum() == 1000


def test_a_spec_is_checked_like_a_built_in(capsys):
    code, out, err = run(capsys, "exact", SAVAGE, "--trait", "3")
    assert code == 2 and out == ""
    assert err == "critlab: error: parameter trait = 3: must be one of 4, 6, 8, 10, 12\n"
    code, out, err = run(capsys, "exact", SAVAGE, "--help")
    assert code == 0 and "sides of the trait die" in out and "--target" in out


@mechanic(
    labels=("miss", "hit"),
    params={
        "target": param(4, Int(1, 7), "the face to reach"),
        "reroll_ones": param(False, Bool(), "a 1 is rolled again, once"),
    },
    inputs={"die": "1d6", "again": "1d6"},
)
def d6_test(die, again, *, target, reroll_ones):
    face = again if reroll_ones and die == 1 else die
    return 1 if face >= target else 0  # labels as indices


def test_a_mechanic_without_values_and_with_a_bool_parameter():
    spec = d6_test.make_spec(target=5, reroll_ones=True)
    ex = d6_test.exact(spec)
    assert ex.outcomes["hit"] == pytest.approx(2 / 6 + 1 / 6 * 2 / 6, abs=1e-15)
    assert ex.distributions == {} and ex.metrics == {"tail": 0.0}
    sim = d6_test.simulate(spec, trials=50_000, seed=2, progress=False)
    assert validate(ex, sim).passed and sim.to_json()["distributions"] == {}
    assert d6_test.exact(d6_test.make_spec(target=5)).outcomes["hit"] == pytest.approx(2 / 6, abs=1e-15)
    df = sweep(spec, simulate=True, trials=20_000, seed=3, target=[2, 6])
    outcomes = df[df.kind == "outcome"]
    assert set(df.columns) >= {"target", "exact", "simulated", "z"} and (outcomes.z.abs() < 5).all()


def test_drivers_fall_back_to_calling_the_rule_when_inlining_fails(monkeypatch):
    from numba.core.errors import TypingError

    from critlab.analysis.mechanic.compile import run_driver
    from critlab.analysis.mechanic.exact import supports

    params = two_dice.rule.param_values(two_dice.make_spec(split=7))  # split, then the stop flag
    compiled = two_dice.rule.compiled(params)
    real = compiled.kernels

    class Refuses:
        def __getattr__(self, name):
            def fail(*args):
                raise TypingError("cannot inline")

            return fail

    compiled.kernels, compiled.fell_back = Refuses(), False
    try:
        sups = supports(two_dice.rule, two_dice.make_spec(split=7))
        label_p, cut, counts = np.zeros((2, 2)), np.zeros((2, 1)), np.zeros(5, np.int64)
        vmin, vmax = np.full(1, 99, np.int64), np.full(1, -99, np.int64)
        walk = sups.walked()
        rest = (sups.tails, 10**6, label_p, vmin, vmax, np.zeros(1, np.int64), np.zeros((2, 1)), cut, counts)
        run_driver(two_dice.rule.fn, compiled, "explore", 0, params, *walk, *rest, np.zeros(3, np.int64))
        assert compiled.fell_back and (label_p[0] + label_p[1]).tolist() == pytest.approx([15 / 36, 21 / 36])
    finally:
        compiled.kernels, compiled.fell_back = real, False


def test_a_mechanic_on_a_dask_cluster_gives_the_local_counts(dask_client):
    m = get_system(BLADES)
    spec = m.make_spec(dice=4)
    local = m.simulate(spec, trials=600_000, seed=21, threads=1, progress=False)
    remote = m.simulate(spec, trials=600_000, seed=21, progress=False, client=dask_client)
    assert remote.to_json() == local.to_json()


def test_a_first_mechanic_simulation_says_it_is_compiling(monkeypatch, capsys):
    import re

    import critlab.analysis.run as running

    monkeypatch.setattr(running, "needs_compiling", lambda kernel: True)
    code, _, err = run(capsys, "simulate", SAVAGE, "--trait", "6", "--trials", "1000", "--seed", "1")
    said = [line for line in err.splitlines() if line.startswith("critlab: compil")]
    assert code == 0 and said[0].startswith("critlab: compiling the trait_roll simulator (1 of 1")
    assert re.fullmatch(r"critlab: compiled the trait_roll simulator \(1 of 1, [0-9]+ s\)", said[1])
    code, _, err = run(capsys, "simulate", SAVAGE, "--trait", "6", "--trials", "1000", "--no-progress")
    assert code == 0 and "compil" not in err
