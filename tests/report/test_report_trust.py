"""The default and designer reports read as a reviewer reads them: status first (a failed
check makes the first banner a failure), validation sentences that agree with their own
tables, no "p = 1", no raw parameter or label name in what a reader sees, line colours
that read on white, one colour scale per heatmap figure, and a CI job that compares
against the last main report.

Each report is built once per module at a small trial count (the numbers' statistics are
tested elsewhere; here the words and the page are)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from matplotlib import colors as mcolors

from critlab.analysis.params import declared
from critlab.analysis.report import build_report, figures
from critlab.analysis.report.build import run_sweep, wide_table
from critlab.analysis.report.config import DEFAULT_CONFIG, SweepSection, ValidationSection, load_config
from critlab.analysis.style import contrast
from critlab.analysis.systems import get_system

ROOT = Path(__file__).resolve().parents[2]
DESIGNER = ROOT / "reports" / "examples" / "designer.toml"
CONFIGS = {"default": DEFAULT_CONFIG, "designer": DESIGNER}


class _Page(HTMLParser):
    """A page's visible text (collapsed details included), its alt texts and headers."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.alts: list[str] = []
        self.headers: list[str] = []
        self._skip = 0
        self._th = False

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self._skip += 1
        if tag == "th":
            self._th = True
            self.headers.append("")
        alt = dict(attrs).get("alt")
        if alt is not None:
            self.alts.append(alt)

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self._skip -= 1
        if tag == "th":
            self._th = False

    def handle_data(self, data):
        if self._skip:
            return
        self.text.append(data)
        if self._th:
            self.headers[-1] += data


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def report(request, shipped):
    """(name, index.html text, README.md text, summary, folder) of one shipped report."""
    out = shipped(request.param, CONFIGS[request.param])
    html = (out / "index.html").read_text(encoding="utf-8")
    readme = (out / "README.md").read_text(encoding="utf-8")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    return request.param, html, readme, summary, out


def declared_names(config: Path) -> set[str]:
    """Every snake_case name the report's systems declare: parameters, outcome labels,
    metrics and distributions of each section's spec."""
    cfg = load_config(config)
    names: set[str] = set()
    for block in cfg.systems:
        system = get_system(block.name)
        for section in block.sections:
            specs = (
                [section.spec]
                if isinstance(section, ValidationSection)
                else list(section.base_specs.values())
            )
            for spec in specs:
                names |= set(declared(type(spec)))
                exact = system.exact(spec)
                names |= set(exact.labels) | set(exact.metrics) | set(exact.distributions)
            if isinstance(section, SweepSection):
                names |= set(section.outcomes) | set(section.metrics) | set(section.grid)
    return {n for n in names if "_" in n}


# -- status first --------------------------------------------------------------------------------
def test_the_first_banner_says_everything_passed(report):
    _, html, readme, summary, _ = report
    first = re.search(r"<p class=\"(\w+)\">(.*?)</p>", html)
    assert first.group(1) == "ok" and first.group(2).startswith("Everything validated")
    assert summary["passed"] is True and summary["verdict"] == first.group(2)
    # one banner: no other paragraph of the page styled as the status
    assert len(re.findall(r'<p class="(?:ok|fail)">', html.split("<nav>")[0])) == 1


def test_a_failing_check_makes_the_first_banner_a_failure_and_marks_its_row(tmp_path, undrawn):
    text = DESIGNER.read_text(encoding="utf-8").replace("min = 0.09\nmax = 0.11", "min = 0.2\nmax = 0.3")
    assert "min = 0.2" in text
    config = tmp_path / "designer.toml"
    config.write_text(text, encoding="utf-8")
    encounter = DESIGNER.with_name("party_vs_ogre.toml")  # its encounter section's file, beside it
    (tmp_path / encounter.name).write_text(encounter.read_text(encoding="utf-8"), encoding="utf-8")
    result = build_report(config, out=tmp_path / "out", trials=2_000, progress=False)
    html = (result.out / "index.html").read_text(encoding="utf-8")
    first = re.search(r"<p class=\"(\w+)\">(.*?)</p>", html)
    assert first.group(1) == "fail" and first.group(2).startswith("FAILED: 1 of 3 balance checks failed")
    assert not result.summary["passed"] and result.summary["validated"]
    failed_rows = re.findall(r'<tr class="fail">(.*?)</tr>', html)
    assert len(failed_rows) == 1 and "FAIL" in failed_rows[0] and "crits 9-11%" in failed_rows[0]
    readme = (result.out / "README.md").read_text(encoding="utf-8")
    assert readme.splitlines()[2].startswith("**FAILED: 1 of 3 balance checks failed")
    assert "| **FAIL** |" in readme


# -- validation in honest words ------------------------------------------------------------------
def test_no_p_equals_one(report):
    _, html, readme, _, _ = report
    for text in (" ".join(parse(html).text), readme):
        assert not re.search(r"\bp\s*=\s*1(?:\.0*)?(?![\d.])", text), re.findall(
            r".{60}p\s*=\s*1\b.{20}", text
        )
        assert "Bonferroni" in text


