"""The rule systems, one module each, and the registry the CLI and reports read.

>>> list(registry())[:5]
['crits-cats', 'crit-range', 'severity', 'contest', 'thac0']

A new system is its own files and one registry line, ``register(name, module)``, where
``module`` defines ``SYSTEM`` (a :class:`RuleSystem`); see "Adding a rule system" in the
README.
"""

from __future__ import annotations

import importlib
import importlib.util

from critlab.analysis.spec_error import quoted
from critlab.analysis.systems.base import RuleSystem

# Command-line name -> the module that defines its SYSTEM, in the order systems are listed.
MODULES = {
    "crits-cats": "critlab.analysis.systems.crits_cats",
    "crit-range": "critlab.analysis.systems.crit_range",
    "severity": "critlab.analysis.systems.severity",
    "contest": "critlab.analysis.systems.contest",
    "thac0": "critlab.analysis.systems.thac0",
}
BUILT_IN = tuple(MODULES)


def register(name: str, module: str) -> None:
    """Add the rule system defined in ``module`` (its ``SYSTEM``) under ``name``."""
    MODULES[name] = module


def registry() -> dict[str, RuleSystem]:
    """``{name: RuleSystem}`` for every registered rule system, built-in ones first."""
    return {name: importlib.import_module(module).SYSTEM for name, module in MODULES.items()}


def get_system(name: str) -> RuleSystem:
    """The rule system called ``name`` (as on the command line), or a clear ValueError.

    Only that system's module is imported. A name with a ``:`` is a reference,
    ``path/to/rules.py:function`` or ``module:function``, to an object that tells its
    rule system (a designer's mechanic; see :mod:`critlab.analysis.systems.refs`).
    """
    module = MODULES.get(name)
    if module is None and isinstance(name, str) and ":" in name:
        from critlab.analysis.systems.refs import resolve

        return resolve(name)
    if module is None:
        raise ValueError(f"unknown system {quoted(name)}; choose one of: " + ", ".join(MODULES))
    return importlib.import_module(module).SYSTEM


__all__ = ["BUILT_IN", "MODULES", "RuleSystem", "get_system", "register", "registry"]
