"""``make bench`` cases of ``crits-cats``: the simulator beside an idiomatic NumPy versus
challenge, and the exact engine beside icepool."""

from __future__ import annotations

import numpy as np

from critlab.analysis.systems.base import BenchCase, simulating
from critlab.analysis.systems.crits_cats import LABELS, SYSTEM, CritsCatsSpec, exact, versus_classes
from critlab.kernels.crits_cats import Outcome

BENCH_SPEC = dict(skill=5, opposing_skill=2)


def _numpy_versus(trials: int, chunk: int = 1 << 20, seed: int = 0) -> np.ndarray:
    """An idiomatic vectorised NumPy version of the same versus challenge: class counts."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(LABELS), dtype=np.int64)
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        initiator = rng.integers(1, 21, n)
        responder = rng.integers(1, 21, n)
        counts += np.bincount(versus_classes(initiator, responder, **BENCH_SPEC), minlength=len(LABELS))
    return counts


def _icepool_versus() -> object:
    """The same versus challenge's class distribution in icepool (the exact-engine ratio)."""
    import icepool

    def kind(natural: int) -> int:
        return 1 if natural == 20 else (-1 if natural == 1 else 0)

    def initiator_class(initiator: int, responder: int) -> int:
        pull = kind(initiator) - kind(responder)
        margin = initiator + BENCH_SPEC["skill"] - responder - BENCH_SPEC["opposing_skill"]
        if pull > 0:
            return Outcome.MAJOR_CRITICAL if margin >= 20 else Outcome.MINOR_CRITICAL
        if pull < 0:
            return Outcome.MAJOR_CATASTROPHE if -margin >= 20 else Outcome.MINOR_CATASTROPHE
        return Outcome.SUCCESS if margin > 0 else Outcome.FAILURE

    return icepool.map(initiator_class, icepool.d20, icepool.d20).probabilities()


def bench_cases() -> list[BenchCase]:
    spec = CritsCatsSpec(**BENCH_SPEC)
    return [
        BenchCase(
            name="crits-cats versus (skill 5 vs 2)",
            critlab=simulating(SYSTEM.simulate, spec),
            numpy=_numpy_versus,
            exact=lambda: exact(spec),
            icepool=_icepool_versus,
        )
    ]
