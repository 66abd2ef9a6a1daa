"""crits-cats: the seed's claims and examples (seed 000), hand computations, errors,
MC vs exact, sweeps, plots, threads and the command line."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from scipy import stats

from benchmarks.crits_cats import (
    CHALLENGE_SPEC,
    SPELL_SPEC,
    _numpy_challenge,
    _numpy_spell,
    _numpy_versus,
    bench_cases,
    numpy_versus,
)
from critlab.analysis.cli.main import main
from critlab.analysis.design.sweep import sweep
from critlab.analysis.spec import SpecError
from critlab.analysis.systems.crits_cats import (
    COST_MULTIPLIER,
    LABELS,
    METRICS,
    SYSTEM,
    CritsCatsSpec,
    exact,
    kernel_args,
    simulate,
    versus_classes,
)
from critlab.analysis.validate import validate
from critlab.analysis.views.crits_cats import (
    caster_resister_table,
    combat_table,
    cost_by_skill,
    extremes_by_roll_mode,
    extremes_by_skill,
    extremes_by_skill_difference,
    majors_become_common,
    plot_casting_cost,
    plot_challenge_extremes,
    plot_combat,
    plot_resisters,
    plot_roll_modes,
    plot_versus_extremes,
    resisters_table,
)
from critlab.kernels import crits_cats as k
from critlab.kernels.rng import stream_state

# Significance for MC-vs-exact checks: fixed seeds make each verdict reproducible, and at
# 1e-3 a real bias of a few percent in any label at these trial counts is still caught.
ALPHA = 1e-3
TRIALS = 300_000


def out(r):
    return r.outcomes


# -- the seed's claims ----------------------------------------------------------------------
@pytest.mark.parametrize("skill", [-20, 0, 7, 35])
@pytest.mark.parametrize(("crit_range", "cat_range"), [(1, 1), (3, 2), (10, 10)])
def test_seed_no_major_at_equal_skill(skill, crit_range, cat_range):
    # seed 000: "Major criticals and catastrophes are very rare, and normally only result
    # from a combination of fluke and a mismatch": with major_margin 20 an equal-skill
    # versus margin is at most 19, so a major is impossible.
    r = exact(CritsCatsSpec(skill=skill, opposing_skill=skill, crit_range=crit_range, cat_range=cat_range))
    assert out(r)["major_critical"] == 0.0 and out(r)["major_catastrophe"] == 0.0


def test_seed_majors_grow_with_mismatch_and_stay_rarer_than_minors():
    # seed 000: outlying results are "far more likely ... between mismatched opponents",
    # but "in the vast majority of cases ... of the minor type".
    t = extremes_by_skill_difference(CritsCatsSpec(skill=0, opposing_skill=0), range(0, 21))
    assert np.all(np.diff(t["major"].to_numpy()) >= 0)
    assert t["major"].iloc[-1] > 0.04
    minors = t["minor_critical"] + t["minor_catastrophe"]
    assert np.all(t["major"].loc[:10] < minors.loc[:10])


def test_seed_majors_become_common_only_with_a_mismatch():
    # by hand: at ±3 a major needs e.g. a 20 against the responder's 1..3 or the responder's
    # 1 against 18..19: 5/400 = 1.25% > 1%; at ±2 it is 3/400.
    base = CritsCatsSpec(skill=4, opposing_skill=4)
    assert majors_become_common(base) == 3
    assert majors_become_common(base, threshold=0.02) == 5  # 9/400 at ±5, 7/400 at ±4
    assert majors_become_common(base.replace(major_margin=10)) == 0
    assert majors_become_common(base, threshold=0.99, max_difference=5) is None


def test_seed_only_the_initiator_is_susceptible():
    # seed 000: only the initiator gets crits or cats. Ignoring the responder's naturals,
    # the initiator's crit chance is exactly crit_range / 20 whatever the skills.
    r = exact(
        CritsCatsSpec(skill=3, opposing_skill=9, responder_naturals="ignore", crit_range=2, cat_range=3)
    )
    assert out(r)["minor_critical"] + out(r)["major_critical"] == pytest.approx(2 / 20)
    assert out(r)["minor_catastrophe"] + out(r)["major_catastrophe"] == pytest.approx(3 / 20)


def test_seed_responder_naturals_are_bestowed_on_the_initiator():
    # docs/rules.md: responder 20 -> initiator catastrophe, responder 1 -> initiator critical;
    # opposite pulls cancel (the margin decides), equal pulls stand.
    a = np.array([10, 10, 20, 1, 20, 1])
    b = np.array([20, 1, 20, 1, 1, 20])
    classes = versus_classes(a, b, skill=0, opposing_skill=0).tolist()
    names = [LABELS[c] for c in classes]
    assert names == [
        "minor_catastrophe",
        "minor_critical",
        "failure",
        "failure",
        "minor_critical",
        "minor_catastrophe",
    ]
    # the same pairs with the responder ignored: only the initiator's own naturals count
    ignored = versus_classes(a, b, skill=0, opposing_skill=0, transfer=False).tolist()
    assert [LABELS[c] for c in ignored] == [
        "failure", "success", "minor_critical", "minor_catastrophe", "minor_critical", "minor_catastrophe",
    ]  # fmt: skip
    # 20 against 1 with a 1-point edge: margin 20, a major critical
    assert versus_classes(np.array([20]), np.array([1]), skill=1, opposing_skill=0).tolist() == [5]


def test_seed_fireball_caster_and_resister_results_stand_independently():
    # seed 000: a caster's natural 20 (minor critical) and a resister's natural 20 both
    # stand: "crits and catastrophes ... must be considered independently".
    spec = CritsCatsSpec(mode="spell", skill=10, resistance=10)
    joint = caster_resister_table(spec)
    assert joint.loc["minor_critical", "minor_critical"] == pytest.approx(1 / 400)
    # the resister's natural 1 against the caster's 20: margin 11 - 30 = -19, minor
    assert joint.loc["minor_critical", "minor_catastrophe"] == pytest.approx(1 / 400)
    assert joint.to_numpy().sum() == pytest.approx(1.0)
    # six people in the radius: some resister rolls a natural 20 with 1 - (19/20)^6
    r = exact(spec.replace(resisters=6))
    assert r.metrics["p_any_resister_minor_critical"] == pytest.approx(1 - (19 / 20) ** 6)
    assert r.metrics["p_any_resister_minor_catastrophe"] == pytest.approx(1 - (19 / 20) ** 6)
    assert out(r)["minor_critical"] == pytest.approx(1 / 20)  # the caster's own 20, regardless


# -- hand computations ---------------------------------------------------------------------
def test_challenge_hand_computed():
    # skill 5 vs 21: 1 -> minor cat (margin -15), 20 -> minor crit (margin 4),
    # 16..19 succeed, 2..15 fail.
    r = exact(CritsCatsSpec(mode="challenge", skill=5))
    expected = dict(
        major_catastrophe=0, minor_catastrophe=1, failure=14, success=4, minor_critical=1, major_critical=0
    )
    for lab, n in expected.items():
        assert out(r)[lab] == pytest.approx(n / 20)
    assert r.distributions["resister"] is None and r.metrics["p_down"] is None


def test_challenge_majors_hand_computed():
    # skill -10: a natural 1 totals -9, 30 short: major catastrophe; skill 21: a 20 beats
    # the target by 20: major critical; margin 0 succeeds in a challenge.
    assert out(exact(CritsCatsSpec(mode="challenge", skill=-10)))["major_catastrophe"] == pytest.approx(0.05)
    r = exact(CritsCatsSpec(mode="challenge", skill=21, target=21))
    assert out(r)["major_critical"] == pytest.approx(0.05)
    # skill 1: only a 20 reaches 21, and a 20 is a critical; skill 2: a 19 reaches it exactly
    assert out(exact(CritsCatsSpec(mode="challenge", skill=1)))["success"] == 0.0
    assert out(exact(CritsCatsSpec(mode="challenge", skill=2)))["success"] == pytest.approx(0.05)


@pytest.mark.parametrize(
    ("crit_range", "cat_range", "crit", "cat"), [(0, 0, 0, 0), (20, 0, 20, 0), (0, 20, 0, 20), (7, 13, 7, 13)]
)
def test_extreme_ranges(crit_range, cat_range, crit, cat):
    r = exact(CritsCatsSpec(mode="challenge", skill=0, crit_range=crit_range, cat_range=cat_range))
    assert out(r)["minor_critical"] + out(r)["major_critical"] == pytest.approx(crit / 20)
    assert out(r)["minor_catastrophe"] + out(r)["major_catastrophe"] == pytest.approx(cat / 20)


def test_versus_ties():
    # equal skill: 20 ties move from failure to success: the 18 ordinary ones (2..19) and
    # 20-20 and 1-1, where the initiator's and the transferred pulls cancel
    base = CritsCatsSpec(skill=0, opposing_skill=0)
    a, b = exact(base), exact(base.replace(ties="initiator"))
    assert out(b)["success"] - out(a)["success"] == pytest.approx(20 / 400)
    assert out(a)["failure"] - out(b)["failure"] == pytest.approx(20 / 400)
    # ignoring the responder's naturals, 20-20 is the initiator's critical and 1-1 its catastrophe
    c, d = (
        exact(base.replace(responder_naturals="ignore")),
        exact(base.replace(responder_naturals="ignore", ties="initiator")),
    )
    assert out(d)["success"] - out(c)["success"] == pytest.approx(18 / 400)


def test_spell_cost_and_affected_hand_computed():
    # skill 10 vs 21: 1 -> minor cat (1.5), 20 -> minor crit (0.5), 18 others -> 1
    r = exact(CritsCatsSpec(mode="spell", skill=10, resistance=10))
    assert r.metrics["expected_cost_multiplier"] == pytest.approx(1.0)
    # skill 21: a 20 is major (0), a 1 is a minor cat (1.5)
    strong = CritsCatsSpec(mode="spell", skill=21, resistance=0)
    assert exact(strong).metrics["expected_cost_multiplier"] == pytest.approx(19.5 / 20)
    assert cost_by_skill(strong, [21]).loc[21, "cost"] == pytest.approx(19.5 / 20)
    # p_affected by brute force over both naturals
    affected = 0
    for c in range(1, 21):
        cast = c == 20 or (c != 1 and c + 10 >= 21)
        for n in range(1, 21):
            resisted = n == 20 or (n != 1 and n + 10 >= c + 10)
            affected += cast and not resisted
    assert r.metrics["p_affected"] == pytest.approx(affected / 400)


def test_resisters_table_is_at_least_one():
    t = resisters_table(CritsCatsSpec(mode="spell", skill=12, resistance=8), range(1, 7))
    one = exact(CritsCatsSpec(mode="spell", skill=12, resistance=8)).distributions["resister"]
    for j, lab in enumerate(LABELS):
        assert t.loc[1, lab] == pytest.approx(one.pmf(j))
        assert np.all(np.diff(t[lab].to_numpy()) >= -1e-15)
    # resisters are independent only given the caster's total: not 1 - (1 - p)^6
    assert t.loc[6, "failure"] != pytest.approx(1 - (1 - one.pmf(2)) ** 6, abs=1e-3)


def test_combat_hand_computed():
    spec = CritsCatsSpec(skill=0, opposing_skill=0, damage="1d6", protection=2)
    r = exact(spec)
    p = out(r)
    # success: max(0, 1d6 - 2) averages 10/6; a minor critical deals the maximum, 6
    assert r.metrics["expected_damage"] == pytest.approx(p["success"] * 10 / 6 + p["minor_critical"] * 6)
    assert r.distributions["damage"].pmf(6) == pytest.approx(p["minor_critical"])
    assert r.metrics["p_down"] == pytest.approx(p["minor_catastrophe"])
    assert r.metrics["expected_backlash"] == 0.0
    assert r.params["backlash_damage"] == "1d6"  # the default: the same as damage


def test_combat_majors_and_backlash():
    # initiator 10 behind: major catastrophes happen; the backlash of a major ignores the
    # attacker's protection, a minor "hit" backlash does not.
    spec = CritsCatsSpec(
        skill=0, opposing_skill=10, damage="2d4", backlash_damage="1d10", attacker_protection=4,
        minor_catastrophe_effect="hit",
    )  # fmt: skip
    r = exact(spec)
    p = out(r)
    assert p["major_catastrophe"] > 0
    minor_back = np.mean(np.maximum(0, np.arange(1, 11) - 4))
    assert r.metrics["expected_backlash"] == pytest.approx(
        p["major_catastrophe"] * 5.5 + p["minor_catastrophe"] * minor_back
    )
    assert r.metrics["p_down"] == pytest.approx(p["major_catastrophe"])
    # 10 ahead: major criticals deal twice the maximum, 16
    ahead = exact(spec.replace(skill=20))
    assert out(ahead)["major_critical"] > 0
    assert ahead.distributions["damage"].pmf(16) == pytest.approx(out(ahead)["major_critical"])


def test_negative_damage_is_floored():
    r = exact(CritsCatsSpec(skill=0, opposing_skill=0, damage="1d4-6", backlash_damage="1d4-6"))
    assert r.distributions["damage"].to_dict() == {0: pytest.approx(1.0)}
    t = combat_table(CritsCatsSpec(skill=0, opposing_skill=0, damage="1d4-6"))
    assert set(t.quantity) == {"damage", "backlash"} and (t.value == "tail").sum() == 2


def test_without_damage_combat_is_null():
    r = exact(CritsCatsSpec(skill=1, opposing_skill=2, protection=3))
    assert r.distributions["damage"] is None and r.distributions["backlash"] is None
    assert r.metrics["expected_damage"] is None and r.metrics["p_down"] is None
    assert r.params["protection"] is None and r.params["target"] is None


def test_unused_parameters_are_null():
    ch = CritsCatsSpec(mode="challenge", skill=3, opposing_skill=4).params()
    assert ch["opposing_skill"] is None and ch["resisters"] is None and ch["ties"] is None
    assert ch["target"] == 21
    sp = CritsCatsSpec(mode="spell", skill=3, resistance=4).params()
    assert sp["resistance"] == 4 and sp["responder_naturals"] is None and sp["damage"] is None
    vs = CritsCatsSpec(skill=3, opposing_skill=4, damage="1d8").params()
    assert vs["damage"] == "1d8" and vs["resistance"] is None and vs["target"] is None


# -- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("crit_range", 21), ("cat_range", -1), ("mode", "duel"), ("skill", None), ("skill", 1001),
        ("responder_naturals", "swap"), ("ties", "draw"), ("major_margin", True), ("protection", -1),
        ("attacker_protection", -1), ("minor_catastrophe_effect", "stun"), ("damage", "1d6!"),
        ("damage", "2x"), ("backlash_damage", "d"), ("opposing_skill", None), ("target", "21"),
    ],
)  # fmt: skip
def test_bad_parameters_name_themselves(field, value):
    kwargs = dict(skill=5, opposing_skill=2)
    kwargs[field] = value
    with pytest.raises(SpecError, match=field):
        CritsCatsSpec(**kwargs)


@pytest.mark.parametrize(("field", "value"), [("resisters", 0), ("resisters", 101), ("resistance", None)])
def test_bad_spell_parameters(field, value):
    kwargs = dict(mode="spell", skill=5, resistance=2)
    kwargs[field] = value
    with pytest.raises(SpecError, match=field):
        CritsCatsSpec(**kwargs)


def test_ranges_may_not_overlap():
    with pytest.raises(SpecError, match="crit_range \\+ cat_range"):
        CritsCatsSpec(skill=0, opposing_skill=0, crit_range=15, cat_range=6)
    CritsCatsSpec(skill=0, opposing_skill=0, crit_range=14, cat_range=6)


def test_combat_tables_need_damage():
    with pytest.raises(SpecError, match="damage"):
        combat_table(CritsCatsSpec(skill=0, opposing_skill=0))


# -- Monte Carlo against exact ---------------------------------------------------------------------
VALIDATION_POINTS = [
    dict(skill=5, opposing_skill=2),  # the benchmark's versus
    dict(skill=-10, opposing_skill=10, responder_naturals="ignore", damage="1d8-2"),  # many catastrophes
    dict(
        skill=15, opposing_skill=-5, crit_range=3, cat_range=2, ties="initiator", major_margin=10,
        damage="2d6+1", protection=3, backlash_damage="1d4!", attacker_protection=1,
        minor_catastrophe_effect="hit",
    ),  # every combat branch, an exploding backlash (tail)
    dict(skill=2, opposing_skill=5, damage="4d6kh3", backlash_damage="1d6", minor_catastrophe_effect="hit"),
    # kept dice: rolled by the interpreter, not by the simple dice's loop
    dict(mode="challenge", skill=0, crit_range=5, cat_range=5, major_margin=5),
    dict(mode="challenge", skill=30, crit_range=20, cat_range=0),  # every roll a critical
    dict(mode="spell", skill=8, resistance=12, resisters=6, crit_range=2, cat_range=2, major_margin=10),
    dict(mode="spell", skill=25, resistance=-15, resisters=40, target=30, cat_range=4),  # majors both ways
]  # fmt: skip


@pytest.mark.parametrize("params", VALIDATION_POINTS)
def test_simulation_matches_exact(params):
    spec = CritsCatsSpec(**params)
    ex = exact(spec)
    sim = simulate(spec, trials=TRIALS, seed=20240501, progress=False)
    v = validate(ex, sim, alpha=ALPHA)
    assert v.passed, v.groups
    # Metrics: each is a mean of per-trial values; 5 standard errors (two-sided ~6e-7) is
    # far out for a correct simulator yet catches any real bias at this trial count.
    for name, value in ex.metrics.items():
        if value is None:
            assert sim.metrics[name] is None
            continue
        assert sim.metrics[name] == pytest.approx(value, abs=5 * _metric_se(ex, name, spec) + 1e-12), name


def _metric_se(ex, name: str, spec: CritsCatsSpec) -> float:
    """A standard error bound for a simulated metric from ``TRIALS`` trials."""
    if name.startswith("expected_") and name != "expected_cost_multiplier":
        d = ex.distributions[name.removeprefix("expected_")]
        return d.sd / np.sqrt(TRIALS)
    if name == "expected_cost_multiplier":
        return 2.0 / np.sqrt(TRIALS)  # values in 0..2: sd at most 1
    # A probability, or p_affected: the share of a cast's resisters affected, a per-trial
    # value in [0, 1] with mean p, so its variance is at most p (1 - p) (the resisters of
    # one cast share the caster's total and are correlated).
    p = ex.metrics[name]
    return np.sqrt(p * (1 - p) / TRIALS)


@pytest.mark.parametrize(
    "params",
    [
        dict(mode="spell", skill=8, resistance=12, resisters=6),
        dict(skill=2, opposing_skill=5, damage="1d8", minor_catastrophe_effect="hit"),
        dict(skill=3, opposing_skill=2, roll="advantage", opposing_roll="disadvantage"),
    ],
)
def test_serial_equals_parallel(params):
    spec = CritsCatsSpec(**params)
    one = simulate(spec, trials=600_000, seed=7, threads=1, progress=False)
    two = simulate(spec, trials=600_000, seed=7, threads=2, progress=False)
    assert one.tally.counts.tolist() == two.tally.counts.tolist()
    assert one.tally.counters == two.tally.counters
    for name, h in one.tally.hists.items():
        assert (
            h.counts.tolist() == two.tally.hists[name].counts.tolist()
            and h.tail == two.tally.hists[name].tail
        )


@pytest.mark.parametrize("params", VALIDATION_POINTS)
def test_block_tallies_what_trial_draws(params):
    # The block loop counts naturals and judges each once, or looks classes up in
    # tables: it must tally exactly what the per-trial function gives, trial by trial.
    spec = CritsCatsSpec(**params)
    layout = SYSTEM.layout(spec, exact(spec))
    fast, slow = np.zeros(layout.n_out, dtype=np.int64), np.zeros(layout.n_out, dtype=np.int64)
    k.block(stream_state(11, 3), 20_000, fast, layout.array, kernel_args(spec))
    k.trial_block(stream_state(11, 3), 20_000, slow, layout.array, kernel_args(spec))
    assert fast.tolist() == slow.tolist()


def _same_law(counts: np.ndarray, probs: np.ndarray) -> bool:
    """A chi-square at the suite's alpha, no count where the exact law says impossible."""
    keep = probs > 0
    return (
        counts[~keep].sum() == 0 and stats.chisquare(counts[keep], probs[keep] * counts.sum()).pvalue >= ALPHA
    )


