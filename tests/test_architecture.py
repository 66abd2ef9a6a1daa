"""The package's shape: no import circles, no arrows upward (the layers below, written
once here and in docs/architecture.md; kernels never import analysis; the runner never
imports the cluster module), nothing at ``analysis/``'s top level but the foundations,
modules of one idea (at most 450 lines), ``critlab`` alone on the path, and docs/rules.md
in step with the code."""

from __future__ import annotations

import ast
import re
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

# The layers, lowest first: a module may import its own layer's modules and those of the
# layers below, never one above (every import statement counts, lazy ones too). A module
# is in the layer of the longest prefix below that names it. docs/architecture.md says the
# same in words.
LAYERS = (
    ("kernels", ("critlab.kernels",)),
    # numbers and distributions, before any dice notation, and how they look
    (
        "core",
        (
            "critlab.analysis",  # the package itself, and its top-level modules unless named below
            "critlab.analysis.dist",
            "critlab.analysis.convolution",  # a distribution's sums, exact where the dice allow
            "critlab.analysis.text",  # numbers read from text and written for machines; documents read
            "critlab.analysis.spec_error",
            "critlab.analysis.style",  # colours, markers and words of every plot
            "critlab.analysis.display",  # a distribution and a result shown
        ),
    ),
    ("dice", ("critlab.analysis.dice",)),
    # the foundations that speak dice: parameters, specs, results, tallies, runs
    (
        "foundations",
        (
            "critlab.analysis.params",
            "critlab.analysis.spec",
            "critlab.analysis.results",
            "critlab.analysis.tally",
            "critlab.analysis.run",
            "critlab.analysis.validate",
            "critlab.analysis.work",  # one point's work estimate, shared by every kind of model
            "critlab.analysis.model",  # the Model protocol every kind of thing answers
        ),
    ),
    ("systems", ("critlab.analysis.systems",)),  # the d20 roll modes among them
    ("uses", ("critlab.analysis.fight", "critlab.analysis.mechanic", "critlab.analysis.encounter")),
    ("design", ("critlab.analysis.design",)),
    # plots and tables of a system, a fight, a mechanic or a dice expression: they may sweep
    ("views", ("critlab.analysis.views",)),
    ("report", ("critlab.analysis.report",)),
    ("cli", ("critlab.analysis.cli",)),
    # what the front door (critlab/__init__.py) dispatches to: a spec's own system
    ("front", ("critlab.analysis.api",)),
)
# The modules that may sit at analysis/'s top level: the shared foundations (a new
# module goes into the sub-package of its concept).
FOUNDATIONS = {
    "dist",
    "convolution",
    "spec_error",
    "params",
    "spec",
    "results",
    "tally",
    "run",
    "validate",
    "style",
    "work",
    "model",
}


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


MODULES = _modules()
GRAPH = {name: _imports(name, path, set(MODULES)) for name, path in MODULES.items()}


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the longest prefix naming ``module``."""
    best, rank = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    assert rank is not None, f"{module} is in no layer: add it to LAYERS (and docs/architecture.md)"
    return rank


LIBRARY = sorted(m for m in GRAPH if m.startswith(("critlab.analysis", "critlab.kernels")))


@pytest.mark.parametrize("name", LIBRARY)
def test_no_upward_import(name):
    here = layer_of(name)
    upward = [
        f"{d} ({LAYERS[layer_of(d)][0]})"
        for d in sorted(GRAPH[name])
        if d.startswith(("critlab.analysis", "critlab.kernels")) and layer_of(d) > here
    ]
    assert not upward, f"{name} ({LAYERS[here][0]}) imports upward: {', '.join(upward)}"


# Beside them, the front door's own module: critlab.exact and critlab.simulate, which
# dispatch on a spec's system.
FRONT_DOOR = {"api"}


def test_only_the_foundations_sit_at_the_top_of_analysis():
    top = {p.stem for p in (ROOT / "analysis").glob("*.py")} - {"__init__"} - FRONT_DOOR
    assert top <= FOUNDATIONS, f"move into a sub-package: {sorted(top - FOUNDATIONS)}"


def test_the_registry_never_imports_a_layer_above_it():
    # the systems resolve references (files, modules) themselves: no arrow to mechanic/
    systems = [m for m in GRAPH if m.startswith("critlab.analysis.systems")]
    assert not {d for m in systems for d in GRAPH[m] if d.startswith("critlab.analysis.mechanic")}


def test_the_library_never_imports_benchmarks():
    # benchmarks/ is outside the package; it imports the library, never the other way
    for name, path in MODULES.items():
        tops = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops |= {a.name.partition(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                tops.add(node.module.partition(".")[0])
        assert "benchmarks" not in tops, name


def test_the_report_and_the_style_name_no_system():
    # what a system needs to look right is declared by the system (RuleSystem.ordered,
    # polarity; its parameters' labels and units): no code here keys on a system's name
    from critlab.analysis.systems import BUILT_IN

    names = {n for s in BUILT_IN for n in (s, s.replace("-", "_"))}
    words = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, sorted(names))) + r")(?![A-Za-z0-9])")
    files = [ROOT / "analysis" / "style.py", *sorted((ROOT / "analysis" / "report").glob("*.py"))]
    found = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            text = None
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                text = node.value
            elif isinstance(node, ast.Name):
                text = node.id
            elif isinstance(node, ast.Attribute):
                text = node.attr
            if text and words.search(text):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text[:60]!r}")
    assert not found, "\n".join(found)


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


def _unit(module: str) -> str | None:
    """The folder (sub-package) or top-level module of ``analysis`` that holds ``module``;
    None outside the analysis package or for the package itself."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["critlab", "analysis"] and len(parts) > 2 else None


def folder_graph() -> dict[str, set[str]]:
    """Which of analysis's folders (and top-level modules) import which others."""
    out: dict[str, set[str]] = {}
    for m, deps in GRAPH.items():
        here = _unit(m)
        if here is None:
            continue
        out.setdefault(here, set()).update(u for d in deps if (u := _unit(d)) is not None and u != here)
    return out


def test_each_layer_prefix_is_one_folder():
    # a folder belongs to one layer: a prefix naming a module inside another layer's
    # folder (dice.d20 among the foundations was one) says the module is in the wrong folder
    for name, prefixes in LAYERS:
        for p in prefixes:
            unit = _unit(p)
            if unit is None:
                continue
            assert p == f"critlab.analysis.{unit}", f"layer {name}: {p} is part of a folder, not one"


def test_no_circle_of_folders():
    # a circle of any length between folders (dice -> display -> style -> params -> dice
    # was one) ties their concepts together, even where no two modules import each other
    graph = folder_graph()
    state: dict[str, int] = {}

    def visit(u: str, path: list[str]) -> None:
        if state.get(u) == 2:
            return
        if state.get(u) == 1:
            raise AssertionError("folder circle: " + " -> ".join([*path[path.index(u) :], u]))
        state[u] = 1
        for d in sorted(graph.get(u, ())):
            visit(d, [*path, u])
        state[u] = 2

    for u in sorted(graph):
        visit(u, [])


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_is_one_idea(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
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
