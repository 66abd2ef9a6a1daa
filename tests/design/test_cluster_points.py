"""Exact grids on a cluster: tune and sensitivity of a system, a fight and an encounter
computed on the workers of a local Dask cluster give the local answers, bit for bit, and
the work budget grows with the workers the scheduler reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("psutil")  # a dependency of distributed

import critlab.analysis.work as work_module  # noqa: E402
from critlab.analysis.cli.main import main  # noqa: E402
from critlab.analysis.design.grid import tune_model  # noqa: E402
from critlab.analysis.design.sensitivity import sensitivity, sensitivity_model  # noqa: E402
from critlab.analysis.design.tune import tune_params  # noqa: E402
from critlab.analysis.encounter.load import load_encounter  # noqa: E402
from critlab.analysis.encounter.model import EncounterModel  # noqa: E402
from critlab.analysis.spec import SpecError  # noqa: E402
from critlab.analysis.systems import get_system  # noqa: E402

THAC0 = get_system("thac0")
CRIT = get_system("crit-range")
DUEL = """
order = "a-first"
[[a.combatants]]
name = "hero"
hp = 6
attack = { system = "thac0", thac0 = 15, target_ac = 5 }
[[b.combatants]]
name = "rat"
hp = 3
attack = { system = "thac0", thac0 = 19, target_ac = 6, damage = "1d3" }
"""


@pytest.fixture
def duel(tmp_path) -> Path:
    path = tmp_path / "duel.toml"
    path.write_text(DUEL, encoding="utf-8")
    return path


def _same(local, remote) -> None:
    assert remote.equals(local) and remote.attrs == local.attrs


def test_a_systems_tune_on_the_cluster_is_the_local_one(dask_client):
    # crit_range 21 is refused: the refusal and its reason come back from the workers too
    args = dict(vary={"crit_range": range(0, 22), "evasion": range(10, 16)}, target=("crit", 0.08), top=7)
    local = tune_params(CRIT, {"attack_bonus": 5}, **args, progress=False)
    remote = tune_params(CRIT, {"attack_bonus": 5}, **args, progress=False, client=dask_client)
    _same(local, remote)
    assert remote.attrs["refused"] > 0 and remote.attrs["first_refusal"].startswith("at crit_range=2")


def test_a_fights_tune_on_the_cluster_is_the_local_one(dask_client):
    args = dict(vary={"hp": range(5, 30), "to_hit": [0, 2]}, target=("median_rounds", 4), progress=False)
    local = tune_params(THAC0, {"thac0": 15, "target_ac": 5}, **args)
    _same(local, tune_params(THAC0, {"thac0": 15, "target_ac": 5}, **args, client=dask_client))


def test_an_encounters_tune_and_sensitivity_on_the_cluster_are_the_local_ones(dask_client, duel):
    model = EncounterModel(load_encounter(duel))
    args = dict(vary={"rat.hp": range(-1, 8), "order": ["a-first", "b-first"]}, target=("a_wins", 0.8))
    local = tune_model(model, **args)
    _same(local, tune_model(model, **args, client=dask_client))
    assert local.attrs["refused"] == 4  # rat.hp -1 and 0, in both orders
    _same(sensitivity_model(model), sensitivity_model(model, client=dask_client))


def test_a_systems_sensitivity_on_the_cluster_is_the_local_one(dask_client):
    spec = THAC0.make_spec(thac0=15, target_ac=5)
    _same(sensitivity(spec), sensitivity(spec, client=dask_client))  # crit_threshold 21 refused in both
    _same(sensitivity(spec, fight={"hp": 12}), sensitivity(spec, fight={"hp": 12}, client=dask_client))


def _json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_the_command_line_takes_a_scheduler(dask_client, capsys, duel):
    tune = ("tune", "thac0", "--thac0", "15", "--vary", "target-ac=0..9", "--target", "hit=0.5", "--json")
    local = _json(capsys, *tune)
    assert _json(capsys, *tune, "--scheduler", dask_client.scheduler.address) == local
    sens = ("sensitivity", str(duel), "--json")
    assert _json(capsys, *sens, "--scheduler", dask_client.scheduler.address) == _json(capsys, *sens)
    enc = ("tune", str(duel), "--vary", "rat.hp=1..5", "--target", "a_wins=0.9", "--json")
    assert _json(capsys, *enc, "--scheduler", "local") == _json(capsys, *enc)


def test_the_work_budget_is_times_the_workers(dask_client, monkeypatch):
    spec = THAC0.make_spec(thac0=15, target_ac=5)
    one = sensitivity(spec)  # 1 + 2 × 4 points of about a point's work each
    monkeypatch.setattr(work_module, "BUDGET", 7 * work_module.POINT_COST)  # one budget: refused
    with pytest.raises(SpecError, match="parameter spec = 9 points: .* at most 2.1e\\+07 in one run"):
        sensitivity(spec)
    # the scheduler reports two workers: twice the budget, and the same answer
    _same(one, sensitivity(spec, client=dask_client))


REPORT = """
[report]
name = "cluster"
trials = 2000
seed = 7

[[encounters]]
file = "duel.toml"
id = "duel"
title = "Hero against rat"
vary = { "rat.hp" = [1, 2, 3, 4] }
quantities = ["a_wins", "mean_rounds"]

[[checks]]
system = "thac0"
params = { thac0 = 15, target_ac = 5, hp = 10 }
quantity = "median_rounds"
max = 10

[systems.thac0]
params = { thac0 = 15, target_ac = 5 }

[[systems.thac0.sections]]
kind = "outcomes_by"
grid = { target_ac = [0, 2, 4, 6] }

[[systems.thac0.sections]]
kind = "metric_by"
metrics = ["mean_rounds"]
grid = { to_hit = [0, 1, 2] }
fight = { hp = 12 }

[[systems.thac0.sections]]
kind = "validation"
"""


def _summary(folder: Path) -> dict:
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    return {k: summary[k] for k in ("metrics", "checks")}


def test_a_report_on_the_cluster_is_the_local_one(dask_client, capsys, duel, tmp_path, undrawn):
    config = tmp_path / "cluster.toml"
    config.write_text(REPORT, encoding="utf-8")
    base = ("report", "--config", str(config), "--no-progress", "--out")
    assert main([*base, str(tmp_path / "here")]) == 0
    assert main([*base, str(tmp_path / "there"), "--scheduler", dask_client.scheduler.address]) == 0
    capsys.readouterr()
    here, there = _summary(tmp_path / "here"), _summary(tmp_path / "there")
    assert here == there and any(k.startswith("encounters/duel/") for k in here["metrics"])
    for name in ("encounters--duel.csv",):
        csv = [(tmp_path / f / "tables" / name).read_text(encoding="utf-8") for f in ("here", "there")]
        assert csv[0] == csv[1]
