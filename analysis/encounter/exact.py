"""The exact encounter: an absorbing Markov chain over every combatant's hit points.

The chain's states are the tuples of hit points left (a dense array with one axis per
combatant, ``hp + 1`` long) at each position in the round. A turn's attack moves
probability along the target's axis only: the target's hit points ``h`` become
``max(0, h - d)`` with the pair's exact per-attack damage ``d`` (its defense applied), a
``(hp + 1) x (hp + 1)`` matrix applied to that axis with one matrix product
(``tensordot``), so the work is NumPy's, never a Python loop per state. Who acts and whom
it targets depend on which combatants are standing, so the states are taken in boxes,
one per pattern of standing enemies (a box is a slice of the array: each enemy's axis is
either ``1..hp`` or ``0``); within a box ``focus`` has one target, ``random`` each standing
enemy with equal weight (the branches summed exactly) and ``weakest`` a mask per target.
States where one side is down are absorbed after every attack (the rest of the turn is
not played), their mass kept by hit points left for the distributions.

``a-first`` and ``b-first`` are one order of turns; ``rolled`` is the exact mixture over
every order of positive probability (:mod:`critlab.analysis.encounter.initiative`), each
its own chain. In ``simultaneous`` order a round acts on a copy: every box of standing
patterns (and of ``weakest`` targets) at the round's start makes all its attacks, and the
results are summed.

Rounds are played until less than :data:`STOP` of the mass still fights. That mass, and
every attack's damage tail (an explosion cut by the exact dice engine), is cut: counted
in ``undecided`` and the ``tail`` of every distribution, so the labels sum to 1.

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

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critlab.analysis.dist import Dist
from critlab.analysis.encounter.declare import Encounter
from critlab.analysis.encounter.initiative import orders_of
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import SpecError

LABELS = ("a_wins", "b_wins", "draw", "undecided")
STATE_LIMIT = 10**6
# Rounds stop once less than this still fights: an order of magnitude inside the rules'
# 1e-12, so the cut mass with the damage tails stays below it and mean_rounds is right
# to ~1e-13.
STOP = 1e-13


@dataclass(frozen=True)
class EncounterResult(ExactResult):
    """An encounter's exact result: an :class:`ExactResult` (``system`` is ``encounter``)
    that carries the :class:`Encounter`, shown as ``"encounter"`` in its JSON."""

    encounter: Encounter | None = field(default=None, kw_only=True)

    def to_json(self) -> dict[str, Any]:
        body = super().to_json()
        body.pop("system")
        body.pop("params")
        return {"encounter": self.encounter.to_json() if self.encounter else None, **body}


def state_count(enc: Encounter) -> tuple[int, list[tuple[tuple[int, ...], float]]]:
    """The chain's states (the product over combatants of ``hp + 1``, times the orders of
    positive probability) and those orders; past :data:`STATE_LIMIT` the count is a lower
    bound and the list incomplete."""
    grid = math.prod(c.hp + 1 for c in enc.combatants)
    limit = max(0, STATE_LIMIT // grid)
    orders = orders_of([c.initiative for c in enc.combatants], n_a=enc.n_a, order=enc.order, limit=limit)
    return grid * len(orders), orders


@dataclass(frozen=True)
class _Hits:
    """One pair's per-attack damage against a target of ``hp`` hit points, as the chain
    applies it: the damages below ``hp`` with their probabilities (``q``), and
    ``ge[h]`` = P(damage >= h), what takes ``h`` hit points to 0. The represented mass is
    1 - the damage's tail: the tail is cut."""

    hp: int
    damages: np.ndarray
    q: np.ndarray
    ge: np.ndarray

    @classmethod
    def of(cls, damage: Dist, hp: int) -> _Hits:
        vals = np.minimum(damage.values, hp + 1)
        c = np.bincount(vals, weights=damage.probs, minlength=hp + 2)
        ge = np.cumsum(c[::-1])[::-1]  # ge[h] = P(D >= h)
        ds = np.flatnonzero(c[:hp])
        return cls(hp, ds, c[ds], ge[: hp + 1])

    def add_into(self, out: np.ndarray, x: np.ndarray, axis: int, weight: float = 1.0, low: int = 1) -> None:
        """Add to ``out`` (hit points ``0..top`` along ``axis``) the states ``x`` of a
        standing target (hit points ``low..top`` along ``axis``, the rest of the shape
        ``out``'s) after one attack on it, times ``weight``: ``h`` becomes ``max(0, h - d)``.

        One shifted add per damage value rather than a matrix product: the same sums,
        without BLAS, whose threads slow small products down 50-fold on a busy machine."""
        xm = np.moveaxis(x, axis, 0)
        om = np.moveaxis(out, axis, 0)
        top = low + xm.shape[0] - 1
        for d, q in zip(self.damages.tolist(), self.q.tolist(), strict=True):
            first = max(low, d + 1)  # the lowest h left standing by d
            if first <= top:
                om[first - d : top + 1 - d] += (q * weight) * xm[first - low :]
        om[0] += np.einsum("j,j...->...", self.ge[low : top + 1] * weight, xm)

    def apply(self, x: np.ndarray, axis: int, weight: float = 1.0) -> np.ndarray:
        """The states ``x`` (hit points ``0..hp`` along ``axis``) after one attack on that
        axis, times ``weight``; a target already at 0 stays there (damage past 0 is lost)."""
        y = np.zeros_like(x)
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, 1)
        y[tuple(index)] = weight * x[tuple(index)]
        index[axis] = slice(1, None)
        self.add_into(y, x[tuple(index)], axis, weight)
        return y


