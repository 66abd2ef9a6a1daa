"""Pools of dice as one input, the exact budget counted as the walk goes, and the disk
cache of compiled mechanics.

The pool examples (Shadowrun, Vampire V5, Year Zero) are held, at 12 dice and more,
against independent computations: multinomial closed forms over the dice's categories,
written here from the games' rules, and icepool's own pools. Each is validated against
its simulation at a fixed seed (chi-square, the validator's alpha)."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import textwrap
from fractions import Fraction
from itertools import product
from pathlib import Path

import icepool
import numpy as np
import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.mechanic import Choice, Int, MechanicError, mechanic, param, pool
from critlab.analysis.mechanic.pools import outcomes
from critlab.analysis.spec import SpecError
from critlab.analysis.systems import get_system
from critlab.analysis.validate import validate

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "notebooks" / "examples"
SHADOWRUN = f"{EXAMPLES / 'shadowrun.py'}:success_test"
VAMPIRE = f"{EXAMPLES / 'vampire_v5.py'}:v5_roll"
YEAR_ZERO = f"{EXAMPLES / 'year_zero.py'}:pushed_roll"
TOL = 1e-12


def multinomial(counts: tuple[int, ...], probs: tuple[Fraction, ...]) -> Fraction:
    """The probability that len(counts) categories of probabilities probs come up counts times."""
    ways = math.factorial(sum(counts))
    p = Fraction(1)
    for c, q in zip(counts, probs, strict=True):
        ways //= math.factorial(c)
        p *= q**c
    return ways * p


def splits(n: int, k: int):
    """Every way to put n dice in k categories (counts)."""
    if k == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in splits(n - first, k - 1):
            yield (first, *rest)


# -- the pool's outcomes table ------------------------------------------------------------
@pytest.mark.parametrize("n, die, icepool_die", [(12, "1d6", icepool.d6), (5, "1d10", icepool.d10)])
def test_a_pools_sorted_outcomes_are_icepools(n, die, icepool_die):
    table = outcomes(n, die)
    want = icepool.Pool([icepool_die] * n).expand()
    total = want.denominator()
    expected = {tuple(sorted(o, reverse=True)): q / total for o, q in want.items()}
    assert len(table.probs) == len(expected) == math.comb(n + len(icepool_die) - 1, n)
    for row, p in zip(table.values, table.probs, strict=True):
        assert p == pytest.approx(expected[tuple(int(v) for v in row)], rel=1e-13, abs=0)
    assert math.fsum(table.probs) == pytest.approx(1.0, abs=1e-14)


def test_a_pool_die_rerolls_as_the_notation_says():
    table = outcomes(3, "1d6rr1")  # each die uniform on 2..6 (a die rerolled while it shows a 1)
    assert table.values.min() == 2 and len(table.probs) == math.comb(3 + 4, 3)
    expected = icepool.Pool([icepool.Die([2, 3, 4, 5, 6])] * 3).expand()
    got = {tuple(int(v) for v in row[::-1]): p for row, p in zip(table.values, table.probs, strict=True)}
    for o, q in expected.items():
        assert got[o] == pytest.approx(q / expected.denominator(), rel=1e-13)


@mechanic(
    labels=("low", "high"),
    values=("fate", "clamped", "exploded"),
    inputs={"fudge": pool("4dF"), "floor": pool("2d6mi3"), "boom": pool("3d6!")},
)
def faces_of_the_notation(fudge, floor, boom):
    total = fudge[0] + fudge[1] + fudge[2] + fudge[3]
    return ("high" if total > 0 else "low"), total, floor[0] + floor[1], boom[0] + boom[1] + boom[2]


def test_pool_dice_take_the_notations_faces_clamps_and_explosions():
    r = faces_of_the_notation.exact(faces_of_the_notation.make_spec())
    fate = r.distributions["fate"]
    assert fate.to_dict()[0] == pytest.approx(19 / 81, abs=TOL) and fate.to_dict()[4] == pytest.approx(
        1 / 81, abs=TOL
    )
    assert r.metrics["mean_clamped"] == pytest.approx(8.0, abs=1e-9)  # 2d6mi3: 2 * (3 * 3 + 4 + 5 + 6) / 6
    assert r.metrics["mean_exploded"] == pytest.approx(3 * 4.2, abs=1e-9)  # 1d6! is 4.2
    assert 0 < r.metrics["tail"] < 1e-12  # the explosions' cut-off, reported
    sim = faces_of_the_notation.simulate(
        faces_of_the_notation.make_spec(), trials=300_000, seed=3, progress=False
    )
    assert validate(r, sim).passed


# -- Shadowrun: hits and glitches ---------------------------------------------------------
def shadowrun_closed_form(dice: int, threshold: int) -> dict[str, Fraction]:
    """Each d6 is a hit (5-6, 1/3), a one (1/6) or neither (1/2)."""
    out = dict.fromkeys(
        ("critical_glitch", "glitch_failure", "glitch_success", "failure", "success"), Fraction(0)
    )
    for hits, ones, other in splits(dice, 3):
        p = multinomial((hits, ones, other), (Fraction(1, 3), Fraction(1, 6), Fraction(1, 2)))
        made = hits >= threshold
        if 2 * ones > dice:
            label = "critical_glitch" if hits == 0 else "glitch_success" if made else "glitch_failure"
        else:
            label = "success" if made else "failure"
        out[label] += p
    return out


@pytest.mark.parametrize("dice, threshold", [(12, 2), (13, 5), (20, 7)])
def test_shadowrun_matches_the_closed_form(dice, threshold):
    m = get_system(SHADOWRUN)
    r = m.exact(m.make_spec(dice=dice, threshold=threshold))
    for label, p in shadowrun_closed_form(dice, threshold).items():
        assert r.outcomes[label] == pytest.approx(float(p), abs=TOL), label
    assert r.metrics["mean_hits"] == pytest.approx(dice / 3, abs=TOL)
    assert m.rule.last_walk["leaves"] == math.comb(dice + 5, 5)  # one pool: its sorted outcomes


# -- Vampire V5: hunger dice ----------------------------------------------------------------
def vampire_closed_form(regular: int, hunger: int, difficulty: int) -> dict[str, Fraction]:
    """A plain d10 fails (1-5), succeeds (6-9) or is a 10; a hunger die also tells its 1s."""
    tenth = Fraction(1, 10)
    out = dict.fromkeys(("bestial_failure", "failure", "success", "critical", "messy_critical"), Fraction(0))
    for fail, win, ten in splits(regular, 3):
        p_plain = multinomial((fail, win, ten), (5 * tenth, 4 * tenth, tenth))
        for one, h_fail, h_win, h_ten in splits(hunger, 4):
            p = p_plain * multinomial((one, h_fail, h_win, h_ten), (tenth, 4 * tenth, 4 * tenth, tenth))
            tens = ten + h_ten
            successes = win + h_win + tens + 2 * (tens // 2)
            if successes < difficulty:
                label = "bestial_failure" if one else "failure"
            elif tens >= 2:
                label = "messy_critical" if h_ten else "critical"
            else:
                label = "success"
            out[label] += p
    return out


@pytest.mark.parametrize("regular, hunger, difficulty", [(10, 2, 4), (8, 4, 7)])
def test_vampire_matches_the_closed_form(regular, hunger, difficulty):
    m = get_system(VAMPIRE)
    r = m.exact(m.make_spec(regular=regular, hunger=hunger, difficulty=difficulty))
    for label, p in vampire_closed_form(regular, hunger, difficulty).items():
        assert r.outcomes[label] == pytest.approx(float(p), abs=TOL), label
    assert sum(r.outcomes.values()) == pytest.approx(1.0, abs=TOL)


# -- Year Zero: a push with banes ------------------------------------------------------------
def year_zero_icepool(base: int, skill: int, gear: int) -> dict[str, Fraction]:
    """Each die's first roll and push roll as two icepool d6s; the three pools by icepool."""

    def code(first: int, again: int, ones_stay: bool) -> int:
        if first == 6 or (first == 1 and ones_stay):
            return first  # 6: a success at once; 1: a bane that stays
        return 2 if again == 6 else 3 if again == 1 else 4  # pushed: a 6, a 1, or neither

    bane_die = icepool.map(lambda a, b: code(a, b, True), icepool.d6, icepool.d6)
    skill_die = icepool.map(lambda a, b: code(a, b, False), icepool.d6, icepool.d6)

    def sorted_outcomes(die, n):
        expanded = icepool.Pool([die] * n).expand()
        return [(o, Fraction(q, expanded.denominator())) for o, q in expanded.items()]

    out = dict.fromkeys(("failure", "success", "pushed_failure", "pushed_success"), Fraction(0))
    pools = (
        sorted_outcomes(bane_die, base),
        sorted_outcomes(skill_die, skill),
        sorted_outcomes(bane_die, gear),
    )
    for (b, pb), (s, ps), (g, pg) in product(*pools):
        dice = (*b, *s, *g)
        if 6 in dice:
            label = "success"
        else:
            label = "pushed_success" if 2 in dice else "pushed_failure"
        out[label] += pb * ps * pg
    return out


