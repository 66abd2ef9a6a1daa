"""``make bench`` cases of ``crit-range``: the simulator beside NumPy doing the same work
(the same label counts, damage and CRIT-bonus histograms, damage sum and weapon lives),
and its own dice floor.

The dice floor draws a trial's own dice the same way the kernel draws them: the d20
(two under advantage or disadvantage) together with simple damage dice as one draw
(:func:`critlab.kernels.d20.roll_d20_with`), or else the d20 alone and, on the naturals
where the kernel rolls them, the damage dice; then the CRIT dice through
:func:`critlab.kernels.fast_dice.roll_planned`, with no rule and no tally (which naturals
roll which dice is read from a table made here). The weapon lives' extra d20s, a fraction
of a life per block, are left out of it.
"""

from __future__ import annotations

import numpy as np

from benchmarks.cases import BenchCase, simulating
from critlab.analysis.systems.crit_range import SYSTEM, CritRangeSpec, kernel_args
from critlab.kernels import runner
from critlab.kernels.crit_range import CRIT, HIT, label_of
from critlab.kernels.d20 import roll_d20, roll_d20_with
from critlab.kernels.dice import local_scratch
from critlab.kernels.fast_dice import borrowed, roll_planned
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state

BENCH_SPEC = dict(attack_bonus=3, evasion=11, crit_range=2)
CHUNK = 1 << 16


# What a natural rolls after the d20, as bits of a per-natural table: one plain d20 (a
# reroll), one or two rolls of the first expression, one roll of the second.
REROLL_DIE, FIRST, TWICE, SECOND = 1, 2, 4, 8


@kernel
def floor_block(s, n, out, roll, joint, rolls, first, first_terms, second, second_terms):
    """``n`` trials of a d20 in roll mode ``roll`` and the dice ``rolls[natural]`` names;
    ``first`` / ``second`` are expressions' (plan..., constant) as in the kernels. Where
    ``joint`` is not 0 the first expression's dice (``joint`` outcomes) are drawn with the
    d20 in one draw, as the kernels draw them, and only a second roll of them apart.
    Their xor goes to ``out[1]`` so the compiler keeps them."""
    s = local_state(s)  # the stream in registers, as in the kernels
    scratch = local_scratch()
    first_terms, second_terms = borrowed(first_terms), borrowed(second_terms)
    acc = 0
    for _ in range(n):
        drawn = 0
        if joint:
            natural, index = roll_d20_with(s, roll, joint)
            acc ^= index
            drawn = 1
        else:
            natural = roll_d20(s, roll)
        acc ^= natural
        what = rolls[natural]
        if what & REROLL_DIE:
            acc ^= die(s, 20)
        first_rolls = (what & FIRST) // FIRST + (what & TWICE) // TWICE
        for _ in range(first_rolls - drawn if first_rolls > 0 else 0):
            acc ^= roll_planned(s, first[0], first[1], first[2], first[3], first_terms, first[4], scratch)
        if what & SECOND:
            acc ^= roll_planned(
                s, second[0], second[1], second[2], second[3], second_terms, second[4], scratch
            )
    out[0] += n
    out[1] ^= acc


def run_floor(
    roll: int, joint: int, rolls: np.ndarray, first: tuple, first_terms, second: tuple, second_terms
):
    """The floor callable (see BenchCase.floor) of :func:`floor_block`."""

    def run(trials: int, threads: int) -> np.ndarray:
        def block(state, n, out):
            floor_block(state, n, out, roll, joint, rolls, first, first_terms, second, second_terms)

        return runner.run(block, n_out=2, trials=trials, seed=1, threads=threads, progress=False)

    return run


def dice_floor(spec: CritRangeSpec):
    """The floor callable of ``spec``'s dice: the damage roll on a hit or a CRIT, then
    the CRIT dice on a CRIT."""
    a = kernel_args(spec)
    r = a.rules
    rolls = np.zeros(21, dtype=np.int64)
    for natural in range(1, 21):
        label = label_of(natural, r)
        if r.attack and label >= HIT:
            rolls[natural] = FIRST | (SECOND if label == CRIT else 0)
    dmg = (r.dmg_simple, r.dmg_count, r.dmg_sides, r.dmg_explode, r.dmg_const)
    crit = (r.crit_simple, r.crit_count, r.crit_sides, r.crit_explode, r.crit_const)
    return run_floor(r.roll, r.joint, rolls, dmg, a.dmg_terms, crit, a.crit_terms)


def kept_naturals(rng: np.random.Generator, n: int, roll: str) -> np.ndarray:
    """``n`` kept d20s of roll mode ``roll`` (the higher or lower of two, or one die)."""
    dice = rng.integers(1, 21, (n, 1 if roll == "normal" else 2))
    return dice.min(axis=1) if roll == "disadvantage" else dice.max(axis=1)


def numpy_attack(roll: str = "normal"):
    """A vectorised NumPy version of the bench attack (1d10, CRIT 1d6!, Condition 10) with
    critlab's whole tally: label counts, damage and CRIT-bonus histograms, the damage sum,
    and weapon lives read off the attacks (each until its 10th CRITFAIL)."""
    spec = CritRangeSpec(**BENCH_SPEC, roll=roll)
    need = spec.evasion - spec.attack_bonus

    def run(trials: int, chunk: int = CHUNK, seed: int = 0) -> tuple:
        rng = np.random.default_rng(seed)
        labels = np.zeros(4, dtype=np.int64)
        damage_hist = np.zeros(64, dtype=np.int64)
        bonus_hist = np.zeros(64, dtype=np.int64)
        lives_hist = np.zeros(4096, dtype=np.int64)
        damage_sum = 0
        for start in range(0, trials, chunk):
            n = min(chunk, trials - start)
            nat = kept_naturals(rng, n, roll)
            critfail = nat <= spec.critfail_range
            crit = ~critfail & (nat >= 21 - spec.crit_range)
            hit = ~critfail & ~crit & (nat >= need)
            label = np.where(critfail, 0, np.where(crit, 3, np.where(hit, 2, 1)))
            labels += np.bincount(label, minlength=4)
            dmg = rng.integers(1, 11, n)
            # CRIT dice: re-roll only the dice still showing a 6
            bonus = np.zeros(n, dtype=np.int64)
            rolling = np.flatnonzero(crit)
            while rolling.size:
                face = rng.integers(1, 7, rolling.size)
                bonus[rolling] += face
                rolling = rolling[face == 6]
            damage = np.where(hit | crit, dmg + bonus, 0)
            damage_hist += np.bincount(np.minimum(damage, 63), minlength=64)
            bonus_hist += np.bincount(np.minimum(bonus, 63), minlength=64)
            damage_sum += int(damage.sum())
            breaks = np.flatnonzero(critfail)[spec.condition - 1 :: spec.condition]
            lives_hist += np.bincount(np.minimum(np.diff(breaks, prepend=-1), 4095), minlength=4096)
        return labels, damage_hist, bonus_hist, damage_sum, lives_hist

    return run


def bench_cases() -> list[BenchCase]:
    spec = CritRangeSpec(**BENCH_SPEC)
    advantage = spec.replace(roll="advantage")
    return [
        BenchCase(
            name="crit-range d20 attack (crit range 2, +3 vs 11)",
            critlab=simulating(SYSTEM.simulate, spec),
            numpy=numpy_attack(),
            floor=dice_floor(spec),
        ),
        BenchCase(
            name="crit-range d20 attack with advantage",
            critlab=simulating(SYSTEM.simulate, advantage),
            numpy=numpy_attack("advantage"),
            floor=dice_floor(advantage),
        ),
    ]