def _sections(html: str) -> list[str]:
    return re.split(r"<h3 ", html)[1:]


def test_within_n_standard_errors_agrees_with_the_table(report):
    _, html, _, summary, _ = report
    checked = 0
    for part in _sections(html):
        said = re.search(r"within ([\d.]+) standard errors", part)
        if said is None:
            continue
        checked += 1
        # the group table's "max |z| (where)" column, as printed
        cells = re.findall(r"<td>([\d.]+|∞) \(", part)
        assert cells, part[:200]
        printed = max(float(c) for c in cells if c != "∞")
        assert said.group(1) == f"{printed:.2f}", (said.group(0), cells)
        summary_line = re.search(r"pooled bins, max \|z\| ([\d.]+)</summary>", part)
        assert summary_line.group(1) == said.group(1)
    assert checked == sum(v["passed"] for v in summary["validations"]) > 0


def test_each_validation_sets_its_largest_deviation_against_chance(report):
    _, html, _, summary, _ = report
    # the verdict first, in words; the statistics open the details after it
    verdicts = re.findall(r"<p class=\"ok\">(Passed: .*?)</p>", html)
    assert len(verdicts) == len(summary["validations"])
    sentences = re.findall(r"<summary>Statistics: .*?</summary>\s*<p>(The simulator .*?)</p>", html)
    assert len(sentences) == len(verdicts)
    for s in sentences:
        assert re.search(r"expected largest \|z\| (?:is |of \d+ bins \()\d\.\d\d", s), s


def test_validation_csv_se_and_z_share_the_exact_probability(report):
    import numpy as np
    import pandas as pd

    *_, out = report
    csvs = [out / v["table"] for v in report[3]["validations"]]
    assert csvs
    for csv in csvs:
        t = pd.read_csv(csv)
        finite = np.isfinite(t["z"]) & (t["se"] > 0)
        z = (t["observed"] - t["exact"]) / t["se"]
        assert np.allclose(z[finite], t["z"][finite], rtol=1e-9, atol=1e-9), csv.name


# -- names in words ------------------------------------------------------------------------------
def test_no_raw_parameter_or_label_name_is_shown(report):
    name, html, _, _, _ = report
    names = declared_names(CONFIGS[name])
    assert {"crit_range", "expected_damage"} <= names
    page = parse(html)
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")\b")
    for where, texts in (("text", page.text), ("alt text", page.alts), ("table header", page.headers)):
        found = sorted({m for t in texts for m in pattern.findall(t)})
        assert not found, f"{name}: raw names in the {where}: {found}"


def test_alt_text_says_what_the_figure_shows_not_its_grid(report):
    _, html, _, _, _ = report
    alts = parse(html).alts
    assert alts
    assert not any(re.match(r"Exact: .* × .*, \d+ points", a) for a in alts)


def test_one_spelling_of_armor(report):
    _, html, _, _, _ = report
    assert "armour" not in " ".join(parse(html).text).lower()


# -- colour --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def drawn():
    """Every sweep figure of both shipped reports (exact, nothing simulated)."""
    out = []
    for name, path in CONFIGS.items():
        for block in load_config(path).systems:
            for section in block.sections:
                if isinstance(section, SweepSection):
                    fig = figures.figure(section, wide_table(section, run_sweep(section)))
                    if fig is not None:
                        out.append((f"{name}:{section.system}/{section.id}", section, fig))
    return out


def test_every_line_reads_at_3_to_1_on_white(drawn):
    lines = 0
    for where, _, fig in drawn:
        for ax in fig.axes:
            for line in ax.get_lines():
                if line.get_linestyle() in ("None", "") and line.get_marker() in ("None", "", None):
                    continue
                lines += 1
                colour = mcolors.to_hex(line.get_color())
                assert contrast(colour) >= 3.0, f"{where}: {line.get_label()} in {colour}"
    assert lines > 20


def test_one_colour_scale_per_heatmap_figure(drawn):
    heatmaps = 0
    for where, section, fig in drawn:
        if section.chart != "heatmap":
            continue
        heatmaps += 1
        images = [im for ax in fig.axes for im in ax.get_images()]
        scales = {(im.norm.vmin, im.norm.vmax, im.get_cmap().name) for im in images}
        assert len(scales) == 1, f"{where}: {scales}"
        bars = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
        assert len(bars) == 1, where
    assert heatmaps >= 2


def test_a_choice_keeps_its_colour_and_disadvantage_is_never_the_good_colour():
    from critlab.analysis.report.config import Axis

    section = next(
        s
        for b in load_config().systems
        for s in b.sections
        if isinstance(s, SweepSection) and "roll" in s.grid
    )
    both = figures.series_palette(Axis("roll", ("normal", "advantage", "disadvantage")), section)
    two = figures.series_palette(Axis("roll", ("disadvantage", "normal")), section)
    assert both["disadvantage"] == two["disadvantage"] and both["normal"] == two["normal"]
    red, _, blue = mcolors.to_rgb(both["disadvantage"])
    assert red > blue and mcolors.to_rgb(both["advantage"])[2] > mcolors.to_rgb(both["advantage"])[0]


