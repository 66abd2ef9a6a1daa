"""severity: the seed's statements (seed 002), hand computations, an independent
roll-by-roll model, errors, MC vs exact, sweeps, plots and the command line."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from benchmarks import severity as bench
from critlab.analysis.cli.main import main
from critlab.analysis.design.sweep import sweep
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import severity as sev
from critlab.analysis.systems.severity import (
    MODES,
    NATURAL_MAX,
    NATURAL_MIN,
    SeveritySpec,
    calling_sm,
    exact,
    labels,
    simulate,
    wound_level,
)
from critlab.analysis.tally import Layout
from critlab.analysis.validate import validate
from critlab.analysis.views import severity as views
from critlab.kernels import severity as k
from critlab.kernels.jit import kernel
from critlab.kernels.rng import local_state, stream_state

# Significance for MC-vs-exact checks: fixed seeds make each verdict reproducible, and at
# 1e-3 a real bias of a few percent in any label at these trial counts is still caught.
ALPHA = 1e-3
# Distance in standard errors allowed for a single simulated frequency against its exact
# value: 5 SE has a false-alarm chance below 1e-6 per check, yet a real bias of a few
# SE's worth at these trial counts would still be caught by the chi-square tests.
Z_LIMIT = 5.0


def faces(mode: str) -> dict[int, float]:
    """One roll of ``mode`` by brute-force enumeration of the dice (independent of the
    notation engine)."""
    dice = {"lethal": (1, 20), "risky": (3, 6), "stable": (4, 6)}[mode]
    out: dict[int, float] = {}
    rolls = list(itertools.product(range(1, dice[1] + 1), repeat=dice[0]))
    for r in rolls:
        v = sum(r) - (min(r) if mode == "stable" else 0)
        out[v] = out.get(v, 0.0) + 1 / len(rolls)
    return out


def roll_by_roll_margin(mode: str, chain: bool, diff: int, span: int = 1200) -> np.ndarray:
    """The MoV distribution on ``-span..span`` by a Markov chain over (A's pending rolls,
    D's pending rolls, margin), one roll at a time as the rules read: a maximum gives
    its own side a roll, a first-roll minimum (any minimum with ``chain``) the opponent."""
    lo, hi = NATURAL_MIN[mode], NATURAL_MAX[mode]
    pmf = faces(mode)
    states: dict[tuple[int, int], np.ndarray] = {}
    done = np.zeros(2 * span + 1)

    def put(key, dist):
        if key == (0, 0):
            done[:] += dist
        else:
            states[key] = states.get(key, 0) + dist

    for (a, pa), (d, pd) in itertools.product(pmf.items(), repeat=2):
        dist = np.zeros(2 * span + 1)
        dist[span + a - d + diff] = pa * pd
        put((int(a == hi) + int(d == lo), int(d == hi) + int(a == lo)), dist)
    while sum(s.sum() for s in states.values()) > 1e-15:
        current, states = states, {}
        for (na, nd), dist in current.items():
            side = 1 if na > 0 else -1  # A's pending rolls first; order does not matter
            for v, p in pmf.items():
                own, other = (na - 1, nd) if side > 0 else (nd - 1, na)
                if v == hi:
                    own += 1
                elif v == lo and chain:
                    other += 1
                key = (own, other) if side > 0 else (other, own)
                put(key, p * np.roll(dist, side * v))
    return done


# -- the seed's statements -------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_seed_a_dagger_can_inflict_a_mortal_wound(mode):
    # seed 002, §1: "A dagger can therefore inflict a Mortal wound if the attacker
    # achieves a sufficiently large Margin of Victory": SM 0, even against far more skill.
    r = exact(SeveritySpec(mode=mode, attacker_skill=0, defender_skill=15))
    assert r.outcomes["mort"] > 0


def test_seed_wound_severity_never_beyond_mort():
    # seed 002, §3: "Wound Severity never increases beyond MORT"
    spec = SeveritySpec(sm=3, attacker_skill=40)
    assert labels(spec)[-1] == "mort"
    assert wound_level([13, 100, 1000], spec).tolist() == [5, 5, 5]
    assert exact(spec).outcomes["mort"] > 0.99


def test_seed_armor_is_applied_after_sm():
    # seed 002, §3: armor comes after SM. MoV 13 is mort; SM 1 is capped at mort, then
    # armor 1 takes it to grievous. Capping only after armor keeps it at mort.
    assert wound_level(13, SeveritySpec(sm=1, armor=1)).tolist() == 4
    assert wound_level(13, SeveritySpec(sm=1, armor=1, cap_before_armor=False)).tolist() == 5
    # a graze (MoV 1) with SM 3 and armor 3 is a graze again; armor 9 floors it at none
    assert wound_level(1, SeveritySpec(sm=3, armor=3)).tolist() == 1
    assert wound_level(1, SeveritySpec(sm=3, armor=9)).tolist() == 0


@pytest.mark.parametrize("magic", range(1, 21))
def test_seed_magic_table_gives_the_calling_sm(magic):
    # seed 002, §4: MAGIC 1-5 -> +0, 6-10 -> +1, 11-15 -> +2, 16-20 -> +3
    expected = 0 if magic <= 5 else 1 if magic <= 10 else 2 if magic <= 15 else 3
    assert calling_sm(magic) == expected
    calling = exact(SeveritySpec(magic=magic, attacker_skill=3))
    weapon = exact(SeveritySpec(sm=expected, attacker_skill=3))
    np.testing.assert_allclose(calling.probs, weapon.probs, atol=1e-15)
    assert calling.params["sm"] is None and calling.params["magic"] == magic


@pytest.mark.parametrize(
    ("mode", "p_implode", "p_explode"),
    [("lethal", 1 / 20, 1 / 20), ("risky", 1 / 216, 1 / 216), ("stable", 1 / 1296, 21 / 1296)],
)
def test_seed_critical_rolls_per_mode(mode, p_implode, p_explode):
    # seed 002, §5-6: lethal 20 / 1; risky 6-6-6 / 1-1-1; stable 18 after dropping one
    # (three or four 6s: 21 of 1296) / 3, which "requires four natural 1s" (1 of 1296)
    m = exact(SeveritySpec(mode=mode)).metrics
    assert m["p_attacker_explodes"] == pytest.approx(p_explode, rel=1e-12)
    assert m["p_defender_explodes"] == pytest.approx(p_explode, rel=1e-12)
    assert m["p_attacker_implodes"] == pytest.approx(p_implode, rel=1e-12)
    assert m["p_defender_implodes"] == pytest.approx(p_implode, rel=1e-12)
    assert m["p_explode_vs_implode"] == pytest.approx(2 * p_explode * p_implode, rel=1e-12)


def test_seed_a_critical_does_not_decide_success():
    # seed 002, §6: "A Critical does not automatically determine success or failure":
    # against 25 more skill, an exploding attacker still usually fails.
    r = exact(SeveritySpec(attacker_skill=0, defender_skill=25))
    assert 0 < r.metrics["p_success"] < r.metrics["p_attacker_explodes"]


def test_seed_totals_may_be_negative():
    # seed 002, §6: "Roll totals have no minimum and may be negative"
    # (no total is clamped at 0, so only the skill difference matters)
    low = exact(SeveritySpec(attacker_skill=-30, defender_skill=-10))
    high = exact(SeveritySpec(attacker_skill=0, defender_skill=20))
    np.testing.assert_array_equal(low.probs, high.probs)
    assert low.distributions["margin"].min < -40 and low.outcomes["mort"] > 0


# -- hand computations -----------------------------------------------------------------
def test_lethal_hand_computed():
    r = exact(SeveritySpec())
    # P(attacker explodes) = 1/20; both criticals at once: 2 * (1/20) * (1/20)
    assert r.metrics["p_attacker_explodes"] == pytest.approx(1 / 20)
    assert r.metrics["p_explode_vs_implode"] == pytest.approx(2 * (1 / 20) * (1 / 20))
    # a first roll's worth averages 10.5: a 20's extra roll adds what a 1's gives away
    assert r.metrics["mean_margin"] == pytest.approx(0.0, abs=1e-9)
    assert exact(SeveritySpec(attacker_skill=7, defender_skill=2)).metrics["mean_margin"] == pytest.approx(
        5.0
    )
    # one additional roll with its explosions: mean 10.5 / (1 - 1/20)
    assert sev.additional_roll("lethal", False).mean == pytest.approx(10.5 * 20 / 19)
    # equal skill is symmetric: P(MoV = m) = P(MoV = -m)
    m = r.distributions["margin"]
    assert m.min == -m.max and np.allclose(m.probs, m.probs[::-1], atol=1e-16)
    assert sum(r.probs) + m.tail == pytest.approx(1.0, abs=1e-14)
    assert m.tail < 1e-12


def test_lethal_tie_probability_by_hand():
    # Skills 0 vs 0. A side's signed chain C is an ordinary face 2..19 (1/20 each), a
    # 20 plus W >= 1 (so >= 21), or a 1 minus W (so <= 0), W = exploding d20 with
    # P(W = 20k + r) = (1/20)^(k+1), r in 1..19. P(C - C' = 0) = sum_c P(C = c)^2
    # = 18/400 + 2 * (1/400) * sum_w P(W = w)^2, and sum_w P(W = w)^2 = 19/399.
    expected = 18 / 400 + 2 / 400 * 19 / 399
    assert exact(SeveritySpec()).distributions["margin"].pmf(0) == pytest.approx(expected, rel=1e-12)


def test_ties_decide_margin_zero():
    base = SeveritySpec()
    p_zero = exact(base).distributions["margin"].pmf(0)
    assert exact(SeveritySpec(ties="attacker")).metrics["p_success"] - exact(base).metrics[
        "p_success"
    ] == pytest.approx(p_zero)
    # a success meeting no threshold stays none, even with SM 3
    np.testing.assert_allclose(
        exact(SeveritySpec(ties="attacker", sm=3)).probs, exact(SeveritySpec(sm=3)).probs
    )
    # with a level at threshold 0, a won tie is that level: scratch is MoV 0..4
    margin = exact(base).distributions["margin"]
    zero = exact(SeveritySpec(ties="attacker", ladder="scratch:0,cut:5"))
    assert zero.outcomes["scratch"] == pytest.approx(margin.cdf(4) - margin.cdf(-1), rel=1e-12)


@pytest.mark.parametrize(
    ("mode", "chain", "diff"),
    [
        ("lethal", False, 0),
        ("lethal", True, 3),
        ("risky", True, -4),
        ("stable", False, 5),
        ("stable", True, 0),
    ],
)
def test_exact_matches_roll_by_roll_model(mode, chain, diff):
    # Both criticals at once, chained implosions and explosions of extra rolls all fall
    # out of the roll-by-roll chain; the exact engine must agree to rounding.
    span = 1200
    dp = roll_by_roll_margin(mode, chain, diff, span)
    margin = exact(SeveritySpec(mode=mode, chain_implosions=chain, attacker_skill=diff)).distributions[
        "margin"
    ]
    ours = np.array([margin.pmf(v) for v in range(-span, span + 1)])
    assert np.abs(ours - dp).max() < 1e-13


def test_chained_implosions_change_the_odds():
    plain = exact(SeveritySpec(attacker_skill=4)).distributions["margin"]
    chained = exact(SeveritySpec(attacker_skill=4, chain_implosions=True)).distributions["margin"]
    assert not plain.allclose(chained, atol=1e-6)
    assert chained.mean == pytest.approx(plain.mean)  # each roll still averages 10.5


def test_extreme_skill_gap():
    r = exact(SeveritySpec(attacker_skill=1000, defender_skill=-1000, sm=3, armor=2))
    # mort capped before armor, then 2 levels off: serious, with all but the tail's mass
    assert r.outcomes["serious"] == pytest.approx(1.0, abs=1e-12)
    r = exact(SeveritySpec(mode="risky", attacker_skill=-1000, defender_skill=1000))
    assert r.outcomes["none"] == pytest.approx(1.0, abs=1e-12)


def test_icepool_agrees_on_the_bench_margins():
    pytest.importorskip("icepool")
    for mode in ("lethal", "stable"):
        theirs = bench._icepool_margin(mode)
        ours = exact(SeveritySpec(mode=mode, **bench.BENCH_SKILLS)).distributions["margin"]
        worst = max(abs(float(theirs.probability(v)) - ours.pmf(v)) for v in range(ours.min, ours.max + 1))
        assert worst < 1e-12


def test_numpy_bench_agrees_with_exact():
    # the NumPy baseline does critlab's work: levels, margin histogram and counters
    n = 200_000
    tally = bench._numpy_contest(n, "stable", chunk=50_000, seed=3)
    ex = exact(SeveritySpec(mode="stable", **bench.BENCH_SKILLS))
    p = ex.probs
    counts = tally[: p.size]
    z = (counts / n - p) / np.sqrt(p * (1 - p) / n)
    assert np.abs(z).max() < Z_LIMIT
    margin = ex.distributions["margin"]
    assert tally[p.size : p.size + margin.probs.size + 1].sum() == n
    success, margin_sum = tally[-2:]
    assert abs(success / n - ex.metrics["p_success"]) < Z_LIMIT * np.sqrt(0.25 / n)
    assert abs(margin_sum / n - margin.mean) < Z_LIMIT * margin.sd / np.sqrt(n)


# -- parameters ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("mode", "deadly"),
        ("attacker_skill", 1001),
        ("defender_skill", None),
        ("ties", "both"),
        ("ladder", ""),
        ("ladder", "graze"),
        ("ladder", "graze:1,graze:4"),
        ("ladder", "none:1"),
        ("ladder", "graze:4,light:1"),
        ("ladder", "graze:-1"),
        ("ladder", "1st:2"),
        ("ladder", "graze:1001"),
        ("sm", 4),
        ("sm", -1),
        ("magic", 0),
        ("magic", 21),
        ("armor", -1),
        ("cap_before_armor", "yes"),
        ("chain_implosions", 1),
    ],
)
def test_bad_parameters_name_themselves(field, value):
    with pytest.raises(SpecError, match=field):
        SeveritySpec(**{field: value})


def test_sm_and_magic_together_is_an_error():
    with pytest.raises(SpecError, match="sm .*magic"):
        SeveritySpec(sm=1, magic=12)
    assert SeveritySpec(sm=0, magic=12).effective_sm == 2  # sm left at its default is not "given"


def test_custom_ladder_labels():
    spec = SeveritySpec(ladder=" scratch : 0 , cut:2, cut_deep:2 ,dead:30")
    assert labels(spec) == ("none", "scratch", "cut", "cut_deep", "dead")
    r = exact(spec)
    assert r.outcomes["cut"] == 0.0  # cut_deep shares its threshold and is the higher level
    assert sum(r.probs) == pytest.approx(1.0)


# -- simulation ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params",
    [
        dict(),
        dict(mode="risky", attacker_skill=5, defender_skill=2, sm=2, armor=1),
        dict(
            mode="stable", attacker_skill=5, defender_skill=2, ties="attacker", sm=3, cap_before_armor=False
        ),
        dict(mode="lethal", attacker_skill=3, chain_implosions=True, magic=17, armor=2),
        dict(mode="risky", chain_implosions=True, ladder="scratch:0,cut:3,dead:9", ties="attacker"),
        dict(mode="lethal", attacker_skill=0, defender_skill=30),  # only long explosions hit
        dict(mode="stable", attacker_skill=12, defender_skill=0, chain_implosions=True, sm=1, armor=3),
    ],
)
def test_simulation_matches_exact(params):
    spec = SeveritySpec(**params)
    ex = exact(spec)
    sim = simulate(spec, trials=300_000, seed=2024, progress=False)
    v = validate(ex, sim, alpha=ALPHA)
    assert v.passed, v.groups
    for name in ("p_attacker_explodes", "p_defender_implodes", "p_explode_vs_implode", "p_success"):
        p = ex.metrics[name]
        assert abs(sim.metrics[name] - p) <= Z_LIMIT * np.sqrt(p * (1 - p) / sim.trials) + 1e-12, name


def test_serial_equals_parallel():
    spec = SeveritySpec(mode="lethal", attacker_skill=2, chain_implosions=True)
    one = simulate(spec, trials=600_000, seed=11, threads=1, progress=False)
    two = simulate(spec, trials=600_000, seed=11, threads=2, progress=False)
    assert one.tally.counts.tolist() == two.tally.counts.tolist()
    assert one.tally.hists["margin"].counts.tolist() == two.tally.hists["margin"].counts.tolist()
    assert one.tally.counters == two.tally.counters


@pytest.mark.parametrize("mode", MODES)
def test_one_bounded_draw_is_the_modes_roll(mode):
    # the kernel's table over one draw's outcomes is the mode's roll, with its extremes
    table = k.roll_table(k.Mode[mode.upper()])
    values = table >> 2
    roll = sev.roll_dist(mode)
    assert table.size == {"lethal": 20, "risky": 216, "stable": 1296}[mode]
    np.testing.assert_allclose(np.bincount(values - roll.min) / table.size, roll.probs, atol=1e-15)
    assert ((table & k.MAXIMUM) != 0).tolist() == (values == NATURAL_MAX[mode]).tolist()
    assert ((table & k.MINIMUM) != 0).tolist() == (values == NATURAL_MIN[mode]).tolist()


@kernel
def _trial_levels(state, n, n_levels, a):
    """A generic driver: ``n`` attacks through the kernel's per-trial function."""
    s = local_state(state)
    counts = np.zeros(n_levels, dtype=np.int64)
    for _ in range(n):
        level, _mov, _a_first, _d_first = k.trial(s, a, None)
        counts[level] += 1
    return counts


@pytest.mark.parametrize(
    "params", [dict(mode="lethal", attacker_skill=3), dict(mode="stable", chain_implosions=True, sm=1)]
)
def test_the_per_trial_function_matches_exact(params):
    spec = SeveritySpec(**params)
    probs = exact(spec).probs
    n = 200_000
    counts = _trial_levels(stream_state(5, 0), n, probs.size, sev.kernel_args(spec))
    seen = probs > 0  # SM 1 lifts every graze: none is left
    z = (counts[seen] / n - probs[seen]) / np.sqrt(probs[seen] * (1 - probs[seen]) / n)
    assert np.abs(z).max() < Z_LIMIT and counts[~seen].sum() == 0


def test_margins_beyond_the_layout_go_to_its_tail():
    # The block counts a MoV outside the margin histogram (beyond the exact engine's
    # support, in practice never met) in the tail bin, with its own label and counters.
    spec = SeveritySpec(attacker_skill=3, chain_implosions=True)
    ex = exact(spec)
    args = sev.kernel_args(spec)
    wide = sev.SYSTEM.layout(spec, ex)
    narrow = Layout(wide.labels, {"margin": (-3, 4)}, counters=wide.counters)
    tallies = []
    for layout in (wide, narrow):
        out = np.zeros(layout.n_out, dtype=np.int64)
        k.block(stream_state(3, 0), 50_000, out, layout.array, args)  # the same dice for both
        tallies.append(layout.unpack(out, trials=50_000, seed=3))
    full, cut = tallies
    assert cut.counts.tolist() == full.counts.tolist() and cut.counters == full.counters
    margins = full.hists["margin"]
    inside = (margins.values >= -3) & (margins.values <= 4)
    assert cut.hists["margin"].counts.tolist() == margins.counts[inside].tolist()
    assert cut.hists["margin"].tail == margins.counts[~inside].sum() + margins.tail > 0


def test_simulated_metrics_are_estimates():
    spec = SeveritySpec(attacker_skill=5, defender_skill=2)
    ex, sim = exact(spec), simulate(spec, trials=200_000, seed=5, progress=False)
    sd = ex.distributions["margin"].sd
    # the mean of 200k margins is within 5 standard errors of the exact mean
    assert abs(sim.metrics["mean_margin"] - ex.metrics["mean_margin"]) < Z_LIMIT * sd / np.sqrt(sim.trials)
    for q in ("margin_q05", "margin_median", "margin_q95"):
        assert abs(sim.metrics[q] - ex.metrics[q]) <= 1  # a quantile moves by at most one step here


# -- sweeps, tables and plots ----------------------------------------------------------
def test_sweep_over_sm_and_armor():
    df = sweep(SeveritySpec(attacker_skill=4), sm=range(4), armor=range(3))
    sums = df[df.kind == "outcome"].groupby(["sm", "armor"])["exact"].sum()
    assert np.allclose(sums, 1.0, atol=1e-12) and len(sums) == 12
    mort = df[(df.kind == "outcome") & (df.name == "mort") & (df.armor == 0)].set_index("sm")["exact"]
    assert mort.is_monotonic_increasing  # more SM, more mortal wounds


def test_wound_table_is_tidy():
    t = views.wound_table(SeveritySpec(defender_skill=2), sms=(0, 3), armors=(0, 2))
    assert list(t.columns) == [
        "mode", "skill_gap", "attacker_skill", "defender_skill", "sm", "armor", "wound", "probability"
    ]  # fmt: skip
    assert len(t) == 3 * 2 * 2 * 2 * 6
    assert np.allclose(t.groupby(["mode", "skill_gap", "sm", "armor"])["probability"].sum(), 1.0)


def test_mismatch_and_calling_tables():
    t = views.mismatch_table(SeveritySpec(), gaps=range(-10, 11, 5))
    for mode in MODES:
        p = t[t["mode"] == mode].p_top
        assert p.is_monotonic_increasing and (p > 0).all()  # a dagger can kill, more often when better
    c = views.calling_table(SeveritySpec(attacker_skill=3))
    assert c.calling_sm.tolist() == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 5
    assert c.mort.is_monotonic_increasing


def test_wound_or_worse_by_skill_gap():
    spec = SeveritySpec(defender_skill=2, sm=1)
    t = views.wound_or_worse_table(spec, gaps=range(-6, 9, 2))
    assert list(t.columns) == ["mode", "skill_gap", "attacker_skill", "wound", "p_or_worse"]
    assert len(t) == 3 * 8 * 5 and t["mode"].unique().tolist() == list(MODES)
    for (mode, gap), rows in t.groupby(["mode", "skill_gap"], sort=False):
        p = rows.p_or_worse.to_numpy()
        assert rows.wound.tolist() == list(labels(spec)[1:])
        assert np.all(np.diff(p) <= 1e-15)  # a worse wound is never likelier
        # graze or worse is every wound: P(success) less the successes SM cannot lift (none)
        assert p[0] == pytest.approx(
            1 - exact(spec.replace(mode=mode, attacker_skill=2 + gap)).outcomes["none"]
        )
    for _, rows in t.groupby(["mode", "wound"], sort=False):
        assert rows.p_or_worse.is_monotonic_increasing  # a wider gap, more of every wound


def test_wound_or_worse_plot_style():
    import matplotlib.pyplot as plt

    from critlab.analysis.style import legend_inside_figure, uses_default_cycle

    fig = views.plot_wound_or_worse(SeveritySpec(), gaps=range(-4, 5, 4))
    try:
        assert len(fig.axes) == 3 and legend_inside_figure(fig)
        assert not any(uses_default_cycle(a) for a in fig.axes)
        assert all(a.get_xlabel() == "skill gap (attacker − defender)" for a in fig.axes)
        colours = [line.get_color() for line in fig.axes[0].get_lines() if line.get_label() != "_nolegend_"]
        assert len({tuple(np.round(c, 6)) for c in colours[:5]}) == 5  # one colour a level
    finally:
        plt.close(fig)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("wounds", dict(modes=("lethal", "stable"), sms=(0, 2), armors=(0, 1))),
        ("mismatch", dict(gaps=range(-5, 11, 5))),
        ("callings", dict(magic_values=(1, 8, 20))),
        ("wound_or_worse", dict(gaps=range(-5, 11, 5), log=True)),
    ],
)
def test_plots_have_titled_axes(name, kwargs):
    import matplotlib.pyplot as plt

    fig = sev.SYSTEM.plots[name](SeveritySpec(), **kwargs)
    try:
        titles = [a.get_title() for a in fig.axes if a.get_title()]
        assert titles and all("(exact)" in t for t in titles)
    finally:
        plt.close(fig)


