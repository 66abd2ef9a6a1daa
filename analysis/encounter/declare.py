"""An encounter's declaration: combatants, the two sides, the order of turns.

A :class:`Combatant` is a name, hit points and an attack: any damage-dealing rule system
or own mechanic with its parameters (a spec, or a system and a mapping of parameters
that may leave out what each target's ``defense`` supplies). A :class:`Side` is 1..10
combatants and a targeting policy; an :class:`Encounter` is sides ``a`` and ``b``, the
order of turns and ``max_rounds``. Everything is checked on construction, every mistake
one :class:`~critlab.analysis.spec.SpecError` line naming the setting
(``ogre.hp``, ``a.targeting``, ``fighter.target_ac``).

Each attacker's attack against each enemy, with the enemy's ``defense`` applied, is built
once (:meth:`Encounter.pair_specs`): both engines read the same specs.

>>> from critlab.analysis.systems import get_system
>>> thac0 = get_system("thac0")
>>> hero = Combatant("hero", 12, thac0.make_spec(thac0=15, target_ac=5), defense={"target_ac": 6})
>>> ogre = Combatant("ogre", 20, {"system": "thac0", "thac0": 17, "damage": "1d10"}, defense={"target_ac": 4})
>>> enc = Encounter(Side((hero,)), Side((ogre,)), order="a-first")
>>> enc.pair_specs()[(0, 1)].target_ac      # the hero attacks the ogre's AC 4
4
>>> Combatant("ogre", 0, hero.attack)
Traceback (most recent call last):
...
critlab.analysis.spec.SpecError: parameter ogre.hp = 0: must be an integer in 1..10000
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from critlab.analysis.dist import Dist
from critlab.analysis.spec import Spec, SpecError, check_choice, check_int

ORDERS = ("a-first", "b-first", "rolled", "simultaneous")
TARGETING = ("focus", "weakest", "random", "best")
MAX_HP = 10**4
MAX_ATTACKS = 10
MAX_INITIATIVE = 20
MAX_SIDE = 10
MAX_ROUNDS = 10**4
DEFAULT_ROUNDS = 100
_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")
# The systems (and modes) whose attack deals damage, in words, for the errors.
DAMAGING = (
    "crit-range (mode attack), thac0, crits-cats (mode versus with damage) or a mechanic with a damage value"
)


@dataclass(frozen=True)
class Attack:
    """A combatant's attack: its rule system and the parameters given for it (a spec's
    every field, or a table's entries), before any target's ``defense`` is applied.

    ``reference`` is how the attack names its system: a built-in system's name, or a
    mechanic's reference (``rules.py:attack``), shown under ``mechanic`` in the JSON."""

    system: Any
    params: Mapping[str, Any]
    reference: str
    is_mechanic: bool = False

    @classmethod
    def of(cls, attack: Any, owner: str, folder: Any = None) -> Attack:
        """An :class:`Attack` from a spec, an :class:`Attack`, or a mapping with
        ``system = NAME`` or ``mechanic = "file.py:function"`` and the parameters."""
        if isinstance(attack, Attack):
            return attack
        if isinstance(attack, Spec):
            system = getattr(type(attack), "rule_system", None)
            if system is None:
                raise SpecError(f"{owner}.attack", type(attack).__name__, "must be a rule system's spec")
            params = {f.name: getattr(attack, f.name) for f in dataclasses.fields(attack)}
            mech = hasattr(system, "rule")
            return cls(system, params, system.name, mech)
        if not isinstance(attack, Mapping):
            allowed = (
                "must be a spec or a table with system = NAME (or mechanic = FILE:FUNCTION) and parameters"
            )
            raise SpecError(f"{owner}.attack", attack, allowed)
        params = dict(attack)
        has_system, has_mechanic = "system" in params, "mechanic" in params
        if has_system == has_mechanic:
            raise SpecError(
                f"{owner}.attack", attack, "needs exactly one of system = NAME or mechanic = FILE:FUNCTION"
            )
        if has_system:
            from critlab.analysis.systems import get_system

            ref = params.pop("system")
            try:
                system = get_system(str(ref))
            except (KeyError, ValueError) as exc:
                raise SpecError(f"{owner}.attack.system", ref, str(exc).strip("'\"")) from None
            return cls(system, params, system.name, hasattr(system, "rule"))
        from critlab.analysis.mechanic.load import resolve

        ref = str(params.pop("mechanic"))
        try:
            system = resolve(ref, folder)
        except ValueError as exc:
            raise SpecError(f"{owner}.attack.mechanic", ref, str(exc)) from None
        return cls(system, params, ref, True)

    @property
    def names(self) -> frozenset[str]:
        """Every parameter of the attack's system (given or defaulted)."""
        return frozenset(f.name for f in dataclasses.fields(self.system.spec))

    def spec(self, overrides: Mapping[str, Any] = {}) -> Spec:  # noqa: B006 - read only
        """The attack's spec with ``overrides`` (a target's defense) replacing its parameters."""
        return self.system.make_spec(**{**self.params, **overrides})

    def to_json(self) -> dict[str, Any]:
        """The attack as written: its system (or mechanic) and every parameter it was
        given, the system's defaults filled in for the rest (``null`` where a parameter
        has no default, left to the targets' defense)."""
        out: dict[str, Any] = {"mechanic" if self.is_mechanic else "system": self.reference}
        for f in dataclasses.fields(self.system.spec):
            if f.name in self.params:
                value = self.params[f.name]
            elif f.default is not dataclasses.MISSING:
                value = f.default
            else:
                value = None
            out[f.name] = _plain(value)
        return out


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value)


