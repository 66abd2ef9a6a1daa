"""The crits-cats kernel's vocabularies and arguments (:mod:`critlab.kernels.crits_cats`).

Defined apart from the jitted kernel so that the exact side reads them without
importing Numba; the kernel imports them from here.
"""

from __future__ import annotations

from collections import namedtuple

from critlab.kernels.lazy import KernelRef
from critlab.kernels.vocab import vocabulary, words

Outcome = vocabulary(
    "Outcome",
    "major_catastrophe minor_catastrophe failure success minor_critical major_critical",
    module=__name__,
)
Mode = vocabulary("Mode", "versus challenge spell", module=__name__)
Hist = vocabulary("Hist", "damage backlash resister", module=__name__)
AttackRoll = vocabulary("AttackRoll", "none damage backlash", module=__name__)
# any_<class>: casts where at least one resister got that class, in Outcome's order, so
# that ANY + class is its counter
Counter = vocabulary(
    "Counter",
    "damage_sum backlash_sum down " + " ".join(f"any_{w}" for w in words(Outcome)) + " affected",
    module=__name__,
)
ANY = int(Counter.ANY_MAJOR_CATASTROPHE)
N_CLASSES = len(Outcome)
PAIRS = 400  # pairs of naturals: index 20 * (first - 1) + (second - 1)

Args = namedtuple(
    "Args",
    "mode roll opposing_roll crit_lo cat_hi skill target opposing_skill transfer ties_initiator "
    "major_margin combat dmg_terms dmg_const dmg_max protection bl_terms bl_const "
    "attacker_protection minor_hit resisters resistance "
    "dmg_simple dmg_count dmg_sides dmg_explode bl_simple bl_count bl_sides bl_explode",
)
"""The kernel's arguments, built by :mod:`critlab.analysis.systems.crits_cats` from a spec:
``roll`` and ``opposing_roll`` are :data:`critlab.kernels.d20.RollMode` codes (the
initiator's, roller's or caster's, and the responder's or each resister's),
``crit_lo`` = 21 − crit_range, ``cat_hi`` = cat_range, ``dmg_max`` the damage maximum
floored at 0 (what a minor critical deals); ``dmg_*`` and ``bl_*`` after ``resistance``
are the damage and backlash dice's :func:`critlab.kernels.vocab.dice.plan`, their terms
None where both are simple (:func:`critlab.kernels.vocab.dice.simple_only`)."""

block = KernelRef("critlab.kernels.crits_cats")
"""The block kernel, by reference: Numba is imported where a simulation first runs it."""
