"""Two views of a sweep beyond one exact result per point.

- **Fights** (``fight = { hp = 30 }`` in a section): every grid point's attack fights a
  target of ``hp`` hit points (:func:`critlab.analysis.fight.exact.fight`, exact), and the
  section's labels and metrics are the fight's (``defeated``, ``mean_rounds``,
  ``p_defeated_by_round_1`` ...).
- **Cumulative outcomes** (``cumulative = "worse"``): each outcome of an ordered ladder
  shown as P(it or any later label), e.g. ``serious or worse``.

A fight's points are its model's (:class:`~critlab.analysis.fight.model.FightModel`), swept
as every section's (:func:`critlab.analysis.report.build.run_sweep`); the cumulative rows join
the same tidy frame (grid columns, ``kind``, ``name``, ``exact``), so the rest of a report
reads them as any sweep.

>>> frame = pd.DataFrame({"sm": [0, 0, 0], "kind": "outcome", "name": ["none", "graze", "mort"],
...                       "exact": [0.5, 0.3, 0.2]})
>>> out = add_cumulative(frame, ("none", "graze", "mort"), "worse", ["sm"])
>>> out[out["name"].str.endswith(" or worse")][["name", "exact"]].values.tolist()
[['graze or worse', 0.5], ['mort or worse', 0.2]]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from critlab.analysis.report.reading import shown
from critlab.analysis.spec import Spec, SpecError


def fight_table(r: Any) -> dict[str, int]:
    """A section's ``fight = { hp = 30, ... }`` (a configuration reader ``r``), its
    parameters checked up front; ``{}`` when the section has none."""
    table = r.get("fight", dict, {}, what="a table: hp, attacks_per_round, max_rounds")
    if not table:
        return {}
    from critlab.analysis.design.quantity import FIGHT_PARAMS, check_fight

    for k, v in table.items():
        if k not in FIGHT_PARAMS:
            raise r.error(f"fight.{k}", f"unknown fight parameter; fights take {', '.join(FIGHT_PARAMS)}")
        if not isinstance(v, int) or isinstance(v, bool):
            raise r.error(f"fight.{k}", f"must be an integer, got {shown(v)}")
    if "hp" not in table:
        raise r.error("fight", "give hp, the target's hit points")
    try:
        check_fight(table)
    except (SpecError, ValueError) as exc:
        raise r.error("fight", str(exc)) from None
    return dict(table)


def probe_point(system: Any, spec: Spec, r: Any) -> tuple[dict[str, int], Any]:
    """A section's fight (``{}`` for none) and the exact result of its first point (the
    fight's, for a fight), or the configuration error saying why the engine refused it."""
    fight = fight_table(r)
    try:
        return fight, system.exact(spec) if not fight else fight_probe(spec, fight)
    except (SpecError, ValueError) as exc:
        raise r.error(None, f"the exact engine rejects this section's first point: {exc}") from None


def cumulative_outcomes(
    r: Any, kind: str, labels: tuple[str, ...], outcomes: tuple[str, ...] | None
) -> tuple[str, tuple[str, ...]]:
    """A section's ``cumulative`` word ("" for none) and the outcomes it shows: without a
    list, every label (for a cumulative view, every label after the first), each named
    "<label> or <word>" in a cumulative view."""
    word = r.get("cumulative", str, "", what='a word, e.g. "worse"')
    if word and (kind != "outcomes_by" or not word.isalpha()):
        raise r.error(
            "cumulative", 'a word (e.g. "worse") in an outcomes_by section: P(each outcome or worse)'
        )
    if outcomes is None:
        outcomes = (labels[1:] if word else labels) if kind == "outcomes_by" else ()
    return word, tuple(f"{o} or {word}" for o in outcomes) if word else tuple(outcomes)


def fight_probe(spec: Spec, fight: Mapping[str, int]) -> Any:
    """The exact fight of ``spec``'s attack (a result with labels and metrics)."""
    from critlab.analysis.design.quantity import run_fight

    return run_fight(spec, fight)


def add_cumulative(tidy: pd.DataFrame, labels: tuple[str, ...], word: str, axes: list[str]) -> pd.DataFrame:
    """``tidy`` with a row ``"<label> or <word>"`` for every label after the first:
    the probability of that label or any later one, at each grid point."""
    out = tidy[(tidy["kind"] == "outcome") & tidy["name"].isin(labels)]
    if axes:
        wide = out.set_index([*axes, "name"])["exact"].unstack("name")
    else:
        wide = out.set_index("name")["exact"].to_frame().T
    wide = wide[list(labels)]
    tail = wide[wide.columns[::-1]].cumsum(axis=1)[wide.columns[::-1]]
    extra = []
    for label in labels[1:]:
        col = (
            tail[label].rename("exact").reset_index()
            if axes
            else pd.DataFrame({"exact": tail[label].to_numpy()})
        )
        extra.append(col.assign(kind="outcome", name=f"{label} or {word}"))
    return pd.concat([tidy, *extra], ignore_index=True)
