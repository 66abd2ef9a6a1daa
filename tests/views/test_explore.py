"""critlab.explore, driven without a browser: every control of every registered system,
of a mechanic, a fight and an encounter moves the answer to exactly the engine's own
answer at the new point (``critlab.exact``, ``critlab.fight``, ``critlab.encounter``); a
point the rules refuse shows the rules' own line; the simulate button validates the
current point at its seed."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden.capture import POINTS

import critlab
from critlab.analysis.encounter.load import load_encounter
from critlab.analysis.model import BOOLEAN, CHOICE, DICE, INTEGER, NUMBER
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import registry
from critlab.analysis.validate import validate

ROOT = Path(__file__).resolve().parents[2]
SAVAGE = f"{ROOT}/notebooks/examples/savage_worlds.py:trait_roll"
PARTY = ROOT / "reports" / "examples" / "party_vs_ogre.toml"


def moves(p, value):
    """Other values of parameter ``p`` to move its control to from ``value``."""
    if p.kind == INTEGER:
        return [v for v in (value + p.step, value - p.step) if p.lo <= v <= p.hi][:1]
    if p.kind == CHOICE:
        return [c for c in p.choices if c != value]
    if p.kind == BOOLEAN:
        return [not value]
    if p.kind == NUMBER:
        return [round(value + 0.05, 2) if value + 0.05 < p.hi else round(value - 0.05, 2)]
    if p.kind == DICE:
        return ["2d4+1"]
    # other text (a wound ladder): the same text with its last threshold one higher, and nonsense
    head, _, last = str(value).rpartition(":")
    return [f"{head}:{int(last) + 1}", "not a ladder"] if last.isdigit() else ["not a ladder"]


def expected(answer, point):
    """The engine's own answer at ``point``: ``(result, None)`` or ``(None, its one line)``."""
    try:
        return answer(point), None
    except ValueError as exc:
        return None, str(exc)


def check_every_control(ex, answer):
    """Move each control of ``ex`` to each of its other values and back, holding the
    explorer's answer (or refusal) to the engine's at every point."""
    moved = 0
    for name, widget in ex.controls.items():
        c = ex.controls_of[name]
        start, given = widget.value, None if c.given is None else c.given.value
        shown = start.strip() if isinstance(start, str) else start
        for value in moves(c.parameter, shown):
            widget.value = value
            assert c.value() == value  # an optional number moved is given
            same_answer(ex, answer, name)
            moved += 1
        if c.given is not None:  # none: the optional number's tick taken away
            c.given.value = False
            assert c.value() is None and ex.point[name] is None
            same_answer(ex, answer, name)
        widget.value = start
        if c.given is not None:
            c.given.value = given  # after the widget: moving it ticks the box
    assert ex.refusal is None or ex.result is None
    return moved


def same_answer(ex, answer, name):
    result, refusal = expected(answer, ex.point)
    if result is None:
        assert ex.result is None and ex.refusal == refusal, name
        assert refusal in ex.message.value.replace("&#x27;", "'")
    else:
        assert ex.refusal is None and ex.result.to_json() == result.to_json(), name


def system_answer(system):
    return lambda point: critlab.exact(system.make_spec(**point))


@pytest.mark.parametrize("name", list(registry()))
def test_every_control_of_a_system_moves_its_exact_answer(name):
    system = critlab.get_system(name)
    spec = system.make_spec(**POINTS.get(name, [{}])[0])
    ex = critlab.explore(spec)
    assert set(ex.controls) == {p.name for p in system.model().parameters}
    assert ex.result.to_json() == critlab.exact(spec).to_json() and ex.spec() == spec
    assert check_every_control(ex, system_answer(system)) >= len(ex.controls) - 1
    assert ex.result.to_json() == critlab.exact(spec).to_json()  # back where it started


def test_every_control_of_a_mechanic():
    trait = critlab.get_system(SAVAGE)
    ex = critlab.explore(SAVAGE)
    assert list(ex.controls) == ["trait", "target"]
    assert type(ex.controls["trait"]).__name__ == "IntSlider" and ex.controls["trait"].min == 4
    assert ex.controls["trait"].step == 2  # the die's sides: 4, 6, 8, 10, 12
    check_every_control(ex, system_answer(trait))
    ex.controls["trait"].value = 12
    assert ex.result.to_json() == trait.exact(trait.make_spec(trait=12)).to_json()


def test_the_kinds_of_controls_and_their_labels():
    ex = critlab.explore("crit-range", attack_bonus=5, evasion=15)
    kinds = {name: type(w).__name__ for name, w in ex.controls.items()}
    assert kinds["crit_range"] == "IntSlider" and kinds["roll"] == "Dropdown" and kinds["damage"] == "Text"
    assert kinds["dr"] == "BoundedFloatText" and "attack_bonus" not in kinds  # fixed: no control
    assert (
        critlab.explore("contest", a_skill=12, b_skill=10).controls["rescale"].__class__.__name__
        == "Checkbox"
    )
    assert ex.controls["damage"].description == "damage (hp)" and ex.controls["dt"].description == "DT"
    note = ex.controls_of["damage"].note
    assert note.value.startswith("1d10: ")  # the notation's reading, in words
    ex.controls["damage"].value = "2d"
    assert "error: parameter damage = 2d" in note.value and ex.result is None
    assert ex.refusal.startswith("parameter damage = 2d: ")
    ex.controls["damage"].value = "2d6"
    assert ex.result is not None and note.value.startswith("2d6: ")
    ex.controls["mode"].value = "test"  # the attack's parameters are greyed out
    assert ex.controls["dt"].disabled and not ex.controls["bonus"].disabled
    assert "used when mode is attack" in ex.controls["dt"].tooltip


