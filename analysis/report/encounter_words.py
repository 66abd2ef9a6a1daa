"""An encounter's quantities and settings as a reader reads them (figures, tables, checks).

>>> quantity_text("p_any_down_a"), quantity_text("a_wins+draw"), quantity_text("mean_hp_left_ogre")
('P(someone on side a goes down)', 'P(side a wins or a draw)', "ogre's mean hit points left")
>>> setting_text("ogre.hp"), setting_text("order"), setting_text("rogue.defense.evasion")
("ogre's hit points", 'turn order', "rogue's defense: evasion")
"""

from __future__ import annotations

from critlab.analysis import style

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


def setting_text(setting: str) -> str:
    """A setting in words: ``ogre.hp`` is "ogre's hit points"."""
    if setting in _SETTING_WORDS:
        return _SETTING_WORDS[setting]
    name, _, rest = setting.partition(".")
    if rest in _OWN_WORDS:
        return f"{name}'s {_OWN_WORDS[rest]}"
    if rest.startswith("defense."):
        return f"{name}'s defense: {style.axis_label(rest.removeprefix('defense.'))}"
    return f"{name}'s {style.axis_label(rest)}"


__all__ = ["is_probability", "quantity_text", "setting_text"]
