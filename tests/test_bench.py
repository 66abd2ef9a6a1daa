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


def test_readme_cold_table_is_regenerated_between_its_markers(tmp_path):
    from benchmarks import cold

    rows = [{"what": "first critlab simulate thac0", "cold_s": 9.5, "cold_cpu_s": 8.25, "warm_s": 1.5,
             "warm_cpu_s": 1.0, "compile_s": 8.0, "compile_cpu_s": 7.25}]  # fmt: skip
    readme = tmp_path / "README.md"
    readme.write_text(
        f"{run.README_START}\nold\n{run.README_END}\nmid\n{run.COLD_START}\nstale\n{run.COLD_END}\nend\n"
    )
    run.write_readme(pd.DataFrame([{"mechanic": "m"}]), readme, cold=cold.table(rows))
    text = readme.read_text()
    assert "stale" not in text and "| first critlab simulate thac0 | 9.5 | 8.2 | 1.5 | 8.0 | 7.2 |" in text
    assert text.endswith("end\n") and "mid" in text