# -- command line ----------------------------------------------------------------------
def test_cli_exact_json(capsys):
    assert (
        main(["exact", "severity", "--mode", "stable", "--attacker-skill", "5", "--magic", "12", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["system"] == "severity" and out["params"]["sm"] is None and out["params"]["magic"] == 12
    assert list(out["outcomes"]) == ["none", "graze", "light", "serious", "grievous", "mort"]
    assert "tail" in out["distributions"]["margin"]
    for key in (
        "p_attacker_explodes", "p_defender_explodes", "p_attacker_implodes", "p_defender_implodes",
        "p_explode_vs_implode", "mean_margin",
    ):  # fmt: skip
        assert isinstance(out["metrics"][key], float)


def test_cli_simulate_and_validate_json(capsys):
    args = [
        "--trials",
        "20000",
        "--seed",
        "3",
        "--ladder",
        "hit:1,kill:9",
        "--chain-implosions",
        "true",
        "--json",
    ]
    assert main(["simulate", "severity", *args]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["outcomes"]) == ["none", "hit", "kill"] and out["trials"] == 20000
    assert main(["validate", "severity", *args]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] is True


@pytest.mark.parametrize("flag", ["--roll", "--opposing-roll"])
def test_cli_takes_no_d20_roll_mode(flag, capsys):
    # the rules: severity's rolls are fixed by its mode; it takes neither roll mode
    assert main(["exact", "severity", flag, "advantage"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag} advantage" in err
