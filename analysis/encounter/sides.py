"""One side's hit points as the exact chain holds them: the states the other side reaches.

An attack changes only its target's hit points, and a policy picks the target from the
target's side alone (``focus``: the first standing; ``weakest``: the fewest hit points
left, ties in listed order; ``random``: each standing one alike). So the chain's states
are pairs of one state of each side, and each side's states are found on their own: the
hit-point vectors the other side's attacks reach from the start (:class:`SideSpace`,
discovered breadth first). Under ``focus`` and ``weakest`` one combatant of a side is
hurt at a time (the target stays the target until it is down), so a side holds about
``sum(hp) + 1`` states however large the product of its ``hp + 1``; under ``random`` (or
when every target may be chosen, for ``best``) it holds about that product.

Each attacker's attack is a sparse matrix over the target side's states
(:meth:`SideSpace.attack`: ``dst x src``, the damage's exact distribution moved along the
target's hit points, damage past 0 lost), built once and applied every round; a
simultaneous round's attacks, all aimed from the round's start, are one matrix per
pattern of standing attackers (:meth:`SideSpace.round_of`).

A state is found by its key: the hit points in mixed radix (``hp + 1`` each), exact while
that product fits 62 bits, else a 64-bit hash whose every look-up is checked against the
hit points themselves.

>>> import numpy as np
>>> from critlab.analysis.dist import Dist
>>> hits = {(0, 0): Dist(0, [0.5, 0.5]), (0, 1): Dist(0, [0.5, 0.5])}   # one attacker, 0 or 1
>>> focus = SideSpace.discover(np.array([2, 2]), "focus", hits)
>>> focus.rows.tolist()          # the first is hurt, then the second
[[0, 0], [0, 1], [0, 2], [1, 2], [2, 2]]
>>> len(SideSpace.discover(np.array([2, 2]), "random", hits).rows)     # every pair
9
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critlab.analysis.dist import Dist

# Rows expanded at a time while discovering (bounds the memory of one step).
_CHUNK = 1 << 16
_HASH_SEED = 0x5EED_C0DE


class TooManyStates(Exception):
    """A side's discovery passed its cap; ``reached`` states were found by then."""

    def __init__(self, reached: int) -> None:
        super().__init__(reached)
        self.reached = reached


@dataclass(frozen=True)
class Hits:
    """One attacker's per-attack damage against one target of ``hp`` hit points, as the
    chain applies it: ``c[d]`` = P(damage = d) for ``d < hp + 1`` and ``c[hp + 1]`` =
    P(damage > hp); ``ge[h]`` = P(damage >= h). The damage's tail (an explosion cut by
    the exact dice engine) is not represented: it is cut."""

    hp: int
    c: np.ndarray
    ge: np.ndarray

    @classmethod
    def of(cls, damage: Dist, hp: int) -> Hits:
        vals = np.minimum(damage.values, hp + 1)
        c = np.bincount(vals, weights=damage.probs, minlength=hp + 2)
        return cls(hp, c, np.cumsum(c[::-1])[::-1])

    @property
    def miss(self) -> float:
        """P(damage = 0)."""
        return float(self.c[0])


def targets_of(rows: np.ndarray, policy: str) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """``[(member, row indices, weights)]``: which rows each member is the target in,
    under ``policy`` (``focus``, ``weakest``, ``random``, or ``every``: each standing
    member, weight 1, the choices ``best`` weighs). Rows with no one standing have none."""
    up = rows > 0
    m = rows.shape[1]
    alive = up.any(axis=1)
    out = []
    if policy in ("focus", "weakest"):
        if policy == "focus":
            pick = np.argmax(up, axis=1)
        else:
            pick = np.argmin(np.where(up, rows, np.iinfo(rows.dtype).max), axis=1)  # first minimum
        for t in range(m):
            idx = np.flatnonzero(alive & (pick == t))
            if idx.size:
                out.append((t, idx, np.ones(idx.size)))
        return out
    weight = 1.0 / np.maximum(up.sum(axis=1), 1) if policy == "random" else np.ones(rows.shape[0])
    for t in range(m):
        idx = np.flatnonzero(up[:, t])
        if idx.size:
            out.append((t, idx, weight[idx]))
    return out