@pytest.mark.parametrize("roll", ["normal", "advantage"])
def test_numpy_bench_matches_exact(roll):
    # the benchmark's NumPy rules must be the same mechanic
    assert bench_cases()[0].name == "crits-cats versus (skill 5 vs 2)"
    counts = (_numpy_versus if roll == "normal" else numpy_versus(roll))(200_000, chunk=50_000)
    assert _same_law(counts, exact(CritsCatsSpec(skill=5, opposing_skill=2, roll=roll)).probs)


def test_numpy_challenge_bench_matches_exact():
    assert _same_law(_numpy_challenge(100_000, chunk=30_000), exact(CritsCatsSpec(**CHALLENGE_SPEC)).probs)


def test_numpy_spell_bench_does_critlabs_work():
    n = 100_000
    casters, first, any_class, affected = _numpy_spell(n, chunk=30_000)
    ex = exact(CritsCatsSpec(**SPELL_SPEC))
    assert _same_law(casters, ex.probs)
    assert _same_law(first, np.array([ex.distributions["resister"].pmf(j) for j in range(6)]))
    for j, lab in enumerate(LABELS):
        p = ex.metrics[f"p_any_resister_{lab}"]
        assert any_class[j] / n == pytest.approx(p, abs=5 * np.sqrt(p * (1 - p) / n) + 1e-12)
    p = ex.metrics["p_affected"]
    assert affected / (4 * n) == pytest.approx(p, abs=5 * np.sqrt(p * (1 - p) / n))


