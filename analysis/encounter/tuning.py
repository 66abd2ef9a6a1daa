"""An encounter's settings as parameters: tune and sensitivity over an encounter file.

The settings are ``order``, ``max_rounds``, ``a.targeting``, ``b.targeting``, and per
combatant ``NAME.hp``, ``NAME.attacks``, ``NAME.initiative``, ``NAME.PARAM`` (a parameter
of its attack) and ``NAME.defense.PARAM``. Its quantities are an outcome label
(``a_wins``), labels joined by ``+`` (``a_wins+draw``) or a metric (``p_down_fighter``).

:func:`tune_encounter` computes every point of a grid exactly (refused points skipped and
counted) and returns the ``top`` nearest the target; :func:`sensitivity_encounter` every
outcome and metric at each integer setting -1 and +1.

>>> from critlab.analysis.encounter.declare import Combatant, Encounter, Side
>>> from critlab.analysis.systems import get_system
>>> spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
>>> hero, ogre = Combatant("hero", 10, spec), Combatant("ogre", 10, spec)
>>> enc = Encounter(Side((hero,)), Side((ogre,)), order="a-first")
>>> df = tune_encounter(enc, vary={"ogre.hp": range(4, 21)}, target=("a_wins", 0.75), top=2)
>>> list(df.columns), int(df["ogre.hp"].iloc[0]) < 10
(['ogre.hp', 'value', 'error'], True)
>>> with_settings(enc, {"hero.target_ac": 3}).combatants[0].attack.params["target_ac"]
3
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from typing import Any

from critlab.analysis.encounter.declare import (
    MAX_ATTACKS,
    MAX_HP,
    MAX_INITIATIVE,
    MAX_ROUNDS,
    ORDERS,
    TARGETING,
    Encounter,
    Side,
)
from critlab.analysis.encounter.exact import LABELS, exact_encounter
from critlab.analysis.encounter.work import check_encounter_grid
from critlab.analysis.params import Choice, Int, declared
from critlab.analysis.spec import SpecError
from critlab.analysis.work import narrowed, no_value

MAX_GRID = 10**5
DEFAULT_TOP = 5


def _combatant(enc: Encounter, name: str, setting: str) -> int:
    for k, c in enumerate(enc.combatants):
        if c.name == name:
            return k
    raise SpecError(
        setting, None, f"names no combatant; the encounter's: {', '.join(c.name for c in enc.combatants)}"
    )


def setting_kind(enc: Encounter, setting: str) -> tuple[str, Any]:
    """``("int", (lo, hi))``, ``("choice", choices)`` or ``("other", None)`` for one
    setting; a SpecError naming an unknown one."""
    if setting == "order":
        return "choice", ORDERS
    if setting in ("a.targeting", "b.targeting"):
        return "choice", TARGETING
    if setting == "max_rounds":
        return "int", (1, MAX_ROUNDS)
    name, _, rest = setting.partition(".")
    c = enc.combatants[_combatant(enc, name, setting)]
    bounds = {"hp": (1, MAX_HP), "attacks": (1, MAX_ATTACKS), "initiative": (-MAX_INITIATIVE, MAX_INITIATIVE)}
    if rest in bounds:
        return "int", bounds[rest]
    param = rest.removeprefix("defense.")
    if rest.startswith("defense."):
        systems = [
            o.attack.system for o in enc.combatants if (o in enc.a.combatants) != (c in enc.a.combatants)
        ]
    else:
        systems = [c.attack.system]
    for system in systems:
        if param in {f for f in system.spec.__dataclass_fields__}:
            kind = declared(system.spec).get(param)
            if kind is not None and isinstance(kind.kind, Int):
                return "int", (kind.kind.lo, kind.kind.hi)
            if kind is not None and isinstance(kind.kind, Choice):
                return "choice", kind.kind.choices
            return "other", None
    raise SpecError(
        setting, None, "is not a setting of this encounter (order, max_rounds, a.targeting, NAME.hp, ...)"
    )


def with_settings(enc: Encounter, settings: Mapping[str, Any]) -> Encounter:
    """A copy of ``enc`` with ``settings`` (``{"ogre.hp": 40, "order": "a-first"}``) changed,
    checked again."""
    top: dict[str, Any] = {}
    sides = {"a": enc.a, "b": enc.b}
    people = {c.name: c for c in enc.combatants}
    for setting, value in settings.items():
        setting_kind(enc, setting)  # unknown settings named first
        if setting in ("order", "max_rounds"):
            top[setting] = value
            continue
        if setting in ("a.targeting", "b.targeting"):
            s = setting[0]
            sides[s] = Side(sides[s].combatants, targeting=value)
            continue
        name, _, rest = setting.partition(".")
        c = people[name]
        if rest in ("hp", "attacks", "initiative"):
            people[name] = c.replace(**{rest: value})
        elif rest.startswith("defense."):
            people[name] = c.replace(defense={**c.defense, rest.removeprefix("defense."): value})
        else:
            attack = c.attack
            people[name] = c.replace(
                attack=type(attack)(
                    attack.system, {**attack.params, rest: value}, attack.reference, attack.is_mechanic
                )
            )
    a = Side(tuple(people[c.name] for c in sides["a"].combatants), targeting=sides["a"].targeting)
    b = Side(tuple(people[c.name] for c in sides["b"].combatants), targeting=sides["b"].targeting)
    return Encounter(
        a, b, order=top.get("order", enc.order), max_rounds=top.get("max_rounds", enc.max_rounds)
    )


def current(enc: Encounter, setting: str) -> Any:
    """A setting's value in ``enc`` (``None`` for an attack parameter left to its default)."""
    if setting in ("order", "max_rounds"):
        return getattr(enc, setting)
    if setting in ("a.targeting", "b.targeting"):
        return (enc.a if setting[0] == "a" else enc.b).targeting
    name, _, rest = setting.partition(".")
    c = enc.combatants[_combatant(enc, name, setting)]
    if rest in ("hp", "attacks", "initiative"):
        return getattr(c, rest)
    if rest.startswith("defense."):
        return c.defense.get(rest.removeprefix("defense."))
    return c.attack.params.get(rest)


