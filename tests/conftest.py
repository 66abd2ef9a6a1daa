"""Shared test set-up: a non-interactive matplotlib backend, so plots render headless,
and derandomised hypothesis, so a property test gives the same verdict on every run
(a CI failure is then always reproducible), and Ctrl-C live for the interrupt tests."""

from __future__ import annotations

import signal

import matplotlib
from hypothesis import settings

matplotlib.use("Agg")

settings.register_profile("critlab", derandomize=True, deadline=None)
settings.load_profile("critlab")

# A test run started in the background by a shell without job control inherits SIGINT
# ignored, and so would every command the interrupt tests start (an ignored signal stays
# ignored across exec, and Python then installs no KeyboardInterrupt handler): those tests
# would see Ctrl-C do nothing. A handled signal is reset to the default at exec, so
# handling it here gives every command started by the tests a live Ctrl-C.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The test-only sixth system (tests/toy_duel): its own files and this one registry line.
from critlab.analysis.systems import register  # noqa: E402

register("toy-duel", "toy_duel.system")