def test_dice_floor_draws_every_trial():
    for case in bench_cases():
        out = case.floor(3 * 1000, 1)
        assert out[0] == 3000


def test_icepool_bench_matches_exact():
    pytest.importorskip("icepool")
    case = bench_cases()[0]
    probs = exact(CritsCatsSpec(skill=5, opposing_skill=2)).probs
    # icepool lists the classes that occur (1..5 here: no major catastrophe at +3)
    assert np.allclose([float(p) for p in case.icepool()], probs[1:])


# -- d20 roll modes ---------------------------------------------------------------------------------
def _kept(dice: list[np.ndarray], roll: str) -> np.ndarray:
    """The natural kept from the dice of one roll (one die when normal)."""
    if roll == "normal":
        return dice[0]
    return np.maximum(*dice) if roll == "advantage" else np.minimum(*dice)


def _every_roll(*rolls: str) -> tuple[list[np.ndarray], float]:
    """The kept naturals of each roll over every combination of the dice rolled (one d20
    for a normal roll, two otherwise), each combination equally likely."""
    counts = [1 if r == "normal" else 2 for r in rolls]
    grids = np.meshgrid(*[np.arange(1, 21)] * sum(counts), indexing="ij")
    faces = [g.ravel() for g in grids]
    kept, at = [], 0
    for roll, c in zip(rolls, counts, strict=True):
        kept.append(_kept(faces[at : at + c], roll))
        at += c
    return kept, 1 / faces[0].size


