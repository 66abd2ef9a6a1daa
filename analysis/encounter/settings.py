"""An encounter's settings: what each is, its value, and an encounter with some changed.

The settings are ``order``, ``max_rounds``, ``a.targeting``, ``b.targeting``, and per
combatant ``NAME.hp``, ``NAME.attacks``, ``NAME.initiative``, ``NAME.PARAM`` (a parameter
of its attack) and ``NAME.defense.PARAM``; the encounter's model
(:mod:`critlab.analysis.encounter.model`) declares them as its parameters, and every
designer tool reaches them through it.

>>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> enc = Encounter(Side((Combatant("hero", 10, spec),)), Side((Combatant("ogre", 10, spec),)))
>>> with_settings(enc, {"hero.target_ac": 3}).combatants[0].attack.params["target_ac"]
3
>>> setting_kind(enc, "ogre.hp"), current(enc, "order")
(('int', (1, 10000)), 'rolled')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from critlab.analysis.encounter.declare import (
    MAX_ATTACKS,
    MAX_HP,
    MAX_INITIATIVE,
    MAX_ROUNDS,
    ORDERS,
    TARGETING,
    Encounter,
    Side,
)
from critlab.analysis.encounter.exact import LABELS
from critlab.analysis.params import Choice, Int, declared
from critlab.analysis.spec import SpecError

# The kinds of the encounter's own settings: the whole encounter's (each side's targeting
# under "targeting") and each combatant's; the rest are its attacks' and defenses' parameters.
ENCOUNTER_KINDS = {
    "order": Choice(*ORDERS),
    "max_rounds": Int(1, MAX_ROUNDS),
    "targeting": Choice(*TARGETING),
}
COMBATANT_KINDS = {
    "hp": Int(1, MAX_HP),
    "attacks": Int(1, MAX_ATTACKS),
    "initiative": Int(-MAX_INITIATIVE, MAX_INITIATIVE),
}


def _described(kind: Any) -> tuple[str, Any]:
    """A parameter kind as :func:`setting_kind` says it."""
    if isinstance(kind, Int):
        return "int", (kind.lo, kind.hi)
    if isinstance(kind, Choice):
        return "choice", kind.choices
    return "other", None


def _combatant(enc: Encounter, name: str, setting: str) -> int:
    for k, c in enumerate(enc.combatants):
        if c.name == name:
            return k
    raise SpecError(
        setting, None, f"names no combatant; the encounter's: {', '.join(c.name for c in enc.combatants)}"
    )


def setting_kind(enc: Encounter, setting: str) -> tuple[str, Any]:
    """``("int", (lo, hi))``, ``("choice", choices)`` or ``("other", None)`` for one
    setting; a SpecError naming an unknown one."""
    if setting in ("order", "max_rounds"):
        return _described(ENCOUNTER_KINDS[setting])
    if setting in ("a.targeting", "b.targeting"):
        return _described(ENCOUNTER_KINDS["targeting"])
    name, _, rest = setting.partition(".")
    c = enc.combatants[_combatant(enc, name, setting)]
    if rest in COMBATANT_KINDS:
        return _described(COMBATANT_KINDS[rest])
    param = rest.removeprefix("defense.")
    if rest.startswith("defense."):
        systems = [
            o.attack.system for o in enc.combatants if (o in enc.a.combatants) != (c in enc.a.combatants)
        ]
    else:
        systems = [c.attack.system]
    for system in systems:
        if param in {f for f in system.spec.__dataclass_fields__}:
            kind = declared(system.spec).get(param)
            return _described(None if kind is None else kind.kind)
    raise SpecError(
        setting, None, "is not a setting of this encounter (order, max_rounds, a.targeting, NAME.hp, ...)"
    )


def with_settings(enc: Encounter, settings: Mapping[str, Any]) -> Encounter:
    """A copy of ``enc`` with ``settings`` (``{"ogre.hp": 40, "order": "a-first"}``) changed,
    checked again."""
    top: dict[str, Any] = {}
    sides = {"a": enc.a, "b": enc.b}
    people = {c.name: c for c in enc.combatants}
    for setting, value in settings.items():
        setting_kind(enc, setting)  # unknown settings named first
        if setting in ("order", "max_rounds"):
            top[setting] = value
            continue
        if setting in ("a.targeting", "b.targeting"):
            s = setting[0]
            sides[s] = Side(sides[s].combatants, targeting=value)
            continue
        name, _, rest = setting.partition(".")
        c = people[name]
        if rest in ("hp", "attacks", "initiative"):
            people[name] = c.replace(**{rest: value})
        elif rest.startswith("defense."):
            people[name] = c.replace(defense={**c.defense, rest.removeprefix("defense."): value})
        else:
            attack = c.attack
            people[name] = c.replace(
                attack=type(attack)(
                    attack.system, {**attack.params, rest: value}, attack.reference, attack.is_mechanic
                )
            )
    a = Side(tuple(people[c.name] for c in sides["a"].combatants), targeting=sides["a"].targeting)
    b = Side(tuple(people[c.name] for c in sides["b"].combatants), targeting=sides["b"].targeting)
    return Encounter(
        a, b, order=top.get("order", enc.order), max_rounds=top.get("max_rounds", enc.max_rounds)
    )


def current(enc: Encounter, setting: str) -> Any:
    """A setting's value in ``enc`` (``None`` for an attack parameter left to its default)."""
    if setting in ("order", "max_rounds"):
        return getattr(enc, setting)
    if setting in ("a.targeting", "b.targeting"):
        return (enc.a if setting[0] == "a" else enc.b).targeting
    name, _, rest = setting.partition(".")
    c = enc.combatants[_combatant(enc, name, setting)]
    if rest in ("hp", "attacks", "initiative"):
        return getattr(c, rest)
    if rest.startswith("defense."):
        return c.defense.get(rest.removeprefix("defense."))
    return c.attack.params.get(rest)


def quantity_of(result: Any, quantity: str) -> float | None:
    """An outcome label, labels joined by ``+``, or a metric of an exact result."""
    parts = quantity.replace("-", "_").split("+")
    if all(p in LABELS for p in parts):
        if len(set(parts)) != len(parts):
            raise SpecError("quantity", quantity, "names a label twice")
        return float(sum(result.outcomes[p] for p in parts))
    key = quantity.replace("-", "_")
    if len(parts) == 1 and key in result.metrics:
        return result.metrics[key]
    known = ", ".join([*LABELS, *result.metrics])
    raise SpecError("quantity", quantity, f"is not an outcome or metric of this encounter; known: {known}")


def integer_settings(enc: Encounter) -> list[str]:
    """Every integer setting of ``enc`` that has a value, in file order: ``max_rounds``,
    then each combatant's ``hp``, ``attacks``, ``initiative``, its attack's integer
    parameters and its defense's."""
    out = ["max_rounds"]
    for c in enc.combatants:
        out += [f"{c.name}.hp", f"{c.name}.attacks", f"{c.name}.initiative"]
        for p, v in c.attack.params.items():
            if (
                isinstance(v, int)
                and not isinstance(v, bool)
                and setting_kind(enc, f"{c.name}.{p}")[0] == "int"
            ):
                out.append(f"{c.name}.{p}")
        for p, v in c.defense.items():
            if isinstance(v, int) and not isinstance(v, bool):
                out.append(f"{c.name}.defense.{p}")
    return out


__all__ = ["current", "integer_settings", "quantity_of", "setting_kind", "with_settings"]
