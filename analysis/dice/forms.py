"""Exact distributions of the notation's general forms: any faces, selectors, clamps and
explosion kinds, counts with botches, scale.

One die: a face from its faces (``d6``, ``dF``, ``d%``, ``d{1,1,2}``), rerolled (``rr``:
conditioned on missing the selector; ``ro``: a face meeting it replaced once), clamped
(``mi``/``ma``), then exploding: when the face meets the explosion's selector a chain of
plain rolls is added (``!``), each roll meeting it adding another; ``o`` allows one added
roll, ``!p`` adds each added roll minus 1. The chain ``C = B + A * C`` (``A``: a roll that
explodes again, ``B``: one that stops) is a linear recurrence over its values, solved by a
recursive filter up to the value beyond which less than the tail budget is left; ``x``
(each added roll a die of its own) sums like ``!`` and counts roll by roll.

>>> from critlab.analysis.dice.notation import parse
>>> round(term_dist(parse("1d6!p").terms[0], 1e-15).mean, 12)
4.0
>>> round(term_dist(parse("1d6!o").terms[0], 1e-15).mean * 12, 9)
49.0
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Protocol

import numpy as np

from critlab.analysis.dice.exact import keep_pool
from critlab.analysis.dice.order import counted_sum, counter, keep_members
from critlab.analysis.dist import Dist
from critlab.kernels.vocab.dice import DROP_HIGHEST, DROP_LOWEST

Sub = tuple[int, np.ndarray]  # a sub-probability over offset, offset + 1, ...


class GeneralTerm(Protocol):
    """What the general forms read of a parsed term (see
    :class:`critlab.analysis.dice.terms.DiceTerm`)."""

    sign: int
    count: int
    keep_mode: int
    keep: int
    exploding: bool
    reroll_mode: str
    reroll: tuple[int, int] | None
    clamp: tuple[int, int] | None
    explode_kind: str
    explode_once: bool
    count_kind: str
    count_range: tuple[int, int] | None
    botch: tuple[int, int] | None
    mul: int
    div: int

    @property
    def face_values(self) -> tuple[int, ...]: ...

    @property
    def explode(self) -> tuple[int, int] | None: ...

    @property
    def count_reach(self) -> int: ...


@lru_cache(maxsize=1024)
def faces_dist(values: tuple[int, ...]) -> Dist:
    """Each listed face equally likely (a repeated face counts twice); built once per
    list of faces (a Dist is immutable).

    >>> faces_dist((1, 1, 2)).to_dict()
    {1: 0.666..., 2: 0.333...}
    """
    lo = min(values)
    counts = np.bincount(np.asarray(values) - lo)
    return Dist(lo, counts / len(values))


def _split(d: Dist, lo: int, hi: int) -> tuple[Sub, Sub]:
    """``d``'s probabilities inside ``lo..hi`` and outside it."""
    v = d.values
    inside = (v >= lo) & (v <= hi)
    return (d.offset, np.where(inside, d.probs, 0.0)), (d.offset, np.where(inside, 0.0, d.probs))


def first_face(t: GeneralTerm) -> Dist:
    """The face a die is left with after its reroll and clamp."""
    d = faces_dist(t.face_values)
    if t.reroll is not None:
        (off, hit), (_, miss) = _split(d, *t.reroll)
        if t.reroll_mode == "rr":
            d = Dist(off, miss / miss.sum())
        else:
            d = Dist(off, miss + hit.sum() * d.probs)
    if t.clamp is not None:
        d = d.clip(lo=t.clamp[0], hi=t.clamp[1])
    return d


def chain(a: Sub, b: Sub, eps: float, reach: int) -> tuple[Dist, float]:
    """``C = B + A * C`` (``A``'s values >= 0): the sum of a chain of rolls, ``A`` the
    sub-probability of a roll that continues (by the value it adds), ``B`` of one that
    stops. Represented to at least ``reach`` and until less than ``eps`` is left beyond;
    returns ``(C, tail)``."""
    from scipy.signal import lfilter

    a_off, a_p = a
    b_off, b_p = b
    nz = np.flatnonzero(a_p)
    if nz.size and a_off + nz[0] < 0:
        raise ValueError("an explosion chain must not lower the total")
    a_full = np.zeros(a_off + a_p.size) if nz.size else np.zeros(1)
    if nz.size:
        a_full[a_off + nz[0] :] = a_p[nz[0] :]  # A over 0, 1, ...
    go = float(a_p.sum())
    depth = max(1, math.ceil(math.log(eps) / math.log(go))) if go > 0 else 0
    length = depth * max(a_full.size - 1, 1) + b_p.size + 1
    length = max(length, reach - b_off + 1)
    denom = np.concatenate([[1.0 - a_full[0]], -a_full[1:]])
    impulse = np.zeros(length)
    impulse[0] = 1.0
    y = lfilter(b_p, denom, impulse)
    np.clip(y, 0.0, None, out=y)
    tail = max(0.0, 1.0 - math.fsum(y))
    return Dist(b_off, y, tail), tail