def _by_hand(natural, margin, won, major=20, crit=1, cat=1) -> np.ndarray:
    """Class index of each roll, read straight off the rules: a natural in the crit range
    is a critical, in the catastrophe range a catastrophe (major at a 20-point margin)."""
    pull = (natural >= 21 - crit).astype(int) - (natural <= cat).astype(int)
    return _classes_by_pull(pull, margin, won, major)


def _classes_by_pull(pull, margin, won, major=20) -> np.ndarray:
    return np.select(
        [(pull > 0) & (margin >= major), pull > 0, (pull < 0) & (-margin >= major), pull < 0, won],
        [5, 4, 0, 1, 3],
        default=2,
    )


def _probs(classes: np.ndarray, weight: float) -> np.ndarray:
    return np.bincount(classes, minlength=6) * weight


def test_challenge_with_advantage_and_disadvantage_hand_computed():
    # skill 5 against 21: the kept 20 is the only critical, the kept 1 the only catastrophe;
    # 16..19 succeed. Advantage keeps k with (2k - 1)/400, disadvantage with (41 - 2k)/400.
    adv = out(exact(CritsCatsSpec(mode="challenge", skill=5, roll="advantage")))
    assert adv["minor_critical"] == pytest.approx(39 / 400)
    assert adv["minor_catastrophe"] == pytest.approx(1 / 400)
    assert adv["success"] == pytest.approx((31 + 33 + 35 + 37) / 400)
    dis = out(exact(CritsCatsSpec(mode="challenge", skill=5, roll="disadvantage")))
    assert dis["minor_critical"] == pytest.approx(1 / 400)
    assert dis["minor_catastrophe"] == pytest.approx(39 / 400)
    assert dis["success"] == pytest.approx((9 + 7 + 5 + 3) / 400)


