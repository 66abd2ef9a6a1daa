"""The validator (chi-square with pooling, z-scores) and the tallies it reads."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _biased import (
    BIAS_PER_MILLE,
    D20_LAYOUT,
    TWO_D6_LAYOUT,
    biased_d20_block,
    expr_block,
    fair_d20_block,
    two_d6_block,
)

from critlab.analysis.dice.notation import parse
from critlab.analysis.dist import Dist
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.run import simulate_tally
from critlab.analysis.tally import Hist, Layout, Tally
from critlab.analysis.validate import DEFAULT_ALPHA, MIN_EXPECTED, Validation, chi_square, pool, validate

FAIR_D20 = ExactResult(system="d20", params={}, labels=D20_LAYOUT.labels, probs=np.full(20, 1 / 20))


def fair(state: np.ndarray, n: int, out: np.ndarray) -> None:
    fair_d20_block(state, n, out)


def biased(state: np.ndarray, n: int, out: np.ndarray) -> None:
    biased_d20_block(state, n, out, BIAS_PER_MILLE)


def d20_sim(block, trials: int, seed: int) -> SimResult:
    tally = simulate_tally(D20_LAYOUT, block, trials=trials, seed=seed, threads=2, progress=False)
    return SimResult(system="d20", params={}, tally=tally)


# -- the verdicts --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_fair_d20_passes(seed):
    # fixed seeds: at alpha 1e-3 a correct sampler fails one seed in a thousand, so a
    # failure here is a reproducible bug, not bad luck
    v = validate(FAIR_D20, d20_sim(fair, 500_000, seed))
    assert v.passed, v.groups
    assert v.p_value >= DEFAULT_ALPHA and v.max_abs_z < 5


def test_a_d20_showing_20_five_and_a_half_percent_is_flagged():
    sim = d20_sim(biased, 10**7, seed=5)
    assert sim.tally.frequencies[19] == pytest.approx(0.055, abs=5e-4)  # the kernel is biased as meant
    v = validate(FAIR_D20, sim)
    z20 = float(v.rows.set_index("outcome").loc["20", "z"])
    print(f"\nbiased d20 at 10^7 trials: z(20) = {z20:.1f}, p-value {v.p_value:.3g}")
    assert not v.passed
    # expected z = 0.005 * 1e7 / sqrt(1e7 * 0.05 * 0.95) ~ 72.5; the 19 other faces each
    # lose 0.5/19 % (z ~ -16), so 20 dominates
    assert z20 > 50 and v.max_abs_z == pytest.approx(z20)
    assert v.p_value < 1e-100


def test_the_same_bias_hides_at_ten_thousand_trials():
    # at 10^4 trials the excess 20s are 50 of 500 expected, z ~ 2.3: the test is honest about power
    v = validate(FAIR_D20, d20_sim(biased, 10_000, seed=8))
    assert v.passed


def test_an_observation_in_an_impossible_bin_fails():
    probs = np.array([0.5, 0.5, 0.0])
    exact = ExactResult(system="coin", params={}, labels=("heads", "tails", "edge"), probs=probs)
    lay = Layout(labels=exact.labels)
    sim = SimResult(system="coin", params={}, tally=lay.unpack([500_000, 499_999, 1], trials=10**6, seed=0))
    v = validate(exact, sim)
    assert not v.passed and v.p_value == 0.0
    assert v.max_abs_z == np.inf
    assert v.to_json()["max_abs_z"] is None  # JSON has no infinity
    assert chi_square(probs, np.array([10, 9, 1]))[2] == 0.0


def test_impossible_histogram_bin_fails_too():
    # the exact damage is 0 or 2; one simulated 1 must fail however many trials there are
    exact = ExactResult(
        system="x", params={}, labels=("a",), probs=np.array([1.0]),
        distributions={"damage": Dist.from_mapping({0: 0.5, 2: 0.5})},
    )  # fmt: skip
    lay = Layout(labels=("a",), hists={"damage": (0, 2)})
    sim = SimResult(
        system="x", params={}, tally=lay.unpack([10**6, 499_999, 1, 500_000, 0], trials=10**6, seed=0)
    )
    v = validate(exact, sim)
    assert not v.passed
    assert set(v.groups["group"]) == {"outcome", "damage"}


def test_labels_must_agree_and_alpha_in_range():
    sim = SimResult(system="d20", params={}, tally=D20_LAYOUT.unpack(np.ones(20, int), trials=20, seed=0))
    with pytest.raises(ValueError, match="alpha"):
        validate(FAIR_D20, sim, alpha=1.0)
    other = ExactResult(
        system="d20", params={}, labels=tuple("abcdefghijklmnopqrst"), probs=np.full(20, 0.05)
    )
    with pytest.raises(ValueError, match="labels"):
        validate(other, sim)


@pytest.mark.parametrize(
    "text", ["2d6+1d4-1", "4d6dl1", "5d8kl2", "6d6dh2", "10d10kh3", "1d6!", "2d6!+1", "d4!-d4", "3d6 - 3d6"]
)
def test_simulated_dice_match_the_exact_engine(text):
    # critlab.kernels.dice.roll_expr against DiceExpr.dist(): the same encoding, two implementations
    expr = parse(text)
    d = expr.dist()
    exact = ExactResult(
        system="dice", params={}, labels=("roll",), probs=np.array([1.0]), distributions={"roll": d}
    )
    lay = Layout(labels=("roll",), hists={"roll": (d.min, d.max)})
    arr = lay.array
    terms, constant = expr.encode()

    def block(state: np.ndarray, n: int, out: np.ndarray) -> None:
        expr_block(state, n, out, arr, terms, constant)

    tally = simulate_tally(lay, block, trials=300_000, seed=17, threads=2, progress=False)
    v = validate(exact, SimResult(system="dice", params={}, tally=tally))
    # alpha 1e-3 at a fixed seed, as everywhere: a failure is a reproducible sampler bug
    assert v.passed, v.groups
    assert tally.hists["roll"].mean() == pytest.approx(d.mean, abs=6 * d.sd / np.sqrt(300_000))


# -- pooling -------------------------------------------------------------------------------
def test_pool_merges_small_expected_counts_in_order():
    e, o = pool(np.array([1.0, 2.0, 3.0, 10.0, 0.5, 0.5]), np.array([0, 3, 4, 9, 1, 0]))
    # 1+2+3 reaches 5; 10 alone; the short remainder 0.5+0.5 joins the last pool
    assert e.tolist() == [6.0, 11.0] and o.tolist() == [7.0, 10.0]
    assert e.sum() == 17.0 and o.sum() == 17


def test_pool_keeps_large_bins_and_handles_all_small():
    e, o = pool(np.array([50.0, 60.0]), np.array([49, 61]))
    assert e.tolist() == [50.0, 60.0] and o.tolist() == [49.0, 61.0]
    e, o = pool(np.array([1.0, 1.0]), np.array([2, 0]))
    assert e.tolist() == [2.0] and o.tolist() == [2.0]
    assert chi_square(np.array([0.5, 0.5]), np.array([1, 1])) == (0.0, 0, 1.0)  # one pool: no test
    assert MIN_EXPECTED == 5.0


def test_rare_bins_are_pooled_not_flagged():
    # a d1000 at 1000 trials expects 1 count per bin: unpooled, the chi-square approximation
    # is meaningless; pooled five at a time it is an honest test
    n = 1000
    probs = np.full(1000, 1 / 1000)
    counts = np.random.default_rng(3).multinomial(n, probs)
    stat, dof, p = chi_square(probs, counts)
    assert dof == 1000 // 5 - 1  # bins pooled five at a time
    assert p > DEFAULT_ALPHA  # a fair multinomial draw at a fixed seed


# -- the report ----------------------------------------------------------------------------
def test_validation_json_and_tables():
    v = validate(FAIR_D20, d20_sim(fair, 100_000, seed=11))
    assert isinstance(v, Validation)
    j = v.to_json()
    assert set(j) == {"system", "params", "trials", "seed", "alpha", "p_value", "max_abs_z", "passed", "rows"}
    assert j["trials"] == 100_000 and j["seed"] == 11 and j["alpha"] == DEFAULT_ALPHA
    assert isinstance(j["passed"], bool) and len(j["rows"]) == 20
    assert set(j["rows"][0]) == {"outcome", "exact", "observed", "z"}
    assert list(v.groups.columns) == ["group", "chi2", "dof", "p_value"]


def test_histograms_are_validated_with_a_tail_bin():
    # 2d6 sums, with 2 and 12 outside the layout: the tail bin carries them
    two_d6 = Dist.die(6).repeat(2)
    lows = np.array([11, 9, 7, 5, 3, 1]) / 36
    exact = ExactResult(system="2d6", params={}, labels=TWO_D6_LAYOUT.labels, probs=lows,
                        distributions={"sum": two_d6})  # fmt: skip
    lay = TWO_D6_LAYOUT.array

    def block(state: np.ndarray, n: int, out: np.ndarray) -> None:
        two_d6_block(state, n, out, lay)

    tally = simulate_tally(TWO_D6_LAYOUT, block, trials=200_000, seed=4, threads=2, progress=False)
    v = validate(exact, SimResult(system="2d6", params={}, tally=tally))
    assert v.passed, v.groups
    # the tail (2 and 12) is its own bin among all bins, pooled with its neighbour in rows
    assert v.bins.set_index("outcome").loc["sum=tail", "exact"] == pytest.approx(2 / 36, abs=1e-12)
    tail_row = v.rows.set_index("outcome").loc["sum=11+tail"]
    assert tail_row["exact"] == pytest.approx(4 / 36, abs=1e-12)


def test_rows_are_the_pooled_bins_named_by_what_they_cover():
    # a fair d20 at 60 trials expects 3 of each face: faces pool in pairs; the rows and
    # max |z| are over those pools, each expecting at least 5
    v = validate(FAIR_D20, d20_sim(fair, 60, seed=2))
    assert list(v.rows["outcome"])[:2] == ["1+2", "3+4"] and len(v.rows) == 10
    assert (v.rows["expected"] >= MIN_EXPECTED).all()
    assert v.max_abs_z == pytest.approx(float(v.rows["z"].abs().max()))
    assert len(v.bins) == 20 and [r["outcome"] for r in v.to_json()["rows"]] == list(v.rows["outcome"])
    assert v.rows["exact"].sum() == pytest.approx(1.0)


def test_rows_of_a_long_distribution_fit_a_screen_as_text():
    # 10d10's 91 values: the rare ends pool, the middle bins stand alone; text() keeps
    # the outcome rows and the largest |z| of the distribution
    d = parse("10d10").dist()
    exact = ExactResult(
        system="dice", params={}, labels=("roll",), probs=np.array([1.0]), distributions={"roll": d}
    )
    lay = Layout(labels=("roll",), hists={"roll": (d.min, d.max)})
    terms, constant = parse("10d10").encode()
    arr = lay.array

    def block(state: np.ndarray, n: int, out: np.ndarray) -> None:
        expr_block(state, n, out, arr, terms, constant)

    v = validate(exact, SimResult(system="dice", params={}, tally=simulate_tally(
        lay, block, trials=20_000, seed=5, threads=2, progress=False)))  # fmt: skip
    names = list(v.rows["outcome"])
    assert names[1].startswith("roll=10..") and names[-1].endswith("..100+tail")
    assert (v.rows["expected"] >= MIN_EXPECTED).all() and len(v.bins) == 1 + 92
    text = v.text(most=6)
    assert len(text.splitlines()) < 25 and "pooled bins, the 6 of largest |z| shown" in text


# -- tallies -------------------------------------------------------------------------------
def small_tally(counts=(10, 90), trials=100) -> Tally:
    return Layout(labels=("crit", "other")).unpack(list(counts), trials=trials, seed=3)


def test_wilson_interval_known_case():
    # 10 of 100: the textbook Wilson 95% interval is (0.0552, 0.1744)
    lo, hi = small_tally().wilson(0.95)
    assert lo[0] == pytest.approx(0.05523, abs=1e-5) and hi[0] == pytest.approx(0.17437, abs=1e-5)
    assert lo[0] < 0.1 < hi[0]
    # 0 of 100 still gets a non-degenerate interval inside [0, 1]
    lo, hi = small_tally((0, 100)).wilson(0.95)
    assert lo[0] == pytest.approx(0.0, abs=1e-15) and 0.03 < hi[0] < 0.04 and hi[1] == 1.0


def test_wilson_intervals_contain_the_true_probabilities():
    t = d20_sim(fair, 200_000, seed=21).tally
    # at 99.99% confidence each of 20 intervals misses 1 time in 10^4; at a fixed seed a
    # miss is a reproducible defect
    lo, hi = t.wilson(0.9999)
    assert np.all(lo < 0.05) and np.all(0.05 < hi)


def test_standard_errors_formula():
    t = small_tally()
    assert t.frequencies.tolist() == [0.1, 0.9]
    assert t.standard_errors == pytest.approx(np.sqrt([0.1 * 0.9 / 100, 0.9 * 0.1 / 100]), rel=1e-15)


def test_to_frame_columns():
    df = small_tally().to_frame()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["outcome", "count", "frequency", "se", "wilson_lo", "wilson_hi"]
    assert df["outcome"].tolist() == ["crit", "other"] and df["count"].tolist() == [10, 90]


def test_merge_adds_counts_hists_counters_and_trials():
    lay = Layout(labels=("miss", "hit"), hists={"damage": (0, 3)}, counters=("sum",))
    a = lay.unpack([3, 1, 3, 0, 0, 1, 0, 4], trials=4, seed=7)
    b = lay.unpack([1, 1, 0, 1, 0, 0, 1, 9], trials=2, seed=8)
    m = a + b
    assert m.trials == 6 and m.counts.tolist() == [4, 2] and m.seed == 7
    assert m.hists["damage"].counts.tolist() == [3, 1, 0, 1] and m.hists["damage"].tail == 1
    assert m.counters == {"sum": 13}
    assert a.counts.tolist() == [3, 1]  # the operands are untouched
    with pytest.raises(ValueError, match="same layout"):
        a + small_tally()


def test_hist_frequencies_and_mean():
    h = Hist(2, np.array([1, 0, 3]), tail=1)
    assert h.total == 5 and h.values.tolist() == [2, 3, 4]
    assert h.frequencies(5) == {2: 0.2, 4: 0.6}
    assert h.frequencies(5, tail=True) == {2: 0.2, 4: 0.6, "tail": 0.2}
    assert h.mean() == pytest.approx((2 + 12) / 4)


def test_unpack_checks_length():
    with pytest.raises(ValueError, match="layout expects"):
        Layout(labels=("a", "b")).unpack([1, 2, 3], trials=6, seed=0)


def test_cli_validate_json_rows_are_pooled_bins(capsys):
    # severity's margin has tails expecting 1e-12 counts: none of them is a row of its own
    import json

    from critlab.analysis.cli import main as cli

    assert cli.main(["validate", "severity", "--trials", "200000", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = [r["exact"] * out["trials"] for r in out["rows"]]
    assert min(expected) >= MIN_EXPECTED
    assert out["max_abs_z"] == pytest.approx(max(abs(r["z"]) for r in out["rows"]))
    assert any(r["outcome"].endswith("+tail") for r in out["rows"])
    assert cli.main(["validate", "severity", "--trials", "200000", "--seed", "1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) <= 30  # a screen
