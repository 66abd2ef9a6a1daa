"""The jit policy's cache stamp: a kernel's cache is fresh only while every kernel source
is as it was (a kernel inlines helpers from other modules, which Numba's own per-file
stamp would not see change)."""

from __future__ import annotations

import importlib.util
import pickle
from types import SimpleNamespace

import numpy as np
import pytest

from critlab.analysis.run import needs_compiling
from critlab.kernels import crit_range, jit


def test_every_kernel_cache_carries_the_sources_stamp():
    locator = crit_range.block.of(_tiny_block()[-1])._cache._impl.locator
    own, every = locator.get_source_stamp()
    assert every == jit.SOURCES_STAMP and own


def test_the_stamp_changes_with_any_source_in_the_folder(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    before = jit.sources_stamp(tmp_path)
    (tmp_path / "b.py").write_text("y = 3\n")
    assert jit.sources_stamp(tmp_path) != before
    (tmp_path / "b.py").write_text("y = 2\n")
    assert jit.sources_stamp(tmp_path) == before


def test_numba_functions_outside_critlab_keep_numbas_own_cache(tmp_path):
    (tmp_path / "elsewhere.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef f(x):\n    return x + 1\n"
    )
    spec = importlib.util.spec_from_file_location("elsewhere", tmp_path / "elsewhere.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert not isinstance(module.f._cache._impl.locator, jit._Stamped)
    assert module.f(1) == 2


def test_a_stale_index_means_compiling(monkeypatch):
    args = _tiny_block()
    crit_range.block(*args)  # compiled (or loaded) now: its index is fresh on disk
    compiled = crit_range.block.of(args[-1])
    fresh = SimpleNamespace(signatures=[], _cache=compiled._cache)  # as in a new process
    assert not needs_compiling(fresh)
    monkeypatch.setattr(fresh._cache._cache_file, "_source_stamp", ("another", "stamp"))
    assert needs_compiling(fresh)


def _tiny_block():
    from critlab.analysis.systems.crit_range import SYSTEM, CritRangeSpec, kernel_args
    from critlab.kernels.rng import stream_state

    spec = CritRangeSpec(attack_bonus=3, evasion=11)
    layout = SYSTEM.layout(spec, SYSTEM.exact(spec))
    out = np.zeros(layout.n_out, dtype=np.int64)
    return stream_state(1, 0), 10, out, np.asarray(layout.array, dtype=np.int64), kernel_args(spec)


# A template of two paths; the "other" path's helper cannot be typed (an int has no
# attribute), so a kernel of the "own" path compiles only if that branch is dropped.
OWN, OTHER = "own", "other"
PATH = OWN


def _untypable(x):
    return x.no_such_attribute


def _two_paths(state, n, out, layout, args):
    if PATH == OTHER:
        out[0] = _untypable(n)
    else:
        out[0] = n + args[0]


def test_a_path_compiles_its_own_branch_only():
    untypable = jit.kernel(_untypable)
    paths = jit.Paths(jit.bind(_two_paths, _untypable=untypable), lambda a: OWN if a[0] >= 0 else OTHER,
                      paths=(OWN, OTHER), name="two_paths")  # fmt: skip
    out = np.zeros(1, dtype=np.int64)
    paths(np.zeros(1, dtype=np.uint64), 5, out, np.zeros(1, dtype=np.int64), (2,))
    assert out[0] == 7
    assert paths.of((2,)) is paths.of((3,))  # one kernel per path, compiled once
    assert paths.of((2,)).py_func.__name__ == "two_paths_own"


def test_a_path_outside_the_declared_ones_is_named():
    paths = jit.Paths(_two_paths, lambda a: "third", paths=(OWN, OTHER), name="two_paths")
    with pytest.raises(ValueError, match="no path 'third'; paths: own, other"):
        paths.of((0,))


def test_a_block_of_paths_pickles_as_its_module_and_name():
    assert pickle.loads(pickle.dumps(crit_range.block)) is crit_range.block
    assert crit_range.block.py_func.__module__ == "critlab.kernels.crit_range"  # where fights find its trial
