"""Your own mechanic: one Python function, the exact distribution, the simulation and the
validation, held against each other.

A designer writes the rule as it reads and declares its outcome labels, its numeric
values, its parameters (with kinds, defaults and ranges, as the built-in systems'
parameters) and its random inputs (dice expressions in the full notation, which may
name parameters in braces)::

    from critlab.analysis.mechanic import Int, mechanic, param

    @mechanic(
        labels=("failure", "success", "raise"),
        values=("margin",),
        params={"trait": param(8, Int(4, 12), "sides of the trait die"),
                "target": param(4, Int(), "the number to reach")},
        inputs={"trait_die": "1d{trait}!", "wild": "1d6!"},
    )
    def trait_roll(trait_die, wild, *, target):
        best = max(trait_die, wild)
        if best < target:
            return "failure", best - target
        return ("raise" if best >= target + 4 else "success"), best - target

The result is a rule system like the built-in ones (:class:`Mechanic`, a
:class:`~critlab.analysis.systems.base.RuleSystem`): ``trait_roll.make_spec(trait=6)``,
``trait_roll.exact(spec)``, ``trait_roll.simulate(spec, trials=..., seed=...)``, sweeps,
tune, plots, report sections and the command line (``critlab exact rules.py:trait_roll
--trait 6 --json``) all work on it.

- The function returns a label (one of the label strings, written in the return
  statement, or its index) and, when ``values`` are declared, those values after it, as
  integers. Every value is per trial, like the built-ins' distributions: 0 (or whatever
  the rule says) where its event does not happen.
- Inputs are read lazily: an input is rolled (simulation) or enumerated (exact) only
  when the rule reads it, so a reroll or a roll that only sometimes happens is simply an
  input the rule reads only when it happens. An unused input costs nothing and changes
  nothing, not even the simulated counts at a seed. Each input is one roll per trial; an
  expression that names an input reads it (a tuple of all the inputs reads them all).
- An input may be a pool, ``pool("{dice}d6")``: the rule reads it once, as an integer
  array of its dice's values sorted highest first (exact: its distinct sorted outcomes,
  each with its multinomial probability; simulated: every die rolled).
- Exact: the tree of the rule's reads over the inputs' exact distributions, weighted;
  the leaves of the tree are counted as the walk goes, and it stops with one line past
  :data:`~critlab.analysis.mechanic.exact.MAX_GRID` of them (simulate instead): an input
  the rule never reads costs nothing. An input cut off below 1e-13 (an explosion) sends
  that mass to ``tail``: each value distribution's ``tail`` entry and the metric
  ``tail``; the outcome probabilities then sum to 1 − tail.
- Simulated: the same compiled rule, its inputs rolled die by die, on the shared runner
  (blocks, threads, seeds, progress, Dask).
- Loops are bounded: one run of the rule may take at most
  :data:`~critlab.analysis.mechanic.loops.MAX_LOOP_RUNS` iterations of its ``while``
  loops and its ``for`` loops over a ``range``, together, counted in the compiled code, so
  that a loop that never ends stops the exact walk and the simulation alike with one
  line naming its file and line; a rule that calls itself is refused. The same loops end
  at a Ctrl-C or SIGTERM (:func:`~critlab.analysis.mechanic.loops.interruptible`).

>>> @mechanic(labels=("miss", "hit"), params={"target": param(4, Int(1, 7), "to reach")},
...           inputs={"die": "1d6"})
... def d6_test(die, *, target):
...     return "hit" if die >= target else "miss"
>>> d6_test.exact(d6_test.make_spec(target=5)).outcomes
{'miss': 0.6666666666666666, 'hit': 0.3333333333333333}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from critlab.analysis.mechanic.choices import choose
from critlab.analysis.mechanic.compile import MechanicError
from critlab.analysis.mechanic.load import file_reference, register, resolve
from critlab.analysis.mechanic.loops import interruptible
from critlab.analysis.mechanic.pools import Pool, pool
from critlab.analysis.mechanic.rule import Rule, fill_params, named_params
from critlab.analysis.params import Bool, Choice, Dice, Int, Kind, declared, param
from critlab.analysis.results import SimResult
from critlab.analysis.run import RunOptions
from critlab.analysis.spec import Spec, SpecError
from critlab.analysis.systems.base import RuleSystem
from critlab.kernels.mechanic import MAX_INPUTS

# Names the command line's options or a spec's own attributes already use.
RESERVED = frozenset(
    "trials seed threads alpha json scheduler no_progress help version hp attacks_per_round max_rounds "
    "vary top system rule_system params replace unused validate".split()
)
KINDS = (Int, Bool, Choice, Dice)


@dataclass(frozen=True, kw_only=True)
class MechanicSpec(Spec):
    """Base of every mechanic's spec (a class made per mechanic from its parameters)."""

    def validate(self) -> None:
        type(self).rule_system.rule.input_texts(self)  # every input is valid dice notation

    def __reduce__(self) -> tuple:
        # by reference: the mechanic is found again by name (a Dask worker loads its file)
        return (_spec_of, (type(self).rule_system.where, self.params()))


