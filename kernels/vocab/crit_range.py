"""The crit-range kernel's vocabularies and argument tuples (:mod:`critlab.kernels.crit_range`).

Defined apart from the jitted kernel so that the exact side reads them without
importing Numba; the kernel imports them from here.
"""

from __future__ import annotations

from collections import namedtuple

from critlab.kernels.lazy import KernelRef
from critlab.kernels.vocab import vocabulary

# Both modes count under the same four indices: critfail, miss/failure, hit/success, crit.
AttackOutcome = vocabulary("AttackOutcome", "critfail miss hit crit", module=__name__)
TestOutcome = vocabulary("TestOutcome", "critfail failure success crit", module=__name__)
Mode = vocabulary("Mode", "attack test", module=__name__)
Hist = vocabulary("Hist", "damage crit_bonus attacks_to_break", module=__name__)
Counter = vocabulary("Counter", "damage_sum attacks_sum", module=__name__)
CRITFAIL, MISS, HIT, CRIT = (int(m) for m in AttackOutcome)

Rules = namedtuple(
    "Rules",
    "attack roll bonus target crit_from critfail_to "
    "dmg_simple dmg_count dmg_sides dmg_explode dmg_const "
    "crit_simple crit_count crit_sides crit_explode crit_const "
    "dt keep den x_max condition wear_num wear_den joint joint_totals",
)
"""The rules as scalars, built by :mod:`critlab.analysis.systems.crit_range` from a spec:
``roll`` is the d20 roll mode (:data:`critlab.kernels.d20.RollMode`), whose kept die is
the natural for every rule; ``bonus`` / ``target`` are attack_bonus / evasion (or bonus /
difficulty); naturals ``>= crit_from`` are CRITs and ``<= critfail_to`` CRITFAILs; the
damage and CRIT dice by their :func:`critlab.kernels.fast_dice.plan` and constant;
``keep / den`` is 1 − DR (see :func:`scale_floor`); a block records
``max(1, n * wear_num // wear_den)`` weapon lives of ``condition`` Condition (none when
``wear_num`` is 0; see :func:`block`). Where ``joint`` is not 0 the damage dice (simple,
not exploding) have that many ordered outcomes, making ``joint_totals`` totals, the CRIT
dice are simple, and an attack draws the damage dice with its d20 as one draw
(:func:`critlab.kernels.joint.joint_plan`)."""

Args = namedtuple("Args", "rules dmg_terms crit_terms")
"""The kernel's arguments: the :class:`Rules` and the encoded damage and CRIT dice (read
only where an expression is not simple)."""

block = KernelRef("critlab.kernels.crit_range")
"""The block kernel, by reference: Numba is imported where a simulation first runs it."""
