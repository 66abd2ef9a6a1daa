""" "What changed" in sentences: a comparison's moved numbers grouped by section and by
variant (or choice), each group said once, the raw rows kept for a click away.

A metric key is ``system/section/point/quantity`` for a sweep (``point`` the grid point,
``crit_range=2,weapon=axe``) and ``system/section/exact|simulated/quantity`` for a
validation. A sweep's moves are grouped by the point's words (a variant, a roll mode) and
said as "expected damage rose at 7 points, by +0.05 to +0.21 (most at crit range 6)"; a
validation's as "the exact crit went from 5% to 10%" or "the simulated crit moved beyond
noise, 0.0502 → 0.0987 (z = 21.3)". Simulated numbers that moved within noise are only
counted.

A baseline from another configuration (another report name) is flagged loudly by
:func:`baseline_warning`: most keys cannot match, and those that do may mean different things.

>>> changes = [{"key": "thac0/by-ac/target_ac=0/expected_damage", "kind": "exact", "baseline": 1.0,
...             "current": 1.5, "change": 0.5, "z": None, "beyond_noise": True}]
>>> change_sentences(changes, {"thac0/by-ac": "Damage by AC"})
[('thac0 · Damage by AC', ['expected damage rose at 1 point, by +0.500 (at target ac 0)'])]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from critlab.analysis.report.words import words
from critlab.analysis.text.human import said_amount, said_percent, signed

Words = Callable[[str, str], str]  # (system, name) -> words
Probability = Callable[[str, str], bool]  # (section key, quantity) -> whether it is a probability


def _plain(system: str, name: str) -> str:
    return words(name)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _split(key: str, sections: Mapping[str, str]) -> tuple[str, str, str] | None:
    """``(section key, middle, quantity)`` of a metric key, the section found by prefix
    (a designer's mechanic's name holds slashes)."""
    for prefix in sorted(sections, key=len, reverse=True):
        if key.startswith(prefix + "/"):
            rest = key[len(prefix) + 1 :]
            middle, _, quantity = rest.rpartition("/")
            return prefix, middle, quantity
    return None


def _point(system: str, middle: str, say: Words, variants: frozenset[str]) -> tuple[str, str]:
    """A grid point as (its words' group: the variants and choices, its numeric place)."""
    group, place = [], []
    for part in middle.split(",") if middle else []:
        name, _, value = part.partition("=")
        if _is_number(value) or value in ("true", "false"):
            place.append(f"{say(system, name)} {value}")
        else:
            group.append(f"the {value}" if name in variants else f"{say(system, name)} {value}")
    return ", ".join(group), " and ".join(place)


def _value(prob: bool, x: float | None) -> str:
    if x is None:
        return "none"
    return said_percent(x) if prob else said_amount(x)


def _delta(prob: bool, d: float) -> str:
    """A change: in percentage points for a probability."""
    if not prob:
        return signed(d)
    return f"{signed(100 * d)} percentage points"


def _sweep_sentence(system: str, q: str, rows: list[dict[str, Any]], say: Words, prob: bool) -> str:
    moves = [r for r in rows if r["change"] is not None and math.isfinite(r["change"])]
    n = len(rows)
    what = say(system, q)
    points = f"{n} point{'s' * (n != 1)}"
    if not moves:
        return f"{what} changed at {points} (to or from none)"
    up = all(r["change"] > 0 for r in moves)
    down = all(r["change"] < 0 for r in moves)
    verb = "rose" if up else "fell" if down else "moved"
    lo = min(moves, key=lambda r: r["change"])["change"]
    hi = max(moves, key=lambda r: r["change"])["change"]
    most = max(moves, key=lambda r: abs(r["change"]))
    # a range whose ends read the same is one value (+0.257, never "+0.257 to +0.257")
    same = _delta(prob, lo) == _delta(prob, hi)
    span = _delta(prob, lo) if same else f"{signed(100 * lo if prob else lo)} to {_delta(prob, hi)}"
    where = f" ({'at' if n == 1 else 'most at'} {most['_place']})" if most["_place"] else ""
    return f"{what} {verb} at {points}, by {span}{where}"


def _validation_sentence(system: str, kind: str, q: str, row: dict[str, Any], say: Words, prob: bool) -> str:
    a, b = row["baseline"], row["current"]
    what = f"the {kind} {say(system, q)}"
    if kind == "exact":
        return f"{what} went from {_value(prob, a)} to {_value(prob, b)}"
    z = row.get("z")
    ztext = "" if z is None or not math.isfinite(z) else f" (z = {z:+.1f})"
    return f"{what} moved beyond noise, {_value(prob, a)} → {_value(prob, b)}{ztext}"


def settings_changed(
    system: str, before: Mapping[str, Any], now: Mapping[str, Any], say: Words = _plain
) -> str:
    """The inputs of a section that changed between two runs, in words ("" when none):
    what a designer changed, said before what it moved.

    >>> settings_changed("crit-range", {"crit_range": 2, "damage": "1d8"}, {"crit_range": 3, "damage": "1d8"})
    'settings changed: crit range 2 → 3'
    """
    moved = []
    for k in dict.fromkeys([*before, *now]):
        a, b = before.get(k), now.get(k)
        if a != b:
            name, _, param = k.rpartition(".")
            said = say(system, param) if param else say(system, k)
            moved.append(f"{f'the {name} ' if name else ''}{said} {_setting(a)} → {_setting(b)}")
    return "settings changed: " + ", ".join(moved) if moved else ""


def _setting(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def change_sentences(
    changes: list[dict[str, Any]],
    sections: Mapping[str, str],
    say: Words = _plain,
    probability: Probability | None = None,
    variants: frozenset[str] = frozenset(),
    settings: Mapping[str, str] | None = None,
) -> list[tuple[str, list[str]]]:
    """``(section heading, sentences)`` for each section with a real move (an exact
    change, or a simulated one beyond noise) or a changed setting, in the order the
    changes come; moves of keys no section of this report names are grouped under "other
    numbers". ``sections`` maps ``system/section`` keys to titles, ``probability`` says
    which quantities are probabilities (changes in percentage points), ``variants`` names
    the variant axes, ``settings`` gives each section's changed inputs in words (said
    first: the cause before its effects)."""
    settings = {k: v for k, v in (settings or {}).items() if v}
    is_prob = probability or (lambda prefix, q: False)
    groups: dict[str, dict[tuple[str, str], list[dict[str, Any]]]] = {}
    validation: dict[str, list[str]] = {}
    for row in changes:
        if not row.get("beyond_noise"):
            continue
        split = _split(row["key"], sections)
        if split is None:
            groups.setdefault("", {}).setdefault(("", row["key"]), []).append({**row, "_place": ""})
            continue
        prefix, middle, q = split
        system = prefix.rsplit("/", 1)[0]
        if middle in ("exact", "simulated"):
            said = _validation_sentence(system, middle, q, row, say, is_prob(prefix, q))
            validation.setdefault(prefix, []).append(said)
            continue
        group, place = _point(system, middle, say, variants)
        groups.setdefault(prefix, {}).setdefault((group, q), []).append({**row, "_place": place})
    out: list[tuple[str, list[str]]] = []
    for prefix in dict.fromkeys([*(k for k in settings if k in sections), *groups, *validation]):
        if prefix == "":
            continue
        system = prefix.rsplit("/", 1)[0]
        sentences = [settings[prefix]] if prefix in settings else []
        for (group, q), rows in groups.get(prefix, {}).items():
            text = _sweep_sentence(system, q, rows, say, is_prob(prefix, q))
            sentences.append(f"for {group}: {text}" if group else text)
        sentences += validation.get(prefix, [])
        out.append((f"{system} · {sections[prefix]}", sentences))
    if "" in groups:
        keys = [k for _, k in groups[""]]
        more = f" and {len(keys) - 5} more" if len(keys) > 5 else ""
        out.append(("Other numbers", [f"{len(keys)} moved: " + ", ".join(keys[:5]) + more]))
    return out


def baseline_warning(current: Mapping[str, Any], baseline: Mapping[str, Any]) -> str:
    """A loud sentence when the baseline is not an earlier run of this configuration
    ("" when it is): another report name, or another number of trials or seed.

    >>> baseline_warning({"name": "designer", "run": {}}, {"name": "default", "run": {}})[:57]
    "The baseline is another configuration's report ('default'"
    """
    mine, theirs = current.get("name"), baseline.get("name")
    if mine != theirs:
        where = (baseline.get("run") or {}).get("config")
        source = f", from {where}" if where else ""
        return (
            f"The baseline is another configuration's report ({theirs!r}{source}), not an earlier run of "
            f"this one ({mine!r}): numbers are matched by key only, so most cannot be compared and those "
            "that can may mean different things. Compare with an earlier run of the same configuration."
        )
    run, base = current.get("run") or {}, baseline.get("run") or {}
    differ = [k for k in ("trials", "seed") if k in run and k in base and run[k] != base[k]]
    if differ:
        said = ", ".join(f"{k} {base[k]:,} then, {run[k]:,} now" for k in differ)
        return f"The baseline ran with other settings ({said}): simulated numbers differ by noise as well."
    return ""
