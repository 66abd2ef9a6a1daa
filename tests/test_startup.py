"""Start-up: what each entry point of the command line imports (RULES: ``--version`` and
every ``--help`` load neither Numba, SciPy nor pandas; ``exact``, ``dice``, ``tune`` and
``sensitivity`` load no Numba). Asserted on ``sys.modules`` after the command ran in a
fresh interpreter, never on a time."""

from __future__ import annotations

import json
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