def plain_rolls(t: GeneralTerm) -> tuple[Sub, Sub]:
    """A plain added roll's value split by whether it explodes again (``!p``: minus 1)."""
    d = faces_dist(t.face_values)
    if t.explode_kind == "!p":
        d = d - 1
    raw = faces_dist(t.face_values)
    (_, hit), (_, miss) = _split(raw, *t.explode)
    return (d.offset, hit), (d.offset, miss)


def _combine(parts: list[Sub], tail: float) -> Dist:
    """One distribution of sub-probabilities over different offsets."""
    parts = [(o, p) for o, p in parts if p.size and p.any()]
    if not parts:
        return Dist(0, [], max(tail, 1e-300))
    lo = min(o for o, _ in parts)
    out = np.zeros(max(o + p.size for o, p in parts) - lo)
    for o, p in parts:
        out[o - lo : o - lo + p.size] += p
    return Dist(lo, out, tail)


def die_total(t: GeneralTerm, eps: float, reach: int = 0) -> Dist:
    """One die's total: its face, plus its explosion's chain when the face meets it;
    represented at least up to ``reach``."""
    f = first_face(t)
    if not t.exploding:
        return f
    (f_off, f_hit), (_, f_miss) = _split(f, *t.explode)
    a, b = plain_rolls(t)
    if t.explode_once:
        c = Dist(a[0], a[1] + b[1])
    else:
        c, _ = chain(a, b, eps, reach - f.max)
    started = (f_off + c.offset, np.convolve(f_hit, c.probs))
    return _combine([(f_off, f_miss), started], float(f_hit.sum()) * c.tail)


def roll_weights(t: GeneralTerm, eps: float) -> Dist:
    """``x`` counted: one die's count over all its rolls (each roll a die of its own)."""
    w = counter(*t.count_range, t.botch)
    f = first_face(t)
    (f_off, f_hit), (_, f_miss) = _split(f, *t.explode)
    raw = faces_dist(t.face_values)
    (_, g_hit), (_, g_miss) = _split(raw, *t.explode)

    def by_weight(off: int, p: np.ndarray) -> np.ndarray:
        """Sub-probabilities of the weights -1, 0, 1 (at indices 0, 1, 2)."""
        idx = np.asarray(w(np.arange(off, off + p.size)), dtype=np.int64) + 1
        return np.bincount(idx, weights=p, minlength=3)

    go, stop = by_weight(raw.offset, g_hit), by_weight(raw.offset, g_miss)
    if t.explode_once:  # one added roll, whatever it shows
        c = Dist(-1, go + stop)
    else:
        # depth by depth: state[j] is d rolls that all exploded, their weights + 1 summing to j
        ends: dict[int, float] = {}
        state, depth = np.ones(1), 0
        while True:
            stopped = np.convolve(state, stop)
            for j in np.flatnonzero(stopped):
                v = int(j) - depth - 1
                ends[v] = ends.get(v, 0.0) + float(stopped[j])
            state = np.convolve(state, go)
            depth += 1
            if state.sum() < eps:
                break
        c = Dist.from_mapping(ends, tail=float(state.sum()))
    started = (c.offset - 1, np.convolve(by_weight(f_off, f_hit), c.probs))
    return _combine([(-1, by_weight(f_off, f_miss)), started], float(f_hit.sum()) * c.tail)


