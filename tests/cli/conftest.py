"""The fuzz suites' memory guard (tests/_fuzz.py holds the rest of their contract)."""

from __future__ import annotations

import resource

import pytest
from _fuzz import PEAK_GROWTH_BYTES


@pytest.fixture
def bounded_memory():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    yield
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert after - before < PEAK_GROWTH_BYTES, f"peak memory grew by {(after - before) / 2**20:.0f} MiB"
