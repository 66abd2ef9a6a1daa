"""Block simulators of the runtime's primitive mechanics (benchmarks and runtime tests).

- ``d20_test_block``: d20 + bonus against a difficulty with crit and critfail ranges;
  labels critfail, failure, success, crit (the rules' crit-range test mode).
- ``pool_block``: 4d6 drop lowest, tallied into a histogram of 3..18.
- ``d20_floor_block``: d20s drawn and folded into one label: the cost of the dice alone.
"""

from __future__ import annotations

from critlab.kernels.bins import add_label, add_value
from critlab.kernels.dice import roll_4d6_drop_lowest
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state

CRITFAIL, FAILURE, SUCCESS, CRIT = 0, 1, 2, 3


@kernel
def d20_test_block(s, n, out, bonus, difficulty, crit_range, critfail_range):
    """``n`` skill tests: critfail on a natural <= critfail_range, crit on >= 21 − crit_range."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    for _ in range(n):
        natural = die(s, 20)
        # The rules in order of precedence, each overriding the last: written so the
        # choice compiles to selects, where branches would mispredict on half the trials.
        label = SUCCESS if natural + bonus >= difficulty else FAILURE
        label = CRIT if natural >= 21 - crit_range else label
        label = CRITFAIL if natural <= critfail_range else label
        add_label(out, label)


@kernel
def pool_block(s, n, out, layout):
    """``n`` rolls of 4d6 drop lowest into histogram 0 (label 0 counts every roll)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    for _ in range(n):
        add_label(out, 0)
        add_value(out, layout, 0, roll_4d6_drop_lowest(s))


@kernel
def d20_floor_block(s, n, out):
    """``n`` d20s with no rule at all, counted in ``out[0]``; their xor goes to ``out[1]``
    so the compiler cannot drop them."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    acc = 0
    for _ in range(n):
        acc ^= die(s, 20)
    out[0] += n
    out[1] ^= acc


@kernel
def dice_floor_block(s, n, out, sides, count):
    """``n`` trials of ``count`` dice with ``sides`` sides each, drawn one by one, with no
    rule and no tally: a mechanic's dice floor. Their xor goes to ``out[1]`` so the
    compiler cannot drop them."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    acc = 0
    for _ in range(n):
        for _ in range(count):
            acc ^= die(s, sides)
    out[0] += n
    out[1] ^= acc
