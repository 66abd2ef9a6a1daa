"""The report as a designer reads it: computed findings at the top, tables that serve,
one plotting style (no clipped legend, no default colour cycle), validation in words."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from critlab.analysis.report import figures, findings, tables, validation_chart
from critlab.analysis.report.build import SectionOutput, run_sweep, table_columns, wide_table
from critlab.analysis.report.config import SweepSection, load_config, parse_config
from critlab.analysis.report.doc import Details, Figure, Paragraph, Table
from critlab.analysis.report.validation import (
    ValidationRun,
    summary_sentence,
    trust_sentence,
    validation_output,
)
from critlab.analysis.style import legend_inside_figure, uses_default_cycle
from critlab.analysis.systems import get_system
from critlab.analysis.text import human
from critlab.analysis.validate import MIN_EXPECTED, validate


@pytest.fixture(scope="module")
def default_sweeps():
    """Every sweep section of the built-in report with its wide table (exact, no simulation)."""
    cfg = load_config()
    out = []
    for block in cfg.systems:
        for section in block.sections:
            if isinstance(section, SweepSection):
                out.append((section, wide_table(section, run_sweep(section))))
    return cfg, out


# -- one plotting style ------------------------------------------------------------------------
def test_every_report_figure_keeps_its_legend_inside_and_never_the_default_cycle(default_sweeps):
    _, sections = default_sweeps
    drawn = 0
    for section, wide in sections:
        fig = figures.figure(section, wide)
        if fig is None:
            continue
        drawn += 1
        where = f"{section.system}/{section.id}"
        assert legend_inside_figure(fig), f"{where}: a legend leaves the figure"
        assert not any(uses_default_cycle(ax) for ax in fig.axes), f"{where}: default colour cycle"
        for ax in fig.axes:  # human axis labels, never a field name
            for text in (ax.get_xlabel(), ax.get_ylabel()):
                assert "_" not in text, f"{where}: axis label {text!r}"
    assert drawn >= 20


def test_no_axis_mixes_amounts_and_probabilities(default_sweeps):
    _, sections = default_sweeps
    combat = next(s for s, _ in sections if s.id == "combat")
    groups = figures.unit_groups(combat, combat.plotted)
    assert groups == [["expected_damage", "expected_backlash"], ["p_down"]]
    wide = dict((s.id, w) for s, w in sections)["combat"]
    fig = figures.figure(combat, wide)
    assert [ax.get_ylabel() for ax in fig.axes if ax.get_visible()][:2] == [
        "expected damage / expected backlash",
        "P(down)",
    ]


def test_ordered_and_good_bad_outcomes_get_their_palettes(default_sweeps):
    _, sections = default_sweeps
    by_id = {s.id: (s, w) for s, w in sections}
    # the wound ladder: one sequential map in ladder order (light to dark)
    wounds, _ = by_id["wounds-by-sm-armor-mode"]
    colours = figures.outcome_palette(wounds, wounds.outcomes)
    lum = [0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] for c in colours.values()]
    assert lum == sorted(lum, reverse=True)
    # failure warm, success cool, and six distinct colours for crits-cats's classes
    versus, _ = by_id["mismatch-all"]
    colours = figures.outcome_palette(versus, versus.outcomes)
    assert len(set(colours.values())) == 6
    red, blue = (int(colours[k][1:3], 16) for k in ("failure", "success"))
    assert red > blue


def test_heatmap_numbers_are_readable_or_absent(default_sweeps):
    _, sections = default_sweeps
    for section, wide in sections:
        if section.chart != "heatmap":
            continue
        fig = figures.figure(section, wide)
        sizes = {t.get_fontsize() for ax in fig.axes for t in ax.texts}
        assert not sizes or min(sizes) >= 9, f"{section.id}: heatmap text at {min(sizes)} pt"


def test_validation_figure_style():
    fig = validation_chart.validation_figure(
        "V", ["miss", "hit"], np.array([0.4, 0.6]), np.array([0.41, 0.59]), np.array([0.01, 0.01]),
        np.array([1.0, -1.0]), 1000,
    )  # fmt: skip
    assert legend_inside_figure(fig) and not any(uses_default_cycle(ax) for ax in fig.axes)


# -- findings ----------------------------------------------------------------------------------
def test_the_default_report_opens_with_at_least_five_computed_findings(default_sweeps):
    _, sections = default_sweeps
    infos = []
    for section, wide in sections:
        lead = findings.section_lead(section, wide)
        assert lead, f"{section.id}: no opening sentence"
        assert all(section.title not in sentence for sentence in lead)
        infos.append(
            {"system": section.system, "lead": lead, "headline": section.headline, "anchor": section.id}
        )
    items = findings.headlines(infos)
    assert len(items) >= 5
    assert all(re.search(r"\d", text) for text, _ in items)


def test_a_figure_of_several_quantities_is_led_by_a_sentence_over_each(default_sweeps):
    # the combat figure's two panels (amounts, P(down)) and the contest heatmap's two:
    # the opening sentence names every quantity drawn, not the first panel's alone
    _, sections = default_sweeps
    several = [(s, w) for s, w in sections if len(s.plotted) > 1 and s.chart in ("line", "heatmap")]
    assert {s.id for s, _ in several} >= {"combat", "quick-heatmap"}
    for section, wide in several:
        said = findings.shape_sentence(section, wide).lower()
        for q in section.plotted:
            assert findings.quantity_words(section, q).lower() in said, (section.id, q, said)


def test_a_finding_states_the_exact_engine_numbers():
    # the sword's expected damage at crit range 1 and 2, computed here without the report
    system = get_system("crit-range")
    base = {"mode": "attack", "attack_bonus": 5, "evasion": 15, "damage": "1d8", "crit_dice": "1d6"}
    one, two = (
        system.exact(system.make_spec(**base, crit_range=r)).metrics["expected_damage"] for r in (1, 2)
    )
    cfg = load_config()
    section = next(s for b in cfg.systems for s in b.sections if s.id == "damage-by-crit-range")
    sentence = findings.compare_sentence(section, wide_table(section, run_sweep(section)), section.lead)
    assert sentence.startswith("Crit range 2 instead of 1 adds ")
    assert (
        human.signed(two - one) in sentence
        and f"{human.said_amount(one)} → {human.said_amount(two)}" in sentence
    )
    assert f"{100 * (two - one) / one:+.0f}%" in sentence and "for the sword" in sentence


@pytest.mark.parametrize(
    ("a", "b", "prob", "expected"),
    [
        (0.05, 0.0975, True, "makes crit 1.9× as likely (5% → 9.75%)"),
        (0.152, 0.0185, True, "cuts P(crit) from 15.2% to 1.85%"),
        (0.0, 0.0175, True, "makes crit possible (1.75%, from never)"),
        (0.45, 0.6, True, "raises P(crit) from 45% to 60%"),
        (2.0, 2.5, False, "adds +0.500 expected damage (+25% relative; 2.00 → 2.50)"),
    ],
)
def test_effects_in_words(a, b, prob, expected):
    cfg = parse_config(
        {"systems": {"crit-range": {"params": {"mode": "attack", "attack_bonus": 5, "evasion": 15},
         "sections": [{"kind": "metric_by", "grid": {"crit_range": [1, 2]}, "metrics": ["expected_damage"],
                       "outcomes": ["crit"]}, {"kind": "validation"}]}}},
        "inline.toml",
    )  # fmt: skip
    section = cfg.systems[0].sections[0]
    assert findings.effect(section, "crit" if prob else "expected_damage", a, b) == expected


def test_a_bad_lead_is_a_configuration_error():
    from critlab.analysis.report.config import ConfigError

    data = {"systems": {"thac0": {"params": {"thac0": 15, "target_ac": 5}, "sections": [
        {"kind": "metric_by", "grid": {"target_ac": [0, 5]}, "metrics": ["expected_damage"],
         "lead": {"axis": "target_ac", "from": 0, "to": 7}}, {"kind": "validation"}]}}}  # fmt: skip
    with pytest.raises(ConfigError, match=r"sections\[1\]\.lead: to must be a value of target_ac"):
        parse_config(data, "inline.toml")


# -- tables --------------------------------------------------------------------------------------
def test_one_format_per_column_and_no_noise():
    show = tables.column_format([0.0975, 0.0025, 2.45e-16, 0.5], probability=True)
    # probabilities in percent, as the report's sentences and figures say them
    assert [show(v) for v in (0.0975, 0.0025, 2.45e-16)] == ["9.75%", "0.25%", "0.00%"]
    assert tables.column_format([0.000123, 0.5], probability=True)(0.000123) == "0.012%"
    assert tables.column_format([1e-9, 0.5], probability=True)(1e-9) == "< 0.0001%"
    assert tables.column_format([12.5, 400.0])(12.5) == "12.5"
    assert tables.column_format([3, 17])(3) == "3"


def test_long_tables_are_thinned_with_the_csv_linked(default_sweeps):
    _, sections = default_sweeps
    for section, wide in sections:
        shown = tables.sweep_tables(section, wide, "tables/x.csv", table_columns(section))
        for t in shown:
            assert len(t.rows) <= tables.MAX_ROWS + 3 and t.csv == "tables/x.csv"
            cells = [c for row in t.rows for c in row]
            assert not any(re.search(r"\de-\d", c) for c in cells), f"{section.id}: {t.caption}"
            # one format per column: the same number of decimals down each numeric column
            for j in range(t.label_columns, len(t.header)):
                decimals = {len(c.split(".")[1]) if "." in c else 0 for c in (r[j] for r in t.rows)
                            if c not in ("–",) and not c.startswith("<")}  # fmt: skip
                assert len(decimals) <= 1, f"{section.id}: column {t.header[j]}"


# -- validation in words -----------------------------------------------------------------------
def test_validation_section_speaks_plainly_and_keeps_statistics_one_click_away():
    system = get_system("thac0")
    spec = system.make_spec(thac0=15, target_ac=5)
    exact = system.exact(spec)
    sim = system.simulate(spec, trials=20_000, seed=3, progress=False)
    v = validate(exact, sim)
    cfg = parse_config({"systems": {"thac0": {"params": {"thac0": 15, "target_ac": 5},
                        "sections": [{"kind": "validation", "id": "v"}]}}}, "inline.toml")  # fmt: skip
    section = cfg.systems[0].sections[0]
    out = SectionOutput()
    validation_output(ValidationRun(section, cfg, exact, sim, v, {}, 20_000, 3), out)
    # the verdict in words, then the answer (the point's exact numbers), the statistics after
    verdict, answer = [b for b in out.blocks if isinstance(b, Paragraph)][:2]
    assert (
        verdict.text == "Passed: 20,000 simulated trials agree with the exact engine."
        and verdict.style == "ok"
    )
    assert answer.text.startswith("Exact: miss 40.00%, fumble 5.00%, hit 50.00%, critical hit 5.00%")
    assert f"expected damage {human.amount(exact.metrics['expected_damage'])}" in answer.text
    details = next(b for b in out.blocks if isinstance(b, Details))
    assert details.blocks[0].text.startswith("The simulator (20,000 trials) agrees with the exact engine")
    assert any(isinstance(b, Figure) for b in details.blocks) and any(
        isinstance(b, Table) for b in details.blocks
    )
    csv = out.tables["tables/thac0--v.csv"]
    assert (csv["expected"] >= MIN_EXPECTED).all() and len(csv) == len(v.rows)


def test_summary_sentence():
    ok = [{"system": "thac0", "title": "V", "passed": True, "trials": 10**7}] * 3
    text = summary_sentence(ok)
    assert text.startswith(
        "The simulator (10,000,000 trials per validation, 3 validations) agrees with the exact engine"
    )
    assert "trusted to ±SE" in text and f"±{100 * math.sqrt(0.05 * 0.95 / 10**7):.2g} percentage" in text
    bad = summary_sentence([*ok, {"system": "thac0", "title": "W", "passed": False, "trials": 10**7}])
    assert "disagrees" in bad and "thac0 · W" in bad
    assert trust_sentence(False, 100, math.inf, "crit", 0.0, 4, 1e-3).startswith("FAILED")


# -- the views' plots (notebooks and the API) ---------------------------------------------------
VIEW_SPECS = {
    "crit-range": {"mode": "attack", "attack_bonus": 5, "evasion": 15},
    "thac0": {"thac0": 15, "target_ac": 5},
    "crits-cats": {"skill": 10, "opposing_skill": 10, "damage": "1d8"},
    "contest": {"a_skill": 12, "b_skill": 10},
    "severity": {"attacker_skill": 12, "defender_skill": 10},
}


@pytest.mark.parametrize("name", sorted(VIEW_SPECS))
def test_every_view_plot_keeps_its_legend_inside_and_never_the_default_cycle(name):
    import matplotlib.pyplot as plt  # the Agg backend (conftest)

    system = get_system(name)
    spec = system.make_spec(**VIEW_SPECS[name])
    for plot_name, plot in system.plots.items():
        fig = plot(spec)
        try:
            assert legend_inside_figure(fig), f"{name} {plot_name}: a legend leaves the figure"
            assert not any(uses_default_cycle(ax) for ax in fig.axes), f"{name} {plot_name}: default cycle"
        finally:
            plt.close(fig)
