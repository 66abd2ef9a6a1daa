"""A rule system's spec as a :class:`~critlab.analysis.model.Model`: built-in systems,
registered ones and designers' mechanics (a mechanic is a rule system) alike.

Its parameters are the spec's declarations; a point is the values given (the others at
their defaults), validated by the spec itself; its exact answer is the system's, its
simulation the system's run, its work the foundations' estimate of a spec
(:func:`critlab.analysis.work.spec_work`).

>>> from critlab.analysis.systems import get_system
>>> crit = get_system("crit-range").model().at(attack_bonus=5, evasion=15, roll="advantage")
>>> crit.exact().outcomes["crit"], crit.spec().roll
(0.0975, 'advantage')
>>> sorted(crit.unused())[:2]          # the test mode's parameters
['bonus', 'difficulty']
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from critlab.analysis.model import INTEGER, BaseModel, Parameter, parameters_of
from critlab.analysis.params import declared
from critlab.analysis.results import ExactResult, SimResult
from critlab.analysis.run import RunOptions
from critlab.analysis.spec import Spec
from critlab.analysis.work import spec_work


class SystemModel(BaseModel):
    """The model of ``system`` (a :class:`~critlab.analysis.systems.base.RuleSystem`) at
    the parameter values ``values`` (``spec``: their spec, when already built)."""

    def __init__(self, system: Any, values: dict[str, Any] | None = None, spec: Spec | None = None) -> None:
        self.system = system
        self.name, self.title, self.ordered = system.name, system.title, system.ordered
        self.parameters = _parameters(system.spec)
        self._values = dict(values or {})
        self._spec = spec

    @classmethod
    def of_spec(cls, spec: Spec) -> SystemModel:
        """The model at ``spec``'s point (its every declared parameter)."""
        system = type(spec).rule_system
        return cls(system, {name: getattr(spec, name) for name in declared(type(spec))}, spec)

    def _moved(self, values: dict[str, Any]) -> SystemModel:
        return SystemModel(self.system, values, self.system.make_spec(**values))

    def spec(self) -> Spec:
        if self._spec is None:
            self._spec = self.system.make_spec(**self._values)
        return self._spec

    def _exact(self) -> ExactResult:
        return self.system.exact(self.spec())

    def simulate(self, run: RunOptions) -> SimResult:
        return self.system.simulate_run(self.spec(), run)

    def work(self, bounded: bool = False) -> float:
        per, once = spec_work(self.spec())
        return per + once

    def steps(self) -> tuple[str, ...]:
        """Every integer parameter with a value at this point (``params()`` order)."""
        given = self.spec().params()
        return tuple(p.name for p in self.parameters if p.kind == INTEGER and given.get(p.name) is not None)

    def unused(self) -> frozenset[str]:
        try:
            return self.spec().unused()  # a system may add its own rules (crits-cats' combat)
        except ValueError:
            return super().unused()

    def polarity(self) -> dict[str, int]:
        return self.system.polarity_of(self.labels)

    def __reduce__(self) -> tuple:
        # by reference, as a mechanic's spec is: a Dask worker finds the system again
        return (_model_at, (getattr(self.system, "where", "") or self.system.name, self._values))


def _model_at(reference: str, values: dict[str, Any]) -> SystemModel:
    from critlab.analysis.systems import get_system

    return SystemModel(get_system(reference), values)


@lru_cache(maxsize=64)
def _parameters(spec_cls: type[Spec]) -> tuple[Parameter, ...]:
    return parameters_of(spec_cls)


__all__ = ["SystemModel"]
