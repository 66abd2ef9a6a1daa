"""crit-range: the seed's worked examples (seed 001), hand computations, errors, MC vs exact,
sweeps, plots, determinism across threads and the command line."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.design.sweep import sweep
from critlab.analysis.dice.notation import parse
from critlab.analysis.spec import SpecError
from critlab.analysis.systems.crit_range import (
    ATTACK_LABELS,
    TEST_LABELS,
    CritRangeSpec,
    attacks_to_break,
    crit_bonus_roll,
    exact,
    kernel_args,
    reduce_by_dr,
    simulate,
    weapon_damage,
)
from critlab.analysis.validate import validate
from critlab.analysis.views.crit_range import (
    bonus_equivalent_table,
    heatmap_table,
    plot_bonus_equivalent,
    plot_heatmap,
)
from critlab.kernels.crit_range import scale_floor

# Significance for MC-vs-exact checks: fixed seeds make each verdict reproducible, and at
# 1e-3 a real bias of a few percent in any label at these trial counts is still caught.
ALPHA = 1e-3
# Exact values built from sums of float64 probabilities agree with hand fractions to far
# better than this; it only absorbs rounding, never a modelling difference.
EXACT = 1e-12

BASE = dict(attack_bonus=3, evasion=11)


# -- the seed's worked examples ----------------------------------------------------------
def test_seed_crit_die_six_then_four_is_ten():
    # seed 001: "A weapon grants 1d6 CRIT Die. You roll a 6, so you roll again and get a 4.
    # Your total CRIT bonus damage is 10 (6 + 4)." 6 then 4 is the only way to 10: 1/36.
    spec = CritRangeSpec(**BASE)
    assert crit_bonus_roll(spec).pmf(10) == pytest.approx(1 / 36, abs=EXACT)
    # per attack, crit_bonus is 0 unless the attack CRITs (1/20 at crit_range 1)
    bonus = exact(spec).distributions["crit_bonus"]
    assert bonus.pmf(10) == pytest.approx(1 / 20 / 36, abs=EXACT)
    assert bonus.pmf(0) == pytest.approx(19 / 20, abs=EXACT)


def test_crit_dice_explode_without_limit_closed_form():
    # 1d6!: k sixes then a face j in 1..5 has value 6k + j and probability 6**-(k + 1);
    # a value that is a multiple of 6 is impossible (the chain never stops on a 6).
    d = crit_bonus_roll(CritRangeSpec(**BASE))
    for k in range(6):
        for j in range(1, 6):
            assert d.pmf(6 * k + j) == pytest.approx(6.0 ** -(k + 1), abs=EXACT)
        assert d.pmf(6 * (k + 1)) == 0.0
    assert 0 < d.tail < 1e-12  # docs/rules.md: unbounded chains keep an explicit tail below 1e-12
    assert d.mass + d.tail == pytest.approx(1.0, abs=EXACT)


@pytest.mark.parametrize("text", ["1d6!", "2d6!"])
def test_crit_bonus_matches_notation_engine(text):
    # crit dice explode written with ! or not: both spellings give the notation engine's
    # exploding distribution
    reference = parse(text).dist()
    for written in (text, text.rstrip("!")):
        d = crit_bonus_roll(CritRangeSpec(**BASE, crit_dice=written))
        assert d.allclose(reference, atol=1e-12)


@pytest.mark.parametrize(("r", "crit_naturals"), [(1, {20}), (2, {19, 20}), (3, {18, 19, 20})])
def test_seed_crit_range_expands_down_from_twenty(r, crit_naturals):
    # seed 001: CRIT range 1 -> only 20, 2 -> 19-20, 3 -> 18-20. Evasion out of reach,
    # so only CRITs hit, "regardless of the target's Evasion".
    o = exact(CritRangeSpec(attack_bonus=-1000, evasion=1000, crit_range=r)).outcomes
    assert o["crit"] == pytest.approx(len(crit_naturals) / 20, abs=EXACT)
    assert o["hit"] == 0.0


@pytest.mark.parametrize(("f", "critfail_naturals"), [(1, {1}), (2, {1, 2}), (3, {1, 2, 3})])
def test_seed_critfail_range_expands_up_from_one(f, critfail_naturals):
    # seed 001: CRITFAIL range 1 -> only 1, 2 -> 1-2, 3 -> 1-3; "automatically misses
    # (regardless of your bonuses)": a huge bonus hits every other natural
    o = exact(CritRangeSpec(attack_bonus=1000, evasion=0, critfail_range=f)).outcomes
    assert o["critfail"] == pytest.approx(len(critfail_naturals) / 20, abs=EXACT)
    assert o["miss"] == 0.0
    assert o["hit"] + o["crit"] == pytest.approx(1 - len(critfail_naturals) / 20, abs=EXACT)


# -- hand computations -------------------------------------------------------------------
def test_attack_hand_computed():
    # +3 vs 11 hits on natural >= 8; crit_range 2: 19-20 CRIT, 1 CRITFAIL, 2-7 miss, 8-18 hit
    r = exact(CritRangeSpec(**BASE, crit_range=2))
    assert r.labels == ATTACK_LABELS
    expected = {"critfail": 1 / 20, "miss": 6 / 20, "hit": 11 / 20, "crit": 2 / 20}
    for label, p in expected.items():
        assert r.outcomes[label] == pytest.approx(p, abs=EXACT)
    # 11/20 * 5.5 + 2/20 * (5.5 + 4.2): 1d10 averages 5.5, 1d6! averages 3.5 * 6/5
    assert r.metrics["expected_damage"] == pytest.approx(11 / 20 * 5.5 + 2 / 20 * 9.7, abs=1e-10)
    assert r.metrics["p_crit"] == pytest.approx(0.1) and r.metrics["p_critfail"] == pytest.approx(0.05)


def test_test_mode_hand_computed():
    # +2 vs difficulty 15 succeeds on natural >= 13: 13-19 success, 2-12 failure
    r = exact(CritRangeSpec(mode="test", bonus=2, difficulty=15))
    assert r.labels == TEST_LABELS
    expected = {"critfail": 1 / 20, "failure": 11 / 20, "success": 7 / 20, "crit": 1 / 20}
    for label, p in expected.items():
        assert r.outcomes[label] == pytest.approx(p, abs=EXACT)
    assert r.distributions == {"damage": None, "crit_bonus": None, "attacks_to_break": None}
    assert r.metrics["expected_damage"] is None and r.metrics["mean_attacks_to_break"] is None
    for unused in ("attack_bonus", "evasion", "crit_dice", "damage", "dt", "dr", "condition"):
        assert r.params[unused] is None
    assert r.params["bonus"] == 2


def test_crit_dice_added_after_dt():
    # damage 2 against DT 5 leaves 0; a CRIT then deals the CRIT dice in full ("added
    # after DT is applied, and it is not reduced by DT"), not max(0, 2 + bonus - 5)
    spec = CritRangeSpec(**BASE, damage="2", dt=5)
    hit, crit = weapon_damage(spec)
    assert hit.to_dict() == {0: 1.0}
    assert crit.allclose(crit_bonus_roll(spec), atol=EXACT)
    assert crit.pmf(1) == pytest.approx(1 / 6, abs=EXACT)


def test_crit_dice_reduced_by_dr():
    # damage 9, DT 4, DR 0.5: a hit deals floor(5 * 0.5) = 2; a CRIT with 6 then 4 deals
    # floor((5 + 10) * 0.5) = 7, and so does 6 then 3: floor(14 * 0.5) = 7
    spec = CritRangeSpec(attack_bonus=0, evasion=100, damage="9", dt=4, dr=0.5)
    hit, crit = weapon_damage(spec)
    assert hit.to_dict() == {2: 1.0}
    assert crit.pmf(7) == pytest.approx(2 / 36, abs=EXACT)
    # evasion 100: only the natural 20 (a CRIT) deals damage
    assert exact(spec).distributions["damage"].pmf(7) == pytest.approx(1 / 20 * 2 / 36, abs=EXACT)


def test_dr_floor_is_exact():
    # docs/rules.md: floor(5 * (1 - 0.8)) is 1, not 0 (5 * 0.2 is 0.9999... in binary floats)
    assert math.floor(5 * (1 - 0.8)) == 0  # the trap this rule avoids
    assert reduce_by_dr(np.array([5]), Fraction(4, 5)).tolist() == [1]
    spec = CritRangeSpec(attack_bonus=1000, evasion=0, crit_range=0, critfail_range=0, damage="5", dr=0.8)
    r = exact(spec)
    assert r.distributions["damage"].to_dict() == {1: 1.0}
    sim = simulate(spec, trials=10_000, seed=3, progress=False)
    assert sim.tally.hists["damage"].frequencies(sim.trials, tail=True) == {1: 1.0, "tail": 0.0}


def test_kernel_floor_exact_beyond_int64_products():
    # keep/den = 1 - dr with an 18-digit denominator: x * keep overflows int64 for x > 9,
    # so the kernel's bit-by-bit product must still equal Python's exact integers
    rng = np.random.default_rng(11)
    den = 10**18
    for keep in (1, 876543210987654322, den - 1, den):
        x_max = (2**63 - 1) // keep
        for x in [0, 1, 9, 10, 123, 10**6, 2**40 + 7, *rng.integers(0, 2**31, 20).tolist()]:
            assert scale_floor(x, keep, den, x_max) == (x * keep) // den


def test_floored_negative_damage():
    # 1d4-3 floors at 0 per roll: 1, 2, 3 -> 0 and 4 -> 1
    hit, _ = weapon_damage(CritRangeSpec(**BASE, damage="1d4-3"))
    assert hit.to_dict() == {0: 0.75, 1: 0.25}


def test_attacks_to_break_geometric_and_negative_binomial():
    p = 1 / 20
    one = attacks_to_break(1, Fraction(1, 20))
    for n in (1, 2, 10, 50):
        assert one.pmf(n) == pytest.approx((1 - p) ** (n - 1) * p, abs=EXACT)
    # condition 2: the 2nd CRITFAIL on attack n: (n - 1) * p^2 * (1 - p)^(n - 2)
    two = attacks_to_break(2, Fraction(1, 20))
    for n in (2, 3, 40):
        assert two.pmf(n) == pytest.approx((n - 1) * p * p * (1 - p) ** (n - 2), abs=EXACT)
    assert two.pmf(1) == 0.0
    for d in (one, two, attacks_to_break(1000, Fraction(1, 20))):
        assert d.tail < 1e-12  # the rules' bound on the explicit tail
        assert d.mass + d.tail == pytest.approx(1.0, abs=1e-10)


@pytest.mark.parametrize("condition", [1, 2, 10, 16, 17])
@pytest.mark.parametrize(
    "p_critfail", [Fraction(1, 20), Fraction(3, 20), Fraction(1, 400), Fraction(1, 4000)]
)
def test_attacks_to_break_is_scipys_negative_binomial(condition, p_critfail):
    # conditions up to 16 are a product of their own (no scipy.stats to import), larger
    # ones scipy's: either way the same support, tail and probabilities as nbinom's. The
    # product is within 2e-14 of 40-digit values; nbinom.pmf, within 5e-13 at p = 1/4000
    # (1e-12 covers both)
    from scipy import stats

    d = attacks_to_break(condition, p_critfail)
    nbinom = stats.nbinom(condition, float(p_critfail))
    last = int(nbinom.isf(1e-14)) + 1
    assert d.min == condition and d.probs.size == last + 1
    np.testing.assert_allclose(d.probs, nbinom.pmf(np.arange(last + 1)), rtol=1e-12, atol=0)
    assert d.tail == pytest.approx(nbinom.sf(last), rel=1e-12)


def test_wear_metric_and_nulls():
    r = exact(CritRangeSpec(**BASE, critfail_range=2, condition=7))
    # 7 Condition, each attack a CRITFAIL with 2/20: 70 attacks on average
    assert r.metrics["mean_attacks_to_break"] == pytest.approx(70.0)
    assert r.distributions["attacks_to_break"].mean == pytest.approx(70.0, abs=1e-9)
    none = exact(CritRangeSpec(**BASE, critfail_range=0))
    assert none.distributions["attacks_to_break"] is None and none.metrics["mean_attacks_to_break"] is None
    always = exact(CritRangeSpec(**BASE, crit_range=0, critfail_range=20, condition=7))
    assert always.distributions["attacks_to_break"].to_dict() == {7: 1.0}


# -- bad parameters ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("crit_range", 21), ("crit_range", -1), ("critfail_range", 21), ("mode", "defend"),
        ("attack_bonus", None), ("evasion", 1001), ("dt", -1), ("dr", 1), ("dr", -0.1), ("dr", "lots"),
        ("dr", "1e-20"), ("condition", 0), ("condition", 1001), ("damage", "1d0"), ("crit_dice", "2d6kh1"),
        ("crit_dice", "1d6-1d4"), ("crit_dice", "1d1"), ("crit_dice", "banana"),
    ],
)  # fmt: skip
def test_bad_parameters_name_themselves(field, value):
    kwargs = dict(BASE)
    kwargs[field] = value
    with pytest.raises(SpecError, match=field):
        CritRangeSpec(**kwargs)


def test_ranges_may_not_overlap():
    with pytest.raises(SpecError, match="crit_range.*critfail_range"):
        CritRangeSpec(**BASE, crit_range=12, critfail_range=9)
    CritRangeSpec(**BASE, crit_range=11, critfail_range=9)  # 20 in all is allowed


@pytest.mark.parametrize("field", ["bonus", "difficulty"])
def test_test_mode_requires_its_parameters(field):
    kwargs = dict(mode="test", bonus=1, difficulty=10)
    kwargs[field] = None
    with pytest.raises(SpecError, match=field):
        CritRangeSpec(**kwargs)


# -- simulation against the exact engine -------------------------------------------------
@pytest.mark.parametrize(
    "params",
    [
        dict(BASE, crit_range=2),  # the bench point
        # every natural CRITs; a d2 explodes half the time, so chains run long
        dict(attack_bonus=0, evasion=10, crit_range=20, critfail_range=0, crit_dice="1d2", dt=3, dr=0.25),
        # wide ranges, negative damage rolls floored, DR 0.8 read exactly, CRIT dice with a constant
        dict(attack_bonus=-2, evasion=14, crit_range=5, critfail_range=3, damage="2d6-3", dt=2, dr=0.8,
             crit_dice="2d4+1"),
        # an 18-digit DR: the kernel's overflow-free floor on damage above 1000
        dict(attack_bonus=0, evasion=10, damage="1d100+1000", dr="0.123456789012345678"),
        # every natural CRITFAILs: no damage at all
        dict(attack_bonus=5, evasion=5, crit_range=0, critfail_range=20),
        dict(mode="test", bonus=4, difficulty=18, crit_range=3, critfail_range=2),
        # the d20s and 2d6 drawn as one draw under advantage; an exploding d8 drawn apart
        dict(attack_bonus=1, evasion=12, crit_range=3, damage="2d6+1", dt=1, roll="advantage"),
        dict(attack_bonus=1, evasion=12, crit_range=3, damage="1d8!", roll="disadvantage"),
    ],
)  # fmt: skip
def test_simulation_matches_exact(params):
    spec = CritRangeSpec(**params)
    v = validate(exact(spec), simulate(spec, trials=300_000, seed=2024, progress=False), alpha=ALPHA)
    assert v.passed, v.groups


@pytest.mark.parametrize(
    ("damage", "joint"),
    [("1d10", (10, 10)), ("2d6-3", (36, 11)), ("1d100+1000", (100, 100)), ("1d8!", (0, 0)),
     ("4d6kh3", (0, 0)), ("5d10", (0, 0))],
)  # fmt: skip
def test_simple_damage_is_drawn_with_the_d20(damage, joint):
    # joint (outcomes, totals): a d20 and its damage dice as one draw where they are simple,
    # not exploding and few enough (5d10's 100,000 outcomes are not)
    rules = kernel_args(CritRangeSpec(**BASE, damage=damage)).rules
    assert (rules.joint, rules.joint_totals) == joint


def test_simulated_wear_is_validated():
    # each weapon life is simulated attack by attack until the Condition-th CRITFAIL, and
    # held against the exact negative binomial by the same validator
    spec = CritRangeSpec(**BASE, critfail_range=3, condition=12)
    sim = simulate(spec, trials=400_000, seed=5, progress=False)
    life = sim.tally.hists["attacks_to_break"]
    # a block of n attacks records max(1, n * p / condition) lives: 2^18 / 80 and the rest
    assert life.total == (2**18 * 3 // 240) + ((400_000 - 2**18) * 3 // 240)
    assert sim.metrics["mean_attacks_to_break"] == pytest.approx(
        sim.tally.counters["attacks_sum"] / life.total
    )
    v = validate(exact(spec), sim, alpha=ALPHA)
    assert v.passed, v.groups
    assert "attacks_to_break" in set(v.groups.group)
    # frequencies over the lives, not over the attacks
    shares = sim.to_json()["distributions"]["attacks_to_break"]
    assert sum(shares.values()) == pytest.approx(1.0)
    damage_sum = sim.tally.counters["damage_sum"]
    assert sim.metrics["expected_damage"] == pytest.approx(damage_sum / sim.trials)


def test_weapon_lives_longer_than_a_block_are_not_cut_short():
    # blocks of 50 attacks, each recording one life of 103 attacks on average: every life goes
    # on past its block's attacks, and the lives must still follow the exact distribution
    from critlab.analysis.results import SimResult
    from critlab.analysis.systems.base import KernelBlock
    from critlab.analysis.systems.crit_range import SYSTEM, kernel_args
    from critlab.kernels import crit_range as k
    from critlab.kernels.rng import stream_state

    spec = CritRangeSpec(**BASE, condition=10, roll="disadvantage", critfail_range=1)  # p 39/400
    ex = exact(spec)
    layout = SYSTEM.layout(spec, ex)
    block = KernelBlock(k.block, layout.array, kernel_args(spec))
    out = np.zeros(layout.n_out, dtype=np.int64)
    blocks = 4000
    for i in range(blocks):
        block(stream_state(8, i), 50, out)
    tally = layout.unpack(out, trials=50 * blocks, seed=8)
    assert tally.hists["attacks_to_break"].total == blocks
    sim = SimResult.of(ex, tally, SYSTEM.simulator.metrics(spec, tally))
    v = validate(ex, sim, alpha=ALPHA)
    assert v.passed, v.groups
    # mean 10 / (39/400) = 102.6; sd of one life sqrt(10 * 361/400) / (39/400) = 30.8
    assert abs(sim.metrics["mean_attacks_to_break"] - 4000 / 39) < 5 * 30.8 / math.sqrt(blocks)


def test_no_wear_without_critfails_or_in_test_mode():
    for spec in (CritRangeSpec(**BASE, critfail_range=0), CritRangeSpec(mode="test", bonus=1, difficulty=9)):
        sim = simulate(spec, trials=2000, seed=1, progress=False)
        assert "attacks_to_break" not in sim.tally.hists
        assert sim.metrics["mean_attacks_to_break"] is None
        assert sim.to_json()["distributions"]["attacks_to_break"] is None


def test_serial_equals_parallel():
    # 600k trials span three blocks: the tally must not depend on the thread count
    spec = CritRangeSpec(**BASE, crit_range=3, crit_dice="1d4", dr=0.3)
    one = simulate(spec, trials=600_000, seed=99, threads=1, progress=False).tally
    two = simulate(spec, trials=600_000, seed=99, threads=2, progress=False).tally
    assert np.array_equal(one.counts, two.counts)
    for name in one.hists:
        assert np.array_equal(one.hists[name].counts, two.hists[name].counts)
        assert one.hists[name].tail == two.hists[name].tail
    assert one.counters == two.counters


# -- sweeps and design questions ---------------------------------------------------------
def test_sweep_over_ranges_and_evasion():
    df = sweep(CritRangeSpec(**BASE), crit_range=range(0, 6), evasion=[5, 11, 25])
    sums = df[df.kind == "outcome"].groupby(["crit_range", "evasion"])["exact"].sum()
    assert np.allclose(sums, 1.0, atol=EXACT)
    dmg = df[df.name == "expected_damage"].pivot(index="crit_range", columns="evasion", values="exact")
    # a wider CRIT range turns misses and hits into CRITs, which never deal less
    assert (dmg.diff().iloc[1:] > 0).all().all()


def test_heatmap_table_hand_checked():
    t = heatmap_table(CritRangeSpec(**BASE), crit_ranges=range(1, 6), evasions=range(5, 26))
    assert t.shape == (5, 21)
    # evasion 25 needs a natural 22: only CRITs hit, each for 5.5 + 4.2
    assert t.loc[3, 25] == pytest.approx(3 / 20 * 9.7, abs=1e-10)
    rate = heatmap_table(CritRangeSpec(**BASE), quantity="p_crit", crit_ranges=[1, 4], evasions=[5, 20])
    assert rate.loc[4].tolist() == pytest.approx([0.2, 0.2])
    with pytest.raises(SpecError, match="quantity"):
        heatmap_table(CritRangeSpec(**BASE), quantity="charisma")


def test_bonus_equivalent_hand_computed():
    t = bonus_equivalent_table(CritRangeSpec(**BASE), crit_ranges=range(1, 6), evasions=[11, 5])
    at11 = t[t.evasion == 11].set_index("crit_range")
    # each step of crit range turns a hit into a CRIT: + 1/20 * 4.2; each point of bonus
    # turns a miss into a hit: + 1/20 * 5.5. One step of range is worth 4.2 / 5.5 points.
    assert at11.bonus_worth.tolist() == pytest.approx([k * 4.2 / 5.5 for k in range(5)], abs=1e-9)
    assert at11.loc[1, "equivalent_attack_bonus"] == pytest.approx(3.0)
    # +3 vs 5 already hits every non-CRITFAIL natural: crit range 2 is worth more than any bonus
    at5 = t[t.evasion == 5].set_index("crit_range")
    assert at5.loc[1, "bonus_worth"] == 0.0
    assert np.isnan(at5.loc[2, "bonus_worth"])


def test_plots_have_titled_axes():
    import matplotlib.pyplot as plt

    spec = CritRangeSpec(**BASE)
    for fig in (
        plot_heatmap(spec, evasions=range(8, 15)),
        plot_bonus_equivalent(spec, crit_ranges=range(1, 4)),
    ):
        titled = [a for a in fig.axes if a.get_title()]
        assert titled and all("(exact)" in a.get_title() for a in titled)
        plt.close(fig)
    with pytest.raises(SpecError, match="mode"):
        plot_heatmap(CritRangeSpec(mode="test", bonus=0, difficulty=10))


# -- the command line --------------------------------------------------------------------
def test_cli_exact_json(capsys):
    assert (
        main(["exact", "crit-range", "--attack-bonus", "3", "--evasion", "11", "--dr", "0.8", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["system"] == "crit-range"
    assert (
        out["params"]["dr"] == 0.8 and out["params"]["bonus"] is None and out["params"]["crit_dice"] == "1d6"
    )
    assert list(out["outcomes"]) == list(ATTACK_LABELS)
    assert set(out["distributions"]) == {"damage", "crit_bonus", "attacks_to_break"}
    assert all("tail" in d for d in out["distributions"].values())
    assert set(out["metrics"]) == {"expected_damage", "mean_attacks_to_break", "p_crit", "p_critfail"}


def test_cli_simulate_test_mode_json(capsys):
    args = ["simulate", "crit-range", "--mode", "test", "--bonus", "2", "--difficulty", "15"]
    assert main([*args, "--trials", "2000", "--seed", "4", "--no-progress", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"trials", "seed", "counts", "standard_errors", "outcomes"} <= set(out)
    assert list(out["counts"]) == list(TEST_LABELS) and sum(out["counts"].values()) == 2000
    assert out["metrics"]["mean_attacks_to_break"] is None and out["params"]["evasion"] is None


# -- d20 roll modes ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("roll", "r", "p"),
    [
        ("advantage", 1, 0.0975),
        ("advantage", 2, 0.19),
        ("disadvantage", 1, 0.0025),
        ("disadvantage", 2, 0.01),
    ],
)
def test_roll_mode_crit_rate_references(roll, r, p):
    # the rules' references: 1 - (19/20)^2 = 9.75% with advantage, (1/20)^2 = 0.25% with
    # disadvantage; crit range 2: 1 - (18/20)^2 = 19% and (2/20)^2 = 1%
    for spec in (
        CritRangeSpec(attack_bonus=5, evasion=15, roll=roll, crit_range=r),
        CritRangeSpec(mode="test", bonus=5, difficulty=15, roll=roll, crit_range=r),
    ):
        result = exact(spec)
        assert result.outcomes["crit"] == pytest.approx(p, abs=EXACT)
        assert result.metrics["p_crit"] == pytest.approx(p, abs=EXACT)


def test_advantage_attack_reference():
    # +5 against evasion 15 hits on a kept natural >= 10. Of the 400 ordered pairs of
    # d20s, max <= k in k^2 of them: critfail (max 1) 1, miss (max 2..9) 81 - 1 = 80,
    # hit (max 10..19) 361 - 81 = 280, crit (max 20) 400 - 361 = 39.
    r = exact(CritRangeSpec(attack_bonus=5, evasion=15, roll="advantage"))
    expected = {"critfail": Fraction(1, 400), "miss": Fraction(1, 5), "hit": Fraction(7, 10)}
    expected["crit"] = Fraction(39, 400)
    for label, p in expected.items():
        assert r.outcomes[label] == pytest.approx(float(p), abs=EXACT)
    # 7/10 * 5.5 + 39/400 * (5.5 + 4.2) = 19183/4000
    assert r.metrics["expected_damage"] == pytest.approx(19183 / 4000, abs=1e-10)
    assert r.metrics["p_critfail"] == pytest.approx(1 / 400, abs=EXACT)
    # the weapon loses Condition only on a kept 1: 10 / (1/400) attacks on average
    assert r.metrics["mean_attacks_to_break"] == pytest.approx(4000.0)
    assert r.distributions["attacks_to_break"].mean == pytest.approx(4000.0, rel=1e-9)
    assert r.params["roll"] == "advantage" and list(r.params)[:2] == ["mode", "roll"]


@pytest.mark.parametrize(("roll", "damage"), [("normal", 3.235), ("disadvantage", 1.67425)])
def test_roll_mode_expected_damage_references(roll, damage):
    r = exact(CritRangeSpec(attack_bonus=5, evasion=15, roll=roll))
    assert r.metrics["expected_damage"] == pytest.approx(damage, abs=1e-10)


def test_disadvantage_test_mode_by_pair_enumeration():
    # +2 against difficulty 15 succeeds on a kept natural >= 13; the kept die of
    # disadvantage is the lower of two, counted over all 400 ordered pairs
    kept = [min(a, b) for a in range(1, 21) for b in range(1, 21)]
    spec = CritRangeSpec(mode="test", bonus=2, difficulty=15, roll="disadvantage", critfail_range=2)
    expected = {
        "critfail": sum(k <= 2 for k in kept),
        "failure": sum(3 <= k <= 12 for k in kept),
        "success": sum(13 <= k <= 19 for k in kept),
        "crit": sum(k == 20 for k in kept),
    }
    r = exact(spec)
    for label, count in expected.items():
        assert r.outcomes[label] == pytest.approx(count / 400, abs=EXACT)


@pytest.mark.parametrize("roll", ["advantage", "disadvantage"])
@pytest.mark.parametrize(
    "params",
    [
        dict(attack_bonus=5, evasion=15),
        dict(attack_bonus=-2, evasion=14, crit_range=5, critfail_range=3, damage="2d6-3", dt=2, dr=0.8),
        dict(mode="test", bonus=4, difficulty=18, crit_range=3, critfail_range=2),
    ],
)
def test_roll_mode_simulation_matches_exact(roll, params):
    spec = CritRangeSpec(**params, roll=roll)
    v = validate(exact(spec), simulate(spec, trials=200_000, seed=77, progress=False), alpha=ALPHA)
    assert v.passed, v.groups


def test_roll_mode_table_and_plot():
    import matplotlib.pyplot as plt

    from critlab.analysis.views.crit_range import plot_roll_modes, roll_mode_table

    t = roll_mode_table(CritRangeSpec(attack_bonus=5, evasion=15), crit_ranges=[1])
    assert t.loc[1, ("expected_damage", "advantage")] == pytest.approx(19183 / 4000, abs=1e-10)
    fig = plot_roll_modes(CritRangeSpec(attack_bonus=5, evasion=15), crit_ranges=range(0, 3))
    assert all("(exact)" in a.get_title() for a in fig.axes)
    plt.close(fig)


# -- the benchmark's baselines -----------------------------------------------------------
@pytest.mark.parametrize("roll", ["normal", "advantage"])
def test_numpy_bench_is_the_same_attack(roll):
    from benchmarks.crit_range import BENCH_SPEC, dice_floor, numpy_attack
    from critlab.analysis.validate import chi_square

    spec = CritRangeSpec(**BENCH_SPEC, roll=roll)
    ex = exact(spec)
    labels, damage_hist, _, damage_sum, lives = numpy_attack(roll)(200_000)
    assert chi_square(ex.probs, labels)[2] > ALPHA
    d = ex.distributions["damage"]
    assert chi_square(np.array([d.pmf(v) for v in range(64)]), damage_hist)[2] > ALPHA
    assert abs(damage_sum / 200_000 - ex.metrics["expected_damage"]) < 5 * d.sd / math.sqrt(200_000)
    assert lives.sum() > 0
    assert dice_floor(spec)(1000, 1)[0] == 1000  # the floor draws every trial
