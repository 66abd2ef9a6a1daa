"""The exact encounter: an absorbing Markov chain over the states play reaches.

An attack changes its target's hit points alone, and every policy but ``best`` picks the
target from the target's side alone, so each side's states are found on their own
(:mod:`critlab.analysis.encounter.states`: the hit points the other side's attacks reach
from the start, a few hundred under ``focus`` or ``weakest`` however large the product of
every ``hp + 1``) and the chain's mass is a dense array over pairs of them, ``side a's
states x side b's``, one per order of turns. Each attacker's attack is one sparse matrix
of the target side's states (built once), applied to the states where the attacker
stands by a compiled kernel (:mod:`critlab.kernels.chain`) that skips the states of no
mass; never a Python loop per state. States where one side is down are absorbed after
every attack (the rest of the turn is not played), their mass kept by the winner's state
for the distributions.

``a-first`` and ``b-first`` are one order of turns; ``rolled`` is the exact mixture over
every order of positive probability (:mod:`critlab.analysis.encounter.initiative`), the
orders stacked, those whose attacker at a turn is the same moved by one call. In
``simultaneous`` order a round is one matrix per side and pattern of standing attackers
(every target picked from the round's start, the damage applied at its end), applied
with SciPy.

Rounds are played until less than :data:`STOP` of the mass still fights. That mass, and
every attack's damage tail (an explosion cut by the exact dice engine), is cut: counted
in ``undecided`` and the ``tail`` of every distribution, so the labels sum to 1. The chain
holds at most :data:`STATE_LIMIT` states (each side's states multiplied, times the
orders) and the work the shared budget allows; past either it is refused with one line.

>>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
>>> from critlab.analysis.systems import get_system
>>> thac0 = get_system("thac0")
>>> hero = Combatant("hero", 10, thac0.make_spec(thac0=15, target_ac=5))
>>> ogre = Combatant("ogre", 10, thac0.make_spec(thac0=15, target_ac=5))
>>> r = exact_encounter(Encounter(Side((hero,)), Side((ogre,)), order="a-first"))
>>> r.outcomes["a_wins"] > r.outcomes["b_wins"]                    # going first is worth something
True
>>> round(r.outcomes["a_wins"] + r.outcomes["b_wins"] + r.outcomes["undecided"], 12)
1.0
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critlab.analysis.dist import Dist
from critlab.analysis.encounter.best import best_policy, best_side, moves_of
from critlab.analysis.encounter.declare import TARGETING, Encounter, Side
from critlab.analysis.encounter.states import STATE_LIMIT, Chain, chain_of, state_count
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import SpecError

LABELS = ("a_wins", "b_wins", "draw", "undecided")
# Rounds stop once less than this still fights: an order of magnitude inside the rules'
# 1e-12, so the cut mass with the damage tails stays below it and mean_rounds is right
# to ~1e-13.
STOP = 1e-13


@dataclass(frozen=True, repr=False)
class EncounterResult(ExactResult):
    """An encounter's exact result: an :class:`ExactResult` (``system`` is ``encounter``)
    that carries the :class:`Encounter`, shown as ``"encounter"`` in its JSON."""

    encounter: Encounter | None = field(default=None, kw_only=True)

    def __repr__(self) -> str:
        """One line, as every result prints in a REPL: who wins, how often, how long."""
        return encounter_line(
            "EncounterResult", self.encounter, self.outcomes, self.metrics.get("mean_rounds")
        )

    def to_json(self) -> dict[str, Any]:
        body = super().to_json()
        body.pop("system")
        body.pop("params")
        return {"encounter": self.encounter.to_json() if self.encounter else None, **body}


def encounter_line(
    kind: str, enc: Encounter | None, outcomes: Any, mean_rounds: float | None, extra: str = ""
) -> str:
    """An encounter result's one-line ``repr``: its sides, P(a wins), P(b wins), the rest
    undecided or drawn, and the mean rounds."""
    from critlab.analysis.text.human import amount, percent

    sides = "" if enc is None else f" {len(enc.a.combatants)} v {len(enc.b.combatants)}"
    rest = outcomes["draw"] + outcomes["undecided"]
    rounds = "" if mean_rounds is None else f", mean rounds {amount(mean_rounds)}"
    return (
        f"<{kind}{sides}: a wins {percent(outcomes['a_wins'])}, b wins {percent(outcomes['b_wins'])}, "
        f"draw or undecided {percent(rest)}{rounds}{extra}>"
    )


class _Tally:
    """The absorbed mass: wins (a, b, draw), the round each was decided in, and each
    side's state marginals of every encounter's end (absorbed or undecided)."""

    def __init__(self, enc: Encounter, chain: Chain) -> None:
        self.wins = np.zeros(3)
        self.rounds = np.zeros(enc.max_rounds + 1)
        self.final_a = np.zeros(len(chain.a))
        self.final_b = np.zeros(len(chain.b))
        self.undecided = 0.0
        self.played = 0


def _positions(enc: Encounter, orders: list[tuple[tuple[int, ...], float]]) -> list[list[tuple[int, Any]]]:
    """Per attack of a round, ``[(attacker, orders)]``: the orders (indices) whose attack
    it is of each attacker."""
    people = enc.combatants
    seqs = [[i for i in order for _ in range(people[i].attacks)] for order, _ in orders]
    out = []
    for p in range(len(seqs[0])):
        by: dict[int, list[int]] = {}
        for o, seq in enumerate(seqs):
            by.setdefault(seq[p], []).append(o)
        out.append([(i, np.array(cols, dtype=np.int64)) for i, cols in by.items()])
    return out


def by_source(*moves: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ptr, idx, val)`` of sparse matrices (``dst x src``) of one side's states, as
    :mod:`critlab.kernels.chain` reads them: for matrix ``t`` and source ``s``, entries
    ``ptr[t, s] .. ptr[t, s + 1]`` of ``idx`` (destinations) and ``val``."""
    cscs = [m.tocsc() for m in moves]
    ptrs, offset = [], 0
    for c in cscs:
        ptrs.append(c.indptr.astype(np.int64) + offset)
        offset += c.nnz
    idx = np.concatenate([c.indices for c in cscs]).astype(np.int64)
    val = np.concatenate([c.data for c in cscs])
    return np.stack(ptrs), idx, val


