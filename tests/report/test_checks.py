"""Balance checks: read and probed with the configuration, computed exactly with a 1e-12
tolerance, shown at the top of the report and in summary.json, and failing the run.

Hand-computed values: with advantage a crit range of 1 crits 1 − (19/20)² = 39/400 =
0.0975; THAC0 15 against AC 5 hits or crits on the naturals 10..20, 11/20 = 0.55.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from critlab.analysis.cli import main as cli
from critlab.analysis.design.quantity import within
from critlab.analysis.report.checks import checks_verdict, parse_checks, run_checks
from critlab.analysis.report.config import ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parents[2]
DESIGNER = ROOT / "reports" / "examples" / "designer.toml"

ADVANTAGE = {
    "name": "advantage crits",
    "system": "crit-range",
    "params": {"attack-bonus": 5, "evasion": 15, "roll": "advantage"},
    "quantity": "crit",
    "max": 0.0975,
}
THAC0_HITS = {
    "system": "thac0",
    "params": {"thac0": 15, "target_ac": 5},
    "quantity": "hit+critical-hit",
    "min": 0.6,
}


def _toml(*checks: str) -> str:
    return '[report]\nname = "checks"\n\n' + "\n".join(checks)


PASSING = """
[[checks]]
name = "advantage crits at most 9.75%"
system = "crit-range"
params = { attack_bonus = 5, evasion = 15, roll = "advantage" }
quantity = "crit"
max = 0.0975
"""
FAILING = """
[[checks]]
system = "thac0"
params = { thac0 = 15, target_ac = 5 }
quantity = "hit+critical_hit"
min = 0.6
"""


def test_values_and_verdicts_by_hand():
    results = run_checks(parse_checks([ADVANTAGE, THAC0_HITS], "inline.toml"))
    assert [r["value"] for r in results] == pytest.approx([39 / 400, 11 / 20], abs=1e-12)
    assert [r["passed"] for r in results] == [True, False]
    assert results[1]["name"] == "thac0: hit+critical_hit at least 0.6"
    assert results[1]["quantity"] == "hit+critical_hit" and results[1]["max"] is None
    assert results[0]["params"]["roll"] == "advantage" and results[0]["params"]["crit_range"] == 1
    assert set(results[0]) == {"name", "system", "params", "quantity", "value", "min", "max", "passed"}
    assert checks_verdict(results) == (
        "Balance checks FAILED: 1 of 2 (thac0: hit+critical_hit at least 0.6).",
        False,
    )


def test_tolerance_is_1e_12():
    assert within(0.09750000000000003, None, 0.0975)
    assert within(0.0975 - 5e-13, 0.0975, None)
    assert not within(0.0975 + 2e-12, None, 0.0975)
    assert not within(None, 0.0, 1.0)


def test_null_value_fails():
    # no critfail range: the weapon never breaks, so its mean life is null
    row = {"system": "crit-range", "params": {"attack_bonus": 5, "evasion": 15, "critfail_range": 0}}
    row |= {"quantity": "mean_attacks_to_break", "min": 0}
    (result,) = run_checks(parse_checks([row], "inline.toml"))
    assert result["value"] is None and result["passed"] is False


def test_fight_quantities_with_hp():
    pytest.importorskip("critlab.analysis.fight.exact")
    # the rules' reference: THAC0 15 against AC 5, hp 10: median 4 rounds
    row = {"system": "thac0", "params": {"thac0": 15, "target_ac": 5, "hp": 10}, "quantity": "median_rounds"}
    (result,) = run_checks(parse_checks([row | {"min": 4, "max": 4}], "inline.toml"))
    assert result["value"] == 4 and result["passed"] and result["params"]["hp"] == 10


@pytest.mark.parametrize(
    ("change", "key", "message"),
    [
        (
            {"quantity": "crti"},
            "checks[1].quantity",
            "unknown quantity 'crti' for crit-range; outcomes: critfail",
        ),
        ({"quantity": "crit+crit"}, "checks[1].quantity", "names crit twice"),
        (
            {"params": {"evasoin": 15}},
            "checks[1].params.evasoin",
            "'evasoin' is not a parameter of crit-range",
        ),
        (
            {"params": {"attack_bonus": 5, "evasion": 15, "crit_range": 25}},
            "checks[1].params.crit_range",
            "parameter crit_range = 25: must be an integer in 0..20",
        ),
        ({"max": None}, "checks[1]", "give min and/or max"),
        ({"min": 0.2}, "checks[1].min", "min = 0.2 is above max = 0.0975"),
        ({"max": "high"}, "checks[1].max", "must be a number"),
        ({"system": "fireball"}, "checks[1].system", "unknown system 'fireball'"),
        ({"colour": "red"}, "checks[1].colour", "unknown key 'colour'"),
        ({"quantity": None}, "checks[1].quantity", "name the quantity"),
    ],
)
def test_bad_check_names_file_and_key(change, key, message):
    row = {k: v for k, v in (ADVANTAGE | change).items() if v is not None}
    with pytest.raises(ConfigError) as err:
        parse_config({"checks": [row]}, "mine.toml")
    assert err.value.file == "mine.toml" and err.value.key == key
    assert message in err.value.message


def _report(tmp_path: Path, capsys, text: str) -> tuple[int, str, Path]:
    config = tmp_path / "checks.toml"
    config.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    status = cli.main(["report", "--config", str(config), "--out", str(out), "--no-progress"])
    return status, capsys.readouterr().out, out


def test_failing_check_exits_1_after_writing_the_report_with_the_failure_on_top(tmp_path, capsys):
    status, out, folder = _report(tmp_path, capsys, _toml(PASSING, FAILING))
    assert status == 1
    assert "Balance checks FAILED: 1 of 2" in out
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert [c["passed"] for c in summary["checks"]] == [True, False]
    assert summary["checks"][0]["value"] == pytest.approx(0.0975, abs=1e-12)
    for page in ("README.md", "index.html"):
        text = (folder / page).read_text(encoding="utf-8")
        top = text.index("Balance checks FAILED")
        assert (
            top < text.index("Validation summary") and "FAIL" in text[top : text.index("Validation summary")]
        )


def test_passing_checks_exit_0(tmp_path, capsys):
    status, out, folder = _report(tmp_path, capsys, _toml(PASSING))
    assert status == 0 and "Balance checks: all 1 pass." in out
    assert json.loads((folder / "summary.json").read_text(encoding="utf-8"))["checks"][0]["passed"]


def test_bad_check_exits_2_before_any_work(tmp_path, capsys):
    config = tmp_path / "bad.toml"
    config.write_text(_toml(FAILING.replace("hit+critical_hit", "hits")), encoding="utf-8")
    status = cli.main(["report", "--config", str(config), "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and "checks[1].quantity: unknown quantity 'hits' for thac0" in err
    assert not (tmp_path / "out").exists()


def test_designer_example_holds_three_passing_checks():
    checks = load_config(DESIGNER).checks
    results = run_checks(checks)
    assert len(results) == 3 and all(r["passed"] for r in results)
    # an axe with crit range 2 crits 2/20; THAC0 12 against AC 4, crits on 19-20:
    # 11/20 × 4.5 + 2/20 × 9 = 3.375 (the third, an encounter's: test_report_encounters)
    assert [r["value"] for r in results[:2]] == pytest.approx([0.1, 3.375], abs=1e-12)
    assert results[2]["encounter"] == "party_vs_ogre.toml"
