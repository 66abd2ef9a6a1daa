"""Shared test set-up: a non-interactive matplotlib backend, so plots render headless,
and derandomised hypothesis, so a property test gives the same verdict on every run
(a CI failure is then always reproducible), and Ctrl-C live for the interrupt tests."""

from __future__ import annotations

import signal

import matplotlib
import pytest
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


@pytest.fixture(scope="module")
def dask_client():
    """A Dask client of a local cluster of two single-thread worker processes, one cluster
    a test module (the cluster tests'); the test is skipped where distributed is missing."""
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("psutil")  # a dependency of distributed
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


# The test-only sixth system (tests/toy_duel): its own files and this one registry line.
from critlab.analysis.systems import register  # noqa: E402

register("toy-duel", "toy_duel.system")


# pytest-xdist hands the test files to its workers in collection order, the next file to
# whichever worker is free. The notebooks (over a minute of one worker's time) are
# collected near the end, beside the README's commands and the browser tests, so the run
# ended on one busy worker beside an idle one. The files of the most work go first (a
# worker that takes one early leaves the many short files to even out the end); every
# other file keeps its place. A name missing from this list only costs time, never a test.
HEAVY_FIRST = (
    "tests/test_notebooks.py",
    "tests/systems/test_crits_cats.py",
    "tests/test_readme_commands.py",
    "tests/mechanic/test_pools.py",
    "tests/test_doctests.py",
    "tests/systems/test_golden.py",
    "tests/report/test_report_trust.py",
    "tests/views/test_explore_browser.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(HEAVY_FIRST)}
    # a stable sort: a file's tests stay together and in their order
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
