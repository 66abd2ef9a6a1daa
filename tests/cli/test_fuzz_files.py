"""Fuzzing the files a designer hands critlab and the work they ask for: encounter files
(read within bounds, every setting checked), report folders holding the user's files in
every sub-folder (never removed), and the work budget (a run over it refused before any
dice are computed, a run within it finishing well inside the watchdog).

Each case is held to the contract of tests/_fuzz.py; hypothesis is derandomised
(conftest.py), so every run tries the same cases.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from _fuzz import FUZZ, check_cli, check_line, watchdog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import critlab.analysis.work as work_module
from critlab.analysis.cli import main as cli
from critlab.analysis.design.tune import tune_params
from critlab.analysis.dice import terms
from critlab.analysis.report import build_report, output
from critlab.analysis.report.config import ConfigError, parse_config
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system
from critlab.analysis.text.numtext import one_line

# -- encounter files --------------------------------------------------------------------------
DUEL = {
    "order": "a-first",
    "max_rounds": 30,
    "a": {
        "combatants": [
            {"name": "hero", "hp": 8, "attack": {"system": "thac0", "thac0": 15}, "defense": {"target_ac": 4}}
        ]
    },
    "b": {
        "targeting": "focus",
        "combatants": [
            {
                "name": "rat",
                "hp": 3,
                "attack": {"system": "thac0", "thac0": 19, "damage": "1d3"},
                "defense": {"target_ac": 7},
            },
        ],
    },
}
ENCOUNTER_VALUE = st.one_of(
    st.integers(-3, 12),
    st.sampled_from([0, 10**4, 10**4 + 1, 2**63 - 1, 10**30, "1d4", "100d1000", "none", "", "focus"]),
    st.sampled_from(["rolled", "b-first", "sideways", 1.5, True, [], {}, [1, 2], {"x": 1}]),
    st.text(max_size=6),
)  # fmt: skip
# (where, key): a key of the duel to set or add
ENCOUNTER_PLACES = (
    [("top", k) for k in ("order", "max_rounds", "a", "b", "c")]
    + [("side", k) for k in ("targeting", "combatants", "extra")]
    + [("hero", k) for k in ("name", "hp", "attacks", "initiative", "attack", "defense", "armour")]
    + [("attack", k) for k in ("system", "thac0", "damage", "target_ac", "crit_option", "mechanic", "nope")]
)


@st.composite
def encounter_texts(draw) -> str:
    """The duel in TOML with one to three settings fuzzed, or text that is hardly TOML."""
    import copy

    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(alphabet='[]{}=."\n #abcdefghijklmnopqrstuvwxyz_0123456789-,', max_size=60))
    doc = copy.deepcopy(DUEL)
    hero = doc["a"]["combatants"][0]
    tables = {"top": doc, "side": doc["b"], "hero": hero, "attack": hero["attack"]}
    for _ in range(draw(st.integers(1, 3))):
        where, key = draw(st.sampled_from(ENCOUNTER_PLACES))
        tables[where][key] = draw(ENCOUNTER_VALUE)
    return _toml(doc)


def _toml(doc: dict) -> str:
    """A small TOML writer for the fuzzed duel (nested tables inline)."""
    import json

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{json.dumps(str(k))} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, float):
            return repr(v)
        return json.dumps(v) if isinstance(v, str) else str(v)

    return "\n".join(f"{json.dumps(str(k))} = {value(v)}" for k, v in doc.items()) + "\n"


def test_the_fuzzed_duel_is_an_encounter(tmp_path, capsys):
    (tmp_path / "duel.toml").write_text(_toml(DUEL), encoding="utf-8")
    assert check_cli(["encounter", str(tmp_path / "duel.toml"), "--json"], capsys) == 0


@FUZZ
@given(text=encounter_texts(), command=st.sampled_from(["encounter", "tune", "sensitivity"]))
def test_encounter_files(tmp_path_factory, capsys, bounded_memory, text, command):
    path = tmp_path_factory.mktemp("encounter") / "duel.toml"
    path.write_text(text, encoding="utf-8")
    argv = {
        "encounter": ["encounter", str(path), "--json"],
        "tune": ["tune", str(path), "--vary", "rat.hp=1..4", "--target", "a_wins=0.8", "--json"],
        "sensitivity": ["sensitivity", str(path), "--only", "rat.hp", "--json"],
    }[command]
    check_cli(argv, capsys)


@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["zero", "deep-arrays", "deep-tables", "digits", "big"]),
    command=st.sampled_from(["encounter", "tune", "sensitivity", "report"]),
)
def test_encounter_files_past_the_bounds(tmp_path_factory, capsys, bounded_memory, kind, command):
    folder = tmp_path_factory.mktemp("bounds")
    path = folder / "duel.toml"
    if kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "deep-arrays":
        path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    elif kind == "deep-tables":
        path.write_text("[" + ".".join(["t"] * 500) + "]\n", encoding="utf-8")
    elif kind == "digits":
        path.write_text("max_rounds = " + "7" * 6000 + "\n", encoding="utf-8")
    else:
        path.write_bytes(b"# " + b"x" * (16 * 2**20) + b"\n")
    if command == "report":
        conf = folder / "conf.toml"
        conf.write_text(
            '[[encounters]]\nfile = "duel.toml"\nvary = { "rat.hp" = [1, 2] }\n', encoding="utf-8"
        )
        argv = ["report", "--config", str(conf), "--out", str(folder / "out"), "--no-progress"]
    else:
        argv = {
            "encounter": ["encounter", str(path)],
            "tune": ["tune", str(path), "--vary", "rat.hp=1..2", "--target", "a_wins=0.5"],
            "sensitivity": ["sensitivity", str(path)],
        }[command]
    with watchdog():
        status = cli.main(argv)
    err = capsys.readouterr().err
    assert status == 2 and len(err.splitlines()) == 1, err[:400]
    check_line(err.strip())
    assert not (folder / "out").exists()


# -- report folders with the user's files in them -----------------------------------------------
REPORT = """
[report]
name = "tiny"
[[encounters]]
file = "duel.toml"
id = "by-ac"
vary = { "rat.hp" = [2, 3] }
"""  # exact chains only: no simulation to compile
FOLDERS = ["", "tables/", "figures/", "tables/sub/", "figures/a/b/", "mine/", ".hidden/"]
NAMES = [
    "mine.csv",
    "mine.png",
    "notes.txt",
    "encounters--mine.csv",
    "encounters--by-ac.csv~",
    "README.md.old",
]
USERS = st.lists(
    st.tuples(st.sampled_from(FOLDERS), st.sampled_from(NAMES), st.sampled_from(["file", "link", "folder"])),
    min_size=1,
    max_size=4,
)


@pytest.fixture(scope="module")
def tiny_report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny")
    conf = folder / "tiny.toml"
    conf.write_text(REPORT, encoding="utf-8")
    (folder / "duel.toml").write_text(_toml(DUEL), encoding="utf-8")
    build_report(conf, out=folder / "report", progress=False)
    return folder


def _snapshot(folder: Path) -> dict[str, str]:
    """Every entry under ``folder``: a file's hash, a link's target, a folder's mark."""

    def entry(p: Path) -> str:
        if p.is_symlink():
            return f"-> {os.readlink(p)}"
        return hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "/"

    return {str(p.relative_to(folder)): entry(p) for p in sorted(folder.rglob("*"))}


