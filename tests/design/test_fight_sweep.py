"""Fights in sweeps: the tidy frame, point by point the exact fight, simulated alike."""

from __future__ import annotations

import numpy as np
import pytest

from critlab.analysis.design.sweep import sweep_fight
from critlab.analysis.fight.exact import fight
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system


def crit_range(**kw):
    return get_system("crit-range").make_spec(attack_bonus=5, evasion=15, **kw)


def test_rows_are_the_exact_fight_point_by_point():
    spec = crit_range()
    df = sweep_fight(spec, hp=30, by_round=4, crit_range=[1, 3], damage=["1d8", "2d6"])
    assert list(df.columns) == ["crit_range", "damage", "kind", "name", "exact"]
    assert set(df.kind) == {"outcome", "metric", "by_round"}
    for (cr, dmg), rows in df.groupby(["crit_range", "damage"]):
        ex = fight(spec.replace(crit_range=cr, damage=dmg), hp=30)
        got = rows.set_index("name")["exact"]
        assert got["defeated"] == ex.outcomes["defeated"]
        assert got["median_rounds"] == ex.metrics["median_rounds"]
        for r in range(1, 5):
            assert got[f"defeated_by_round_{r}"] == pytest.approx(ex.p_defeated_by(r), abs=1e-15)
        assert got["p_defeated_by_round_3"] == pytest.approx(ex.metrics["p_defeated_by_round_3"], abs=1e-15)
    medians = df[df.name == "mean_rounds"].pivot(index="crit_range", columns="damage", values="exact")
    assert (medians.loc[3] < medians.loc[1]).all()  # a wider crit range ends fights sooner


def test_fight_parameters_in_the_grid():
    spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    df = sweep_fight(spec, hp=[10, 20], attacks_per_round=[1, 2], max_rounds=[3, 1000])
    assert len(df.drop_duplicates(["hp", "attacks_per_round", "max_rounds"])) == 8
    row = df.query(
        "hp == 10 and attacks_per_round == 2 and max_rounds == 1000 and name == 'p_defeated_by_round_2'"
    )
    assert float(row.exact.iloc[0]) == pytest.approx(0.5445361274, abs=5e-11)
    short = df.query("max_rounds == 3 and name == 'undecided'")
    assert (short.exact > 0).all()


def test_simulated_sweep():
    spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    df = sweep_fight(
        spec, hp=12, by_round=3, simulate=True, trials=40_000, seed=5, progress=False, to_hit=[0, 3]
    )
    assert {"simulated", "se", "z", "seed"} <= set(df.columns)
    proportions = df[df.kind != "metric"]
    assert np.all(np.abs(proportions.z) < 5)
    assert df.seed.nunique() == 2  # one derived seed per point
    again = sweep_fight(
        spec, hp=12, by_round=3, simulate=True, trials=40_000, seed=5, progress=False, to_hit=[0, 3]
    )
    assert df.equals(again)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"crit_range": [1, 2]}, "parameter hp = none"),
        ({"hp": 10, "bogus": [1]}, "parameter bogus = 1"),
        ({"hp": [10, 0]}, "parameter hp = 0"),
        ({"hp": 10, "attacks_per_round": [0]}, "parameter attacks_per_round = 0"),
        ({"hp": 10, "by_round": -1}, "parameter by_round = -1"),
    ],
)
def test_errors(kwargs, message):
    with pytest.raises(SpecError, match=message):
        sweep_fight(crit_range(), **kwargs)
