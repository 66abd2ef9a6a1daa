"""``toy-duel``: one die plus ``bonus`` against ``target``; the die's maximum is a crit.

A roll of 1d``sides`` + ``bonus`` hits when it reaches ``target``; a natural maximum is a
``crit`` whatever the total.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from critlab.analysis.dist import Dist
from critlab.analysis.params import Int, param
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import Spec
from critlab.analysis.systems.base import RuleSystem, Simulator
from critlab.kernels.vocab import words
from toy_duel import kernel as k

LABELS = words(k.Outcome)


@dataclass(frozen=True, kw_only=True)
class DuelSpec(Spec):
    """One die against a target."""

    system = "toy-duel"
    sides: int = param(6, Int(2, 100), "sides of the die")
    bonus: int = param(0, Int(), "added to the natural")
    target: int = param(4, Int(), "the total to reach")


def exact(spec: DuelSpec) -> ExactResult:
    naturals = np.arange(1, spec.sides + 1)
    p = 1 / spec.sides
    totals = naturals + spec.bonus
    crit = naturals == spec.sides
    hit = ~crit & (totals >= spec.target)
    probs = np.array([(~crit & ~hit).sum() * p, hit.sum() * p, crit.sum() * p])
    total = Dist(int(totals[0]), np.full(spec.sides, p))
    return ExactResult(
        system=spec.system,
        params=spec.params(),
        labels=LABELS,
        probs=probs,
        distributions={"total": total},
        metrics={"mean_total": total.mean},
    )


SYSTEM = RuleSystem(
    name="toy-duel",
    title="A die against a target (test-only)",
    spec=DuelSpec,
    exact=exact,
    simulator=Simulator(
        block=k.block,
        outcomes=lambda spec: k.Outcome,
        args=lambda spec: k.Args(spec.sides, spec.bonus, spec.target),
        metrics=lambda spec, tally: {"mean_total": tally.counters["total_sum"] / tally.trials},
        hists=k.Hist,
        counters=k.Counter,
    ),
    # how it looks, declared here and nowhere else: miss < hit < crit is a ladder, and
    # a miss is worse here than the shared words say (-2, where they say -1)
    ordered=True,
    polarity={"miss": -2, "hit": 1, "crit": 2},
)
