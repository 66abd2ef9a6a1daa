"""A small exact walk runs as Python over the compiled rule, without compiling the walk
(:mod:`critlab.analysis.mechanic.walks`), and gives the compiled walk's result bit for
bit: the outcomes, the values' distributions and a choosing rule's best play, with the
Python walk first, then with its budget at nothing, so that every walk compiles. The
shipped examples (exploding dice, pools, choices), each copied into a folder of its own
with a disk cache of its own, so that nothing is compiled yet."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from critlab.analysis.mechanic import cache, resolve, walks

EXAMPLES = Path(__file__).resolve().parents[2] / "notebooks" / "examples"


def _same(x, y) -> None:
    assert np.array_equal(x.probs, y.probs)  # bit for bit: the same sums in the same order
    assert x.metrics == y.metrics
    for name, d in x.distributions.items():
        assert d.offset == y.distributions[name].offset
        assert np.array_equal(d.probs, y.distributions[name].probs)
        assert d.tail == y.distributions[name].tail
    assert getattr(x, "policy", None) == getattr(y, "policy", None)


@pytest.mark.parametrize(
    ("reference", "params", "walked"),
    [
        ("savage_worlds.py:trait_roll", {"trait": 8, "target": 6}, ["explore"]),  # explosions: a tail
        ("blades_in_the_dark.py:action_roll", {"dice": 7}, ["explore"]),  # pools
        ("three_tries.py:three_tries", {}, ["explore", "solve"]),  # choices
    ],
)
def test_the_python_walk_is_the_compiled_walk(tmp_path, monkeypatch, reference, params, walked):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))  # nothing compiled on disk yet
    file, name = reference.split(":")
    shutil.copy(EXAMPLES / file, tmp_path / file)  # a mechanic of its own, nothing compiled in memory
    m = resolve(f"{tmp_path / file}:{name}")
    spec = m.make_spec(**params)
    first = m.exact(spec)
    compiled = m.rule._compiled
    assert all(not compiled.driver(w).signatures for w in walked)  # answered without compiling a walk
    monkeypatch.setattr(walks, "INTERPRETED_LEAVES", 0)  # every walk stops at once: compiled then
    m.rule._exact.clear()  # the results cached per spec, and a choosing rule's best plays
    m.rule._solved.clear()
    again = m.exact(spec)
    assert all(compiled.driver(w).signatures for w in walked)
    _same(first, again)