def quantity_of(result: Any, quantity: str) -> float | None:
    """An outcome label, labels joined by ``+``, or a metric of an exact result."""
    parts = quantity.replace("-", "_").split("+")
    if all(p in LABELS for p in parts):
        if len(set(parts)) != len(parts):
            raise SpecError("quantity", quantity, "names a label twice")
        return float(sum(result.outcomes[p] for p in parts))
    key = quantity.replace("-", "_")
    if len(parts) == 1 and key in result.metrics:
        return result.metrics[key]
    known = ", ".join([*LABELS, *result.metrics])
    raise SpecError("quantity", quantity, f"is not an outcome or metric of this encounter; known: {known}")


def tune_encounter(
    enc: Encounter, *, vary: Mapping[str, Iterable[Any]], target: tuple[str, float], top: int = DEFAULT_TOP
) -> Any:
    """The grid points of ``vary`` (setting -> values, the first varying slowest) whose
    exact quantity is nearest ``target`` (``(quantity, value)``), nearest first, ties in
    grid order: a DataFrame with the settings, ``value`` and ``error``; ``attrs`` hold
    ``points``, ``skipped`` (``refused`` by the rules or the chain, or with a ``null``
    quantity) and ``first_refusal``. A grid of which no point has a value is a SpecError
    naming the first refusal."""
    import pandas as pd

    quantity, goal = target
    quantity_of(exact_encounter(enc), quantity)  # a typo in the quantity, before the grid
    axes = []
    for setting, values in vary.items():
        kind, allowed = setting_kind(enc, setting)
        vals = tuple(itertools.islice(values, MAX_GRID + 1))
        if not vals or len(vals) > MAX_GRID:
            raise SpecError(setting, f"{len(vals)} values", f"needs 1..{MAX_GRID} values")
        for v in vals:
            if kind == "choice" and v not in allowed:
                raise SpecError(setting, v, "must be one of " + ", ".join(allowed))
            if kind == "int" and (isinstance(v, bool) or not isinstance(v, int)):
                raise SpecError(setting, v, "must be varied over integers, e.g. LO..HI")
        axes.append((setting, vals))
    n = math.prod(len(v) for _, v in axes)
    if n > MAX_GRID:
        raise SpecError("vary", f"{n} points", f"at most {MAX_GRID:,} points (narrow a range)")
    check_encounter_grid(enc, axes, n, with_settings)  # the grid's work, before any point
    rows, refused, null, first = [], 0, 0, None
    for combo in itertools.product(*(v for _, v in axes)):
        point = dict(zip((s for s, _ in axes), combo, strict=True))
        try:
            value = quantity_of(exact_encounter(with_settings(enc, point)), quantity)
        except SpecError as exc:
            refused += 1
            first = first or f"at {', '.join(f'{k}={v}' for k, v in point.items())}: {exc}"
            continue
        if value is None:
            null += 1
            continue
        rows.append({**point, "value": value, "error": value - goal})
    if not rows:  # every point skipped: the grid answers nothing
        raise no_value(n, refused, null, quantity, first)
    rows.sort(key=lambda r: round(abs(r["error"]), 12))  # stable: ties in grid order
    df = pd.DataFrame(rows[:top], columns=[*(s for s, _ in axes), "value", "error"])
    df.attrs.update(
        target={"quantity": quantity, "value": float(goal)},
        points=n,
        skipped=refused + null,
        refused=refused,
        null=null,
        first_refusal=first,
    )
    return df


