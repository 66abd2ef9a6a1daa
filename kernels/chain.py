"""Kernels of the exact encounter chain: one attack moving the mass of pairs of side states.

The chain's mass is ``P[order, a_state, b_state]``. An attack of a side-a combatant moves
side b's axis by a sparse matrix of side b's states, stored by source (``ptr``, ``idx``,
``val``: for source ``s`` and target choice ``t``, the entries ``ptr[t, s] ..
ptr[t, s + 1]`` of destinations ``idx`` and probabilities ``val``); only the rows where the
attacker stands move (``rows``), only the orders whose attack it is (``cols``). Sources of
no mass are skipped, which early on is most of them. With ``choice`` (``[order, a, b]``,
the target a policy table picked for each state; empty for one matrix) the matrix of the
chosen target moves each state. After the attack the mass of the state where the target
side is down (``down``) is absorbed: added to ``won`` by the other side's state, weighted
by the order's probability, and returned in total.
"""

from __future__ import annotations

import numpy as np

from critlab.kernels.jit import kernel


@kernel
def move_b(P, cols, rows, ptr, idx, val, choice, down, weights, won):
    """Side b's axis moved in rows ``rows`` of side a's states, for orders ``cols``; the
    mass at side b's state ``down`` absorbed into ``won[a_state]``."""
    nb = P.shape[2]
    buf = np.empty(nb)
    chosen = choice.shape[0] > 0
    total = 0.0
    for oi in range(cols.size):
        o = cols[oi]
        w = weights[o]
        for ri in range(rows.size):
            a = rows[ri]
            moved = False
            for b in range(nb):
                buf[b] = 0.0
            for b in range(nb):
                x = P[o, a, b]
                if x == 0.0:
                    continue
                moved = True
                t = choice[oi, a, b] if chosen else 0
                for e in range(ptr[t, b], ptr[t, b + 1]):
                    buf[idx[e]] += x * val[e]
            if not moved:
                continue
            if down >= 0 and buf[down] != 0.0:
                won[a] += w * buf[down]
                total += w * buf[down]
                buf[down] = 0.0
            for b in range(nb):
                P[o, a, b] = buf[b]
    return total


@kernel
def move_a(P, cols, rows, ptr, idx, val, choice, down, weights, won):
    """Side a's axis moved in columns ``rows`` of side b's states, for orders ``cols``; the
    mass at side a's state ``down`` absorbed into ``won[b_state]``."""
    na = P.shape[1]
    k = rows.size
    buf = np.empty((na, k))
    x = np.empty(k)
    chosen = choice.shape[0] > 0
    total = 0.0
    for oi in range(cols.size):
        o = cols[oi]
        w = weights[o]
        buf[:, :] = 0.0
        for a in range(na):
            live = False
            for ci in range(k):
                x[ci] = P[o, a, rows[ci]]
                live = live or x[ci] != 0.0
            if not live:
                continue
            if chosen:  # a target chosen per state: one source's entries per column
                for ci in range(k):
                    if x[ci] != 0.0:
                        t = choice[oi, a, rows[ci]]
                        for e in range(ptr[t, a], ptr[t, a + 1]):
                            buf[idx[e], ci] += x[ci] * val[e]
                continue
            for e in range(ptr[0, a], ptr[0, a + 1]):
                d = idx[e]
                v = val[e]
                for ci in range(k):
                    buf[d, ci] += v * x[ci]
        if down >= 0:
            for ci in range(k):
                m = buf[down, ci]
                if m != 0.0:
                    won[rows[ci]] += w * m
                    total += w * m
                    buf[down, ci] = 0.0
        for a in range(na):
            for ci in range(k):
                P[o, a, rows[ci]] = buf[a, ci]
    return total
