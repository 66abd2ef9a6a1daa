"""``make bench``: own mechanics' compile time, cached start-up and exact time.

For each example mechanic (the pool examples and the Savage Worlds trait roll), in a
cache folder of its own that starts empty:

- ``first_run_s``: ``critlab exact REF --json`` in a fresh process, the rule and its exact
  walk compiled (and written to the disk cache);
- ``cached_run_s``: the same command in another fresh process, everything read from the
  disk cache (the best of a few runs): start-up, imports and the answer;
- ``exact_ms``: one exact computation in this process, compiled code warm and the result
  not memoised (the median of a few), and ``leaves``, the combinations of the inputs its
  walk enumerated.

Wall times on a shared machine: only their order of magnitude means something.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "notebooks" / "examples"
CASES = (
    ("savage_worlds.py:trait_roll", {}),
    ("blades_in_the_dark.py:action_roll", {"dice": 6}),
    ("shadowrun.py:success_test", {"dice": 12, "threshold": 3}),
    ("vampire_v5.py:v5_roll", {"regular": 10, "hunger": 2, "difficulty": 4}),
    ("year_zero.py:pushed_roll", {"base": 5, "skill": 4, "gear": 3}),
)
CACHE_ENV = "CRITLAB_MECHANIC_CACHE"


def _flags(params: dict) -> list[str]:
    return [part for name, value in params.items() for part in (f"--{name.replace('_', '-')}", str(value))]


def _cli_seconds(ref: str, params: dict, cache: str) -> float:
    """Wall seconds of ``critlab exact`` of ``ref`` in a fresh process using ``cache``."""
    command = [sys.executable, "-m", "critlab", "exact", ref, *_flags(params), "--json"]
    env = {**os.environ, CACHE_ENV: cache}
    t0 = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def _exact_ms(ref: str, params: dict, repeats: int) -> tuple[float, int]:
    from critlab.analysis.mechanic.exact import exact
    from critlab.analysis.systems import get_system

    m = get_system(ref)
    spec = m.make_spec(**params)
    exact(m.rule, spec)  # compiled (or read from the cache) outside the timing
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        exact(m.rule, spec)  # the walk itself, not the per-spec memo
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times)), int(m.rule.last_walk["leaves"])


def measure(*, quick: bool = False, log=print) -> list[dict]:
    """One row per example (see the module docstring)."""
    rows = []
    repeats = 2 if quick else 3
    before = os.environ.get(CACHE_ENV)
    with tempfile.TemporaryDirectory(prefix="critlab-bench-mechanics-") as folder:
        os.environ[CACHE_ENV] = folder  # this process shares the benchmark's cache
        try:
            for name, params in CASES:
                ref = str(EXAMPLES / name)
                log(f"own mechanic {name} {params or ''}")
                first = _cli_seconds(ref, params, folder)
                cached = min(_cli_seconds(ref, params, folder) for _ in range(repeats))
                exact_ms, leaves = _exact_ms(ref, params, repeats)
                label = name.partition(":")[0].removesuffix(".py") + (
                    " " + " ".join(f"{k}={v}" for k, v in params.items()) if params else ""
                )
                rows.append(
                    {
                        "mechanic": label,
                        "first_run_s": first,
                        "cached_run_s": cached,
                        "exact_ms": exact_ms,
                        "leaves": leaves,
                    }
                )
        finally:
            if before is None:
                os.environ.pop(CACHE_ENV, None)
            else:
                os.environ[CACHE_ENV] = before
    return rows


def table(rows: list[dict]) -> str:
    """The rows as a Markdown table.

    >>> row = {"mechanic": "m", "first_run_s": 9.5, "cached_run_s": 0.8, "exact_ms": 1.25, "leaves": 36}
    >>> print(table([row]))
    | own mechanic | first run (compiles) | cached start-up | exact | leaves |
    |---|---|---|---|---|
    | m | 9.5 s | 0.80 s | 1.2 ms | 36 |
    """
    lines = [
        "| own mechanic | first run (compiles) | cached start-up | exact | leaves |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['mechanic']} | {r['first_run_s']:.1f} s | {r['cached_run_s']:.2f} s | "
            f"{r['exact_ms']:.1f} ms | {r['leaves']:,} |"
        )
    return "\n".join(lines)


# A rule that divides by an input in every trial: the checked division's cost
# (critlab.kernels.mechanic.checked_floordiv), against the same rule compiled with the
# numpy error model's unchecked division. `python -m benchmarks.own_mechanics` runs it.
_DIVIDING = """
from critlab.analysis.mechanic import mechanic


