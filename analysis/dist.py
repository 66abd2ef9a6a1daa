"""The exact currency of critlab: a probability distribution over integers.

A :class:`Dist` is an ``offset`` plus a float64 probability vector, so that
``P(X = offset + i) = probs[i]``, and an explicit ``tail``: the probability of the
outcomes that were not represented because an unbounded mechanic (an exploding die,
a contest that can last forever) was cut off once what remained was below
:data:`TAIL_EPS`. ``probs.sum() + tail == 1`` always holds (to rounding), so the mass
cut off is visible to every consumer instead of silently dropped.

>>> d6 = Dist.die(6)
>>> (d6 + d6).pmf(7)  # the float nearest 1/6: no rounding noise on small dice
0.16666666666666666
>>> two_d6 = d6.repeat(2)
>>> two_d6.mean, two_d6.min, two_d6.max
(7.0, 2, 12)
>>> (d6 - d6).prob_gt(0)
0.4166...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from math import fsum
from typing import TYPE_CHECKING, Any

import numpy as np

from critlab.analysis.convolution import convolve as _convolve

if TYPE_CHECKING:  # pandas and scipy are imported where used: start-up stays fast
    import pandas as pd

# Mass below which an unbounded chain (one exploding die, one contest) is cut off into
# the tail. A mechanic combines at most a few dozen such chains, so the total tail stays
# under the 1e-12 that docs/rules.md promises.
TAIL_EPS = 1e-14


def _sum_of(x: tuple[int, np.ndarray, float], y: tuple[int, np.ndarray, float]) -> tuple:
    """``(offset, probs, tail)`` of the sum of two independent variables (as ``Dist.__add__``)."""
    return x[0] + y[0], _convolve(x[1], y[1]), x[2] + y[2] - x[2] * y[2]


class Dist:
    """A distribution over integers with an explicit unrepresented ``tail`` mass.

    Parameters
    ----------
    offset
        The value of ``probs[0]``.
    probs
        Probabilities of ``offset, offset + 1, ...``; zero entries at both ends are trimmed.
    tail
        Probability of outcomes not represented in ``probs`` (cut-off unbounded chains).

    Examples
    --------
    >>> d = Dist(3, [0.25, 0.5, 0.25])
    >>> d.values.tolist(), d.mean
    ([3, 4, 5], 4.0)
    >>> d.to_dict()
    {3: 0.25, 4: 0.5, 5: 0.25}
    """

    __slots__ = ("offset", "probs", "tail")

    def __init__(self, offset: int, probs: Sequence[float] | np.ndarray, tail: float = 0.0) -> None:
        p = np.asarray(probs, dtype=np.float64)
        if p.ndim != 1:
            raise ValueError("probs must be one-dimensional")
        # one pass each way: a NaN makes both comparisons false, an infinity the second
        if p.size and not (p.min() >= 0.0 and p.max() < np.inf):
            raise ValueError("probabilities must be finite and non-negative")
        if not (p.size and p[0] != 0.0 and p[-1] != 0.0):
            nz = np.flatnonzero(p)
            if nz.size == 0:
                if tail <= 0:
                    raise ValueError("a distribution needs some probability mass")
                p, offset = np.zeros(0), 0
            else:
                offset, p = int(offset) + int(nz[0]), p[nz[0] : nz[-1] + 1]
        self.offset = int(offset)
        self.probs = p = p[:]  # a view: the caller's array stays writable
        p.setflags(write=False)
        self.tail = float(max(tail, 0.0))

    @classmethod
    def _of(cls, offset: int, p: np.ndarray, tail: float) -> Dist:
        """Made by arithmetic on distributions (``p`` finite, non-negative): not checked again."""
        if not (p.size and p[0] != 0.0 and p[-1] != 0.0):
            return cls(offset, p, tail)  # trimmed (or refused) the usual way
        d = object.__new__(cls)
        d.offset = offset
        d.probs = p = p[:]
        p.setflags(write=False)
        d.tail = tail if tail > 0.0 else 0.0
        return d

    # -- construction -------------------------------------------------------------
    @classmethod
    def point(cls, value: int) -> Dist:
        """The constant ``value``.

        >>> Dist.point(3).to_dict()
        {3: 1.0}
        """
        return cls(value, [1.0])

    @classmethod
    def uniform(cls, lo: int, hi: int) -> Dist:
        """Uniform over the integers ``lo..hi`` inclusive."""
        if hi < lo:
            raise ValueError(f"uniform needs lo <= hi, got {lo}..{hi}")
        n = hi - lo + 1
        return cls(lo, np.full(n, 1.0 / n))

    @classmethod
    def die(cls, sides: int) -> Dist:
        """A fair die with faces ``1..sides``.

        >>> Dist.die(4).to_dict()
        {1: 0.25, 2: 0.25, 3: 0.25, 4: 0.25}
        """
        if sides < 1:
            raise ValueError(f"a die needs at least 1 side, got {sides}")
        return _die(int(sides))

    @classmethod
    def from_mapping(cls, mapping: Mapping[int, float], tail: float = 0.0) -> Dist:
        """Build from ``{value: probability}`` (values need not be contiguous)."""
        if not mapping:
            return cls(0, [], tail)
        lo, hi = min(mapping), max(mapping)
        p = np.zeros(hi - lo + 1)
        for v, q in mapping.items():
            p[v - lo] += q
        return cls(lo, p, tail)

    @staticmethod
    def mixture(weights: Iterable[float], dists: Iterable[Dist]) -> Dist:
        """The mixture ``sum(w_i * D_i)``; weights must be non-negative.

        >>> Dist.mixture([0.5, 0.5], [Dist.point(0), Dist.point(2)]).to_dict()
        {0: 0.5, 2: 0.5}
        """
        pairs = [(float(w), d) for w, d in zip(weights, dists, strict=True)]
        if any(not np.isfinite(w) or w < 0 for w, _ in pairs):
            raise ValueError(f"mixture weights must be finite and non-negative, got {[w for w, _ in pairs]}")
        pairs = [(w, d) for w, d in pairs if w > 0]
        if not pairs:
            raise ValueError("a mixture needs a positive weight")
        lo = min(d.offset for _, d in pairs if d.probs.size) if any(d.probs.size for _, d in pairs) else 0
        hi = max((d.max for _, d in pairs if d.probs.size), default=lo)
        out = np.zeros(hi - lo + 1)
        tail = 0.0
        for w, d in pairs:
            if d.probs.size:
                out[d.offset - lo : d.offset - lo + d.probs.size] += w * d.probs
            tail += w * d.tail
        return Dist(lo, out, tail)

    # -- basic properties ---------------------------------------------------------
    @property
    def values(self) -> np.ndarray:
        """The represented values, ``offset .. offset + len(probs) - 1``."""
        return np.arange(self.offset, self.offset + self.probs.size, dtype=np.int64)

    @property
    def min(self) -> int:
        """Smallest represented value."""
        return self.offset

    @property
    def max(self) -> int:
        """Largest represented value (an unbounded variable continues into ``tail``)."""
        return self.offset + self.probs.size - 1

    @property
    def mass(self) -> float:
        """Represented probability, ``1 - tail``."""
        return fsum(self.probs.tolist())

    @property
    def mean(self) -> float:
        """Mean over the represented values (the tail, < 1e-12, is left out)."""
        # compensated sums: a result that should be round is (no SIMD-width rounding)
        return fsum((self.values * self.probs).tolist())

    @property
    def var(self) -> float:
        """Variance over the represented values."""
        centred = self.values - self.mean
        return fsum((centred * centred * self.probs).tolist())

    @property
    def sd(self) -> float:
        """Standard deviation."""
        return float(np.sqrt(self.var))

    def pmf(self, value: int) -> float:
        """``P(X == value)``."""
        i = value - self.offset
        return float(self.probs[i]) if 0 <= i < self.probs.size else 0.0

    def cdf(self, value: int) -> float:
        """``P(X <= value)`` over the represented mass."""
        i = value - self.offset
        if i < 0:
            return 0.0
        return fsum(self.probs[: i + 1].tolist())

    def sf(self, value: int) -> float:
        """``P(X > value)``, the tail included (it lies above every represented value)."""
        i = max(value + 1 - self.offset, 0)
        return fsum(self.probs[i:].tolist()) + self.tail

    def quantile(self, q: float) -> int:
        """The smallest value ``v`` with ``P(X <= v) >= q``.

        >>> Dist.die(6).quantile(0.5)
        3
        """
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"quantile q must be in [0, 1], got {q}")
        c = np.cumsum(self.probs)
        i = int(np.searchsorted(c, q - 1e-15, side="left"))
        return self.offset + min(i, self.probs.size - 1)

    # -- arithmetic ---------------------------------------------------------------
    def __add__(self, other: Dist | int) -> Dist:
        if isinstance(other, (int, np.integer)):
            return Dist._of(self.offset + int(other), self.probs, self.tail)
        if not isinstance(other, Dist):
            return NotImplemented
        if not self.probs.size or not other.probs.size:
            return Dist(0, [], 1.0)
        # a certain constant shifts the other: the same doubles as convolving with [1.0]
        if other.probs.size == 1 and other.probs[0] == 1.0 and not other.tail:
            return Dist._of(self.offset + other.offset, self.probs, self.tail)
        if self.probs.size == 1 and self.probs[0] == 1.0 and not self.tail:
            return Dist._of(self.offset + other.offset, other.probs, other.tail)
        tail = self.tail + other.tail - self.tail * other.tail
        return Dist._of(self.offset + other.offset, _convolve(self.probs, other.probs), tail)

    __radd__ = __add__

    def __neg__(self) -> Dist:
        return Dist._of(-self.max, self.probs[::-1], self.tail)

    def __sub__(self, other: Dist | int) -> Dist:
        if isinstance(other, (int, np.integer)):
            return self + (-int(other))
        if not isinstance(other, Dist):
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other: int) -> Dist:
        return (-self) + other

    def scale(self, k: int) -> Dist:
        """The variable ``k * X`` for an integer ``k``.

        >>> Dist.die(3).scale(2).to_dict()
        {2: 0.333..., 4: 0.333..., 6: 0.333...}
        """
        k = int(k)
        if k == 0:
            return Dist(0, [self.mass], self.tail)
        if k < 0:
            return (-self).scale(-k)
        out = np.zeros((self.probs.size - 1) * k + 1)
        out[::k] = self.probs
        return Dist(self.offset * k, out, self.tail)

    def repeat(self, n: int) -> Dist:
        """The sum of ``n`` independent copies (``n >= 0``), by repeated squaring.

        >>> Dist.die(6).repeat(3).pmf(3) * 216
        1.0...
        """
        if n < 0:
            raise ValueError(f"repeat needs n >= 0, got {n}")
        if not self.probs.size or n <= 1:
            return Dist(0, [], 1.0) if n and not self.probs.size else self if n else Dist.point(0)
        # the squarings of ``self + self`` on the arrays themselves (the same products and
        # sums as adding Dists, without building one at every step)
        result: tuple[int, np.ndarray, float] | None = None
        base = (self.offset, self.probs, self.tail)
        while n:
            if n & 1:
                result = base if result is None else _sum_of(result, base)
            n >>= 1
            if n:
                base = _sum_of(base, base)
        return Dist._of(*result)

    def map(self, f: Callable[[np.ndarray], np.ndarray]) -> Dist:
        """The distribution of ``f(X)`` for a vectorised integer function ``f``.

        >>> Dist.die(6).map(lambda v: v // 2).to_dict()
        {0: 0.166..., 1: 0.333..., 2: 0.333..., 3: 0.166...}
        """
        if not self.probs.size:
            return Dist(0, [], self.tail)
        mapped = np.asarray(f(self.values), dtype=np.int64)
        lo = int(mapped.min())
        out = np.bincount(mapped - lo, weights=self.probs)
        return Dist._of(lo, out, self.tail)

    def clip(self, lo: int | None = None, hi: int | None = None) -> Dist:
        """``min(max(X, lo), hi)``: e.g. damage floored at 0 is ``d.clip(lo=0)``."""
        return self.map(lambda v: np.clip(v, lo, hi))

    def maximum(self, other: Dist) -> Dist:
        """The larger of two independent variables."""
        lo = max(self.min, other.min)
        hi = max(self.max, other.max)
        grid = np.arange(lo, hi + 1)
        cdf = np.array([self.cdf(v) * other.cdf(v) for v in grid])
        probs = np.diff(np.concatenate([[0.0], cdf]))
        tail = self.tail + other.tail - self.tail * other.tail
        return Dist(lo, np.clip(probs, 0, None), tail)

    def minimum(self, other: Dist) -> Dist:
        """The smaller of two independent variables."""
        return -((-self).maximum(-other))

    # -- comparisons (of independent variables) -----------------------------------
    def _diff(self, other: Dist | int) -> Dist:
        return self - other

    def prob_gt(self, other: Dist | int) -> float:
        """``P(X > Y)`` for an independent ``Y`` (or a constant)."""
        return self._diff(other).sf(0) - self._diff(other).tail

    def prob_ge(self, other: Dist | int) -> float:
        """``P(X >= Y)``."""
        return self._diff(other).sf(-1) - self._diff(other).tail

    def prob_eq(self, other: Dist | int) -> float:
        """``P(X == Y)``."""
        return self._diff(other).pmf(0)

    def prob_lt(self, other: Dist | int) -> float:
        """``P(X < Y)``."""
        return self._diff(other).cdf(-1)

    def prob_le(self, other: Dist | int) -> float:
        """``P(X <= Y)``."""
        return self._diff(other).cdf(0)

    # -- conversion ---------------------------------------------------------------
    def to_dict(self, *, tail: bool = False) -> dict:
        """``{value: probability}`` over the represented support; with ``tail=True`` a
        ``"tail"`` key is added (the shape of the command line's JSON)."""
        out: dict = {int(v): float(p) for v, p in zip(self.values, self.probs, strict=True) if p > 0}
        if tail:
            out["tail"] = float(self.tail)
        return out

    def to_series(self, name: str | None = None) -> pd.Series:
        """A pandas Series indexed by value; the tail mass is kept in ``series.attrs["tail"]``."""
        import pandas as pd

        s = pd.Series(self.probs, index=pd.Index(self.values, name="value"), name=name)
        s.attrs["tail"] = self.tail
        return s

    def allclose(self, other: Dist, atol: float = 1e-12) -> bool:
        """Whether two distributions agree value by value (and in tail) within ``atol``."""
        lo, hi = min(self.min, other.min), max(self.max, other.max)
        a = np.array([self.pmf(v) for v in range(lo, hi + 1)])
        b = np.array([other.pmf(v) for v in range(lo, hi + 1)])
        return bool(np.all(np.abs(a - b) <= atol) and abs(self.tail - other.tail) <= atol)

    def _repr_html_(self) -> str:
        """In a notebook: a table of percentages, ``P(= v)``, ``P(>= v)`` and ``P(<= v)``
        (see :mod:`critlab.analysis.display.dist`)."""
        from critlab.analysis.display.dist import dist_html

        return dist_html(self)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """``P(X = v)`` as bars in percent on ``ax`` (a new figure without one), in the
        project's style; returns the matplotlib Axes. ``label`` and ``color`` as keywords.

        >>> ax = Dist.die(6).plot()
        >>> len(ax.patches), ax.get_ylabel()
        (6, 'P(X = v), %')
        """
        from critlab.analysis.display.dist import plot_dist

        return plot_dist(self, ax=ax, **kwargs)

    def __repr__(self) -> str:
        body = ", ".join(f"{v}: {p:.6g}" for v, p in list(self.to_dict().items())[:8])
        more = ", ..." if self.probs.size > 8 else ""
        tail = f", tail={self.tail:.3g}" if self.tail else ""
        return f"Dist({{{body}{more}}}{tail})"


_die = lru_cache(maxsize=1024)(lambda sides: Dist.uniform(1, sides))  # a Dist is immutable: built once


def explode(roll: Dist, *, on: int | None = None, eps: float = TAIL_EPS) -> Dist:
    """An exploding roll: whenever ``roll`` shows ``on`` (default its maximum), roll
    again and add, without limit. Exact up to a tail of mass below ``eps``.

    A chain of ``k`` explosions followed by a non-exploding ``r`` has value
    ``k * on + r`` and probability ``q**k * P(r)``, ``q = P(roll == on)``.

    >>> d = explode(Dist.die(6))
    >>> round(d.mean, 9)        # 3.5 * 6/5
    4.2
    >>> d.pmf(10) * 36          # 6 then 4
    1.0...
    """
    on = roll.max if on is None else on
    q = roll.pmf(on)
    if q >= 1.0:
        raise ValueError("a roll that always explodes never stops")
    if q == 0.0:
        return roll
    rest = Dist(roll.offset, np.where(roll.values == on, 0.0, roll.probs), roll.tail)
    # Number of whole chains kept: stop once q**(k+1) < eps.
    k_max = max(0, int(np.ceil(np.log(eps) / np.log(q))) - 1)
    while q ** (k_max + 1) >= eps:
        k_max += 1
    lo = min(rest.min, rest.min + k_max * on)
    out = np.zeros(max(rest.max, rest.max + k_max * on) - lo + 1)
    for k in range(k_max + 1):
        start = rest.offset + k * on - lo
        out[start : start + rest.probs.size] += q**k * rest.probs
    return Dist(lo, out, q ** (k_max + 1) + rest.tail)
