"""What a designer reads on the terminal: the answer before the statistics, numbers
without noise (percentages for probabilities, a few significant digits for amounts), no
label the rules cannot reach, counts in scientific form, a missing flag named as a flag.
Every number checked here is computed from the engine, never typed in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.fight.exact import fight
from critlab.analysis.systems import get_system
from critlab.analysis.text.human import amount, percent

THAC0 = ["thac0", "--thac0", "15", "--target-ac", "5"]
# a long float (10 digits and more) or an exponent in a table meant for people
NOISY = re.compile(r"\d\.\d{7,}|\de-\d")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_exact_prints_percentages_and_leaves_out_what_cannot_happen(capsys):
    status, out, _ = run(capsys, "exact", *THAC0)
    exact = get_system("thac0").exact(get_system("thac0").make_spec(thac0=15, target_ac=5))
    assert status == 0
    never = [k for k, p in exact.outcomes.items() if p == 0.0]
    assert never  # fumble_reroll_hit and natural20_reduced need other options
    rows = dict(re.findall(r"^  (\w+)\s+(\S+%)$", out, re.M))
    for label, p in exact.outcomes.items():
        if p == 0.0:
            assert label not in rows
        else:
            assert rows[label] == percent(p)
    assert f"(never with these parameters: {', '.join(never)})" in out
    tail = out.split("distributions", 1)[1]
    assert not NOISY.search(tail.replace(f"tail {exact.distributions['damage'].tail:.2g}", ""))


def test_a_fight_leads_with_its_answer_and_its_verdict(capsys):
    status, out, _ = run(capsys, "fight", *THAC0, "--hp", "30", "--trials", "2e4", "--seed", "3")
    assert status == 0
    lines = out.splitlines()
    result = fight(get_system("thac0").make_spec(thac0=15, target_ac=5), hp=30)
    # line 3 is the answer: mean and median rounds, P(defeated by round 3), in people's numbers
    assert lines[2].startswith("The 30 hp target falls in ")
    assert f"{amount(result.metrics['mean_rounds'])} rounds on average" in lines[2]
    assert f"(median {result.metrics['median_rounds']})" in lines[2]
    assert percent(result.metrics["p_defeated_by_round_3"]) in lines[2]
    # line 4 the verdict in words; the statistics come last
    assert lines[3].startswith("Passed: 20,000 simulated trials agree with the exact engine")
    assert out.index("statistics (") > out.index("simulated: 20,000 fights")
    assert "PASSED" not in out


def test_an_exact_fight_has_no_noise(capsys):
    status, out, _ = run(capsys, "fight", *THAC0, "--hp", "30", "--attacks-per-round", "2")
    assert status == 0
    assert "9.155273438e-06" not in out and "p_defeated_by_round_1  <0.01%" in out
    assert not NOISY.search(out.split("metrics", 1)[1])
    # the rounds table stops where the rest would read ">99.99%" (as `critlab dice` cuts)
    assert out.count(">99.99%") <= 1


@pytest.mark.parametrize(("text", "trials"), [("2e4", 20_000), ("2.5E4", 25_000), ("20000", 20_000)])
def test_trials_in_scientific_form(capsys, text, trials):
    status, out, _ = run(capsys, "simulate", *THAC0, "--trials", text, "--seed", "1", "--json")
    assert status == 0 and f'"trials": {trials}' in out


@pytest.mark.parametrize("text", ["2.5", "1e-3", "2.00001e4", "1e40"])
def test_trials_that_are_no_whole_count_are_refused(capsys, text):
    status, _, err = run(capsys, "simulate", *THAC0, "--trials", text)
    assert status == 2 and err.count("\n") == 1 and "e.g. 1000000 or 1e6" in err


def test_a_missing_parameter_is_named_as_its_flag(capsys):
    status, _, err = run(capsys, "exact", "crit-range")
    assert status == 2
    assert err.startswith("critlab: error: --attack-bonus is required: an integer in")


def test_a_fight_prints_one_line_in_a_repl():
    result = fight(get_system("thac0").make_spec(thac0=15, target_ac=5), hp=30)
    text = repr(result)
    assert "\n" not in text and len(text) < 120
    assert text == (
        f"<FightResult thac0 against 30 hp: mean rounds {amount(result.metrics['mean_rounds'])}, "
        f"median {result.metrics['median_rounds']}, defeated {percent(result.outcomes['defeated'])}>"
    )


def test_an_encounter_prints_one_line_in_a_repl():
    import critlab

    thac0 = get_system("thac0")
    hero = critlab.Combatant("hero", 10, thac0.make_spec(thac0=15, target_ac=5))
    rat = thac0.make_spec(thac0=19, target_ac=6, damage="1d3")
    r = critlab.encounter([hero], [critlab.Combatant(f"rat{k}", 3, rat) for k in (1, 2, 3)])
    text = repr(r)
    assert "\n" not in text and len(text) < 160, text
    assert text.startswith("<EncounterResult 1 v 3: a wins ") and percent(r.outcomes["a_wins"]) in text


def test_a_simulated_encounter_shows_each_share_to_its_standard_error(capsys):
    party = Path(__file__).resolve().parents[2] / "reports" / "examples" / "party_vs_ogre.toml"
    status, out, _ = run(capsys, "encounter", str(party), "--trials", "4e4", "--seed", "2")
    assert status == 0
    rows = re.findall(r"simulated (\S+)% ± (\S+)%", out)
    assert len(rows) == 4
    for value, se in rows:  # the standard error to two significant digits, the value to as many decimals
        assert not re.fullmatch(r"0\.0+", se) or value == "0.00" or float(se) == 0
        # (a share never seen has no spread to show: "0.00% ± 0%")
        assert float(se) == 0 or len(value.split(".")[-1]) == len(se.split(".")[-1])
    assert "mean hp left" in out and not NOISY.search(out.split("statistics (")[0])
