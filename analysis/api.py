"""The two verbs that a spec answers by its own system: :func:`exact` and :func:`simulate`.

Every other name of :mod:`critlab`'s front door is a function of the engine itself; these
two dispatch on the spec, whose class knows its rule system.

>>> from critlab.analysis.systems import get_system
>>> duel = get_system("crit-range")
>>> exact(duel.make_spec(attack_bonus=5, evasion=15, roll="advantage")).outcomes["crit"]
0.0975
"""

from __future__ import annotations

from typing import Any

from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.systems.base import system_of


def exact(spec: Any) -> ExactResult:
    """The exact result of ``spec``, a spec of any rule system (designers' mechanics
    included); a TypeError names anything else."""
    return system_of(spec).exact(spec)


def simulate(spec: Any, *, trials: int, seed: Any = None, **options: Any) -> SimResult:
    """``trials`` simulated trials of ``spec`` at ``seed`` (recorded in the result), die by
    die; ``options`` are those of the system's ``simulate`` (``threads``, ``progress``,
    ``client``), none of which changes a count."""
    return system_of(spec).simulate(spec, trials=trials, seed=seed, **options)
