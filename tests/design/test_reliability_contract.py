"""The API's and the command line's contract at its edges: arguments of the wrong kind are
one-line errors naming them, bounds are checked before the work they bound, valid
requests are not refused, and exact probabilities stay in [0, 1]."""

from __future__ import annotations

import itertools
import json
import math
import time
import tracemalloc

import pytest

import critlab
from critlab.analysis.cli.main import main
from critlab.analysis.design.tune import MAX_GRID
from critlab.analysis.fight.exact import MAX_ROUND_SUPPORT
from critlab.analysis.spec import SpecError

THAC0 = critlab.get_system("thac0")
SPEC = THAC0.make_spec(thac0=15, target_ac=5)


def _one_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1 and err.startswith("critlab: error: ") and "Traceback" not in err, err
    for w in words:
        assert w in err, err


# -- spec and vary arguments ------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda: critlab.tune(None, vary={"target_ac": [1]}, target=("hit", 0.5)),
        lambda: critlab.sensitivity(None),
        lambda: critlab.tune("thac0", vary={"target_ac": [1]}, target=("hit", 0.5)),
    ],
    ids=["tune-none", "sensitivity-none", "tune-a-name"],
)
def test_a_spec_that_is_no_spec_is_a_one_line_type_error(call):
    with pytest.raises(TypeError, match=r"^spec must be a rule system's spec \(e\.g\. Thac0Spec\), got \w+$"):
        call()


def test_vary_and_fight_of_the_wrong_kind_are_named():
    with pytest.raises(TypeError, match="^vary must be a mapping"):
        critlab.tune(SPEC, vary=[("target_ac", [1])], target=("hit", 0.5))
    with pytest.raises(SpecError, match="target_ac = 5: must be varied over a list"):
        critlab.tune(SPEC, vary={"target_ac": 5}, target=("hit", 0.5))
    with pytest.raises(TypeError, match="^fight must be a mapping"):
        critlab.sensitivity(SPEC, fight=30)


def test_an_endless_generator_as_vary_values_is_refused_without_reading_it():
    tracemalloc.start()
    try:
        t0 = time.monotonic()
        with pytest.raises(SpecError, match=f"at most {MAX_GRID:,} points"):
            critlab.tune(SPEC, vary={"target_ac": itertools.count()}, target=("hit", 0.5))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 10 and peak < 50e6  # read MAX_GRID + 1 values, no more


def test_a_finite_generator_is_a_grid_like_its_list():
    lazy = critlab.tune(SPEC, vary={"target_ac": (ac for ac in range(-3, 4))}, target=("hit", 0.5), top=7)
    listed = critlab.tune(SPEC, vary={"target_ac": list(range(-3, 4))}, target=("hit", 0.5), top=7)
    assert lazy.equals(listed) and lazy.attrs["points"] == 7


