"""What a rule system returns: an exact result and a simulated result, same shape.

Both carry the system name, the spec's parameters, the fixed outcome labels, numeric
distributions by name and metrics by name; :meth:`to_json` gives the documented JSON.
Exact probabilities stay numpy floats until :meth:`to_frame` (the pandas boundary).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a frame is made: start-up stays fast
    import pandas as pd

from critlab.analysis.dist import Dist
from critlab.analysis.tally import Tally
from critlab.analysis.text.digits import plain


def json_number(x: Any) -> float | None:
    """A number as JSON writes it: a float, or ``None`` for ``None`` and NaN.

    >>> json_number(2), json_number(float("nan")), json_number(None)
    (2.0, None, None)
    """
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def _keyed(probs: Mapping[Any, float], labels: tuple[str, ...] | None) -> dict[str, float]:
    """A distribution's JSON: ``{value: p}`` with its ``tail``, or for a distribution over
    class indices 0..n-1 with ``labels``, ``{label: p}`` over every label, zeros included
    (its labels are all its values, so it has no tail)."""
    if labels is None:
        return {str(v): p for v, p in probs.items()}
    return {lab: float(probs.get(i, 0.0)) for i, lab in enumerate(labels)}


# A distribution of more values than this is capped in exact --json (a weapon's life at
# Condition 1000 has 22,291): a reader wants its shape, not 800 KB of 1e-300s.
JSON_BINS = 1000
ALL_BINS_HELP = (
    f"with --json, every value of every distribution (by default one of more than {JSON_BINS} values "
    f"lists the {JSON_BINS} consecutive values holding the most probability, the others' mass in its tail)"
)
CAPPED = (
    f"--json lists the {JSON_BINS} consecutive ones holding the most probability, the others' mass in its "
    "tail (--all-bins: all)"
)


def cap_bins(distributions: dict[str, Any], most: int = JSON_BINS) -> dict[str, int]:
    """Cap each ``{value: p, ..., "tail": p}`` of more than ``most`` values, in place, to
    the ``most`` consecutive values holding the most probability, the others' mass added
    to its ``tail`` (so it still sums to 1); ``{name: values it had}`` of those capped.

    >>> d = {"x": {**{str(v): 0.001 for v in range(1000)}, "1000": 0.0, "tail": 0.0}}
    >>> cap_bins(d, most=10), len(d["x"]), d["x"]["tail"]
    ({'x': 1001}, 11, 0.99)
    """
    capped = {}
    for name, dist in distributions.items():
        if not isinstance(dist, dict) or "tail" not in dist or len(dist) - 1 <= most:
            continue
        values = sorted(int(k) for k in dist if k != "tail")
        probs = [dist[str(v)] for v in values]
        window = [math.fsum(probs[:most])]
        for i in range(most, len(probs)):  # slide by one: the window's mass, updated
            window.append(window[-1] + probs[i] - probs[i - most])
        start = max(range(len(window)), key=window.__getitem__)
        kept = values[start : start + most]
        rest = math.fsum(p for v, p in zip(values, probs, strict=True) if not kept[0] <= v <= kept[-1])
        distributions[name] = {**{str(v): dist[str(v)] for v in kept}, "tail": dist["tail"] + rest}
        capped[name] = len(values)
    return capped


@dataclass(frozen=True)
class ExactResult:
    """The exact distribution of a spec: outcome probabilities, distributions, metrics.

    ``distributions`` values may be ``None`` where docs/rules.md reports ``null``.
    ``value_labels`` names the values of a distribution over classes (0..n-1, e.g. one
    resister's outcome): its JSON is keyed by those labels.
    """

    system: str
    params: Mapping[str, Any]
    labels: tuple[str, ...]
    probs: np.ndarray
    distributions: Mapping[str, Dist | None] = field(default_factory=dict)
    metrics: Mapping[str, float | None] = field(default_factory=dict)
    value_labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.labels) != len(self.probs):
            raise ValueError("one probability per outcome label")
        total = float(np.sum(self.probs))
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"outcome probabilities of {self.system} sum to {total!r}, not 1")

    @property
    def outcomes(self) -> dict[str, float]:
        """``{label: probability}`` over every label, zeros included."""
        return {lab: float(p) for lab, p in zip(self.labels, self.probs, strict=True)}

    def to_json(self) -> dict[str, Any]:
        """The documented JSON (``critlab exact --json``), every number at most 15
        significant digits (:mod:`critlab.analysis.text.digits`)."""
        return plain(self._json())

    def _json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "params": dict(self.params),
            "outcomes": self.outcomes,
            "distributions": {
                k: (None if d is None else _keyed(d.to_dict(tail=True), self.value_labels.get(k)))
                for k, d in self.distributions.items()
            },
            "metrics": {k: json_number(v) for k, v in self.metrics.items()},
        }

    def __repr__(self) -> str:
        from critlab.analysis.display.dist import short

        return short("ExactResult", self.system, self.outcomes)

    def _repr_html_(self) -> str:
        """In a notebook: the outcomes in percent, the distributions and metrics."""
        from critlab.analysis.display.results import exact_html

        return exact_html(self)

    def plot(self, ax: Any = None) -> Any:
        """The outcome probabilities as bars, each label in its semantic colour; the Axes."""
        from critlab.analysis.display.results import plot_outcomes

        return plot_outcomes(self.outcomes, ax=ax, title=self.system)

    def to_frame(self) -> pd.DataFrame:
        """Outcome probabilities as a tidy DataFrame (``outcome``, ``probability``)."""
        import pandas as pd

        return pd.DataFrame({"outcome": list(self.labels), "probability": np.asarray(self.probs, float)})


@dataclass(frozen=True)
class SimResult:
    """A simulation of a spec: the tally plus metrics estimated from it."""

    system: str
    params: Mapping[str, Any]
    tally: Tally
    metrics: Mapping[str, float | None] = field(default_factory=dict)
    # distributions the exact result reports but a per-trial simulation does not tally
    # (e.g. a weapon's life); they appear as null so both JSONs have the same keys
    unsimulated: tuple[str, ...] = ()
    value_labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # as in ExactResult

    @classmethod
    def of(
        cls, exact: ExactResult, tally: Tally, metrics: Mapping[str, float | None], **fields: Any
    ) -> SimResult:
        """The simulated result of the spec whose exact result is ``exact``: same system,
        params and distribution names (those not tallied are reported as null); a
        subclass's own ``fields`` as keywords."""
        unsimulated = tuple(k for k in exact.distributions if k not in tally.hists)
        return cls(
            exact.system, dict(exact.params), tally, dict(metrics), unsimulated, exact.value_labels, **fields
        )

    @property
    def labels(self) -> tuple[str, ...]:
        return self.tally.labels

    @property
    def trials(self) -> int:
        return self.tally.trials

    @property
    def seed(self) -> int:
        return self.tally.seed

    @property
    def outcomes(self) -> dict[str, float]:
        return {lab: float(f) for lab, f in zip(self.labels, self.tally.frequencies, strict=True)}

    def to_json(self) -> dict[str, Any]:
        """The documented JSON (``critlab simulate --json``), every number at most 15
        significant digits (:mod:`critlab.analysis.text.digits`)."""
        return plain(self._json())

    def _json(self) -> dict[str, Any]:
        t = self.tally
        return {
            "system": self.system,
            "params": dict(self.params),
            "trials": t.trials,
            "seed": t.seed,
            "outcomes": self.outcomes,
            "counts": {lab: int(c) for lab, c in zip(self.labels, t.counts, strict=True)},
            "standard_errors": {lab: float(s) for lab, s in zip(self.labels, t.standard_errors, strict=True)},
            "distributions": {
                **{
                    # over the histogram's own draws: the trials, or the weapon lives
                    k: _keyed(h.frequencies(h.total or t.trials, tail=True), self.value_labels.get(k))
                    for k, h in t.hists.items()
                },
                **dict.fromkeys(self.unsimulated),
            },
            "metrics": {k: json_number(v) for k, v in self.metrics.items()},
        }

    def __repr__(self) -> str:
        from critlab.analysis.display.dist import short

        return short("SimResult", self.system, self.outcomes, f" ({self.trials} trials, seed {self.seed})")

    def _repr_html_(self) -> str:
        """In a notebook: the frequencies in percent with standard errors, the metrics."""
        from critlab.analysis.display.results import sim_html

        return sim_html(self)

    def plot(self, ax: Any = None) -> Any:
        """The outcome frequencies as bars with 95% error bars, in the project's colours;
        the Axes."""
        from critlab.analysis.display.results import plot_outcomes

        se = dict(zip(self.labels, self.tally.standard_errors, strict=True))
        return plot_outcomes(self.outcomes, ax=ax, title=f"{self.system} (simulated)", se=se)

    def to_frame(self) -> pd.DataFrame:
        """Outcome frequencies with standard errors and Wilson intervals."""
        return self.tally.to_frame()
