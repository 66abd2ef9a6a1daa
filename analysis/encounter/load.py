"""Encounters read from TOML files.

::

    order = "rolled"          # a-first, b-first, rolled (default), simultaneous
    max_rounds = 100

    [a]
    targeting = "focus"       # focus (default), weakest, random, best (one side)

    [[a.combatants]]
    name = "fighter"
    hp = 28
    attacks = 1
    initiative = 2
    attack = { system = "thac0", thac0 = 15, damage = "1d8+2" }
    defense = { target_ac = 3 }

    [b]
    [[b.combatants]]
    name = "ogre"
    hp = 60
    attack = { mechanic = "rules.py:club", strength = 4 }   # read from the file's folder

Every key is checked: an unknown one, a wrong type or a bad value stops with one line
naming the file and the setting (``party.toml: parameter ogre.hp = 0: must be ...``).

>>> import tempfile, pathlib
>>> text = '''
... order = "a-first"
... [[a.combatants]]
... name = "hero"
... hp = 10
... attack = { system = "thac0", thac0 = 15, target_ac = 5 }
... [[b.combatants]]
... name = "rat"
... hp = 3
... attack = { system = "thac0", thac0 = 20, target_ac = 5, damage = "1d3" }
... '''
>>> path = pathlib.Path(tempfile.mkdtemp()) / "rat.toml"
>>> _ = path.write_text(text)
>>> enc = load_encounter(path)
>>> enc.order, [c.name for c in enc.combatants], enc.b.targeting
('a-first', ['hero', 'rat'], 'focus')
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from critlab.analysis.encounter.declare import MAX_SIDE, Combatant, Encounter, Side
from critlab.analysis.spec import SpecError
from critlab.analysis.text.documents import load_toml

_TOP = ("order", "max_rounds", "a", "b")
_SIDE = ("targeting", "combatants")
_COMBATANT = ("name", "hp", "attacks", "initiative", "attack", "defense")


def _unknown(where: str, table: Mapping[str, Any], known: tuple[str, ...]) -> None:
    for key in table:
        if key not in known:
            raise SpecError(f"{where}{key}", table[key], "is not a setting here; known: " + ", ".join(known))


def _read_float(text: str) -> Any:
    """TOML decimals as written (``dr = 0.8`` is exactly 4/5 to the rules)."""
    from critlab.analysis.params import WrittenFloat

    return WrittenFloat(text)


def encounter_from_table(table: Mapping[str, Any], folder: Path | None = None) -> Encounter:
    """The :class:`Encounter` of a parsed TOML table (mechanic files read from ``folder``)."""
    _unknown("", table, _TOP)
    sides = {}
    for s in ("a", "b"):
        side = table.get(s)
        if not isinstance(side, Mapping):
            raise SpecError(s, side, f"is required: a table [{s}] with [[{s}.combatants]] entries")
        _unknown(f"{s}.", side, _SIDE)
        entries = side.get("combatants")
        if not isinstance(entries, list) or not entries:
            raise SpecError(f"{s}.combatants", entries, f"needs 1..{MAX_SIDE} [[{s}.combatants]] entries")
        members = []
        for k, entry in enumerate(entries):
            if not isinstance(entry, Mapping):
                raise SpecError(f"{s}.combatants[{k + 1}]", entry, "must be a table")
            _unknown(f"{s}.combatants[{k + 1}].", entry, _COMBATANT)
            if "name" not in entry or "hp" not in entry or "attack" not in entry:
                missing = next(key for key in ("name", "hp", "attack") if key not in entry)
                raise SpecError(f"{s}.combatants[{k + 1}].{missing}", None, "is required")
            members.append(Combatant(**entry, folder=folder))
        sides[s] = Side(tuple(members), targeting=side.get("targeting", "focus"))
    return Encounter(sides["a"], sides["b"], **{k: table[k] for k in ("order", "max_rounds") if k in table})


def load_encounter(path: str | Path) -> Encounter:
    """The :class:`Encounter` in the TOML file at ``path``; a bad file or setting is a
    SpecError or ValueError naming the file (an unreadable one an OSError)."""
    path = Path(path)
    # read as configurations are: 16 MiB, 32 levels of nesting, integers below 2^63
    table, _ = load_toml(path, path.name, parse_float=_read_float)
    try:
        return encounter_from_table(table, path.resolve().parent)
    except SpecError as exc:
        raise ValueError(f"{path.name}: {exc}") from None


def is_encounter_file(name: str) -> bool:
    """Whether ``name`` (a SYSTEM argument) names an encounter file (``*.toml``)."""
    return isinstance(name, str) and name.endswith(".toml")


__all__ = ["encounter_from_table", "is_encounter_file", "load_encounter"]
