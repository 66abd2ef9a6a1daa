"""Encounters in a report configuration: ``[[encounters]]`` sections and encounter checks,
read and probed before any work: what is an encounter's own in reading them (its file, its
chain's bound, its budget's words); its settings, varied setting and quantities are read
over its model (:mod:`critlab.analysis.report.model_read`). A section is a
:class:`~critlab.analysis.report.sections.SweepSection` over the file's
:class:`~critlab.analysis.encounter.model.EncounterModel` (one axis, its quantities in
order), run, drawn and summarised as every sweep section is; a check is computed by the
model at its settings.

An encounter file (``critlab encounter FILE``) is named relative to the configuration's
folder. Its settings (``order``, ``max_rounds``, ``a.targeting``, ``NAME.hp``,
``NAME.PARAM``, ``NAME.defense.PARAM``; :mod:`critlab.analysis.encounter.settings`) are
changed by ``set`` (a section) or ``params`` (a check); a section varies one of them over
``vary``'s values and draws ``quantities`` (outcome labels, labels joined by ``+``, or
metrics) by it::

    [[encounters]]
    file = "party_vs_ogre.toml"
    vary = { "ogre.hp" = [20, 30, 40] }     # or "20..40", or { from = 20, to = 40, step = 10 }
    quantities = ["a_wins", "p_any_down_a"]
    set = { order = "a-first" }

Every point is built and its exact chain sized here: a bad file, setting, value or
quantity, more than :data:`MAX_ENCOUNTER_POINTS` points, a point over the chain's
10^7-state bound, or a section (or the checks together) whose estimated exact work passes
the shared budget (:mod:`critlab.analysis.work`, about two minutes) is one
:class:`~critlab.analysis.report.reading.ConfigError` naming the file and key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from critlab.analysis.encounter.exact import STATE_LIMIT, state_count
from critlab.analysis.encounter.model import EncounterModel, model_named
from critlab.analysis.report.check import Check, bound_text, read_bounds
from critlab.analysis.report.doc import fmt_value
from critlab.analysis.report.lead import check_lead
from critlab.analysis.report.model_read import apply, quantity_name, read_settings, read_vary
from critlab.analysis.report.reading import ConfigError, Reader, section_id, shown
from critlab.analysis.report.sections import Axis, SweepSection
from critlab.analysis.spec import SpecError
from critlab.analysis.spec_error import quoted
from critlab.analysis.text.numtext import one_line
from critlab.analysis.work import Work, check_budget

# Each point is a whole exact chain (up to 10^7 states): a section holds at most this many
# points, its estimated work within the shared budget (work.BUDGET).
MAX_ENCOUNTER_POINTS = 100
_SHRINK = "fewer values, or smaller encounters (lower hp, a fixed order)"
DEFAULT_QUANTITIES = ("a_wins", "p_any_down_a")
MAX_QUANTITIES = 8
SECTION_KEYS = ("file", "id", "title", "note", "vary", "quantities", "set", "lead", "headline")
CHECK_KEYS = ("name", "encounter", "params", "quantity", "min", "max")


@dataclass(frozen=True)
class EncounterQuantity:
    """A quantity of an encounter's model, as a check reads it."""

    name: str

    def read(self, model: EncounterModel) -> float | None:
        return model.value(self.name)

    def is_probability_at(self, model: EncounterModel) -> bool:
        return str(model.said(self.name)).startswith("P(")


