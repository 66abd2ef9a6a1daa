"""The sum of two independent integer variables: their probabilities convolved, exactly
where the dice allow it.

Small fair-dice distributions (counts over a common denominator) are convolved as
integer counts, so every probability is the float nearest its true fraction; larger
ones directly (exact pairwise sums) or, past a size, by FFT.
"""

from __future__ import annotations

import numpy as np

# Below this many output points np.convolve (exact pairwise sums) is as fast as FFT;
# above it FFT wins and its ~1e-16 relative rounding is far below every tolerance we use.
_DIRECT_CONVOLVE_LIMIT = 4096


# Distributions of at most this many points are tried as counts over a common
# denominator (a die's 1/6, two dice's 1/36): their sum's counts are exact integers, and
# each probability is then one division, the float nearest the true fraction (2d6's P(7)
# 0.16666666666666666 = 1/6, where summed products give 0.16666666666666669).
_COUNTED_LIMIT = 256
# Counts and their denominators stay exact integers in float64 under 2**53.
_COUNT_BOUND = 2.0**53


def _counts(p: np.ndarray) -> tuple[np.ndarray, int] | None:
    """``(counts, denominator)`` with ``counts / denominator == p`` exactly, each count
    an integer, the denominator ``1 / p.min()`` (a sum of fair dice: its least likely
    value is one way in all); None where ``p`` is no such fraction."""
    low = p.min()
    if low <= 0.0:  # a value in between that cannot come up
        low = p[p > 0].min(initial=0.0)
    if not low > 2.0**-26:
        return None
    k = round(1.0 / low)
    if not 0 < k < 2**26:
        return None
    counts = np.rint(p * k)
    return (counts, k) if np.array_equal(counts / k, p) else None


def _counted_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """The sum's probabilities as the floats nearest their exact fractions, where ``a``
    and ``b`` are small fractions over common denominators; else None."""
    if max(a.size, b.size) > _COUNTED_LIMIT:
        return None
    ca, cb = _counts(a), _counts(b)
    if ca is None or cb is None or float(ca[1]) * cb[1] * min(a.size, b.size) >= _COUNT_BOUND:
        return None
    return np.convolve(ca[0], cb[0]) / (ca[1] * cb[1])


def convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The probabilities of the sum of two independent variables whose probabilities are
    ``a`` and ``b`` (each from its least value on).

    >>> die = np.full(6, 1 / 6)
    >>> float(convolve(die, die)[5])  # P(2d6 = 7): the float nearest 1/6
    0.16666666666666666
    """
    if min(a.size, b.size) * max(a.size, b.size) <= _DIRECT_CONVOLVE_LIMIT * 16:
        counted = _counted_convolve(a, b)
        return np.convolve(a, b) if counted is None else counted
    # SciPy's FFT as scipy.signal.fftconvolve runs it (the same lengths, the same sums),
    # without importing scipy.signal: 1.3 s of every command that convolves a long
    # distribution (a first severity margin, say)
    from scipy import fft

    n = a.size + b.size - 1
    size = fft.next_fast_len(n, real=True)
    out = fft.irfft(fft.rfft(a, size) * fft.rfft(b, size), size)[:n]
    # FFT leaves tiny negative values where the true probability is 0.
    np.clip(out, 0.0, None, out=out)
    return out


__all__ = ["convolve"]
