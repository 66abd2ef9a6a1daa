"""The contest kernel's vocabularies and arguments (:mod:`critlab.kernels.contest`).

Defined apart from the jitted kernel so that the exact side reads them without
importing Numba; the kernel imports them from here.
"""

from __future__ import annotations

from collections import namedtuple

from critlab.kernels.lazy import KernelRef
from critlab.kernels.vocab import vocabulary

Kind = vocabulary("Kind", "quick resistance regular", module=__name__)
# The outcome labels of each kind, at the same three indices.
QuickOutcome = vocabulary("QuickOutcome", "a_wins b_wins tie", module=__name__)
ResistanceOutcome = vocabulary("ResistanceOutcome", "attack_failed resisted affected", module=__name__)
RegularOutcome = vocabulary("RegularOutcome", "a_wins b_wins undecided", module=__name__)
OUTCOMES = {Kind.QUICK: QuickOutcome, Kind.RESISTANCE: ResistanceOutcome, Kind.REGULAR: RegularOutcome}
Defender = vocabulary("Defender", "none a b", module=__name__)
# quick contests fill margin and degree, regular ones rounds, resistance rolls none
Hist = vocabulary("Hist", "margin degree rounds", module=__name__)
Counter = vocabulary(
    "Counter",
    "a_critical_success a_critical_failure b_critical_success b_critical_failure decided_rounds",
    module=__name__,
)
# The first roll's criticals of a trial, as bits of one flag word.
A_CRIT_SUCCESS, A_CRIT_FAILURE, B_CRIT_SUCCESS, B_CRIT_FAILURE = 1, 2, 4, 8

Args = namedtuple("Args", "kind a_skill b_skill criticals defender max_rounds")
"""The kernel's arguments, built by :mod:`critlab.analysis.systems.contest` from a spec
(``a_skill``, ``b_skill``: the values rolled against)."""

block = KernelRef("critlab.kernels.contest")
"""The block kernel, by reference: Numba is imported where a simulation first runs it."""