def _trim(x: np.ndarray) -> tuple[np.ndarray, list[int], list[int]]:
    """``x`` cut to the bounding box of its non-zero entries, and that box's start and
    stop along each axis."""
    lo, hi = [], []
    for k in range(x.ndim):
        used = np.flatnonzero(x.any(axis=tuple(a for a in range(x.ndim) if a != k)))
        lo.append(int(used[0]) if used.size else 0)
        hi.append(int(used[-1]) + 1 if used.size else 0)
    return x[tuple(slice(a, b) for a, b in zip(lo, hi, strict=True))], lo, hi


def _pad(x: np.ndarray, axis: int) -> np.ndarray:
    """``x`` whose ``axis`` holds hit points ``1..hp``, extended to ``0..hp`` (zeros at 0)."""
    shape = list(x.shape)
    shape[axis] = 1
    return np.concatenate([np.zeros(shape), x], axis=axis)


class _Chain:
    """One order of turns' chain (or the simultaneous round), its tallies weighted by
    the order's probability into the shared sums."""

    def __init__(self, enc: Encounter) -> None:
        self.enc = enc
        people = enc.combatants
        self.n = len(people)
        self.hp = [c.hp for c in people]
        self.hits = {pair: _Hits.of(d, self.hp[pair[1]]) for pair, d in enc.pair_damage().items()}
        self.policy = [enc.a.targeting if i < enc.n_a else enc.b.targeting for i in range(self.n)]
        self._masks: dict[tuple[int, ...], dict[int, np.ndarray]] = {}

    # -- boxes --------------------------------------------------------------------
    def patterns(self, side: range) -> list[tuple[int, ...]]:
        """Every non-empty set of standing combatants of ``side``, as index tuples."""
        members = list(side)
        return [p for k in range(1, len(members) + 1) for p in itertools.combinations(members, k)]

    def box(self, side: range, pattern: tuple[int, ...], base: list[Any] | None = None) -> list[Any]:
        """The slices of the states where exactly ``pattern`` of ``side`` stands."""
        box = list(base) if base is not None else [slice(None)] * self.n
        for k in side:
            box[k] = slice(1, None) if k in pattern else slice(0, 1)
        return box

    def weakest_masks(self, pattern: tuple[int, ...]) -> dict[int, np.ndarray]:
        """``{target: mask}`` over the box of ``pattern``: where each standing enemy has
        the fewest hit points (ties in listed order), broadcastable to the box."""
        cached = self._masks.get(pattern)
        if cached is None:
            shape = [1] * self.n
            for k in pattern:
                shape[k] = self.hp[k]
            hps = []
            for k in pattern:
                s = [1] * self.n
                s[k] = self.hp[k]
                hps.append(np.broadcast_to(np.arange(1, self.hp[k] + 1).reshape(s), shape))
            pick = np.argmin(np.stack(hps), axis=0)  # the first minimum: listed order
            cached = self._masks[pattern] = {t: pick == i for i, t in enumerate(pattern)}
        return cached

    def targets(self, i: int, pattern: tuple[int, ...]) -> list[tuple[int, Any]]:
        """``[(target, weight)]`` of attacker ``i`` in the box where ``pattern`` of its
        enemies stands: a scalar weight, or a mask for ``weakest``."""
        policy = self.policy[i]
        if policy == "focus" or len(pattern) == 1:
            return [(pattern[0], 1.0)]
        if policy == "random":
            return [(t, 1.0 / len(pattern)) for t in pattern]
        return list(self.weakest_masks(pattern).items())


