"""``make bench``'s cold table: what a new user waits for on a machine with nothing compiled.

Each row runs in fresh processes with an empty Numba cache of its own (``NUMBA_CACHE_DIR``
and ``CRITLAB_MECHANIC_CACHE`` pointed at a new folder): the first ``critlab simulate
SYSTEM`` of each built-in system (1,000 trials: all but the compile is a fraction of a
second), then the same command again on the cache it left (its cached start-up), and
a first own mechanic's simulation (the Savage Worlds trait roll of the notebooks), the
example encounter's first simulation (the party against the ogre: two attack kinds),
then another encounter on the cache the first left (one kind already compiled: what an
encounter of attack kinds already compiled adds, its own block), and ``critlab report``
of the built-in configuration cold and then warm, whose difference is the report's
compiling. Wall seconds and the processes' CPU seconds (user + sys)
both: the machine is shared, so wall time reads high when it is loaded, CPU time much
less.

``python -m benchmarks.cold [--no-report]`` prints the table.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.command import markdown, parser_of, print_table
from critlab.analysis.systems import BUILT_IN

# A legal point of each built-in system, as the command line takes it (the README's).
POINTS: dict[str, tuple[str, ...]] = {
    "crits-cats": ("--skill", "3", "--opposing-skill", "2"),
    "crit-range": ("--attack-bonus", "5", "--evasion", "15"),
    "severity": (),
    "contest": ("--a-skill", "12", "--b-skill", "10"),
    "thac0": ("--thac0", "15", "--target-ac", "5"),
}
SIMULATE = ("--trials", "1000", "--seed", "1", "--no-progress", "--json")
MECHANIC = ("notebooks/examples/savage_worlds.py:trait_roll", "--trait", "8")
ENCOUNTER = "reports/examples/party_vs_ogre.toml"
# A second encounter: the ogre's thac0 attack alone on each side, a kind the first compiled.
DUEL = """order = "a-first"
[a]
targeting = "focus"
[[a.combatants]]
name = "fighter"
hp = 12
attack = { system = "thac0", thac0 = 15, damage = "1d8+2" }
defense = { target_ac = 3 }
[b]
targeting = "focus"
[[b.combatants]]
name = "ogre"
hp = 30
attack = { system = "thac0", thac0 = 13, damage = "2d6+2" }
defense = { target_ac = 4 }
"""
ROOT = Path(__file__).resolve().parent.parent  # the example files' paths are the project's


def _timed(argv: list[str], cache: Path, cwd: Path | None = None) -> tuple[float, float]:
    """``(wall, cpu)`` seconds of ``argv`` run to its end with its caches in ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "CRITLAB_MECHANIC_CACHE": str(cache / "mechanics")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _critlab(*args: str) -> list[str]:
    return [sys.executable, "-m", "critlab", *args]


def _row(what: str, argv: list[str], cache: Path, log) -> dict:
    """One row: ``argv`` run on ``cache`` as it is, then again on what it left."""
    wall, cpu = _timed(argv, cache, cwd=ROOT)
    warm_wall, warm_cpu = _timed(argv, cache, cwd=ROOT)
    log(f"  cold: {what}: {wall:.1f} s ({cpu:.1f} CPU s), cached {warm_wall:.1f} s")
    return {"what": what, "cold_s": wall, "cold_cpu_s": cpu, "warm_s": warm_wall, "warm_cpu_s": warm_cpu}


def measure(*, report: bool = True, log=print) -> list[dict]:
    """The cold table's rows: each built-in system's first simulation, an own
    mechanic's and two encounters', then (``report``) the built-in report's."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="critlab-cold-") as tmp:
        for name in BUILT_IN:
            argv = _critlab("simulate", name, *POINTS.get(name, ()), *SIMULATE)
            rows.append(_row(f"first critlab simulate {name}", argv, Path(tmp) / name, log))
        argv = _critlab("simulate", *MECHANIC, *SIMULATE)
        rows.append(_row("first simulate of an own mechanic (trait_roll)", argv, Path(tmp) / "mechanic", log))
        cache = Path(tmp) / "encounter"
        argv = _critlab("encounter", ENCOUNTER, *SIMULATE)
        rows.append(_row("first critlab encounter (party against ogre)", argv, cache, log))
        duel = Path(tmp) / "duel.toml"
        duel.write_text(DUEL, encoding="utf-8")
        argv = _critlab("encounter", str(duel), *SIMULATE)
        rows.append(_row("then an encounter of a compiled kind", argv, cache, log))
        if report:
            cache = Path(tmp) / "report"
            out = Path(tmp) / "out"
            argv = _critlab("report", "--out", str(out), "--no-progress")
            rows.append(_row("critlab report (built-in configuration)", argv, cache, log))
    for row in rows:
        row["compile_s"] = max(0.0, row["cold_s"] - row["warm_s"])
        row["compile_cpu_s"] = max(0.0, row["cold_cpu_s"] - row["warm_cpu_s"])
    return rows


def table(rows: list[dict]) -> str:
    """The cold table in Markdown."""
    header = ["from an empty cache", "cold wall s", "cold CPU s", "cached wall s", "compiling wall s",
              "compiling CPU s"]  # fmt: skip
    keys = ("cold_s", "cold_cpu_s", "warm_s", "compile_s", "compile_cpu_s")
    return markdown(header, ([r["what"], *(f"{r[k]:.1f}" for k in keys)] for r in rows))


def main(argv: list[str] | None = None) -> int:
    parser = parser_of("benchmarks.cold", __doc__)
    parser.add_argument("--no-report", action="store_true", help="the systems' first simulations only")
    args = parser.parse_args(argv)
    return print_table(measure, table, report=not args.no_report)


if __name__ == "__main__":
    sys.exit(main())
