"""The jit policy's cache stamp: a kernel's cache is fresh only while every kernel source
is as it was (a kernel inlines helpers from other modules, which Numba's own per-file
stamp would not see change)."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import numpy as np

from critlab.analysis.run import needs_compiling
from critlab.kernels import crit_range, jit


def test_every_kernel_cache_carries_the_sources_stamp():
    locator = crit_range.block._cache._impl.locator
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
    crit_range.block(*_tiny_block())  # compiled (or loaded) now: its index is fresh on disk
    fresh = SimpleNamespace(signatures=[], _cache=crit_range.block._cache)  # as in a new process
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