@pytest.mark.parametrize("base, skill, gear", [(5, 4, 3), (6, 4, 2)])
def test_year_zero_matches_icepool(base, skill, gear):
    m = get_system(YEAR_ZERO)
    r = m.exact(m.make_spec(base=base, skill=skill, gear=gear))
    for label, p in year_zero_icepool(base, skill, gear).items():
        assert r.outcomes[label] == pytest.approx(float(p), abs=TOL), label
    # closed forms: no 6 on the first roll, (5/6)^n; damage is each base die's 1, on the
    # first roll (1/6) or on the push (4/6 * 1/6), on a pushed roll (no first 6 anywhere)
    n = base + skill + gear
    assert r.outcomes["pushed_failure"] + r.outcomes["pushed_success"] == pytest.approx((5 / 6) ** n, abs=TOL)
    # E[damage] = P(pushed) * base * P(a base die ends on a 1 | no 6 first): 1/5 + 4/5 * 1/6 = 1/3
    want = (5 / 6) ** n * base / 3
    assert r.metrics["mean_damage"] == pytest.approx(want, abs=TOL)
    never = m.exact(m.make_spec(base=base, skill=skill, gear=gear, push="never"))
    assert never.outcomes["failure"] == pytest.approx((5 / 6) ** n, abs=TOL)


