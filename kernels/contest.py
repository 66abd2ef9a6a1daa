"""Block simulator for ``contest`` (GURPS-style contests; RULES.md, seed 003).

Each trial rolls 3d6 for each side, die by die, judges every success roll by the rules
(criticals included), and, for a regular contest, keeps rolling round after round until
one side succeeds while the other fails or ``max_rounds`` is reached. The effective
skills (Rule of 16, rescaling) are worked out by the caller; the kernel rolls against them.
"""

from __future__ import annotations

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import roll_3d6
from critlab.kernels.jit import kernel
from critlab.kernels.rng import local_state

# kind codes
QUICK, RESISTANCE, REGULAR = 0, 1, 2
# defender codes (quick contests)
NO_DEFENDER, DEFENDER_A, DEFENDER_B = 0, 1, 2
# Outcome indices, in the order of critlab.analysis.systems.contest.labels(spec) for each kind.
A_WINS, B_WINS, TIE = 0, 1, 2
ATTACK_FAILED, RESISTED, AFFECTED = 0, 1, 2
UNDECIDED = 2
# histograms: quick has margin and degree, regular has rounds, resistance none
H_MARGIN, H_DEGREE = 0, 1
H_ROUNDS = 0
# counters, in the layout's order
C_A_CRIT_SUCCESS, C_A_CRIT_FAILURE, C_B_CRIT_SUCCESS, C_B_CRIT_FAILURE, C_DECIDED_ROUNDS = 0, 1, 2, 3, 4


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
def count_crits(out, layout, crit_success, crit_failure, c_success, c_failure):
    if crit_success:
        add_counter(out, layout, c_success, 1)
    if crit_failure:
        add_counter(out, layout, c_failure, 1)


@kernel(inline="always")
def quick_trial(s, out, layout, a_skill, b_skill, criticals, defender):
    roll_a = roll_3d6(s)
    roll_b = roll_3d6(s)
    ok_a, cs_a, cf_a = judge(a_skill, roll_a, criticals)
    ok_b, cs_b, cf_b = judge(b_skill, roll_b, criticals)
    count_crits(out, layout, cs_a, cf_a, C_A_CRIT_SUCCESS, C_A_CRIT_FAILURE)
    count_crits(out, layout, cs_b, cf_b, C_B_CRIT_SUCCESS, C_B_CRIT_FAILURE)
    margin_a = a_skill - roll_a
    margin_b = b_skill - roll_b
    if ok_a != ok_b:
        label = A_WINS if ok_a else B_WINS
    elif margin_a > margin_b:
        label = A_WINS
    elif margin_b > margin_a:
        label = B_WINS
    elif defender == DEFENDER_A:
        label = A_WINS
    elif defender == DEFENDER_B:
        label = B_WINS
    else:
        label = TIE
    if label == A_WINS:
        degree = margin_a - margin_b
    elif label == B_WINS:
        degree = margin_b - margin_a
    else:
        degree = 0
    add_label(out, label)
    add_value(out, layout, H_MARGIN, margin_a - margin_b)
    add_value(out, layout, H_DEGREE, degree)


@kernel(inline="always")
def resistance_trial(s, out, layout, a_skill, b_skill, criticals):
    roll_a = roll_3d6(s)
    ok_a, cs_a, cf_a = judge(a_skill, roll_a, criticals)
    count_crits(out, layout, cs_a, cf_a, C_A_CRIT_SUCCESS, C_A_CRIT_FAILURE)
    if not ok_a:
        # a failed attack: the victim does not roll at all
        add_label(out, ATTACK_FAILED)
        return
    roll_b = roll_3d6(s)
    ok_b, cs_b, cf_b = judge(b_skill, roll_b, criticals)
    count_crits(out, layout, cs_b, cf_b, C_B_CRIT_SUCCESS, C_B_CRIT_FAILURE)
    # the resisting side wins ties
    if not ok_b or a_skill - roll_a > b_skill - roll_b:
        add_label(out, AFFECTED)
    else:
        add_label(out, RESISTED)


@kernel(inline="always")
def regular_trial(s, out, layout, a_skill, b_skill, criticals, max_rounds):
    label = UNDECIDED
    rounds = max_rounds
    for r in range(1, max_rounds + 1):
        ok_a, cs_a, cf_a = judge(a_skill, roll_3d6(s), criticals)
        ok_b, cs_b, cf_b = judge(b_skill, roll_3d6(s), criticals)
        if r == 1:
            count_crits(out, layout, cs_a, cf_a, C_A_CRIT_SUCCESS, C_A_CRIT_FAILURE)
            count_crits(out, layout, cs_b, cf_b, C_B_CRIT_SUCCESS, C_B_CRIT_FAILURE)
        if ok_a != ok_b:
            label = A_WINS if ok_a else B_WINS
            rounds = r
            break
    add_label(out, label)
    add_value(out, layout, H_ROUNDS, rounds)
    if label != UNDECIDED:
        add_counter(out, layout, C_DECIDED_ROUNDS, rounds)


@kernel
def block(s, n, out, layout, kind, a_skill, b_skill, criticals, defender, max_rounds):
    """Simulate ``n`` contests into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    for _ in range(n):
        if kind == QUICK:
            quick_trial(s, out, layout, a_skill, b_skill, criticals, defender)
        elif kind == RESISTANCE:
            resistance_trial(s, out, layout, a_skill, b_skill, criticals)
        else:
            regular_trial(s, out, layout, a_skill, b_skill, criticals, max_rounds)
