"""Numba's compile flags read in one pass: the typing cache's keys compared faster.

Numba keys the overloads it has typed by, among others, the compile flags, so every call
typed inside a kernel hashes and compares a ``Flags`` object, and both read all of its
options (about thirty) through one property each: ``TargetConfig.values``. Measured on the
first compile of the crit-range and contest kernels from an empty cache, that was 7% of
the CPU time (about a million property calls a kernel).

:func:`install` gives ``values`` the same answer read from the stored values directly (an
option not set has its default, as each property returns). Where Numba's flags are not
laid out as expected, nothing is changed.
"""

from __future__ import annotations

from typing import Any


def _values(self: Any) -> dict[str, Any]:
    """Every option's value, the default where it is not set (the properties' answer)."""
    stored = self._values
    return {name: stored.get(name, option.default) for name, option in self.options.items()}


def install() -> bool:
    """Read flags' values in one pass (idempotent); whether they now are."""
    try:
        from numba.core.targetconfig import TargetConfig
    except ImportError:
        return False
    if TargetConfig.values is _values:
        return True
    if not hasattr(TargetConfig, "options") or "_values" not in getattr(TargetConfig, "__slots__", ()):
        return False  # laid out otherwise than this was written for: leave it
    _values.__doc__ = TargetConfig.values.__doc__
    TargetConfig.values = _values
    return True
