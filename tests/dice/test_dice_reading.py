"""A dice expression's reading in plain words: each grammar element says what was read."""

from __future__ import annotations

import pytest

from critlab.analysis.dice.notation import parse
from critlab.analysis.dice.reading import reading


def test_the_rules_example_reads_as_written_there():
    assert reading("2d6ro2").startswith("2d6ro2: 2 d6, each rerolled once on a 2")


def test_a_bare_reroll_number_says_it_is_that_face_alone():
    # the meaning that changed: 1d6rr2 rerolls only 2s, and the reading says how to write
    # "2 or less"
    assert "only 2s; rerolling 2 or less is rr<=2" in reading("1d6rr2")
    assert "only" not in reading("1d6rr<=2") and "2 or less" in reading("1d6rr<=2")
    assert "only" not in reading("1d20rr1")  # the lowest face: both meanings agree


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1d20", "a d20"),
        ("d%", "a d100"),
        ("4dF", "4 Fate dice (-1, 0, +1)"),
        ("d{1,1,2}", "a die with faces 1, 1, 2"),
        ("1d20rr1", "rerolled while it shows a 1"),
        ("2d6ro<3", "rerolled once on 2 or less"),
        ("2d6mi3", "at least 3 (a lower face counts as 3)"),
        ("2d6ma5", "at most 5 (a higher face counts as 5)"),
        ("1d6!", "exploding on a 6 (again on each added roll)"),
        ("1d6!!>=5", "exploding on 5 or more"),
        ("1d6!o", "exploding once on a 6 (one added roll at most)"),
        ("1d6!p", "penetrating on a 6 (each added roll counts 1 less"),
        ("5d10x10cs>=8", "each added roll a die of its own"),
        ("4d6dl1", "keep the highest 3"),
        ("4d6xdl1", "each added roll a die of its own, drop the lowest 1 of all the rolls"),
        ("3d6xdh1", "drop the highest 1 of all the rolls"),
        ("2d20k1", "keep the highest 1"),
        ("2d20kl1", "keep the lowest 1"),
        ("5d10cs>=8", "count the dice showing 8 or more (successes)"),
        ("10d10cs>=6df=1", "minus those showing a 1 (botches)"),
        ("6d6cf<=2", "count the dice showing 2 or less (failures)"),
        ("2d6*2", "times 2"),
        ("1d6/2", "divided by 2, rounded down"),
        ("1d20+5>=15", "plus 5; then 1 if the total is 15 or more, else 0"),
        ("3d6-1d4-2", "3 d6, minus a d4, minus 2"),
        ("{1d8!, 1d6!}kh1", "the highest 1 of {a d8 exploding on an 8"),
        ("{d6, d6, d8, d12}kh2", "the highest 2 of {a d6; a d6; a d8; a d12}"),
        ("{1d6, 1d8}cs>=5", "count the members showing 5 or more"),
        ("{1d6, 1d8}", "the sum of {a d6; a d8}"),
        ("{1d20>=11, 1d20>=11}", "{a d20, then 1 if the total is 11 or more, else 0; a d20, then 1 if"),
    ],
)
def test_each_element_reads_in_words(text, words):
    line = reading(text)
    assert line.startswith(f"{text}: ") and words in line, line
    assert reading(parse(text)) == line  # text or parsed alike
