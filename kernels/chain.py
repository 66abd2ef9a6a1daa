"""Kernels of the exact encounter chain: one attack moving the mass of pairs of side
states (:func:`move_b`, :func:`move_a`), and the values and targets of ``best`` targeting
(:func:`best_values`).

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


@kernel
def best_values(
    seq, side_of, local, stand_a, stand_b, base, n_opts, ptr_at, ptr, idx, val, x_side, pairs, V, choice
):
    """The value of every state for side ``x_side`` playing ``best`` (the other side its
    own policy), and the target it picks, over the cycles of turns of each order.

    ``seq[o, p]``: the attacker at attack ``p`` of a round of order ``o``; ``side_of`` and
    ``local`` its side (0 a, 1 b) and index there; ``stand_a[k, a]`` whether member ``k``
    of side a stands in a's state ``a`` (``stand_b`` likewise). An attacker's options are
    ``base[i] .. base[i] + n_opts[i]`` (side ``x_side``'s: one per target member, the other
    side's one, its policy's), option ``k``'s entries from source ``s`` are ``ptr[ptr_at[k]
    + s] .. ptr[ptr_at[k] + s + 1]`` of ``idx``/``val``. ``pairs`` are the states not yet
    absorbed, ``(a, b)``, fewest hit points first (a state's successors come before it,
    but itself: a miss). ``V[o, p, a, b]`` holds the absorbed states' values (1 where side
    ``x_side`` has won, 0 where it has lost) and receives the rest; ``choice`` the target
    picked at each of ``x_side``'s attacks (-1 elsewhere).

    A state's attacks around a round in which nobody is hurt are a cycle: value ``V_p =
    m_p V_{p+1} + r_p`` (``m_p`` the chance the attack at ``p`` changes nothing, ``r_p`` the
    value it leaves elsewhere), solved in closed form for a choice of targets, the choice
    improved until no target is better by more than 1e-14 (policy iteration), then ties
    (within 1e-13) given to listed order.
    """
    n_orders, L = seq.shape
    T = 1
    for i in range(n_opts.size):
        T = max(T, n_opts[i])
    m = np.empty((L, T))
    r = np.empty((L, T))
    ok = np.zeros((L, T), dtype=np.bool_)
    kind = np.empty(L, dtype=np.int64)  # 0 passes (the attacker is down), 1 its policy, 2 best
    cur = np.empty(L, dtype=np.int64)
    v = np.empty(L + 1)
    for q in range(pairs.shape[0]):
        a = pairs[q, 0]
        b = pairs[q, 1]
        for o in range(n_orders):
            for p in range(L):
                i = seq[o, p]
                s = side_of[i]
                up = stand_a[local[i], a] if s == 0 else stand_b[local[i], b]
                if not up:
                    kind[p] = 0
                    continue
                kind[p] = 2 if s == x_side else 1
                pn = (p + 1) % L
                src = b if s == 0 else a
                for t in range(n_opts[i]):
                    ok[p, t] = False
                    if kind[p] == 2:
                        if (s == 0 and not stand_b[t, b]) or (s == 1 and not stand_a[t, a]):
                            continue
                    ok[p, t] = True
                    k = base[i] + t
                    mm = 0.0
                    rr = 0.0
                    for e in range(ptr[ptr_at[k] + src], ptr[ptr_at[k] + src + 1]):
                        d = idx[e]
                        if d == src:
                            mm += val[e]
                        elif s == 0:
                            rr += val[e] * V[o, pn, a, d]
                        else:
                            rr += val[e] * V[o, pn, d, b]
                    m[p, t] = mm
                    r[p, t] = rr
                # start from the option leaving the most elsewhere
                cur[p] = -1
                for t in range(n_opts[i]):
                    if ok[p, t] and (cur[p] < 0 or r[p, t] > r[p, cur[p]]):
                        cur[p] = t
            for _ in range(1000):
                # the cycle's values in closed form for the current choice
                through = 1.0
                total = 0.0
                for p in range(L):
                    if kind[p] == 0:
                        continue
                    total += through * r[p, cur[p]]
                    through *= m[p, cur[p]]
                v[0] = total / (1.0 - through)
                v[L] = v[0]
                for p in range(L - 1, 0, -1):
                    v[p] = v[p + 1] if kind[p] == 0 else m[p, cur[p]] * v[p + 1] + r[p, cur[p]]
                changed = False
                for p in range(L):
                    if kind[p] != 2:
                        continue
                    now = m[p, cur[p]] * v[p + 1] + r[p, cur[p]]
                    for t in range(n_opts[seq[o, p]]):
                        if ok[p, t]:
                            value = m[p, t] * v[p + 1] + r[p, t]
                            if value > now + 1e-14:
                                now = value
                                cur[p] = t
                                changed = True
                if not changed:
                    break
            for p in range(L):
                V[o, p, a, b] = v[p]
                choice[o, p, a, b] = -1
                if kind[p] != 2:
                    continue
                top = -1.0
                for t in range(n_opts[seq[o, p]]):
                    if ok[p, t]:
                        top = max(top, m[p, t] * v[p + 1] + r[p, t])
                for t in range(n_opts[seq[o, p]]):
                    if ok[p, t] and m[p, t] * v[p + 1] + r[p, t] >= top - 1e-13:
                        choice[o, p, a, b] = t
                        break
