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


@pytest.fixture
def undrawn(monkeypatch):
    """Reports built without drawing their figures (each picture a white one of its size):
    for the tests of a report's folder, files and words."""
    from _pictures import blank_png

    from critlab.analysis.report import picture

    monkeypatch.setattr(picture, "png", blank_png)


# The test-only sixth system (tests/toy_duel): its own files and this one registry line.
from critlab.analysis.systems import register  # noqa: E402

register("toy-duel", "toy_duel.system")


# pytest-xdist hands the test files to its workers in the order collected here (make test
# turns off its own reordering by number of tests), the next file to whichever worker is
# free. The files of the most work go first, so that the many short files even out the
# end; and the files that compile the most kernels and rules go before the notebooks and
# the README's commands, whose own processes then load those kernels from the disk cache
# instead of compiling them again (a notebook of own mechanics took 50 s compiling cold,
# 9 s loading). Every other file keeps its place; a name missing here only costs time.
HEAVY_FIRST = (
    "tests/mechanic/test_pools.py",
    "tests/systems/test_crits_cats.py",
    "tests/mechanic/test_choices.py",
    "tests/report/test_report_trust.py",  # the shipped reports: every system's kernels
    "tests/mechanic/test_walks.py",
    "tests/mechanic/test_choice_examples.py",
    "tests/test_doctests.py",
    "tests/encounter/test_encounter_mechanic_sim.py",
    "tests/test_notebooks.py",
    "tests/encounter/test_encounter_reachable.py",
    "tests/test_readme_commands.py",
    "tests/mechanic/test_mechanic_loops.py",
    "tests/mechanic/test_mechanic_builtins.py",
    "tests/report/test_report_encounters.py",
    "tests/systems/test_golden.py",
    "tests/views/test_explore_browser.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(HEAVY_FIRST)}
    # a stable sort: a file's tests stay together and in their order
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
