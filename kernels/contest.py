"""Kernel for ``contest`` (GURPS-style contests).

Each trial rolls 3d6 for each side, die by die, judges every success roll by the rules
(criticals included), and, for a regular contest, keeps rolling round after round until
one side succeeds while the other fails or ``max_rounds`` is reached. The effective
skills (Rule of 16, rescaling) are worked out by the caller; the kernel rolls against
them. :func:`trial` is one contest; :func:`block` tallies ``n``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import roll_3d6
from critlab.kernels.jit import kernel
from critlab.kernels.rng import local_state
from critlab.kernels.vocab import vocabulary

Kind = vocabulary("Kind", "quick resistance regular", module=__name__)
# The outcome labels of each kind, at the same three indices.
QuickOutcome = vocabulary("QuickOutcome", "a_wins b_wins tie", module=__name__)
ResistanceOutcome = vocabulary("ResistanceOutcome", "attack_failed resisted affected", module=__name__)
RegularOutcome = vocabulary("RegularOutcome", "a_wins b_wins undecided", module=__name__)
OUTCOMES = {Kind.QUICK: QuickOutcome, Kind.RESISTANCE: ResistanceOutcome, Kind.REGULAR: RegularOutcome}
Defender = vocabulary("Defender", "none a b", module=__name__)
# quick contests fill margin and degree, regular ones rounds, resistance rolls none
Hist = vocabulary("Hist", "margin degree rounds", module=__name__)
Counter = vocabulary(
    "Counter",
    "a_critical_success a_critical_failure b_critical_success b_critical_failure decided_rounds",
    module=__name__,
)
# The first roll's criticals of a trial, as bits of one flag word.
A_CRIT_SUCCESS, A_CRIT_FAILURE, B_CRIT_SUCCESS, B_CRIT_FAILURE = 1, 2, 4, 8

Args = namedtuple("Args", "kind a_skill b_skill criticals defender max_rounds")
"""The kernel's arguments, built by :mod:`critlab.analysis.systems.contest` from a spec
(``a_skill``, ``b_skill``: the values rolled against)."""


@kernel(inline="always")
def judge(skill, roll, criticals):
    """``(success, critical success, critical failure)`` of one 3d6 roll against ``skill``."""
    if not criticals:
        return roll <= skill, False, False
    if roll <= 4:
        return True, True, False
    crit_success = (roll == 5 and skill >= 15) or (roll == 6 and skill >= 16)
    crit_failure = roll == 18 or (roll == 17 and skill <= 15) or roll >= skill + 10
    return roll <= skill and roll <= 16, crit_success, crit_failure


@kernel(inline="always")
def crit_flags(cs_a, cf_a, cs_b, cf_b):
    """The flag word of a first roll's criticals."""
    return A_CRIT_SUCCESS * cs_a + A_CRIT_FAILURE * cf_a + B_CRIT_SUCCESS * cs_b + B_CRIT_FAILURE * cf_b


@kernel(inline="always")
def quick_trial(s, a):
    """One quick contest: ``(label, margin m_A - m_B, degree of victory, 0, flags)``."""
    roll_a = roll_3d6(s)
    roll_b = roll_3d6(s)
    ok_a, cs_a, cf_a = judge(a.a_skill, roll_a, a.criticals)
    ok_b, cs_b, cf_b = judge(a.b_skill, roll_b, a.criticals)
    margin_a = a.a_skill - roll_a
    margin_b = a.b_skill - roll_b
    if ok_a != ok_b:
        label = QuickOutcome.A_WINS if ok_a else QuickOutcome.B_WINS
    elif margin_a > margin_b:
        label = QuickOutcome.A_WINS
    elif margin_b > margin_a:
        label = QuickOutcome.B_WINS
    elif a.defender == Defender.A:
        label = QuickOutcome.A_WINS
    elif a.defender == Defender.B:
        label = QuickOutcome.B_WINS
    else:
        label = QuickOutcome.TIE
    if label == QuickOutcome.A_WINS:
        degree = margin_a - margin_b
    elif label == QuickOutcome.B_WINS:
        degree = margin_b - margin_a
    else:
        degree = 0
    return np.int64(label), margin_a - margin_b, degree, 0, crit_flags(cs_a, cf_a, cs_b, cf_b)


@kernel(inline="always")
def resistance_trial(s, a):
    """One resistance roll: ``(label, 0, 0, 0, flags)``; B rolls only against a successful attack."""
    roll_a = roll_3d6(s)
    ok_a, cs_a, cf_a = judge(a.a_skill, roll_a, a.criticals)
    if not ok_a:
        return np.int64(ResistanceOutcome.ATTACK_FAILED), 0, 0, 0, crit_flags(cs_a, cf_a, False, False)
    roll_b = roll_3d6(s)
    ok_b, cs_b, cf_b = judge(a.b_skill, roll_b, a.criticals)
    # the resisting side wins ties
    if not ok_b or a.a_skill - roll_a > a.b_skill - roll_b:
        label = ResistanceOutcome.AFFECTED
    else:
        label = ResistanceOutcome.RESISTED
    return np.int64(label), 0, 0, 0, crit_flags(cs_a, cf_a, cs_b, cf_b)


@kernel(inline="always")
def regular_trial(s, a):
    """One regular contest: ``(label, 0, 0, rounds played, flags of the first round)``."""
    label = RegularOutcome.UNDECIDED
    rounds = a.max_rounds
    flags = 0
    for r in range(1, a.max_rounds + 1):
        ok_a, cs_a, cf_a = judge(a.a_skill, roll_3d6(s), a.criticals)
        ok_b, cs_b, cf_b = judge(a.b_skill, roll_3d6(s), a.criticals)
        if r == 1:
            flags = crit_flags(cs_a, cf_a, cs_b, cf_b)
        if ok_a != ok_b:
            label = RegularOutcome.A_WINS if ok_a else RegularOutcome.B_WINS
            rounds = r
            break
    return np.int64(label), 0, 0, rounds, flags


@kernel(inline="always")
def trial(s, a, scratch):
    """One contest of kind ``a.kind``: ``(label, margin, degree, rounds, flags)``, the
    values a kind does not have 0, ``flags`` the first roll's criticals as bits."""
    if a.kind == Kind.QUICK:
        return quick_trial(s, a)
    if a.kind == Kind.RESISTANCE:
        return resistance_trial(s, a)
    return regular_trial(s, a)


@kernel
def block(s, n, out, layout, a):
    """Tally ``n`` contests into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    for _ in range(n):
        label, margin, degree, rounds, flags = trial(s, a, None)
        add_label(out, label)
        add_counter(out, layout, Counter.A_CRITICAL_SUCCESS, (flags & A_CRIT_SUCCESS) != 0)
        add_counter(out, layout, Counter.A_CRITICAL_FAILURE, (flags & A_CRIT_FAILURE) != 0)
        add_counter(out, layout, Counter.B_CRITICAL_SUCCESS, (flags & B_CRIT_SUCCESS) != 0)
        add_counter(out, layout, Counter.B_CRITICAL_FAILURE, (flags & B_CRIT_FAILURE) != 0)
        if a.kind == Kind.QUICK:
            add_value(out, layout, Hist.MARGIN, margin)
            add_value(out, layout, Hist.DEGREE, degree)
        elif a.kind == Kind.REGULAR:
            add_value(out, layout, Hist.ROUNDS, rounds)
            if label != RegularOutcome.UNDECIDED:
                add_counter(out, layout, Counter.DECIDED_ROUNDS, rounds)