# -- pieces ---------------------------------------------------------------------------------
def read_file(r: Reader, name: str) -> tuple[str, EncounterModel]:
    """The model of the encounter file named at ``name`` (relative to the configuration's folder)."""
    rel = r.get(name, str, None, what="an encounter file (a path ending in .toml)")
    if rel is None:
        raise r.error(name, 'name the encounter file, e.g. file = "party_vs_ogre.toml"')
    if not rel.endswith(".toml"):
        raise r.error(name, f"must be an encounter file ending in .toml, got {quoted(rel)}")
    try:
        return rel, model_named(rel, Path(r.file).parent)
    except OSError as exc:
        raise r.error(name, f"cannot read encounter file {rel}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise r.error(name, str(exc)) from None


def chain_states(model: EncounterModel, file: str, key: str, where: str = "") -> int:
    """The exact chain's states; over its bound, a ConfigError saying to simulate."""
    states, _ = state_count(model.spec())
    if states > STATE_LIMIT:
        raise ConfigError(
            file,
            key,
            f"{where}the exact chain would hold more than {STATE_LIMIT:,} states ({states:,} reached by "
            "then: each side's hit points reached, multiplied, times the initiative orders): lower the "
            "hit points, fix the order (a-first) or simulate the encounter (critlab encounter FILE "
            "--trials N)",
        )
    return states


# -- sections and checks ----------------------------------------------------------------------
def encounter_section(r: Reader, sid: str) -> SweepSection:
    """One ``[[encounters]]`` table read as a sweep over its encounter's model, every point
    built and sized."""
    r.only(SECTION_KEYS)
    rel, model = read_file(r, "file")
    fixed, keys = read_settings(r, "set", model)
    base = apply(model, fixed, r.file, keys)
    noun = f"an encounter section has 1..{MAX_ENCOUNTER_POINTS} points (each an exact chain)"
    setting, vkey, values = read_vary(r, base, fixed, MAX_ENCOUNTER_POINTS, noun)
    given = r.names("quantities")
    if given is not None and not 1 <= len(given) <= MAX_QUANTITIES:
        raise r.error("quantities", f"name 1..{MAX_QUANTITIES} quantities (or leave the key out)")
    quantities: list[str] = []
    for i, q in enumerate(given or DEFAULT_QUANTITIES):
        try:
            name = quantity_name(base, q)
        except SpecError as exc:
            raise r.error(f"quantities[{i + 1}]", str(exc)) from None
        if name in quantities:
            raise r.error(f"quantities[{i + 1}]", f"names {quoted(name)} twice")
        quantities.append(name)
    states, work = 0, []
    for i, v in enumerate(values):
        where = f"at {setting} = {v}: "
        point = apply(base, {setting: v}, r.file, {setting: f"{vkey}[{i + 1}]"}, where)
        states += chain_states(point, r.file, f"{vkey}[{i + 1}]", where)
        work.append(point.work())
    try:
        check_budget(Work(len(work), math.fsum(work) / len(work)), setting, _SHRINK)
    except SpecError as exc:
        raise ConfigError(r.file, vkey, str(exc)) from None
    said = "; ".join(f"{base.said(k)} {fmt_value(v)}" for k, v in fixed.items())
    probabilities = tuple(q for q in quantities if str(base.said(q)).startswith("P("))
    section = SweepSection(
        system="encounters",
        id=sid,
        key=r.key,
        kind="encounter",
        title=r.text("title") or f"{Path(rel).stem}: by {base.said(setting)}",
        note=r.text("note"),
        grid={setting: values},
        axes=(Axis(setting, values),),
        base_specs={None: base.spec()},
        n_points=len(values),
        outcomes=probabilities,
        metrics=tuple(q for q in quantities if q not in probabilities),
        chart="line",
        table="auto",
        sum=False,
        label="",
        log_y=False,
        x_label="",
        y_label="",
        lead=r.get("lead", dict, {}, what="a table: axis, from, to, at, quantity"),
        headline=r.get("headline", bool, False),
        model=base,
        quantities=tuple(quantities),
        about=one_line(f"Encounter file {rel}" + (f", with {said}" if said else "") + "."),
        facts={
            "encounter": rel,
            "vary": setting,
            "set": dict(fixed),
            "quantities": list(quantities),
            "states": states,
        },  # fmt: skip
    )
    check_lead(section, r)
    return section


def encounter_check(r: Reader, spent: list[float]) -> Check:
    """A ``[[checks]]`` table with ``encounter = "FILE"``: read, its chain sized, its
    estimated work added to the checks' before it (``spent``) within the shared budget."""
    r.only(CHECK_KEYS)
    rel, model = read_file(r, "encounter")
    settings, keys = read_settings(r, "params", model)
    model = apply(model, settings, r.file, keys)
    chain_states(model, r.file, r.sub("params") if settings else r.sub("encounter"))
    spent.append(model.work())  # computed once, in the report (the probe only sizes it)
    try:
        check_budget(Work(len(spent), math.fsum(spent) / len(spent)), "checks", _SHRINK)
    except SpecError as exc:
        raise r.error(None, f"with the checks before it, {exc}") from None
    text = r.get("quantity", str, None, what="a quantity name")
    if text is None:
        raise r.error(
            "quantity", "name the quantity: an outcome (a_wins), outcomes joined by '+', or a metric"
        )
    try:
        quantity = quantity_name(model, text)
    except SpecError as exc:
        raise r.error("quantity", str(exc)) from None
    lo, hi = read_bounds(r)
    name = r.text("name") or f"{rel}: {model.said(quantity)} {bound_text(lo, hi)}"
    return Check(name, r.key, {"encounter": rel}, model, settings, EncounterQuantity(quantity), lo, hi)


def parse_encounters(rows: Any, file: str) -> tuple[SweepSection, ...]:
    """The ``[[encounters]]`` tables (numbered from 1 in errors: ``encounters[2].vary``)."""
    if rows is None:
        return ()
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise ConfigError(file, "encounters", f"must be a list of tables [[encounters]], got {shown(rows)}")
    out: list[SweepSection] = []
    ids: set[str] = set()
    for i, row in enumerate(rows):
        r = Reader(file, row, f"encounters[{i + 1}]")
        out.append(encounter_section(r, section_id(r, ids, f"encounter-{i + 1}")))
    return tuple(out)


__all__ = [
    "MAX_ENCOUNTER_POINTS",
    "encounter_check",
    "parse_encounters",
]
