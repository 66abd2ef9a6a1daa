"""Dice notation: parse, evaluate exactly, and encode for the simulation kernels.

The grammar (RULES.md): terms ``NdX``, ``NdXkhK``, ``NdXklK``, ``NdXdlK``, ``NdXdhK``,
``NdX!`` (each die explodes on its maximum, without limit) and integers, joined by
``+`` and ``-``. ``d20`` means ``1d20``.

>>> expr = parse("4d6dl1")
>>> round(expr.dist().mean, 4)
12.2446
>>> parse("2d6+1").max
13
>>> parse("1d6!").max is None
True
>>> parse("2d6x")
Traceback (most recent call last):
...
ValueError: bad dice expression '2d6x': unexpected 'x' at position 4; expected '+', '-', '!', ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from critlab.analysis.dist import TAIL_EPS, Dist, explode

MAX_DICE = 100
MAX_SIDES = 1000
MAX_CONSTANT = 10**6

# Columns of the kernel encoding of one dice term (see critlab.kernels.dice.roll_expr).
KEEP_ALL, KEEP_HIGHEST, KEEP_LOWEST = 0, 1, 2

_TERM = re.compile(
    r"\s*(?P<count>\d*)[dD](?P<sides>\d+)(?P<bang>!?)(?:(?P<op>kh|kl|dh|dl)(?P<k>\d+))?(?P<bang2>!?)"
    r"|\s*(?P<const>\d+)"
)
_SIGN = re.compile(r"\s*([+-])")


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``sign * (count dSIDES)``, keeping ``keep`` dice (highest or lowest) or exploding."""

    sign: int
    count: int
    sides: int
    keep_mode: int = KEEP_ALL
    keep: int = 0
    exploding: bool = False

    def dist(self, eps: float = TAIL_EPS) -> Dist:
        """Exact distribution of this term (sign applied); each exploding die is cut off
        at a tail below ``eps``."""
        if self.exploding:
            d = explode(Dist.die(self.sides), eps=eps).repeat(self.count)
        elif self.keep_mode == KEEP_ALL:
            d = Dist.die(self.sides).repeat(self.count)
        else:
            d = keep_highest(self.count, self.sides, self.keep)
            if self.keep_mode == KEEP_LOWEST:
                # Reflect faces v -> sides + 1 - v: the lowest k become the highest k.
                d = self.keep * (self.sides + 1) - d
        return d if self.sign > 0 else -d

    @property
    def n_kept(self) -> int:
        return self.count if self.keep_mode == KEEP_ALL else self.keep


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed dice expression: dice terms plus an integer constant.

    Examples
    --------
    >>> e = parse("2d6+1d4-1")
    >>> e.min, e.max, e.exploding
    (2, 15, False)
    """

    text: str
    terms: tuple[DiceTerm, ...]
    constant: int

    @property
    def exploding(self) -> bool:
        """Whether any die explodes (the expression then has no maximum)."""
        return any(t.exploding for t in self.terms)

    @property
    def min(self) -> int | None:
        """Smallest possible value, modifiers included; ``None`` when unbounded below."""
        lo = self.constant
        for t in self.terms:
            if t.sign > 0:
                lo += t.n_kept
            elif t.exploding:
                return None
            else:
                lo -= t.n_kept * t.sides
        return lo

    @property
    def max(self) -> int | None:
        """Largest possible value, modifiers included; ``None`` when a die explodes upward."""
        hi = self.constant
        for t in self.terms:
            if t.sign < 0:
                hi -= t.n_kept
            elif t.exploding:
                return None
            else:
                hi += t.n_kept * t.sides
        return hi

    def dist(self) -> Dist:
        """Exact distribution (cached per expression text)."""
        return _dist_of(self)

    def encode(self) -> tuple[np.ndarray, int]:
        """The kernel form: an int64 array with one row per term
        ``(sign, count, sides, keep_mode, keep, exploding)`` and the constant."""
        rows = [(t.sign, t.count, t.sides, t.keep_mode, t.keep, int(t.exploding)) for t in self.terms]
        arr = np.array(rows, dtype=np.int64).reshape(len(rows), 6)
        return arr, self.constant

    def __str__(self) -> str:
        return self.text


@lru_cache(maxsize=1024)
def _dist_of(expr: DiceExpr) -> Dist:
    # RULES.md's tail budget (< 1e-12) is for the whole expression: share it among its chains.
    chains = sum(t.count for t in expr.terms if t.exploding)
    eps = min(TAIL_EPS, 1e-13 / max(chains, 1))
    d = Dist.point(expr.constant)
    for t in expr.terms:
        d = d + t.dist(eps)
    return d


def _bad(text: str, pos: int, expected: str) -> ValueError:
    frag = text[pos:].strip() or "end of text"
    quoted = f"'{frag}'" if frag != "end of text" else frag
    return ValueError(
        f"bad dice expression '{text}': unexpected {quoted} at position {pos + 1}; expected {expected}"
    )


@lru_cache(maxsize=1024)
def parse(text: str) -> DiceExpr:
    """Parse dice notation; a malformed expression raises ``ValueError`` naming the bad part.

    >>> parse("d20").terms[0].count
    1
    >>> parse("3d6kh4")
    Traceback (most recent call last):
    ...
    ValueError: bad dice expression '3d6kh4': keeps 4 dice of 3 rolled; keep 1..3
    """
    if not isinstance(text, str):
        raise ValueError(f"a dice expression must be text, got {text!r}")
    pos, sign, terms, constant = 0, 1, [], 0
    if not text.strip():
        raise ValueError(f"bad dice expression '{text}': it is empty; expected e.g. '1d20' or '2d6+1'")
    m = _SIGN.match(text, pos)
    if m:
        sign = 1 if m.group(1) == "+" else -1
        pos = m.end()
    while True:
        m = _TERM.match(text, pos)
        if not m:
            raise _bad(text, pos, "a die like '2d6' or a number")
        if m.group("const") is not None:
            value = int(m.group("const"))
            if value > MAX_CONSTANT:
                raise ValueError(f"bad dice expression '{text}': constant {value} is above {MAX_CONSTANT}")
            constant += sign * value
        else:
            terms.append(_dice_term(text, m, sign))
        pos = m.end()
        if pos == len(text) or not text[pos:].strip():
            break
        m = _SIGN.match(text, pos)
        if not m:
            expected = "'+', '-', '!', 'kh', 'kl', 'dh' or 'dl'" if terms else "'+' or '-'"
            raise _bad(text, pos, expected)
        sign = 1 if m.group(1) == "+" else -1
        pos = m.end()
    return DiceExpr(text=text, terms=tuple(terms), constant=constant)


def _dice_term(text: str, m: re.Match, sign: int) -> DiceTerm:
    count = int(m.group("count")) if m.group("count") else 1
    sides = int(m.group("sides"))
    exploding = bool(m.group("bang") or m.group("bang2"))
    if m.group("bang") and m.group("bang2"):
        raise _bad(text, m.start("bang2"), "'+' or '-'")
    if not 1 <= count <= MAX_DICE:
        raise ValueError(f"bad dice expression '{text}': dice count {count} is not in 1..{MAX_DICE}")
    if not 1 <= sides <= MAX_SIDES:
        raise ValueError(f"bad dice expression '{text}': d{sides} has no sides in 1..{MAX_SIDES}")
    if exploding and sides < 2:
        raise ValueError(
            f"bad dice expression '{text}': an exploding die needs at least 2 sides, got d{sides}"
        )
    op, k = m.group("op"), m.group("k")
    if op is None:
        return DiceTerm(sign, count, sides, exploding=exploding)
    if exploding:
        raise ValueError(f"bad dice expression '{text}': exploding dice cannot also keep or drop dice")
    k = int(k)
    if op in ("kh", "kl"):
        if not 1 <= k <= count:
            raise ValueError(
                f"bad dice expression '{text}': keeps {k} dice of {count} rolled; keep 1..{count}"
            )
        keep = k
    else:
        if not 0 <= k < count:
            raise ValueError(
                f"bad dice expression '{text}': drops {k} dice of {count} rolled; drop 0..{count - 1}"
            )
        keep = count - k
    mode = KEEP_HIGHEST if op in ("kh", "dl") else KEEP_LOWEST
    if keep == count:
        mode = KEEP_ALL
    return DiceTerm(sign, count, sides, keep_mode=mode, keep=keep)


# Work bound of the exact pool programme (inner steps); beyond it a pool is refused
# rather than left computing for minutes.
MAX_POOL_WORK = 2 * 10**9


@lru_cache(maxsize=256)
def keep_highest(count: int, sides: int, keep: int) -> Dist:
    """Exact sum of the highest ``keep`` of ``count`` fair ``sides``-sided dice.

    A dynamic programme over faces (see :func:`critlab.kernels.pools.keep_highest_weights`),
    never the ``sides ** count`` face combinations: 10d10 keep 3 takes microseconds.

    >>> round(keep_highest(4, 6, 3).mean, 6)
    12.244599
    """
    work = sides * (count + 1) ** 2 * (keep * sides + 1)
    if work > MAX_POOL_WORK:
        raise ValueError(f"pool {count}d{sides} keep {keep} is too large to compute exactly")
    from critlab.kernels.pools import keep_highest_weights

    return Dist(0, keep_highest_weights(count, sides, keep))


def dice_dist(text: str) -> Dist:
    """Exact distribution of a dice expression given as text.

    >>> round(dice_dist("3d6 - 3d6").mean, 12)
    0.0
    """
    return parse(text).dist()


__all__ = ["DiceExpr", "DiceTerm", "TAIL_EPS", "dice_dist", "keep_highest", "parse"]
