"""The cost of a Dask cluster run: ``python -m benchmarks.cluster`` times the thac0
benchmark attack in-process and on a 2-worker LocalCluster (see docs/scaling-out.md)."""

from __future__ import annotations

from benchmarks.thac0 import BENCH_SPEC
from critlab.analysis.systems.thac0 import SYSTEM, Thac0Spec
from critlab.kernels.cluster import bench_cluster

if __name__ == "__main__":  # pragma: no cover - a benchmark, run by hand
    for key, value in bench_cluster(SYSTEM.simulate, Thac0Spec(**BENCH_SPEC)).items():
        print(f"{key:>24}  {value:,.4g}")
