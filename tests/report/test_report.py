"""Balance reports: a tiny thac0 report end to end, baselines, and configuration errors."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from _pictures import blank_png

from critlab.analysis.cli import main as cli
from critlab.analysis.report import build as report_build
from critlab.analysis.report import build_report, main, picture
from critlab.analysis.report.compare import EXACT_TOL, compare
from critlab.analysis.report.config import DEFAULT_CONFIG, ConfigError, load_config, parse_config
from critlab.analysis.systems import BUILT_IN, registry

ROOT = Path(__file__).resolve().parents[2]
DESIGNER = ROOT / "reports" / "examples" / "designer.toml"

TINY = """
[report]
name = "tiny"
title = "Tiny thac0 report"
trials = 20_000
batches = 4
seed = 11

[systems.thac0]
params = { thac0 = 15, target_ac = 5 }

[[systems.thac0.variants.weapon]]
name = "dagger"
damage = "1d4"

[[systems.thac0.variants.weapon]]
name = "sword"
damage = "1d8"

[[systems.thac0.sections]]
kind = "metric_by"
id = "by-ac"
title = "Damage by AC"
grid = { target_ac = { from = -2, to = 4, step = 2 }, thac0 = [15, 10] }
metrics = ["expected_damage"]
outcomes = ["critical_hit"]

[[systems.thac0.sections]]
kind = "outcomes_by"
id = "outcomes"
grid = { target_ac = [0, 5] }
variants = "weapon"

[[systems.thac0.sections]]
kind = "outcomes_by"
id = "hits"
grid = { target_ac = [0, 5], to_hit = [0, 2] }
outcomes = ["hit", "critical_hit"]
sum = true
chart = "heatmap"

[[systems.thac0.sections]]
kind = "validation"
id = "check"
title = "Validation: THAC0 15 against AC 5"
"""
N_FIGURES = 4  # three charted sweeps and one validation


def write(tmp: Path, text: str, name: str = "tiny.toml") -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A small report, built once for the module: its files, words and numbers (each
    picture a white one of its size; drawing is tested in test_report_design)."""
    tmp = tmp_path_factory.mktemp("report")
    config = write(tmp, TINY)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(picture, "png", blank_png)
        result = build_report(config, out=tmp / "out", progress=False)
    return config, result


def test_report_writes_every_file(tiny):
    _, result = tiny
    out = result.out
    for name in ("index.html", "README.md", "summary.json"):
        assert (out / name).is_file()
    figures = sorted(p.name for p in (out / "figures").glob("*.png"))
    assert len(figures) == N_FIGURES
    assert len(list((out / "tables").glob("*.csv"))) == 4
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert all(f"(figures/{name})" in readme for name in figures)


def test_html_is_self_contained_and_says_the_verdict_first(tiny):
    _, result = tiny
    page = (result.out / "index.html").read_text(encoding="utf-8")
    assert page.count('<img src="data:image/png;base64,') == N_FIGURES
    assert "<img" not in page.replace('<img src="data:image/png;base64,', "")
    assert "@media print" in page and 'name="viewport"' in page
    first = re.search(r"<p[^>]*>(.*?)</p>", page).group(1)
    assert first.startswith("Everything validated")
    assert page.index("Everything validated") < page.index("<nav>")
    readme = (result.out / "README.md").read_text(encoding="utf-8").splitlines()
    assert readme[2].startswith("**Everything validated")
    # every figure says whether its numbers are exact or simulated
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page)
    assert len(captions) == N_FIGURES
    assert all(c.startswith(("Exact: ", "Exact vs simulated (20,000 trials)")) for c in captions)
    assert "simulated ± SE" in page


