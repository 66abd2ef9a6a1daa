"""Shared test set-up: a non-interactive matplotlib backend, so plots render headless,
and derandomised hypothesis, so a property test gives the same verdict on every run
(a CI failure is then always reproducible)."""

from __future__ import annotations

import matplotlib
from hypothesis import settings

matplotlib.use("Agg")

settings.register_profile("critlab", derandomize=True, deadline=None)
settings.load_profile("critlab")

# The test-only sixth system (tests/toy_duel): its own files and this one registry line.
from critlab.analysis.systems import register  # noqa: E402

register("toy-duel", "toy_duel.system")
