"""Encounters in a report configuration: ``[[encounters]]`` sections and encounter checks.

The section's numbers are held against a duel solved by hand (two 1 hp combatants, each
attack a hit with a probability read off the d20, side a first: a geometric race) and
against the exact chain called directly; every configuration mistake is one line naming
the file and key, found before any work; a passing and a failing encounter check set
``critlab report``'s exit status; the shipped example's encounter parts compute."""

from __future__ import annotations

import json
import tempfile
from fractions import Fraction
from html import unescape
from pathlib import Path

import pandas as pd
import pytest

from critlab.analysis.cli import main as cli
from critlab.analysis.encounter.exact import exact_encounter
from critlab.analysis.encounter.load import load_encounter
from critlab.analysis.encounter.settings import with_settings
from critlab.analysis.report import build_report
from critlab.analysis.report.build import run_sweep, wide_table
from critlab.analysis.report.checks import run_checks
from critlab.analysis.report.config import ConfigError, load_config
from critlab.analysis.report.figures import figure

ROOT = Path(__file__).resolve().parents[2]
DESIGNER = ROOT / "reports" / "examples" / "designer.toml"
OGRE = ROOT / "reports" / "examples" / "party_vs_ogre.toml"

# Both 1 hp, each attack's damage "1" (a critical's double still 1 hp down): one hit ends it.
DUEL = """
order = "a-first"
[[a.combatants]]
name = "hero"
hp = 1
attack = { system = "thac0", thac0 = 15, target_ac = 5, damage = "1" }
[[b.combatants]]
name = "rat"
hp = 1
attack = { system = "thac0", thac0 = 17, target_ac = 5, damage = "1" }
"""

SECTION = """
[report]
name = "duel"
[[encounters]]
file = "duel.toml"
id = "duel"
title = "Hero against rat"
vary = { "hero.thac0" = [11, 15, 19] }
quantities = ["a_wins", "b_wins", "p_any_down_a", "mean_rounds"]
"""


def encounter_table(section):
    """A section's wide table, as every sweep section's is built (its model at each point)."""
    return wide_table(section, run_sweep(section))


def _p_hit(thac0: int, ac: int) -> Fraction:
    """A THAC0 attack's chance to hit: d20 >= thac0 - ac, a natural 1 missing and a 20 hitting."""
    need = min(20, max(2, thac0 - ac))
    return Fraction(21 - need, 20)


def _duel(pa: Fraction, pb: Fraction) -> dict[str, float]:
    """Side a first, each round a's attack then b's: a geometric race over rounds."""
    q = 1 - (1 - pa) * (1 - pb)  # the round decides it
    a = pa / q
    return {
        "a_wins": float(a),
        "b_wins": float(1 - a),
        "p_any_down_a": float(1 - a),
        "mean_rounds": float(1 / q),
    }