def test_summary_json_holds_metrics_and_metadata(tiny):
    _, result = tiny
    summary = json.loads((result.out / "summary.json").read_text(encoding="utf-8"))
    assert summary["format"] == "critlab-report-summary/1"
    assert summary["validated"] is True and result.passed
    run = summary["run"]
    for key in (
        "critlab_version",
        "git_commit",
        "seed",
        "trials",
        "batches",
        "libraries",
        "wall_time_s",
        "python",
    ):
        assert key in run
    assert run["seed"] == 11 and run["trials"] == 20_000 and run["libraries"]["numpy"]
    assert run["critlab_version"] is not None
    (val,) = summary["validations"]
    assert val["trials"] == 20_000 and val["passed"] and 0 <= val["p_value"] <= 1
    metrics = summary["metrics"]
    exact = metrics["thac0/by-ac/target_ac=0,thac0=15/expected_damage"]
    assert exact["kind"] == "exact" and exact["value"] > 0
    assert metrics["thac0/outcomes/target_ac=5,weapon=sword/critical_hit"]["value"] == pytest.approx(0.05)
    assert "thac0/hits/target_ac=0,to_hit=2/P(hit or critical_hit)" in metrics
    sim = metrics["thac0/check/simulated/expected_damage"]
    assert sim["kind"] == "simulated" and sim["se"] > 0 and sim["trials"] == 20_000
    assert metrics["thac0/check/simulated/hit"]["se"] > 0
    assert summary["comparison"] is None


def test_baseline_against_itself_is_no_change(tiny, tmp_path, undrawn):
    config, first = tiny
    result = build_report(config, out=tmp_path / "again", baseline=first.out / "summary.json", progress=False)
    comparison = result.summary["comparison"]
    assert comparison["no_change"] is True and comparison["changes"] == []
    readme = (result.out / "README.md").read_text(encoding="utf-8")
    assert "no change" in readme.split("## Contents")[0]


def test_changed_crit_threshold_shows_the_expected_moves(tiny, tmp_path, undrawn):
    config, first = tiny
    text = config.read_text(encoding="utf-8").replace(
        "params = { thac0 = 15, target_ac = 5 }",
        "params = { thac0 = 15, target_ac = 5, crit_threshold = 19 }",
    )
    changed = write(tmp_path, text)
    result = build_report(
        changed, out=tmp_path / "changed", baseline=first.out / "summary.json", progress=False
    )
    moves = {c["key"]: c for c in result.summary["comparison"]["changes"]}
    # need 10: naturals 15+ hit by 5, so a 19-20 threshold adds exactly the natural 19
    crit = moves["thac0/check/exact/critical_hit"]
    assert crit["change"] == pytest.approx(0.05) and crit["beyond_noise"]
    assert moves["thac0/check/exact/hit"]["change"] == pytest.approx(-0.05)
    assert moves["thac0/check/exact/expected_damage"]["change"] > 0
    # 0.05 at 20,000 trials is about 20 standard errors: far beyond the |z| > 4 noise line
    assert moves["thac0/check/simulated/critical_hit"]["beyond_noise"]
    assert moves["thac0/by-ac/target_ac=4,thac0=15/critical_hit"]["change"] == pytest.approx(0.05)
    # the threshold only splits hits into critical and normal: misses and fumbles stay
    assert "thac0/check/exact/miss" not in moves and "thac0/check/exact/fumble" not in moves
    page = (result.out / "index.html").read_text(encoding="utf-8")
    assert "What changed" in page and "beyond noise" in page
    assert (result.out / "tables" / "changes.csv").is_file()
    # the input that changed is named first in each section it moved (the cause, then its effects)
    said = dict(result.summary["comparison"]["sentences"])
    for heading in ("thac0 · Damage by AC", "thac0 · Validation: THAC0 15 against AC 5"):
        assert said[heading][0] == "settings changed: crit threshold 20 → 19", said[heading]
    settings = {s["id"]: s.get("settings") for s in result.summary["sections"]}
    assert settings["by-ac"]["crit_threshold"] == 19 and settings["outcomes"]["dagger.crit_threshold"] == 19
    # a range whose two ends read alike is said as one value
    sentences = [t for group in said.values() for t in group]
    assert not [t for t in sentences if re.search(r"by ([+-][\d.]+) to \1\b", t)]


