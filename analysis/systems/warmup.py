"""A system's simulators compiled ahead of use, nothing simulated.

What a pool of processes runs to compile several systems' kernels side by side (a
report's warm-up: :mod:`critlab.analysis.report.warm`). It lives beside the registry, not
in the report package, because each worker process imports the module of the function it
runs: the report package brings in SciPy, pandas and Matplotlib (3.5 s of a worker's
start, measured on the 2-core development machine), the registry a fraction of a second,
the system's kernels on first use.
"""

from __future__ import annotations

from typing import Any


def compile_ahead(system: str, specs: list[Any]) -> str:
    """Compile the kernels that simulate ``specs`` of ``system`` (cached on disk, for
    every process after this one; see :meth:`RuleSystem.compile_kernel`); returns
    ``system``.

    >>> from critlab.analysis.systems import get_system
    >>> compile_ahead("thac0", [get_system("thac0").spec(thac0=15, target_ac=5)])
    'thac0'
    """
    from critlab.analysis.systems import get_system

    sim = get_system(system)
    for spec in specs:
        sim.compile_kernel(spec)
    return system