NO_CHOICE = np.zeros((0, 0, 0), dtype=np.int8)


def _sequential(chain: Chain, t: _Tally, policy: Any = None) -> None:
    """Play the orders of turns round by round, tallying into ``t``; the ``best`` side's
    attacks take the targets of ``policy`` (a :class:`~critlab.analysis.encounter.best.BestPolicy`)."""
    from critlab.kernels.chain import move_a, move_b

    enc = chain.enc
    a, b = chain.a, chain.b
    weights = np.array([w for _, w in chain.orders])
    P = np.zeros((len(chain.orders), len(a), len(b)))
    P[:, a.start, b.start] = 1.0
    moves = {i: by_source(*moves_of(chain, i)) for i in range(len(enc.combatants))}
    n_a = enc.n_a
    plan = []  # per attack of a round: [(attacker, orders, targets chosen or none)]
    for p, step in enumerate(_positions(enc, chain.orders)):
        row = []
        for i, cols in step:
            best = policy is not None and (i < n_a) == (policy.side == "a")
            row.append((i, cols, policy.choice[cols, p] if best else NO_CHOICE))
        plan.append(row)
    for rnd in range(1, enc.max_rounds + 1):
        for step in plan:
            for i, cols, choice in step:
                if i < n_a:
                    total = move_b(P, cols, a.standing(i), *moves[i], choice, b.down, weights, t.final_a)
                    if total > 0.0:
                        t.final_b[b.down] += total
                        t.wins[0] += total
                        t.rounds[rnd] += total
                else:
                    rows = b.standing(i - n_a)
                    total = move_a(P, cols, rows, *moves[i], choice, a.down, weights, t.final_b)
                    if total > 0.0:
                        t.final_a[a.down] += total
                        t.wins[1] += total
                        t.rounds[rnd] += total
        t.played = rnd
        alive = float(weights @ P.sum(axis=(1, 2)))
        if rnd == enc.max_rounds or alive < STOP:
            if rnd == enc.max_rounds:
                left = np.tensordot(weights, P, 1)
                t.final_a += left.sum(axis=1)
                t.final_b += left.sum(axis=0)
                t.undecided = float(left.sum())
            break


