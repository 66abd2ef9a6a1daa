"""``make bench``: critlab's simulators beside NumPy doing the same work, in one run, as
ratios.

For every mechanic (the runtime's primitives, each rule system's bench module and the
dice notation's cases: :class:`~benchmarks.cases.BenchCase`) each round
measures critlab's trials/s on 1 and on N threads, the mechanic's own dice floor (the same
dice drawn the same way, no rules, no tally) on 1 thread, and a vectorised NumPy version
doing the same tally at its best chunk size; and, where a case provides them, the exact
engine against icepool (critlab's exact code uncached; icepool's first evaluation in a
fresh process, since it memoises). The machines are shared and noisy, so only ratios
measured in the same round mean anything: each ratio is the median over the rounds.

Last, the cold table (:mod:`benchmarks.cold`): each built-in system's first ``critlab
simulate``, a first own mechanic's, the example encounter's and then another encounter's,
and the built-in report, from empty caches, in fresh processes, wall and CPU seconds.

Run ``python -m benchmarks.run [--quick] [--rounds 3] [--out reports/bench] [--readme]
[--no-cold]`` (``make bench``); ``--readme`` rewrites the speed and cold tables in
README.md from the results.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks import cold as cold_bench
from benchmarks import encounter as encounter_bench
from benchmarks import explore as explore_bench
from benchmarks import own_mechanics
from benchmarks import primitive_blocks as primitives
from benchmarks.cases import BenchCase
from benchmarks.timing import cold_seconds, rate, seconds, share
from critlab.analysis.systems import BUILT_IN, get_system
from critlab.kernels import runner
from critlab.kernels.rng import xor_u64


# -- the generator floor ----------------------------------------------------------------
def _floor_words(trials: int, threads: int) -> np.ndarray:
    def block(state, n, out):
        out[1] ^= np.int64(xor_u64(state, n) & np.uint64(0x7FFFFFFF))
        out[0] += n

    return runner.run(block, n_out=2, trials=trials, seed=1, threads=threads, progress=False)


def _floor_d20(trials: int, threads: int) -> np.ndarray:
    return runner.run(
        primitives.d20_floor_block, n_out=2, trials=trials, seed=1, threads=threads, progress=False
    )


CHUNKS = (1 << 14, 1 << 16, 1 << 18, 1 << 20)
README_START, README_END = "<!-- bench:start -->", "<!-- bench:end -->"
COLD_START, COLD_END = "<!-- cold:start -->", "<!-- cold:end -->"


def system_cases(system: Any) -> list[BenchCase]:
    """A system's cases, from ``benchmarks/<m>.py`` where ``m`` names its spec's module
    (``critlab.analysis.systems.thac0`` -> ``benchmarks.thac0``); none without one."""
    module = f"benchmarks.{system.spec.__module__.rpartition('.')[2]}"
    try:
        found = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return []
    return list(found.bench_cases())


def all_cases() -> list[BenchCase]:
    """Every bench case: primitives, each built-in system's bench module, dice notation."""
    cases = list(importlib.import_module("benchmarks.primitives").bench_cases())
    for name in BUILT_IN:
        cases.extend(system_cases(get_system(name)))
    try:
        cases.extend(importlib.import_module("benchmarks.dice").bench_cases())
    except ModuleNotFoundError:  # pragma: no cover - the notation cases are optional
        pass
    return cases


def numpy_rate(fn: Callable[..., object], *, min_seconds: float) -> tuple[float, int | None]:
    """NumPy's best trials/s over the chunk sizes it accepts, and that chunk."""
    if "chunk" not in inspect.signature(fn).parameters:
        return rate(fn, start=1 << 17, min_seconds=min_seconds), None
    best = max(
        (rate(lambda n, c=c: fn(n, chunk=c), start=1 << 17, min_seconds=min_seconds), c) for c in CHUNKS
    )
    return best


def measure_round(case: BenchCase, threads: int, min_s: float) -> dict:
    """One round of one case: every figure measured back to back."""
    row: dict = {"mechanic": case.name}
    if case.critlab is not None:
        one = rate(lambda n: case.critlab(n, 1), start=1 << 20, min_seconds=min_s)
        many = rate(lambda n: case.critlab(n, threads), start=1 << 20, min_seconds=min_s)
        row.update({"critlab_1t": one, "critlab_nt": many, "thread_speedup": many / one})
        if case.numpy is not None:
            base, chunk = numpy_rate(case.numpy, min_seconds=min_s)
            row.update(
                numpy=base, numpy_chunk=chunk, ratio_vs_numpy=many / base, ratio_1t_vs_numpy=one / base
            )
        if case.floor is not None:
            fraction, _, floor = share(
                lambda n: case.critlab(n, 1), lambda n: case.floor(n, 1), start=1 << 20, min_seconds=min_s
            )
            row.update(floor_1t=floor, fraction_of_floor_1t=fraction)
    if case.exact is not None and case.icepool is not None:
        ours, theirs = seconds(case.exact), cold_seconds(case.icepool, repeats=1)
        row.update(exact_s=ours, icepool_s=theirs, exact_ratio_vs_icepool=theirs / ours)
    return row


