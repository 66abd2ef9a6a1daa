"""The dice kernels against the exact engine: the pools of the severity and contest modes,
and whole expressions of the extended notation die by die (chi-square at fixed seeds)."""

from __future__ import annotations

import numpy as np
import pytest
from _dialect_examples import EXAMPLES

from critlab.analysis.dice.notation import dice_dist, parse
from critlab.analysis.validate import chi_square
from critlab.kernels.dice import local_scratch, roll_3d6, roll_4d6_drop_lowest, roll_expr
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state, stream_state

# Significance of each goodness-of-fit check: fixed seeds make the verdict reproducible,
# and at 10^6 rolls a bias of half a percent in any total is still caught.
ALPHA = 1e-3


@kernel
def _histogram_3d6(s, n, out):
    for _ in range(n):
        out[roll_3d6(s)] += 1


@kernel
def _histogram_4d6dl(s, n, out):
    for _ in range(n):
        out[roll_4d6_drop_lowest(s)] += 1


@pytest.mark.parametrize(("sampler", "expr"), [(_histogram_3d6, "3d6"), (_histogram_4d6dl, "4d6dl1")])
def test_pool_kernel_matches_exact(sampler, expr):
    counts = np.zeros(19, dtype=np.int64)
    sampler(stream_state(11, 0), 1_000_000, counts)
    assert counts[:3].sum() == 0
    exact = dice_dist(expr)
    probs = np.array([exact.pmf(v) for v in range(3, 19)])
    _, _, p = chi_square(probs, counts[3:])
    assert p >= ALPHA


# -- whole expressions: critlab.kernels.dice.roll_expr, die by die ---------------------------
@kernel
def _histogram_expr(s, n, out, terms, constant, lo):
    """``n`` rolls into ``out``: bin 0 below ``lo``, then ``lo, lo + 1, ...``, the last bin
    everything above (where an explosion's tail lands)."""
    s = local_state(s)
    scratch = local_scratch()
    top = out.shape[0] - 1
    for _ in range(n):
        v = roll_expr(s, terms, constant, scratch) - lo + 1
        out[max(0, min(v, top))] += 1


@kernel
def _first_form_roll_expr(s, terms, constant, scratch):
    """roll_expr as it was before rerolls, thresholds and success counts, column for
    column: the draws of a first-form expression must not move."""
    total = constant
    for t in range(terms.shape[0]):
        sign, count, sides = terms[t, 0], terms[t, 1], terms[t, 2]
        mode, keep, exploding = terms[t, 3], terms[t, 4], terms[t, 5]
        v = 0
        for i in range(count):
            r = 0
            while True:
                face = die(s, sides)
                r += face
                if exploding == 0 or face != sides:
                    break
            if mode == 0:
                v += r
            else:
                j = i
                while j > 0 and scratch[j - 1] > r:
                    scratch[j] = scratch[j - 1]
                    j -= 1
                scratch[j] = r
        if mode == 1:
            for i in range(count - keep, count):
                v += scratch[i]
        elif mode == 2:
            for i in range(keep):
                v += scratch[i]
        total += sign * v
    return total


@kernel
def _both_rolls(s, n, out, terms, constant):
    """``n`` rolls by each implementation from the same stream start: out[0, i], out[1, i]."""
    scratch = local_scratch()
    a = s.copy()
    for i in range(n):
        out[0, i] = roll_expr(a, terms, constant, scratch)
    b = s.copy()
    for i in range(n):
        out[1, i] = _first_form_roll_expr(b, terms, constant, scratch)
    # the streams must also end in the same place (the same number of draws)
    out[2, 0] = 1 if (a == b).all() else 0


@pytest.mark.parametrize("text", ["4d6dl1+2d8kl1-1d6!+3", "3d6!", "10d10kh3", "2d20kl1-2", "1d2!+5d4dh2"])
def test_first_form_expressions_draw_as_they_always_did(text):
    terms, constant = parse(text).encode()
    out = np.zeros((3, 20_000), dtype=np.int64)
    _both_rolls(stream_state(5, 0), out.shape[1], out, terms, constant)
    assert np.array_equal(out[0], out[1]) and out[2, 0] == 1