def _simultaneous(chain: Chain, t: _Tally) -> None:
    """Play the simultaneous rounds, tallying into ``t``."""
    enc = chain.enc
    a, b = chain.a, chain.b
    n_a = enc.n_a
    people = enc.combatants
    # a round's attacks on each side, one matrix per pattern of standing attackers
    on_b = {pat: b.round_of([(i, people[i].attacks) for i in pat], enc.a.targeting) for pat in a.patterns()}
    on_a = {
        pat: a.round_of([(j, people[n_a + j].attacks) for j in pat], enc.b.targeting) for pat in b.patterns()
    }
    blocks = []
    for pa, rows in a.patterns().items():
        for pb, cols in b.patterns().items():
            blocks.append((rows, cols, on_b[pa][:, cols], on_a[pb][:, rows]))
    P = np.zeros((len(a), len(b)))
    P[a.start, b.start] = 1.0
    for rnd in range(1, enc.max_rounds + 1):
        nxt = np.zeros_like(P)
        for rows, cols, move_b, move_a in blocks:
            block = P[np.ix_(rows, cols)]
            if not block.any():
                continue
            nxt += move_a @ (move_b @ block.T).T
        P = nxt
        ad, bd = a.down, b.down
        if ad >= 0 and bd >= 0 and P[ad, bd] > 0.0:
            draw = float(P[ad, bd])
            t.wins[2] += draw
            t.rounds[rnd] += draw
            t.final_a[ad] += draw
            t.final_b[bd] += draw
            P[ad, bd] = 0.0
        if bd >= 0:
            won = P[:, bd].copy()
            t.final_a += won
            t.final_b[bd] += won.sum()
            t.wins[0] += won.sum()
            t.rounds[rnd] += won.sum()
            P[:, bd] = 0.0
        if ad >= 0:
            won = P[ad, :].copy()
            t.final_b += won
            t.final_a[ad] += won.sum()
            t.wins[1] += won.sum()
            t.rounds[rnd] += won.sum()
            P[ad, :] = 0.0
        t.played = rnd
        alive = float(P.sum())
        if rnd == enc.max_rounds or alive < STOP:
            if rnd == enc.max_rounds:
                t.final_a += P.sum(axis=1)
                t.final_b += P.sum(axis=0)
                t.undecided = alive
            break