# -- CI ------------------------------------------------------------------------------------------
def test_the_workflow_compares_with_the_last_main_report_and_writes_a_step_summary():
    import yaml

    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "report.yml").read_text(encoding="utf-8"))
    steps = flow["jobs"]["report"]["steps"]
    text = [str(s.get("run", "")) + str(s.get("uses", "")) + str(s.get("with", "")) for s in steps]
    baseline = [t for t in text if "summary.json" in t and ("download" in t)]
    assert baseline, "no step fetches the last main report's summary.json"
    assert any("--baseline" in t for t in text)
    assert any("GITHUB_STEP_SUMMARY" in t and "summary.md" in t for t in text)


# -- the pieces, without a build ---------------------------------------------------------------
def test_the_expected_largest_z_of_n_normal_bins_matches_a_simulation():
    import numpy as np

    from critlab.analysis.report.validation import expected_max_z

    rng = np.random.default_rng(20240601)
    for n in (1, 10, 200):
        draws = np.abs(rng.standard_normal((20_000, n))).max(axis=1)
        z = (draws.mean() - expected_max_z(n)) / (draws.std(ddof=1) / np.sqrt(len(draws)))
        assert abs(z) < 4, (n, draws.mean(), expected_max_z(n))
    assert expected_max_z(1) == pytest.approx(np.sqrt(2 / np.pi), abs=1e-9)  # E|Z|


def test_p_values_never_read_as_one_and_name_the_combination():
    from critlab.analysis.report.validation import p_is, p_sentence, trust_sentence

    assert p_is(1.0) == p_is(0.996) == "≥ 0.99" and p_is(0.68) == "= 0.68"
    text = p_sentence(1.0, [0.75, 0.68, 0.9])
    assert "smallest of 3 groups' chi-square p-values is 0.68" in text and "Bonferroni), p ≥ 0.99" in text
    said = trust_sentence(True, 1000, 3.349, "damage 7", 1.0, 461, 1e-3, [0.75, 0.68], 12.0)
    assert "within 3.35 standard errors" in said and "p = 1" not in said
    assert "about what chance gives the worst of 461 bins (their expected largest |z| is 3.22)" in said
    rare = trust_sentence(True, 1000, 5.1, "damage 19", 0.2, 461, 1e-3, [0.1, 0.5], 6.0)
    assert "more than the expected largest |z| of 461 bins (3.22)" in rare and "expects only 6 counts" in rare


def test_changes_are_said_by_section_and_variant():
    from critlab.analysis.report.changes import baseline_warning, change_sentences

    rows = [
        {"key": f"crit-range/by-ev/evasion={e},weapon=axe/expected_damage", "kind": "exact", "baseline": 1.0,
         "current": 1.0 + d, "change": d, "z": None, "beyond_noise": True}
        for e, d in ((8, 0.2), (10, 0.1))
    ] + [
        {"key": "crit-range/v/exact/crit", "kind": "exact", "baseline": 0.05, "current": 0.1, "change": 0.05,
         "z": None, "beyond_noise": True},
        {"key": "crit-range/v/simulated/crit", "kind": "simulated", "baseline": 0.05, "current": 0.0501,
         "change": 0.0001, "z": 0.3, "beyond_noise": False},
    ]  # fmt: skip
    said = change_sentences(
        rows, {"crit-range/by-ev": "Damage by evasion", "crit-range/v": "Validation"},
        probability=lambda key, q: q == "crit", variants=frozenset({"weapon"}),
    )  # fmt: skip
    assert said == [
        ("crit-range · Damage by evasion",
         ["for the axe: expected damage rose at 2 points, by +0.100 to +0.200 (most at evasion 8)"]),
        ("crit-range · Validation", ["the exact crit went from 5% to 10%"]),
    ]  # fmt: skip
    other = baseline_warning(
        {"name": "designer", "run": {}}, {"name": "default", "run": {"config": "d.toml"}}
    )
    assert other.startswith("The baseline is another configuration's report ('default', from d.toml)")
    assert baseline_warning({"name": "a", "run": {"seed": 1}}, {"name": "a", "run": {"seed": 1}}) == ""


def test_the_step_summary_says_verdict_checks_and_changes():
    from critlab.analysis.report.stepsummary import render

    text = render(
        {
            "title": "T", "name": "designer", "passed": False,
            "verdict": "FAILED: 1 of 1 balance checks failed (x).",
            "checks": [{"name": "x", "value": 0.1, "min": 0.2, "max": None, "passed": False}],
            "validations": [{"system": "thac0", "title": "V", "passed": True}],
            "comparison": {"headline": "Compared with baseline b.json: 1 exact number changed.",
                           "warning": "",
                           "sentences": [["thac0 · By AC", ["expected damage rose at 3 points, by +0.5"]]]},
        }
    )  # fmt: skip
    lines = text.splitlines()
    assert lines[0] == "### ❌ T" and lines[2] == "**FAILED: 1 of 1 balance checks failed (x).**"
    assert "| x | 0.1 | 0.2 | – | **FAIL** |" in lines
    assert "- thac0 · By AC: expected damage rose at 3 points, by +0.5" in lines