@pytest.mark.parametrize("roll", ["advantage", "disadvantage"])
def test_challenge_roll_modes_by_enumerating_both_dice(roll):
    spec = CritsCatsSpec(mode="challenge", skill=-3, crit_range=3, cat_range=2, major_margin=12, roll=roll)
    (natural,), w = _every_roll(roll)
    margin = natural - 3 - 21
    expected = _probs(_by_hand(natural, margin, margin >= 0, major=12, crit=3, cat=2), w)
    assert exact(spec).probs == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(
    ("roll", "opposing_roll"),
    [
        ("advantage", "normal"),
        ("disadvantage", "advantage"),
        ("normal", "disadvantage"),
        ("advantage", "advantage"),
    ],
)
def test_versus_roll_modes_by_enumerating_every_die(roll, opposing_roll):
    # up to four d20s (the initiator's two, then the responder's two): the initiator's
    # kept natural makes its crits and catastrophes and the responder's kept natural is
    # transferred to it (a responder 20 a catastrophe, a 1 a critical; opposite pulls cancel)
    spec = CritsCatsSpec(skill=9, opposing_skill=0, roll=roll, opposing_roll=opposing_roll)
    (initiator, responder), w = _every_roll(roll, opposing_roll)
    own = (initiator == 20).astype(int) - (initiator == 1)
    theirs = (responder == 20).astype(int) - (responder == 1)
    margin = initiator + 9 - responder
    expected = _probs(_classes_by_pull(np.sign(own - theirs), margin, margin > 0), w)
    assert exact(spec).probs == pytest.approx(expected, abs=1e-15)
    # with the responder's naturals ignored only the initiator's kept die counts
    ignored = exact(spec.replace(responder_naturals="ignore")).probs
    assert ignored == pytest.approx(_probs(_by_hand(initiator, margin, margin > 0), w), abs=1e-15)


