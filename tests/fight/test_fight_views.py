"""Fight tables and plots: the numbers they show are the exact fight's."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from critlab.analysis.fight.exact import fight
from critlab.analysis.fight.sim import simulate_fight
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system
from critlab.analysis.views.fight import (
    fight_curves,
    fight_summary,
    plot_defeat_curves,
    plot_rounds,
    variants_grid,
)


@pytest.fixture
def spec():
    return get_system("crit-range").make_spec(attack_bonus=5, evasion=15)


def test_summary_is_the_exact_fight(spec):
    variants = variants_grid(crit_range=[1, 3], damage=["1d6", "2d6"])
    table = fight_summary(spec, variants, hp=30)
    assert list(table.variant) == list(variants)
    for row in table.itertuples():
        ex = fight(spec.replace(**variants[row.variant]), hp=30)
        assert row.median_rounds == ex.metrics["median_rounds"]
        assert row.mean_rounds == ex.metrics["mean_rounds"]
        assert row.mean_overkill == pytest.approx(ex.distributions["overkill"].mean)
        assert row.hp == 30 and row.attacks_per_round == 1


def test_curves_accumulate_the_rounds_distribution(spec):
    variants = {"crit 1": {}, "crit 3, two attacks": {"crit_range": 3, "attacks_per_round": 2}}
    curves = fight_curves(spec, variants, hp=30)
    for _, c in curves.groupby("variant"):
        assert np.allclose(np.cumsum(c.p_rounds), c.p_defeated_by_round, atol=1e-14)
        assert c.p_defeated_by_round.iloc[-1] > 1 - 1e-4  # drawn until decided
    fast = curves[curves.variant == "crit 3, two attacks"].set_index("round").p_defeated_by_round
    slow = curves[curves.variant == "crit 1"].set_index("round").p_defeated_by_round
    assert (fast >= slow - 1e-15).all()
    assert fight_curves(spec, hp=30, last_round=5)["round"].tolist() == [1, 2, 3, 4, 5]


def test_plots(spec):
    curves = fight_curves(spec, variants_grid(crit_range=[1, 2, 3]), hp=30)
    fig = plot_defeat_curves(curves)
    assert len(fig.axes[0].lines) == 3 + 1  # a curve a variant and the median's line
    plt.close(fig)
    fig = plot_rounds(curves)
    assert len(fig.axes[0].lines) == 3
    plt.close(fig)
    one = fight_curves(spec, hp=30)
    sim = simulate_fight(spec, hp=30, trials=20_000, seed=1, progress=False)
    fig = plot_rounds(one, simulated={"attack": sim})
    assert len(fig.axes[0].patches) == one["round"].size and len(fig.axes[0].lines) == 1
    plt.close(fig)


def test_errors(spec):
    with pytest.raises(SpecError, match="parameter variants"):
        fight_summary(spec, {}, hp=30)
    with pytest.raises(SpecError, match="parameter hp = 0"):
        fight_curves(spec, {"x": {"hp": 0}}, hp=30)
