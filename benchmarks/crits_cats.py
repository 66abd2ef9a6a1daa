"""``make bench`` cases of ``crits-cats``: the simulator beside NumPy doing the same work
(the same class counts, histograms and counters), its own dice floor, and the exact
engine beside icepool.

The dice floor of a case draws the case's own d20s the same way the kernel draws them
(each roll through :func:`critlab.kernels.d20.roll_d20`, so under advantage or
disadvantage two d20s and the kept one) with no rule and no tally. A combat case has no
floor here: which damage dice a trial rolls is decided by its rules.
"""

from __future__ import annotations

import numpy as np

from benchmarks.cases import BenchCase, simulating
from critlab.analysis.systems.crits_cats import (
    LABELS,
    SYSTEM,
    CritsCatsSpec,
    challenge_classes,
    exact,
    versus_classes,
)
from critlab.kernels import runner
from critlab.kernels.crits_cats import Outcome
from critlab.kernels.d20 import RollMode, roll_d20
from critlab.kernels.jit import kernel
from critlab.kernels.rng import local_state

BENCH_SPEC = dict(skill=5, opposing_skill=2)
CHALLENGE_SPEC = dict(mode="challenge", skill=4, crit_range=3, cat_range=2)
SPELL_SPEC = dict(mode="spell", skill=6, resistance=2, resisters=4)
CHUNK = 1 << 16


# The dice floors, one per shape of trial, each drawing its rolls in the kernel's order and
# shape (straight-line where the kernel's are, a loop where the kernel loops), so that no
# loop overhead the kernel does not pay inflates the floor. Their xor goes to ``out[1]``
# so the compiler cannot drop them.
@kernel
def challenge_floor_block(s, n, out, roll):
    """``n`` trials of one roll in roll mode ``roll``."""
    s = local_state(s)  # the stream in registers, as in the kernels
    acc = 0
    for _ in range(n):
        acc ^= roll_d20(s, roll)
    out[0] += n
    out[1] ^= acc


@kernel
def versus_floor_block(s, n, out, roll, opposing_roll):
    """``n`` trials of the initiator's roll, then the responder's."""
    s = local_state(s)  # the stream in registers, as in the kernels
    acc = 0
    for _ in range(n):
        acc ^= roll_d20(s, roll)
        acc ^= roll_d20(s, opposing_roll)
    out[0] += n
    out[1] ^= acc


@kernel
def spell_floor_block(s, n, out, roll, opposing_roll, resisters):
    """``n`` trials of the caster's roll, the first resister's, then the others' in a loop."""
    s = local_state(s)  # the stream in registers, as in the kernels
    acc = 0
    for _ in range(n):
        acc ^= roll_d20(s, roll)
        acc ^= roll_d20(s, opposing_roll)
        for _ in range(resisters - 1):
            acc ^= roll_d20(s, opposing_roll)
    out[0] += n
    out[1] ^= acc


def dice_floor(spec: CritsCatsSpec):
    """The floor callable (see BenchCase.floor) of ``spec``'s d20s (not combat's damage)."""
    roll, opposing = int(RollMode[spec.roll.upper()]), int(RollMode[spec.opposing_roll.upper()])

    def block(state, n, out):
        if spec.mode == "challenge":
            challenge_floor_block(state, n, out, roll)
        elif spec.mode == "versus":
            versus_floor_block(state, n, out, roll, opposing)
        else:
            spell_floor_block(state, n, out, roll, opposing, spec.resisters)

    def run(trials: int, threads: int) -> np.ndarray:
        return runner.run(block, n_out=2, trials=trials, seed=1, threads=threads, progress=False)

    return run


def _kept(rng: np.random.Generator, n: int, roll: str) -> np.ndarray:
    """``n`` kept naturals of roll mode ``roll``."""
    first = rng.integers(1, 21, n)
    if roll == "normal":
        return first
    second = rng.integers(1, 21, n)
    return np.maximum(first, second) if roll == "advantage" else np.minimum(first, second)


