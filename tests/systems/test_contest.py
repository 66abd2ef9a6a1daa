"""contest: the seed's worked examples (seed 003), hand computations, errors, MC vs exact."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.contest import _icepool_quick, _numpy_quick, _numpy_regular, _numpy_resistance
from critlab.analysis.cli.main import main
from critlab.analysis.design.sweep import sweep
from critlab.analysis.spec import SpecError
from critlab.analysis.systems.contest import (
    SYSTEM,
    ContestSpec,
    effective_attack_skill,
    exact,
    judge,
    kernel_args,
    rescale_skills,
    rounds_dist,
    simulate,
)
from critlab.analysis.validate import validate
from critlab.analysis.views.contest import rescale_table
from critlab.kernels import contest as k
from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.jit import kernel
from critlab.kernels.rng import local_state, stream_state

# Significance for MC-vs-exact checks: fixed seeds make each verdict reproducible, and at
# 1e-3 a real bias of a few percent in any label at these trial counts is still caught.
ALPHA = 1e-3
# 3d6: ways of rolling 3..18 out of 216.
WAYS = {t: sum(1 for d in itertools.product(range(1, 7), repeat=3) if sum(d) == t) for t in range(3, 19)}


# -- the seed's worked examples --------------------------------------------------------------
@pytest.mark.parametrize(("will", "rolled"), [(10, 16), (16, 16), (17, 17), (18, 18), (20, 18)])
def test_seed_rule_of_16(will, rolled):
    # seed 003: an effective 18 against Will 16 or lower rolls against 16, against Will 17
    # against 17, and against Will 18 or more against 18.
    assert effective_attack_skill(18, will) == rolled
    spec = ContestSpec(kind="resistance", a_skill=18, b_skill=will)
    assert spec.rolled_skills == (rolled, will)
    uncapped = exact(ContestSpec(kind="resistance", a_skill=rolled, b_skill=will, rule_of_16=False))
    assert exact(spec).outcomes == uncapped.outcomes


def test_rule_of_16_off_keeps_the_full_skill():
    spec = ContestSpec(kind="resistance", a_skill=18, b_skill=10, rule_of_16=False)
    assert spec.rolled_skills == (18, 10)
    assert exact(spec).outcomes["affected"] > exact(spec.replace(rule_of_16=True)).outcomes["affected"]


@pytest.mark.parametrize(("a", "b", "rescaled"), [(20, 23, (10, 12)), (3, 4, (9, 12)), (23, 20, (12, 10))])
def test_seed_rescaling_examples(a, b, rescaled):
    # seed 003: "20 against 23 ... halve both to 10 and 12"; "3 against 4 ... triple them to 9 and 12".
    assert rescale_skills(a, b) == rescaled
    r = exact(ContestSpec(kind="regular", a_skill=a, b_skill=b, rescale=True))
    assert (r.metrics["rescaled_a"], r.metrics["rescaled_b"]) == rescaled
    plain = exact(ContestSpec(kind="regular", a_skill=a, b_skill=b))
    assert (plain.metrics["rescaled_a"], plain.metrics["rescaled_b"]) == (a, b)
    assert r.outcomes == exact(ContestSpec(kind="regular", a_skill=rescaled[0], b_skill=rescaled[1])).outcomes


@pytest.mark.parametrize(
    ("a", "b", "rescaled"),
    [
        (1, 1, (9, 9)),  # k = 9
        (2, 6, (10, 30)),  # k = 5 puts the lower 2 at 10
        (5, 6, (10, 12)),  # smallest k = 2, though 3 would not fit anyway
        (17, 40, (9, 20)),  # ceil(17/2) = 9, ceil(40/2) = 20
        (100, 101, (12, 12)),  # k = 9: ceil(100/9) = 12 (k = 8 gives 13)
        (14, 20, (14, 20)),  # ceil(14/k) <= 7: no k puts it in 9..12
        (16, 16, (16, 16)),
        (6, 7, (6, 7)),  # not both in 1..6
        (0, 3, (0, 3)),
        (13, 30, (13, 30)),  # not both 14+
    ],
)
def test_rescaling_choices(a, b, rescaled):
    assert rescale_skills(a, b) == rescaled


# -- hand-computed success rolls and contests -------------------------------------------------
@pytest.mark.parametrize(
    ("skill", "roll", "expected"),
    [
        (1, 3, (True, True, False)),  # 3-4 always succeed, critically
        (-5, 4, (True, True, False)),
        (15, 5, (True, True, False)),
        (14, 5, (True, False, False)),
        (16, 6, (True, True, False)),
        (15, 6, (True, False, False)),
        (20, 16, (True, False, False)),
        (20, 17, (False, False, False)),  # 17 always fails, critically only at skill <= 15
        (15, 17, (False, False, True)),
        (25, 18, (False, False, True)),  # 18 is always a critical failure
        (5, 15, (False, False, True)),  # roll >= skill + 10
        (5, 14, (False, False, False)),
        (-6, 5, (False, False, True)),
    ],
)
def test_critical_rules(skill, roll, expected):
    ok, cs, cf = judge(skill, np.array([roll]))
    assert (bool(ok[0]), bool(cs[0]), bool(cf[0])) == expected


def test_without_criticals_only_the_skill_counts():
    ok, cs, cf = judge(20, np.array([17, 18]), criticals=False)
    assert ok.all() and not cs.any() and not cf.any()
    ok, _, _ = judge(2, np.array([3, 4]), criticals=False)
    assert not ok.any()


def test_quick_equal_skills_tie_hand_computed():
    # Equal skills tie exactly when the rolls are equal: sum of squared ways over 216^2.
    tie = sum(w * w for w in WAYS.values()) / 216**2
    assert tie == pytest.approx(4332 / 46656, abs=1e-15)
    r = exact(ContestSpec(a_skill=10, b_skill=10))
    assert r.outcomes["tie"] == pytest.approx(tie, abs=1e-15)
    assert r.outcomes["a_wins"] == pytest.approx((1 - tie) / 2, abs=1e-15)
    assert r.distributions["margin"].pmf(0) == pytest.approx(tie, abs=1e-15)
    assert r.distributions["degree"].pmf(0) == pytest.approx(tie, abs=1e-15)
    with_defender = exact(ContestSpec(a_skill=10, b_skill=10, defender="b")).outcomes
    assert with_defender == pytest.approx({"a_wins": (1 - tie) / 2, "b_wins": (1 + tie) / 2, "tie": 0.0})


def test_quick_critical_metrics_hand_computed():
    # skill 16: critical success on 3-6 (20 ways), critical failure only on 18 (1 way);
    # skill 15: 3-5 (10 ways), 17-18 (4 ways).
    m = exact(ContestSpec(a_skill=16, b_skill=15)).metrics
    assert m["p_a_critical_success"] == pytest.approx(20 / 216)
    assert m["p_a_critical_failure"] == pytest.approx(1 / 216)
    assert m["p_b_critical_success"] == pytest.approx(10 / 216)
    assert m["p_b_critical_failure"] == pytest.approx(4 / 216)
    assert m["mean_rounds"] is None and m["rescaled_a"] is None
    off = exact(ContestSpec(a_skill=16, b_skill=15, criticals=False)).metrics
    assert [off[k] for k in ("p_a_critical_success", "p_b_critical_failure")] == [0.0, 0.0]


def _succeeds(skill, roll, criticals):
    """The rules' success roll, written out independently of the module."""
    if not criticals:
        return roll <= skill
    return roll in (3, 4) or (roll <= skill and roll <= 16)


