"""A mechanic's declaration as the engines read it (:class:`Rule`): its labels, values,
parameters, inputs and choices, its compiled form (made on first use), and its exact
results and best plays, cached per spec."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from critlab.analysis.dice.notation import parse
from critlab.analysis.mechanic.choices import Objective, parse_objective
from critlab.analysis.mechanic.compile import Compiled, MechanicError, compile_rule, rewrite
from critlab.analysis.mechanic.loops import INTERRUPT
from critlab.analysis.mechanic.pools import Pool
from critlab.analysis.results import ExactResult
from critlab.analysis.spec import Spec, SpecError
from critlab.kernels.mechanic import MAX_POOL_DICE

# A parameter named in an input's dice: braces around a name alone (other braces are the
# notation's own: listed faces d{1,1,2}, groups {1d8!, 1d6!}kh1).
_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def named_params(template: str) -> list[str]:
    """The parameters an input's dice name, in order.

    >>> named_params("{dice}d{1,1,2}+{bonus}")
    ['dice', 'bonus']
    """
    return _FIELD.findall(template)


def fill_params(template: str, values: Mapping[str, Any]) -> str:
    """An input's dice with its parameters' values written in.

    >>> fill_params("{dice}d{1,1,2}", {"dice": 3})
    '3d{1,1,2}'
    """
    return _FIELD.sub(lambda m: str(values[m.group(1)]), template)


class Rule:
    """A mechanic's declaration, its compiled form (made on first use) and a cache of
    exact results."""

    def __init__(
        self,
        fn: Callable[..., Any],
        labels: Sequence[str],
        values: Sequence[str],
        params: Mapping[str, dataclasses.Field],
        inputs: Mapping[str, str],
        name: str,
        objective: str | None = None,
    ) -> None:
        self.fn, self.name = fn, name
        self.labels, self.values = tuple(labels), tuple(values)
        self.params, self.inputs = dict(params), dict(inputs)
        self.pools = tuple(name for name, given in self.inputs.items() if isinstance(given, Pool))
        self.rewritten = rewrite(fn, tuple(self.inputs), tuple(self.params), self.labels, self.pools)
        self.sites = self.rewritten.sites  # its choose calls
        self.objective: Objective | None = None
        if self.sites and objective is None:
            raise MechanicError(
                f"{name}: it chooses ({', '.join(s.name for s in self.sites)}); declare what its choices "
                f"maximise: objective='{'+'.join(self.labels[-1:])}' (labels) or "
                f"objective='mean:VALUE' (a value{': ' + ', '.join(self.values) if self.values else ''})"
            )
        if objective is not None:
            if not self.sites:
                raise MechanicError(
                    f"{name}: objective= is for a rule that chooses, and it never calls choose"
                )
            self.objective = parse_objective(objective, self.labels, self.values)
        self._compiled: Compiled | None = None
        self.last_walk: dict[str, int] = {}  # the last exact walk's cost (see mechanic_exact)
        self._exact: dict[Spec, ExactResult] = {}
        self._solved: dict[Spec, Any] = {}

    def input_texts(self, spec: Spec) -> tuple[str, ...]:
        """Each input's dice expression for ``spec`` (its parameters filled in), every one
        checked as dice notation (a pool's ``NdX``)."""
        return tuple(text for text, _, _ in self.rolls(spec))

    def rolls(self, spec: Spec) -> tuple[tuple[str, int | None, str], ...]:
        """``(text, dice, die)`` of each input for ``spec``: its dice expression with the
        parameters filled in, a pool's number of dice (None for a value) and what one roll
        of it is (the whole expression, or one of a pool's dice), every one checked."""
        values = {name: getattr(spec, name) for name in self.params}
        out = []
        for name, given in self.inputs.items():
            template = given.text if isinstance(given, Pool) else given
            text = fill_params(template, values)
            try:
                if isinstance(given, Pool):
                    n, die = given.count_and_die(text)
                else:
                    n, die = None, text
                    parse(text)
            except ValueError as exc:
                used = named_params(template)
                if not used:
                    raise MechanicError(f"{self.name}: input {name} = {template!r}: {exc}") from None
                raise SpecError(used[0], values[used[0]], f"makes input {name} = {text!r}: {exc}") from None
            out.append((text, n, die))
        in_pools = sum(n for _, n, _ in out if n is not None)
        if in_pools > MAX_POOL_DICE:
            templates = [self.inputs[p].text for p in self.pools]
            named = [f for t in templates for f in named_params(t)]
            why = f"makes its pools {in_pools} dice in all; they hold at most {MAX_POOL_DICE}"
            if named:
                raise SpecError(named[0], values[named[0]], why)
            raise MechanicError(f"{self.name}: {why}")
        return tuple(out)

    def param_values(self, spec: Spec, policy: Any = None) -> tuple[Any, ...]:
        """The rule's parameter arguments for ``spec``, in declaration order, then (a
        choosing rule's) its policy, ``policy`` or the spec's best play
        (:meth:`solved`), and its stop flag last
        (:data:`~critlab.analysis.mechanic.loops.INTERRUPT`)."""
        values = tuple(getattr(spec, name) for name in self.params)
        if not self.sites:
            return (*values, INTERRUPT)
        return (*values, (self.solved(spec).policy if policy is None else policy).table, INTERRUPT)

    def solved(self, spec: Spec, sups: Any = None) -> Any:
        """A choosing rule's best play for ``spec``
        (:class:`~critlab.analysis.mechanic.policy.Solved`, cached per spec)."""
        from critlab.analysis.mechanic.exact import solve

        if spec not in self._solved:
            if len(self._solved) >= 256:
                self._solved.clear()
            self._solved[spec] = solve(self, spec, sups)
        return self._solved[spec]

    def compiled(self, params: tuple[Any, ...]) -> Compiled:
        """The rule compiled (once, on first use) for parameter values like ``params``
        (their types: integers, bools and text)."""
        if self._compiled is None:
            from critlab.analysis.mechanic.cache import cache_for

            cache = cache_for(self, params)
            objective = None if self.objective is None else (self.objective.value,)
            self._compiled = compile_rule(self.fn, self.rewritten, params, self.values, cache, objective)
        return self._compiled

    def exact(self, spec: Spec) -> ExactResult:
        """The exact result of ``spec`` (cached per spec)."""
        from critlab.analysis.mechanic.exact import exact

        if spec not in self._exact:
            if len(self._exact) >= 256:
                self._exact.clear()
            self._exact[spec] = exact(self, spec)
        return self._exact[spec]