def _spec_of(where: str, params: dict[str, Any]) -> Spec:
    return resolve(where).make_spec(**params)


def _declare_param(name: str, given: Any) -> dataclasses.Field:
    if isinstance(given, dataclasses.Field):
        field = dataclasses.field(default=given.default, metadata=given.metadata)
    elif isinstance(given, Kind):
        field = param(None, given, name.replace("_", " "))  # required
    elif isinstance(given, bool):
        field = param(given, Bool(), name.replace("_", " "))
    elif isinstance(given, int):
        field = param(given, Int(), name.replace("_", " "))
    else:
        raise MechanicError(
            f"parameter {name}: declare it with param(default, Int(...)/Choice(...)/Bool()/Dice(), help) "
            f"or a plain integer or bool default, got {given!r}"
        )
    kind = field.metadata["critlab.param"].kind
    if not isinstance(kind, KINDS):
        raise MechanicError(f"parameter {name}: a mechanic's parameters are Int, Choice, Bool or Dice")
    if isinstance(kind, Choice):
        words = kind.choices
        if not words or not all(isinstance(w, str) and w for w in words) or len(set(words)) < len(words):
            raise MechanicError(
                f"parameter {name}: Choice takes different words, as a tuple or a list "
                f"(Choice(('normal', 'advantage'))), got {words!r}"
            )
    return field


def _field_type(field: dataclasses.Field) -> Any:
    kind = field.metadata["critlab.param"].kind
    base = int if isinstance(kind, Int) else bool if isinstance(kind, Bool) else str
    return (base | None) if field.default is None else base


def _check_names(what: str, names: Sequence[str], taken: set[str]) -> None:
    for name in names:
        if not isinstance(name, str) or not name.isidentifier():
            raise MechanicError(f"{what} {name!r} must be a name (letters, digits and _)")
        if name in taken:
            raise MechanicError(f"{what} {name!r} is declared twice or clashes with another name")
        taken.add(name)


@dataclass(frozen=True, eq=False)
class Mechanic(RuleSystem):
    """A designer's mechanic as a rule system (see the module docstring).

    ``where`` is the reference that loads it again (``path/to/rules.py:function`` with an
    absolute path, or ``package.module:function``); calling the mechanic calls the plain
    Python function, so a rule can be tried by hand: ``trait_roll(5, 2, target=4)``.
    """

    rule: Rule | None = None
    where: str = ""

    def simulate_run(self, spec: Spec, options: RunOptions) -> SimResult:
        """Simulate ``spec`` under ``options`` (:meth:`RuleSystem.simulate` builds them),
        inputs rolled die by die."""
        from critlab.analysis.mechanic.sim import simulate_run

        self.check_spec(spec)
        with interruptible():  # a rule's long loops end at a Ctrl-C, in every block
            return simulate_run(self, spec, options)

    @property
    def compile_seconds(self) -> float | None:
        """How long Numba took to compile the rule and its drivers' first call (None
        before the first use)."""
        c = self.rule._compiled
        return None if c is None else c.seconds

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.rule.fn(*args, **kwargs)

    def __rule_system__(self) -> Mechanic:
        """The rule system a reference to this mechanic finds: itself
        (see :mod:`critlab.analysis.systems.refs`)."""
        return self

    def __repr__(self) -> str:
        return f"<mechanic {self.name}: {', '.join(self.rule.labels)}>"