@pytest.mark.parametrize(
    "params",
    [
        dict(a_skill=12, b_skill=10),
        dict(a_skill=2, b_skill=21, defender="a"),
        dict(a_skill=-3, b_skill=17, criticals=False, defender="b"),
        dict(kind="resistance", a_skill=19, b_skill=12),
        dict(kind="resistance", a_skill=19, b_skill=12, rule_of_16=False, criticals=False),
    ],
)
def test_exact_matches_enumeration_of_all_rolls(params):
    # Every one of the 216^2 rolls, judged by the rules as the text reads.
    spec = ContestSpec(**params)
    a, b = spec.rolled_skills
    counts: dict[str, int] = dict.fromkeys(exact(spec).labels, 0)
    margin: dict[int, int] = {}
    for ra, rb in itertools.product(WAYS, WAYS):
        w = WAYS[ra] * WAYS[rb]
        ok_a, ok_b = _succeeds(a, ra, spec.criticals), _succeeds(b, rb, spec.criticals)
        ma, mb = a - ra, b - rb
        if spec.kind == "resistance":
            label = "attack_failed" if not ok_a else "affected" if (not ok_b or ma > mb) else "resisted"
        elif ok_a != ok_b:
            label = "a_wins" if ok_a else "b_wins"
        elif ma != mb:
            label = "a_wins" if ma > mb else "b_wins"
        else:
            label = {"a": "a_wins", "b": "b_wins", None: "tie"}[spec.defender]
        counts[label] += w
        margin[ma - mb] = margin.get(ma - mb, 0) + w
    r = exact(spec)
    assert r.outcomes == pytest.approx({k: v / 216**2 for k, v in counts.items()}, abs=1e-14)
    if spec.kind == "quick":
        assert r.distributions["margin"].to_dict() == pytest.approx(
            {k: v / 216**2 for k, v in margin.items()}
        )


