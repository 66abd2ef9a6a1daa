"""The d20 roll modes (:mod:`critlab.kernels.d20`).

Defined apart from the jitted kernel so that the exact side reads them without
importing Numba; the kernel imports them from here.
"""

from __future__ import annotations

from critlab.kernels.vocab import vocabulary

RollMode = vocabulary("RollMode", "normal advantage disadvantage", module=__name__)