def test_a_refused_point_shows_the_rules_line_and_keeps_the_last_figure():
    ex = critlab.explore("crit-range", attack_bonus=5, evasion=15)
    figure = ex.view.outputs
    ex.controls["crit_range"].value = 15
    assert ex.view.outputs != figure  # redrawn
    figure = ex.view.outputs
    ex.controls["critfail_range"].value = 10
    line = "parameter crit_range = 15: crit_range + critfail_range must be at most 20 (critfail_range = 10)"
    assert ex.result is None and ex.refusal == line and line in ex.message.value
    assert ex.view.outputs == figure and ex.view.layout.opacity == "0.35"
    with pytest.raises(SpecError, match="crit_range"):
        ex.spec()
    assert (
        ex.simulate(trials=10, seed=1) is None and "not allowed" in ex.checked.outputs[0]["data"]["text/html"]
    )
    ex.controls["critfail_range"].value = 1
    assert ex.refusal is None and ex.message.value == "" and ex.view.layout.opacity == "1"


def test_fixed_parameters_and_bad_input():
    with pytest.raises(SpecError, match="parameter evasion = x"):
        critlab.explore("crit-range", evasion="x")
    with pytest.raises(SpecError, match="is not a parameter of thac0"):
        critlab.explore("thac0", armour=3)
    with pytest.raises(TypeError, match="a model is a system"):
        critlab.explore(3)
    ex = critlab.explore("thac0", thac0=15)
    assert ex.point["thac0"] == 15 and "thac0" not in ex.controls
    assert ex.controls["target_ac"].value == 0  # a required parameter starts where its kind allows


def test_a_fight_is_explored_by_its_result():
    spec = critlab.get_system("thac0").make_spec(thac0=15, target_ac=5)
    ex = critlab.explore(critlab.fight(spec, hp=20))
    assert {"hp", "attacks_per_round", "max_rounds"} <= set(ex.controls)
    ex.controls["hp"].value = 31
    ex.controls["attacks_per_round"].value = 2
    assert ex.result.to_json() == critlab.fight(spec, hp=31, attacks_per_round=2).to_json()
    ex.controls["target_ac"].value = 2
    assert (
        ex.result.to_json() == critlab.fight(spec.replace(target_ac=2), hp=31, attacks_per_round=2).to_json()
    )


def small_encounter():
    thac0 = critlab.get_system("thac0")
    hero = critlab.Combatant("hero", 10, thac0.make_spec(thac0=15, target_ac=5), defense={"target_ac": 6})
    rats = [
        critlab.Combatant(f"rat{k}", 3, thac0.make_spec(thac0=19, target_ac=6, damage="1d3")) for k in (1, 2)
    ]
    return critlab.analysis.encounter.Encounter(
        critlab.analysis.encounter.Side((hero,)),
        critlab.analysis.encounter.Side(tuple(rats)),
        order="a-first",
    )


def test_every_control_of_an_encounter():
    from critlab.analysis.encounter.exact import exact_encounter
    from critlab.analysis.encounter.settings import with_settings

    enc = small_encounter()
    ex = critlab.explore(enc)
    assert ex.controls["rat1.hp"].description == "hit points (hp)"
    assert check_every_control(ex, lambda point: exact_encounter(with_settings(enc, point))) > 30


def test_an_encounter_file_with_fixed_settings():
    ex = critlab.explore(str(PARTY), order="a-first", **{"ogre.hp": 25})
    enc = load_encounter(PARTY)
    assert "ogre.hp" not in ex.controls and ex.point["ogre.hp"] == 25
    ex.controls["rogue.crit_range"].value = 4
    again = critlab.encounter(*_sides(enc, {"ogre.hp": 25, "rogue.crit_range": 4}), order="a-first")
    assert ex.result.to_json() == again.to_json()


def _sides(enc, settings):
    from critlab.analysis.encounter.settings import with_settings

    moved = with_settings(enc, settings)
    return moved.a, moved.b


def test_the_simulate_button_validates_the_current_point():
    system = critlab.get_system("thac0")
    ex = critlab.explore("thac0", thac0=15, target_ac=5)
    ex.controls["to_hit"].value = 2
    ex.trials.value, ex.seed.value = 20_000, 4
    ex.button.click()
    spec = system.make_spec(thac0=15, target_ac=5, to_hit=2)
    own = validate(critlab.exact(spec), system.simulate(spec, trials=20_000, seed=4, progress=False))
    assert ex.validation.p_value == own.p_value and ex.validation.passed
    html = ex.checked.outputs[0]["data"]["text/html"]
    assert "20,000 trials at seed 4" in html and "Passed" in html
    assert not ex.button.disabled and ex.button.description == "simulate"


def test_a_range_is_a_sliders_span_and_a_wide_range_is_windowed():
    ex = critlab.explore("crit-range", evasion=range(1, 36), attack_bonus=range(-10, 21))
    assert (ex.controls["evasion"].min, ex.controls["evasion"].max) == (1, 35)
    assert (ex.controls["attack_bonus"].min, ex.controls["attack_bonus"].max) == (-10, 20)
    assert "evasion" not in ex.fixed and ex.controls["evasion"].value == 1  # its start brought inside
    thac0 = critlab.explore("thac0", thac0=15)
    assert (thac0.controls["target_ac"].min, thac0.controls["target_ac"].max) == (-50, 50)  # of -1000..1000
    with pytest.raises(SpecError, match="parameter crit_range = 25"):
        critlab.explore("crit-range", crit_range=range(0, 26))
    with pytest.raises(SpecError, match="a range is the span of an integer's slider"):
        critlab.explore("crit-range", roll=range(3))