@mechanic(labels=("lo", "hi"), values=("q",), inputs={{"a": "1d20", "b": "1d6"}})
def dividing(a, b):  # {tag}
    q = (7 * a + b) // b + a % b
    return ("hi" if q > 20 else "lo"), q
"""


def division_check(*, trials: int = 20_000_000, repeats: int = 5, log=print) -> dict:
    """Simulated trials per second of :data:`_DIVIDING`, its divisions checked and not
    (the medians of ``repeats`` runs each, alternated, one thread), and their ratio."""
    from unittest import mock

    from critlab.analysis.mechanic import compile as mc
    from critlab.analysis.mechanic import resolve

    speeds: dict[str, list[float]] = {"checked": [], "unchecked": []}
    with tempfile.TemporaryDirectory(prefix="critlab-bench-division-") as folder:
        systems = {}
        for kind in speeds:
            path = Path(folder) / f"{kind}.py"
            path.write_text(_DIVIDING.format(tag=kind))
            if kind == "unchecked":
                with mock.patch.object(mc, "checked_division", lambda *a: None):
                    systems[kind] = resolve(f"{path}:dividing")
            else:
                systems[kind] = resolve(f"{path}:dividing")
            spec = systems[kind].make_spec()
            systems[kind].simulate(spec, trials=1000, seed=0, threads=1, progress=False)  # compiled
        for _ in range(repeats):
            for kind, system in systems.items():
                t0 = time.perf_counter()
                system.simulate(system.make_spec(), trials=trials, seed=1, threads=1, progress=False)
                speeds[kind].append(trials / (time.perf_counter() - t0))
    out = {kind: float(np.median(v)) for kind, v in speeds.items()}
    out["ratio"] = out["checked"] / out["unchecked"]
    log(
        f"division check: {out['checked'] / 1e6:.1f} M trials/s checked, "
        f"{out['unchecked'] / 1e6:.1f} M unchecked, ratio {out['ratio']:.3f}"
    )
    return out


# Three tries played by the solved policy (critlab.kernels.choices: a lookup at each choice)
# against the same play written into the rule.
_WRITTEN = """
from critlab.analysis.mechanic import mechanic


@mechanic(labels=("done",), values=("value",), inputs={"a": "1d6", "b": "1d6", "c": "1d6"})
def written(a, b, c):
    if a >= 5:
        return "done", a
    if b >= 4:
        return "done", b
    return "done", c
"""


def choice_speed(*, trials: int = 5_000_000, repeats: int = 5, log=print) -> dict:
    """Simulated trials per second of ``three_tries.py:three_tries`` (its choices looked up
    in the solved policy) and of the same play written into the rule (medians of
    ``repeats``, alternated, one thread), and their ratio."""
    from critlab.analysis.mechanic import resolve

    speeds: dict[str, list[float]] = {"chosen": [], "written": []}
    with tempfile.TemporaryDirectory(prefix="critlab-bench-choice-") as folder:
        (Path(folder) / "written.py").write_text(_WRITTEN)
        systems = {
            "chosen": resolve(str(EXAMPLES / "three_tries.py:three_tries")),
            "written": resolve(f"{folder}/written.py:written"),
        }
        for system in systems.values():
            system.simulate(system.make_spec(), trials=1000, seed=0, threads=1, progress=False)
        for _ in range(repeats):
            for kind, system in systems.items():
                t0 = time.perf_counter()
                system.simulate(system.make_spec(), trials=trials, seed=1, threads=1, progress=False)
                speeds[kind].append(trials / (time.perf_counter() - t0))
    out = {kind: float(np.median(v)) for kind, v in speeds.items()}
    out["ratio"] = out["chosen"] / out["written"]
    log(
        f"choices: {out['chosen'] / 1e6:.2f} M trials/s by the solved policy, "
        f"{out['written'] / 1e6:.2f} M written into the rule, ratio {out['ratio']:.3f}"
    )
    return out


if __name__ == "__main__":
    division_check()
    choice_speed()
