"""``make bench`` cases of ``severity``: the simulator beside an idiomatic NumPy contest,
and the exact engine beside icepool."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from benchmarks.cases import BenchCase, simulating
from critlab.analysis.dist import Dist
from critlab.analysis.systems import severity as sev
from critlab.analysis.systems.severity import NATURAL_MAX, NATURAL_MIN, SYSTEM, SeveritySpec, exact
from critlab.kernels import runner
from critlab.kernels import severity as k
from critlab.kernels.jit import kernel
from critlab.kernels.rng import bounded, local_state

BENCH_SKILLS = dict(attacker_skill=5, defender_skill=2)


def _numpy_roll(rng: np.random.Generator, mode: str, n: int) -> np.ndarray:
    """``n`` rolls of ``mode``, vectorised."""
    if mode == "lethal":
        return rng.integers(1, 21, n)
    if mode == "risky":
        return rng.integers(1, 7, (n, 3)).sum(axis=1)
    dice = rng.integers(1, 7, (n, 4))
    return dice.sum(axis=1) - dice.min(axis=1)


def _numpy_contest(trials: int, mode: str, chunk: int = 1 << 16, seed: int = 0) -> np.ndarray:
    """An idiomatic vectorised NumPy version of the contest (default ladder, SM 0, no
    armor, implosions not chained) doing critlab's work: wound-level counts, the margin
    histogram over the exact support (and its tail bin) and the counters of the tally,
    one int64 array in that order. Explosion chains are resolved by rolling again for
    the still-pending subset until none is left."""
    rng = np.random.default_rng(seed)
    lo, hi = NATURAL_MIN[mode], NATURAL_MAX[mode]
    thresholds = np.array([t for _, t in sev.parse_ladder(sev.DEFAULT_LADDER)])
    margin = exact(SeveritySpec(mode=mode, **BENCH_SKILLS)).distributions["margin"]
    levels = np.zeros(thresholds.size + 1, dtype=np.int64)
    hist = np.zeros(margin.probs.size + 1, dtype=np.int64)  # the last: the tail bin
    counters = np.zeros(7, dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        a, d = _numpy_roll(rng, mode, n), _numpy_roll(rng, mode, n)
        totals = [a + BENCH_SKILLS["attacker_skill"], d + BENCH_SKILLS["defender_skill"]]
        # pending additional rolls per side: its own explosion, the opponent's implosion
        pending = [(a == hi).astype(np.int64) + (d == lo), (d == hi).astype(np.int64) + (a == lo)]
        for total, wait in zip(totals, pending, strict=True):
            idx = np.flatnonzero(wait)
            while idx.size:
                r = _numpy_roll(rng, mode, idx.size)
                total[idx] += r
                wait[idx] += (r == hi).astype(np.int64) - 1
                idx = idx[wait[idx] > 0]
        mov = totals[0] - totals[1]
        success = mov > 0
        level = np.where(success, np.searchsorted(thresholds, mov, side="right"), 0)
        levels += np.bincount(level, minlength=levels.size)
        at = mov - margin.min
        tail = (at < 0) | (at >= hist.size - 1)
        hist += np.bincount(np.where(tail, hist.size - 1, at), minlength=hist.size)
        explodes_a, explodes_d, implodes_a, implodes_d = a == hi, d == hi, a == lo, d == lo
        counters += [
            explodes_a.sum(), explodes_d.sum(), implodes_a.sum(), implodes_d.sum(),
            ((explodes_a & implodes_d) | (implodes_a & explodes_d)).sum(), success.sum(), mov.sum(),
        ]  # fmt: skip
    return np.concatenate([levels, hist, counters])


def _icepool_margin(mode: str):
    """The same contest's MoV distribution in icepool (explosions to depth 12)."""
    import icepool

    die = {
        "lethal": icepool.d20,
        "risky": 3 @ icepool.d6,
        "stable": icepool.d6.highest(4, 3),
    }[mode]
    lo, hi = NATURAL_MIN[mode], NATURAL_MAX[mode]
    further = die.explode(depth=12)
    chain = die.map(lambda v: v + further if v == hi else (v - further if v == lo else v))
    return chain - chain + (BENCH_SKILLS["attacker_skill"] - BENCH_SKILLS["defender_skill"])


def bench_cases() -> list[BenchCase]:
    cases = []
    for mode in sev.MODES:
        spec = SeveritySpec(mode=mode, **BENCH_SKILLS)

        def exact_margin(spec: SeveritySpec = spec) -> Dist:
            sev._chain_difference.cache_clear()  # time the engine, not the cache
            sev.first_roll_chain.cache_clear()
            sev.additional_roll.cache_clear()
            return exact(spec).distributions["margin"]

        cases.append(
            BenchCase(
                name=f"severity {mode} contest (skills 5 vs 2)",
                critlab=simulating(SYSTEM.simulate, spec),
                numpy=functools.partial(_numpy_contest, mode=mode),
                exact=exact_margin,
                icepool=functools.partial(_icepool_margin, mode),  # picklable: timed in a new process
                floor=floor(mode),
            )
        )
    return cases


# -- the dice floor ----------------------------------------------------------------------
# Each roll's owed additional rolls, packed as (to the attacker) << _FIELD | (to the defender)
_FIELD = 24  # a block's 2**18 trials owe fewer than 2**24 rolls to either side


@kernel
def floor_block(s, n, out, a, owe_a, owe_d):
    """The dice of ``n`` trials with no rule and no tally: both sides' first rolls, each
    one bounded draw over the mode's roll table as the kernel draws them, then the
    additional rolls the extreme first rolls set off (about 0.2 a trial in lethal, 0.01
    in risky, 0.03 in stable), after the first rolls as in the kernel. Each owed roll
    sets off its own rolls whatever roll owes it, so the rolls owed by all the trials
    together (summed from a table of each roll's, ``owe_a`` and ``owe_d``) drawn as one
    :func:`~critlab.kernels.severity.chain` are as many dice as the kernel draws attack by
    attack. Folded into ``out[1]`` so that the compiler cannot drop them (``out[0]``
    counts trials)."""
    s = local_state(s)  # the stream in registers, as in the kernel
    size = a.rolls.size
    owed = 0
    for _ in range(n):
        owed += owe_a[bounded(s, size)] + owe_d[bounded(s, size)]
    mask = (1 << _FIELD) - 1
    out[0] += n
    out[1] ^= owed ^ k.chain(s, a, 0, owed >> _FIELD, owed & mask)


def floor(mode: str) -> Callable[[int, int], np.ndarray]:
    """``floor(mode)(trials, threads)``: the floor kernel of ``mode`` run like the simulator."""
    args = sev.kernel_args(SeveritySpec(mode=mode, **BENCH_SKILLS))
    top, bottom = (args.rolls & k.MAXIMUM) != 0, (args.rolls & k.MINIMUM) != 0
    # an attacker's maximum owes the attacker a roll, its minimum the defender; and back
    owe_a = (top.astype(np.int64) << _FIELD) | bottom
    owe_d = (bottom.astype(np.int64) << _FIELD) | top

    def run(trials: int, threads: int) -> np.ndarray:
        def block(state: np.ndarray, n: int, out: np.ndarray) -> None:
            floor_block(state, n, out, args, owe_a, owe_d)

        return runner.run(block, n_out=2, trials=trials, seed=1, threads=threads, progress=False)

    return run
