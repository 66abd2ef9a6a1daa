"""The thac0 kernel's vocabularies and argument tuples (:mod:`critlab.kernels.thac0`).

Defined apart from the jitted kernel so that the exact side reads them without
importing Numba; the kernel imports them from here.
"""

from __future__ import annotations

from collections import namedtuple

from critlab.kernels.lazy import KernelRef
from critlab.kernels.vocab import vocabulary

Outcome = vocabulary(
    "Outcome", "miss fumble fumble_reroll_hit hit natural20_reduced critical_hit", module=__name__
)
CritOption = vocabulary("CritOption", "double max severity", module=__name__)
Hist = vocabulary("Hist", "damage severity", module=__name__)
Counter = vocabulary("Counter", "damage_sum", module=__name__)
# A natural 1 whose -20 reroll decides between fumble and fumble_reroll_hit (never a label).
REROLL = len(Outcome)

Rules = namedtuple(
    "Rules",
    "roll need to_hit crit_threshold fumble_is_miss crit_option halvings dmg_min dmg_max "
    "dmg_simple dmg_count dmg_sides dmg_explode dmg_const "
    "sev_simple sev_count sev_sides sev_explode sev_const joint joint_totals",
)
"""The rules as scalars, built by :mod:`critlab.analysis.systems.thac0` from a spec:
``roll`` is the d20 roll mode (:data:`critlab.kernels.d20.RollMode`); ``halvings`` how
many times a natural 20 that falls more than 10 short halves its damage; the damage and
severity dice by their :func:`critlab.kernels.fast_dice.plan` and constant. Where
``joint`` is not 0 the damage dice (simple, not exploding) have that many ordered
outcomes, making ``joint_totals`` totals, the severity dice are simple (or unused), and
an attack draws one roll of the damage dice with its d20 as one draw
(:func:`critlab.kernels.joint.joint_plan`)."""

Args = namedtuple("Args", "rules dmg_terms sev_terms")
"""The kernel's arguments: the :class:`Rules` and the encoded damage and severity dice
(read only where an expression is not simple)."""

block = KernelRef("critlab.kernels.thac0")
"""The block kernel, by reference: Numba is imported where a simulation first runs it."""
