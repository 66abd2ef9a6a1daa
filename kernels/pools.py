"""Exact dice pools for the exact engine: keep the highest of N dice without
enumerating the ``sides ** count`` faces (an array kernel, so it lives here)."""

from __future__ import annotations

import numpy as np
from critlab.kernels.jit import kernel


@kernel
def keep_highest_weights(count, sides, keep):
    """Probabilities of the sum of the highest ``keep`` of ``count`` fair dice, over
    ``0 .. keep * sides``.

    A dynamic programme over faces from the top down. ``state[j, t]`` is the
    probability weight of "j dice assigned to the faces seen so far, kept sum t";
    at face ``v``, ``c`` of the ``count - j`` unassigned dice show ``v`` (binomial weight
    ``C(count - j, c) / sides**c``), and they are kept while fewer than ``keep`` are.
    Cost ``O(sides * count**2 * keep * sides)``.
    """
    width = keep * sides + 1
    binom = np.zeros((count + 1, count + 1))
    for n in range(count + 1):
        binom[n, 0] = 1.0
        for c in range(1, n + 1):
            binom[n, c] = binom[n - 1, c - 1] + (binom[n - 1, c] if c <= n - 1 else 0.0)
    p = 1.0 / sides
    state = np.zeros((count + 1, width))
    state[0, 0] = 1.0
    for v in range(sides, 0, -1):
        new = np.zeros((count + 1, width))
        for j in range(count + 1):
            rem = count - j
            room = keep - j if j < keep else 0
            for t in range(width):
                w = state[j, t]
                if w == 0.0:
                    continue
                pc = 1.0
                for c in range(rem + 1):
                    kept = c if c < room else room
                    new[j + c, t + kept * v] += w * binom[rem, c] * pc
                    pc *= p
        state = new
    return state[count]
