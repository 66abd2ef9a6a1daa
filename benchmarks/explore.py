"""``make bench`` rows for ``critlab.explore``: one exact redraw of each built-in system (a
control moved, the exact answer computed, the figure written, the tables filled), its
median wall and CPU time over repeats, against the 0.1 s a designer moving a slider should
wait at most. The verdict reads the CPU time: on the shared 2-core development machine a
busy neighbour stretches the wall time (it equals the CPU time on a quiet one).

Each system is explored at its first golden point (tests/golden/points.json) and one of
its integer controls is moved back and forth between two values; the first redraws
(imports, caches) are left out of the timing. Run ``python -m benchmarks.explore
[--quick]``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.command import markdown, parser_of, print_table
from critlab.analysis.systems import BUILT_IN, get_system

ROOT = Path(__file__).resolve().parents[1]
POINTS = json.loads((ROOT / "tests" / "golden" / "points.json").read_text(encoding="utf-8"))
TARGET_S = 0.1


def _moved_control(ex: Any) -> tuple[str, int, int]:
    """An integer control of ``ex`` the point uses, and two values to move it between."""
    unused = ex.model.unused()
    for name, c in ex.controls_of.items():
        p = c.parameter
        if p.kind == "integer" and name not in unused and c.given is None:
            v = ex.controls[name].value
            other = v + p.step if v + p.step <= p.hi else v - p.step
            return name, v, other
    raise ValueError("no integer control to move")


def redraw_times(system_name: str, repeats: int) -> tuple[float, float, str]:
    """Median (wall s, CPU s) of one redraw of ``system_name``'s explorer, and the control moved."""
    from critlab.analysis.views.explore import explore

    spec = get_system(system_name).make_spec(**POINTS.get(system_name, [{}])[0])
    ex = explore(spec)
    name, a, b = _moved_control(ex)
    widget = ex.controls[name]
    for v in (b, a, b, a):  # warm: the first draws build the artists
        widget.value = v
    walls, cpus = [], []
    for k in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        widget.value = b if k % 2 == 0 else a
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    assert ex.result is not None, ex.refusal
    return float(np.median(walls)), float(np.median(cpus)), name


def measure(*, quick: bool = False, log=print) -> list[dict[str, Any]]:
    """One row per built-in system: the median redraw's wall and CPU seconds."""
    repeats = 9 if quick else 31
    rows = []
    for system in BUILT_IN:
        wall, cpu, moved = redraw_times(system, repeats)
        rows.append({"system": system, "control": moved, "wall_s": wall, "cpu_s": cpu, "repeats": repeats})
        log(f"  explore {system} ({moved}): redraw {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU")
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    header = [
        "explore (one exact redraw)",
        "control moved",
        "median wall",
        "median CPU",
        f"CPU <= {TARGET_S} s",
    ]
    return markdown(
        header,
        (
            [r["system"], r["control"], f"{r['wall_s'] * 1000:.0f} ms", f"{r['cpu_s'] * 1000:.0f} ms",
             "yes" if r["cpu_s"] <= TARGET_S else "no"]
            for r in rows
        ),
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = parser_of("benchmarks.explore", __doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args(argv)
    return print_table(measure, table, quick=args.quick)


if __name__ == "__main__":
    sys.exit(main())