def _foreign_name(folder: str, name: str, kind: str) -> str:
    """How the report names an entry of the user's: its top-most part the report did not
    write (a folder with a trailing ``/``)."""
    parts = [p for p in folder.split("/") if p]
    if parts and parts[0] not in ("tables", "figures"):
        return parts[0] + "/"
    if len(parts) >= 2:
        return f"{parts[0]}/{parts[1]}/"
    rel = "/".join([*parts, name])
    return rel + "/" if kind == "folder" else rel


def _put(report: Path, users: list[tuple[str, str, str]]) -> set[str]:
    """The user's entries put into ``report``; the names the report gives them."""
    names = set()
    for folder, name, kind in users:
        path = report / folder / name
        if path.exists() or path.is_symlink():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "file":
            path.write_text("a,b\n1,2\n", encoding="utf-8")
        elif kind == "link":
            path.symlink_to(report / "index.html")
        else:
            path.mkdir()
        names.add(_foreign_name(folder, name, kind))
    assert not names & (output.manifest(report) or frozenset())
    return names


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(users=USERS)
def test_a_report_never_removes_the_users_files(tiny_report, tmp_path_factory, capsys, monkeypatch, users):
    work = tmp_path_factory.mktemp("rerun")
    report = work / "report"
    shutil.copytree(tiny_report / "report", report, symlinks=True)
    expected = _put(report, users)
    assert set(output.foreign_files(report)) == expected
    before = _snapshot(report)
    argv = ["report", "--config", str(tiny_report / "tiny.toml"), "--out", str(report), "--no-progress"]
    with watchdog():
        status = cli.main(argv)
    err = capsys.readouterr().err
    assert status == 2 and len(err.splitlines()) == 1, err
    check_line(err.strip())
    assert min(expected) in err and "--force" in err
    assert _snapshot(report) == before


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(users=USERS)
def test_force_keeps_every_users_file_beside_the_new_report(
    tiny_report, tmp_path_factory, capsys, undrawn, users
):
    work = tmp_path_factory.mktemp("force")
    report = work / "report"
    shutil.copytree(tiny_report / "report", report, symlinks=True)
    _put(report, users)
    before = _snapshot(report)
    argv = ["report", "--config", str(tiny_report / "tiny.toml"), "--out", str(report), "--force"]
    with watchdog():
        assert cli.main([*argv, "--no-progress"]) == 0
    capsys.readouterr()
    (kept,) = [p for p in work.iterdir() if p.name.startswith("report.replaced-")]
    assert _snapshot(kept) == before
    assert output.foreign_files(report) == [] and not [p for p in work.iterdir() if ".critlab-" in p.name]