@dataclass(frozen=True)
class Combatant:
    """One combatant: ``name`` (1..32 of a-z, 0-9, _; a letter first), ``hp`` (1..10^4),
    an ``attack``, ``attacks`` a turn (1..10), an ``initiative`` modifier (-20..20) and
    ``defense``: parameter values that replace an attacker's parameters of the same name
    when it attacks this combatant.

    >>> from critlab.analysis.systems import get_system
    >>> c = Combatant("goblin", 7, get_system("thac0").make_spec(thac0=19, target_ac=6), initiative=2)
    >>> c.to_json()["initiative"], c.attack.reference
    (2, 'thac0')
    """

    name: str
    hp: int
    attack: Any
    attacks: int = 1
    initiative: int = 0
    defense: Mapping[str, Any] = field(default_factory=dict)
    folder: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise SpecError(
                "name", self.name, "must be 1..32 characters of a-z, 0-9 and _, starting with a letter"
            )
        n = self.name
        object.__setattr__(self, "hp", check_int(f"{n}.hp", self.hp, 1, MAX_HP))
        object.__setattr__(self, "attacks", check_int(f"{n}.attacks", self.attacks, 1, MAX_ATTACKS))
        init = check_int(f"{n}.initiative", self.initiative, -MAX_INITIATIVE, MAX_INITIATIVE)
        object.__setattr__(self, "initiative", init)
        if not isinstance(self.defense, Mapping):
            raise SpecError(
                f"{n}.defense", self.defense, "must be a table of attack parameters, e.g. {target_ac = 4}"
            )
        object.__setattr__(self, "defense", dict(self.defense))
        object.__setattr__(self, "attack", Attack.of(self.attack, n, self.folder))

    def replace(self, **changes: Any) -> Combatant:
        """A copy with some settings changed (checked again)."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "hp": self.hp,
            "attacks": self.attacks,
            "initiative": self.initiative,
            "attack": self.attack.to_json(),
            "defense": {k: _plain(v) for k, v in self.defense.items()},
        }


@dataclass(frozen=True)
class Side:
    """One side: 1..10 :class:`Combatant` and its ``targeting`` policy (``focus``: the
    first standing enemy in listed order; ``weakest``: the one with the fewest hit points
    left, ties in listed order; ``random``: one uniformly at random, anew each attack;
    ``best``: the target that maximises the side's probability of winning, solved exactly
    (:mod:`critlab.analysis.encounter.best`), for one side at most)."""

    combatants: tuple[Combatant, ...]
    targeting: str = "focus"

    def __post_init__(self) -> None:
        members = tuple(self.combatants) if isinstance(self.combatants, Sequence) else ()
        object.__setattr__(self, "combatants", members)
        object.__setattr__(self, "targeting", check_choice("targeting", self.targeting, TARGETING))

    def to_json(self) -> dict[str, Any]:
        return {"targeting": self.targeting, "combatants": [c.to_json() for c in self.combatants]}


def _side(value: Any, name: str) -> Side:
    if isinstance(value, Side):
        side = value
    elif isinstance(value, Sequence) and not isinstance(value, str):
        side = Side(tuple(value))
    else:
        raise SpecError(name, value, f"must be a side: a list of 1..{MAX_SIDE} combatants")
    if not 1 <= len(side.combatants) <= MAX_SIDE:
        raise SpecError(f"{name}.combatants", len(side.combatants), f"a side has 1..{MAX_SIDE} combatants")
    for c in side.combatants:
        if not isinstance(c, Combatant):
            raise SpecError(f"{name}.combatants", c, "must be a Combatant")
    return side


@dataclass(frozen=True)
class Encounter:
    """Two sides, ``a`` and ``b``, the ``order`` of turns (``a-first``, ``b-first``,
    ``rolled``, ``simultaneous``; default ``rolled``) and ``max_rounds`` (1..10^4, default
    100). Names are unique; every attack deals damage to every enemy with its defense
    applied; every defense name is a parameter of some attack of the other side."""

    a: Side
    b: Side
    order: str = "rolled"
    max_rounds: int = DEFAULT_ROUNDS

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", _side(self.a, "a"))
        object.__setattr__(self, "b", _side(self.b, "b"))
        object.__setattr__(self, "order", check_choice("order", self.order, ORDERS))
        object.__setattr__(self, "max_rounds", check_int("max_rounds", self.max_rounds, 1, MAX_ROUNDS))
        if self.a.targeting == self.b.targeting == "best":
            raise SpecError("b.targeting", "best", "best is for one side at most (side a plays best)")
        if "best" in (self.a.targeting, self.b.targeting) and self.order == "simultaneous":
            raise SpecError(
                "order", self.order, "best targeting is solved for a-first, b-first or rolled orders"
            )
        seen: set[str] = set()
        for c in self.combatants:
            if c.name in seen:
                raise SpecError(
                    "name", c.name, "is given twice: every combatant's name is unique in the encounter"
                )
            seen.add(c.name)
        for mine, theirs in ((self.a, self.b), (self.b, self.a)):
            known = frozenset().union(*(c.attack.names for c in theirs.combatants))
            for c in mine.combatants:
                for key in c.defense:
                    if key not in known:
                        raise SpecError(
                            f"{c.name}.defense.{key}",
                            c.defense[key],
                            "is not a parameter of any attack of the other side",
                        )
        object.__setattr__(self, "_pairs", None)
        self.pair_specs()  # every attack against every enemy is checked now

    @property
    def combatants(self) -> tuple[Combatant, ...]:
        """Every combatant, side a's first, each side in listed order (the index order
        of the engines)."""
        return self.a.combatants + self.b.combatants

    @property
    def n_a(self) -> int:
        return len(self.a.combatants)

    def enemies(self, i: int) -> range:
        """The indices of combatant ``i``'s enemies."""
        n_a, n = self.n_a, len(self.combatants)
        return range(n_a, n) if i < n_a else range(0, n_a)

    def pair_specs(self) -> dict[tuple[int, int], Spec]:
        """``{(attacker, target): spec}``: each attacker's attack against each enemy, the
        enemy's defense applied (the parameters the attacker's system has)."""
        cached = self.__dict__.get("_pairs")
        if cached is not None:
            return cached
        out = {}
        everyone = self.combatants
        for i, c in enumerate(everyone):
            names = c.attack.names
            for j in self.enemies(i):
                target = everyone[j]
                defense = {k: v for k, v in target.defense.items() if k in names}
                try:
                    out[(i, j)] = c.attack.spec(defense)
                except SpecError as exc:
                    raise SpecError(
                        f"{c.name}.{exc.name}", exc.value, f"{exc.allowed} ({c.name} attacking {target.name})"
                    ) from None
        object.__setattr__(self, "_pairs", out)
        return out

    def pair_damage(self) -> dict[tuple[int, int], Dist]:
        """``{(attacker, target): Dist}``: the exact per-attack damage (floored at 0) of
        each pair, cached; an attack dealing no damage is one line naming its attacker."""
        cached = self.__dict__.get("_damage")
        if cached is not None:
            return cached
        out, by_spec = {}, {}
        for (i, j), spec in self.pair_specs().items():
            if spec not in by_spec:
                by_spec[spec] = _damage(spec, self.combatants[i].name)
            out[(i, j)] = by_spec[spec]
        object.__setattr__(self, "_damage", out)
        return out

    def replace(self, **changes: Any) -> Encounter:
        """A copy with some settings changed (checked again)."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """Every setting, defaults filled."""
        return {
            "order": self.order,
            "max_rounds": self.max_rounds,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
        }


def _damage(spec: Spec, who: str) -> Dist:
    """The per-attack damage of ``spec``, floored at 0 (the rules of Fights)."""
    system = type(spec).rule_system
    dists = system.exact(spec).distributions
    damage = dists.get("damage")
    if damage is None:
        raise SpecError(f"{who}.attack", system.name, f"deals no damage; an attack is {DAMAGING}")
    if damage.probs.size and damage.min < 0:
        damage = damage.clip(lo=0)
    if not damage.probs.size or damage.max <= 0:
        raise SpecError(f"{who}.attack", system.name, "no attack of it can deal damage")
    return damage


__all__ = [
    "Attack",
    "Combatant",
    "DAMAGING",
    "Encounter",
    "MAX_HP",
    "MAX_ROUNDS",
    "ORDERS",
    "Side",
    "TARGETING",
]
