"""Targeting ``best``: the targets that maximise one side's probability of winning.

Side ``x`` plays ``best``, the other side its own policy. The probability that ``x`` wins
from a state (the order of turns, the attack of the round about to be made, both sides'
hit points) is the largest expectation, over the targets the attack may take, of that
probability in the state the attack leaves; absorbed states are worth 1 where ``x`` has
won and 0 where it has lost. Hit points never rise, so the states are solved fewest hit
points first; the attacks of one state's round, where nobody is hurt, form a cycle that
is solved in closed form (:func:`critlab.kernels.chain.best_values`). The round cap is
ignored in the choice; ties go to listed order. The policy found is a table, ``choice[order,
attack, a_state, b_state]`` = the target member, which the exact chain plays
(:mod:`critlab.analysis.encounter.exact`) and the simulation follows
(:mod:`critlab.analysis.encounter.sim`).

>>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
>>> from critlab.analysis.systems import get_system
>>> thac0 = get_system("thac0")
>>> hero = Combatant("hero", 10, thac0.make_spec(thac0=12, target_ac=5, damage="1d6"))
>>> bite = thac0.make_spec(thac0=15, target_ac=5, damage="1d4")
>>> rats = [Combatant("rat", 12, bite), Combatant("bigrat", 3, bite, attacks=3)]
>>> enc = Encounter(Side((hero,), "best"), Side(tuple(rats)), order="a-first")
>>> policy = best_policy(enc)
>>> int(policy.choice[0, 0, policy.chain.a.start, policy.chain.b.start])  # the three bites first
1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from critlab.analysis.encounter.declare import Encounter
from critlab.analysis.encounter.states import STATE_LIMIT, Chain, chain_of
from critlab.analysis.spec import SpecError


@dataclass(frozen=True)
class BestPolicy:
    """The ``best`` side (``"a"`` or ``"b"``), its table of targets ``choice[order,
    attack, a_state, b_state]`` (a member of the other side, -1 where the attack is not
    the side's), the attack ``sequence[order, attack]`` (combatant indices) and the chain
    it was solved over; ``value`` is the side's probability of winning from the start
    (the round cap ignored)."""

    side: str
    choice: np.ndarray
    sequence: np.ndarray
    chain: Chain
    value: float


def best_side(enc: Encounter) -> str | None:
    """``"a"`` or ``"b"``: the side playing ``best``, if one does."""
    for s in ("a", "b"):
        if getattr(enc, s).targeting == "best":
            return s
    return None


def attack_sequence(enc: Encounter, orders: list[tuple[tuple[int, ...], float]]) -> np.ndarray:
    """``[order, attack]``: the combatant making each attack of a round, per order."""
    people = enc.combatants
    return np.array(
        [[i for i in order for _ in range(people[i].attacks)] for order, _ in orders], dtype=np.int64
    )


def moves_of(chain: Chain, i: int) -> list[Any]:
    """Attacker ``i``'s attack as sparse matrices (``dst x src``) of the target side's
    states: one per target member for the ``best`` side, else one, its side's policy."""
    enc = chain.enc
    cached = chain.__dict__.setdefault("_moves", {})
    got = cached.get(i)
    if got is None:
        mine, theirs = ("a", chain.b) if i < enc.n_a else ("b", chain.a)
        local = i if i < enc.n_a else i - enc.n_a
        policy = getattr(enc, mine).targeting
        if policy == "best":
            got = [theirs.attack(local, "every", target=t) for t in range(theirs.hp.size)]
        else:
            got = [theirs.attack(local, policy)]
        cached[i] = got
    return got


def best_policy(enc: Encounter) -> BestPolicy:
    """Solve ``best`` for the side playing it: its table of targets over every state of
    the chain. Refused (SpecError naming ``encounter``) where the chain's states times the
    attacks of a round pass :data:`~critlab.analysis.encounter.states.STATE_LIMIT`."""
    from critlab.kernels.chain import best_values

    side = best_side(enc)
    if side is None:
        raise ValueError("no side plays best")
    cached = enc.__dict__.get("_best")
    if cached is not None:
        return cached
    chain = chain_of(enc)
    seq = attack_sequence(enc, chain.orders)
    n_orders, L = seq.shape
    if chain.states * L > STATE_LIMIT:
        raise SpecError(
            "encounter",
            f"{chain.states * L:,} states",
            f"best is solved over every state and attack of a round, at most {STATE_LIMIT:.0e} "
            "(lower the hit points, fix the order or give best to the other side)",
        )
    a, b = chain.a, chain.b
    n = len(enc.combatants)
    side_of = np.array([0 if i < enc.n_a else 1 for i in range(n)], dtype=np.int64)
    local = np.array([i if i < enc.n_a else i - enc.n_a for i in range(n)], dtype=np.int64)
    base, n_opts, ptr_at, ptrs, idxs, vals = [], [], [], [], [], []
    k = nnz = at = 0
    for i in range(n):
        options = moves_of(chain, i)
        base.append(k)
        n_opts.append(len(options))
        for move in options:
            c = move.tocsc()
            ptr_at.append(at)
            ptrs.append(c.indptr.astype(np.int64) + nnz)
            idxs.append(c.indices.astype(np.int64))
            vals.append(c.data)
            at += c.indptr.size
            nnz += c.nnz
            k += 1
    x = 0 if side == "a" else 1
    V = np.zeros((n_orders, L, len(a), len(b)))
    if x == 0 and b.down >= 0:
        V[:, :, :, b.down] = 1.0
    if x == 1 and a.down >= 0:
        V[:, :, a.down, :] = 1.0
    choice = np.full((n_orders, L, len(a), len(b)), -1, dtype=np.int8)
    hp_a, hp_b = a.rows.sum(axis=1), b.rows.sum(axis=1)
    live_a = np.flatnonzero(np.arange(len(a)) != a.down)
    live_b = np.flatnonzero(np.arange(len(b)) != b.down)
    pa, pb = np.meshgrid(live_a, live_b, indexing="ij")
    pa, pb = pa.ravel(), pb.ravel()
    order = np.argsort(hp_a[pa] + hp_b[pb], kind="stable")
    pairs = np.stack([pa[order], pb[order]], axis=1).astype(np.int64)
    best_values(
        seq,
        side_of,
        local,
        (a.rows > 0).T.copy(),
        (b.rows > 0).T.copy(),
        np.array(base, dtype=np.int64),
        np.array(n_opts, dtype=np.int64),
        np.array(ptr_at, dtype=np.int64),
        np.concatenate(ptrs),
        np.concatenate(idxs),
        np.concatenate(vals),
        x,
        pairs,
        V,
        choice,
    )
    weights = np.array([w for _, w in chain.orders])
    value = float(weights @ V[:, 0, a.start, b.start])
    policy = BestPolicy(side, choice, seq, chain, value)
    object.__setattr__(enc, "_best", policy)
    return policy


__all__ = ["BestPolicy", "attack_sequence", "best_policy", "best_side", "moves_of"]
