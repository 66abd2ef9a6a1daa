"""The block runner: seeds, block sizes, bit-for-bit determinism, flat memory."""

from __future__ import annotations

import threading
import time

import numpy as np
import psutil
import pytest
from _biased import ATTACK_LAYOUT, TWO_D6_LAYOUT, InterruptingBar, attack_block, two_d6_block

from critlab.analysis.run import simulate_tally
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import thac0
from critlab.kernels import runner
from critlab.kernels.rng import stream_state, stream_states

TWO_D6_LAY = TWO_D6_LAYOUT.array


def two_d6(state: np.ndarray, n: int, out: np.ndarray) -> None:
    two_d6_block(state, n, out, TWO_D6_LAY)


def run_two_d6(seed: int, threads: int, trials: int = 95_001, block_trials: int = 10_000) -> np.ndarray:
    return runner.run(
        two_d6, n_out=TWO_D6_LAYOUT.n_out, trials=trials, seed=seed, threads=threads, progress=False,
        block_trials=block_trials,
    )  # fmt: skip


# -- block sizes and seeds ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("trials", "block", "sizes"),
    [(10, 4, [4, 4, 2]), (8, 4, [4, 4]), (3, 4, [3]), (1, 1, [1]), (2**18 + 1, 2**18, [2**18, 1])],
)
def test_block_sizes(trials, block, sizes):
    assert runner.block_sizes(trials, block) == sizes
    assert sum(runner.block_sizes(trials, block)) == trials


def test_default_block_size_splits_a_million_trials():
    sizes = runner.block_sizes(10**6)
    assert sum(sizes) == 10**6 and len(sizes) == 4 and max(sizes) == runner.BLOCK_TRIALS


def test_resolve_seed():
    assert runner.resolve_seed(0) == 0
    assert runner.resolve_seed(np.int64(12)) == 12 and type(runner.resolve_seed(np.int64(12))) is int
    fresh = {runner.resolve_seed(None) for _ in range(4)}
    assert all(0 <= s < 2**63 for s in fresh) and len(fresh) > 1


@pytest.mark.parametrize("seed", [-1, True, 1.5, "3", [1]])
def test_resolve_seed_rejects_non_seeds(seed):
    with pytest.raises(ValueError, match="seed"):
        runner.resolve_seed(seed)


@pytest.mark.parametrize("trials", [0, -5])
def test_trials_below_one_are_refused(trials):
    with pytest.raises(ValueError, match="trials"):
        run_two_d6(seed=1, threads=1, trials=trials)


def test_threads_below_one_are_refused():
    with pytest.raises(ValueError, match="threads"):
        run_two_d6(seed=1, threads=0)


def test_simulate_tally_names_bad_trials_and_seed():
    with pytest.raises(SpecError, match="trials"):
        simulate_tally(TWO_D6_LAYOUT, two_d6, trials=0, seed=1, progress=False)
    with pytest.raises(SpecError, match="seed"):
        simulate_tally(TWO_D6_LAYOUT, two_d6, trials=10, seed=-1, progress=False)


# -- determinism -------------------------------------------------------------------------
def test_tallies_do_not_depend_on_threads_or_repetition():
    one = run_two_d6(seed=42, threads=1)
    assert np.array_equal(one, run_two_d6(seed=42, threads=2))  # 10 blocks across two workers
    assert np.array_equal(one, run_two_d6(seed=42, threads=3))
    assert np.array_equal(one, run_two_d6(seed=42, threads=2))


def test_different_seeds_give_different_tallies():
    tallies = [run_two_d6(seed=s, threads=2) for s in (1, 2, 3)]
    assert not np.array_equal(tallies[0], tallies[1])
    assert not np.array_equal(tallies[1], tallies[2])


def test_block_tally_is_consistent():
    trials = 95_001
    t = TWO_D6_LAYOUT.unpack(run_two_d6(seed=7, threads=2, trials=trials), trials=trials, seed=7)
    assert int(t.counts.sum()) == trials
    h = t.hists["sum"]
    assert h.total == trials and h.offset == 3 and h.counts.size == 9
    # the layout's 3..11 leaves out 2 and 12 (1/36 each): they land in the tail bin
    # (0.005 is about 7 standard errors of a 2/36 frequency at 95k trials)
    assert abs(h.tail / trials - 2 / 36) < 0.005
    # the counter adds every sum, the tail's too: what the bins miss is n2 * 2 + n12 * 12
    rest = t.counters["total"] - int(np.dot(h.values, h.counts))
    twelves, remainder = divmod(rest - 2 * h.tail, 10)
    assert remainder == 0 and 0 <= twelves <= h.tail