def test_resistance_b_criticals_only_when_b_rolls():
    r = exact(ContestSpec(kind="resistance", a_skill=8, b_skill=16))
    p_attack = sum(w for t, w in WAYS.items() if t <= 8) / 216  # 56 ways
    assert r.outcomes["attack_failed"] == pytest.approx(1 - p_attack)
    assert r.metrics["p_b_critical_success"] == pytest.approx(p_attack * 20 / 216)
    assert r.metrics["p_b_critical_failure"] == pytest.approx(p_attack * 1 / 216)


def test_regular_hand_computed():
    # 10 vs 10 without criticals: each side succeeds with 1/2, a round decides with 1/2.
    r = exact(ContestSpec(kind="regular", a_skill=10, b_skill=10, criticals=False, max_rounds=3))
    assert r.outcomes == pytest.approx({"a_wins": 0.4375, "b_wins": 0.4375, "undecided": 0.125})
    assert r.distributions["rounds"].to_dict() == pytest.approx({1: 0.5, 2: 0.25, 3: 0.25})
    assert r.metrics["mean_rounds"] == pytest.approx((1 * 0.5 + 2 * 0.25 + 3 * 0.125) / 0.875)
    one = exact(ContestSpec(kind="regular", a_skill=10, b_skill=10, criticals=False, max_rounds=1))
    assert one.outcomes["undecided"] == pytest.approx(0.5) and one.distributions["rounds"].to_dict() == {
        1: 1.0
    }


def test_regular_certain_first_round():
    # 18 always succeeds and 2 always fails without criticals: decided at once.
    r = exact(ContestSpec(kind="regular", a_skill=18, b_skill=2, criticals=False))
    assert r.outcomes == {"a_wins": 1.0, "b_wins": 0.0, "undecided": 0.0}
    assert r.metrics["mean_rounds"] == 1.0 and r.distributions["rounds"].to_dict() == {1: 1.0}