FEATURES = [
    "1d20rr1",  # reroll while low
    "2d6ro2",  # reroll once
    "1d6!>=5",  # explosion threshold
    "1d6ro1!",  # reroll, then explode with plain rolls
    "1d6rr<=4!>=5",  # every face left explodes
    "1d6rr2",  # a bare number is equality: only 2s rerolled
    "2d6ro<3",  # "less than 3" once
    "6d10!kh3",  # roll and keep
    "3d6!kl2",  # keep lowest exploded totals (the tail dropped once kept dice are lower)
    "4d6ro1dl1",  # reroll, then drop
    "5d10cs>=8",  # success counting
    "6d10!kh3cs>=8",  # successes among kept exploded totals
    "3d6!cs>=9",  # a success only an explosion reaches
    "5d10cs>=8-1d4+2d6rr1",  # composed with sums and modifiers
    "2d6mi3",  # clamps
    "3d6mi2ma4",
    "1d6!o",  # explode once
    "2d6!=3",  # explode on a 3 only
    "1d6!p",  # penetrating
    "2d4!p>=3",
    "5d10x10cs>=8",  # each added roll a die of its own
    "4d6xcs>=5df=1",
    "3d6x>=5",
    "4d6xkh3",  # keep over every roll
    "3d6x>=5kl2",
    "5d10xkh3cs>=8",
    "4d6xdl1",  # drop over every roll (their number varies)
    "3d6xdh1",
    "5d6x>=5dl2cs>=4df=1",
    "3dFxodh1",
    "10d10cs>=6df=1",  # botches
    "6d6cf<=2",
    "4d6kh2cs=6",  # counts over kept dice
    "4dF",  # faces
    "1d%",
    "2d{1,1,2,5}",
    "3d{-2,0,3}kl2",
    "2d6*2-1d6/2",  # scale
    "1d20+5>=15",  # a comparison
    "{1d8!, 1d6!}kh1",  # groups
    "{1d6, 1d6, 1d8, 1d12}kh2",
    "{2d6, 1d12, 1d10+1}kl1",
    "{1d6, 1d8, 1d10}cs>=5",
    "{1d20>=11, 1d20>=11, 1d20>=11}",
    "{1d6, 1d6}*2+1d4",
    "5d6kh4+1d8kl1",  # keep more than half (the dropped dice selected)
]


@pytest.mark.parametrize("text", FEATURES)
def test_roll_expr_matches_the_exact_engine(text):
    expr = parse(text)
    exact = expr.dist()
    assert all(not (t.exploding and t.sign < 0) for t in expr.terms)  # tails lie above
    lo, hi = exact.min, exact.max
    counts = np.zeros(hi - lo + 3, dtype=np.int64)
    terms, constant = expr.encode()
    _histogram_expr(stream_state(23, 0), 300_000, counts, terms, constant, lo)
    assert counts[0] == 0
    probs = np.array([0.0, *(exact.pmf(v) for v in range(lo, hi + 1)), exact.tail])
    _, _, p = chi_square(probs, counts)
    assert p >= ALPHA, (text, p)
    sample_mean = float(np.dot(np.arange(lo, hi + 1), counts[1:-1])) / counts[1:-1].sum()
    assert sample_mean == pytest.approx(exact.mean, abs=6 * exact.sd / np.sqrt(300_000))


# -- the dialects' documented examples (tests/_dialect_examples.py), simulated ------------
@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.id)
def test_each_dialects_documented_example_simulates_as_it_is_answered(ex):
    expr = parse(ex.text, ex.dialect)
    exact = expr.dist()
    lo, hi = exact.min, exact.max
    counts = np.zeros(hi - lo + 3, dtype=np.int64)
    terms, constant = expr.encode()
    _histogram_expr(stream_state(29, 0), 200_000, counts, terms, constant, lo)
    probs = np.array([0.0, *(exact.pmf(v) for v in range(lo, hi + 1)), exact.tail])
    _, _, p = chi_square(probs, counts)
    assert p >= ALPHA, (ex.id, p, ex.source)
