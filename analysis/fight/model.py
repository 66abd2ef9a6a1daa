"""A fight as a :class:`~critlab.analysis.model.Model`: an attack's parameters (group
``attack``) and the fight's own, ``hp``, ``attacks_per_round`` and ``max_rounds`` (group
``fight``, declared here once with the bounds :class:`~critlab.analysis.fight.exact.Fight`
checks).

>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> f = FightModel.of(spec, hp=10)
>>> f.exact().metrics["median_rounds"], f.at(hp=20).exact().metrics["median_rounds"]
(4, 8)
>>> [p.name for p in f.parameters if p.group == "fight"]
['hp', 'attacks_per_round', 'max_rounds']
>>> f.at(hp=0)
Traceback (most recent call last):
...
critlab.analysis.spec.SpecError: parameter hp = 0: must be an integer in 1..1000000
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from critlab.analysis.fight.exact import (
    MAX_ATTACKS_PER_ROUND,
    MAX_HP,
    MAX_ROUNDS,
    WORK_LIMIT,
    Fight,
    FightResult,
    attack_damage,
    estimate_work,
    fight,
)
from critlab.analysis.model import INTEGER, BaseModel, Parameter, model_of, regroup
from critlab.analysis.params import Int
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.run import RunOptions
from critlab.analysis.spec import Spec, SpecError

# The fight's own parameters, declared once (Fight checks the same bounds).
FIGHT_PARAMETERS = (
    Parameter("hp", INTEGER, Int(1, MAX_HP), None, "hit points", "the target's hit points", "hp", "fight"),
    Parameter(
        "attacks_per_round", INTEGER, Int(1, MAX_ATTACKS_PER_ROUND), 1, "attacks a round",
        "attacks a round; a round is always played out", None, "fight",
    ),
    Parameter(
        "max_rounds", INTEGER, Int(1, MAX_ROUNDS), 1000, "rounds at most",
        "rounds at most; a target still standing then is undecided", None, "fight",
    ),
)  # fmt: skip
FIGHT_NAMES = tuple(p.name for p in FIGHT_PARAMETERS)


class FightModel(BaseModel):
    """The fight of ``attack`` (a system's model) against the fight parameters ``fight``
    (``hp``, ...)."""

    def __init__(self, attack: Any, fight: dict[str, Any]) -> None:
        self.attack, self.fight_values = attack, dict(fight)
        self.name, self.title = f"{attack.name} fight", f"{attack.title}: rounds to defeat a target"
        self.parameters = (*regroup(attack.parameters, "attack"), *FIGHT_PARAMETERS)
        self._values = {**attack.point, **self.fight_values}

    @classmethod
    def of(cls, attack: Any, **fight: Any) -> FightModel:
        """The fight of ``attack`` (a spec, a system or its model), its fight parameters
        checked (``hp`` is needed before it answers)."""
        model = model_of(attack)
        if fight:
            Fight(**{"hp": 1, **fight})
        return cls(model, fight)

    def _moved(self, values: dict[str, Any]) -> FightModel:
        own = {k: v for k, v in values.items() if k in FIGHT_NAMES and v is not None}
        changed = {k: v for k, v in values.items() if k not in FIGHT_NAMES and v != self.attack.point.get(k)}
        attack = self.attack.at(**changed)  # validated, changed or not
        moved = FightModel(attack, own)
        moved.bout()  # the fight's own parameters checked now
        return moved

    def bout(self) -> Fight:
        """The fight's own parameters (a SpecError where ``hp`` is missing or out of range)."""
        if self.fight_values.get("hp") is None:
            raise SpecError("hp", None, "is required: the target's hit points, an integer in 1..1000000")
        return Fight(**self.fight_values)

    def spec(self) -> Spec:
        """The attack's spec (its fight parameters are :meth:`bout`)."""
        return self.attack.spec()

    def _exact(self) -> FightResult:
        return fight(self.spec(), **self.bout().to_json())

    def simulate(self, run: RunOptions) -> SimResult:
        from critlab.analysis.fight.sim import simulate_fight

        try:
            exact = self.exact()
        except SpecError as exc:
            if exc.name == "hp":  # refused by the bound of its work: simulated without it
                exact = None
            else:
                raise
        return simulate_fight(self.spec(), **self.bout().to_json(), **run.keywords(), exact=exact)

    shrink = "a lower hp, fewer attacks_per_round or max_rounds"
    work_name = "hp"

    def work(self, bounded: bool = False) -> float:
        """The attack's exact result and the fight's programme (as the design tools count
        it); a fight past its bound costs nothing (refused before any work), or with
        ``bounded`` its bound."""
        fight = estimate_work(attack_damage(self.spec()), self.bout())
        return self.attack.work() + (WORK_LIMIT if bounded and fight == 0.0 else fight)

    def steps(self) -> tuple[str, ...]:
        """The attack's, then the fight's own parameters given."""
        own = tuple(n for n in FIGHT_NAMES if isinstance(self.fight_values.get(n), int))
        return (*self.attack.steps(), *own)

    def series(self, n: int, sim: SimResult | None = None) -> tuple[tuple[str, float, float | None], ...]:
        """P(defeated by round r), r = 1 .. ``n`` (``defeated_by_round_r``), exact and in ``sim``."""
        from critlab.analysis.fight.sim import simulated_by_round

        ex = self.exact()
        rounds = ex.fight.max_rounds
        return tuple(
            (
                f"defeated_by_round_{r}",
                ex.p_defeated_by(r),
                None if sim is None else simulated_by_round(sim.tally, rounds, r),
            )
            for r in range(1, n + 1)
        )

    def answers(self) -> Iterator[ExactResult]:
        """The attack's exact result, then (when asked for) the fight's."""
        yield self.attack.exact()
        yield self.exact()

    def unused(self) -> frozenset[str]:
        return self.attack.unused()

    def quantities(self) -> tuple[str, ...]:
        """The attack's quantities, then the fight's (those the attack does not name)."""
        attack = self.attack.quantities()
        return (*attack, *(q for q in super().quantities() if q not in attack))

    def value(self, quantity: str) -> float | None:
        """The attack's quantity where it has one (``crit``, ``expected_damage``: the fight
        is not computed), else the fight's (``defeated``, ``median_rounds``), as the
        designer tools read a fight's quantities."""
        try:
            return self.attack.value(quantity)
        except SpecError as exc:
            if exc.name != "quantity":
                raise
        try:
            return super().value(quantity)
        except SpecError:
            known = ", ".join(self.quantities())
            raise SpecError(
                "quantity", quantity, f"is not an outcome or metric of {self.name}; known: {known}"
            ) from None

    def polarity(self) -> dict[str, int]:
        return self.attack.system.polarity_of(self.labels)


def result_model(result: FightResult) -> FightModel:
    """The model of the fight ``result`` answers (its attack's system and parameters)."""
    from critlab.analysis.systems import get_system

    system = get_system(result.system)
    params = {k: v for k, v in result.params.items() if v is not None}
    return FightModel(system.model().at(**params), result.fight.to_json())


__all__ = ["FIGHT_NAMES", "FIGHT_PARAMETERS", "FightModel", "result_model"]