@dataclass
class SideSpace:
    """The states of one side: ``rows`` (hit points left, one row per state, one column
    per member in listed order), sorted by ``keys``; ``down`` the index of the state with
    every member down (-1 if unreachable). Made by :meth:`discover`."""

    hp: np.ndarray
    rows: np.ndarray
    keys: np.ndarray
    mult: np.ndarray
    exact_keys: bool
    hits: Mapping[tuple[int, int], Hits]
    down: int = -1
    _standing: dict[int, np.ndarray] = field(default_factory=dict, repr=False)

    # -- keys -----------------------------------------------------------------------
    @staticmethod
    def _multipliers(hp: np.ndarray) -> tuple[np.ndarray, bool]:
        radix = [1]
        for h in hp[:-1]:
            radix.append(radix[-1] * (int(h) + 1))
        if radix[-1] * (int(hp[-1]) + 1) < 2**62:
            return np.array(radix, dtype=np.int64), True
        rng = np.random.default_rng(_HASH_SEED)  # a fixed hash: the same states, the same keys
        return rng.integers(1, 2**62, size=hp.size, dtype=np.int64) | 1, False

    def key(self, rows: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return rows.astype(np.int64) @ self.mult

    def find(self, keys: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """The indices of the states of ``keys`` (each known); with hashed keys the rows
        given are checked against the states found."""
        idx = np.searchsorted(self.keys, keys)
        if not self.exact_keys:
            if rows is None or not np.array_equal(self.rows[idx], rows):
                raise RuntimeError("encounter state hash collision")  # 2^-64 a pair: never seen
        return idx

    # -- discovery --------------------------------------------------------------------
    @classmethod
    def discover(
        cls,
        hp: np.ndarray,
        policy: str,
        damage: Mapping[tuple[int, int], Dist],
        cap: int | None = None,
    ) -> SideSpace:
        """Every state the attacks reach from full hit points ``hp`` when the attackers'
        side picks targets by ``policy`` (``every`` for all standing members).
        ``damage[(attacker, member)]`` is each attacker's per-attack damage against each
        member (attackers numbered as the caller likes). Past ``cap`` states,
        :class:`TooManyStates`."""
        hp = np.asarray(hp, dtype=np.int32)
        m = hp.size
        hits = {pair: Hits.of(d, int(hp[pair[1]])) for pair, d in damage.items()}
        # per member, every decrement some attacker can deal (a kill takes what is left)
        decs = []
        for t in range(m):
            dealt = np.zeros(int(hp[t]) + 2, dtype=bool)
            for (_, k), h in hits.items():
                if k == t:
                    dealt |= h.c > 0
            d = np.flatnonzero(dealt[1:]) + 1
            decs.append(np.minimum(d, int(hp[t])).astype(np.int32))
        mult, exact = cls._multipliers(hp)
        space = cls(hp, hp[None, :].copy(), np.zeros(1, dtype=np.int64), mult, exact, hits)
        space.keys = space.key(space.rows)
        if m == 1:  # no search: its hit points reached, from full down
            known_keys, known_rows = space._reached_one(decs[0])
            if cap is not None and known_keys.size > cap:
                raise TooManyStates(int(known_keys.size))
            frontier = known_rows[:0]
        else:
            frontier = space.rows
            known_keys, known_rows = space.keys, space.rows
        while frontier.shape[0]:
            found_keys, found_rows = [], []
            for lo in range(0, frontier.shape[0], _CHUNK):
                part = frontier[lo : lo + _CHUNK]
                for t, idx, _ in targets_of(part, policy):
                    src = part[idx]
                    d = decs[t]
                    reps = np.repeat(src, d.size, axis=0)
                    reps[:, t] = np.maximum(0, reps[:, t] - np.tile(d, idx.size))
                    found_rows.append(reps)
                    found_keys.append(space.key(reps))
            if not found_keys:
                break
            keys = np.concatenate(found_keys)
            rows = np.concatenate(found_rows)
            keys, first = np.unique(keys, return_index=True)
            rows = rows[first]
            pos = np.searchsorted(known_keys, keys)
            pos_c = np.minimum(pos, known_keys.size - 1)
            new = known_keys[pos_c] != keys
            if not exact:
                old = ~new
                if old.any() and not np.array_equal(known_rows[pos_c[old]], rows[old]):
                    raise RuntimeError("encounter state hash collision")
            keys, rows = keys[new], rows[new]
            all_keys = np.concatenate([known_keys, keys])
            order = np.argsort(all_keys, kind="stable")
            known_keys = all_keys[order]
            known_rows = np.concatenate([known_rows, rows])[order]
            if cap is not None and known_keys.size > cap:
                raise TooManyStates(int(known_keys.size))
            frontier = rows[rows.any(axis=1)]  # a side all down attacks no more
        space.keys, space.rows = known_keys, known_rows
        down = np.flatnonzero(~known_rows.any(axis=1))
        space.down = int(down[0]) if down.size else -1
        return space

    def _reached_one(self, decs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, rows)`` sorted by key, of a side of one member: the hit points the
        decrements ``decs`` reach from full, whatever the policy (its attackers have no
        one else to pick), each reached only from above. The breadth-first search spent
        a pass of array work on each of as many levels as there are hit points (a 2,000
        hp monster: a tenth of a second a side)."""
        hp = int(self.hp[0])
        reached = np.zeros(hp + 1, dtype=bool)
        reached[hp] = True
        for v in range(hp, 0, -1):
            if reached[v]:
                reached[np.maximum(0, v - decs)] = True
        rows = np.flatnonzero(reached).astype(np.int32)[:, None]
        keys = self.key(rows)
        order = np.argsort(keys, kind="stable")
        return keys[order], rows[order]

    # -- what the chain reads -------------------------------------------------------------
    def __len__(self) -> int:
        return self.rows.shape[0]

    @property
    def start(self) -> int:
        """The index of the state of full hit points."""
        return int(self.find(self.key(self.hp[None, :]), self.hp[None, :])[0])

    def standing(self, member: int) -> np.ndarray:
        """The indices of the states where ``member`` stands."""
        got = self._standing.get(member)
        if got is None:
            got = self._standing[member] = np.flatnonzero(self.rows[:, member] > 0)
        return got

    def _entries(
        self, attacker: int, t: int, src: np.ndarray, weight: np.ndarray, h: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(dst, src, prob)`` of one attack of ``attacker`` on member ``t`` from the
        states ``src`` (their member ``t`` at ``h``, default the states' own)."""
        hits = self.hits[(attacker, t)]
        h = self.rows[src, t] if h is None else h
        d = np.flatnonzero(hits.c[: int(self.hp[t])])  # damages that can leave it standing
        below = h[:, None] > d[None, :]
        si, di = np.nonzero(below)
        dec = np.concatenate([d[di], h])  # each standing damage, then the kill (all that is left)
        rows_src = np.concatenate([src[si], src])
        prob = np.concatenate([hits.c[d[di]] * weight[si], hits.ge[h] * weight])
        keep = prob > 0.0
        dec, rows_src, prob = dec[keep], rows_src[keep], prob[keep]
        dst_keys = self.keys[rows_src] - dec.astype(np.int64) * self.mult[t]
        rows = None
        if not self.exact_keys:
            rows = self.rows[rows_src].copy()
            rows[:, t] -= dec
        return self.find(dst_keys, rows), rows_src, prob

    def attack(self, attacker: int, policy: str, target: int | None = None) -> Any:
        """The sparse matrix (``dst x src``, CSR) of one attack of ``attacker`` on this
        side, its target picked by ``policy``; with ``target``, that member wherever it
        stands (a column of nothing where it is down). A state with no one standing has
        no column entries."""
        from scipy import sparse

        parts = []
        if target is not None:
            idx = self.standing(target)
            parts.append(self._entries(attacker, target, idx, np.ones(idx.size)))
        else:
            for t, idx, w in targets_of(self.rows, policy):
                parts.append(self._entries(attacker, t, idx, w))
        n = len(self)
        if not parts:
            return sparse.csr_matrix((n, n))
        dst, src, prob = (np.concatenate(x) for x in zip(*parts, strict=True))
        return sparse.csr_matrix((prob, (dst, src)), shape=(n, n))

    def round_of(self, attacks: Sequence[tuple[int, int]], policy: str) -> Any:
        """The sparse matrix (``dst x src``, CSR) of a simultaneous round's attacks on this
        side: ``attacks`` is ``[(attacker, attacks a turn)]`` of the attackers standing,
        every target picked by ``policy`` from the round's start (the source state), the
        damage summed and applied at its end (past 0 lost)."""
        from scipy import sparse

        n = len(self)
        live = np.flatnonzero(self.rows.any(axis=1))
        # the round so far: (source state, hit points now, probability)
        src, rows, prob = live, self.rows[live].copy(), np.ones(live.size)
        start = targets_of(self.rows[live], policy)
        for attacker, count in attacks:
            for _ in range(count):
                parts = []
                for t, idx, w in start:
                    # the rows of the round so far whose source picks t (weight w)
                    pick = np.zeros(n, dtype=bool)
                    pick[live[idx]] = True
                    wt = np.zeros(n)
                    wt[live[idx]] = w
                    sel = np.flatnonzero(pick[src])
                    if not sel.size:
                        continue
                    hits = self.hits[(attacker, t)]
                    d = np.flatnonzero(hits.c)  # every damage value, hp + 1 meaning more
                    s2 = np.repeat(sel, d.size)
                    dd = np.tile(d, sel.size)
                    r2 = rows[s2].copy()
                    r2[:, t] = np.maximum(0, r2[:, t] - dd)
                    parts.append((src[s2], r2, prob[s2] * wt[src[s2]] * hits.c[dd]))
                src, rows, prob = (np.concatenate(x) for x in zip(*parts, strict=True))
                src, rows, prob = self._merge(src, rows, prob)
        dst = self.find(self.key(rows), rows)
        return sparse.csr_matrix((prob, (dst, src)), shape=(n, n))

    def _merge(
        self, src: np.ndarray, rows: np.ndarray, prob: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Equal (source, hit points) entries summed."""
        keys = self.key(rows)
        order = np.lexsort((keys, src))
        s, k = src[order], keys[order]
        start = np.ones(s.size, dtype=bool)
        start[1:] = (s[1:] != s[:-1]) | (k[1:] != k[:-1])
        firsts = np.flatnonzero(start)
        group = np.cumsum(start) - 1
        merged = np.bincount(group, weights=prob[order])
        rows_o = rows[order]
        if not self.exact_keys and not np.array_equal(rows_o, rows_o[firsts][group]):
            raise RuntimeError("encounter state hash collision")
        return s[firsts], rows_o[firsts], merged

    def patterns(self) -> dict[tuple[int, ...], np.ndarray]:
        """``{standing members: state indices}`` over the states where someone stands."""
        up = self.rows > 0
        out: dict[tuple[int, ...], list[int]] = {}
        codes = up.astype(np.int64) @ (1 << np.arange(up.shape[1], dtype=np.int64))
        for code in np.unique(codes[codes > 0]):
            members = tuple(k for k in range(up.shape[1]) if code >> k & 1)
            out[members] = np.flatnonzero(codes == code)
        return out


def side_bound(hp: Sequence[int], policy: str) -> int:
    """An upper bound of a side's states from its hit points alone: ``sum(hp) + 1`` when
    one member is hurt at a time (``focus``, ``weakest``), else the product of ``hp + 1``.

    >>> side_bound([28, 22, 18, 14], "focus"), side_bound([8, 10, 12], "random")
    (83, 1287)
    """
    if policy in ("focus", "weakest"):
        return sum(hp) + 1
    out = 1
    for h in hp:
        out *= h + 1
    return out


__all__ = ["Hits", "SideSpace", "TooManyStates", "side_bound", "targets_of"]
