"""Results display themselves in a notebook: a short ``__repr__``, an HTML table of
percentages (``_repr_html_``), the verdict in words, and ``.plot()`` in the project's style."""

from __future__ import annotations

import re

import matplotlib
import pytest

matplotlib.use("Agg")

import critlab  # noqa: E402
from critlab.analysis.display import dist as display  # noqa: E402
from critlab.analysis.dist import Dist  # noqa: E402
from critlab.analysis.style import QUALITATIVE, uses_default_cycle  # noqa: E402


@pytest.fixture(scope="module")
def severity():
    sev = critlab.get_system("severity")
    spec = sev.make_spec(mode="stable", sm=1, attacker_skill=3)
    exact = sev.exact(spec)
    sim = sev.simulate(spec, trials=20_000, seed=7, progress=False)
    return exact, sim, critlab.validate(exact, sim)


def _cells(html: str) -> list[str]:
    return re.findall(r"<td>(.*?)</td>", html)


def test_a_dist_is_a_table_of_percentages():
    html = critlab.dice("2d6")._repr_html_()
    cells = _cells(html)
    assert html.count("<tr>") == 1 + 11  # the header and one row a value, 2..12
    i = cells.index("7")
    assert cells[i : i + 4] == ["7", "16.67%", "58.33%", "58.33%"]  # 6/36, 21/36, 21/36
    assert "mean 7" in html


def test_a_long_dist_folds_its_ends_into_two_rows():
    d = critlab.dice("10d100")
    cells = _cells(d._repr_html_())
    labels = cells[::4]
    assert labels[0].endswith(" or less") and labels[-1].endswith(" or more")
    assert len(labels) < d.probs.size


def test_dist_repr_is_short():
    assert len(repr(critlab.dice("10d100"))) < 200


def test_exact_result_html_and_repr(severity):
    exact, _, _ = severity
    html = exact._repr_html_()
    for label, p in exact.outcomes.items():
        assert f"<td>{label}</td><td>{display.percent(p)}</td>" in html
    assert repr(exact).startswith("<ExactResult severity: ") and len(repr(exact)) < 300


def test_simulated_result_html_has_standard_errors(severity):
    _, sim, _ = severity
    html = sim._repr_html_()
    assert "standard error" in html and "20,000 trials, seed 7" in html
    assert "20000 trials" in repr(sim) and len(repr(sim)) < 300


def test_validation_says_its_verdict_in_words_with_the_worst_bins(severity):
    _, _, v = severity
    html = v._repr_html_()
    assert ("Passed: the simulation" in html) == v.passed
    z = sorted(v.rows["z"].abs(), reverse=True)[:5]
    shown = [abs(float(c)) for c in _cells(html)[3::4]]
    assert shown == pytest.approx(z, abs=0.006)  # the bins of largest |z|, largest first
    assert len(repr(v)) < 200  # not a 3,000-character dataclass dump


def test_a_sweep_displays_as_its_frame():
    crit = critlab.get_system("crit-range")
    df = critlab.sweep(crit.make_spec(attack_bonus=5, evasion=15), crit_range=range(1, 3))
    assert "<table" in df._repr_html_()


def test_plots_return_axes_in_the_project_style():
    crit = critlab.get_system("crit-range")
    spec = crit.make_spec(attack_bonus=5, evasion=15)
    exact, sim = crit.exact(spec), crit.simulate(spec, trials=1000, seed=1, progress=False)
    ax = critlab.dice("2d6").plot()
    assert len(ax.patches) == 11 and not uses_default_cycle(ax)
    assert matplotlib.colors.to_hex(ax.patches[0].get_facecolor()) == QUALITATIVE[0].lower()
    for result in (exact, sim):
        ax = result.plot()
        assert len(ax.patches) == len(result.labels) and not uses_default_cycle(ax)


def test_compare_is_a_frame_of_probabilities_by_value():
    df = critlab.compare("2d6", "1d12")
    assert list(df.columns) == ["2d6", "1d12"] and list(df.index) == list(range(1, 13))
    assert df.loc[7, "2d6"] == pytest.approx(6 / 36, abs=1e-15) and df.loc[1, "2d6"] == 0.0
    assert df.sum().tolist() == pytest.approx([1.0, 1.0], abs=1e-12)
    from critlab.analysis.views.dice import plot_compare

    ax = plot_compare("2d6", "1d12")
    assert len(ax.get_lines()) == 2 and not uses_default_cycle(ax)


def test_percentages_never_round_to_a_false_zero_or_one():
    assert display.percent(1e-9) == "<0.01%" and display.percent(1 - 1e-9) == ">99.99%"
    assert display.percent(Dist.die(20).sf(18)) == "10.00%"
