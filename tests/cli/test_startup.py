"""Start-up: what each entry point of the command line imports (RULES: ``--version`` and
every ``--help`` load neither Numba, SciPy nor pandas; ``exact``, ``dice``, ``tune`` and
``sensitivity`` load no Numba). Asserted on ``sys.modules`` after the command ran in a
fresh interpreter, never on a time."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

HEAVY = ("numba", "scipy", "pandas", "matplotlib")
# Run the command line in a fresh interpreter, then report which heavy packages it loaded.
PROBE = f"""
import contextlib, io, json, sys
from critlab.analysis.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(sys.argv[1:])
loaded = sorted(m for m in {HEAVY!r} if m in sys.modules)
print(json.dumps(dict(status=status, loaded=loaded)))
"""


def loaded(*argv: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120, check=True
    )
    report = json.loads(out.stdout.splitlines()[-1])
    assert report["status"] == 0, (argv, out.stderr)
    return set(report["loaded"])


def _subcommands() -> list[str]:
    from critlab.analysis.cli.main import _build_parser

    parser = _build_parser(systems=False)
    (sub,) = (a for a in parser._actions if a.dest == "command")
    return sorted(sub.choices)


HELP = [("--version",), ("--help",)] + [(cmd, "--help") for cmd in _subcommands()]
SYSTEM_COMMANDS = ("exact", "simulate", "validate")
HELP += [(cmd, name, "--help") for cmd in SYSTEM_COMMANDS for name in ("thac0", "crit-range")]


@pytest.mark.parametrize("argv", HELP, ids=" ".join)
def test_help_and_version_load_neither_numba_scipy_nor_pandas(argv):
    assert loaded(*argv).isdisjoint({"numba", "scipy", "pandas"})


ANSWERS = [
    ("exact", "thac0", "--thac0", "15", "--target-ac", "5"),
    ("exact", "crit-range", "--attack-bonus", "5", "--evasion", "15", "--roll", "advantage", "--json"),
    ("exact", "severity", "--mode", "stable", "--sm", "1", "--attacker-skill", "3"),
    ("exact", "contest", "--kind", "regular", "--a-skill", "20", "--b-skill", "23", "--json"),
    ("exact", "crits-cats", "--skill", "5", "--opposing-skill", "2"),
    ("dice", "4d6dl1", "6d10!kh3", "1d6!>=5", "2d6ro2"),
    ("dice", "10d10!kh5", "--json"),
    ("dice", "--dialect", "roll20", "2d6!kh1", "{5d6!!}>8", "foundry:6d6cs>3df"),
    ("tune", "thac0", "--vary", "target_ac=0..3", "--target", "hit=0.5", "--thac0", "15"),
    ("sensitivity", "thac0", "--thac0", "15", "--target-ac", "5"),
]


@pytest.mark.parametrize("argv", ANSWERS, ids=" ".join)
def test_exact_dice_tune_and_sensitivity_load_no_numba(argv):
    assert "numba" not in loaded(*argv)


def test_import_critlab_loads_nothing_else():
    code = "import sys, critlab; print(sorted(m for m in ('numpy', 'numba', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_the_front_door_gives_the_engines_own_functions():
    import critlab
    from critlab.analysis.dice.notation import dice_dist

    assert critlab.dice is dice_dist and "dice" in dir(critlab)
    assert critlab.dice.__doc__ and critlab.tune.__doc__  # help(critlab.dice) is the function's own
    assert set(critlab.__all__) >= {"dice", "exact", "simulate", "validate", "sweep", "get_system", "compare"}
    with pytest.raises(AttributeError, match="no attribute 'dicee'"):
        critlab.dicee  # noqa: B018


def test_a_compiling_simulation_says_so_and_when_it_is_done(capsys):
    from types import SimpleNamespace

    from critlab.analysis.run import RunOptions, assemble
    from critlab.analysis.tally import Layout

    # a kernel as needs_compiling sees one that nothing compiled and no cache holds
    index = SimpleNamespace(_load_index=dict)
    fresh = SimpleNamespace(signatures=[], _cache=SimpleNamespace(_cache_file=index))

    def coin(state, n, out):
        out[0] += n // 2
        out[1] += n - n // 2

    layout = Layout(("heads", "tails"), {})
    options = RunOptions(trials=1_000_000, seed=1, progress=True)  # four blocks
    assemble(layout, coin, options, desc="coin", metrics=lambda t: {}, system="coin", params={}, kernel=fresh)
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("critlab:")]
    assert err[0].startswith("critlab: compiling the coin simulator (1 of 1")
    assert re.fullmatch(r"critlab: compiled the coin simulator \(1 of 1, [0-9]+ s\)", err[1])
    assert len(err) == 2  # once, not once a block


def test_a_reports_warm_up_says_each_kernel_done_of_total(monkeypatch):
    from critlab.analysis.report import warm
    from critlab.analysis.report.config import load_config

    cfg = load_config(None)  # the built-in configuration: five systems validated
    monkeypatch.setattr(warm, "cached", lambda system, spec: False)
    monkeypatch.setattr(warm, "_warm", lambda system, specs: system)
    said: list[str] = []
    assert warm.warm_kernels(cfg, said.append, jobs=1) == 5
    done = [s for s in said if s.startswith("compiled the ")]
    assert [re.search(r"\(([0-9]) of 5, [0-9]+ s\)", s).group(1) for s in done] == ["1", "2", "3", "4", "5"]
    assert said[0].startswith("compiling the simulators of 5 systems")