def exact_encounter(enc: Encounter) -> EncounterResult:
    """The exact result of an encounter.

    Parameters
    ----------
    enc
        The :class:`~critlab.analysis.encounter.declare.Encounter`.

    Returns
    -------
    EncounterResult
        Labels ``a_wins``, ``b_wins``, ``draw``, ``undecided``; distributions ``rounds``
        and ``hp_left_<name>``; metrics ``mean_rounds``, ``p_down_<name>``,
        ``mean_hp_left_<name>``, ``p_any_down_a``, ``p_any_down_b``, and ``best_gain_<side>``
        where a side plays ``best`` (its P(win) less the highest under ``focus``,
        ``weakest`` and ``random``). A chain of more than 10^7 states reached, or past the
        shared work budget, is refused with one line (simulate it instead).

    Examples
    --------
    >>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
    >>> from critlab.analysis.systems import get_system
    >>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    >>> duel = Encounter(Side((Combatant("x", 8, spec),)), Side((Combatant("y", 8, spec),)), order="rolled")
    >>> r = exact_encounter(duel)
    >>> abs(r.outcomes["a_wins"] - r.outcomes["b_wins"]) < 0.1, r.outcomes["draw"]
    (True, 0.0)
    """
    chain = chain_of(enc)
    from critlab.analysis.encounter.work import encounter_work
    from critlab.analysis.work import BUDGET

    work = encounter_work(enc)
    if work > BUDGET:
        raise SpecError(
            "encounter",
            f"{chain.states:,} states",
            f"needs about {work:.2g} units of exact work, past the budget of {BUDGET:.2g} (about two "
            "minutes); simulate it (--trials N)",
        )
    side = best_side(enc)
    policy = best_policy(enc) if side is not None else None
    t = _Tally(enc, chain)
    if enc.order == "simultaneous":
        _simultaneous(chain, t)
    else:
        _sequential(chain, t, policy)
    result = _result(enc, chain, t)
    if side is None:
        return result
    # how much tactics matter: best against the best of the fixed policies
    fixed = []
    for other in TARGETING:
        if other != "best":
            alt = enc.replace(**{side: Side(getattr(enc, side).combatants, other)})
            fixed.append(exact_encounter(alt).outcomes[f"{side}_wins"])
    gain = result.outcomes[f"{side}_wins"] - max(fixed)
    return dataclasses.replace(result, metrics={**result.metrics, f"best_gain_{side}": gain})


def _result(enc: Encounter, chain: Chain, t: _Tally) -> EncounterResult:
    wins, undecided = t.wins, t.undecided
    represented = float(wins.sum()) + undecided
    cut = max(0.0, 1.0 - represented)
    decided = t.rounds[1 : t.played + 1]
    rounds = decided.copy()
    rounds[-1] += undecided  # an undecided encounter played max_rounds rounds
    distributions: dict[str, Dist] = {"rounds": Dist(1, rounds, cut)}
    metrics: dict[str, Any] = {}
    d_total = float(decided.sum())
    r = np.arange(1, decided.size + 1)
    metrics["mean_rounds"] = float(np.dot(r, decided) / d_total) if d_total > 0 else None
    sides = (("a", chain.a, t.final_a, enc.a.combatants), ("b", chain.b, t.final_b, enc.b.combatants))
    for _, space, final, members in sides:
        for k, c in enumerate(members):
            marginal = np.bincount(space.rows[:, k], weights=final, minlength=c.hp + 1)
            distributions[f"hp_left_{c.name}"] = Dist(0, marginal, cut)
            metrics[f"p_down_{c.name}"] = float(marginal[0])
            metrics[f"mean_hp_left_{c.name}"] = float(np.dot(np.arange(c.hp + 1), marginal))
    for s, space, final, _ in sides:
        everyone_up = space.rows.all(axis=1)
        metrics[f"p_any_down_{s}"] = max(0.0, represented - float(final[everyone_up].sum()))
    order = [f"hp_left_{c.name}" for c in enc.combatants]
    distributions = {"rounds": distributions["rounds"], **{k: distributions[k] for k in order}}
    ordered = {"mean_rounds": metrics["mean_rounds"]}
    for c in enc.combatants:
        ordered[f"p_down_{c.name}"] = metrics[f"p_down_{c.name}"]
        ordered[f"mean_hp_left_{c.name}"] = metrics[f"mean_hp_left_{c.name}"]
    ordered["p_any_down_a"], ordered["p_any_down_b"] = metrics["p_any_down_a"], metrics["p_any_down_b"]
    probs = np.array([wins[0], wins[1], wins[2], undecided + cut])
    return EncounterResult(
        system="encounter",
        params={},
        labels=LABELS,
        probs=probs,
        distributions=distributions,
        metrics=ordered,
        encounter=enc,
    )


__all__ = ["Chain", "EncounterResult", "LABELS", "STATE_LIMIT", "chain_of", "exact_encounter", "state_count"]