def test_cli_report_with_overrides(tiny, tmp_path, undrawn):
    config, _ = tiny
    out = tmp_path / "cli"
    argv = [
        "report",
        "--config",
        str(config),
        "--out",
        str(out),
        "--trials",
        "8000",
        "--seed",
        "3",
        "--no-progress",
    ]
    assert cli.main(argv) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["run"]["seed"] == 3 and summary["validations"][0]["trials"] == 8000


def test_failed_validation_exits_1_and_says_so(tiny, tmp_path, monkeypatch):
    config, _ = tiny
    real = report_build.validate

    def failing(exact, sim, **kw):
        return dataclasses.replace(real(exact, sim, **kw), passed=False, p_value=0.0)

    monkeypatch.setattr(report_build, "validate", failing)
    small = config.read_text(encoding="utf-8").split("[[systems.thac0.sections]]")
    text = small[0] + "[[systems.thac0.sections]]" + small[-1]  # the validation alone
    args = argparse.Namespace(
        config=str(write(tmp_path, text)), out=str(tmp_path / "fail"), trials=None, seed=None, baseline=None,
        no_progress=True,
    )  # fmt: skip
    assert main(args) == 1
    readme = (tmp_path / "fail" / "README.md").read_text(encoding="utf-8")
    assert "NOT everything validated" in readme.splitlines()[2]