def mechanic(
    fn: Callable[..., Any] | None = None,
    *,
    labels: Sequence[str],
    inputs: Mapping[str, str],
    values: Sequence[str] = (),
    params: Mapping[str, Any] | None = None,
    title: str | None = None,
    objective: str | None = None,
) -> Any:
    """Declare a mechanic (a decorator; see the module docstring).

    Parameters
    ----------
    labels
        The outcome labels, in order; the function returns one of them (or its index).
    inputs
        Input name -> dice expression, in the full notation (``"1d{trait}!"`` names the
        parameter ``trait``), or a pool of dice read at once, highest first
        (``pool("{dice}d6")``, see :mod:`critlab.analysis.mechanic.pools`); at most 32
        inputs, each an argument of the function.
    values
        Names of the integer values returned after the label (each a distribution and a
        ``mean_<name>`` metric).
    params
        Parameter name -> ``param(default, Int(lo, hi) | Choice(...) | Bool() | Dice(),
        help)``, a plain integer or bool default, or a kind alone (required).
    title
        A one-line title (default: the function's docstring's first line).
    objective
        What a rule that chooses (:func:`~critlab.analysis.mechanic.choices.choose`)
        maximises: ``"hit+crit"`` (the probability of these labels) or ``"mean:damage"``
        (the mean of a declared value); required when it chooses, refused when it does not.
    """

    def declare(f: Callable[..., Any]) -> Mechanic:
        return _declare(f, labels, inputs, values, params or {}, title, objective)

    return declare(fn) if fn is not None else declare


def _declare(fn, labels, inputs, values, params, title, objective=None) -> Mechanic:
    if not callable(fn) or not hasattr(fn, "__code__"):
        raise MechanicError(f"@mechanic decorates a function, got {fn!r}")
    name = fn.__qualname__
    try:
        return _declared(fn, labels, inputs, values, params, title, objective)
    except MechanicError as exc:
        text = str(exc)
        raise MechanicError(text if name in text else f"{name}: {text}") from None
    except SpecError as exc:  # a default the parameter's own kind refuses
        raise MechanicError(f"{name}: {exc}; fix its default in params=...") from None


def _declared(fn, labels, inputs, values, params, title, objective=None) -> Mechanic:
    for what, given in (("labels", labels), ("values", values)):
        if isinstance(given, str) or not isinstance(given, Sequence):
            raise MechanicError(
                f"{what} are a tuple or a list of names (labels=('miss', 'hit')), got {given!r}"
            )
    if not isinstance(inputs, Mapping) or not isinstance(params, Mapping):
        raise MechanicError("inputs and params are dicts: name -> dice text or pool(...), name -> param(...)")
    taken: set[str] = set()
    labels, values = tuple(labels), tuple(values)
    if not labels:
        raise MechanicError(f"{fn.__qualname__}: declare at least one label")
    _check_names("label", labels, set())
    _check_names("value", values, {"tail"})
    _check_names("input", tuple(inputs), taken)
    _check_names("parameter", tuple(params), taken)
    if not inputs or len(inputs) > MAX_INPUTS:
        raise MechanicError(f"{fn.__qualname__}: declare 1..{MAX_INPUTS} inputs, got {len(inputs)}")
    for name in params:
        if name in RESERVED:
            raise MechanicError(
                f"parameter {name!r} is a name the command line or a spec already uses; choose another"
            )
    fields = {name: _declare_param(name, given) for name, given in params.items()}
    for name, given in inputs.items():
        template = given.text if isinstance(given, Pool) else given
        if not isinstance(template, str):
            raise MechanicError(f"input {name}: a dice expression is text or pool('NdX'), got {given!r}")
        for p in named_params(template):
            if p not in fields:
                raise MechanicError(f"input {name} = {template!r} names {{{p}}}, which is not a parameter")
    name, where = file_reference(fn)
    rule = Rule(fn, labels, values, fields, inputs, name, objective)
    spec_cls = dataclasses.make_dataclass(
        f"{fn.__name__.title().replace('_', '')}Spec",
        [(p, _field_type(f), f) for p, f in fields.items()],
        bases=(MechanicSpec,),
        frozen=True,
        kw_only=True,
        namespace={"system": name, "__doc__": f"The parameters of the mechanic {name}."},
    )
    spec_cls.__module__, spec_cls.__qualname__ = fn.__module__, f"{fn.__qualname__}.Spec"
    doc = (fn.__doc__ or "").strip().splitlines()
    system = Mechanic(
        name=name,
        title=title or (doc[0] if doc else fn.__name__),
        spec=spec_cls,
        exact=rule.exact,
        simulator=None,  # simulate is its own (lazy inputs, no kernel namedtuple)
        views="critlab.analysis.views.mechanic",
        rule=rule,
        where=where,
    )
    # every parameter's default must make a legal spec (when none is required)
    if all(f.default is not None for f in fields.values()):
        system.make_spec()
    register(system)
    return system


__all__ = [
    "Bool",
    "Choice",
    "Dice",
    "Int",
    "Mechanic",
    "MechanicError",
    "choose",
    "MechanicSpec",
    "Pool",
    "declared",
    "fill_params",
    "mechanic",
    "named_params",
    "param",
    "pool",
    "resolve",
]
