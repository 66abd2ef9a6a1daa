"""The docstrings' examples, run as tests against the installed ``critlab`` package (so
every module is imported once, by its package name, as a user imports it)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _modules() -> list[str]:
    import critlab.analysis
    import critlab.kernels

    names = ["critlab", "critlab.analysis", "critlab.kernels"]
    infos = [
        *pkgutil.walk_packages(critlab.__path__, "critlab."),
        *pkgutil.walk_packages(critlab.analysis.__path__, "critlab.analysis."),
        *pkgutil.walk_packages(critlab.kernels.__path__, "critlab.kernels."),
    ]
    for info in infos:
        if not info.name.endswith("__main__"):  # running it is the command line itself
            names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    tests = finder.find(module, name)  # each example sees its module's globals
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"
