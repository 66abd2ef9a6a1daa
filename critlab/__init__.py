"""critlab: exact and Monte Carlo probability for tabletop dice mechanics.

The few things a designer calls, in one place::

    >>> import critlab
    >>> round(critlab.dice("4d6dl1").mean, 4)
    12.2446
    >>> thac0 = critlab.get_system("thac0")
    >>> spec = thac0.make_spec(thac0=16, target_ac=2)
    >>> round(critlab.exact(spec).outcomes["critical_hit"], 2)
    0.05

The engine lives in :mod:`critlab.analysis` (exact distributions, the rule systems,
sweeps, validation, reports, the command line) and the Numba simulators in
:mod:`critlab.kernels`, which never import :mod:`critlab.analysis`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("critlab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

__all__ = [
    "__version__",
    "dice",
    "exact",
    "fight",
    "get_system",
    "mechanic",
    "registry",
    "sensitivity",
    "simulate",
    "simulate_fight",
    "sweep",
    "tune",
    "validate",
]


def dice(expression: str):
    """The exact distribution (:class:`~critlab.analysis.dist.Dist`) of a dice expression.

    >>> round(dice("2d6").pmf(7) * 36, 12)
    6.0
    """
    from critlab.analysis.dice.notation import dice_dist

    return dice_dist(expression)


def get_system(name: str):
    """The rule system called ``name`` (``crit-range``, ``thac0``, ...)."""
    from critlab.analysis.systems import get_system as _get

    return _get(name)


def mechanic(fn: Any = None, **declaration: Any):
    """Declare your own mechanic (a decorator): see :func:`critlab.analysis.mechanic.mechanic`.

    ``from critlab import mechanic`` and ``from critlab.analysis.mechanic import Int, param``.
    """
    from critlab.analysis.mechanic import mechanic as _mechanic

    return _mechanic(fn, **declaration)


def registry():
    """``{name: RuleSystem}`` of every rule system."""
    from critlab.analysis.systems import registry as _registry

    return _registry()


def exact(spec: Any):
    """The exact result of a spec (any system's)."""
    from critlab.analysis.systems.base import system_of

    return system_of(spec).exact(spec)


def simulate(spec: Any, *, trials: int, seed: Any = None, **options: Any):
    """Simulate ``trials`` trials of a spec (any system's); see ``RuleSystem.simulate``."""
    from critlab.analysis.systems.base import system_of

    return system_of(spec).simulate(spec, trials=trials, seed=seed, **options)


def validate(exact_result: Any, simulated: Any, *, alpha: float = 0.001):
    """Hold a simulated result against the exact one (chi-square at ``alpha``)."""
    from critlab.analysis.validate import validate as _validate

    return _validate(exact_result, simulated, alpha=alpha)


def sweep(spec: Any, **options: Any):
    """A tidy DataFrame of ``spec`` over a parameter grid; see :func:`critlab.analysis.design.sweep.sweep`."""
    from critlab.analysis.design.sweep import sweep as _sweep

    return _sweep(spec, **options)


def fight(spec: Any, *, hp: int, attacks_per_round: int = 1, max_rounds: int = 1000):
    """Exact rounds to defeat a target of ``hp`` hit points; see :func:`critlab.analysis.fight.exact.fight`."""
    from critlab.analysis.fight.exact import fight as _fight

    return _fight(spec, hp=hp, attacks_per_round=attacks_per_round, max_rounds=max_rounds)


def simulate_fight(spec: Any, **options: Any):
    """Simulated fights, die by die; see :func:`critlab.analysis.fight.sim.simulate_fight`."""
    from critlab.analysis.fight.sim import simulate_fight as _simulate_fight

    return _simulate_fight(spec, **options)


def tune(spec: Any, **options: Any):
    """The parameter values nearest a target; see :func:`critlab.analysis.design.tune.tune`."""
    from critlab.analysis.design.tune import tune as _tune

    return _tune(spec, **options)


def sensitivity(spec: Any, **options: Any):
    """Every outcome and metric at each integer parameter ±1; see
    :func:`critlab.analysis.design.sensitivity.sensitivity`."""
    from critlab.analysis.design.sensitivity import sensitivity as _sensitivity

    return _sensitivity(spec, **options)
