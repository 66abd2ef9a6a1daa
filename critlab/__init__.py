"""critlab: exact and Monte Carlo probability for tabletop dice mechanics.

The few things a designer calls, in one place::

    >>> import critlab
    >>> round(critlab.dice("4d6dl1").mean, 4)
    12.2446
    >>> thac0 = critlab.get_system("thac0")
    >>> spec = thac0.make_spec(thac0=16, target_ac=2)
    >>> round(critlab.exact(spec).outcomes["critical_hit"], 2)
    0.05

Each name is the engine's own function, imported on first use (``import critlab`` loads
neither NumPy nor Numba), so ``help(critlab.dice)`` is that function's documentation:

    >>> critlab.dice.__module__, critlab.sweep.__module__
    ('critlab.analysis.dice.notation', 'critlab.analysis.design.sweep')

The engine lives in :mod:`critlab.analysis` (exact distributions, the rule systems,
sweeps, validation, reports, the command line) and the Numba simulators in
:mod:`critlab.kernels`, which never import :mod:`critlab.analysis`.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("critlab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

# name -> (module, attribute): the front door, one line a name.
_API = {
    "compare": ("critlab.analysis.views.dice", "compare"),
    "dice": ("critlab.analysis.dice.notation", "dice_dist"),
    "Combatant": ("critlab.analysis.encounter.declare", "Combatant"),
    "encounter": ("critlab.analysis.encounter", "encounter"),
    "exact": ("critlab.analysis.api", "exact"),
    "explore": ("critlab.analysis.views.explore", "explore"),  # sliders of any model, in Jupyter
    "fight": ("critlab.analysis.fight.exact", "fight"),
    "get_system": ("critlab.analysis.systems", "get_system"),
    "mechanic": ("critlab.analysis.mechanic", "mechanic"),
    "registry": ("critlab.analysis.systems", "registry"),
    "sensitivity": ("critlab.analysis.design.sensitivity", "sensitivity"),
    "simulate": ("critlab.analysis.api", "simulate"),
    "simulate_encounter": ("critlab.analysis.encounter.sim", "simulate_encounter"),
    "simulate_fight": ("critlab.analysis.fight.sim", "simulate_fight"),
    "style": ("critlab.analysis.style", ""),  # the module itself: colours and labels for plots
    "sweep": ("critlab.analysis.design.sweep", "sweep"),
    "tune": ("critlab.analysis.design.tune", "tune"),
    "validate": ("critlab.analysis.validate", "validate"),
}

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    where = _API.get(name)
    if where is None:
        raise AttributeError(f"module 'critlab' has no attribute {name!r}")
    module = importlib.import_module(where[0])
    value = getattr(module, where[1]) if where[1] else module
    globals()[name] = value  # found once; later look-ups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