@pytest.mark.parametrize(
    "ref, params",
    [
        (SHADOWRUN, {"dice": 14, "threshold": 4}),
        (VAMPIRE, {"regular": 10, "hunger": 2, "difficulty": 5}),
        (YEAR_ZERO, {"base": 5, "skill": 4, "gear": 3}),
    ],
)
def test_the_pool_examples_validate(ref, params):
    m = get_system(ref)
    spec = m.make_spec(**params)
    sim = m.simulate(spec, trials=400_000, seed=2026, progress=False)
    assert validate(m.exact(spec), sim).passed


def test_a_pool_is_rolled_die_by_die_the_same_on_two_threads():
    m = get_system(SHADOWRUN)
    spec = m.make_spec(dice=12, threshold=3)
    one = m.simulate(spec, trials=600_000, seed=5, threads=1, progress=False)
    two = m.simulate(spec, trials=600_000, seed=5, threads=2, progress=False)
    assert np.array_equal(one.tally.counts, two.tally.counts)


# -- the exact budget ---------------------------------------------------------------------
@mechanic(
    labels=("miss", "hit"),
    params={"target": param(101, Int(2, 200), "the total to reach")},
    inputs={f"d{i}": "1d100" for i in range(12)},
)
def two_of_twelve(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, *, target):
    if d0 + d1 >= target:  # ten of the twelve declared dice are never read
        return "hit"
    return "miss"


def test_a_mechanic_reading_2_of_12_declared_inputs_is_exact():
    r = two_of_twelve.exact(two_of_twelve.make_spec(target=101))
    # P(d0 + d1 >= 101) for two d100: sum over d0 of (d0 / 100) / 100 = 5050 / 10^4
    assert r.outcomes["hit"] == pytest.approx(0.505, abs=TOL)
    assert two_of_twelve.rule.last_walk["leaves"] == 100 * 100  # not 100^12


