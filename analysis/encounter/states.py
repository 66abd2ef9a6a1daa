"""The states the exact encounter chain holds, found before any round is played.

Each side's states are discovered on their own
(:class:`~critlab.analysis.encounter.sides.SideSpace`: the hit points the other side's
attacks reach from the start under its policy); the chain holds their pairs, one set per
order of turns of positive probability (:mod:`critlab.analysis.encounter.initiative`).
Past :data:`STATE_LIMIT` such states the discovery stops and the encounter is refused with
one line saying how many were reached by then.

>>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> party = Side(tuple(Combatant(f"p{k}", 20, spec) for k in range(4)))
>>> ogres = Side(tuple(Combatant(f"o{k}", 30, spec) for k in range(3)))
>>> state_count(Encounter(party, ogres, order="a-first"))[0]     # 81 x 91, not 21^4 x 31^3
7371
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from critlab.analysis.encounter.declare import Encounter
from critlab.analysis.encounter.initiative import orders_of
from critlab.analysis.encounter.sides import SideSpace, TooManyStates
from critlab.analysis.spec import SpecError

STATE_LIMIT = 10**7


@dataclass
class Chain:
    """What the chain holds for one encounter: the orders of turns with their
    probabilities, each side's states (``a``: side a's, reached by side b's attacks) and
    ``states``, the pairs times the orders."""

    enc: Encounter
    orders: list[tuple[tuple[int, ...], float]]
    a: SideSpace
    b: SideSpace

    @property
    def states(self) -> int:
        return len(self.orders) * len(self.a) * len(self.b)


def _refused(reached: int) -> SpecError:
    return SpecError(
        "encounter",
        f"{reached:,}+ states reached",
        f"the exact chain holds at most {STATE_LIMIT:.0e} states (the hit points play reaches on each "
        "side, multiplied, times the initiative orders); simulate it (--trials N)",
    )


def side_damage(enc: Encounter) -> tuple[dict, dict]:
    """``(on_a, on_b)``: ``{(attacker, member): damage}`` of the attacks on each side,
    attackers and members numbered within their sides."""
    n_a = enc.n_a
    on_a, on_b = {}, {}
    for (i, j), d in enc.pair_damage().items():
        if i < n_a:
            on_b[(i, j - n_a)] = d
        else:
            on_a[(i - n_a, j)] = d
    return on_a, on_b


def aims(enc: Encounter, side: str) -> str:
    """How side ``side``'s attacks pick their targets, as the other side's states are
    found: its policy, or ``every`` under ``best`` (any standing enemy may be chosen)."""
    policy = getattr(enc, side).targeting
    return "every" if policy == "best" else policy


def chain_of(enc: Encounter) -> Chain:
    """The states the chain holds (cached on the encounter): refused (SpecError naming
    ``encounter``, one line) past :data:`STATE_LIMIT`."""
    cached = enc.__dict__.get("_chain")
    if cached is not None:
        return cached
    orders = orders_of(
        [c.initiative for c in enc.combatants], n_a=enc.n_a, order=enc.order, limit=STATE_LIMIT // 4
    )
    n_orders = len(orders)
    if n_orders * 4 > STATE_LIMIT:
        raise _refused(n_orders * 4)
    on_a, on_b = side_damage(enc)
    hp_a = np.array([c.hp for c in enc.a.combatants])
    hp_b = np.array([c.hp for c in enc.b.combatants])
    try:
        a = SideSpace.discover(hp_a, aims(enc, "b"), on_a, cap=STATE_LIMIT // (2 * n_orders))
    except TooManyStates as exc:
        raise _refused(exc.reached * 2 * n_orders) from None
    try:
        b = SideSpace.discover(hp_b, aims(enc, "a"), on_b, cap=STATE_LIMIT // (len(a) * n_orders))
    except TooManyStates as exc:
        raise _refused(exc.reached * len(a) * n_orders) from None
    chain = Chain(enc, orders, a, b)
    if chain.states > STATE_LIMIT:
        raise _refused(chain.states)
    object.__setattr__(enc, "_chain", chain)
    return chain


def state_count(enc: Encounter) -> tuple[int, list[tuple[tuple[int, ...], float]]]:
    """The chain's states (each side's states reached, multiplied, times the orders of
    positive probability) and those orders; past :data:`STATE_LIMIT` a count above it
    (a lower bound of what play reaches) and the orders found by then."""
    try:
        chain = chain_of(enc)
    except SpecError as exc:
        if exc.name != "encounter":
            raise
        reached = int(str(exc.value).split("+")[0].replace(",", ""))
        return max(reached, STATE_LIMIT + 1), []
    return chain.states, chain.orders


__all__ = ["Chain", "STATE_LIMIT", "aims", "chain_of", "side_damage", "state_count"]
