"""The d20 roll modes on the exact side: the kept die's distribution, and the one
declaration of the ``roll`` parameters shared by every d20 system.

Under advantage the kept d20 is ``2d20kh1``: P(natural = k) = (2k − 1) / 400; under
disadvantage ``2d20kl1``: (41 − 2k) / 400. A rule's enumeration over naturals weights
each natural by these probabilities, so the model stays exact.

>>> [round(float(p) * 400) for p in natural_probs("advantage")[[0, 19]]]
[1, 39]
>>> float(natural_probs("disadvantage")[19:].sum())   # a natural 20 needs both dice
0.0025
"""

from __future__ import annotations

from typing import Any

import numpy as np

from critlab.analysis.params import Choice, param
from critlab.kernels.vocab import words
from critlab.kernels.vocab.d20 import RollMode

ROLL_MODES = words(RollMode)
NATURALS = np.arange(1, 21)


def natural_probs(mode: str) -> np.ndarray:
    """P(natural = 1..20) of the kept d20 under roll mode ``mode`` (float64, exact
    multiples of 1/400; a normal roll gives exactly 1/20 each)."""
    if mode == "normal":
        return np.full(20, 1 / 20)
    if mode == "advantage":
        return (2 * NATURALS - 1) / 400
    if mode == "disadvantage":
        return (41 - 2 * NATURALS) / 400
    raise ValueError(f"roll mode must be one of {', '.join(ROLL_MODES)}, got {mode!r}")


def roll_code(mode: str) -> int:
    """The kernel's code of roll mode ``mode``."""
    return int(RollMode[mode.upper()])


def roll_param(who: str = "the roller", **options: Any) -> Any:
    """The declaration of a ``roll``-style parameter (default ``normal``)."""
    return param(
        "normal",
        Choice(*ROLL_MODES),
        f"{who}'s d20: normal (one die), advantage (two, keep the higher) or disadvantage "
        "(two, keep the lower); the kept die is the natural for every rule",
        **options,
    )
