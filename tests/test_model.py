"""The Model protocol's contract (critlab.analysis.model), held for every registered
system, a fight, a designer's mechanic and an encounter: the declared parameters are the
existing declarations, ``at(...).exact()`` is the existing exact answer, a point the
rules refuse is one SpecError line naming the parameter, the work is the cost code's
estimate, and a simulation is the existing one at the same seed."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest
from golden.capture import POINTS

import critlab
from critlab.analysis.design.cost import point_work
from critlab.analysis.design.quantity import Quantity
from critlab.analysis.encounter.load import load_encounter
from critlab.analysis.encounter.model import EncounterModel, as_model, model_named
from critlab.analysis.encounter.settings import integer_settings, setting_kind, with_settings
from critlab.analysis.encounter.work import encounter_work
from critlab.analysis.fight.exact import Fight, fight
from critlab.analysis.fight.model import FIGHT_NAMES, FightModel
from critlab.analysis.model import KINDS, Model, kind_of, model_of
from critlab.analysis.params import Choice, Int, declared, default_of
from critlab.analysis.run import RunOptions
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import registry

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = list(registry())
SAVAGE = f"{ROOT}/notebooks/examples/savage_worlds.py:trait_roll"
PARTY = ROOT / "reports" / "examples" / "party_vs_ogre.toml"


def points(name: str) -> list[dict]:
    return POINTS.get(name, [{}])


def same(a, b) -> bool:
    """Two results alike in every number their JSON holds."""
    return a.to_json() == b.to_json()


# -- systems (built-in, registered, a mechanic) -------------------------------------------
@pytest.mark.parametrize("name", [*SYSTEMS, SAVAGE])
def test_a_system_declares_its_spec_parameters(name):
    system = critlab.get_system(name)
    model = model_of(system)
    assert isinstance(model, Model) and model.name == system.name
    decls = declared(system.spec)
    assert [p.name for p in model.parameters] == list(decls)
    for p in model.parameters:
        d = decls[p.name]
        assert p.kind == kind_of(d.kind) and p.kind in KINDS and p.rule is d.kind
        assert p.default == default_of(system.spec, p.name)
        assert p.label == (d.label or p.name.replace("_", " ")) and p.unit == d.unit and p.help == d.help
        assert (p.lo, p.hi) == ((d.kind.lo, d.kind.hi) if isinstance(d.kind, Int) else (p.lo, p.hi))
        assert p.choices == (d.kind.choices if isinstance(d.kind, Choice) else ())
        assert p.step == (d.kind.step if isinstance(d.kind, Int) else 1)
        assert p.optional == d.optional and (p.when or None) == (d.when or None)


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_system_at_a_point_answers_its_exact_result(name):
    system = critlab.get_system(name)
    for params in points(name):
        model = system.model().at(**params)
        spec = system.make_spec(**params)
        assert model.spec() == spec
        assert same(model.exact(), critlab.exact(spec))
        assert {k: v for k, v in model.point.items() if k in params} == params
        assert model.unused() == spec.unused()
        assert model.work() == point_work(spec)
        assert model.polarity() == system.polarity_of(critlab.exact(spec).labels)
        for q in model.quantities():  # each outcome and metric, as the designer tools read it
            assert model.value(q) == Quantity(system, q).value(spec), q
        # the spec's own model is the same point
        assert model_of(spec).point == model.point and same(model_of(spec).exact(), model.exact())


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_refused_point_is_one_line_naming_the_parameter(name):
    model = critlab.get_system(name).model().at(**points(name)[0])
    integer = next(p for p in model.parameters if p.kind == "integer")
    with pytest.raises(SpecError) as err:
        model.at(**{integer.name: integer.hi + 1})
    assert err.value.name == integer.name and "\n" not in str(err.value)
    with pytest.raises(SpecError, match="is not a parameter of") as err:
        model.at(no_such_thing=1)
    assert err.value.name == "no_such_thing"
    assert model.at().point == model.point  # the model itself is unchanged


def test_a_required_parameter_is_refused_until_given():
    model = model_of(critlab.get_system("thac0"))
    assert model.point["thac0"] is None and model.parameter("thac0").start == 0
    with pytest.raises(SpecError, match="thac0"):
        model.exact()
    with pytest.raises(SpecError, match="target_ac"):
        model.at(thac0=15)


def test_a_mechanic_is_a_system_model():
    trait = critlab.get_system(SAVAGE)
    model = model_of(trait).at(trait=6)
    assert same(model.exact(), trait.exact(trait.make_spec(trait=6)))
    assert model.parameter("trait").lo == 4 and model.polarity() == trait.polarity_of(model.labels)
    assert model.parameter("trait").step == 2
    with pytest.raises(SpecError, match="parameter trait = 7"):
        model.at(trait=7)
    with pytest.raises(SpecError, match="parameter trait = 13"):
        model.at(trait=13)


def test_a_simulation_is_the_systems_own_at_the_same_seed():
    system = critlab.get_system("thac0")
    model = system.model().at(thac0=15, target_ac=5)
    sim = model.simulate(RunOptions(trials=5000, seed=3, progress=False))
    own = system.simulate(model.spec(), trials=5000, seed=3, progress=False)
    assert sim.to_json() == own.to_json() and sim.seed == 3


# -- a fight -----------------------------------------------------------------------------------
def test_a_fight_declares_the_attack_and_its_own_parameters():
    spec = critlab.get_system("crit-range").make_spec(attack_bonus=5, evasion=15)
    model = FightModel.of(spec, hp=30, attacks_per_round=2)
    names = [p.name for p in model.parameters]
    assert names == [*declared(type(spec)), *FIGHT_NAMES]
    assert {p.group for p in model.parameters if p.name in FIGHT_NAMES} == {"fight"}
    hp = model.parameter("hp")
    assert (hp.lo, hp.hi) == (1, 10**6) and model.point["hp"] == 30 and model.point["attacks_per_round"] == 2
    for p in model.parameters:  # every fight parameter's bound is Fight's own
        if p.name in FIGHT_NAMES:
            with pytest.raises(SpecError, match=p.name):
                Fight(**{"hp": 1, p.name: p.hi + 1})


def test_a_fight_at_a_point_answers_the_fight():
    spec = critlab.get_system("thac0").make_spec(thac0=15, target_ac=5)
    model = FightModel.of(spec, hp=10)
    moved = model.at(hp=25, target_ac=3, max_rounds=40)
    assert same(moved.exact(), fight(spec.replace(target_ac=3), hp=25, max_rounds=40))
    assert moved.work() == point_work(spec.replace(target_ac=3), {"hp": 25, "max_rounds": 40})
    assert moved.value("defeated") == moved.exact().outcomes["defeated"]
    # the attack's quantities first, then the fight's, as the designer tools read them
    fight_params = {"hp": 25, "max_rounds": 40}
    for q in ("hit+critical_hit", "expected_damage", "median_rounds", "undecided"):
        assert moved.value(q) == Quantity(spec.rule_system, q).value(moved.spec(), fight_params), q
    assert moved.quantities()[0] == "miss" and "median_rounds" in moved.quantities()
    with pytest.raises(
        SpecError, match="parameter quantity = rounds: is not an outcome or metric of thac0 fight"
    ):
        moved.value("rounds")
    assert as_model(fight(spec, hp=10)).point == model.point  # a fight's result tells its model
    with pytest.raises(SpecError, match="parameter hp = 0"):
        model.at(hp=0)
    with pytest.raises(SpecError, match="a fight needs mode attack"):
        test = critlab.get_system("crit-range").make_spec(mode="test", bonus=1, difficulty=9)
        FightModel.of(test, hp=5).exact()


def test_a_fight_simulates_the_fight():
    spec = critlab.get_system("thac0").make_spec(thac0=15, target_ac=5)
    sim = FightModel.of(spec, hp=10).simulate(RunOptions(trials=4000, seed=5, progress=False))
    own = critlab.simulate_fight(spec, hp=10, trials=4000, seed=5, progress=False)
    assert sim.to_json() == own.to_json()


# -- an encounter ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def party():
    # acting first: one order of turns, a tenth of a second a point
    enc = load_encounter(PARTY)
    return EncounterModel(enc.replace(order="a-first"), name=PARTY.name)


def test_an_encounter_declares_its_settings(party):
    enc = party.spec()
    names = [p.name for p in party.parameters]
    assert names[:4] == ["order", "max_rounds", "a.targeting", "b.targeting"]
    assert set(integer_settings(enc)) <= set(names)
    for p in party.parameters:
        kind, allowed = setting_kind(enc, p.name)
        assert {"int": "integer", "choice": "choice"}.get(kind, p.kind) == p.kind
        if kind == "int":
            assert (p.lo, p.hi) == allowed
        if kind == "choice":
            assert p.choices == tuple(allowed)
    assert party.parameter("ogre.hp").group == "ogre" and party.point["ogre.hp"] == 30
    assert "fighter.target_ac" not in names  # every enemy's defense sets it
    assert party.point["ogre.defense.evasion"] == 14 and party.point["rogue.dr"] == 0


def test_an_encounter_at_a_point_answers_the_chain(party):
    settings = {"ogre.hp": 24, "rogue.crit_range": 3, "b.targeting": "focus"}
    moved = party.at(**settings)
    enc = with_settings(party.spec(), settings)
    assert same(moved.exact(), critlab.encounter(enc.a, enc.b, order="a-first"))
    assert {k: moved.point[k] for k in settings} == settings
    assert moved.work() == encounter_work(moved.spec())
    assert moved.value("a_wins+draw") == pytest.approx(moved.exact().outcomes["a_wins"], abs=1e-15)
    assert "fighter.initiative" in party.unused()
    assert "fighter.initiative" not in party.at(order="rolled").unused()
    with pytest.raises(SpecError, match="parameter ogre.hp = 0"):
        party.at(**{"ogre.hp": 0})
    with pytest.raises(SpecError, match="is not a parameter of party_vs_ogre.toml"):
        party.at(**{"troll.hp": 3})


def test_names_and_objects_find_their_models(party):
    assert model_named(str(PARTY)).point == {**party.point, "order": "rolled"}
    assert model_named("crit-range").name == "crit-range" and model_named(SAVAGE).parameter("trait")
    assert isinstance(as_model(party.spec()), EncounterModel)
    assert as_model(party) is party and as_model("thac0").name == "thac0"
    with pytest.raises(TypeError, match="a model is a system"):
        model_of("thac0")
    assert dataclasses.is_dataclass(party.parameter("order"))


def test_system_mechanic_and_fight_models_pickle_by_reference():
    spec = critlab.get_system("thac0").make_spec(thac0=15, target_ac=5)
    trait = model_of(critlab.get_system(SAVAGE)).at(trait=6)
    for model in (model_of(spec), trait, FightModel.of(spec, hp=12)):
        again = pickle.loads(pickle.dumps(model))
        assert again.point == model.point and same(again.exact(), model.exact())


def test_an_encounter_model_pickles_as_its_settings(party):
    moved = party.at(**{"ogre.hp": 22})
    again = pickle.loads(pickle.dumps(moved))
    assert again.point == moved.point and again.name == moved.name and same(again.exact(), moved.exact())
    assert [p.name for p in again.parameters] == [p.name for p in party.parameters]


def test_an_encounter_with_a_mechanic_attack_pickles_by_its_reference(tmp_path):
    (tmp_path / "rules.py").write_text(AXE)
    (tmp_path / "brawl.toml").write_text(BRAWL)
    model = model_named(str(tmp_path / "brawl.toml")).at(**{"orc.defense.armor": 9})
    assert "hero.armor" not in model.point  # the orc's defense sets it: no parameter of its own
    assert model.parameter("orc.defense.armor").lo == 1 and model.point["orc.defense.armor"] == 9
    again = pickle.loads(pickle.dumps(model))
    assert again.point == model.point
    # the same numbers; the mechanic is named by its loadable (absolute) reference after the trip
    ours, theirs = model.exact().to_json(), again.exact().to_json()
    assert ours.pop("encounter") != theirs.pop("encounter") and ours == theirs


AXE = """
from critlab.analysis.mechanic import Int, mechanic, param


@mechanic(
    labels=("miss", "hit"),
    values=("damage",),
    params={"armor": param(11, Int(1, 30), "the d20 total that hits")},
    inputs={"to_hit": "1d20", "dmg": "1d8"},
)
def axe(to_hit, dmg, *, armor):
    if to_hit >= armor:
        return "hit", dmg
    return "miss", 0
"""
BRAWL = """
order = "a-first"
[[a.combatants]]
name = "hero"
hp = 12
attack = { mechanic = "rules.py:axe" }
defense = { target_ac = 5 }
[[b.combatants]]
name = "orc"
hp = 10
attack = { system = "thac0", thac0 = 16, damage = "1d6" }
defense = { armor = 12 }
"""