def test_versus_advantage_hand_computed():
    # equal skill, the initiator with advantage: a kept 20 (39/400) is a critical unless
    # the responder's 20 cancels it (1/20); the responder's 1 (1/20) against a kept 2..19
    # (1 - 40/400) transfers a critical: 39/400 * 19/20 + 1/20 * 360/400.
    r = out(exact(CritsCatsSpec(skill=4, opposing_skill=4, roll="advantage")))
    assert r["minor_critical"] == pytest.approx(39 / 400 * 19 / 20 + 1 / 20 * 360 / 400)
    assert r["minor_catastrophe"] == pytest.approx(1 / 400 * 19 / 20 + 1 / 20 * 360 / 400)
    assert r["major_critical"] == 0.0 and r["major_catastrophe"] == 0.0


def test_spell_roll_modes_by_enumerating_every_die():
    # the caster with advantage, one resister with disadvantage: 4 dice, 160,000 ways
    spec = CritsCatsSpec(mode="spell", skill=8, resistance=9, roll="advantage", opposing_roll="disadvantage")
    (caster, resister), w = _every_roll("advantage", "disadvantage")
    c_margin = caster + 8 - 21
    c_class = _by_hand(caster, c_margin, c_margin >= 0)
    r_margin = resister + 9 - (caster + 8)
    r_class = _by_hand(resister, r_margin, r_margin >= 0)
    ex = exact(spec)
    assert ex.probs == pytest.approx(_probs(c_class, w), abs=1e-15)
    expected = _probs(r_class, w)
    resisted = [ex.distributions["resister"].pmf(j) for j in range(6)]
    assert resisted == pytest.approx(expected, abs=1e-15)
    affected = ((c_class >= 3) & (r_class < 3)).sum() * w
    assert ex.metrics["p_affected"] == pytest.approx(affected, abs=1e-15)
    cost = float(np.dot(_probs(c_class, w), COST_MULTIPLIER))
    assert ex.metrics["expected_cost_multiplier"] == pytest.approx(cost)