def _write(folder: Path, config: str, duel: str = DUEL) -> Path:
    (folder / "duel.toml").write_text(duel, encoding="utf-8")
    path = folder / "duel_report.toml"
    path.write_text(config, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def duel_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("duel")
    config = _write(folder, SECTION)
    result = build_report(config, out=folder / "out", progress=False)
    return config, result


# -- the numbers -----------------------------------------------------------------------------
def test_each_point_is_the_duel_solved_by_hand():
    with tempfile.TemporaryDirectory() as tmp:
        section = load_config(_write(Path(tmp), SECTION)).encounters[0]
        wide = encounter_table(section)
    assert list(wide.columns) == ["hero.thac0", "a_wins", "b_wins", "p_any_down_a", "mean_rounds"]
    rat = _p_hit(17, 5)  # 9/20
    for row in wide.to_dict(orient="records"):
        want = _duel(_p_hit(row["hero.thac0"], 5), rat)
        for q, value in want.items():
            # the chain stops with under 1e-13 of the mass still fighting: the rounds it never
            # plays move the mean by about (rounds played) x 1e-13
            tol = 1e-11 if q == "mean_rounds" else 1e-12
            assert row[q] == pytest.approx(value, abs=tol), (row["hero.thac0"], q)


def test_each_point_is_the_exact_chain_called_directly(tmp_path):
    text = f"""
[[encounters]]
file = "{OGRE.as_posix()}"
vary = {{ ogre.hp = "20..22" }}
quantities = ["a_wins+draw", "p_down_cleric", "mean_hp_left_ogre", "p_any_down_b"]
set = {{ order = "a-first", b.targeting = "focus" }}
"""
    section = load_config(_write(tmp_path, text)).encounters[0]
    assert section.axes[0].values == (20, 21, 22)
    assert section.facts["set"] == {"order": "a-first", "b.targeting": "focus"}
    assert section.title == "party_vs_ogre: by ogre's hit points" and section.id == "encounter-1"
    wide = encounter_table(section)
    base = load_encounter(OGRE)
    for row in wide.to_dict(orient="records"):
        enc = with_settings(base, {"order": "a-first", "b.targeting": "focus", "ogre.hp": row["ogre.hp"]})
        r = exact_encounter(enc)
        assert row["a_wins+draw"] == r.outcomes["a_wins"] + r.outcomes["draw"]
        for q in ("p_down_cleric", "mean_hp_left_ogre", "p_any_down_b"):
            assert row[q] == r.metrics[q]


# -- the files ---------------------------------------------------------------------------------
def test_the_figure_the_csv_and_the_summary(duel_report):
    _, result = duel_report
    out = result.out
    png = out / "figures" / "encounters--duel.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    csv = pd.read_csv(out / "tables" / "encounters--duel.csv")
    assert list(csv["hero.thac0"]) == [11, 15, 19]
    assert csv["a_wins"].iloc[1] == pytest.approx(float(_duel(Fraction(11, 20), Fraction(9, 20))["a_wins"]))
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    info = next(s for s in summary["sections"] if s.get("kind") == "encounter")
    assert info["encounter"] == "duel.toml" and info["points"] == 3 and info["figure"].endswith("duel.png")
    key = "encounters/duel/hero.thac0=15/a_wins"
    assert summary["metrics"][key] == {
        "kind": "exact",
        "value": pytest.approx(csv["a_wins"].iloc[1], abs=1e-14),
    }
    html = unescape((out / "index.html").read_text(encoding="utf-8"))
    assert "Hero against rat" in html and "P(side a wins)" in html and "hero's THAC0" in html


def test_the_figure_keeps_probabilities_and_amounts_apart(tmp_path):
    section = load_config(_write(tmp_path, SECTION)).encounters[0]
    fig = figure(section, encounter_table(section))
    rounds, probability = fig.axes  # amounts first, as every sweep section's figure
    assert len(probability.get_lines()) == 3 and probability.get_ylim()[0] == 0
    assert probability.yaxis.get_major_formatter()(0.25, 0) == "25%"  # probabilities in percent
    assert len(rounds.get_lines()) == 1 and "rounds" in rounds.get_ylabel()


def test_each_amount_has_an_axis_of_its_own(tmp_path):
    text = SECTION.replace('"mean_rounds"]', '"mean_rounds", "mean_hp_left_hero"]')
    section = load_config(_write(tmp_path, text)).encounters[0]
    rounds, hp, probability = figure(section, encounter_table(section)).axes
    assert "rounds" in rounds.get_ylabel() and hp.get_ylabel() == "hero's mean hit points left"


def test_a_choice_is_drawn_as_points_over_its_words(tmp_path):
    text = SECTION.replace('"hero.thac0" = [11, 15, 19]', 'order = ["a-first", "b-first", "simultaneous"]')
    section = load_config(_write(tmp_path, text)).encounters[0]
    wide = encounter_table(section)
    # b first: the rat's swing comes first each round, the race otherwise the same
    pa, pb = Fraction(11, 20), Fraction(9, 20)
    assert wide["b_wins"].iloc[1] == pytest.approx(float(pb / (1 - (1 - pa) * (1 - pb))), abs=1e-12)
    _, probability = figure(section, wide).axes
    assert [t.get_text() for t in probability.get_xticklabels()] == ["a-first", "b-first", "simultaneous"]
    assert probability.get_xlabel() == "turn order"


# -- configuration errors ----------------------------------------------------------------------
V = '"hero.thac0" = [11, 15, 19]'
T = 'title = "Hero against rat"'
BAD = [
    ('file = "duel.toml"', 'file = "missing.toml"', "[1].file: cannot read encounter file missing.toml"),
    ('file = "duel.toml"', 'file = "duel.txt"', "[1].file: must be an encounter file ending in .toml"),
    (V, '"hero.speed" = [1, 2]', "[1].vary.hero.speed: parameter hero.speed"),
    (V, '"hero.hp" = [1, 0]', "[1].vary.hero.hp[2]: hero.hp must be an integer in 1..10000"),
    (V, '"order" = ["a-first", "last"]', "[1].vary.order[2]: order must be one of a-first"),
    (V, '"hero.thac0" = [11, 11]', "[1].vary.hero.thac0: has a value twice"),
    (V, '"hero.hp" = "1..500"', "[1].vary.hero.hp: 500 values; an encounter section has 1..100 points"),
    (V, '"hero.hp" = [1], "rat.hp" = [1]', "[1].vary: vary exactly one setting"),
    (V, '"hero.thac0" = [11, "x"]', "[1].vary.hero.thac0[2]: hero.thac0 must be an integer"),
    (V, '"hero.damage" = ["1", "2d"]', "[1].vary.hero.damage[2]: at hero.damage = 2d: "),
    (V, '"hero.hp" = [4000, 4001]', "[1].vary.hero.hp[1]: at hero.hp = 4000: the exact chain would"),
    (V, '"hero.hp" = "9..3"', "[1].vary.hero.hp: LO..HI needs LO <= HI, got '9..3'"),
    ('"mean_rounds"]', '"mean_rounds", "p_down_ogre"]', "[1].quantities[5]: parameter quantity = p_down"),
    (T, 'colour = "red"', "[1].colour: unknown key 'colour'"),
    (T, 'set = { "hero.thac0" = 12 }', "[1].vary.hero.thac0: hero.thac0 is also given in set"),
    (T, 'set = { "rat.initiative" = 30 }', "[1].set.rat.initiative: rat.initiative must be an integer"),
    (T, "set = { rat = { attacks = 0 } }", "[1].set.rat.attacks: rat.attacks must be an integer in 1..10"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "said"), BAD, ids=[b[2].split(":")[0] + f"-{i}" for i, b in enumerate(BAD)]
)
def test_each_mistake_is_one_line_naming_the_file_and_key(tmp_path, old, new, said):
    assert old in SECTION
    # a hero of 4000 hp against a rat of 4000: 4001^2 states, over 10^7
    duel = DUEL.replace("hp = 1\n", "hp = 4000\n") if "4000" in new else DUEL
    config = _write(tmp_path, SECTION.replace(old, new), duel)
    with pytest.raises(ConfigError) as info:
        load_config(config)
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"{config}: "), text
    assert "encounters" + said in text, text


