"""Quantities a designer asks about: an outcome, a sum of outcomes, or a metric.

A quantity is named by text, in snake or kebab case:

- an outcome label of the spec's mode (``crit``), its exact probability;
- distinct labels of that mode joined by ``+`` (``hit+crit``), the sum of their probabilities;
- a metric (``expected_damage``, ``expected-damage``), its exact value (``None`` when null).

With fight parameters (``hp``, and optionally ``attacks_per_round`` and ``max_rounds``)
the fight's labels (``defeated``, ``undecided``) and metrics (``median_rounds``, ...) are
quantities too, computed by :func:`critlab.analysis.fight.exact.fight`. The attack's own
quantities come first, so a name both use means the attack's.

Tuning, sensitivity and balance checks all read quantities through :class:`Quantity`;
bounds are compared with :data:`TOLERANCE` (:func:`within`).

>>> from critlab.analysis.systems import get_system
>>> system = get_system("crit-range")
>>> spec = system.make_spec(attack_bonus=5, evasion=15, crit_range=2)
>>> q = Quantity(system, "hit+crit")
>>> round(q.value(spec), 12)        # naturals 10..20: 11/20
0.55
>>> Quantity(system, "expected-damage").name
'expected_damage'
>>> within(0.09750000000000003, None, 0.0975)
True
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from critlab.analysis.design.points import Stop
from critlab.analysis.fight.model import FIGHT_NAMES
from critlab.analysis.spec import Spec, SpecError
from critlab.analysis.spec_error import quoted

# Bounds and targets are compared this loosely: exact probabilities carry float rounding
# (0.09750000000000003 is 39/400 computed), never a real difference this small.
TOLERANCE = 1e-12
# A fight's parameters, which are not the attack's (declared once, by the fight's model).
FIGHT_PARAMS = FIGHT_NAMES


class QuantityError(Stop):
    """A quantity that the spec does not report (names it and lists what is reported):
    an error of the question, so a loop over points stops at it."""


def snake(name: str) -> str:
    """A parameter or quantity name in snake case (``attack-bonus`` -> ``attack_bonus``).

    >>> snake(" fumble-reroll-hit ")
    'fumble_reroll_hit'
    """
    return name.strip().replace("-", "_")


def within(value: float | None, lo: float | None, hi: float | None) -> bool:
    """Whether ``value`` is in ``[lo, hi]`` (either bound may be absent), allowing
    :data:`TOLERANCE`; a null value is never within.

    >>> within(0.07, 0.07 + 1e-13, None), within(None, None, 1.0), within(0.5, 0.6, None)
    (True, False, False)
    """
    if value is None or math.isnan(value):
        return False
    if lo is not None and value < lo - TOLERANCE:
        return False
    return hi is None or value <= hi + TOLERANCE


def fight_params_of(system: Any) -> tuple[str, ...]:
    """The fight parameters a system's command line and configurations take: those of
    :data:`FIGHT_PARAMS` that are not already parameters of its spec (a contest's own
    ``max_rounds`` stays the contest's)."""
    fields = {f.name for f in dataclasses.fields(system.spec)}
    return tuple(n for n in FIGHT_PARAMS if n not in fields) if "hp" not in fields else ()


def split_fight(system: Any, params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``params`` split into the spec's and the fight's (an empty dict: no fight).

    A fight parameter without ``hp`` is an error naming it.
    """
    names = fight_params_of(system)
    spec_params = {k: v for k, v in params.items() if k not in names}
    fight = {k: v for k, v in params.items() if k in names}
    if fight and "hp" not in fight:
        first = next(iter(fight))
        raise SpecError(
            first, fight[first], "is a fight parameter: give hp as well (the target's hit points)"
        )
    return spec_params, fight


def check_fight(fight: Mapping[str, Any]) -> None:
    """The fight's own parameters checked up front (a SpecError naming the bad one); a
    varied ``hp`` may be left out."""
    try:
        from critlab.analysis.fight.exact import Fight
    except ImportError:
        return
    Fight(**{"hp": 1, **fight})


def run_fight(spec: Spec, fight: Mapping[str, Any]) -> Any:
    """The exact fight of ``spec``'s attack (an ExactResult-like result)."""
    try:
        from critlab.analysis.fight.exact import fight as _fight
    except ImportError:
        raise QuantityError(
            "fight quantities (hp = ...) need critlab.analysis.fight.exact, which is not installed here"
        ) from None
    return _fight(spec, **fight)


@dataclass(frozen=True)
class _Resolved:
    """A quantity resolved against one set of labels and metric names."""

    name: str
    source: str  # "attack" or "fight"
    indices: tuple[int, ...] | None  # outcome label positions; None for a metric
    metric: str | None


def _outcome_probs(result: Any) -> Any:
    probs = getattr(result, "probs", None)
    return probs if probs is not None else list(result.outcomes.values())


class Quantity:
    """A named quantity of a rule system, resolved per mode (labels differ between modes).

    ``value(spec, fight)`` computes it exactly; ``value_of(result, fight_result)`` reads it
    off results already computed. An unknown name raises :class:`QuantityError` listing
    the outcomes and metrics reported.
    """

    def __init__(self, system: Any, text: str) -> None:
        if not isinstance(text, str) or not text.strip():
            raise QuantityError(f"a quantity must be named, got {quoted(text)}")
        self.system = system
        self.text = text
        self.parts = tuple(snake(p) for p in text.split("+"))
        if any(not p for p in self.parts):
            raise QuantityError(f"quantity {quoted(text)}: an empty name between '+' signs")
        seen = [p for i, p in enumerate(self.parts) if p in self.parts[:i]]
        if seen:
            raise QuantityError(
                f"quantity {quoted(text)} names {seen[0]} twice: join distinct labels with '+'"
            )
        self.name = "+".join(self.parts)
        self._cache: dict[tuple, _Resolved | None] = {}

    def __repr__(self) -> str:
        return f"Quantity({self.system.name!r}, {self.name!r})"

    # -- resolution --------------------------------------------------------------------------
    def _match(self, labels: tuple[str, ...], metrics: tuple[str, ...], source: str) -> _Resolved | None:
        index = {snake(lab): i for i, lab in enumerate(labels)}
        if len(self.parts) > 1 or self.parts[0] in index:
            if all(p in index for p in self.parts):
                return _Resolved(self.name, source, tuple(index[p] for p in self.parts), None)
            return None
        names = {snake(m): m for m in metrics}
        if self.parts[0] in names:
            return _Resolved(self.name, source, None, names[self.parts[0]])
        return None

    def resolve(self, result: Any, fight_result: Any = None) -> _Resolved:
        """Where this quantity is in ``result`` (or in ``fight_result``), or a QuantityError."""
        key = (tuple(result.labels), tuple(result.metrics), fight_result is not None)
        if key not in self._cache:
            found = self._match(key[0], key[1], "attack")
            if found is None and fight_result is not None:
                found = self._match(tuple(fight_result.labels), tuple(fight_result.metrics), "fight")
            self._cache[key] = found
        found = self._cache[key]
        if found is None:
            raise QuantityError(self._unknown(result, fight_result))
        return found

    def _unknown(self, result: Any, fight_result: Any) -> str:
        what = "outcomes" if len(self.parts) > 1 else "quantity"
        lines = [
            f"unknown {what} {quoted(self.text)} for {self.system.name}",
            f"outcomes: {', '.join(result.labels)} (or several joined by '+')",
            f"metrics: {', '.join(result.metrics) or 'none'}",
        ]
        if fight_result is not None:
            lines.append(
                f"fight outcomes: {', '.join(fight_result.labels)}; "
                f"fight metrics: {', '.join(fight_result.metrics)}"
            )
        elif fight_params_of(self.system):
            lines.append("with hp given, the fight's outcomes and metrics too")
        return "; ".join(lines)

    # -- values ------------------------------------------------------------------------------
    def needs_fight(self, result: Any, fight: Mapping[str, Any] | None, spec: Spec) -> Any:
        """The fight result when this quantity is the fight's (computed only then)."""
        if not fight:
            return None
        try:
            self.resolve(result)
            return None
        except QuantityError:
            return run_fight(spec, fight)

    def value_of(self, result: Any, fight_result: Any = None) -> float | None:
        """The quantity's value in results already computed (``None`` when null)."""
        where = self.resolve(result, fight_result)
        source = result if where.source == "attack" else fight_result
        if where.metric is not None:
            v = source.metrics[where.metric]
            if v is None:
                return None
            v = float(v)
            return None if math.isnan(v) else v
        probs = _outcome_probs(source)
        return float(sum(probs[i] for i in where.indices))

    def read(self, model: Any) -> float | None:
        """The quantity's value at ``model`` (any :class:`~critlab.analysis.model.Model`),
        looked up in its exact results in order (a fight's attack first: its fight is
        computed only for a quantity of the fight's); a QuantityError where none has it."""
        seen = []
        for result in model.answers():
            seen.append(result)
            found = self._match(tuple(result.labels), tuple(result.metrics), "attack")
            if found is not None:
                return self.value_of(result) if len(seen) == 1 else self.value_of(seen[0], result)
        raise QuantityError(self._unknown(seen[0], seen[1] if len(seen) > 1 else None))

    def value(self, spec: Spec, fight: Mapping[str, Any] | None = None) -> float | None:
        """The quantity's exact value at ``spec`` (with ``fight``: hp, ... of a fight)."""
        result = self.system.exact(spec)
        return self.value_of(result, self.needs_fight(result, fight, spec))

    def is_probability(self, spec: Spec) -> bool:
        """Whether the quantity is a probability (an outcome, outcomes joined, a ``p_``
        metric; a fight's own outcomes), shown to people in percent, else an amount."""
        try:
            where = self.resolve(self.system.exact(spec))
        except QuantityError:  # the fight's: its outcomes and p_ metrics are probabilities
            return is_probability_name(self.name, ("defeated", "undecided"))
        return where.indices is not None or str(where.metric).startswith("p_")

    def is_probability_at(self, model: Any) -> bool:
        """:meth:`is_probability` at ``model``'s spec (a system's model or its fight's)."""
        return self.is_probability(model.spec())


def is_probability_name(name: str, labels: Iterable[str]) -> bool:
    """Whether a quantity named ``name`` is a probability among outcome ``labels``: one of
    them, several joined by ``+``, or a ``p_`` metric.

    >>> is_probability_name("a_wins+draw", ("a_wins", "draw")), is_probability_name("mean_rounds", ())
    (True, False)
    """
    known = set(labels)
    return all(p in known for p in name.split("+")) or name.startswith("p_")


def quantities_of(result: Any, fight_result: Any = None) -> list[tuple[str, str, str]]:
    """Every quantity a result reports, in order: ``(name, kind, source)`` for each outcome
    label, then each metric (kind ``outcome`` or ``metric``; source ``attack`` or ``fight``)."""
    out = [(lab, "outcome", "attack") for lab in result.labels]
    out += [(m, "metric", "attack") for m in result.metrics]
    if fight_result is not None:
        known = {name for name, _, _ in out}
        out += [(lab, "outcome", "fight") for lab in fight_result.labels if lab not in known]
        out += [(m, "metric", "fight") for m in fight_result.metrics if m not in known]
    return out


__all__ = [
    "FIGHT_PARAMS",
    "TOLERANCE",
    "Quantity",
    "QuantityError",
    "check_fight",
    "fight_params_of",
    "quantities_of",
    "run_fight",
    "snake",
    "split_fight",
    "within",
]
