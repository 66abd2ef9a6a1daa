"""Small block kernels for the foundation's tests: a fair and a deliberately biased d20,
a crit-range style attack, a 2d6 histogram that exercises labels, bins and counters, and
rolls of an encoded dice expression; and a progress bar that meets Ctrl-C mid-run.

Each ``*_block(s, n, out, ...)`` tallies ``n`` trials from stream ``s`` into ``out`` in the
order of the matching layout below, exactly like a rule system's kernel.

>>> D20_LAYOUT.n_out, ATTACK_LAYOUT.labels
(20, ('critfail', 'miss', 'hit', 'crit'))
"""

from __future__ import annotations

from critlab.analysis.tally import Layout
from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import local_scratch, roll_expr
from critlab.kernels.jit import kernel
from critlab.kernels.rng import bounded, die, local_state

# One label per face: "1" .. "20".
D20_LAYOUT = Layout(labels=tuple(str(v) for v in range(1, 21)))

# The biased d20 shows 20 with probability BIAS_PER_MILLE / 1000 (5.5% against a fair 5%);
# the other nineteen faces share the rest equally.
BIAS_PER_MILLE = 55

# A crit-range attack: d20 + bonus against a target number.
ATTACK_LAYOUT = Layout(labels=("critfail", "miss", "hit", "crit"))
CRITFAIL, MISS, HIT, CRIT = 0, 1, 2, 3

# 2d6: the low die as label, the sum in a histogram deliberately too narrow (3..11, so 2
# and 12 land in the tail bin) and the running sum of the totals as a counter.
TWO_D6_LAYOUT = Layout(labels=("low_1", "low_2", "low_3", "low_4", "low_5", "low_6"), hists={"sum": (3, 11)},
                       counters=("total",))  # fmt: skip


@kernel
def fair_d20_block(s, n, out):
    """``n`` rolls of a fair d20, counted per face."""
    for _ in range(n):
        add_label(out, die(s, 20) - 1)


@kernel
def biased_d20_block(s, n, out, per_mille):
    """``n`` rolls of a d20 that shows 20 with probability ``per_mille / 1000``."""
    for _ in range(n):
        if bounded(s, 1000) < per_mille:
            face = 20
        else:
            face = die(s, 19)
        add_label(out, face - 1)


@kernel
def attack_block(s, n, out, crit_range, critfail_range, bonus, target):
    """``n`` attacks: d20 + ``bonus`` against ``target`` with crit and critfail ranges."""
    for _ in range(n):
        natural = die(s, 20)
        if natural <= critfail_range:
            label = CRITFAIL
        elif natural >= 21 - crit_range:
            label = CRIT
        elif natural + bonus >= target:
            label = HIT
        else:
            label = MISS
        add_label(out, label)


@kernel
def two_d6_block(s, n, out, layout):
    """``n`` rolls of 2d6: label = the lower die, histogram of the sum, counter of totals."""
    for _ in range(n):
        a = die(s, 6)
        b = die(s, 6)
        add_label(out, min(a, b) - 1)
        add_value(out, layout, 0, a + b)
        add_counter(out, layout, 0, a + b)


@kernel
def expr_block(s, n, out, layout, terms, constant):
    """``n`` rolls of an encoded dice expression into histogram 0 (one label, "roll")."""
    s = local_state(s)
    scratch = local_scratch()
    for _ in range(n):
        add_label(out, 0)
        add_value(out, layout, 0, roll_expr(s, terms, constant, scratch))


class InterruptingBar:
    """A progress bar whose third update meets Ctrl-C, as if pressed between blocks
    (a real SIGINT can land in a finaliser and be lost, which would make tests flaky)."""

    def __init__(self) -> None:
        self.updates = 0

    def update(self, n: int) -> None:
        self.updates += 1
        if self.updates == 3:
            raise KeyboardInterrupt

    def close(self) -> None:
        pass
