"""An encounter as a :class:`~critlab.analysis.model.Model`, its settings as dotted
parameters, and the one reader of a model's name (:func:`model_named`).

The parameters are the settings :mod:`critlab.analysis.encounter.settings` varies: group
``encounter`` holds ``order``, ``max_rounds``, ``a.targeting`` and ``b.targeting``; each
combatant's group (its name) holds ``NAME.hp``, ``NAME.attacks``, ``NAME.initiative``, its
attack's declared parameters ``NAME.PARAM`` (but those every enemy's ``defense`` sets) and
its defense's ``NAME.defense.PARAM``, each default the encounter's own value.

>>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
>>> from critlab.analysis.systems import get_system
>>> thac0 = get_system("thac0")
>>> hero = Combatant("hero", 10, thac0.make_spec(thac0=15, target_ac=5))
>>> rat = Combatant("rat", 3, thac0.make_spec(thac0=19, target_ac=6, damage="1d3"))
>>> m = EncounterModel(Encounter(Side((hero,)), Side((rat,)), order="a-first"))
>>> m.point["rat.hp"], m.parameter("rat.hp").group, m.parameter("hero.target_ac").label
(3, 'rat', 'target AC')
>>> m.at(**{"rat.hp": 6}).value("a_wins") < m.value("a_wins")
True
>>> sorted(m.unused())[:2]            # no rolled initiative, one enemy to choose from
['a.targeting', 'b.targeting']
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from critlab.analysis.encounter.declare import (
    Encounter,
)
from critlab.analysis.encounter.exact import LABELS, EncounterResult, exact_encounter
from critlab.analysis.encounter.settings import (
    COMBATANT_KINDS,
    ENCOUNTER_KINDS,
    current,
    integer_settings,
    with_settings,
)
from critlab.analysis.encounter.work import encounter_work
from critlab.analysis.fight.exact import FightResult
from critlab.analysis.fight.model import result_model
from critlab.analysis.model import CHOICE, INTEGER, BaseModel, Parameter, model_of
from critlab.analysis.params import Int, declared, default_of
from critlab.analysis.results import SimResult
from critlab.analysis.run import RunOptions
from critlab.analysis.spec import SpecError

# Side a's view: its win is good, its loss bad.
POLARITY = {"a_wins": 1, "b_wins": -1, "draw": 0, "undecided": 0}
# The group of the settings of the whole encounter (each combatant's is its name).
TOP = "encounter"


def _own(name: str, default: Any, label: str, help: str, group: str, **more: Any) -> Parameter:
    """One of the encounter's own settings as a parameter, of its kind in
    :mod:`critlab.analysis.encounter.settings` (named by the setting's last word)."""
    key = name.rpartition(".")[2]
    kind = ENCOUNTER_KINDS.get(key) or COMBATANT_KINDS[key]
    return Parameter(name, INTEGER if isinstance(kind, Int) else CHOICE, kind, default, label, help,
                     group=group, **more)  # fmt: skip


def encounter_parameters(enc: Encounter) -> tuple[Parameter, ...]:
    """Every setting of ``enc`` as a declared parameter (see the module docstring)."""
    out = [
        _own("order", enc.order, "order", "the order of turns", TOP),
        _own("max_rounds", enc.max_rounds, "rounds at most", "then undecided", TOP),
    ]
    for s, side in (("a", enc.a), ("b", enc.b)):
        help = f"whom side {s} attacks"
        out.append(_own(f"{s}.targeting", side.targeting, f"{s} targeting", help, TOP))
    people = enc.combatants
    for i, c in enumerate(people):
        n = c.name
        out += [
            _own(f"{n}.hp", c.hp, "hit points", f"{n}'s hit points", n, unit="hp"),
            _own(f"{n}.attacks", c.attacks, "attacks", "attacks a turn", n),
            _own(f"{n}.initiative", c.initiative, "initiative",
                 "added to 1d20 when the order is rolled", n, when={"order": ("rolled",)}),
        ]  # fmt: skip
        spec_cls = c.attack.system.spec
        set_by_defense = set.intersection(*(set(people[j].defense) for j in enc.enemies(i)))
        for p, decl in declared(spec_cls).items():
            if p not in set_by_defense:
                default = c.attack.params.get(p, default_of(spec_cls, p))
                out.append(Parameter.of(p, decl, default, group=n, prefix=f"{n}."))
        for key, value in c.defense.items():
            decl = next(declared(people[j].attack.system.spec).get(key) for j in enc.enemies(i)
                        if key in declared(people[j].attack.system.spec))  # fmt: skip
            p = Parameter.of(key, decl, value, group=n, prefix=f"{n}.defense.")
            out.append(replace(p, when=None, label=f"defense: {p.label}"))  # the attacker's modes
    return tuple(out)


class EncounterModel(BaseModel):
    """The model of the encounter ``enc``; ``base`` is the one its parameters were
    declared from (the file's), ``name`` what it is called (the file's name)."""

    ordered = False

    def __init__(self, enc: Encounter, *, base: Encounter | None = None, name: str = "encounter") -> None:
        self.enc, self.base = enc, base or enc
        self.name = name
        sides = [", ".join(c.name for c in side.combatants) for side in (enc.a, enc.b)]
        self.title = f"{sides[0]} against {sides[1]}"
        self.parameters = encounter_parameters(self.base)
        self._values = {}

    @property
    def point(self) -> dict[str, Any]:
        people = {c.name: c for c in self.enc.combatants}
        out = {}
        for p in self.parameters:
            who, _, rest = p.name.partition(".")
            attack = people[who].attack if who in people else None
            if attack is not None and rest in attack.names and rest not in attack.params:
                out[p.name] = p.default  # left to its system's default
            else:
                out[p.name] = current(self.enc, p.name)
        return out

    def at(self, **point: Any) -> EncounterModel:
        for name in point:
            self.parameter(name)
        return EncounterModel(with_settings(self.enc, point), base=self.base, name=self.name)

    def spec(self) -> Encounter:
        """The :class:`~critlab.analysis.encounter.declare.Encounter` at this point."""
        return self.enc

    def _exact(self) -> EncounterResult:
        return exact_encounter(self.enc)

    def simulate(self, run: RunOptions) -> SimResult:
        from critlab.analysis.encounter.sim import simulate_encounter

        try:
            exact = self.exact()
        except SpecError as exc:
            if exc.name != "encounter":  # over the chain's bound: simulated without it
                raise
            exact = None
        return simulate_encounter(self.enc, **run.keywords(), exact=exact)

    shrink = "smaller encounters (lower hp, fewer attacks)"
    work_name = "encounter"
    words = ("an integer setting of this encounter", "an outcome or metric of this encounter")

    def work(self, bounded: bool = False) -> float:
        return encounter_work(self.enc, at_limit=bounded)

    def steps(self) -> tuple[str, ...]:
        """Every integer setting with a value, in file order (:func:`integer_settings`)."""
        return tuple(integer_settings(self.enc))

    def unused(self) -> frozenset[str]:
        enc, out = self.enc, set()
        for s, theirs in (("a", enc.b), ("b", enc.a)):
            if len(theirs.combatants) == 1:
                out.add(f"{s}.targeting")  # one enemy: nobody to choose between
        if enc.order != "rolled":
            out |= {f"{c.name}.initiative" for c in enc.combatants}
        pairs = enc.pair_specs()
        for i, c in enumerate(enc.combatants):
            out |= {f"{c.name}.{p}" for p in pairs[(i, enc.enemies(i)[0])].unused()}
        return frozenset(out & {p.name for p in self.parameters})

    def polarity(self) -> dict[str, int]:
        return dict(POLARITY)

    @property
    def labels(self) -> tuple[str, ...]:
        return LABELS

    def quantities(self) -> tuple[str, ...]:
        """The labels, then the exact chain's metrics in its order, known from the
        encounter's shape before any work: ``mean_rounds``, each combatant's ``p_down_``
        and ``mean_hp_left_``, ``p_any_down_a``/``_b``, ``best_gain_<side>`` last where a
        side's targeting is ``best``."""
        enc = self.enc
        each = [f"{p}{c.name}" for c in enc.combatants for p in ("p_down_", "mean_hp_left_")]
        gain = [f"best_gain_{s}" for s in ("a", "b") if getattr(enc, s).targeting == "best"]
        return (*LABELS, "mean_rounds", *each, "p_any_down_a", "p_any_down_b", *gain)

    def said(self, name: str) -> str:
        """A setting or quantity in words (:mod:`critlab.analysis.encounter.words`): ``ogre.hp``
        is "ogre's hit points", ``a_wins`` "P(side a wins)"."""
        from critlab.analysis.encounter.words import said, setting_text

        if any(p.name == name for p in self.parameters):
            return setting_text(name, self.base)
        return said(name)

    def __reduce__(self) -> tuple:
        # as its settings (a Dask worker reads them again): every attack by its system's
        # name or its mechanic's loadable reference (absolute, so named so after the trip)
        return (_model_of_tables, (_table(self.enc), _table(self.base), self.name))


def _table(enc: Encounter) -> dict[str, Any]:
    table = enc.to_json()
    for s, side in (("a", enc.a), ("b", enc.b)):
        for entry, c in zip(table[s]["combatants"], side.combatants, strict=True):
            if c.attack.is_mechanic:
                entry["attack"]["mechanic"] = c.attack.system.where
    return table


def _model_of_tables(table: dict[str, Any], base: dict[str, Any], name: str) -> EncounterModel:
    from critlab.analysis.encounter.load import encounter_from_table

    return EncounterModel(encounter_from_table(table), base=encounter_from_table(base), name=name)


def as_model(thing: Any, folder: str | Path | None = None) -> Any:
    """The model ``thing`` stands for: a name (:func:`model_named`), an encounter, a
    fight's result (:func:`critlab.analysis.fight.exact.fight`), or what
    :func:`critlab.analysis.model.model_of` takes (a model, a rule system or mechanic, a
    spec). The one place that tells the kinds apart: every tool asks it.

    >>> round(as_model("thac0").at(thac0=15, target_ac=5).value("hit+critical_hit"), 12)
    0.55
    """
    if isinstance(thing, str):
        return model_named(thing, folder)
    if isinstance(thing, Encounter):
        return EncounterModel(thing)
    if isinstance(thing, FightResult):
        return result_model(thing)
    return model_of(thing)


def model_named(name: str, folder: str | Path | None = None) -> Any:
    """The model a name stands for, as the command line reads SYSTEM: an encounter file
    (``*.toml``, read from ``folder`` when relative), else a rule system's name or a
    mechanic's reference (``rules.py:attack``).

    >>> model_named("thac0").name
    'thac0'
    """
    from critlab.analysis.encounter.load import is_encounter_file, load_encounter
    from critlab.analysis.systems import get_system

    if is_encounter_file(name):
        path = Path(folder or ".") / name
        return EncounterModel(load_encounter(path), name=path.name)
    return model_of(get_system(name))


__all__ = ["EncounterModel", "POLARITY", "as_model", "encounter_parameters", "model_named"]