def test_a_section_over_the_work_budget_is_refused_before_any_point():
    # a 300..399 hp hero against a 2000 hp rat, one damage a hit, up to 10^4 rounds: each
    # point under the chain's 10^7 states, the hundred together far past the shared budget
    duel = DUEL.replace('order = "a-first"', 'order = "a-first"\nmax_rounds = 10000').replace(
        "hp = 1\n", "hp = 2000\n"
    )
    text = SECTION.replace('"hero.thac0" = [11, 15, 19]', '"hero.hp" = "300..399"')
    with tempfile.TemporaryDirectory() as tmp:
        with pytest.raises(ConfigError) as info:
            load_config(_write(Path(tmp), text, duel))
    said = str(info.value)
    assert "encounters[1].vary.hero.hp: parameter hero.hp = 100 points: need about" in said, said
    assert "units of exact work" in said and "\n" not in said


def test_a_bad_section_exits_2_on_the_command_line_before_any_work(tmp_path, capsys):
    config = _write(tmp_path, SECTION.replace('"hero.thac0" = [11, 15, 19]', '"hero.hp" = [0]'))
    status = cli.main(["report", "--config", str(config), "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "encounters[1].vary.hero.hp[1]" in err
    assert not (tmp_path / "out").exists()


# -- checks ------------------------------------------------------------------------------------
CHECK = """
[report]
name = "duel-checks"
[[checks]]
name = "the hero wins the duel"
encounter = "duel.toml"
params = { hero.thac0 = 11 }
quantity = "a_wins"
min = {low}
"""


@pytest.mark.parametrize(("low", "status"), [(0.8, 0), (0.9, 1)])
def test_an_encounter_check_passes_or_fails_the_run(tmp_path, capsys, low, status):
    value = _duel(Fraction(15, 20), Fraction(9, 20))["a_wins"]  # 0.75 / 0.8625 = 0.8696
    config = _write(tmp_path, CHECK.replace("{low}", str(low)))
    out = tmp_path / "out"
    assert cli.main(["report", "--config", str(config), "--out", str(out), "--no-progress"]) == status
    capsys.readouterr()
    (row,) = json.loads((out / "summary.json").read_text(encoding="utf-8"))["checks"]
    assert row["encounter"] == "duel.toml" and "system" not in row
    assert row["params"] == {"hero.thac0": 11} and row["value"] == pytest.approx(value, abs=1e-12)
    assert row["passed"] is (status == 0)


P = "params = { hero.thac0 = 11 }"
E = 'encounter = "duel.toml"'
CHECK_BAD = [
    ('quantity = "a_wins"', 'quantity = "a_winz"', "checks[1].quantity: parameter quantity = a_winz"),
    (P, "params = { hero.luck = 11 }", "checks[1].params.hero.luck: parameter hero.luck"),
    (P, 'params = { order = "first" }', "checks[1].params.order: order must be one of"),
    (P, "params = { hero.hp = 4000, rat.hp = 4000 }", "checks[1].params: the exact chain would hold more"),
    ("min = {low}", "", "checks[1]: give min and/or max"),
    (E, E + '\nsystem = "crit-range"', "checks[1].system: a check holds a system or an encounter"),
    (E, 'encounter = "nowhere.toml"', "checks[1].encounter: cannot read encounter file nowhere.toml"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "said"), CHECK_BAD, ids=[b[2].split(":")[0] + f"-{i}" for i, b in enumerate(CHECK_BAD)]
)
def test_each_check_mistake_is_one_line_naming_the_key(tmp_path, old, new, said):
    config = _write(tmp_path, CHECK.replace(old, new).replace("{low}", "0.5"))
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert "\n" not in str(info.value) and said in str(info.value), str(info.value)


# -- the shipped example -----------------------------------------------------------------------
def test_the_designer_example_holds_an_encounter_section_and_check():
    cfg = load_config(DESIGNER)
    section, tactics = cfg.encounters
    assert section.facts["encounter"] == "party_vs_ogre.toml" and section.facts["set"] == {}
    assert tactics.facts["set"] == {"b.targeting": "best", "order": "a-first"}
    assert section.model.said("ogre.hp") == "ogre's hit points"  # the model's own words
    wide = encounter_table(section)
    assert list(wide["ogre.hp"]) == list(range(20, 61))  # every point answers, rolled initiative
    base = load_encounter(OGRE)
    for row in wide.to_dict(orient="records"):
        r = exact_encounter(with_settings(base, {"ogre.hp": row["ogre.hp"]}))
        assert row["a_wins"] == r.outcomes["a_wins"] and row["p_any_down_a"] == r.metrics["p_any_down_a"]
    assert list(wide["a_wins"]) == sorted(wide["a_wins"], reverse=True)  # a tougher ogre wins more
    (check,) = [c for c in cfg.checks if "encounter" in c.origin()]
    (row,) = run_checks([check])
    enc = with_settings(load_encounter(OGRE), {"ogre.hp": 30, "order": "a-first"})
    assert row["passed"] and row["value"] == exact_encounter(enc).outcomes["a_wins"]


def test_what_changed_says_an_encounter_sections_moves_in_words(tmp_path):
    config = _write(tmp_path, SECTION)
    before = build_report(config, out=tmp_path / "before", progress=False)
    _write(tmp_path, SECTION, DUEL.replace("thac0 = 17", "thac0 = 14"))  # the rat hits 12/20, not 9/20
    after = build_report(config, out=tmp_path / "after", baseline=before.out / "summary.json", progress=False)
    readme = (after.out / "README.md").read_text(encoding="utf-8")
    line = next(t for t in readme.splitlines() if t.startswith("encounters · Hero against rat: "))
    # hero.thac0 = 11 hits 15/20: P(a wins) = (3/4) / (1 - (1/4)(2/5)), was (3/4) / (1 - (1/4)(11/20))
    drop = (
        _duel(Fraction(3, 4), Fraction(12, 20))["a_wins"] - _duel(Fraction(3, 4), Fraction(9, 20))["a_wins"]
    )
    assert "P(side a wins) fell at 3 points" in line and "P(someone on side a goes down) rose" in line
    assert f"{100 * drop:.3g} percentage points" in line or f"{100 * drop:+.3g}" in line, (line, drop)


def test_encounter_checks_share_the_checks_work_budget(tmp_path):
    # each check a 399 hp hero against a 2000 hp rat over up to 10^4 rounds: the first
    # check whose work, with the checks' before it, passes the budget is refused at its key
    from critlab.analysis.encounter.work import encounter_work
    from critlab.analysis.work import BUDGET

    duel = DUEL.replace('order = "a-first"', 'order = "a-first"\nmax_rounds = 10000').replace(
        "hp = 1\n", "hp = 2000\n"
    )
    one = (
        CHECK.split("[[checks]]")[1].replace("{ hero.thac0 = 11 }", "{ hero.hp = 399 }").replace("{low}", "0")
    )
    text = '[report]\nname = "heavy"\n' + "".join("[[checks]]" + one for _ in range(20))
    config = _write(tmp_path, text, duel)
    each = encounter_work(with_settings(load_encounter(tmp_path / "duel.toml"), {"hero.hp": 399}))
    first = next(k for k in range(1, 21) if k * each > BUDGET)
    assert 1 < first <= 20
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert f": checks[{first}]: with the checks before it, " in str(info.value), str(info.value)


# -- one kind of section -----------------------------------------------------------------------
def test_an_encounter_section_is_led_as_a_systems_section_is(tmp_path):
    text = SECTION.replace('title = "Hero against rat"', 'title = "Hero against rat"\nheadline = true')
    text += 'lead = { axis = "hero.thac0", from = 11, to = 19 }\n'
    result = build_report(_write(tmp_path, text), out=tmp_path / "out", progress=False)
    info = next(s for s in result.summary["sections"] if s.get("kind") == "encounter")
    compare, shape = info["lead"]
    assert compare == "Hero's THAC0 19 instead of 11 cuts P(side a wins) from 87% to 54.5%.", compare
    assert shape.startswith("P(side a wins) falls from 87% at hero's THAC0 11 to 54.5% at 19; ")
    assert "mean rounds (of decided encounters) rises from 1.16 to 1.56" in shape
    readme = (result.out / "README.md").read_text(encoding="utf-8")
    findings = readme.split("What this report says", 1)[1].split("\n#", 1)[0]
    assert compare in findings and "#encounters--duel" in findings  # the page's findings, linked


def test_a_bad_lead_is_refused_at_its_key(tmp_path):
    text = SECTION + 'lead = { axis = "rat.hp", from = 1, to = 2 }\n'
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, text))
    assert "encounters[1].lead: axis must be one of the section's axes (hero.thac0)" in str(info.value)


def test_the_section_names_things_as_its_model_says_them(tmp_path):
    section = load_config(_write(tmp_path, SECTION)).encounters[0]
    said = section.model.said
    assert said("hero.thac0") == "hero's THAC0" and said("a_wins") == "P(side a wins)"
    assert said("mean_rounds") == "mean rounds (of decided encounters)"
    assert section.outcomes == ("a_wins", "b_wins", "p_any_down_a")  # its probabilities, in percent
    assert section.metrics == ("mean_rounds",) and section.plotted == section.quantities
    from critlab.analysis.systems import get_system

    assert get_system("thac0").model().said("thac0") is None  # a system's words are its declarations'