def _new_tallies(enc: Encounter, shape: tuple[int, ...]) -> dict[str, Any]:
    return {
        "wins": np.zeros(3),  # a_wins, b_wins, draw
        "rounds": np.zeros(enc.max_rounds + 1),  # decided in round r
        "final": np.zeros(shape),  # the mass absorbed, by hit points left
        "undecided": 0.0,
        "played": 0,
    }


def _absorb(t: dict[str, Any], p: np.ndarray, index: tuple[Any, ...], label: int, rnd: int) -> None:
    view = p[index]
    mass = float(view.sum())
    if mass > 0.0:
        t["final"][index] += view
        t["wins"][label] += mass
        t["rounds"][rnd] += mass
        view[...] = 0.0


def _sequential(chain: _Chain, order: tuple[int, ...], t: dict[str, Any]) -> None:
    """Play one order of turns round by round, tallying into ``t``."""
    enc, n = chain.enc, chain.n
    side_a, side_b = range(enc.n_a), range(enc.n_a, n)
    p = np.zeros(tuple(h + 1 for h in chain.hp))
    p[tuple(chain.hp)] = 1.0
    down = {
        0: tuple(0 if k in side_b else slice(None) for k in range(n)),  # b all down: a wins
        1: tuple(0 if k in side_a else slice(None) for k in range(n)),
    }
    for rnd in range(1, enc.max_rounds + 1):
        for i in order:
            enemies = side_b if i < enc.n_a else side_a
            for _ in range(enc.combatants[i].attacks):
                base = [slice(None)] * n
                base[i] = slice(1, None)  # the attacker stands
                taken = []
                for pattern in chain.patterns(enemies):
                    box = tuple(chain.box(enemies, pattern, base))
                    x = p[box]
                    if not x.any():
                        continue
                    taken.append((box, pattern, x.copy()))
                    x[...] = 0.0
                for box, pattern, x in taken:
                    for target, weight in chain.targets(i, pattern):
                        share = x if isinstance(weight, float) else x * weight  # weakest: a mask
                        w = weight if isinstance(weight, float) else 1.0
                        sub, lo, hi = _trim(share)
                        # the work is done over the mass's bounding box only: early on, and
                        # wherever damage skips hit points, most of a box is empty
                        out = []
                        for k, b in enumerate(box):
                            start = b.start or 0
                            out.append(
                                slice(0, start + hi[k])
                                if k == target
                                else slice(start + lo[k], start + hi[k])
                            )
                        chain.hits[(i, target)].add_into(p[tuple(out)], sub, target, w, low=1 + lo[target])
                _absorb(t, p, down[0 if i < enc.n_a else 1], 0 if i < enc.n_a else 1, rnd)
        t["played"] = rnd
        alive = float(p.sum())
        if rnd == enc.max_rounds or alive < STOP:
            if rnd == enc.max_rounds:
                t["final"] += p
                t["undecided"] = alive
            break