# -- fight parameters with a varied hp --------------------------------------------------------
@pytest.mark.parametrize("extra", [["--attacks-per-round", "2"], ["--max-rounds", "50"]])
def test_tune_over_hp_takes_the_other_fight_parameters(extra, capsys):
    argv = ["tune", "thac0", "--thac0", "15", "--target-ac", "5", "--vary", "hp=10..20"]
    assert main([*argv, *extra, "--target", "median_rounds=3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["points"]) == 5 and out["skipped"] == 0
    flag, value = extra[0][2:].replace("-", "_"), int(extra[1])
    assert out["fight"][flag] == value
    # each point is the fight at that hp with the fight parameter given
    point = out["points"][0]
    fight = critlab.fight(SPEC, hp=point["params"]["hp"], **{flag: value})
    assert math.isclose(point["value"], fight.metrics["median_rounds"], rel_tol=0, abs_tol=1e-12)


def test_a_fight_parameter_without_any_hp_is_still_refused(capsys):
    argv = ["tune", "thac0", "--thac0", "15", "--vary", "target_ac=1..3", "--attacks-per-round", "2"]
    assert main([*argv, "--target", "hit=0.5"]) == 2
    _one_line(capsys.readouterr().err, "attacks_per_round", "give hp")


# -- numbers typed in ASCII ---------------------------------------------------------------------
@pytest.mark.parametrize("ladder", ["a:\u0661", "graze:1,kill:\u0967\u0966", "a:\uff11"])
def test_a_ladder_threshold_in_other_scripts_digits_is_refused(ladder, capsys):
    assert main(["exact", "severity", "--ladder", ladder]) == 2
    _one_line(capsys.readouterr().err, "ladder")


# -- fights: probabilities in [0, 1], bounds before allocation -------------------------------
@pytest.mark.parametrize(
    ("params", "fight"),
    [
        ({"thac0": 20, "target_ac": -10}, {"hp": 10**6}),  # nobody can hit: nobody wins
        ({"thac0": 15, "target_ac": 5}, {"hp": 1000, "max_rounds": 1}),
        ({"thac0": 15, "target_ac": 5}, {"hp": 100, "max_rounds": 3}),
        ({"thac0": 15, "target_ac": 5}, {"hp": 10, "attacks_per_round": 2}),
    ],
)
def test_fight_probabilities_lie_in_zero_one(params, fight):
    r = critlab.fight(THAC0.make_spec(**params), **fight)
    probs = [*r.outcomes.values(), *(v for k, v in r.metrics.items() if k.startswith("p_"))]
    for d in r.distributions.values():
        probs += [*d.probs.tolist(), d.tail]
    assert all(0.0 <= p <= 1.0 for p in probs), probs
    assert math.isclose(sum(r.outcomes.values()), 1.0, rel_tol=0, abs_tol=1e-12)


def test_a_fight_nobody_can_win_is_exactly_undecided():
    r = critlab.fight(THAC0.make_spec(thac0=20, target_ac=-10), hp=10**6)
    assert r.outcomes == {"defeated": 0.0, "undecided": 1.0}


def test_a_round_with_too_many_damage_values_is_refused_before_it_is_built():
    spec = THAC0.make_spec(thac0=15, target_ac=5, damage="200d1000")  # 399,992 damage values
    assert 100 * 399_991 + 1 > MAX_ROUND_SUPPORT
    critlab.exact(spec)  # computed once before measuring
    tracemalloc.start()
    try:
        with pytest.raises(SpecError, match="attacks_per_round = 100: a round's damage would take 4e"):
            critlab.fight(spec, hp=10**6, attacks_per_round=100)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100e6  # the round's 4e7 values (320 MB a copy) were never allocated


def test_the_same_round_fits_with_fewer_attacks():
    spec = THAC0.make_spec(thac0=15, target_ac=5, damage="20d10")
    r = critlab.fight(spec, hp=500, attacks_per_round=10)
    assert 0.999 < r.outcomes["defeated"] <= 1.0


# -- configuration text in the report's README.md ---------------------------------------------
EVIL = [
    "</details><script>x()</script>",
    "[a](javascript:alert(1))",
    "![i](javascript:x)",
    "# heading\n- list",
]


@pytest.mark.parametrize("evil", EVIL)
def test_configuration_text_is_inert_markdown_in_every_block(evil):
    from critlab.analysis.report.doc import Details, Document, Figure, Heading, Paragraph, Table
    from critlab.analysis.report.markdown import render

    doc = Document(
        evil,
        [
            Heading(2, evil, "a"),
            Paragraph(evil),
            Paragraph(evil, "warn"),
            Details(evil, [Paragraph(evil), Table([evil, "p"], [[evil, "0.5"]], caption=evil)]),
            Figure("figures/a.png", b"", evil, alt=evil),
        ],
    )
    readme = render(doc)
    assert readme.count("</details>") == 1 and readme.count("<details>") == 1  # only the block's own
    assert "<script>" not in readme and "](javascript:" not in readme.replace("\\](javascript:", "")
    assert "\n# heading" not in readme and "\n- list" not in readme
