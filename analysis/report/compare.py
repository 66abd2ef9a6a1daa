""" "What changed": this report's metrics against an earlier summary.json.

An exact metric moved if it changed by more than :data:`EXACT_TOL` (exact numbers carry
no noise, so every such move is real). A simulated metric moved if its value differs
at all; the move is beyond simulation noise when ``|z| > NOISE_Z`` with
``z = (now − before) / sqrt(se_now² + se_before²)``.

>>> before = {"a": {"kind": "exact", "value": 0.5}, "b": {"kind": "simulated", "value": 0.1, "se": 0.01}}
>>> now = {"a": {"kind": "exact", "value": 0.5}, "b": {"kind": "simulated", "value": 0.2, "se": 0.01}}
>>> c = compare(now, before)
>>> c.no_change, c.changes[["key", "beyond_noise"]].values.tolist()
(False, [['b', True]])
>>> compare(now, now).no_change
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from critlab.analysis.report.config import ConfigError
from critlab.analysis.report.reading import shown
from critlab.analysis.spec_error import quoted
from critlab.analysis.text.digits import number
from critlab.analysis.text.documents import load_json

SUMMARY_FORMAT = "critlab-report-summary/1"
EXACT_TOL = 1e-12
# Beyond 4 combined standard errors a difference between two simulations is not noise:
# even over thousands of compared numbers, chance alone crosses it about once in 16,000.
NOISE_Z = 4.0

COLUMNS = ["key", "kind", "baseline", "baseline_se", "current", "current_se", "change", "z", "beyond_noise"]


@dataclass(frozen=True)
class Comparison:
    """Moved metrics (``changes``) plus metrics only in one of the two summaries."""

    baseline: str
    changes: pd.DataFrame
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def no_change(self) -> bool:
        return self.changes.empty and not self.added and not self.removed

    @property
    def beyond_noise(self) -> pd.DataFrame:
        return self.changes[self.changes["beyond_noise"]]

    def headline(self) -> str:
        """One sentence for the report's first lines."""
        if self.no_change:
            return f"Compared with baseline {self.baseline}: no change."
        exact = int((self.changes["kind"] == "exact").sum())
        sim = self.changes[self.changes["kind"] != "exact"]
        loud = int(sim["beyond_noise"].sum())
        parts = [
            f"{exact} exact number{'s' * (exact != 1)} changed",
            f"{loud} simulated number{'s' * (loud != 1)} moved beyond noise (|z| > {NOISE_Z:g})",
            f"{len(sim) - loud} within noise",
        ]
        if self.added or self.removed:
            parts.append(f"{len(self.added)} new, {len(self.removed)} no longer reported")
        return f"Compared with baseline {self.baseline}: " + "; ".join(parts) + "."

    def to_json(self) -> dict[str, Any]:
        def num(x: Any) -> Any:
            return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x

        return {
            "baseline": self.baseline,
            "no_change": self.no_change,
            "exact_changed": int((self.changes["kind"] == "exact").sum()),
            "simulated_beyond_noise": int(
                ((self.changes["kind"] != "exact") & self.changes["beyond_noise"]).sum()
            ),
            "simulated_within_noise": int(
                ((self.changes["kind"] != "exact") & ~self.changes["beyond_noise"]).sum()
            ),
            "added": self.added,
            "removed": self.removed,
            "changes": [
                {k: num(v) for k, v in row.items()} for row in self.changes.to_dict(orient="records")
            ],
        }


def load_baseline(path: str | Path) -> dict[str, Any]:
    """An earlier report's summary.json, checked enough to compare against."""
    file = str(path)
    try:
        data = load_json(Path(path), file, "--baseline", error=ConfigError)
    except OSError as exc:
        raise ConfigError(file, "--baseline", f"cannot read it: {exc.strerror or exc}") from None
    if (
        not isinstance(data, dict)
        or data.get("format") != SUMMARY_FORMAT
        or not isinstance(data.get("metrics"), dict)
    ):
        raise ConfigError(file, "--baseline", f"not a critlab report summary.json (format {SUMMARY_FORMAT})")
    # Every entry is checked now, before the report's work, not when it is compared after it.
    for key, entry in data["metrics"].items():
        problem = _bad_metric(entry)
        if problem:
            raise ConfigError(file, f"--baseline: metrics[{_short(key)}]", problem)
    return data


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _bad_metric(entry: Any) -> str:
    """What is wrong with one ``metrics`` entry of a summary.json ("" when nothing)."""
    if not isinstance(entry, dict):
        return f"must be an object with kind and value, got {shown(entry)}"
    if entry.get("kind") not in ("exact", "simulated"):
        return f"kind must be exact or simulated, got {_short(entry.get('kind'))}"
    for name in ("value", "se"):
        x = entry.get(name)
        if x is not None and not _is_number(x):
            return f"{name} must be a finite number or null, got {_short(x)}"
    if entry.get("se") is not None and entry["se"] < 0:
        return f"se must not be negative, got {quoted(entry['se'])}"
    return ""


def _moved(now: dict[str, Any], before: dict[str, Any]) -> tuple[bool, float, bool]:
    """(moved, z, beyond noise) for one metric."""
    a, b = now.get("value"), before.get("value")
    if a is None or b is None:
        return (a is None) != (b is None), math.nan, (a is None) != (b is None)
    if now.get("kind") == "exact" and before.get("kind") == "exact":
        moved = abs(a - b) > EXACT_TOL
        return moved, math.nan, moved
    if number(a) == number(b):  # equal as summary.json writes them (15 significant digits)
        return False, 0.0, False
    se = math.hypot(now.get("se") or 0.0, before.get("se") or 0.0)
    z = (a - b) / se if se > 0 else math.copysign(math.inf, a - b)
    return True, z, abs(z) > NOISE_Z


def compare(
    current: dict[str, dict[str, Any]], baseline: dict[str, dict[str, Any]], *, name: str = ""
) -> Comparison:
    """Compare two ``{key: {"kind", "value"[, "se"]}}`` metric maps (summary.json's ``metrics``)."""
    rows = []
    for key, now in current.items():
        before = baseline.get(key)
        if before is None:
            continue
        moved, z, loud = _moved(now, before)
        if moved:
            a, b = now.get("value"), before.get("value")
            change = a - b if a is not None and b is not None else math.nan
            kind = "exact" if now.get("kind") == before.get("kind") == "exact" else "simulated"
            rows.append([key, kind, b, before.get("se"), a, now.get("se"), change, z, loud])
    changes = pd.DataFrame(rows, columns=COLUMNS)
    if not changes.empty:
        order = changes.assign(_abs=changes["z"].abs().fillna(math.inf))
        changes = order.sort_values(["beyond_noise", "kind", "_abs"], ascending=[False, True, False]).drop(
            columns="_abs"
        )
        changes = changes.reset_index(drop=True)
    added = [k for k in current if k not in baseline]
    removed = [k for k in baseline if k not in current]
    return Comparison(baseline=name, changes=changes, added=added, removed=removed)
