"""An encounter's quantities and settings as a reader reads them: the words its model
declares (:meth:`critlab.analysis.encounter.model.EncounterModel.said`), which a report's
figures, tables, sentences and checks show.

>>> quantity_text("p_any_down_a"), quantity_text("a_wins+draw"), quantity_text("mean_hp_left_ogre")
('P(someone on side a goes down)', 'P(side a wins or a draw)', "ogre's mean hit points left")
>>> setting_text("ogre.hp"), setting_text("order"), setting_text("rogue.defense.evasion")
("ogre's hit points", 'turn order', "rogue's defense: evasion")
"""

from __future__ import annotations

from typing import Any

from critlab.analysis.params import axis_label

_LABEL_WORDS = {"a_wins": "side a wins", "b_wins": "side b wins", "draw": "a draw", "undecided": "undecided"}
_SETTING_WORDS = {
    "order": "turn order",
    "max_rounds": "rounds at most",
    "a.targeting": "side a's targeting",
    "b.targeting": "side b's targeting",
}
_OWN_WORDS = {"hp": "hit points", "attacks": "attacks a turn", "initiative": "initiative modifier"}


def quantity_text(q: str) -> str:
    """A quantity in words: probabilities as P(...), amounts by name."""
    parts = q.split("+")
    if all(p in _LABEL_WORDS for p in parts):
        return "P(" + " or ".join(_LABEL_WORDS[p] for p in parts) + ")"
    if q.startswith("p_any_down_"):
        return f"P(someone on side {q[-1]} goes down)"
    if q.startswith("p_down_"):
        return f"P({q.removeprefix('p_down_')} goes down)"
    if q.startswith("mean_hp_left_"):
        return f"{q.removeprefix('mean_hp_left_')}'s mean hit points left"
    if q == "mean_rounds":
        return "mean rounds (of decided encounters)"
    return q.replace("_", " ")


def is_probability(q: str) -> bool:
    return quantity_text(q).startswith("P(")


def setting_text(setting: str, enc: Any = None) -> str:
    """A setting in words: ``ogre.hp`` is "ogre's hit points"; an attack's parameter reads
    as its system declares it (``target_ac``: "target AC") when ``enc`` is given."""
    if setting in _SETTING_WORDS:
        return _SETTING_WORDS[setting]
    name, _, rest = setting.partition(".")
    if rest in _OWN_WORDS:
        return f"{name}'s {_OWN_WORDS[rest]}"
    param = rest.removeprefix("defense.")
    spec_cls = None
    if enc is not None:
        mine = [c for c in enc.combatants if c.name == name]
        if rest.startswith("defense.") and mine:  # the parameter of whoever attacks it
            side = mine[0] in enc.a.combatants
            attackers = [c for c in enc.combatants if (c in enc.a.combatants) != side]
        else:
            attackers = mine
        spec_cls = next((c.attack.system.spec for c in attackers if param in c.attack.names), None)
    said = axis_label(param, spec_cls)
    return f"{name}'s defense: {said}" if rest.startswith("defense.") else f"{name}'s {said}"


def said(name: str) -> str:
    """A setting or a quantity in words, whichever ``name`` is (a report's changes name both).

    >>> said("ogre.hp"), said("a_wins")
    ("ogre's hit points", 'P(side a wins)')
    """
    return setting_text(name) if name in _SETTING_WORDS or "." in name else quantity_text(name)


__all__ = ["is_probability", "quantity_text", "said", "setting_text"]
