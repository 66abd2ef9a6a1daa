"""Encounters: both sides fight back (see docs/rules.md, "Encounters").

:mod:`~critlab.analysis.encounter.declare` holds the declaration (combatants, sides, the
order of turns), :mod:`~critlab.analysis.encounter.load` reads it from TOML,
:mod:`~critlab.analysis.encounter.exact` is the exact absorbing chain and
:mod:`~critlab.analysis.encounter.sim` the simulation, one encounter a trial.
"""

from critlab.analysis.encounter.declare import Attack, Combatant, Encounter, Side

__all__ = ["Attack", "Combatant", "Encounter", "Side"]
