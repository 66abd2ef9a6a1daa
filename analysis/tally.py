"""Simulation tallies: counts over outcome labels, numeric histograms with a ``tail``
bin, and named counters; frequencies, standard errors and Wilson intervals.

A :class:`Layout` fixes where each count lives in the flat int64 array that the block
kernels fill (see :mod:`critlab.kernels.bins`); :meth:`Layout.unpack` turns the summed array
back into a :class:`Tally`.

>>> lay = Layout(labels=("miss", "hit"), hists={"damage": (0, 3)}, counters=("sum",))
>>> lay.n_out   # 2 labels + 4 damage bins + tail + 1 counter
8
>>> t = lay.unpack([3, 1, 3, 0, 0, 1, 0, 4], trials=4, seed=7)
>>> t.frequencies.tolist(), t.hists["damage"].frequencies(4)
([0.75, 0.25], {0: 0.75, 3: 0.25})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas and scipy are imported where used: start-up stays fast
    import pandas as pd


@dataclass(frozen=True)
class Layout:
    """Where labels, histogram bins (``lo..hi`` plus a tail bin) and counters sit."""

    labels: tuple[str, ...]
    hists: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    counters: tuple[str, ...] = ()

    @property
    def n_out(self) -> int:
        return len(self.labels) + sum(hi - lo + 2 for lo, hi in self.hists.values()) + len(self.counters)

    @property
    def array(self) -> np.ndarray:
        """The int64 layout array the kernels read (see :mod:`critlab.kernels.bins`)."""
        head = [len(self.labels), len(self.hists)]
        start = len(self.labels)
        for lo, hi in self.hists.values():
            head += [start, lo, hi - lo + 1]
            start += hi - lo + 2
        head.append(start)
        return np.array(head, dtype=np.int64)

    def unpack(self, counts: Sequence[int] | np.ndarray, *, trials: int, seed: int) -> Tally:
        counts = np.asarray(counts, dtype=np.int64)
        if counts.size != self.n_out:
            raise ValueError(f"tally has {counts.size} counts, layout expects {self.n_out}")
        n = len(self.labels)
        hists, pos = {}, n
        for name, (lo, hi) in self.hists.items():
            width = hi - lo + 1
            hists[name] = Hist(lo, counts[pos : pos + width].copy(), int(counts[pos + width]))
            pos += width + 1
        counters = {c: int(counts[pos + i]) for i, c in enumerate(self.counters)}
        return Tally(self.labels, counts[:n].copy(), hists, counters, int(trials), int(seed))


@dataclass(frozen=True)
class Hist:
    """Counts of ``offset, offset + 1, ...`` and of values outside that range (``tail``)."""

    offset: int
    counts: np.ndarray
    tail: int

    @property
    def values(self) -> np.ndarray:
        return np.arange(self.offset, self.offset + self.counts.size, dtype=np.int64)

    @property
    def total(self) -> int:
        return int(self.counts.sum()) + self.tail

    def frequencies(self, trials: int, *, tail: bool = False) -> dict:
        """``{value: frequency}`` for non-empty bins, plus ``"tail"`` when asked."""
        out: dict = {int(v): float(c / trials) for v, c in zip(self.values, self.counts, strict=True) if c}
        if tail:
            out["tail"] = float(self.tail / trials)
        return out

    def mean(self) -> float:
        """Mean of the binned values (tail values, if any, are not known and left out)."""
        n = int(self.counts.sum())
        return float(np.dot(self.values, self.counts) / n) if n else float("nan")


@dataclass(frozen=True)
class Tally:
    """Simulated counts over a spec's outcome labels, with histograms and counters."""

    labels: tuple[str, ...]
    counts: np.ndarray
    hists: Mapping[str, Hist]
    counters: Mapping[str, int]
    trials: int
    seed: int

    @property
    def frequencies(self) -> np.ndarray:
        return self.counts / self.trials

    @property
    def standard_errors(self) -> np.ndarray:
        """Binomial standard error of each label's frequency, ``sqrt(p (1 - p) / n)``."""
        p = self.frequencies
        return np.sqrt(p * (1 - p) / self.trials)

    def wilson(self, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Wilson score intervals (lower, upper) for each label's probability; unlike
        ``p ± z·se`` they stay inside [0, 1] and are honest for rare outcomes."""
        from scipy import stats

        z = stats.norm.ppf(0.5 + confidence / 2)
        n, p = self.trials, self.frequencies
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)

    def to_frame(self, confidence: float = 0.95) -> pd.DataFrame:
        """A tidy DataFrame: one row per outcome label with count, frequency, se and interval."""
        lo, hi = self.wilson(confidence)
        import pandas as pd

        return pd.DataFrame(
            {
                "outcome": list(self.labels),
                "count": self.counts,
                "frequency": self.frequencies,
                "se": self.standard_errors,
                "wilson_lo": lo,
                "wilson_hi": hi,
            }
        )

    def __add__(self, other: Tally) -> Tally:
        """Merge two tallies of the same layout (e.g. two runs with different seeds)."""
        if self.labels != other.labels or list(self.hists) != list(other.hists):
            raise ValueError("only tallies of the same layout can be merged")
        hists = {
            k: Hist(h.offset, h.counts + other.hists[k].counts, h.tail + other.hists[k].tail)
            for k, h in self.hists.items()
        }
        counters = {k: v + other.counters[k] for k, v in self.counters.items()}
        return Tally(
            self.labels, self.counts + other.counts, hists, counters, self.trials + other.trials, self.seed
        )