def test_regular_mass_at_max_rounds():
    # 3 vs 2 without criticals: only A's 3 (1 way in 216) decides a round.
    q, m = 1 / 216, 5000
    r = exact(ContestSpec(kind="regular", a_skill=3, b_skill=2, criticals=False, max_rounds=m))
    rounds = r.distributions["rounds"]
    assert rounds.max == m and rounds.tail == 0.0
    assert rounds.pmf(m) == pytest.approx((1 - q) ** (m - 1), rel=1e-9)
    assert r.outcomes["undecided"] == pytest.approx((1 - q) ** m, rel=1e-9)
    assert r.metrics["mean_rounds"] == pytest.approx(1 / q - m * (1 - q) ** m / (1 - (1 - q) ** m), rel=1e-9)


def test_regular_long_contest_cut_into_tail():
    # max_rounds 10^6: the geometric dies out near round 7000, the rest is an explicit tail.
    r = exact(ContestSpec(kind="regular", a_skill=3, b_skill=2, criticals=False, max_rounds=10**6))
    rounds = r.distributions["rounds"]
    assert rounds.max < 10_000 and 0 < rounds.tail < 1e-12
    assert rounds.mass + rounds.tail == pytest.approx(1.0, abs=1e-12)
    assert r.metrics["mean_rounds"] == pytest.approx(216.0)
    assert rounds_dist(0.5, 10**6).max == 47  # 2^-47 < 1e-14 <= 2^-46


# -- errors and nulls -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("kind", "extended"),
        ("a_skill", None),
        ("b_skill", 1001),
        ("b_skill", 2.5),
        ("criticals", "yes"),
        ("defender", "c"),
        ("defender", "none"),
        ("rule_of_16", 1),
        ("max_rounds", 0),
        ("max_rounds", 10**6 + 1),
        ("rescale", None),
    ],
)
def test_bad_parameters_name_themselves(field, value):
    # a parameter is checked where its kind uses it, and wherever it is given anyway
    kwargs = dict(a_skill=12, b_skill=10, kind="regular" if field == "rescale" else "quick")
    kwargs[field] = value
    with pytest.raises(SpecError, match=field):
        ContestSpec(**kwargs)


@pytest.mark.parametrize(("a", "b"), [(18, 19), (25, 18), (2, 1), (-5, 0)])
def test_undecidable_regular_contest_is_an_error(a, b):
    with pytest.raises(SpecError, match="a_skill.*can ever decide"):
        ContestSpec(kind="regular", a_skill=a, b_skill=b, criticals=False)
    # criticals always leave a chance; rescaling brings both into 9..12
    ContestSpec(kind="regular", a_skill=a, b_skill=b)
    if min(a, b) >= 1:
        ContestSpec(kind="regular", a_skill=a, b_skill=b, criticals=False, rescale=True)


def test_unused_parameters_are_null():
    quick = ContestSpec(a_skill=12, b_skill=10).params()
    assert quick["rule_of_16"] is None and quick["max_rounds"] is None and quick["rescale"] is None
    assert quick["defender"] is None and quick["criticals"] is True
    resistance = ContestSpec(kind="resistance", a_skill=12, b_skill=10).params()
    assert resistance["rule_of_16"] is True and resistance["max_rounds"] is None
    regular = ContestSpec(kind="regular", a_skill=12, b_skill=10).params()
    assert regular["max_rounds"] == 1000 and regular["rescale"] is False and regular["rule_of_16"] is None


@settings(max_examples=40, deadline=None)
@given(st.integers(-20, 40), st.integers(-20, 40), st.booleans())
def test_quick_is_symmetric(a, b, criticals):
    ab = exact(ContestSpec(a_skill=a, b_skill=b, criticals=criticals))
    ba = exact(ContestSpec(a_skill=b, b_skill=a, criticals=criticals))
    assert ab.outcomes["a_wins"] == pytest.approx(ba.outcomes["b_wins"], abs=1e-14)
    assert ab.outcomes["tie"] == pytest.approx(ba.outcomes["tie"], abs=1e-14)
    assert ab.distributions["margin"].allclose(-ba.distributions["margin"], atol=1e-14)
    assert ab.distributions["degree"].mass == pytest.approx(1.0, abs=1e-12)