def numpy_versus(roll: str = "normal"):
    """A vectorised NumPy version of the bench's versus challenge (the initiator rolling
    ``roll``): its class counts, all that critlab tallies for it."""

    def run(trials: int, chunk: int = CHUNK, seed: int = 0) -> np.ndarray:
        rng = np.random.default_rng(seed)
        counts = np.zeros(len(LABELS), dtype=np.int64)
        for start in range(0, trials, chunk):
            n = min(chunk, trials - start)
            initiator = _kept(rng, n, roll)
            responder = rng.integers(1, 21, n)
            classes = versus_classes(initiator, responder, **BENCH_SPEC)
            counts += np.bincount(classes, minlength=len(LABELS))
        return counts

    return run


_numpy_versus = numpy_versus()


def _numpy_challenge(trials: int, chunk: int = CHUNK, seed: int = 0) -> np.ndarray:
    """A vectorised NumPy version of the bench's 21 Challenge: its class counts."""
    spec = CritsCatsSpec(**CHALLENGE_SPEC)
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(LABELS), dtype=np.int64)
    for start in range(0, trials, chunk):
        natural = rng.integers(1, 21, min(chunk, trials - start))
        classes = challenge_classes(spec, spec.target, natural, spec.skill)
        counts += np.bincount(classes, minlength=len(LABELS))
    return counts


def _numpy_spell(trials: int, chunk: int = CHUNK, seed: int = 0) -> tuple[np.ndarray, ...]:
    """A vectorised NumPy version of the bench's spell, with critlab's whole tally: the
    caster's classes, the first resister's class histogram, casts where some resister got
    each class, and the resisters affected."""
    spec = CritsCatsSpec(**SPELL_SPEC)
    rng = np.random.default_rng(seed)
    casters = np.zeros(len(LABELS), dtype=np.int64)
    first = np.zeros(len(LABELS), dtype=np.int64)
    any_class = np.zeros(len(LABELS), dtype=np.int64)
    affected = 0
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        caster = rng.integers(1, 21, n)
        label = challenge_classes(spec, spec.target, caster, spec.skill)
        resisters = rng.integers(1, 21, (n, spec.resisters))
        classes = challenge_classes(spec, (caster + spec.skill)[:, None], resisters, spec.resistance)
        casters += np.bincount(label, minlength=len(LABELS))
        first += np.bincount(classes[:, 0], minlength=len(LABELS))
        seen = np.zeros((n, len(LABELS)), dtype=bool)
        np.put_along_axis(seen, classes, True, axis=1)
        any_class += seen.sum(axis=0)
        affected += int(((label >= Outcome.SUCCESS)[:, None] & (classes < Outcome.SUCCESS)).sum())
    return casters, first, any_class, affected


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
    advantage = spec.replace(roll="advantage")
    challenge = CritsCatsSpec(**CHALLENGE_SPEC)
    spell = CritsCatsSpec(**SPELL_SPEC)
    return [
        BenchCase(
            name="crits-cats versus (skill 5 vs 2)",
            critlab=simulating(SYSTEM.simulate, spec),
            numpy=_numpy_versus,
            exact=lambda: exact(spec),
            icepool=_icepool_versus,
            floor=dice_floor(spec),
        ),
        BenchCase(
            name="crits-cats versus, initiator with advantage",
            critlab=simulating(SYSTEM.simulate, advantage),
            numpy=numpy_versus("advantage"),
            floor=dice_floor(advantage),
        ),
        BenchCase(
            name="crits-cats 21 Challenge (skill 4, crit range 3)",
            critlab=simulating(SYSTEM.simulate, challenge),
            numpy=_numpy_challenge,
            floor=dice_floor(challenge),
        ),
        BenchCase(
            name="crits-cats spell (skill 6, 4 resisters of 2)",
            critlab=simulating(SYSTEM.simulate, spell),
            numpy=_numpy_spell,
            floor=dice_floor(spell),
        ),
    ]