def _simultaneous(chain: _Chain, t: dict[str, Any]) -> None:
    """Play the simultaneous rounds, tallying into ``t``."""
    enc, n = chain.enc, chain.n
    sides = (range(enc.n_a), range(enc.n_a, n))
    p = np.zeros(tuple(h + 1 for h in chain.hp))
    p[tuple(chain.hp)] = 1.0

    def classes(s: int) -> list[tuple[tuple[int, ...], Any]]:
        # side s's boxes, split by the target the other side's weakest policy picks
        other_policy = chain.policy[sides[1 - s][0]]
        out = []
        for pattern in chain.patterns(sides[s]):
            if other_policy == "weakest" and len(pattern) > 1:
                out += [(pattern, (tgt, mask)) for tgt, mask in chain.weakest_masks(pattern).items()]
            else:
                out.append((pattern, None))
        return out

    a_classes, b_classes = classes(0), classes(1)
    b_down = tuple(0 if k in sides[1] else slice(None) for k in range(n))
    a_down = tuple(0 if k in sides[0] else slice(None) for k in range(n))
    both = tuple(slice(0, 1) for _ in range(n))
    for rnd in range(1, enc.max_rounds + 1):
        q = np.zeros_like(p)
        for (pa, ca), (pb, cb) in itertools.product(a_classes, b_classes):
            box = chain.box(sides[1], pb, chain.box(sides[0], pa))
            x = p[tuple(box)]
            if not x.any():
                continue
            for cls in (ca, cb):
                if cls is not None:
                    x = x * cls[1]
            hits = []  # every attack of the round: [(attacker, target, weight)] it may aim at
            for attackers, enemy_pattern, enemy_cls in ((pa, pb, cb), (pb, pa, ca)):
                for i in attackers:
                    if chain.policy[i] == "weakest" and enemy_cls is not None:
                        aims = [(i, enemy_cls[0], 1.0)]
                    elif chain.policy[i] == "random":
                        aims = [(i, e, 1.0 / len(enemy_pattern)) for e in enemy_pattern]
                    else:  # focus, or a single enemy standing
                        aims = [(i, enemy_pattern[0], 1.0)]
                    hits += [aims] * enc.combatants[i].attacks
            targeted = sorted({tgt for aims in hits for _, tgt, _ in aims})
            for tgt in targeted:
                x = _pad(x, tgt)
                box[tgt] = slice(None)
            for aims in hits:
                if len(aims) == 1:
                    i, tgt, _ = aims[0]
                    x = chain.hits[(i, tgt)].apply(x, tgt)
                else:
                    x = sum(chain.hits[(i, tgt)].apply(x, tgt, w) for i, tgt, w in aims)
            q[tuple(box)] += x
        p = q
        _absorb(t, p, both, 2, rnd)
        _absorb(t, p, b_down, 0, rnd)
        _absorb(t, p, a_down, 1, rnd)
        t["played"] = rnd
        alive = float(p.sum())
        if rnd == enc.max_rounds or alive < STOP:
            if rnd == enc.max_rounds:
                t["final"] += p
                t["undecided"] = alive
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
        ``mean_hp_left_<name>``, ``p_any_down_a``, ``p_any_down_b``. A chain of more
        than 10^6 states is refused with one line (simulate it instead).

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
    states, orders = state_count(enc)
    if states > STATE_LIMIT:
        n_orders = "" if enc.order != "rolled" else f", times {len(orders)}+ initiative orders"
        raise SpecError(
            "encounter",
            f"{states:.3g}+ states" if enc.order == "rolled" else f"{states} states",
            f"the exact chain is refused over {STATE_LIMIT:.0e} states (the product of every hp + 1"
            f"{n_orders}); simulate it (--trials N)",
        )
    chain = _Chain(enc)
    shape = tuple(h + 1 for h in chain.hp)
    total = _new_tallies(enc, shape)
    for order, weight in orders:
        t = _new_tallies(enc, shape)
        if enc.order == "simultaneous":
            _simultaneous(chain, t)
        else:
            _sequential(chain, order, t)
        for key in ("wins", "rounds", "final"):
            total[key] += weight * t[key]
        total["undecided"] += weight * t["undecided"]
        total["played"] = max(total["played"], t["played"])
    return _result(enc, total)


def _result(enc: Encounter, t: dict[str, Any]) -> EncounterResult:
    wins, undecided = t["wins"], t["undecided"]
    final = t["final"]
    represented = float(wins.sum()) + undecided
    cut = max(0.0, 1.0 - represented)
    decided = t["rounds"][1 : t["played"] + 1]
    rounds = decided.copy()
    rounds[-1] += undecided  # an undecided encounter played max_rounds rounds
    n = len(enc.combatants)
    distributions: dict[str, Dist] = {"rounds": Dist(1, rounds, cut)}
    metrics: dict[str, Any] = {}
    d_total = float(decided.sum())
    r = np.arange(1, decided.size + 1)
    metrics["mean_rounds"] = float(np.dot(r, decided) / d_total) if d_total > 0 else None
    for k, c in enumerate(enc.combatants):
        marginal = final.sum(axis=tuple(a for a in range(n) if a != k))
        distributions[f"hp_left_{c.name}"] = Dist(0, marginal, cut)
        metrics[f"p_down_{c.name}"] = float(marginal[0])
        metrics[f"mean_hp_left_{c.name}"] = float(np.dot(np.arange(c.hp + 1), marginal))
    for s, members in (("a", range(enc.n_a)), ("b", range(enc.n_a, n))):
        standing = tuple(slice(1, None) if k in members else slice(None) for k in range(n))
        metrics[f"p_any_down_{s}"] = max(0.0, represented - float(final[standing].sum()))
    probs = np.array([wins[0], wins[1], wins[2], undecided + cut])
    return EncounterResult(
        system="encounter",
        params={},
        labels=LABELS,
        probs=probs,
        distributions=distributions,
        metrics=metrics,
        encounter=enc,
    )


__all__ = ["EncounterResult", "LABELS", "STATE_LIMIT", "exact_encounter", "state_count"]