def x_keep(t: GeneralTerm, eps: float) -> Dist:
    """``x`` kept: the ``keep`` highest (lowest) of every roll of the term's dice, each
    added roll a die of its own, summed or counted.

    As for a group (:mod:`critlab.analysis.dice.order`), for each value ``t`` the K-th
    kept roll may show, a die's chain of rolls is walked roll by roll into the joint
    probability of (rolls beyond ``t``, fewer than K, and their weights' sum; rolls at
    ``t``, capped at K); the dice's chains are then combined. A chain cut off by the tail
    budget is in the result's tail."""
    w = counter(*t.count_range, t.botch) if t.count_kind else (lambda v: v)
    k, high = t.keep, t.keep_mode == 1
    first, plain = first_face(t), faces_dist(t.face_values)
    lo, hi = t.explode
    values = sorted(set(first.values.tolist()) | set(plain.values.tolist()))
    weights = {v: int(np.asarray(w(np.array([v])))[0]) for v in values}
    w_lo = min(min(weights.values()), 0)
    span = max(max(weights.values()), 0) - w_lo
    size = (k - 1) * span + 1
    out: dict[int, float] = {}
    for tv in values:
        # a chain's joint [a, b, s]: a < k rolls beyond tv (weights summed, offset
        # a * w_lo), b at tv (capped at k)
        def roll(state: np.ndarray, d: Dist, tv: int = tv) -> tuple[np.ndarray, np.ndarray]:
            go, stop = np.zeros_like(state), np.zeros_like(state)
            for v, p in zip(d.values.tolist(), d.probs.tolist(), strict=True):
                if p == 0.0:
                    continue
                if (v > tv) if high else (v < tv):
                    moved = np.zeros_like(state)
                    shift = weights[v] - w_lo
                    moved[1:, :, shift:] = state[:-1, :, : size - shift]
                elif v == tv:
                    moved = np.zeros_like(state)
                    moved[:, 1:] = state[:, :-1]
                    moved[:, k] += state[:, k]
                else:
                    moved = state
                (go if lo <= v <= hi else stop).__iadd__(p * moved)
            return go, stop

        state = np.zeros((k, k + 1, size))
        state[0, 0, 0] = 1.0
        going, done = roll(state, first)
        if t.explode_once:
            going, stopped = roll(going, plain)
            done += stopped + going  # the one added roll stands, whatever it shows
        else:
            while going.sum() >= eps:
                going, stopped = roll(going, plain)
                done += stopped
        total = np.zeros((k, k + 1, size))
        total[0, 0, 0] = 1.0
        for _ in range(t.count):
            total = _combine_chains(total, done, k, size)
        for a in range(k):
            vec = total[a, k - a :].sum(axis=0)
            for j in np.flatnonzero(vec):
                value = int(j) + a * w_lo + (k - a) * weights[tv]
                out[value] = out.get(value, 0.0) + float(vec[j])
    cut = 0.0 if t.explode_once else max(0.0, 1.0 - math.fsum(out.values()))
    return Dist.from_mapping(out, tail=cut)


def _combine_chains(x: np.ndarray, y: np.ndarray, k: int, size: int) -> np.ndarray:
    """Two independent joints (beyond < k, at capped at k, weights summed)."""
    out = np.zeros_like(x)
    for a1 in range(k):
        for b1 in range(k + 1):
            if not x[a1, b1].any():
                continue
            for a2 in range(k - a1):
                for b2 in range(k + 1):
                    if y[a2, b2].any():
                        conv = np.convolve(x[a1, b1], y[a2, b2])[:size]
                        out[a1 + a2, min(b1 + b2, k), : conv.size] += conv
    return out


