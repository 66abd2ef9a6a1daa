"""The dice encoding's constants and the plans made from an encoded expression.

Plain Python over :meth:`critlab.analysis.dice.notation.DiceExpr.encode`'s rows, apart
from the jitted dice (:mod:`critlab.kernels.dice`, :mod:`critlab.kernels.fast_dice`,
:mod:`critlab.kernels.joint`, which import them from here), so that building a kernel's
arguments, and the exact side, never import Numba.

>>> from critlab.analysis.dice.notation import parse
>>> plan(parse("2d6").encode()[0])                               # 2d6: no face explodes
(True, 2, 6, 7)
>>> plan(parse("1d6!").encode()[0]), plan(parse("4d6kh3").encode()[0])[0]
((True, 1, 6, 6), False)
"""

from __future__ import annotations

import numpy as np

KEEP_ALL, KEEP_HIGHEST, KEEP_LOWEST = 0, 1, 2
# An 'x' term's drop (its dice vary in number): the K lowest (highest) of all its rolls dropped.
DROP_LOWEST, DROP_HIGHEST = 3, 4
REROLL_NONE, REROLL_ALWAYS, REROLL_ONCE = 0, 1, 2
# The encoding of critlab.analysis.dice.encode: rows of WIDTH columns (the first six of a
# term as in the notation's first encoding), an op in the last.
EXPLODE_NONE, EXPLODE_ADD, EXPLODE_PENETRATING, EXPLODE_SEPARATE = 0, 1, 2, 3
FACES_RANGE, FACES_FATE, FACES_TABLE = 0, 1, 2
OP_TERM, OP_GROUP, OP_MEMBER_END, OP_GROUP_END, OP_COMPARE = 0, 1, 2, 3, 4
WIDTH = 24
C_COUNTING, C_CS_LO, C_CS_HI, C_DF_LO, C_DF_HI = 14, 15, 16, 17, 18
C_MUL, C_DIV, C_FACE_KIND, C_EXTRA, C_OP = 19, 20, 21, 22, 23

TABLE_SIZE = 4096
"""Entries of a kernel's outcome table (32 KiB of int64: it stays in the L1 cache)."""


def plan(terms) -> tuple[bool, int, int, int]:
    """How a kernel rolls the encoded terms ``terms`` (columns as in
    :func:`~critlab.kernels.dice.roll_expr`): ``simple`` with its dice count, sides and
    first exploding face (``sides + 1`` where none explodes), or not simple: the
    interpreter, with the terms themselves."""
    if len(terms) == 0:
        return True, 0, 1, 2
    if len(terms) == 1:
        row = [int(v) for v in terms[0]]
        sign, count, sides, mode, _keep, explode, reroll = row[:7]
        ex_lo, ex_hi, once, cl_lo, cl_hi = row[9:14]
        plain = (
            row[C_OP] == OP_TERM and row[C_FACE_KIND] == FACES_RANGE and row[C_COUNTING] == 0
            and row[C_MUL] == 1 and row[C_DIV] == 1 and cl_lo <= 1 and cl_hi >= sides
        )  # fmt: skip
        if plain and sign == 1 and mode == KEEP_ALL and reroll == REROLL_NONE:
            if explode == EXPLODE_NONE:
                return True, count, sides, sides + 1
            if explode in (EXPLODE_ADD, EXPLODE_SEPARATE) and not once and ex_hi >= sides:
                return True, count, sides, max(ex_lo, 2)
    return False, 0, 1, 2


def plans_of(terms, starts) -> np.ndarray:
    """The :func:`plan` of each of the stacked expressions ``terms[starts[i]:starts[i + 1]]``,
    one int64 row each (simple, count, sides, first exploding face).

    >>> from critlab.analysis.dice.notation import parse
    >>> plans_of(np.concatenate([parse("1d8!").encode()[0], parse("2d6").encode()[0]]), [0, 1, 2]).tolist()
    [[1, 1, 8, 8], [1, 2, 6, 7]]
    """
    rows = [plan(terms[starts[i] : starts[i + 1]]) for i in range(len(starts) - 1)]
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def plan_fields(prefix: str, terms) -> dict[str, bool | int]:
    """The :func:`plan` of ``terms`` as a kernel's argument fields ``{prefix}_simple``,
    ``{prefix}_count``, ``{prefix}_sides`` and ``{prefix}_explode``.

    >>> plan_fields("dmg", [])
    {'dmg_simple': True, 'dmg_count': 0, 'dmg_sides': 1, 'dmg_explode': 2}
    """
    names = (f"{prefix}_{field}" for field in ("simple", "count", "sides", "explode"))
    return dict(zip(names, plan(terms), strict=True))


def faces_of_sum(count: int, sides: int) -> int:
    """How many ordered outcomes ``count`` dice of ``sides`` sides have, or 0 when more
    than :data:`TABLE_SIZE` (too many to count one by one).

    >>> faces_of_sum(1, 10), faces_of_sum(2, 6), faces_of_sum(6, 6)
    (10, 36, 0)
    """
    outcomes = sides**count
    return outcomes if outcomes <= TABLE_SIZE else 0


def joint_plan(simple: bool, count: int, sides: int, explode_at: int, naturals: int = 20) -> tuple[int, int]:
    """``(outcomes, totals)`` for drawing a roll's dice with a trial's d20 and counting the
    trial by its natural and total: the ordered outcomes of the dice and how many totals
    they make; ``(0, 0)`` where they cannot be (an interpreted or exploding expression,
    or more outcomes than a table holds).

    ``simple, count, sides, explode_at`` are a :func:`critlab.kernels.fast_dice.plan`.

    >>> joint_plan(True, 1, 10, 11), joint_plan(True, 2, 6, 7), joint_plan(True, 1, 6, 6)
    ((10, 10), (36, 11), (0, 0))
    """
    if not simple or explode_at <= sides:
        return 0, 0
    outcomes, totals = sides**count, count * (sides - 1) + 1
    if outcomes > TABLE_SIZE or naturals * totals > TABLE_SIZE:
        return 0, 0
    return outcomes, totals


def simple_only(args):
    """Kernel arguments ``args`` (a named tuple, its plans in a ``rules`` member or, without
    one, in its own fields) with each ``<roll>_terms`` member None where ``<roll>_simple``
    holds for every such roll, else ``args`` itself: the kernel then compiles without the
    interpreter (see :mod:`critlab.kernels.fast_dice`).

    >>> from collections import namedtuple
    >>> R, A = namedtuple("R", "dmg_simple"), namedtuple("A", "rules dmg_terms")
    >>> simple_only(A(R(True), [1, 2])).dmg_terms is None
    True
    >>> simple_only(A(R(False), [1, 2])).dmg_terms
    [1, 2]
    >>> B = namedtuple("B", "dmg_simple dmg_terms")
    >>> simple_only(B(True, [1, 2])).dmg_terms is None
    True
    """
    rolls = [f[: -len("_terms")] for f in getattr(args, "_fields", ()) if f.endswith("_terms")]
    rules = getattr(args, "rules", args)
    if not rolls or not all(getattr(rules, f"{r}_simple", False) for r in rolls):
        return args
    return args._replace(**{f"{r}_terms": None for r in rolls})
