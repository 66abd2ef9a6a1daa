"""The rule systems, one module each, and the registry the CLI and reports read.

>>> list(registry())
['crits-cats', 'crit-range', 'severity', 'contest', 'thac0']
"""

from __future__ import annotations

import importlib
import importlib.util

from critlab.analysis.systems.base import BenchCase, RuleSystem

# Command-line name -> module under critlab.analysis.systems. A module may be absent while it is
# being written; the registry lists what is there.
MODULES = {
    "crits-cats": "crits_cats",
    "crit-range": "crit_range",
    "severity": "severity",
    "contest": "contest",
    "thac0": "thac0",
}


def registry() -> dict[str, RuleSystem]:
    """``{name: RuleSystem}`` for every rule system present, in RULES.md's order."""
    out = {}
    for name, module in MODULES.items():
        full = f"critlab.analysis.systems.{module}"
        if importlib.util.find_spec(full) is None:
            continue
        out[name] = importlib.import_module(full).SYSTEM
    return out


def get_system(name: str) -> RuleSystem:
    """The rule system called ``name`` (as on the command line), or a clear ValueError.

    Only that system's module is imported.
    """
    module = MODULES.get(name)
    if module is None or importlib.util.find_spec(f"critlab.analysis.systems.{module}") is None:
        raise ValueError(f"unknown system {name!r}; choose one of: " + ", ".join(MODULES))
    return importlib.import_module(f"critlab.analysis.systems.{module}").SYSTEM


__all__ = ["BenchCase", "MODULES", "RuleSystem", "get_system", "registry"]
