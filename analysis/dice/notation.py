"""Dice notation: parse, bound, and encode for the simulation kernels.

The grammar (the rules' "Dice notation"): terms ``NdX`` with suffixes in this fixed order,
``[rrT|roT] [!|!>=T] [khK|klK|dhK|dlK] [cs>=T]``, and integers, joined by ``+`` and ``-``;
``d20`` means ``1d20``. Per die: reroll (``rrT`` while the face is <= T, ``roT`` once), then
explode (``!`` on the maximum, ``!>=T`` on T or more; added rolls are never rerolled);
across the term's dice keep or drop totals, then add the kept totals or count those >= T
(``cs>=T``). The exact evaluation lives in :mod:`critlab.analysis.dice.exact`.

Every expression is bounded before any work (dice in all, values spanned, steps of the
exact programmes: :mod:`critlab.analysis.dice.limits`), so whatever parses computes in
seconds.

>>> expr = parse("4d6dl1")
>>> round(expr.dist().mean, 4)
12.2446
>>> parse("2d6+1").max
13
>>> parse("1d6!").max is None
True
>>> parse("5d10!cs>=8").max
5
>>> parse("2d6x")
Traceback (most recent call last):
...
ValueError: bad dice expression '2d6x': unexpected 'x' at position 4; expected '+', '-', ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from critlab.analysis.dice import exact as de
from critlab.analysis.dice.exact import (
    KEEP_ALL,
    KEEP_HIGHEST,
    KEEP_LOWEST,
    MAX_POOL_WORK,
    REROLL_ALWAYS,
    REROLL_NONE,
    REROLL_ONCE,
    keep_highest,
)
from critlab.analysis.dice.limits import MAX_SPAN, MAX_TOTAL_DICE, check_limits, limits
from critlab.analysis.dice.limits import quote as _show
from critlab.analysis.dist import TAIL_EPS, Dist

MAX_DICE = 100
MAX_SIDES = 1000
MAX_CONSTANT = 10**6

# Columns of the kernel encoding of one dice term (see critlab.kernels.dice.roll_expr).
ENCODING = (
    "sign", "count", "sides", "keep_mode", "keep", "exploding",
    "reroll_mode", "reroll_at", "explode_at", "success_at",
)  # fmt: skip

_DICE = re.compile(r"\s*([0-9]*)[dD]([0-9]+)")
_CONST = re.compile(r"\s*([0-9]+)")
_SIGN = re.compile(r"\s*([+-])")
_SUFFIX = re.compile(r"(rr|ro|kh|kl|dh|dl)([0-9]*)|!(>=)?([0-9]*)|cs(>=)?([0-9]*)")
_STAGE = {"rr": 1, "ro": 1, "!": 2, "kh": 3, "kl": 3, "dh": 3, "dl": 3, "cs": 4}
_STAGE_NAME = {1: "reroll", 2: "explosion", 3: "keep or drop", 4: "success count"}
_ORDER = "rr/ro, then ! or !>=, then kh/kl/dh/dl, then cs>="


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``sign`` times one term: ``count`` d``sides`` dice, each rerolled (``reroll_mode``,
    faces <= ``reroll_at``) and exploding (on faces >= ``explode_at``, 0 meaning the
    maximum), keeping ``keep`` (``keep_mode``) totals, summed or counted as successes when
    >= ``success_at`` (0: summed)."""

    sign: int
    count: int
    sides: int
    keep_mode: int = KEEP_ALL
    keep: int = 0
    exploding: bool = False
    reroll_mode: int = REROLL_NONE
    reroll_at: int = 0
    explode_at: int = 0
    success_at: int = 0

    def dist(self, eps: float = TAIL_EPS) -> Dist:
        """Exact distribution of this term (sign applied); each exploding die is cut off
        at a tail below ``eps``."""
        return de.term_dist(self, eps)

    @property
    def n_kept(self) -> int:
        return self.count if self.keep_mode == KEEP_ALL else self.keep

    @property
    def explode_from(self) -> int:
        """The smallest face that explodes (``sides + 1`` when the die does not explode)."""
        return (self.explode_at or self.sides) if self.exploding else self.sides + 1

    @property
    def die_min(self) -> int:
        """A die's smallest total."""
        face = self.reroll_at + 1 if self.reroll_mode == REROLL_ALWAYS else 1
        return face + 1 if face >= self.explode_from else face

    @property
    def bounds(self) -> tuple[int, int | None]:
        """Smallest and largest values of positive probability, sign not applied
        (``None``: no largest, an explosion)."""
        k = self.n_kept
        if self.success_at:
            return (k if self.die_min >= self.success_at else 0), k
        return k * self.die_min, (None if self.exploding else k * self.sides)

    @property
    def notation(self) -> str:
        """The term in canonical notation, sign not included.

        >>> parse("6d10!>=10dl3cs>=8").terms[0].notation
        '6d10!kh3cs>=8'
        """
        out = f"{self.count}d{self.sides}"
        if self.reroll_mode != REROLL_NONE:
            out += f"{'rr' if self.reroll_mode == REROLL_ALWAYS else 'ro'}{self.reroll_at}"
        if self.exploding:
            out += f"!>={self.explode_at}" if self.explode_at else "!"
        if self.keep_mode != KEEP_ALL:
            out += f"{'kh' if self.keep_mode == KEEP_HIGHEST else 'kl'}{self.keep}"
        if self.success_at:
            out += f"cs>={self.success_at}"
        return out

    def encode(self) -> tuple[int, ...]:
        """The kernel row, in the order of :data:`ENCODING` (``explode_at`` is the first
        exploding face, ``sides + 1`` for none)."""
        return (
            self.sign, self.count, self.sides, self.keep_mode, self.keep, int(self.exploding),
            self.reroll_mode, self.reroll_at, self.explode_from, self.success_at,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed dice expression: dice terms plus an integer constant. Constructing one
    checks the per-expression limits (see :mod:`critlab.analysis.dice.limits`).

    Examples
    --------
    >>> e = parse("2d6+1d4-1")
    >>> e.min, e.max, e.exploding
    (2, 15, False)
    """

    text: str
    terms: tuple[DiceTerm, ...]
    constant: int

    def __post_init__(self) -> None:
        check_limits(self.text, self.terms)

    @property
    def exploding(self) -> bool:
        """Whether an explosion leaves the expression unbounded: a die explodes in a term
        that is summed (a success count of exploding dice stays within its kept dice).

        >>> parse("1d6!").exploding, parse("5d10!cs>=8").exploding, parse("5d10!cs>=8").max
        (True, False, 5)
        """
        return any(t.exploding and not t.success_at for t in self.terms)

    @property
    def min(self) -> int | None:
        """Smallest value of positive probability, modifiers included; ``None`` when
        unbounded below."""
        lo = self.constant
        for t in self.terms:
            t_lo, t_hi = t.bounds
            if t.sign > 0:
                lo += t_lo
            elif t_hi is None:
                return None
            else:
                lo -= t_hi
        return lo

    @property
    def max(self) -> int | None:
        """Largest value of positive probability, modifiers included; ``None`` when a die
        explodes upward (a success count has its number of kept dice as maximum)."""
        hi = self.constant
        for t in self.terms:
            t_lo, t_hi = t.bounds
            if t.sign < 0:
                hi -= t_lo
            elif t_hi is None:
                return None
            else:
                hi += t_hi
        return hi

    def dist(self) -> Dist:
        """Exact distribution (cached per expression)."""
        return _dist_of(self)

    def encode(self) -> tuple[np.ndarray, int]:
        """The kernel form: an int64 array with one row per term (columns
        :data:`ENCODING`) and the constant."""
        rows = [t.encode() for t in self.terms]
        arr = np.array(rows, dtype=np.int64).reshape(len(rows), len(ENCODING))
        return arr, self.constant

    def __str__(self) -> str:
        return self.text


@lru_cache(maxsize=1024)
def _dist_of(expr: DiceExpr) -> Dist:
    return de.expr_dist(expr.terms, expr.constant)


# -- parsing -----------------------------------------------------------------------------
def _bad(text: str, pos: int, expected: str) -> ValueError:
    frag = text[pos:].strip()
    quoted = _show(frag) if frag else "end of text"
    return ValueError(
        f"bad dice expression {_show(text)}: unexpected {quoted} at position {pos + 1}; expected {expected}"
    )


def _error(text: str, why: str) -> ValueError:
    return ValueError(f"bad dice expression {_show(text)}: {why}")


@lru_cache(maxsize=1024)
def parse(text: str) -> DiceExpr:
    """Parse dice notation; a malformed expression raises ``ValueError`` naming the bad part.

    >>> parse("d20").terms[0].count
    1
    >>> parse("3d6kh4")
    Traceback (most recent call last):
    ...
    ValueError: bad dice expression '3d6kh4': keeps 4 dice of 3 rolled; keep 1..3
    >>> parse("6d10kh3!")
    Traceback (most recent call last):
    ...
    ValueError: bad dice expression '6d10kh3!': '!' at position 8 comes after 'kh3'; ...
    """
    if not isinstance(text, str):
        raise ValueError(f"a dice expression must be text, got {text!r}")
    pos, sign, terms, constant, dice = 0, 1, [], 0, 0
    if not text.strip():
        raise _error(text, "it is empty; expected e.g. '1d20' or '2d6+1'")
    odd = next((i for i, ch in enumerate(text) if not ch.isprintable()), None)
    if odd is not None:
        raise _error(text, f"control character {_show(text[odd])} at position {odd + 1}; expected dice text")
    m = _SIGN.match(text, pos)
    if m:
        sign = 1 if m.group(1) == "+" else -1
        pos = m.end()
    while True:
        m = _DICE.match(text, pos)
        if m:
            term, pos = _dice_term(text, m, sign)
            terms.append(term)
            dice += term.count
            if dice > MAX_TOTAL_DICE:  # stop reading a giant expression early
                check_limits(text, tuple(terms), partial=True)
        else:
            m = _CONST.match(text, pos)
            if not m:
                raise _bad(text, pos, "a die like '2d6' or a number")
            value = _number(text, m.group(1))
            if value > MAX_CONSTANT:
                raise _error(text, f"constant {value} is above {MAX_CONSTANT}")
            constant += sign * value
            pos = m.end()
        if pos == len(text) or not text[pos:].strip():
            break
        m = _SIGN.match(text, pos)
        if not m:
            expected = (
                "'+', '-', 'rr', 'ro', '!', 'kh', 'kl', 'dh', 'dl' or 'cs>='" if terms else "'+' or '-'"
            )
            raise _bad(text, pos, expected)
        sign = 1 if m.group(1) == "+" else -1
        pos = m.end()
    return DiceExpr(text=text, terms=tuple(terms), constant=constant)


def _dice_term(text: str, m: re.Match, sign: int) -> tuple[DiceTerm, int]:
    count = _number(text, m.group(1)) if m.group(1) else 1
    sides = _number(text, m.group(2))
    if not 1 <= count <= MAX_DICE:
        raise _error(text, f"dice count {count} is not in 1..{MAX_DICE}")
    if not 1 <= sides <= MAX_SIDES:
        raise _error(text, f"d{sides} has no sides in 1..{MAX_SIDES}")
    fields: dict[str, int | bool] = {}
    pos, stage, last = m.end(), 0, ""
    while True:
        s = _SUFFIX.match(text, pos)
        if not s:
            break
        token = s.group(0)
        op = s.group(1) or ("!" if token.startswith("!") else "cs")
        here = f"{_show(token)} at position {pos + 1}"
        if _STAGE[op] == stage:
            raise _error(text, f"{here} is a second {_STAGE_NAME[stage]}; a term has at most one")
        if _STAGE[op] < stage:
            raise _error(
                text, f"{here} comes after {_show(last)}; a term's suffixes go in the order {_ORDER}"
            )
        stage, last = _STAGE[op], token
        value = _suffix_value(text, s, op, pos)
        _apply(text, here, op, value, count, sides, fields)
        pos = s.end()
    if fields.get("success_at", 0) > sides and not fields.get("exploding"):
        raise _error(
            text,
            f"'cs>={fields['success_at']}' can never succeed: a d{sides} shows at most {sides} and "
            f"does not explode; count successes at 1..{sides}",
        )
    return DiceTerm(sign, count, sides, **fields), pos


_SPELLED = {"!": "'!>=T' (e.g. '!>=5')", "cs": "'cs>=T' (e.g. 'cs>=8')"}


def _suffix_value(text: str, s: re.Match, op: str, pos: int) -> int | None:
    """The number a suffix carries (``None`` for a bare ``!``)."""
    if op == "!":
        ge, digits = s.group(3), s.group(4)
        if not ge and not digits:
            return None
    elif op == "cs":
        ge, digits = s.group(5), s.group(6)
    else:
        ge, digits = ">=", s.group(2)
    if not ge or not digits:
        spelled = _SPELLED.get(op, f"'{op}' and a number (e.g. '{op}1')")
        raise _error(text, f"{_show(s.group(0))} at position {pos + 1} is incomplete; expected {spelled}")
    return _number(text, digits)


def _number(text: str, digits: str) -> int:
    """The value of ASCII ``digits``, refused when it has more digits than any limit (no
    giant integer is ever built from a long text)."""
    if len(digits.lstrip("0")) > 9:
        raise _error(text, f"number {_show(digits)} is far above every limit of the notation")
    return int(digits)


def _apply(text: str, here: str, op: str, value: int | None, count: int, sides: int, fields: dict) -> None:
    """Check one suffix's value and record it in the term's fields."""
    if op in ("rr", "ro"):
        if sides < 2:
            raise _error(text, f"{here}: a d{sides} has nothing to reroll to")
        if value >= sides:
            never = " and never stops" if op == "rr" else ""
            raise _error(text, f"{here} rerolls every face of a d{sides}{never}; reroll at 1..{sides - 1}")
        if value < 1:
            raise _error(text, f"{here} rerolls nothing; reroll at 1..{sides - 1}")
        fields["reroll_mode"] = REROLL_ALWAYS if op == "rr" else REROLL_ONCE
        fields["reroll_at"] = value
    elif op == "!":
        if sides < 2:
            raise _error(text, f"an exploding die needs at least 2 sides, got d{sides}")
        if value is not None and value < 2:
            raise _error(text, f"{here} explodes on every face and never stops; explode at 2..{sides}")
        if value is not None and value > sides:
            raise _error(text, f"{here} can never explode a d{sides}; explode at 2..{sides}")
        fields["exploding"] = True
        fields["explode_at"] = 0 if value in (None, sides) else value
    elif op == "cs":
        if not 1 <= value <= MAX_CONSTANT:
            raise _error(text, f"{here}: count successes at 1..{MAX_CONSTANT}")
        fields["success_at"] = value
    elif op in ("kh", "kl"):
        if not 1 <= value <= count:
            raise _error(text, f"keeps {value} dice of {count} rolled; keep 1..{count}")
        _keep(fields, KEEP_HIGHEST if op == "kh" else KEEP_LOWEST, value, count)
    else:
        if not 0 <= value < count:
            raise _error(text, f"drops {value} dice of {count} rolled; drop 0..{count - 1}")
        _keep(fields, KEEP_HIGHEST if op == "dl" else KEEP_LOWEST, count - value, count)


def _keep(fields: dict, mode: int, keep: int, count: int) -> None:
    if keep < count:
        fields["keep_mode"], fields["keep"] = mode, keep


def dice_dist(text: str) -> Dist:
    """Exact distribution of a dice expression given as text.

    >>> round(dice_dist("3d6 - 3d6").mean, 12)
    0.0
    >>> round(dice_dist("2d6ro2").mean * 3, 12)       # 25/3
    25.0
    """
    return parse(text).dist()


__all__ = [
    "ENCODING",
    "KEEP_ALL",
    "KEEP_HIGHEST",
    "KEEP_LOWEST",
    "MAX_CONSTANT",
    "MAX_DICE",
    "MAX_POOL_WORK",
    "MAX_SIDES",
    "MAX_SPAN",
    "MAX_TOTAL_DICE",
    "REROLL_ALWAYS",
    "REROLL_NONE",
    "REROLL_ONCE",
    "TAIL_EPS",
    "DiceExpr",
    "DiceTerm",
    "check_limits",
    "dice_dist",
    "keep_highest",
    "limits",
    "parse",
]