def run_bench(
    *, quick: bool = False, threads: int | None = None, rounds: int = 3, log=print
) -> tuple[pd.DataFrame, dict]:
    """Measure everything ``rounds`` times; the medians per mechanic, and the generator floor."""
    threads = runner.default_threads() if threads is None else threads
    min_s = 0.1 if quick else 0.4
    floor = {
        "u64_per_s_1t": rate(lambda n: _floor_words(n, 1), start=1 << 22, min_seconds=min_s),
        "u64_per_s_nt": rate(lambda n: _floor_words(n, threads), start=1 << 22, min_seconds=min_s),
        "d20_per_s_1t": rate(lambda n: _floor_d20(n, 1), start=1 << 22, min_seconds=min_s),
        "d20_per_s_nt": rate(lambda n: _floor_d20(n, threads), start=1 << 22, min_seconds=min_s),
        "threads": threads,
    }
    log("generator floor: " + ", ".join(f"{k} {v / 1e6:,.0f}M" for k, v in floor.items() if k != "threads"))
    rows = []
    for case in all_cases():
        per_round = pd.DataFrame([measure_round(case, threads, min_s) for _ in range(rounds)])
        row = {"mechanic": case.name, "rounds": rounds, "threads": threads}
        row.update(per_round.drop(columns="mechanic").median(numeric_only=True).to_dict())
        rows.append(row)
        shown = ", ".join(
            f"{k} {row[k]:,.3g}"
            for k in ("ratio_vs_numpy", "fraction_of_floor_1t", "thread_speedup", "exact_ratio_vs_icepool")
            if k in row
        )
        log(f"  {case.name}: {shown}")
    return pd.DataFrame(rows), floor


def readme_table(table: pd.DataFrame) -> str:
    """The README's speed table, from a bench table."""

    def fmt(row: pd.Series, key: str, pattern: str) -> str:
        v = row.get(key)
        return "" if v is None or pd.isna(v) else pattern.format(v)

    lines = [
        "| mechanic | N threads vs NumPy (same tally) | 1 thread, share of its dice floor | N threads vs 1 "
        "| exact vs icepool |",
        "|---|---|---|---|---|",
    ]
    for _, row in table.iterrows():
        lines.append(
            f"| {row['mechanic']} | {fmt(row, 'ratio_vs_numpy', '{:.1f}x')} "
            f"| {fmt(row, 'fraction_of_floor_1t', '{:.0%}')} | {fmt(row, 'thread_speedup', '{:.2f}x')} "
            f"| {fmt(row, 'exact_ratio_vs_icepool', '{:.0f}x')} |"
        )
    return "\n".join(lines)


def write_readme(table: pd.DataFrame, path: Path = Path("README.md"), cold: str | None = None) -> None:
    """Replace the README's speed table (between the bench markers) with ``table``'s, and
    its cold table (between the cold markers, where it has them) with ``cold``."""
    text = path.read_text(encoding="utf-8")
    for (first, last), body in (
        ((README_START, README_END), readme_table(table)),
        ((COLD_START, COLD_END), cold),
    ):
        if body is None or first not in text:
            continue
        start, end = text.index(first) + len(first), text.index(last)
        text = text[:start] + "\n" + body + "\n" + text[end:]
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timings (noisier)")
    parser.add_argument("--threads", type=int, help="threads for the N-threads column (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; ratios are medians over them")
    parser.add_argument("--out", default="reports/bench", help="folder for bench.csv and bench.json")
    parser.add_argument("--readme", action="store_true", help="rewrite README.md's speed and cold tables")
    parser.add_argument("--no-cold", action="store_true", help="leave out the cold table (empty caches)")
    args = parser.parse_args(argv)
    table, floor = run_bench(
        quick=args.quick, threads=args.threads, rounds=args.rounds, log=lambda m: print(m, file=sys.stderr)
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "bench.csv", index=False)
    (out / "bench.json").write_text(
        json.dumps({"floor": floor, "mechanics": table.to_dict(orient="records")}, indent=2, default=float)
    )
    (out / "bench.md").write_text(readme_table(table) + "\n", encoding="utf-8")
    print(readme_table(table))
    print("floor: " + ", ".join(f"{k} = {v:,.4g}" for k, v in floor.items()))
    # own mechanics: compile time, cached start-up and exact time (benchmarks/own_mechanics.py)
    mechanics = own_mechanics.measure(quick=args.quick, log=lambda m: print(m, file=sys.stderr))
    (out / "own_mechanics.json").write_text(json.dumps(mechanics, indent=2), encoding="utf-8")
    print(own_mechanics.table(mechanics))
    # encounters: the exact chain beside a plain Python chain, encounters simulated a second
    encounters = encounter_bench.measure(quick=args.quick, log=lambda m: print(m, file=sys.stderr))
    (out / "encounters.json").write_text(json.dumps(encounters, indent=2), encoding="utf-8")
    print(encounter_bench.table(encounters))
    # explore: one exact redraw of each built-in system's explorer (benchmarks/explore.py)
    explored = explore_bench.measure(quick=args.quick, log=lambda m: print(m, file=sys.stderr))
    (out / "explore.json").write_text(json.dumps(explored, indent=2), encoding="utf-8")
    print(explore_bench.table(explored))
    # cold: first simulations (systems, a mechanic, encounters) and the report from empty caches
    cold = None
    if not args.no_cold:
        rows = cold_bench.measure(log=lambda m: print(m, file=sys.stderr))
        (out / "cold.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
        cold = cold_bench.table(rows)
        print(cold)
    if args.readme:
        write_readme(table, cold=cold)
    print(
        f"written to {out}/: bench.csv, bench.json, bench.md, own_mechanics.json, encounters.json, "
        "explore.json and cold.json"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