def test_opposing_roll_is_null_in_a_challenge(capsys):
    spec = CritsCatsSpec(mode="challenge", skill=3, roll="advantage", opposing_roll="disadvantage")
    assert spec.params()["opposing_roll"] is None and spec.params()["roll"] == "advantage"
    assert exact(spec).probs == pytest.approx(exact(spec.replace(opposing_roll="normal")).probs)
    argv = ["--mode", "challenge", "--skill", "3", "--opposing-roll", "advantage", "--json"]
    assert main(["exact", "crits-cats", *argv]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["opposing_roll"] is None
    assert CritsCatsSpec(skill=3, opposing_skill=1).params()["opposing_roll"] == "normal"


ROLL_POINTS = [
    dict(skill=3, opposing_skill=2, roll=roll, opposing_roll=opp)
    for roll, opp in (("advantage", "normal"), ("disadvantage", "advantage"))
] + [
    dict(skill=2, opposing_skill=5, damage="1d8", minor_catastrophe_effect="hit", roll="advantage",
         opposing_roll="disadvantage"),
    dict(mode="challenge", skill=0, crit_range=3, major_margin=5, roll="advantage"),
    dict(mode="challenge", skill=10, cat_range=4, roll="disadvantage"),
    dict(mode="spell", skill=8, resistance=12, resisters=5, major_margin=10, roll="advantage",
         opposing_roll="disadvantage"),
    dict(mode="spell", skill=20, resistance=-8, resisters=3, major_margin=10, roll="disadvantage",
         opposing_roll="advantage"),
]  # fmt: skip


@pytest.mark.parametrize("params", ROLL_POINTS)
def test_roll_modes_simulation_matches_exact(params):
    spec = CritsCatsSpec(**params)
    ex = exact(spec)
    sim = simulate(spec, trials=TRIALS, seed=20250115, progress=False)
    v = validate(ex, sim, alpha=ALPHA)
    assert v.passed, v.groups
    for name, value in ex.metrics.items():
        if value is not None:
            assert sim.metrics[name] == pytest.approx(value, abs=5 * _metric_se(ex, name, spec) + 1e-12), name


@pytest.mark.parametrize("params", ROLL_POINTS[::2])
def test_roll_modes_block_tallies_what_trial_draws(params):
    test_block_tallies_what_trial_draws(params)


# -- sweeps, tables and plots -------------------------------------------------------------------
def test_sweep_outcomes_sum_to_one():
    df = sweep(
        CritsCatsSpec(skill=0, opposing_skill=0, damage="1d6"), skill=range(-25, 26, 5), crit_range=[1, 3]
    )
    sums = df[df.kind == "outcome"].groupby(["skill", "crit_range"])["exact"].sum()
    assert np.allclose(sums, 1.0)
    dmg = df[(df.kind == "metric") & (df.name == "expected_damage")]
    assert dmg.groupby("crit_range")["exact"].apply(lambda s: s.is_monotonic_increasing).all()


def test_extremes_by_roll_mode():
    # ignoring the responder's naturals, the initiator's crits are its kept 20s and its
    # catastrophes its kept 1s at every skill difference
    spec = CritsCatsSpec(skill=0, opposing_skill=0, responder_naturals="ignore")
    t = extremes_by_roll_mode(spec, [-9, 0, 9])
    assert np.allclose(t[("advantage", "critical")], 39 / 400)
    assert np.allclose(t[("advantage", "catastrophe")], 1 / 400)
    assert np.allclose(t[("disadvantage", "critical")], 1 / 400)
    assert np.allclose(t[("normal", "catastrophe")], 1 / 20)


def test_challenge_mismatch_curve():
    t = extremes_by_skill(CritsCatsSpec(mode="challenge", skill=0))
    assert t.index.min() == -10 and t.index.max() == 40
    assert t.loc[0, "major_catastrophe"] == pytest.approx(0.05) and t.loc[1, "major_catastrophe"] == 0.0
    assert t.loc[21, "major_critical"] == pytest.approx(0.05) and t.loc[20, "major_critical"] == 0.0
    assert np.allclose(t[list(LABELS)].sum(axis=1), 1.0)


@pytest.mark.parametrize(
    ("plot", "params"),
    [
        (plot_versus_extremes, dict(skill=3, opposing_skill=1)),
        (plot_roll_modes, dict(skill=3, opposing_skill=1, opposing_roll="advantage")),
        (plot_challenge_extremes, dict(mode="challenge", skill=3)),
        (plot_casting_cost, dict(mode="spell", skill=3, resistance=5)),
        (plot_resisters, dict(mode="spell", skill=3, resistance=5)),
        (
            plot_combat,
            dict(skill=3, opposing_skill=1, damage="1d8", protection=2, minor_catastrophe_effect="hit"),
        ),
    ],
)
def test_plots_have_titled_axes(plot, params):
    import matplotlib.pyplot as plt

    fig = plot(CritsCatsSpec(**params))
    try:
        assert fig.axes and all(ax.get_title() for ax in fig.axes)
        assert all("(exact)" in ax.get_title() for ax in fig.axes)
    finally:
        plt.close(fig)


def test_plot_accepts_an_axis():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        assert plot_casting_cost(CritsCatsSpec(mode="spell", skill=3, resistance=5), ax=ax) is fig
        assert ax.get_xlabel() == "casting skill"
    finally:
        plt.close(fig)


# -- command line -----------------------------------------------------------------------------------
def test_cli_exact_json(capsys):
    code = main(
        ["exact", "crits-cats", "--skill", "5", "--opposing-skill", "-2", "--damage", "1d8", "--json"]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["system"] == "crits-cats"
    assert list(data["outcomes"]) == list(LABELS)
    assert set(data["params"]) == {f.name for f in dataclasses.fields(CritsCatsSpec)}
    assert data["params"]["opposing_skill"] == -2 and data["params"]["resistance"] is None
    assert data["params"]["backlash_damage"] == "1d8"
    assert set(data["distributions"]) == {"damage", "backlash", "resister"}
    assert data["distributions"]["resister"] is None and "tail" in data["distributions"]["damage"]
    assert list(data["metrics"]) == list(METRICS)
    assert data["metrics"]["expected_damage"] > 0 and data["metrics"]["p_affected"] is None
    spell = ["--mode", "spell", "--skill", "9", "--resistance", "11", "--json"]
    assert main(["exact", "crits-cats", *spell]) == 0
    resister = json.loads(capsys.readouterr().out)["distributions"]["resister"]
    assert list(resister) == list(LABELS) and sum(resister.values()) == pytest.approx(1.0)


def test_cli_simulate_and_validate_json(capsys):
    args = ["--mode", "spell", "--skill", "9", "--resistance", "11", "--resisters", "6", "--json"]
    assert main(["simulate", "crits-cats", "--trials", "20000", "--seed", "3", "--no-progress", *args]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("trials", "seed", "counts", "standard_errors", "outcomes", "distributions", "metrics"):
        assert key in data
    assert data["seed"] == 3 and sum(data["counts"].values()) == 20000
    # one resister's class is a distribution over the six labels, exact and simulated alike
    assert list(data["distributions"]["resister"]) == list(LABELS)
    assert sum(data["distributions"]["resister"].values()) == pytest.approx(1.0)
    assert 0 < data["metrics"]["p_any_resister_minor_critical"] < 1
    assert main(["validate", "crits-cats", "--trials", "20000", "--seed", "3", "--no-progress", *args]) == 0
    v = json.loads(capsys.readouterr().out)
    assert v["passed"] is True and v["rows"][0]["outcome"].startswith("major_catastrophe")
