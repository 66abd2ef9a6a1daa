"""The bench harness runs and reports what it says (no timings are asserted: speed is
measured by ``make bench``, never by tests)."""

from __future__ import annotations

import pandas as pd

from benchmarks import explore, primitives, run


def test_a_round_measures_every_ratio():
    case = primitives.bench_cases()[0]
    row = run.measure_round(case, threads=2, min_s=0.001)
    for key in ("critlab_1t", "critlab_nt", "numpy", "ratio_vs_numpy", "floor_1t", "fraction_of_floor_1t"):
        assert row[key] > 0, key
    assert row["numpy_chunk"] in run.CHUNKS


def test_readme_table_is_regenerated_between_its_markers(tmp_path):
    table = pd.DataFrame([{"mechanic": "m", "ratio_vs_numpy": 12.34, "fraction_of_floor_1t": 0.5}])
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{run.README_START}\nold\n{run.README_END}\nafter\n")
    run.write_readme(table, readme)
    text = readme.read_text()
    assert "old" not in text and "| m | 12.3x | 50% |" in text and text.endswith("after\n")


def test_the_explore_bench_times_a_redraw_and_says_its_verdict():
    wall, cpu, moved = explore.redraw_times("thac0", repeats=3)
    assert wall > 0 and cpu > 0 and moved in ("thac0", "target_ac", "to_hit")
    row = {"system": "thac0", "control": moved, "wall_s": wall, "cpu_s": 0.05, "repeats": 3}
    assert explore.table([row]).splitlines()[-1].endswith("| 50 ms | yes |")