def x_drop(t: GeneralTerm, eps: float) -> Dist:
    """``x`` dropped (``dl``/``dh``): every roll of the term's dice (each added roll a die
    of its own) but the ``keep`` lowest (highest), summed or counted.

    The number of rolls varies, so the kept ones are all those not dropped: for each value
    ``tv`` the K-th dropped roll may show, a die's chain of rolls is walked roll by roll
    into the joint probability of (rolls beyond ``tv`` on the dropped side, fewer than K;
    rolls at ``tv``, capped at K; the weights' sum of the rolls not beyond ``tv``, which
    grows with the chain); the dice's chains are combined, and the rolls at ``tv`` that
    are dropped (K less those beyond) are taken off the sum. A chain cut off by the tail
    budget is in the result's tail."""
    w = counter(*t.count_range, t.botch) if t.count_kind else (lambda v: v)
    k, low = t.keep, t.keep_mode == DROP_LOWEST
    first, plain = first_face(t), faces_dist(t.face_values)
    lo, hi = t.explode
    values = sorted(set(first.values.tolist()) | set(plain.values.tolist()))
    weights = {v: int(np.asarray(w(np.array([v])))[0]) for v in values}
    down, up = min(min(weights.values()), 0), max(max(weights.values()), 0)
    out: dict[int, float] = {}
    for tv in values:

        def roll(state: tuple[int, np.ndarray], d: Dist, tv: int = tv) -> tuple[tuple, tuple]:
            off, arr = state
            go = np.zeros(arr.shape[:2] + (arr.shape[2] + up - down,))
            stop = np.zeros_like(go)
            for v, p in zip(d.values.tolist(), d.probs.tolist(), strict=True):
                if p == 0.0:
                    continue
                target = go if lo <= v <= hi else stop
                if (v < tv) if low else (v > tv):  # dropped side: counted, not summed
                    target[1:, :, -down : -down + arr.shape[2]] += p * arr[:-1]
                    continue
                at = weights[v] - down
                moved = target[:, :, at : at + arr.shape[2]]
                if v == tv:
                    moved[:, 1:] += p * arr[:, :-1]
                    moved[:, k] += p * arr[:, k]
                else:
                    moved += p * arr
            return (off + down, go), (off + down, stop)

        start = np.zeros((k, k + 1, 1))
        start[0, 0, 0] = 1.0
        going, done = roll((0, start), first)
        if t.explode_once:
            going, stopped = roll(going, plain)
            done = _add(_add(done, stopped), going)  # the one added roll stands
        else:
            while going[1].sum() >= eps:
                going, stopped = roll(going, plain)
                done = _add(done, stopped)
        total = (0, start)
        for _ in range(t.count):
            total = _join_chains(total, done, k)
        off, arr = total
        for a in range(k):
            vec = arr[a, k - a :].sum(axis=0)
            for j in np.flatnonzero(vec):
                value = off + int(j) - (k - a) * weights[tv]
                out[value] = out.get(value, 0.0) + float(vec[j])
    cut = 0.0 if t.explode_once else max(0.0, 1.0 - math.fsum(out.values()))
    return Dist.from_mapping(out, tail=cut)


def _add(x: tuple[int, np.ndarray], y: tuple[int, np.ndarray]) -> tuple[int, np.ndarray]:
    """Two joints over sums at their own offsets, added."""
    lo = min(x[0], y[0])
    size = max(x[0] + x[1].shape[2], y[0] + y[1].shape[2]) - lo
    out = np.zeros(x[1].shape[:2] + (size,))
    for off, arr in (x, y):
        out[:, :, off - lo : off - lo + arr.shape[2]] += arr
    return lo, out


def _join_chains(x: tuple[int, np.ndarray], y: tuple[int, np.ndarray], k: int) -> tuple[int, np.ndarray]:
    """Two independent joints (beyond < k, at capped at k, sums convolved)."""
    (xo, xa), (yo, ya) = x, y
    out = np.zeros((k, k + 1, xa.shape[2] + ya.shape[2] - 1))
    for a1 in range(k):
        for b1 in range(k + 1):
            if not xa[a1, b1].any():
                continue
            for a2 in range(k - a1):
                for b2 in range(k + 1):
                    if ya[a2, b2].any():
                        out[a1 + a2, min(b1 + b2, k)] += np.convolve(xa[a1, b1], ya[a2, b2])
    return xo + yo, out


def term_dist(t: GeneralTerm, eps: float) -> Dist:
    """A general dice term's distribution (its sign and scale applied)."""
    counting = t.count_kind != ""
    if t.exploding and t.explode_kind == "x" and t.keep_mode in (DROP_LOWEST, DROP_HIGHEST):
        d = x_drop(t, eps)
    elif t.exploding and t.explode_kind == "x" and t.keep_mode != 0:
        d = x_keep(t, eps)
    elif counting and t.explode_kind == "x":
        one = roll_weights(t, eps)
        d = one.repeat(t.count)
    else:
        reach = t.count_reach if counting else 0
        die = die_total(t, eps, reach)
        if counting and t.keep_mode == 0:
            d = counted_sum(die, t.count_range, t.botch, t.count)
        elif counting:
            w = counter(*t.count_range, t.botch)
            d = keep_members([die] * t.count, t.keep, highest=t.keep_mode == 1, weight=w)
        elif t.keep_mode == 0:
            d = die.repeat(t.count)
        else:
            d = keep_pool(die, t.count, t.keep, t.keep_mode)
    return scaled(d, t.mul, t.div, t.sign)


def scaled(d: Dist, mul: int, div: int, sign: int) -> Dist:
    """``d`` times ``mul``, divided by ``div`` rounding down, then signed."""
    if mul != 1:
        d = d.scale(mul)
    if div != 1:
        d = d.map(lambda v: np.floor_divide(v, div))
    return d if sign > 0 else -d


__all__ = [
    "chain",
    "die_total",
    "faces_dist",
    "first_face",
    "roll_weights",
    "scaled",
    "term_dist",
    "x_drop",
    "x_keep",
]