def test_a_pool_too_large_to_enumerate_is_refused_where_it_is_read_only(capsys, tmp_path):
    rules = tmp_path / "huge.py"
    rules.write_text(
        textwrap.dedent(
            """
            from critlab.analysis.mechanic import Bool, mechanic, param, pool

            @mechanic(labels=("low", "high"), params={"look": param(False, Bool(), "read the big pool")},
                      inputs={"small": pool("3d6"), "big": pool("40d20")})
            def maybe(small, big, *, look):
                if look:
                    return "high" if big[0] == 20 else "low"
                return "high" if small[0] >= 5 else "low"
            """
        )
    )
    assert main(["exact", f"{rules}:maybe", "--json"]) == 0  # the big pool is never read
    assert json.loads(capsys.readouterr().out)["outcomes"]["high"] == pytest.approx(1 - (4 / 6) ** 3, abs=TOL)
    assert main(["exact", f"{rules}:maybe", "--look", "true"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "pool big = '40d20'" in err and "simulate" in err
    assert main(["simulate", f"{rules}:maybe", "--look", "true", "--trials", "1000", "--no-progress"]) == 0
    capsys.readouterr()


# -- declarations -------------------------------------------------------------------------
def test_choice_takes_a_tuple_or_a_list():
    for words in (("slow", "fast"), ["slow", "fast"]):

        @mechanic(
            labels=("a", "b"), params={"pace": param("slow", Choice(words), "how fast")}, inputs={"x": "1d6"}
        )
        def paced(x, *, pace):
            return "b" if pace == "fast" and x > 3 else "a"

        assert paced.exact(paced.make_spec(pace="fast")).outcomes["b"] == pytest.approx(0.5, abs=TOL)
        with pytest.raises(SpecError, match="must be one of slow, fast"):
            paced.make_spec(pace="walk")


def _declare(**kw):
    def plain(x):
        return "a"

    declaration = {"labels": ("a", "b"), "inputs": {"x": "1d6"}} | kw
    return mechanic(plain, **declaration)


@pytest.mark.parametrize(
    "declaration, message",
    [
        ({"params": {"pace": param("slow", Choice(("slow", 2)), "")}}, "Choice takes different words"),
        ({"params": {"pace": param("slow", Choice(), "")}}, "Choice takes different words"),
        ({"params": {"pace": param("run", Choice(("slow", "fast")), "")}}, "must be one of slow, fast"),
        ({"labels": "ab"}, "labels are a tuple or a list"),
        ({"inputs": {"x": pool("3d6kh1")}}, "keep and count them in the rule"),
        ({"inputs": {"x": pool("3d6+1")}}, "keep and count them in the rule"),
        ({"inputs": {"x": pool("six d6")}}, "write a pool as NdX"),
        ({"inputs": {"x": pool("101d6")}}, "a pool has 0..100 dice"),
        ({"inputs": {"x": 6}}, "a dice expression is text or pool"),
    ],
)
def test_every_declaration_mistake_is_one_line_naming_the_mechanic(declaration, message):
    with pytest.raises(MechanicError) as info:
        _declare(**declaration)
    text = str(info.value)
    # one line, starting with the mechanic's name (or its reference) and saying what is wrong
    assert "\n" not in text and re.match(r"^\S*plain\b", text) and message in text


def test_a_pool_too_large_for_its_parameter_names_the_parameter():
    @mechanic(labels=("a", "b"), params={"n": param(3, Int(0, 200), "dice")}, inputs={"x": pool("{n}d6")})
    def sized(x, *, n):
        return "b" if n > 0 and x[0] == 6 else "a"

    with pytest.raises(SpecError, match=r"parameter n = 150: makes input x = '150d6'.*0\.\.100 dice"):
        sized.make_spec(n=150)
    assert sized.exact(sized.make_spec(n=0)).outcomes["a"] == 1.0  # an empty pool is one outcome


def test_a_rule_that_changes_its_pool_is_refused():
    with pytest.raises(MechanicError, match="pool 'x' is changed by .sort"):

        @mechanic(labels=("a", "b"), inputs={"x": pool("3d6")})
        def sorts(x):
            x.sort()
            return "a"

    with pytest.raises(MechanicError, match="pool 'x' is changed; a pool is one roll"):

        @mechanic(labels=("a", "b"), inputs={"x": pool("3d6")})
        def writes(x):
            x[0] = 1
            return "a"


# -- the disk cache -----------------------------------------------------------------------
COUNT_COMPILES = """
import sys
import numba.core.compiler as compiler
compiled = []
real = compiler.compile_extra
def counting(*args, **kwargs):
    compiled.append(1)
    return real(*args, **kwargs)
compiler.compile_extra = counting
from critlab.analysis.cli.main import main
code = main(sys.argv[1:])
print("COMPILATIONS", len(compiled), file=sys.stderr)
sys.exit(code)
"""


def test_a_second_process_answers_from_the_disk_cache_without_compiling(tmp_path):
    env = {**os.environ, "CRITLAB_MECHANIC_CACHE": str(tmp_path / "cache")}
    command = [
        sys.executable,
        "-c",
        COUNT_COMPILES,
        "exact",
        "notebooks/examples/savage_worlds.py:trait_roll",
    ]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    second = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout  # the same answer
    count = lambda run: int(run.stderr.split("COMPILATIONS")[-1])  # noqa: E731
    assert count(first) > 0  # the rule and its exact walk compiled, once
    assert count(second) == 0  # a new process: nothing compiled, all read from the disk cache
    assert any((tmp_path / "cache").iterdir())
