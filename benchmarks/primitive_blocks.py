"""Block simulators of the runtime's primitive mechanics (benchmarks and runtime tests).

- ``d20_test_block``: d20 + bonus against a difficulty with crit and critfail ranges;
  labels critfail, failure, success, crit (the rules' crit-range test mode).
- ``pool_block``: 4d6 drop lowest, tallied into a histogram of 3..18.
- ``d20_floor_block`` / ``draws_floor_block``: dice drawn and
  folded into one number, with no rule and no tally: the cost of the dice alone.

Both mechanics draw their dice as one bounded draw over all their outcomes (see
:mod:`critlab.kernels.joint`: the same dice) and count each draw in a table in the
kernel's frame; the rules are applied once per distinct outcome at the end of a block.
"""

from __future__ import annotations

from critlab.kernels.counts import add_to_bin, hist_at
from critlab.kernels.jit import kernel
from critlab.kernels.joint import local_table, sum_of_digits
from critlab.kernels.rng import bounded, die, local_state

CRITFAIL, FAILURE, SUCCESS, CRIT = 0, 1, 2, 3


@kernel(inline="always")
def test_label(natural, bonus, difficulty, crit_range, critfail_range):
    """The label of a natural: critfail on <= critfail_range, crit on >= 21 − crit_range,
    else success when natural + bonus reaches the difficulty."""
    if natural <= critfail_range:
        return CRITFAIL
    if natural >= 21 - crit_range:
        return CRIT
    return SUCCESS if natural + bonus >= difficulty else FAILURE


@kernel
def d20_test_block(s, n, out, bonus, difficulty, crit_range, critfail_range):
    """``n`` skill tests, two trials' d20s at a time as one draw over the 400 pairs."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    pairs = local_table()
    for _ in range(n // 2):
        pairs[bounded(s, 400)] += 1
    naturals = local_table()
    if n % 2:
        naturals[die(s, 20)] += 1
    for pair in range(400):  # the pair (x, y) of naturals is 20 * (x - 1) + (y - 1)
        naturals[pair // 20 + 1] += pairs[pair]
        naturals[pair % 20 + 1] += pairs[pair]
    for natural in range(1, 21):
        out[test_label(natural, bonus, difficulty, crit_range, critfail_range)] += naturals[natural]


@kernel
def pool_block(s, n, out, layout):
    """``n`` rolls of 4d6 drop lowest into histogram 0 (label 0 counts every roll), each
    roll one draw over the 1296 ordered outcomes of the four dice."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    start, lo, n_bins = hist_at(layout, 0)
    seen = local_table()
    for _ in range(n):
        seen[bounded(s, 1296)] += 1
    for outcome in range(1296):  # four base-6 digits, each a face less one
        lowest = 6
        rest = outcome
        for _ in range(4):
            lowest = min(lowest, rest % 6 + 1)
            rest //= 6
        out[0] += seen[outcome]  # label 0: every roll
        add_to_bin(out, start, lo, n_bins, sum_of_digits(outcome, 4, 6) - lowest, seen[outcome])


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
def draws_floor_block(s, n, out, outcomes, trials_per_draw):
    """``n`` trials drawn ``trials_per_draw`` at a time as one bounded draw over
    ``outcomes``, with no rule and no tally (the floor of a mechanic drawn that way)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    acc = 0
    for _ in range(n // trials_per_draw):
        acc ^= bounded(s, outcomes)
    out[0] += n
    out[1] ^= acc