# -- Monte Carlo against exact ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("params", "trials"),
    [
        (dict(a_skill=12, b_skill=10), 400_000),
        (dict(a_skill=3, b_skill=20, defender="a"), 300_000),  # extreme skills, criticals decide
        (dict(a_skill=5, b_skill=16, criticals=False, defender="b"), 300_000),
        (dict(kind="resistance", a_skill=20, b_skill=12), 400_000),  # Rule of 16 caps 20 at 16
        (dict(kind="resistance", a_skill=20, b_skill=12, rule_of_16=False, criticals=False), 300_000),
        (dict(kind="regular", a_skill=16, b_skill=15), 300_000),
        (dict(kind="regular", a_skill=20, b_skill=23, rescale=True), 300_000),
        (dict(kind="regular", a_skill=18, b_skill=18, max_rounds=3), 300_000),  # mostly undecided
        (dict(kind="regular", a_skill=3, b_skill=2, criticals=False, max_rounds=300), 20_000),  # mass at 300
        (dict(kind="regular", a_skill=3, b_skill=2, criticals=False, max_rounds=10**6), 20_000),  # tail
    ],
)
def test_simulation_matches_exact(params, trials):
    spec = ContestSpec(**params)
    ex = exact(spec)
    sim = simulate(spec, trials=trials, seed=2024, progress=False)
    v = validate(ex, sim, alpha=ALPHA)
    assert v.passed, v.groups
    for name in ("p_a_critical_success", "p_b_critical_failure"):
        p = ex.metrics[name]
        # a binomial frequency: 5 standard errors is a ~1e-6 false alarm per check
        assert abs(sim.metrics[name] - p) <= 5 * math.sqrt(p * (1 - p) / trials) + 1e-12
    if spec.kind == "regular":
        assert (sim.metrics["rescaled_a"], sim.metrics["rescaled_b"]) == (
            ex.metrics["rescaled_a"],
            ex.metrics["rescaled_b"],
        )


@kernel
def _trial_tally(state, n, out, layout, a):
    """A generic driver: ``n`` contests through the kernel's per-trial function, tallied
    one by one in the block's layout."""
    s = local_state(state)
    for _ in range(n):
        label, margin, degree, rounds, flags = k.trial(s, a, None)
        add_label(out, label)
        for bit, counter in ((1, 0), (2, 1), (4, 2), (8, 3)):
            add_counter(out, layout, counter, (flags & bit) != 0)
        if a.kind == k.Kind.QUICK:
            add_value(out, layout, k.Hist.MARGIN, margin)
            add_value(out, layout, k.Hist.DEGREE, degree)
        elif a.kind == k.Kind.REGULAR:
            add_value(out, layout, k.Hist.ROUNDS, rounds)
            if label != k.RegularOutcome.UNDECIDED:
                add_counter(out, layout, k.Counter.DECIDED_ROUNDS, rounds)


@pytest.mark.parametrize(
    "params",
    [
        dict(a_skill=12, b_skill=10),
        dict(a_skill=5, b_skill=16, criticals=False, defender="a"),
        dict(kind="resistance", a_skill=11, b_skill=12),
        dict(kind="regular", a_skill=16, b_skill=15),
        dict(kind="regular", a_skill=18, b_skill=18, max_rounds=3),
    ],
)
def test_the_block_is_a_loop_over_the_per_trial_function(params):
    # The block counts pairs of rolls and applies the rules once per pair: the very
    # tally of trials judged one by one, from the same numbers.
    spec = ContestSpec(**params)
    layout = SYSTEM.layout(spec, exact(spec))
    args = kernel_args(spec)
    block_out = np.zeros(layout.n_out, dtype=np.int64)
    k.block(stream_state(9, 0), 20_000, block_out, layout.array, args)
    trial_out = np.zeros(layout.n_out, dtype=np.int64)
    _trial_tally(stream_state(9, 0), 20_000, trial_out, layout.array, args)
    assert block_out.tolist() == trial_out.tolist()


