"""The severity kernel's vocabularies, arguments and roll tables (:mod:`critlab.kernels.severity`).

Defined apart from the jitted kernel so that the exact side reads them without
importing Numba; the kernel imports them from here.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from critlab.kernels.lazy import KernelRef
from critlab.kernels.vocab import spelled, vocabulary

Mode = vocabulary("Mode", "lethal risky stable", module=__name__)
Hist = vocabulary("Hist", "margin", module=__name__)
Counter = vocabulary(
    "Counter",
    "attacker_explodes defender_explodes attacker_implodes defender_implodes explode_vs_implode "
    "success margin_sum",
    module=__name__,
)
NO_WOUND = "none"
# A roll's code in the table: its value times 4, plus these bits for a natural extreme.
MAXIMUM, MINIMUM = 1, 2

Args = namedtuple(
    "Args",
    "rolls attacker_skill defender_skill ties_attacker thresholds sm armor cap_before_armor chain_implosions",
)
"""The kernel's arguments, built by :mod:`critlab.analysis.systems.severity` from a spec:
``rolls`` is the mode's :func:`roll_table`, ``thresholds`` the ladder's MoV thresholds
(int64 arrays)."""


def wounds(levels: tuple[str, ...]):
    """The outcome vocabulary of a ladder: ``none`` (index 0), then its ``levels`` in
    order, so that a wound level's index is its position on the ladder."""
    return spelled("Wound", (NO_WOUND, *levels), module=__name__)


def roll_table(mode: int) -> np.ndarray:
    """The code of each outcome ``u`` of one roll's bounded draw in ``mode`` (a
    :data:`Mode`): ``value * 4`` plus :data:`MAXIMUM` / :data:`MINIMUM` on the mode's
    natural maximum / minimum (see the module docstring for why this is the same dice).

    >>> t = roll_table(Mode.STABLE)
    >>> t.size, int((t & MAXIMUM).sum()), int((t & MINIMUM).sum() // MINIMUM), int(t[0] >> 2)
    (1296, 21, 1, 3)
    >>> (roll_table(Mode.LETHAL) >> 2).tolist() == list(range(1, 21))
    True
    """
    if mode == Mode.LETHAL:
        values = np.arange(1, 21)
    else:
        count = 3 if mode == Mode.RISKY else 4
        u = np.arange(6**count)
        digits = np.stack([(u // 6**i) % 6 + 1 for i in range(count)])
        values = digits.sum(axis=0) - (digits.min(axis=0) if mode == Mode.STABLE else 0)
    codes = values * 4 + MAXIMUM * (values == values.max()) + MINIMUM * (values == values.min())
    return codes.astype(np.int64)


block = KernelRef("critlab.kernels.severity")
"""The block kernel, by reference: Numba is imported where a simulation first runs it."""
