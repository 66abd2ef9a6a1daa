"""A choosing rule's best play, solved exactly, and what the decisions are worth.

:func:`solve` runs the solve walk (:func:`critlab.kernels.choices.make_solver`): the tree
of the rule's reads where each choice is a node whose value is its best option's (every
option followed to the end of the rule, later choices solved first, ties to the first
listed), leaving a :data:`~critlab.kernels.choices.Policy` that the exact walk, the
simulation and an encounter's attack all follow. The walk's leaves count against the exact
budget (:data:`critlab.analysis.mechanic.exact.MAX_GRID`); a policy of more than
:data:`MAX_DECISIONS` positions is refused in one line, and a choosing rule then cannot be
simulated either (its simulation follows the solved policy).

:func:`fixed_best` is the highest objective when every choice is fixed to one of its
options (each site to one option, over every combination, at most
:data:`MAX_FIXED_PLAYS`): ``choice_gain`` is the best play's objective minus it.
:func:`rows` reads the positions the best play reaches back as the values read before
each choice and the option taken (:mod:`critlab.analysis.mechanic.words` puts them in words).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from critlab.analysis.mechanic.checks import ExactTooLarge
from critlab.analysis.mechanic.compile import MechanicError
from critlab.analysis.mechanic.walks import run_walk
from critlab.kernels import choices as kc
from critlab.kernels.mechanic import MAX_OPTIONS, MAX_SEEN

# The most choice positions a policy holds (each a key of the values read before it, the
# option taken and each option's objective: about 200 bytes), and the most key words.
MAX_DECISIONS = 1 << 20
MAX_KEY_WORDS = 1 << 24
# choice_gain compares the best play with at most this many fixed plays (one exact walk each).
MAX_FIXED_PLAYS = 256


@dataclass(frozen=True)
class Solved:
    """A spec's best play: the policy to follow (mode FOLLOW), the objective under it,
    and the solve walk's cost (runs of the rule, leaves)."""

    policy: kc.Policy
    best: float
    runs: int
    leaves: int


def _olab(rule: Any) -> np.ndarray:
    """The objective's weight of each label (1 for the objective's labels)."""
    out = np.zeros(len(rule.labels))
    if rule.objective.labels is not None:
        out[list(rule.objective.labels)] = 1.0
    return out


def _walk(rule: Any, spec: Any, sups: Any, policy: kc.Policy, budget: int, refuse: Any) -> tuple[float, Any]:
    """One solve walk of ``spec`` under ``policy`` (its mode SOLVE or FIXED) of at most
    ``budget`` leaves: the root's objective and the walk's counts (see
    :data:`critlab.kernels.choices._SOLVE`); ``refuse(rule, spec, counts, what)`` raises
    for a walk that stopped (:func:`critlab.analysis.mechanic.exact.refuse`)."""
    params = rule.param_values(spec, policy=policy)
    compiled = rule.compiled(params)
    counts = np.zeros(6, dtype=np.int64)
    root = np.zeros(1)
    walked = (params, *sups.walked())
    args = (*walked, budget, _olab(rule), *policy, counts, root)
    run_walk(rule.fn, compiled, "solve", *args, leaves_at=len(walked), counts_at=len(args) - 2)
    if counts[2]:
        raise MechanicError(
            f"{rule.name}: returned a label outside 0..{len(rule.labels) - 1} ({', '.join(rule.labels)})"
        )
    refuse(rule, spec, counts, what="the exact walk its choices need (the policy the simulation follows)")
    return float(root[0]), counts


