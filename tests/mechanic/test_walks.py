"""A small exact walk runs as Python over the compiled rule, without compiling the walk
(:mod:`critlab.analysis.mechanic.walks`), and gives the compiled walk's result bit for
bit: the outcomes, the values' distributions and a choosing rule's best play, with the
Python walk first, then with its budget at nothing, so that every walk compiles."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from critlab.analysis.mechanic import cache, resolve, walks

RULES = """
from critlab.analysis.mechanic import Int, choose, mechanic, param, pool


@mechanic(labels=("failure", "success", "raise"), values=("margin",),
          params={"target": param(4, Int(1, 30), "the total to reach")},
          inputs={"trait": "1d8!", "wild": "1d6!"})
def aces(trait, wild, *, target):
    best = max(trait, wild)
    if best < target:
        return "failure", best - target
    if best >= target + 4:
        return "raise", best - target
    return "success", best - target


@mechanic(labels=("miss", "hit"), values=("sixes",),
          params={"dice": param(5, Int(1, 12), "dice in the pool")},
          inputs={"dice_": pool("{dice}d6")})
def sixes(dice_, *, dice):
    n = 0
    for v in dice_:
        if v == 6:
            n += 1
    return ("hit" if dice_[0] >= 5 else "miss"), n


@mechanic(labels=("done",), values=("value",), objective="mean:value",
          params={"sides": param(6, Int(2, 12), "sides of each die")},
          inputs={"a": "1d{sides}", "b": "1d{sides}", "c": "1d{sides}"})
def tries(a, b, c, *, sides):
    if choose("keep_first", ("stand", "reroll"), a) == "stand":
        return "done", a
    if choose("keep_second", ("stand", "reroll"), a, b) == "stand":
        return "done", b
    return "done", c
"""


def _same(x, y) -> None:
    assert np.array_equal(x.probs, y.probs)  # bit for bit: the same sums in the same order
    assert x.metrics == y.metrics
    for name, d in x.distributions.items():
        assert d.offset == y.distributions[name].offset
        assert np.array_equal(d.probs, y.distributions[name].probs)
        assert d.tail == y.distributions[name].tail
    assert getattr(x, "policy", None) == getattr(y, "policy", None)


@pytest.mark.parametrize(("name", "params"), [("aces", {"target": 6}), ("sixes", {"dice": 7}), ("tries", {})])
def test_the_python_walk_is_the_compiled_walk(tmp_path, monkeypatch, name, params):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))  # nothing compiled on disk yet
    path = tmp_path / "rules.py"
    path.write_text(textwrap.dedent(RULES), encoding="utf-8")
    m = resolve(f"{path}:{name}")
    spec = m.make_spec(**params)
    first = m.exact(spec)
    compiled = m.rule._compiled
    walked = ["explore", *(["solve"] if name == "tries" else [])]
    assert all(not compiled.driver(w).signatures for w in walked)  # answered without compiling a walk
    monkeypatch.setattr(walks, "INTERPRETED_LEAVES", 0)  # every walk stops at once: compiled then
    m.rule._exact.clear()  # the results cached per spec, and a choosing rule's best plays
    m.rule._solved.clear()
    again = m.exact(spec)
    assert all(compiled.driver(w).signatures for w in walked)
    _same(first, again)
