"""A tool's tree (:mod:`critlab.analysis.dice.tabletop`) rewritten into critlab's text: the
arithmetic every dialect shares, its terms and groups by the dialect's own rewriting
(:mod:`critlab.analysis.dice.roll20`, :mod:`critlab.analysis.dice.foundry`).

>>> from critlab.analysis.dice import roll20
>>> from critlab.analysis.dice.tabletop import read
>>> Rewriter("roll20", "floor(3d6/2)+1", roll20).expression(read("floor(3d6/2)+1", roll20.NAMES))
'3d6/2+1'
"""

from __future__ import annotations

import re
from typing import Any

from critlab.analysis.dice.grammar import quote
from critlab.analysis.dice.tabletop import Call, DialectError, Dice, Expr, Group, Node, Product


class Rewriter:
    """A tool's tree rewritten into critlab's text: sums of signed terms and a constant,
    ``*K`` on a term (critlab's scale), ``floor(TERM/K)`` (critlab's ``/K`` rounds down);
    the dialect's own ``term``, ``group`` and top-level ``compare`` for the rest."""

    def __init__(self, dialect: str, original: str, tool: Any) -> None:
        self.dialect, self.original = dialect, original
        self._term, self._group, self._compare = tool.term, tool.group, tool.compare

    def error(self, why: str) -> DialectError:
        return DialectError(f"{self.dialect} dice {quote(self.original)}: {why}")

    def sum(self, e: Expr) -> tuple[list[tuple[int, str]], int]:
        """The sum ``e`` (its comparison aside) as ``(signed critlab terms, constant)``."""
        parts: list[tuple[int, str]] = []
        constant = 0
        for sign, node in e.items:
            got = self.node(node)
            if isinstance(got, int):
                constant += sign * got
            else:
                terms, c = got
                constant += sign * c
                parts += [(sign * s, text) for s, text in terms]
        return parts, constant

    def expression(self, e: Expr, *, top: bool = False) -> str:
        parts, constant = self.sum(e)
        out = "".join(("-" if s < 0 else "+") + text for s, text in parts)
        if constant or not parts:
            out += f"{constant:+d}"
        out = out.removeprefix("+")
        if e.compare is not None:
            out += self._compare(self, e, top)
        return out

    def node(self, node: Node) -> int | tuple[list[tuple[int, str]], int]:
        """An integer, or ``(signed critlab terms, constant)``."""
        if isinstance(node, int):
            return node
        if isinstance(node, Dice):
            return self._term(self, node)
        if isinstance(node, Group):
            return self._group(self, node)
        if isinstance(node, Call):
            return self.call(node)
        return self.product(node)

    def call(self, c: Call) -> int | tuple[list[tuple[int, str]], int]:
        if c.name == "":  # parentheses
            if c.arg.compare is None and len(c.arg.items) == 1:
                sign, inner = c.arg.items[0]
                got = self.node(inner)
                return (
                    sign * got
                    if isinstance(got, int)
                    else ([(sign * s, t) for s, t in got[0]], sign * got[1])
                )
            raise self.error(f"{quote(c.text)}: parentheses around a sum are not read; write the sum out")
        if c.name == "floor" and c.arg.compare is None and len(c.arg.items) == 1:
            sign, inner = c.arg.items[0]
            if isinstance(inner, Product) and inner.op == "/" and isinstance(inner.right, int):
                return self.scaled(inner.left, "/", inner.right, sign, c.text)
        if c.name in ("floor", "ceil", "round", "abs"):
            raise self.error(
                f"{quote(c.text)}: {c.name}() is read only as floor(TERM/K) (critlab's TERM/K rounds down)"
            )
        raise self.error(f"{quote(c.text)}: the function {c.name}() is not read")

    def product(self, p: Product) -> int | tuple[list[tuple[int, str]], int]:
        if p.op in ("%", "**"):
            raise self.error(
                f"{quote(p.text)}: {p.op!r} ({'modulus' if p.op == '%' else 'power'}) is not read"
            )
        if p.op == "/":
            if isinstance(p.left, int) and isinstance(p.right, int) and p.right and p.left % p.right == 0:
                return p.left // p.right
            raise self.error(
                f"{quote(p.text)}: '/' divides without rounding in {self.dialect}; write floor({p.text}) "
                "to round down"
            )
        left, right = p.left, p.right
        if isinstance(left, int) and isinstance(right, int):
            return left * right
        if isinstance(left, int):
            left, right = right, left
        if not isinstance(right, int):
            raise self.error(
                f"{quote(p.text)}: dice times dice is not read; a term is multiplied by a number"
            )
        return self.scaled(left, "*", right, 1, p.text)

    def scaled(self, node: Node, op: str, k: int, sign: int, text: str) -> tuple[list[tuple[int, str]], int]:
        got = self.node(node)
        if isinstance(got, int):
            return [], sign * (got * k if op == "*" else got // k)
        terms, constant = got
        if len(terms) != 1 or constant or not 1 <= k <= 100:
            raise self.error(f"{quote(text)}: a single dice term is scaled, by 1..100 ({op}K)")
        ((s, term),) = terms
        if re.search(r"[*/]\d+$", term):
            raise self.error(f"{quote(text)}: a term is scaled once")
        return [(sign * s, f"{term}{op}{k}")], 0


__all__ = ["Rewriter"]
