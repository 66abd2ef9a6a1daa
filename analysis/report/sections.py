"""The shapes of a report configuration once read: a sweep's axes and section, a
validation section, a system's block of sections, and the whole report
(:func:`critlab.analysis.report.config.load_config` builds them).

A sweep section is over a system's spec (``base_specs``, its fight) or over any other
:class:`~critlab.analysis.model.Model` (``model``: an encounter's, each point
``model.at(**point)``); both run, draw, tabulate and summarise alike
(:mod:`critlab.analysis.report.build`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from critlab.analysis.report.reading import ConfigError
from critlab.analysis.spec import Spec


@dataclass(frozen=True)
class Axis:
    """One axis of a sweep: a swept parameter, or a named set of variants (a weapon table)."""

    name: str
    values: tuple[Any, ...]
    variant: bool = False


@dataclass(frozen=True)
class SweepSection:
    """An ``outcomes_by`` or ``metric_by`` section: exact values over a grid."""

    system: str
    id: str
    key: str
    kind: str
    title: str
    note: str
    grid: Mapping[str, tuple[Any, ...]]
    axes: tuple[Axis, ...]
    # variant name (None without variants) -> the spec of the grid's first point
    base_specs: Mapping[str | None, Spec]
    n_points: int
    outcomes: tuple[str, ...]
    metrics: tuple[str, ...]
    chart: str
    table: str
    sum: bool
    label: str
    log_y: bool
    x_label: str
    y_label: str
    lead: Mapping[str, Any] = field(default_factory=dict)  # a comparison to open with
    headline: bool = False  # its first sentence heads the page's findings
    cumulative: str = ""  # "worse": each outcome shown as P(it or any later label)
    cumulative_of: tuple[str, ...] = ()  # the system's labels in order (cumulative only)
    fight: Mapping[str, int] = field(default_factory=dict)  # hp, ...: each point a fight
    # a section over a model (an encounter's): the model at the section's base point, each
    # grid point model.at(**point); its quantities in order (the probabilities among them
    # are its outcomes, the amounts its metrics), what the model is in words (a note) and
    # what summary.json records of it beside every section's keys
    model: Any = None
    quantities: tuple[str, ...] = ()
    about: str = ""
    facts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def plotted(self) -> tuple[str, ...]:
        """The quantities drawn: outcomes (or their sum) for outcomes_by, metrics for
        metric_by, a model's quantities in order."""
        if self.quantities:
            return self.quantities
        if self.kind == "metric_by":
            return self.metrics
        return (self.label,) if self.sum else self.outcomes


@dataclass(frozen=True)
class ValidationSection:
    """A ``validation`` section: one spec simulated and held against the exact engine."""

    system: str
    id: str
    key: str
    title: str
    note: str
    spec: Spec
    trials: int | None

    kind = "validation"


@dataclass(frozen=True)
class SystemBlock:
    name: str
    title: str
    note: str
    sections: tuple[SweepSection | ValidationSection, ...]


@dataclass(frozen=True)
class ReportConfig:
    """A checked configuration; every spec in it has been built and validated."""

    file: str
    name: str
    title: str
    description: str
    trials: int
    seed: int | None
    batches: int
    alpha: float
    systems: tuple[SystemBlock, ...] = field(default_factory=tuple)
    checks: tuple[Any, ...] = ()  # [[checks]]: balance goals (report.check: Check, of any model)
    encounters: tuple[SweepSection, ...] = ()  # [[encounters]]: sweeps over encounter models
    sha256: str = ""  # of the file's bytes, recorded in summary.json

    def with_overrides(self, *, trials: int | None = None, seed: int | None = None) -> ReportConfig:
        """The command line's ``--trials`` (every validation) and ``--seed``."""
        cfg = self
        if trials is not None:
            if trials < self.batches:
                raise ConfigError("command line", "--trials", f"must be at least batches = {self.batches}")
            blocks = tuple(
                dataclasses.replace(
                    b,
                    sections=tuple(
                        dataclasses.replace(s, trials=None) if isinstance(s, ValidationSection) else s
                        for s in b.sections
                    ),
                )
                for b in cfg.systems
            )
            cfg = dataclasses.replace(cfg, trials=trials, systems=blocks)
        if seed is not None:
            cfg = dataclasses.replace(cfg, seed=seed)
        return cfg
