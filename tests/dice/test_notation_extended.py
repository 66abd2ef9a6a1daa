"""The extended dice notation's parser: suffixes in their fixed order, the terms they make,
one-line errors pointing at the bad part, and the per-expression limits."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from critlab.analysis.dice.grammar import MAX_TEXT
from critlab.analysis.dice.limits import MAX_SUM_WORK
from critlab.analysis.dice.notation import (
    KEEP_ALL,
    KEEP_HIGHEST,
    KEEP_LOWEST,
    MAX_POOL_WORK,
    MAX_SPAN,
    MAX_TOTAL_DICE,
    UNBOUNDED,
    DiceExpr,
    limits,
    parse,
)

U = UNBOUNDED


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("1d20rr1", dict(reroll_mode="rr", reroll=(1, 1))),  # a bare number is equality
        ("2d6ro2", dict(reroll_mode="ro", reroll=(2, 2))),
        ("2d6ro<=2", dict(reroll_mode="ro", reroll=(-U, 2))),
        ("1d6rr<3", dict(reroll_mode="rr", reroll=(-U, 2))),
        ("1d6!>=5", dict(exploding=True, explode_at=(5, U))),
        ("1d6!", dict(exploding=True)),  # the maximum
        ("1d6!!", dict(exploding=True)),  # an alias
        ("1d6!o", dict(exploding=True, explode_once=True)),
        ("1d6!p", dict(exploding=True, explode_kind="!p")),
        ("5d10x10", dict(exploding=True, explode_kind="x")),  # on the maximum
        ("5d10x>=9", dict(exploding=True, explode_kind="x", explode_at=(9, U))),
        ("2d6mi3", dict(clamp=(3, U))),
        ("2d6ma5", dict(clamp=(-U, 5))),
        ("2d6mi2ma5", dict(clamp=(2, 5))),
        ("6d10!kh3", dict(exploding=True, keep_mode=KEEP_HIGHEST, keep=3)),
        ("6d10!k3", dict(exploding=True, keep_mode=KEEP_HIGHEST, keep=3)),
        ("6d10!dl3", dict(exploding=True, keep_mode=KEEP_HIGHEST, keep=3)),
        ("4d6ro1dh1", dict(reroll_mode="ro", reroll=(1, 1), keep_mode=KEEP_LOWEST, keep=3)),
        ("5d10cs>=8", dict(count_kind="cs", count_range=(8, U))),
        ("10d10cs>=6df=1", dict(count_kind="cs", count_range=(6, U), botch=(1, 1))),
        ("5d10cf<=2", dict(count_kind="cf", count_range=(-U, 2))),
        ("3d6*2", dict(mul=2)),
        ("1d6/2", dict(div=2)),
        ("4dF", dict(face_kind="fate", sides=3)),
        ("d%", dict(sides=100)),
        ("d{1,1,2}", dict(face_kind="list", faces=(1, 1, 2), sides=3)),
        ("3d6kh3", dict()),  # keeping every die keeps them all
    ],
)
def test_suffixes_make_the_term(text, fields):
    (term,) = parse(text).terms
    defaults = dict(
        keep_mode=KEEP_ALL, keep=0, exploding=False, reroll_mode="", reroll=None, clamp=None,
        explode_kind="!", explode_at=None, explode_once=False, count_kind="", count_range=None,
        botch=None, mul=1, div=1, face_kind="sides",
    )  # fmt: skip
    for name, value in {**defaults, **fields}.items():
        assert getattr(term, name) == value, (text, name)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("6d10!>=10dl3cs>=8", "6d10!kh3cs>=8"),
        ("4D6ro1dh1", "4d6ro1kl3"),
        ("d20rr=1", "1d20rr1"),
        ("2d8rr<=1!>=7kl1cs>=3", "2d8rr<=1!>=7kl1cs>=3"),
        ("5d10X10CS>=8", "5d10xcs>=8"),
        ("10d10cs>5df<2", "10d10cs>=6df<=1"),
        ("4df", "4dF"),
        ("d{1, 1, 2}", "1d{1,1,2}"),
        ("2d6mi3", "2d6mi3"),
        ("1d6!!o", "1d6!o"),
        ("1d6!p>=5", "1d6!p>=5"),
        ("3d6*2", "3d6*2"),
    ],
)
def test_canonical_notation_parses_back_to_the_same_term(text, canonical):
    (term,) = parse(text).terms
    assert term.notation == canonical
    assert parse(canonical).terms == (term,)


@pytest.mark.parametrize(
    ("text", "lo", "hi"),
    [
        ("1d20rr1", 2, 20),
        ("2d6ro2", 2, 12),
        ("1d6!>=5", 1, None),
        ("1d6rr<=4!>=5", 6, None),  # every face left explodes, so a total is at least 5 + 1
        ("5d10cs>=8", 0, 5),
        ("5d10!cs>=8", 0, 5),  # success counting bounds an explosion
        ("5d10cs>=1", 5, 5),
        ("6d10!kh3", 3, None),
        ("5d10cs>=8-1d4", -4, 4),
        ("10-3d6!cs>=4", 7, 10),
        ("10-3d6!>=4kh2", None, 8),
        ("1d6!o", 1, 12),  # one added roll at most
        ("10d10cs>=6df1", -10, 10),
        ("4dF", -4, 4),
        ("2d6mi3", 6, 12),
        ("1d6/2", 0, 3),
        ("1d20+5>=15", 0, 1),
        ("{1d8, 1d6}kh1", 1, 8),
        ("5d10x10cs>=8", 0, None),  # every added roll may count
    ],
)
def test_bounds_are_values_of_positive_probability(text, lo, hi):
    e = parse(text)
    assert (e.min, e.max) == (lo, hi)
    d = e.dist()
    if lo is not None:
        assert d.min == lo and d.pmf(lo) > 0
    if hi is not None:
        assert d.max == hi and d.pmf(hi) > 0


def test_a_success_count_of_exploding_dice_is_bounded():
    # a rule that needs the expression's maximum (crits-cats damage) accepts it
    e = parse("5d10!cs>=8+1d4")
    assert not e.exploding and e.max == 9 and e.terms[0].exploding
    assert parse("5d10!cs>=8+1d4!").exploding


def test_crit_dice_made_to_explode_keep_their_reroll_and_threshold():
    # the crit-range rule: a term without '!' explodes on its maximum as if '!' were written
    (term,) = parse("1d6ro1").terms
    boom = dataclasses.replace(term, exploding=True)
    assert boom.notation == "1d6ro1!"
    expr = DiceExpr(text=boom.notation, terms=(boom,), constant=0)
    assert expr.dist().allclose(parse("1d6ro1!").dist(), atol=0.0)
    (kept,) = parse("1d6!>=5").terms
    assert dataclasses.replace(kept, exploding=True) == kept


# -- errors ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "bad_part"),
    [
        ("1d6rr<=6", "never stops"),  # rr on every face
        ("1d6rr<=6", "'rr<=6'"),
        ("1d1rr1", "never stops"),
        ("1d6ro7", "meets no face"),
        ("1d6rr0", "meets no face"),
        ("1d6!>=1", "every face"),
        ("1d1!", "every face"),
        ("1d6!>=7", "meets no face"),
        ("1d6!>=", "a number after '>='"),
        ("dF!<=0", "below 0"),  # an explosion that lowers the total without end
        ("6d10!kh7", "keeps 7"),  # keep more than rolled
        ("3d6kh0", "keeps 0"),
        ("6d10!dl6", "drops 6"),
        ("4d6dl0", "drops 0"),
        ("5d10cs>=11", "meets no total"),  # a threshold above any total, no explosion
        ("5d10cs>=8df>=11", "botch selector meets no total"),
        ("5d10cs", "a number"),
        ("6d10kh3!", "comes after 'kh3'"),  # wrong order
        ("6d10cs>=8kh3", "comes after 'cs>=8'"),
        ("1d6!rr1", "comes after '!'"),
        ("2d6*2mi3", "comes after '*2'"),
        ("1d6rr1ro1", "second reroll"),
        ("6d10kh3dl1", "second keep"),
        ("1d6!>=5!", "second explosion"),
        ("1d6!!!", "second explosion"),
        ("5d10cs>=8cs>=9", "second count"),
        ("2d6mi3!", "clamps or explodes"),
        ("1d6mi7", "inside the faces"),
        ("2d6mi5ma3", "may not exceed"),
        ("1d6!po", "no 'once'"),
        ("1d6*0", "scale by 1..100"),
        ("1d6/101", "scale by 1..100"),
        ("4d6xdl5", "drops 5 of 4 dice (before explosions)"),
        ("0d6kh1", "0 dice take no suffix"),
        ("d{}", "a face value"),
        ("d{1,2", "closing the faces"),
        ("{1d6}", "one member"),
        ("{1d6, 1d4", "closing the group"),
        ("{1d6, {1d4, 1d4}}", "are not groups"),
        ("{1d6, 1d6}kh3", "keeps 3 of 2 members"),
        ("{1d6, 1d6}rr1", "takes no reroll"),
        ("{1d6, 1d6}cs>=7", "meets no member"),
        ("2d6>=", "a number after '>='"),
        ("2d6>=7>=8", "'>=8'"),
        ("１d６", "'１d６'"),  # digits are ASCII only
        ("1d٦", "'٦'"),
    ],
)
def test_malformed_suffixes_quote_the_text_and_name_the_bad_part(text, bad_part):
    with pytest.raises(ValueError) as info:
        parse(text)
    msg = str(info.value)
    assert f"'{text}'" in msg, msg
    assert bad_part in msg, msg
    assert "\n" not in msg


@pytest.mark.parametrize("text", ["2d6\n+1", "1d6\r", "\x00", "1d20\x1b[31m", "2d6\t+1", "1d6\u2028"])
def test_control_characters_are_refused_on_one_line_escaped(text):
    with pytest.raises(ValueError) as info:
        parse(text)
    msg = str(info.value)
    assert msg.isprintable() and "control character" in msg, msg
    assert repr(text)[1:-1] in msg  # escaped as repr() escapes it


# -- limits ------------------------------------------------------------------------------
def test_the_dice_of_a_whole_expression_are_limited():
    with pytest.raises(ValueError, match=f"at most {MAX_TOTAL_DICE} dice per expression") as info:
        parse("+".join(["100d1000"] * 100))
    assert "rolls 10000 dice in all" in str(info.value) and len(str(info.value)) < 400
    parse("+".join(["100d6"] * 10))  # 1000 dice in all
    parse("1000d6")


def test_a_long_text_is_refused_before_it_is_read():
    with pytest.raises(ValueError, match=f"at most {MAX_TEXT:,} characters, got 1,000,001") as info:
        parse("1" + "+1" * 500_000)
    assert len(str(info.value)) < 400
    assert parse("+".join(["1d6"] * 1000)).dist().mean == pytest.approx(3500, abs=1e-6)


def test_a_sum_of_many_terms_is_limited_by_terms_times_support():
    # each of a thousand 1d1000 passes every other limit (1000 dice, 10^6 values)
    with pytest.raises(ValueError, match=f"terms times support\\); at most {MAX_SUM_WORK:,}"):
        parse("+".join(["1d1000"] * 1000))
    parse("+".join(["1d1000"] * 100))


def test_the_values_spanned_are_limited():
    with pytest.raises(ValueError, match=f"at most {MAX_SPAN:,} per expression"):
        parse("1d1000!>=2")  # about a thousand rolls a die, to its cut-off
    with pytest.raises(ValueError, match="spans about"):
        parse("100d1000!+100d1000!")
    parse("100d1000!")
    parse("+".join(["100d1000"] * 10))


def test_the_steps_of_the_exact_programmes_are_limited():
    with pytest.raises(ValueError, match=f"at most {MAX_POOL_WORK:,} per expression"):
        parse("100d1000!kh50")
    with pytest.raises(ValueError, match="steps"):
        parse("100d100kh50")  # the first-form pool, as before
    with pytest.raises(ValueError, match="steps"):
        parse("+".join(["100d100kh19"] * 2))  # per expression, not per term
    parse("100d100kh19")


def test_limits_count_the_whole_expression():
    dice, span, steps, summed = limits(parse("4d6dl1+1d8").terms)
    assert (dice, span, summed) == (5, 18 + 8, 26) and steps > 0
    one = limits(parse("6d10!kh3").terms)
    two = limits(parse("6d10!kh3+6d10!kh3").terms)
    # two terms share the tail budget, so each die is cut off a little later
    assert two[0] == 2 * one[0] and two[1] >= 2 * one[1] and two[2] >= 2 * one[2]


def test_the_limits_are_checked_on_every_construction():
    (term,) = parse("100d1000").terms
    with pytest.raises(ValueError, match="dice per expression"):
        DiceExpr(text="x", terms=(term,) * 11, constant=0)


@pytest.mark.parametrize(
    "text",
    ["100d6!+100d6!", "60d6!+60d6!+60d6!", "100d6kh50", "50d100kl10", "20d20dl5", "10d10!kh5", "100d2!"],
)
def test_expressions_that_parsed_before_still_parse(text):
    parse(text)


# -- fuzz: every text is parsed and computed, or refused with one line ---------------------
@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789dD!<>=+- rokhlcsfmiap%*/{},\n\tx١", max_size=24))
def test_any_text_parses_and_computes_or_is_refused_on_one_line(text):
    try:
        expr = parse(text)
    except ValueError as exc:
        msg = str(exc)
        assert msg.isprintable() and msg.startswith(("bad dice expression", "a dice expression")), msg
        return
    d = expr.dist()
    assert abs(d.mass + d.tail - 1.0) <= 1e-12 and d.tail < 1e-12
    terms, _ = expr.encode()
    assert terms.shape[1] == 24 and terms.shape[0] >= len(expr.terms)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "+",
                "-",
                "d",
                "!",
                ">=",
                "rr",
                "ro",
                "kh",
                "dl",
                "cs>=",
                "1",
                "6",
                "0",
                "20",
                "x",
                "{",
                ",",
                "}",
                "mi",
                "!p",
                "o",
                "df",
                "F",
                "*",
                "/",
                "<",
            ]
        ),
        max_size=14,
    )
)
def test_token_soup_parses_or_is_refused_on_one_line(tokens):
    text = "".join(tokens)
    try:
        parse(text).dist()
    except ValueError as exc:
        assert str(exc).isprintable()