def test_one_bounded_draw_is_3d6():
    assert {t: int((k.ROLL_3D6 == t).sum()) for t in range(3, 19)} == WAYS


def test_simulated_mean_rounds():
    spec = ContestSpec(kind="regular", a_skill=16, b_skill=15)
    ex, sim = exact(spec), simulate(spec, trials=200_000, seed=7, progress=False)
    sd = ex.distributions["rounds"].sd
    # the mean of 200k geometric lengths: 5 standard errors is a ~1e-6 false alarm
    assert abs(sim.metrics["mean_rounds"] - ex.metrics["mean_rounds"]) <= 5 * sd / math.sqrt(200_000)


@pytest.mark.parametrize("kind", ["quick", "regular"])
def test_serial_equals_parallel(kind):
    spec = ContestSpec(kind=kind, a_skill=14, b_skill=13)
    one = simulate(spec, trials=600_000, seed=11, threads=1, progress=False).tally
    two = simulate(spec, trials=600_000, seed=11, threads=2, progress=False).tally
    assert one.counts.tolist() == two.counts.tolist()
    assert one.counters == two.counters
    for name, hist in one.hists.items():
        assert hist.counts.tolist() == two.hists[name].counts.tolist() and hist.tail == two.hists[name].tail


# -- sweeps, design questions, plots ----------------------------------------------------------
def test_sweep_over_skills():
    df = sweep(ContestSpec(a_skill=10, b_skill=10), a_skill=range(6, 15), defender=[None, "b"])
    outcomes = df[df.kind == "outcome"]
    assert outcomes.groupby(["a_skill", "defender"], dropna=False)["exact"].sum().round(12).eq(1).all()
    a_wins = outcomes[(outcomes.name == "a_wins") & outcomes.defender.isna()].sort_values("a_skill")["exact"]
    assert a_wins.is_monotonic_increasing


def test_rescale_table():
    t = rescale_table(ContestSpec(a_skill=10, b_skill=10, criticals=False), skills=[1, 2, 10, 19, 20])
    assert len(t) == 25
    row = t[(t.a_skill == 20) & (t.b_skill == 19)].iloc[0]
    # both always succeed without criticals: endless plain, 10 vs 10 rescaled
    assert math.isnan(row.p_a_wins) and (row.rescaled_a, row.rescaled_b) == (10, 10)
    assert row.p_a_wins_rescaled > 0.4
    same = t[(t.a_skill == 10) & (t.b_skill == 2)].iloc[0]
    assert same.p_a_wins_change == 0.0 and same.mean_rounds == same.mean_rounds_rescaled


@pytest.mark.parametrize("name", sorted(SYSTEM.plots))
def test_plots_have_titled_axes(name):
    import matplotlib.pyplot as plt

    small = {
        "quick_heatmap": dict(skills=range(8, 13)),
        "regular_rescale": dict(skills=[2, 3, 4, 10, 20, 23]),
        "resistance": dict(a_skills=(18,), b_skills=range(10, 20)),
        "quick_margin": {},
    }[name]
    fig = SYSTEM.plots[name](ContestSpec(a_skill=12, b_skill=10), **small)
    titled = [ax for ax in fig.axes if ax.get_title()]
    assert titled and all("(exact)" in ax.get_title() for ax in titled)
    assert all(ax.get_xlabel() and ax.get_ylabel() for ax in titled)
    plt.close(fig)


def test_plots_draw_on_given_axes():
    import matplotlib.pyplot as plt

    spec = ContestSpec(a_skill=12, b_skill=10)
    fig, ax = plt.subplots()
    assert SYSTEM.plots["resistance"](spec, a_skills=(20,), b_skills=range(12, 20), ax=ax) is fig
    assert "Rule of 16" in ax.get_legend_handles_labels()[1][0]
    fig2, axes = plt.subplots(1, 2)
    assert SYSTEM.plots["quick_margin"](spec, a_skills=[12], ax=axes) is fig2
    assert axes[1].get_title() == "Degree of victory (exact)"
    plt.close(fig)
    plt.close(fig2)


