"""Encounters: both sides fight back (see docs/rules.md, "Encounters").

:mod:`~critlab.analysis.encounter.declare` holds the declaration (combatants, sides, the
order of turns), :mod:`~critlab.analysis.encounter.load` reads it from TOML,
:mod:`~critlab.analysis.encounter.states` finds the states play reaches
(:mod:`~critlab.analysis.encounter.sides`, one side at a time),
:mod:`~critlab.analysis.encounter.exact` is the exact absorbing chain over them,
:mod:`~critlab.analysis.encounter.best` solves ``best`` targeting and
:mod:`~critlab.analysis.encounter.sim` is the simulation, one encounter a trial.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from critlab.analysis.encounter.declare import DEFAULT_ROUNDS, Attack, Combatant, Encounter, Side


def encounter(
    a: Side | Sequence[Combatant],
    b: Side | Sequence[Combatant],
    *,
    order: str = "rolled",
    max_rounds: int = DEFAULT_ROUNDS,
    a_targeting: str | None = None,
    b_targeting: str | None = None,
) -> Any:
    """The exact result of an encounter between sides ``a`` and ``b``.

    Parameters
    ----------
    a, b
        Each a :class:`Side` or a list of 1..10 :class:`Combatant` (built around any
        damage-dealing spec, or a system and its parameters).
    order
        ``a-first``, ``b-first``, ``rolled`` (default: 1d20 + initiative once) or
        ``simultaneous``.
    max_rounds
        Rounds at most, 1..10^4 (default 100); both sides still standing then is
        ``undecided``.
    a_targeting, b_targeting
        A side's policy (``focus``, ``weakest``, ``random``, or ``best`` for one side),
        replacing the Side's own (default ``focus``).

    Returns
    -------
    EncounterResult
        Labels ``a_wins``, ``b_wins``, ``draw``, ``undecided``; distributions ``rounds``
        and ``hp_left_<name>``; metrics ``mean_rounds``, ``p_down_<name>``,
        ``mean_hp_left_<name>``, ``p_any_down_a``, ``p_any_down_b``; its ``encounter`` is
        the declaration (simulate it with
        :func:`critlab.analysis.encounter.sim.simulate_encounter`).

    Examples
    --------
    >>> import critlab
    >>> thac0 = critlab.get_system("thac0")
    >>> hero = Combatant("hero", 20, thac0.make_spec(thac0=14, target_ac=5, damage="1d8+1"))
    >>> bite = thac0.make_spec(thac0=18, target_ac=4, damage="1d4")
    >>> wolves = [Combatant("wolf1", 6, bite), Combatant("wolf2", 6, bite)]
    >>> r = critlab.encounter([hero], wolves, order="a-first", b_targeting="random")
    >>> r.outcomes["a_wins"] > 0.5, r.encounter.b.targeting
    (True, 'random')
    """
    from critlab.analysis.encounter.exact import exact_encounter

    sides = []
    for side, targeting in ((a, a_targeting), (b, b_targeting)):
        if not isinstance(side, Side):
            side = Side(tuple(side) if isinstance(side, Sequence) and not isinstance(side, str) else side)
        if targeting is not None:
            side = Side(side.combatants, targeting=targeting)
        sides.append(side)
    return exact_encounter(Encounter(sides[0], sides[1], order=order, max_rounds=max_rounds))


__all__ = ["Attack", "Combatant", "Encounter", "Side", "encounter"]