# -- the work budget ------------------------------------------------------------------------------
DICE = st.builds(
    lambda n, x, suffix, plus: f"{n}d{x}{suffix}{plus}",
    st.sampled_from([1, 2, 10, 30, 100]),
    st.sampled_from([6, 20, 100, 1000]),
    st.sampled_from(["", "", "!", "kh1", "ro1"]),
    st.sampled_from(["", "+1", "+1d4"]),
)
# a budget of ~1 s of exact work: a run it accepts finishes far inside the watchdog
SMALL_BUDGET = 3e9


@pytest.fixture
def counted_dice(monkeypatch):
    """How many dice expressions were computed (each distribution, once per expression)."""
    computed: list[str] = []
    real = terms._dist_of

    def dist_of(expr):
        computed.append(str(expr))
        return real(expr)

    monkeypatch.setattr(terms, "_dist_of", dist_of)
    return computed


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    damage=DICE,
    crit=DICE,
    hi=st.sampled_from([0, 3, 10, 20]),
    system=st.sampled_from(["thac0", "crit-range"]),
)
def test_the_budget_refuses_before_any_dice_and_what_it_accepts_fits(
    monkeypatch, counted_dice, bounded_memory, damage, crit, hi, system
):
    monkeypatch.setattr(work_module, "BUDGET", SMALL_BUDGET)
    counted_dice.clear()  # the fixture lives across this test's examples
    if system == "thac0":
        params, vary = {"thac0": 15, "damage": damage}, {"target_ac": range(0, hi + 1), "to_hit": range(0, 3)}
    else:
        params = {"attack_bonus": 5, "damage": damage, "crit_dice": crit}
        vary = {"evasion": range(5, 6 + hi), "crit_range": range(1, 3)}
    try:
        with watchdog(seconds=60):  # about 1 s of work accepted: 60x its estimate
            df = tune_params(get_system(system), params, vary=vary, target=("hit", 0.5))
    except SpecError as exc:
        check_line(one_line(exc))  # as the command line prints it
        if "units of exact work" in str(exc):
            assert counted_dice == [], f"{exc}: computed {counted_dice[:3]} first"
        return
    assert len(df) > 0


@settings(max_examples=20, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    damage=st.lists(DICE, min_size=1, max_size=4, unique=True),
    repeat=st.sampled_from([1, 10, 200]),
    hp=st.sampled_from([None, 30, 2000]),
)
def test_report_sections_and_checks_are_priced_before_any_dice(monkeypatch, counted_dice, damage, repeat, hp):
    monkeypatch.setattr(work_module, "BUDGET", SMALL_BUDGET)
    grid = [f"{d}+{k}" for d in damage for k in range(repeat)]
    section = {"kind": "metric_by", "grid": {"damage": grid}, "metrics": ["expected_damage"]}
    row = {"system": "thac0", "params": {"thac0": 15, "target_ac": 5, "damage": damage[0]}, "quantity": "hit"}
    row["min"] = 0
    if hp is not None:
        row["params"]["hp"] = hp
    for doc in (
        {"systems": {"thac0": {"params": {"thac0": 15, "target_ac": 5}, "sections": [section]}}},
        {"checks": [row] * repeat},
    ):
        counted_dice.clear()
        try:
            with watchdog(seconds=60):
                parse_config(doc, "fuzz.toml")
        except ConfigError as exc:
            check_line(one_line(exc))  # as the command line prints it
            if "units of exact work" in str(exc) and "checks" not in doc:
                assert counted_dice == [], f"{exc}: computed {counted_dice[:3]} first"
            elif "units of exact work" in str(exc):  # a check's fight needs its damage: one, once
                assert len(set(counted_dice)) <= 1, counted_dice[:3]
