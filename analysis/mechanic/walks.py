"""An exact walk answered without compiling it, where Python finishes it at once.

A mechanic's exact walks (``explore``: its outcomes and values; ``solve``: a choosing
rule's best play) are compiled per rule, since they inline it: a second or two of
Numba's time on a rule's first exact answer, and most of the time of a small one. The
same walk's source also runs as plain Python over the compiled rule, called once a run
(:func:`critlab.kernels.mechanic.interpreted`): about 15 µs a run against well under
one compiled, the same statements on the same arrays, so the same arithmetic in the same
order and the same result, bit for bit (``tests/mechanic/test_walks.py`` holds the two
equal). Where the compiled walk is not yet compiled (nor on disk), :func:`run_walk` runs
the Python one first on copies of its arrays with at most :data:`INTERPRETED_LEAVES`
leaves, and keeps its result unless that budget stopped it; only then is the walk
compiled and run, from the start.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from critlab.analysis.mechanic.compile import Compiled, MechanicError, raised_by_rule, run_driver
from critlab.analysis.mechanic.loops import INTERRUPT, interruptible
from critlab.kernels import mechanic as km

# The most leaves a walk may take in Python before it is compiled instead: 20,000 leaves
# of a few runs each are about 0.3 s (measured: 10,080 leaves, 10,193 runs of the Savage
# Worlds trait roll in 0.14 s), where compiling a walk takes 1.5-2 s.
INTERPRETED_LEAVES = 20_000


def interpreted(compiled: Compiled, name: str) -> Any:
    """Walk ``name`` (``explore`` or ``solve``) of ``compiled`` as Python, built once."""
    walk = compiled.interpreted.get(name)
    if walk is None:
        if name == "solve":
            from critlab.kernels import choices as kc

            source = kc.solver_source(compiled.n_params, compiled.returns_tuple, compiled.objective[0])
            extra = kc.solver_namespace()
        else:
            source = km.driver_sources(compiled.n_params, compiled.n_values, compiled.returns_tuple)[name]
            extra = None
        walk = compiled.interpreted[name] = km.interpreted(compiled.rule, name, source, extra)
    return walk


def _copied(x: Any, memo: dict[int, tuple[np.ndarray, np.ndarray]]) -> Any:
    """``x`` with each array in it a copy, one copy per array (a policy's arrays are both
    parameters of the rule and the walk's own arguments: they stay one array), but the
    stop flag, which a Ctrl-C must reach."""
    if isinstance(x, np.ndarray) and x is not INTERRUPT:
        if id(x) not in memo:
            memo[id(x)] = (x, x.copy())
        return memo[id(x)][1]
    if isinstance(x, tuple):
        items = [_copied(v, memo) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    return x


def run_walk(fn: Any, compiled: Compiled, name: str, *args: Any, leaves_at: int, counts_at: int) -> None:
    """Run exact walk ``name`` of ``compiled`` over ``args`` (its budget of leaves at
    ``args[leaves_at]``, its counts at ``args[counts_at]``) as :func:`run_driver` would,
    first in Python where the compiled walk would compile (see the module docstring)."""
    from numba.core.errors import NumbaError

    from critlab.analysis.run import needs_compiling

    budget = args[leaves_at]
    if needs_compiling(compiled.driver(name)):
        memo: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        trial = [_copied(a, memo) for a in args]
        trial[leaves_at] = min(budget, INTERPRETED_LEAVES)
        try:
            with interruptible():
                interpreted(compiled, name)(*trial)
        except NumbaError:  # the rule called with types it was not compiled for: the compiled walk says
            pass
        except Exception as exc:
            own = raised_by_rule(fn, exc, surely=not isinstance(exc, MechanicError))
            if own is None:
                raise
            raise own from None
        else:
            if not (trial[counts_at][3] and trial[leaves_at] < budget):
                for original, copy in memo.values():
                    original[...] = copy
                return
    run_driver(fn, compiled, name, *args)