# -- configuration errors -------------------------------------------------------------------
BAD = [
    ("unknown report key", ('seed = 11', 'seed = 11\ncolour = "red"'), "report.colour", "unknown key"),
    ("unknown section key", ('id = "check"', 'id = "check"\nbogus = 1'), "systems.thac0.sections[4].bogus",
     "unknown key"),
    ("wrong type", ("trials = 20_000", 'trials = "many"'), "report.trials", "must be an integer"),
    ("wrong parameter type", ("thac0 = 15, target_ac", 'thac0 = "fifteen", target_ac'),
     "systems.thac0.params.thac0", "must be an integer"),
    ("out of range", ("thac0 = [15, 10]", "crit_threshold = [20, 25]"),
     "systems.thac0.sections[1].grid.crit_threshold", "2..20"),
    ("out of range seed", ("seed = 11", "seed = -1"), "report.seed", "0..9223372036854775807"),
    ("bad dice", ('damage = "1d4"', 'damage = "1d0"'), "systems.thac0.variants.weapon[1].damage", "damage"),
    ("unknown system", ("[systems.thac0]", "[systems.fireball]\n[systems.thac0]"), "systems.fireball",
     "unknown system 'fireball'"),
    ("unknown parameter", ("thac0 = 15, target_ac", "thac_0 = 15, thac0 = 15, target_ac"),
     "systems.thac0.params.thac_0", "not a parameter of thac0"),
    ("unknown outcome", ('outcomes = ["critical_hit"]', 'outcomes = ["crit"]'),
     "systems.thac0.sections[1].outcomes", "no outcome 'crit'"),
    ("bad chart", ('chart = "heatmap"', 'chart = "pie"'), "systems.thac0.sections[3].chart", "line, stacked"),
    ("no validation", ('kind = "validation"', 'kind = "outcomes_by"\nchart = "none"'),
     "systems.thac0.sections", "at least one section"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "key", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_config_names_file_and_key(tmp_path, change, key, message):
    old, new = change
    assert old in TINY
    path = write(tmp_path, TINY.replace(old, new, 1), "bad.toml")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    text = str(info.value)
    assert text.startswith(f"{path}: {key}: "), text
    assert message in text


def test_bad_config_exits_2_before_any_work(tmp_path, capsys):
    path = write(tmp_path, TINY.replace("seed = 11", "seed = 11\ncolour = 1"), "bad.toml")
    args = argparse.Namespace(
        config=str(path), out=str(tmp_path / "never"), trials=None, seed=None, baseline=None, no_progress=True
    )
    assert main(args) == 2
    assert f"{path}: report.colour: unknown key" in capsys.readouterr().err
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [("trials", "lots", "--trials: must be an integer"), ("seed", "-3", "--seed: must be an integer")],
)
def test_bad_options_exit_2(tiny, tmp_path, capsys, flag, value, message):
    config, _ = tiny
    args = argparse.Namespace(config=str(config), out=str(tmp_path), trials=None, seed=None, baseline=None,
                              no_progress=True)  # fmt: skip
    setattr(args, flag, value)
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_bad_baseline_exits_2(tiny, tmp_path, capsys):
    config, _ = tiny
    bogus = write(tmp_path, '{"hello": 1}', "summary.json")
    args = argparse.Namespace(config=str(config), out=str(tmp_path / "x"), trials=None, seed=None,
                              baseline=str(bogus), no_progress=True)  # fmt: skip
    assert main(args) == 2
    assert "not a critlab report summary.json" in capsys.readouterr().err


def test_uninstalled_system_is_named(tmp_path, monkeypatch):
    # Pretend crit-range is still being written: the error names it and what is installed.
    import critlab.analysis.report.config as config_module

    monkeypatch.setattr(config_module, "registry", lambda: {"thac0": registry()["thac0"]})
    text = TINY + "\n[systems.crit-range]\nparams = { attack_bonus = 5, evasion = 15 }\n"
    with pytest.raises(
        ConfigError, match=r"systems\.crit-range: system 'crit-range' is not installed.*installed: thac0"
    ):
        load_config(write(tmp_path, text))


def test_config_decimals_are_read_as_written(tmp_path):
    # a TOML float is a binary double (17 digits); the configuration keeps the text written,
    # so an 18-digit DR is the same exact fraction as on the command line
    text = TINY + (
        "\n[systems.crit-range]\nparams = { attack_bonus = 5, evasion = 15, dr = 0.123456789012345678 }\n"
        '[[systems.crit-range.sections]]\nkind = "validation"\nid = "v"\ntitle = "v"\n'
    )
    cfg = load_config(write(tmp_path, text))
    spec = next(s.spec for system in cfg.systems if system.name == "crit-range" for s in system.sections)
    assert spec.dr_fraction == Fraction("0.123456789012345678")


# -- the shipped configurations -------------------------------------------------------------
@pytest.mark.parametrize("path", [DEFAULT_CONFIG, DESIGNER], ids=["default", "designer"])
def test_shipped_configs_parse_for_the_registered_systems(path):
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    installed = registry()
    # Only here may blocks of systems still being written be left out.
    data["systems"] = {name: block for name, block in data["systems"].items() if name in installed}
    assert data["systems"], "at least thac0 is always installed"
    cfg = parse_config(data, str(path))
    assert all(any(s.kind == "validation" for s in b.sections) for b in cfg.systems)


def test_default_config_covers_all_five_systems():
    data = tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))
    assert list(data["systems"]) == ["crit-range", "severity", "crits-cats", "contest", "thac0"]
    assert set(data["systems"]) == set(BUILT_IN)
    assert data["report"]["trials"] >= 100_000


# -- comparison rules -----------------------------------------------------------------------
def test_compare_thresholds():
    before = {
        "e": {"kind": "exact", "value": 0.25},
        "s": {"kind": "simulated", "value": 0.100, "se": 0.001},
        "gone": {"kind": "exact", "value": 1.0},
    }
    now = {
        "e": {"kind": "exact", "value": 0.25 + EXACT_TOL / 10},  # rounding, not a change
        "s": {"kind": "simulated", "value": 0.103, "se": 0.001},  # z = 0.003 / 0.0014 = 2.1: noise
        "new": {"kind": "exact", "value": 0.0},
    }
    c = compare(now, before, name="b.json")
    assert list(c.changes["key"]) == ["s"] and not c.changes["beyond_noise"].iloc[0]
    assert c.added == ["new"] and c.removed == ["gone"] and not c.no_change
    now["s"]["value"] = 0.110  # z = 7.1
    assert compare(now, before).changes["beyond_noise"].iloc[0]
