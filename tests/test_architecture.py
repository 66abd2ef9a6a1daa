"""The package's shape: no import circles, no arrows upward (kernels never import
analysis; the runner never imports the cluster module), modules of one idea (at most
450 lines), ``critlab`` alone on the path, and docs/rules.md in step with the code."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {
    "critlab.analysis": ROOT / "analysis",
    "critlab.kernels": ROOT / "kernels",
    "critlab": ROOT / "critlab",
}
MAX_LINES = 450


def _modules() -> dict[str, Path]:
    out = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules imported at module level or inside functions (every import
    statement counts: a lazy import is still an arrow)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


GRAPH = {name: _imports(name, path, set(_modules())) for name, path in _modules().items()}


def test_kernels_never_import_analysis():
    bad = {m: sorted(i for i in deps if i.startswith("critlab.analysis")) for m, deps in GRAPH.items()}
    bad = {m: d for m, d in bad.items() if m.startswith("critlab.kernels") and d}
    assert not bad


def test_runner_does_not_import_the_cluster_module():
    assert "critlab.kernels.cluster" not in GRAPH["critlab.kernels.runner"]


def test_no_import_circles():
    # edges into a package's __init__ from its own submodules are the package's own
    # re-exports, not arrows; everything else must form a DAG
    def deps(m: str) -> set[str]:
        return {d for d in GRAPH[m] if not m.startswith(d + ".")}

    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        if state.get(m) == 2:
            return
        if state.get(m) == 1:
            cycle = path[path.index(m) :] + [m]
            raise AssertionError("import circle: " + " -> ".join(cycle))
        state[m] = 1
        for d in sorted(deps(m)):
            visit(d, [*path, m])
        state[m] = 2

    for m in sorted(GRAPH):
        visit(m, [])


@pytest.mark.parametrize("name", sorted(_modules()))
def test_module_is_one_idea(name):
    lines = _modules()[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name} has {lines} lines"


def test_only_critlab_is_installed_on_the_path(tmp_path):
    # run from an empty folder, so the source tree's own folders are not on the path
    code = (
        "import critlab, importlib.util as u\n"
        "print(critlab.__version__, u.find_spec('analysis'), u.find_spec('kernels'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    version, analysis, kernels = out.stdout.split()
    assert version[0].isdigit() and analysis == "None" and kernels == "None"


def test_python_dash_m_critlab_has_a_version(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "critlab", "--version"], cwd=tmp_path, capture_output=True, text=True
    )
    import critlab

    assert out.returncode == 0 and critlab.__version__ in out.stdout


def test_rules_page_is_generated_from_the_code():
    from critlab.analysis.cli.rulesdoc import render

    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert page == render(), "docs/rules.md is stale: run `make docs`"
