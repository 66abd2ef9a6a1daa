"""The kernels' form of a dice expression: a program of int64 rows for
:func:`critlab.kernels.dice.roll_expr`.

A term is one row (columns named in :mod:`critlab.kernels.dice`: sign, count, number of
faces, keep, explosion, reroll, clamp, count, scale, face kind), followed by rows listing
its faces when they are listed (``d{1,1,2}``). A group is a group row, then each member's
rows closed by a member row (its constant and comparison), then a group-end row with the
group's keep, count and scale. A trailing comparison is a last row. The first six columns
of a term in the notation's first form are what they always were.

>>> from critlab.analysis.dice.notation import parse
>>> rows, constant = encode(parse("2d6+1"))
>>> rows.shape, rows[0, :6].tolist(), constant
((1, 24), [1, 2, 6, 0, 0, 0], 1)
"""

from __future__ import annotations

import numpy as np

from critlab.analysis.dice.grammar import UNBOUNDED
from critlab.kernels.vocab import dice as kd

_EXPLODE = {"!": kd.EXPLODE_ADD, "!p": kd.EXPLODE_PENETRATING, "x": kd.EXPLODE_SEPARATE}
_REROLL = {"": kd.REROLL_NONE, "rr": kd.REROLL_ALWAYS, "ro": kd.REROLL_ONCE}
_FACES = {"sides": kd.FACES_RANGE, "fate": kd.FACES_FATE, "list": kd.FACES_TABLE}
_EMPTY = (1, 0)  # an interval that meets nothing


def _row(op: int) -> np.ndarray:
    r = np.zeros(kd.WIDTH, dtype=np.int64)
    r[kd.C_OP] = op
    r[kd.C_MUL] = r[kd.C_DIV] = 1
    r[kd.C_DF_LO], r[kd.C_DF_HI] = _EMPTY
    return r


def _counting(r: np.ndarray, t) -> None:
    if t.count_kind:
        r[kd.C_COUNTING] = 1
        r[kd.C_CS_LO], r[kd.C_CS_HI] = t.count_range
        if t.botch is not None:
            r[kd.C_DF_LO], r[kd.C_DF_HI] = t.botch
    r[3], r[4] = t.keep_mode, t.keep
    r[kd.C_MUL], r[kd.C_DIV] = t.mul, t.div


def _term(t, big: int) -> list[np.ndarray]:
    r = _row(kd.OP_TERM)
    r[0], r[1], r[2] = t.sign, t.count, len(t.face_values)
    r[5] = _EXPLODE[t.explode_kind] if t.exploding else kd.EXPLODE_NONE
    r[6] = _REROLL[t.reroll_mode]
    r[7], r[8] = t.reroll if t.reroll is not None else _EMPTY
    r[9], r[10] = t.explode if t.exploding else _EMPTY
    r[11] = int(t.explode_once)
    r[12], r[13] = t.clamp if t.clamp is not None else (-big, big)
    _counting(r, t)
    r[kd.C_FACE_KIND] = _FACES[t.face_kind]
    rows = [r]
    if t.face_kind == "list":
        faces = np.asarray(t.faces, dtype=np.int64)
        n_rows = -(-faces.size // kd.WIDTH)
        table = np.zeros(n_rows * kd.WIDTH, dtype=np.int64)
        table[: faces.size] = faces
        rows += list(table.reshape(n_rows, kd.WIDTH))
        r[kd.C_EXTRA] = n_rows
    return rows


def _terms(terms, big: int) -> list[np.ndarray]:
    rows: list[np.ndarray] = []
    for t in terms:
        if hasattr(t, "members"):
            rows.append(_row(kd.OP_GROUP))
            for m in t.members:
                rows += _terms(m.terms, big)
                end = _row(kd.OP_MEMBER_END)
                end[1] = m.constant
                if m.compare is not None:
                    end[kd.C_COUNTING] = 1
                    end[kd.C_CS_LO], end[kd.C_CS_HI] = m.compare
                rows.append(end)
            end = _row(kd.OP_GROUP_END)
            end[0] = t.sign
            _counting(end, t)
            rows.append(end)
        else:
            rows += _term(t, big)
    return rows


def encode(expr) -> tuple[np.ndarray, int]:
    """``(rows, constant)`` of a :class:`~critlab.analysis.dice.notation.DiceExpr`."""
    rows = _terms(expr.terms, UNBOUNDED)
    if expr.compare is not None:
        r = _row(kd.OP_COMPARE)
        r[kd.C_CS_LO], r[kd.C_CS_HI] = expr.compare
        rows.append(r)
    arr = np.array(rows, dtype=np.int64).reshape(len(rows), kd.WIDTH)
    return arr, expr.constant


__all__ = ["encode"]
