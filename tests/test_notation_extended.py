"""The extended dice notation's parser: suffixes in their fixed order, the terms they make,
one-line errors pointing at the bad part, and the per-expression limits."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from critlab.analysis.dice.notation import (
    KEEP_ALL,
    KEEP_HIGHEST,
    KEEP_LOWEST,
    MAX_POOL_WORK,
    MAX_SPAN,
    MAX_TOTAL_DICE,
    REROLL_ALWAYS,
    REROLL_NONE,
    REROLL_ONCE,
    DiceExpr,
    limits,
    parse,
)


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("1d20rr1", dict(reroll_mode=REROLL_ALWAYS, reroll_at=1)),
        ("2d6ro2", dict(reroll_mode=REROLL_ONCE, reroll_at=2)),
        ("1d6!>=5", dict(exploding=True, explode_at=5)),
        ("1d6!>=6", dict(exploding=True, explode_at=0)),  # the maximum: the same as '!'
        ("6d10!kh3", dict(exploding=True, keep_mode=KEEP_HIGHEST, keep=3)),
        ("6d10!dl3", dict(exploding=True, keep_mode=KEEP_HIGHEST, keep=3)),
        ("4d6ro1dh1", dict(reroll_mode=REROLL_ONCE, reroll_at=1, keep_mode=KEEP_LOWEST, keep=3)),
        ("5d10cs>=8", dict(success_at=8)),
        ("6d10!kh3cs>=8", dict(exploding=True, keep_mode=KEEP_HIGHEST, keep=3, success_at=8)),
        ("3d6!cs>=20", dict(exploding=True, success_at=20)),  # reachable by explosion
        (
            "2d8rr1!>=7kl1cs>=3",
            dict(reroll_mode=1, reroll_at=1, exploding=True, explode_at=7, keep_mode=2, keep=1, success_at=3),
        ),  # fmt: skip
        ("4d6dl0cs>=4", dict(keep_mode=KEEP_ALL, success_at=4)),
    ],
)
def test_suffixes_make_the_term(text, fields):
    (term,) = parse(text).terms
    defaults = dict(
        keep_mode=KEEP_ALL, keep=0, exploding=False, reroll_mode=REROLL_NONE, reroll_at=0, explode_at=0,
        success_at=0,
    )  # fmt: skip
    for name, value in {**defaults, **fields}.items():
        assert getattr(term, name) == value, (text, name)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("6d10!>=10dl3cs>=8", "6d10!kh3cs>=8"),
        ("4D6ro1dh1", "4d6ro1kl3"),
        ("d20rr1", "1d20rr1"),
        ("2d8rr1!>=7kl1cs>=3", "2d8rr1!>=7kl1cs>=3"),
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
        ("1d6rr4!>=5", 6, None),  # every face left explodes, so a total is at least 5 + 1
        ("5d10cs>=8", 0, 5),
        ("5d10!cs>=8", 0, 5),  # success counting bounds an explosion
        ("5d10cs>=1", 5, 5),
        ("6d10!kh3", 3, None),
        ("5d10cs>=8-1d4", -4, 4),
        ("10-3d6!cs>=4", 7, 10),
        ("10-3d6!>=4kh2", None, 8),
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
        ("1d6rr6", "never stops"),  # rr on every face
        ("1d6rr6", "'rr6'"),
        ("1d6ro7", "every face"),
        ("1d6rr0", "rerolls nothing"),
        ("1d1rr1", "d1"),
        ("1d6!>=1", "never stops"),
        ("1d6!>=7", "can never explode"),
        ("1d6!>=", "'!>='"),
        ("1d6!5", "'!5'"),
        ("6d10!kh7", "keeps 7"),  # keep more than rolled
        ("6d10!dl6", "drops 6"),
        ("5d10cs>=11", "can never succeed"),  # a threshold above any total, no explosion
        ("5d10cs>=0", "cs>=0"),
        ("5d10cs8", "'cs8'"),
        ("5d10cs", "'cs'"),
        ("6d10kh3!", "comes after 'kh3'"),  # wrong order
        ("6d10cs>=8kh3", "comes after 'cs>=8'"),
        ("1d6!rr1", "comes after '!'"),
        ("1d6rr1ro1", "second reroll"),
        ("6d10kh3dl1", "second keep"),
        ("1d6!!", "'!'"),
        ("1d6!>=5!", "second explosion"),
        ("5d10cs>=8cs>=9", "second success"),
        ("4d6 dl1", "'dl1'"),
        ("2d6rr1x", "'x'"),
        ("１d６", "'１d６'"),  # digits are ASCII only
        ("1d٦", "'d٦'"),
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
    # read no further than needed: the first 11 terms already pass the limit
    assert "rolls at least 1100 dice in all" in str(info.value) and len(str(info.value)) < 400
    parse("+".join(["100d6"] * 10))  # 1000 dice in all


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
    dice, span, steps = limits(parse("4d6dl1+1d8").terms)
    assert (dice, span) == (5, 18 + 8) and steps > 0
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
@given(st.text(alphabet="0123456789dD!<>=+- rokhlcs\n\tx١", max_size=24))
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
    assert terms.shape == (len(expr.terms), 10)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(["+", "-", "d", "!", ">=", "rr", "ro", "kh", "dl", "cs>=", "1", "6", "0", "20"]),
        max_size=14,
    )
)
def test_token_soup_parses_or_is_refused_on_one_line(tokens):
    text = "".join(tokens)
    try:
        parse(text).dist()
    except ValueError as exc:
        assert str(exc).isprintable()