def integer_settings(enc: Encounter) -> list[str]:
    """Every integer setting of ``enc`` that has a value, in file order: ``max_rounds``,
    then each combatant's ``hp``, ``attacks``, ``initiative``, its attack's integer
    parameters and its defense's."""
    out = ["max_rounds"]
    for c in enc.combatants:
        out += [f"{c.name}.hp", f"{c.name}.attacks", f"{c.name}.initiative"]
        for p, v in c.attack.params.items():
            if (
                isinstance(v, int)
                and not isinstance(v, bool)
                and setting_kind(enc, f"{c.name}.{p}")[0] == "int"
            ):
                out.append(f"{c.name}.{p}")
        for p, v in c.defense.items():
            if isinstance(v, int) and not isinstance(v, bool):
                out.append(f"{c.name}.defense.{p}")
    return out


def sensitivity_encounter(
    enc: Encounter, *, only: Iterable[str] | None = None, quantities: Iterable[str] | None = None
) -> Any:
    """Every outcome and metric at ``enc`` and at each integer setting -1 and +1 (``None``
    where the rules or the chain refuse the neighbour): a DataFrame with ``param``,
    ``quantity``, ``at``, ``minus_1``, ``plus_1``. ``only`` narrows the settings (so a
    large encounter's fits the work budget), ``quantities`` the outcomes and metrics."""
    import pandas as pd

    settings = narrowed(integer_settings(enc), only, "an integer setting of this encounter")
    # each neighbour costs about what the encounter does: one setting one step away
    check_encounter_grid(enc, [], 1 + 2 * len(settings), with_settings, "encounter")
    base = exact_encounter(enc)
    names = [*LABELS, *base.metrics]
    if quantities is not None:
        names = narrowed(names, quantities, "an outcome or metric of this encounter", "quantities")
    rows = []
    for setting in settings:
        value = current(enc, setting)
        around = {}
        for step in (-1, 1):
            try:
                around[step] = exact_encounter(with_settings(enc, {setting: value + step}))
            except SpecError:
                around[step] = None
        for q in names:
            rows.append(
                {
                    "param": setting,
                    "quantity": q,
                    "at": quantity_of(base, q),
                    "minus_1": None if around[-1] is None else quantity_of(around[-1], q),
                    "plus_1": None if around[1] is None else quantity_of(around[1], q),
                }
            )
    return pd.DataFrame(rows, columns=["param", "quantity", "at", "minus_1", "plus_1"])


__all__ = [
    "current",
    "integer_settings",
    "quantity_of",
    "sensitivity_encounter",
    "setting_kind",
    "tune_encounter",
    "with_settings",
]
