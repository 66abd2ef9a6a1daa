"""The Model protocol: what every kind of thing critlab answers, in one shape.

A built-in system's spec, a designer's own mechanic, a fight and an encounter are each a
:class:`Model`: declared parameters (:class:`Parameter`: name, kind, range or choices,
default, label, unit, group; dotted names such as ``ogre.hp`` for an encounter's
settings), the point they are at (:attr:`Model.point`), a new model at another point
(:meth:`Model.at`, validated: a one-line :class:`~critlab.analysis.spec.SpecError`
otherwise), the exact answer there (:meth:`Model.exact`), a simulation under one run's
options (:meth:`Model.simulate`), the estimated work of its exact answer
(:meth:`Model.work`, in the unit of :mod:`critlab.analysis.work`), its outcome labels and
quantities (:meth:`Model.quantities`, :meth:`Model.value`) and how its labels look
(:meth:`Model.polarity`, :attr:`Model.ordered`) and, where it declares them, its names in
words (:meth:`Model.said`: an encounter's ``ogre.hp`` is "ogre's hit points"). A tool
written over the protocol (the explorer, the designer tools, the report) needs no kind by
name.

Each kind implements it where it lives: a rule system (a mechanic too) and a spec tell
their model by one method, ``__model__()``, which :func:`model_of` asks (an encounter's
and a fight's models, which import their kinds, are found by
:func:`critlab.analysis.encounter.model.as_model`, the one reader of every kind):

>>> from critlab.analysis.systems import get_system
>>> thac0 = model_of(get_system("thac0")).at(thac0=15, target_ac=5)
>>> thac0.point["damage"], round(thac0.value("hit+critical_hit"), 4)
('1d8', 0.55)
>>> thac0.at(crit_threshold=25)
Traceback (most recent call last):
...
critlab.analysis.spec.SpecError: parameter crit_threshold = 25: must be an integer in 2..20
>>> [p.name for p in thac0.parameters][:3], thac0.parameter("target_ac").label
(['roll', 'thac0', 'target_ac'], 'target AC')
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from critlab.analysis.params import Bool, Choice, Decimal01, Dice, Int, Kind, Param, declared, default_of
from critlab.analysis.spec_error import SpecError

if TYPE_CHECKING:  # the protocol names them; a model's own module imports the engines
    from critlab.analysis.results import ExactResult, SimResult
    from critlab.analysis.run import RunOptions

# A parameter's kind, as a tool shows it: a slider, a dropdown, a dice text box, a
# checkbox, a number box, a text box.
INTEGER, CHOICE, DICE, BOOLEAN, NUMBER, TEXT = "integer", "choice", "dice", "boolean", "number", "text"
KINDS = (INTEGER, CHOICE, DICE, BOOLEAN, NUMBER, TEXT)


def kind_of(rule: Kind) -> str:
    """The protocol's kind of a declared parameter's :class:`~critlab.analysis.params.Kind`.

    >>> kind_of(Int(0, 20)), kind_of(Choice("a", "b")), kind_of(Dice()), kind_of(Bool())
    ('integer', 'choice', 'dice', 'boolean')
    """
    for cls, kind in ((Int, INTEGER), (Choice, CHOICE), (Dice, DICE), (Bool, BOOLEAN), (Decimal01, NUMBER)):
        if isinstance(rule, cls):
            return kind
    return TEXT


@dataclass(frozen=True)
class Parameter:
    """One declared parameter of a model, as every tool reads it.

    ``rule`` is the declaration's own :class:`~critlab.analysis.params.Kind` (its check is
    the one :meth:`check` runs); ``lo``/``hi`` bound an integer (every ``step``-th from
    ``lo``) or a number and ``choices`` list a choice's words, read from ``rule``.
    ``default`` is ``None`` for a required parameter (and for an absent optional dice
    expression, ``optional``).
    ``when`` maps another parameter's name to the values under which this one is used
    (none: always). ``group`` gathers parameters shown together (``""``, ``fight``, a
    combatant's name).
    """

    name: str
    kind: str
    rule: Kind = field(repr=False)
    default: Any = None
    label: str = ""
    help: str = ""
    unit: str | None = None
    group: str = ""
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()
    optional: bool = False
    when: Mapping[str, tuple[Any, ...]] | None = None
    step: int = 1

    @classmethod
    def of(
        cls, name: str, decl: Param, default: Any = None, *, group: str = "", prefix: str = ""
    ) -> Parameter:
        """The parameter declared by ``decl`` (a :func:`~critlab.analysis.params.param`),
        named ``prefix + name`` (its ``when`` keys too)."""
        rule = decl.kind
        when = {prefix + k: tuple(v) for k, v in decl.when.items()} if decl.when else None
        return cls(
            name=prefix + name,
            kind=kind_of(rule),
            rule=rule,
            default=default,
            label=decl.label or name.replace("_", " "),
            help=decl.help,
            unit=decl.unit,
            group=group,
            optional=decl.optional,
            when=when,
        )

    def __post_init__(self) -> None:
        # the bounds and the words are the declaration's own
        if isinstance(self.rule, Int):
            object.__setattr__(self, "lo", self.rule.lo)
            object.__setattr__(self, "hi", self.rule.hi)
            object.__setattr__(self, "step", getattr(self.rule, "step", 1))
        elif isinstance(self.rule, Decimal01):
            object.__setattr__(self, "lo", float(self.rule.lo))
            object.__setattr__(self, "hi", float(self.rule.hi))
        elif isinstance(self.rule, Choice):
            object.__setattr__(self, "choices", tuple(self.rule.choices))

    def check(self, value: Any) -> Any:
        """``value`` as the rules use it, or a one-line SpecError naming this parameter."""
        if value is None and self.optional:
            return None
        return self.rule.check(self.name, value)

    def describe(self) -> str:
        """What is allowed, in words (``an integer in 0..20``)."""
        return self.rule.describe()

    @property
    def start(self) -> Any:
        """A value to start from: the default, or for a required one a value its kind
        allows (an integer's 0 brought into its range, a choice's first word).

        >>> Parameter("thac0", INTEGER, Int(1, 30)).start, Parameter("b", INTEGER, Int()).start
        (1, 0)
        """
        if self.default is not None or self.optional:
            return self.default
        if self.kind == INTEGER:
            return int(min(max(0, self.lo), self.hi))
        if self.kind == NUMBER:
            return float(self.lo)
        if self.kind == CHOICE:
            return self.choices[0]
        if self.kind == BOOLEAN:
            return False
        if self.kind == DICE:
            return "1d6"
        return ""

    def used(self, point: Mapping[str, Any]) -> bool:
        """Whether ``point`` uses this parameter (its ``when`` holds)."""
        return not self.when or all(point.get(k) in v for k, v in self.when.items())


def parameters_of(
    spec_cls: Any,
    *,
    group: str = "",
    prefix: str = "",
    defaults: Mapping[str, Any] | None = None,
) -> tuple[Parameter, ...]:
    """Every declared parameter of a spec class (a system's, a mechanic's), in field
    order, each default the field's unless ``defaults`` names it.

    >>> from critlab.analysis.systems import get_system
    >>> [p.name for p in parameters_of(get_system("thac0").spec, prefix="hero.")][:2]
    ['hero.roll', 'hero.thac0']
    """
    out = []
    for name, decl in declared(spec_cls).items():
        default = defaults[name] if defaults and name in defaults else default_of(spec_cls, name)
        out.append(Parameter.of(name, decl, default, group=group, prefix=prefix))
    return tuple(out)


def regroup(parameters: tuple[Parameter, ...], group: str) -> tuple[Parameter, ...]:
    """``parameters`` moved into ``group``."""
    return tuple(replace(p, group=group) for p in parameters)


@runtime_checkable
class Model(Protocol):
    """What every kind of thing answers (see the module docstring)."""

    name: str
    title: str
    parameters: tuple[Parameter, ...]
    ordered: bool
    shrink: str  # what to make smaller when many of its points are over the work budget
    work_name: str  # what an error of its work budget names (what is too large)

    @property
    def point(self) -> dict[str, Any]:
        """Every declared parameter's value at this point (``None``: not given)."""
        ...

    def at(self, **point: Any) -> Model:
        """A model at ``point`` (the others as here), validated: a SpecError otherwise."""
        ...

    def spec(self) -> Any:
        """What the point describes, as the engine's own functions take it (a spec, an
        encounter); a SpecError where the point is not complete."""
        ...

    def exact(self) -> ExactResult:
        """The exact answer at this point."""
        ...

    def simulate(self, run: RunOptions) -> SimResult:
        """A simulation at this point under ``run`` (trials, seed, threads, progress, client)."""
        ...

    def work(self, bounded: bool = False) -> float:
        """The estimated units of work of :meth:`exact` (:mod:`critlab.analysis.work`);
        0.0 past its engine's bound (refused before any work), or with ``bounded`` the
        work at that bound (a grid's corner past it stands for the points just inside)."""
        ...

    def steps(self) -> tuple[str, ...]:
        """The integer parameters a sensitivity moves one step each way, in order."""
        ...

    def series(self, n: int, sim: SimResult | None = None) -> tuple[tuple[str, float, float | None], ...]:
        """Up to ``n`` values of its own series beyond its outcomes and metrics (a fight's
        P(defeated by round r)): ``(name, exact, simulated in sim or None)`` each."""
        ...

    def answers(self) -> Iterator[ExactResult]:
        """The exact results its quantities are read from, in the order a name is looked
        up (a fight: its attack's, then the fight's, computed only when asked for)."""
        ...

    def unused(self) -> frozenset[str]:
        """The parameters this point does not use (another mode's)."""
        ...

    def polarity(self) -> dict[str, int]:
        """How good each outcome label is (-2 worst .. +2 best) for the style's colours."""
        ...

    def quantities(self) -> tuple[str, ...]:
        """Every quantity at this point: the outcome labels, then the metrics."""
        ...

    def value(self, quantity: str) -> float | None:
        """An outcome's probability, labels joined by ``+``, or a metric (``None``: null)."""
        ...

    def said(self, name: str) -> str | None:
        """A parameter or quantity in the words this model declares for it (a probability
        as ``P(...)``), or ``None`` where it declares none (a reader's own words then)."""
        ...


class BaseModel:
    """What every model shares: the point read against the declarations, the names of
    ``at`` checked, the exact answer kept, and its labels and quantities read from it.

    A kind gives ``name``, ``title``, ``parameters``, ``_values`` (the values given),
    ``_moved(values)`` (a validated model at those values) and the engines' calls
    (``spec``, ``_exact``, ``simulate``, ``work``)."""

    name: str = ""
    title: str = ""
    parameters: tuple[Parameter, ...] = ()
    ordered: bool = False
    shrink: str = "smaller dice"
    work_name: str = "spec"
    # what a sensitivity's steps and quantities are, in the error of a name that is neither
    words: tuple[str, str] = ("an integer parameter with a value", "an outcome or metric")
    _values: dict[str, Any]

    @property
    def point(self) -> dict[str, Any]:
        return {p.name: self._values.get(p.name, p.default) for p in self.parameters}

    def parameter(self, name: str) -> Parameter:
        """The declared parameter ``name``, or a SpecError listing those known."""
        for p in self.parameters:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.parameters)
        raise SpecError(name, None, f"is not a parameter of {self.name}; known: {known}")

    def at(self, **point: Any) -> Any:
        for name in point:
            self.parameter(name)
        return self._moved({**self._values, **point})

    def _moved(self, values: dict[str, Any]) -> Any:
        raise NotImplementedError

    def exact(self) -> ExactResult:
        cached = self.__dict__.get("_exact_result")
        if cached is None:
            cached = self.__dict__["_exact_result"] = self._exact()
        return cached

    def _exact(self) -> ExactResult:
        raise NotImplementedError

    def unused(self) -> frozenset[str]:
        point = self.point
        return frozenset(p.name for p in self.parameters if not p.used(point))

    def steps(self) -> tuple[str, ...]:
        point, unused = self.point, self.unused()
        return tuple(
            p.name
            for p in self.parameters
            if p.kind == INTEGER and point[p.name] is not None and p.name not in unused
        )

    def answers(self) -> Iterator[ExactResult]:
        yield self.exact()

    def series(self, n: int, sim: SimResult | None = None) -> tuple[tuple[str, float, float | None], ...]:
        return ()

    def polarity(self) -> dict[str, int]:
        return {}

    @property
    def labels(self) -> tuple[str, ...]:
        """The outcome labels at this point."""
        return tuple(self.exact().labels)

    def quantities(self) -> tuple[str, ...]:
        result = self.exact()
        return (*result.labels, *result.metrics)

    def value(self, quantity: str) -> float | None:
        result = self.exact()
        parts = [p.strip().replace("-", "_") for p in str(quantity).split("+")]
        outcomes = result.outcomes
        if all(p in outcomes for p in parts):
            if len(set(parts)) < len(parts):
                raise SpecError("quantity", quantity, "names a label twice: join distinct labels with '+'")
            return math.fsum(outcomes[p] for p in parts)
        if len(parts) == 1 and parts[0] in result.metrics:
            v = result.metrics[parts[0]]
            return None if v is None or math.isnan(float(v)) else float(v)
        known = ", ".join(self.quantities())
        raise SpecError("quantity", quantity, f"is not an outcome or metric of {self.name}; known: {known}")

    def said(self, name: str) -> str | None:
        return None

    def __repr__(self) -> str:
        given = ", ".join(f"{k}={v!r}" for k, v in self._values.items() if v is not None)
        return f"<model {self.name}{': ' + given if given else ''}>"


def model_of(thing: Any) -> Model:
    """The model ``thing`` stands for: a :class:`Model` itself, or what its ``__model__()``
    returns (a rule system or mechanic, a spec); a TypeError naming anything else.

    >>> model_of(3)
    Traceback (most recent call last):
    ...
    TypeError: a model is a system, a spec, a mechanic, a fight or an encounter, got int
    """
    if isinstance(thing, BaseModel):
        return thing
    tell = getattr(thing, "__model__", None)
    if callable(tell) and not isinstance(thing, type):
        model = tell()
        if isinstance(model, Model):
            return model
    raise TypeError(
        f"a model is a system, a spec, a mechanic, a fight or an encounter, got {type(thing).__name__}"
    )


__all__ = [
    "BOOLEAN",
    "CHOICE",
    "DICE",
    "INTEGER",
    "KINDS",
    "NUMBER",
    "TEXT",
    "BaseModel",
    "Model",
    "Parameter",
    "kind_of",
    "model_of",
    "parameters_of",
    "regroup",
]
