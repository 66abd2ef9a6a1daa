"""``make bench``'s cold table: what a new user waits for on a machine with nothing compiled.

Each row runs in fresh processes with an empty Numba cache of its own (``NUMBA_CACHE_DIR``
and ``CRITLAB_MECHANIC_CACHE`` pointed at a new folder): the first ``critlab simulate
SYSTEM`` of each built-in system (1,000 trials: all but the compile is a fraction of a
second), then the same command again on the cache it left (its cached start-up), and
``critlab report`` of the built-in configuration cold and then warm, whose difference
is the report's compiling. Wall seconds and the processes' CPU seconds (user + sys)
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


def measure(*, report: bool = True, log=print) -> list[dict]:
    """The cold table's rows: each built-in system's first simulation, then (``report``)
    the built-in report's."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="critlab-cold-") as tmp:
        for name in BUILT_IN:
            cache = Path(tmp) / name
            argv = _critlab("simulate", name, *POINTS.get(name, ()), *SIMULATE)
            wall, cpu = _timed(argv, cache)
            warm_wall, warm_cpu = _timed(argv, cache)
            rows.append(
                {"what": f"first critlab simulate {name}", "cold_s": wall, "cold_cpu_s": cpu,
                 "warm_s": warm_wall, "warm_cpu_s": warm_cpu}
            )  # fmt: skip
            log(f"  cold: simulate {name}: {wall:.1f} s ({cpu:.1f} CPU s), cached {warm_wall:.1f} s")
        if report:
            cache = Path(tmp) / "report"
            out = Path(tmp) / "out"
            argv = _critlab("report", "--out", str(out), "--no-progress")
            wall, cpu = _timed(argv, cache)
            warm_wall, warm_cpu = _timed(argv, cache)
            rows.append(
                {"what": "critlab report (built-in configuration)", "cold_s": wall, "cold_cpu_s": cpu,
                 "warm_s": warm_wall, "warm_cpu_s": warm_cpu}
            )  # fmt: skip
            log(f"  cold: report: {wall:.1f} s ({cpu:.1f} CPU s), cached {warm_wall:.1f} s")
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
