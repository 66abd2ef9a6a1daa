"""Numba's compile flags read in one pass: the typing cache's keys compared faster.

Numba keys the overloads it has typed by, among others, the compile flags, so every call
typed inside a kernel hashes and compares a ``Flags`` object, and both read all of its
options (about thirty) through one property each: ``TargetConfig.values``. Measured on the
first compile of the crit-range and contest kernels from an empty cache, that was 7% of
the CPU time (about a million property calls a kernel).

:func:`install` gives ``values`` the same answer read from the stored values directly (an
option not set has its default, as each property returns). It also gives the flags'
hash and equality their answers without building those values where it need not:

- Numba hashes the sorted *keys* of the values (iterating a dict gives its keys), that is
  the option names, the same for every flags object of a class. So every flags object
  lands in one hash bucket and each lookup compares flags for equality, one after the
  other (120,000 comparisons in the first simulation of an own mechanic that chooses).
  The hash here is the same number, computed once per class.
- Two flags are compared by the options either has set (a few of thirty), every other
  option being at its default on both: Numba's answer, without building both values.

Where Numba's flags are not laid out as expected, nothing is changed.
"""

from __future__ import annotations

from typing import Any


def _values(self: Any) -> dict[str, Any]:
    """Every option's value, the default where it is not set (the properties' answer)."""
    stored = self._values
    return {name: stored.get(name, option.default) for name, option in self.options.items()}


_HASHES: dict[type, int] = {}


def _hash(self: Any) -> int:
    """Numba's hash, ``hash(tuple(sorted(self.values())))``: of the option names only."""
    cls = type(self)
    found = _HASHES.get(cls)
    if found is None:
        found = _HASHES[cls] = hash(tuple(sorted(_values(self))))
    return found


def _eq(self: Any, other: Any) -> Any:
    """Equal values, read from the options either has set (the others are at their
    defaults on both): what Numba's comparison of every value answers."""
    if type(self) is not type(other):  # the rare case: imported here, not on every call
        from numba.core.targetconfig import TargetConfig

        if not isinstance(other, TargetConfig):
            return NotImplemented
        return _values(self) == _values(other)
    mine, theirs = self._values, other._values
    if mine == theirs:
        return True
    options = self.options
    for name in mine.keys() | theirs.keys():
        default = options[name].default
        if mine.get(name, default) != theirs.get(name, default):
            return False
    return True


def install() -> bool:
    """Read flags' values in one pass, hash and compare them so (idempotent); whether
    they now are."""
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
    TargetConfig.__hash__ = _hash
    TargetConfig.__eq__ = _eq
    return True