def solve(rule: Any, spec: Any, sups: Any, budget: int, refuse: Any) -> Solved:
    """The best play of ``spec`` (see the module docstring), its walk of at most
    ``budget`` leaves (``refuse`` as for :func:`_walk`)."""
    entries, words = min(1 << 10, MAX_DECISIONS), min(1 << 16, MAX_KEY_WORDS)
    while True:
        policy = kc.empty_policy(kc.SOLVE, len(rule.sites), entries, words)
        best, counts = _walk(rule, spec, sups, policy, budget, refuse)
        if not counts[5]:
            break
        if entries >= MAX_DECISIONS and words >= MAX_KEY_WORDS:
            raise ExactTooLarge(
                f"{rule.name}: its choices are made at more than {MAX_DECISIONS:,} positions (values read "
                "before a choice), more than its solved policy holds; the simulation follows that policy, "
                "so fewer inputs read before a choice are needed"
            )
        entries, words = min(entries * 8, MAX_DECISIONS), min(words * 8, MAX_KEY_WORDS)
    policy.table[kc.T_MODE] = kc.FOLLOW
    return Solved(policy, best, int(counts[0]), int(counts[1]))


def fixed_best(rule: Any, spec: Any, sups: Any, budget: int, refuse: Any) -> float | None:
    """The highest objective over the plays that fix every choice to one option (None
    when there are more than :data:`MAX_FIXED_PLAYS`, or their walks together pass
    ``budget`` leaves)."""
    sizes = [len(s.options) for s in rule.sites]
    if math.prod(sizes) > MAX_FIXED_PLAYS:
        return None
    best, spent = -math.inf, 0
    for play in itertools.product(*(range(n) for n in sizes)):
        policy = kc.empty_policy(kc.FIXED, len(sizes))
        kc.region(policy.table, kc.T_FIXED, len(sizes))[:] = play
        try:
            value, counts = _walk(rule, spec, sups, policy, max(budget - spent, 1), refuse)
        except ExactTooLarge:
            return None
        spent += int(counts[1])
        best = max(best, value)
    return best


def marked(solved: Solved) -> kc.Policy:
    """The policy to follow that also marks the positions it reaches (the exact walk's)."""
    return kc.with_mode(solved.policy, kc.MARK)


def rows(rule: Any, spec: Any, policy: kc.Policy) -> dict[str, list[dict[str, Any]]]:
    """Per choice (by name), one row per position the best play reaches: ``read`` (the
    inputs read before it: a value, or a pool's dice as a list), ``chosen`` (earlier
    choices' options in this run), ``seen`` (the seen values), ``option`` (taken) and
    ``values`` (each option's objective there), in the order of the keys."""
    widths = [1 if n is None else n for _, n, _ in rule.rolls(spec)]
    names = tuple(rule.inputs)
    out: dict[str, list[dict[str, Any]]] = {s.name: [] for s in rule.sites}
    n, table = int(policy.sizes[0]), policy.table
    kstart, klen = kc.region(table, kc.T_KSTART, n), kc.region(table, kc.T_KLEN, n)
    option, used = kc.region(table, kc.T_OPTION, n), kc.region(table, kc.T_USED, n)
    keys = table[table[kc.T_KEYS] :]
    for e in np.flatnonzero(used):
        key = keys[kstart[e] : kstart[e] + klen[e]].tolist()
        site = rule.sites[key[0]]
        k, mask, at = key[1], key[2], 3
        read: dict[str, Any] = {}
        for i, name in enumerate(names):
            if mask >> i & 1:
                vals = key[at : at + widths[i]]
                at += widths[i]
                read[name] = vals if name in rule.pools else vals[0]
        chosen = {}
        for _ in range(k):
            earlier = rule.sites[key[at]]
            chosen[earlier.name] = earlier.options[key[at + 1]]
            at += 2
        seen = policy.seen[e * MAX_SEEN : e * MAX_SEEN + len(site.seen)].tolist()
        values = policy.values[e * MAX_OPTIONS : e * MAX_OPTIONS + len(site.options)].tolist()
        out[site.name].append(
            {
                "read": read,
                "chosen": chosen,
                "seen": dict(zip(site.seen, seen, strict=True)),
                "option": site.options[int(option[e])],
                "values": dict(zip(map(str, site.options), values, strict=True)),
            }
        )
    return out