def test_seed_is_recorded_and_drawn_when_absent():
    t = simulate_tally(TWO_D6_LAYOUT, two_d6, trials=100, seed=None, progress=False)
    assert 0 <= t.seed < 2**63 and t.trials == 100
    again = simulate_tally(TWO_D6_LAYOUT, two_d6, trials=100, seed=t.seed, progress=False)
    assert np.array_equal(t.counts, again.counts)


def test_thac0_simulation_is_identical_on_one_and_two_threads():
    spec = thac0.Thac0Spec(thac0=10, target_ac=0, to_hit=12, crit_option="severity")
    a = thac0.simulate(spec, trials=600_000, seed=99, threads=1, progress=False)
    b = thac0.simulate(spec, trials=600_000, seed=99, threads=2, progress=False)
    assert np.array_equal(a.tally.counts, b.tally.counts)
    for name, h in a.tally.hists.items():
        assert np.array_equal(h.counts, b.tally.hists[name].counts) and h.tail == b.tally.hists[name].tail
    assert a.tally.counters == b.tally.counters
    assert a.to_json() == b.to_json()


# -- memory ------------------------------------------------------------------------------
ATTACK = dict(crit_range=2, critfail_range=1, bonus=3, target=11)
ATTACK_EXACT = np.array([1, 6, 11, 2]) / 20  # critfail 1; miss 2..7; hit 8..18; crit 19..20


def attack(state: np.ndarray, n: int, out: np.ndarray) -> None:
    attack_block(
        state, n, out, ATTACK["crit_range"], ATTACK["critfail_range"], ATTACK["bonus"], ATTACK["target"]
    )


def test_a_billion_trials_run_in_flat_memory():
    proc = psutil.Process()
    simulate_tally(ATTACK_LAYOUT, attack, trials=1000, seed=1, progress=False)  # compile outside the window
    base = proc.memory_info().rss
    peak = base
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, proc.memory_info().rss)
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t0 = time.perf_counter()
    try:
        t = simulate_tally(ATTACK_LAYOUT, attack, trials=10**9, seed=2024, threads=2, progress=False)
    finally:
        done.set()
        sampler.join()
    peak = max(peak, proc.memory_info().rss)
    growth_mb = (peak - base) / 2**20
    print(f"\n10^9 trials in {time.perf_counter() - t0:.2f} s; peak RSS growth {growth_mb:.2f} MB")
    # Only threads * 2 tallies of 4 int64 are ever alive; 100 MB would mean per-trial storage.
    assert growth_mb < 100
    assert int(t.counts.sum()) == 10**9
    z = (t.counts - 10**9 * ATTACK_EXACT) / np.sqrt(10**9 * ATTACK_EXACT * (1 - ATTACK_EXACT))
    # a fixed seed and 4 labels: |z| > 6 would be a one-in-a-hundred-million fluke, i.e. a bug
    assert np.abs(z).max() < 6, z


# -- Ctrl-C --------------------------------------------------------------------------------
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_cleanly(monkeypatch, threads):
    """A Ctrl-C mid-run (injected through the progress bar's third update, as a key
    press would arrive between blocks) propagates, cancels the blocks not yet started
    and leaves no worker thread behind."""
    started = []

    def counting(state, n, out):
        started.append(n)
        two_d6(state, n, out)

    monkeypatch.setattr(runner, "_progress_bar", lambda *a, **k: InterruptingBar())
    with pytest.raises(KeyboardInterrupt):
        runner.run(
            counting, n_out=TWO_D6_LAYOUT.n_out, trials=200 * 10_000, seed=1, threads=threads,
            progress=True, block_trials=10_000,
        )  # fmt: skip
    # only the tasks already submitted ran: a few per thread, never all 200 blocks
    per_task = runner.blocks_per_task(200, threads) if threads > 1 else 1
    assert 3 <= len(started) <= (3 + 2 * threads) * per_task < 200
    assert not [t for t in threading.enumerate() if t.name.startswith("critlab")]


@pytest.mark.parametrize(
    "seed", [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1, 2**64, 2**80 + 3, 987654321987654321]
)
def test_stream_states_are_numpys_seed_sequence(seed):
    # the array derivation is numpy's SeedSequence word for word, for batches that cross
    # a block's second 32-bit word and the 2**64 end (numpy's own, there), one block or many
    for first, count in ((0, 1), (0, 40), (2**18, 16), (2**32 - 20, 40), (2**64 - 20, 20), (2**64 - 3, 6)):
        states = stream_states(seed, first, count)
        assert states.dtype == np.uint64 and states.shape == (count, 6) and not states[:, 4:].any()
        for i in range(count):
            expected = np.random.SeedSequence(seed, spawn_key=(first + i,)).generate_state(4, np.uint64)
            assert np.array_equal(states[i, :4], expected), (first + i, states[i], expected)
            if i in (0, count - 1):
                assert np.array_equal(stream_state(seed, first + i), states[i])