# -- the command line -------------------------------------------------------------------------
def test_cli_exact_json(capsys):
    assert (
        main(["exact", "contest", "--a-skill", "12", "--b-skill", "10", "--defender", "none", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["system"] == "contest" and set(out["outcomes"]) == {"a_wins", "b_wins", "tie"}
    assert set(out["params"]) == {
        "kind", "a_skill", "b_skill", "criticals", "defender", "rule_of_16", "max_rounds", "rescale"
    }  # fmt: skip
    assert out["params"]["max_rounds"] is None and out["distributions"]["rounds"] is None
    assert out["distributions"]["margin"]["tail"] == 0.0
    assert set(out["metrics"]) >= {
        "p_a_critical_success", "p_a_critical_failure", "p_b_critical_success", "p_b_critical_failure",
        "mean_rounds", "rescaled_a", "rescaled_b",
    }  # fmt: skip


def test_cli_regular_simulate_and_validate(capsys):
    args = ["--kind", "regular", "--a-skill", "20", "--b-skill", "23", "--rescale", "true", "--json"]
    assert main(["simulate", "contest", "--trials", "20000", "--seed", "3", "--no-progress", *args]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["outcomes"]) == {"a_wins", "b_wins", "undecided"} and out["trials"] == 20000
    assert out["metrics"]["rescaled_a"] == 10 and "rounds" in out["distributions"]
    assert main(["validate", "contest", "--trials", "20000", "--seed", "3", "--no-progress", *args]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] is True


# -- benchmark companions ---------------------------------------------------------------------
def test_icepool_agrees_on_the_quick_contest():
    outcome, margin = _icepool_quick(12, 10)
    r = exact(ContestSpec(a_skill=12, b_skill=10))
    for label, p in r.outcomes.items():
        assert float(outcome.probability(label)) == pytest.approx(p, abs=1e-14)
    expected = {int(v): float(margin.probability(v)) for v in margin.outcomes()}
    assert r.distributions["margin"].to_dict() == pytest.approx(expected, abs=1e-15)


def test_numpy_bench_versions_agree():
    from benchmarks.contest import bench_cases

    cases = bench_cases()
    assert [c.name for c in cases][0] == "contest quick (skills 12 vs 10)"
    assert cases[0].exact is not None and cases[0].icepool is not None
    assert all(c.floor is not None for c in cases)
    n = 100_000
    resistance = ContestSpec(kind="resistance", a_skill=18, b_skill=12)
    for got, spec in (
        (_numpy_quick(n), ContestSpec(a_skill=12, b_skill=10)),
        (_numpy_resistance(n, a=resistance.rolled_skills[0]), resistance),
        (_numpy_regular(n), ContestSpec(kind="regular", a_skill=16, b_skill=15)),
    ):
        ex = exact(spec)
        p = ex.probs
        # binomial frequencies: 5 standard errors is a ~1e-6 false alarm per label
        assert np.all(np.abs(got[:3] / n - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12)
        crit = np.array([ex.metrics[m] for m in ("p_a_critical_success", "p_a_critical_failure")])
        at = {"quick": 3 + 31 + 63, "resistance": 3, "regular": 3 + 1001}[spec.kind]
        assert np.all(np.abs(got[at : at + 2] / n - crit) <= 5 * np.sqrt(crit * (1 - crit) / n) + 1e-12)


@pytest.mark.parametrize("flag", ["--roll", "--opposing-roll"])
def test_cli_takes_no_d20_roll_mode(flag, capsys):
    # the rules: contests roll 3d6; they take neither d20 roll mode
    assert main(["exact", "contest", "--a-skill", "12", "--b-skill", "10", flag, "advantage"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag} advantage" in err
