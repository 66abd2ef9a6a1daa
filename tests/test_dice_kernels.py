"""The pool kernels of the severity and contest modes against the exact engine."""

from __future__ import annotations

import numpy as np
import pytest
from critlab.analysis.notation import dice_dist
from critlab.analysis.validate import chi_square
from critlab.kernels.dice import roll_3d6, roll_4d6_drop_lowest
from critlab.kernels.jit import kernel
from critlab.kernels.rng import stream_state

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
