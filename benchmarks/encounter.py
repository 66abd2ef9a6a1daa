"""``make bench`` rows for encounters: the exact chain's time on encounters of table size,
beside a plain Python forward chain over the same reachable states, and the simulation's
encounters per second.

The plain chain (:func:`plain_chain`) is what one writes without vectorising: a
dictionary of the reachable states (every combatant's hit points), played attack by
attack with the rules' targeting (``focus``, ``weakest``, ``random``), for one order of
turns. Both are timed over the same first rounds of one order of turns, as many as the
plain one plays within a budget (the rolled party's 24 orders would take it minutes).
Times are medians of repeats, each on a fresh encounter (its dice and states found anew).
Run ``python -m benchmarks.encounter [--quick]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.command import parser_of, print_table
from critlab.analysis.encounter.declare import Combatant, Encounter, Side
from critlab.analysis.encounter.exact import exact_encounter
from critlab.analysis.encounter.states import state_count
from critlab.analysis.systems import get_system

ROOT = Path(__file__).resolve().parents[1]
PARTY = ROOT / "reports" / "examples" / "party_vs_ogre.toml"


def duel() -> Encounter:
    """100 hp against 100 hp, thac0 15 against AC 5 both (1d8, crits double), rolled."""
    spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    return Encounter(Side((Combatant("x", 100, spec),)), Side((Combatant("y", 100, spec),)), order="rolled")


def three_v_two() -> Encounter:
    """Three of 8, 10 and 12 hp against two of 30 and 20 (one with 2 attacks), a-first:
    837,837 states in the product of every hp + 1 (the old chain's largest)."""
    spec = get_system("thac0").make_spec(thac0=12, target_ac=5, damage="1d8+2")
    a = Side(tuple(Combatant(f"p{k}", 8 + 2 * k, spec) for k in range(3)))
    b = Side((Combatant("o1", 30, spec, attacks=2), Combatant("o2", 20, spec)))
    return Encounter(a, b, order="a-first")


def party_vs_ogre() -> Encounter:
    """reports/examples/party_vs_ogre.toml: three against an ogre, rolled initiative."""
    from critlab.analysis.encounter.load import load_encounter

    return load_encounter(PARTY)


def parties(n: int, policy: str) -> Encounter:
    """Two parties of ``n`` (14..40 hp spread evenly; a fighter, a rogue, a cleric's
    mix of attacks and armour), both sides ``policy``, a-first."""
    attacks = [
        {"system": "thac0", "thac0": 14, "damage": "1d8+2"},
        {"system": "crit-range", "attack_bonus": 5, "crit_range": 2, "damage": "1d6+1", "crit_dice": "1d6"},
        {"system": "thac0", "thac0": 16, "damage": "1d6+1"},
    ]

    def side(prefix: str) -> Side:
        hps = [14 + (40 - 14) * k // (n - 1) for k in range(n)][::-1]
        members = tuple(
            Combatant(
                f"{prefix}{k}", hp, attacks[k % 3], defense={"target_ac": 3 + k % 4, "evasion": 12 + k % 3}
            )
            for k, hp in enumerate(hps)
        )
        return Side(members, targeting=policy)

    return Encounter(side("a"), side("b"), order="a-first")


def random_three_v_two() -> Encounter:
    """Three of 8, 10 and 12 hp against two of 9 and 11, both sides ``random``, a-first:
    every pattern of hit points is reachable (1287 x 120 states)."""
    spec = get_system("thac0").make_spec(thac0=12, target_ac=5, damage="1d6+1")
    a = Side(tuple(Combatant(f"p{k}", 8 + 2 * k, spec) for k in range(3)), targeting="random")
    b = Side((Combatant("o1", 9, spec, attacks=2), Combatant("o2", 11, spec)), targeting="random")
    return Encounter(a, b, order="a-first")


def four_v_three_orcs() -> Encounter:
    """A party of four (28, 22, 18, 14 hp) against three orcs of 15, both ``focus``,
    a-first: 778,629,120 states in the product of every hp + 1, refused by the old chain."""
    thac0 = get_system("thac0")
    hero = thac0.make_spec(thac0=14, target_ac=5, damage="1d8+1")
    orc = thac0.make_spec(thac0=17, target_ac=4, damage="1d8")
    a = Side(tuple(Combatant(f"p{k}", hp, hero) for k, hp in enumerate((28, 22, 18, 14))))
    b = Side(tuple(Combatant(f"orc{k}", 15, orc) for k in range(3)))
    return Encounter(a, b, order="a-first")


# name, build, target seconds (None: no target), compared with the plain chain
CASES: list[tuple[str, Callable[[], Encounter], float | None, bool]] = [
    ("duel 100 v 100 hp (rolled)", duel, None, True),
    ("3 v 2, 837,837 states (a-first)", three_v_two, None, True),
    ("party v ogre (reports/examples, rolled)", party_vs_ogre, 0.2, True),
    ("4 v 3 orcs (focus, a-first)", four_v_three_orcs, None, False),
    ("5 v 5, 14-40 hp (focus)", lambda: parties(5, "focus"), 3.0, False),
    ("6 v 6, 14-40 hp (focus)", lambda: parties(6, "focus"), 5.0, True),
    ("6 v 6, 14-40 hp (weakest)", lambda: parties(6, "weakest"), 5.0, False),
    ("3 v 2, 8-12 hp (random)", random_three_v_two, 2.0, True),
]


def targets(policy: str, hp: tuple[int, ...], enemies) -> list[tuple[int, float]]:
    """The rules' targeting as a table reads it (``focus``, ``weakest``, ``random``):
    ``[(enemy, weight)]`` among the ``enemies`` still standing at hit points ``hp``, the
    reference the plain chains here and in the tests follow."""
    standing = [e for e in enemies if hp[e] > 0]
    if policy == "focus":
        return [(standing[0], 1.0)]
    if policy == "weakest":
        low = min(hp[e] for e in standing)
        return [(next(e for e in standing if hp[e] == low), 1.0)]
    return [(e, 1.0 / len(standing)) for e in standing]


def plain_chain(enc: Encounter, rounds: int) -> float:
    """The encounter as a dictionary of its reachable states, for one order of turns
    (side a's then side b's, or b's first), played attack by attack for ``rounds``
    rounds with each side's targeting; the mass still fighting."""
    people = enc.combatants
    n, n_a = len(people), enc.n_a
    damage = {pair: d.to_dict() for pair, d in enc.pair_damage().items()}
    turns = list(range(n)) if enc.order != "b-first" else [*range(n_a, n), *range(n_a)]
    policy = (enc.a.targeting, enc.b.targeting)
    live = {tuple(c.hp for c in people): 1.0}
    for _ in range(rounds):
        for i in turns:
            enemies = range(n_a, n) if i < n_a else range(n_a)
            for _ in range(people[i].attacks):
                nxt: dict[tuple[int, ...], float] = defaultdict(float)
                for s, p in live.items():
                    if s[i] == 0:
                        nxt[s] += p
                        continue
                    for t, w in targets(policy[0 if i < n_a else 1], s, enemies):
                        for d, q in damage[(i, t)].items():
                            s2 = list(s)
                            s2[t] = max(0, s[t] - d)
                            nxt[tuple(s2)] += p * w * q
                live = {
                    s: p
                    for s, p in nxt.items()
                    if any(s[k] > 0 for k in range(n_a)) and any(s[k] > 0 for k in range(n_a, n))
                }
    return sum(live.values())


def _exact_seconds(build: Callable[[], Encounter], repeats: int, **changes: Any) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        enc = build()
        if changes:
            enc = enc.replace(**changes)
        t0 = time.perf_counter()
        result = exact_encounter(enc)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def measure(*, quick: bool = False, log=print, simulate: bool = True) -> list[dict[str, Any]]:
    """The rows: each exact encounter's time (median of repeats), its states and rounds,
    against its target; for some, both chains over the same first rounds of one order (as
    many as the plain one plays within its budget); and the simulation's encounters a
    second on 2 threads (warm)."""
    budget = 5.0 if quick else 30.0
    repeats = 1 if quick else 3
    exact_encounter(parties(3, "focus").replace(max_rounds=2))  # kernels and systems loaded
    rows = []
    for name, build, target, compare in CASES:
        exact_s, r = _exact_seconds(build, repeats)
        states, _ = state_count(build())
        row: dict[str, Any] = {
            "case": name,
            "exact_s": exact_s,
            "target_s": target,
            "states": states,
            "rounds": int(r.distributions["rounds"].max),
            "a_wins": r.outcomes["a_wins"],
        }
        text = f"  {name}: exact {exact_s:.3g} s, {states:,} states, {row['rounds']} rounds"
        if compare:
            one = build().replace(order="a-first")
            k, plain_s = 0, 0.0
            while k < row["rounds"] and plain_s < budget:
                k += 1
                t0 = time.perf_counter()
                plain_chain(one, k)
                plain_s = time.perf_counter() - t0
            same_s, _ = _exact_seconds(lambda one=one: one.replace(), repeats, max_rounds=k)
            row.update(compared_rounds=k, plain_s=plain_s, exact_same_s=same_s, ratio=plain_s / same_s)
            text += f"; first {k} rounds: plain {plain_s:.3g} s, critlab {same_s:.3g} s"
        rows.append(row)
        log(text)
    if not simulate:
        return rows
    from critlab.analysis.encounter.sim import simulate_encounter

    enc = party_vs_ogre()
    simulate_encounter(enc, trials=1000, seed=1, threads=2, progress=False)  # compiled or loaded
    trials = 1_000_000 if quick else 10_000_000
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        simulate_encounter(enc, trials=trials, seed=1, threads=2, progress=False)
        times.append(time.perf_counter() - t0)
    rate = trials / statistics.median(times)
    compile_s = first_compile_seconds()
    rows.append(
        {
            "case": "simulated party v ogre (reports/examples), 2 threads",
            "encounters_per_s": rate,
            "first_compile_s": compile_s,
        }
    )
    log(f"  simulated party v ogre: {rate:,.0f} encounters/s on 2 threads; first compile {compile_s} s")
    return rows


def first_compile_seconds() -> float | None:
    """The seconds the first simulation of the example encounter says it compiled for,
    in a fresh process over an empty kernel cache (every attack and the block compiled
    anew, as on a fresh machine); None if it said nothing."""
    import os
    import re
    import subprocess
    import tempfile

    code = (
        "from critlab.analysis.encounter.load import load_encounter\n"
        "from critlab.analysis.encounter.sim import simulate_encounter\n"
        f"simulate_encounter(load_encounter({str(PARTY)!r}), trials=1000, seed=1)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
    found = re.search(r"compiled the encounter simulator \(([\d.]+) s\)", done.stderr)
    return float(found.group(1)) if found else None


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| encounter | states | exact | target | plain Python chain, same rounds | simulated |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "exact_s" in r:
            plain = ""
            if "ratio" in r:
                plain = (
                    f"first {r['compared_rounds']} rounds {r['plain_s']:.2f} s against "
                    f"{r['exact_same_s']:.3f} s ({r['ratio']:.0f}x)"
                )
            target = f"< {r['target_s']:g} s" if r["target_s"] else ""
            lines.append(
                f"| {r['case']} | {r['states']:,} | {r['exact_s']:.3f} s ({r['rounds']} rounds) "
                f"| {target} | {plain} | |"
            )
        else:
            first = r.get("first_compile_s")
            compiled = f", first compile {first:.0f} s" if first is not None else ""
            lines.append(
                f"| {r['case']} | | | | | {r['encounters_per_s'] / 1e6:.2f}M encounters/s{compiled} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = parser_of("benchmarks.encounter", __doc__)
    parser.add_argument("--quick", action="store_true", help="one repeat, fewer simulated encounters")
    parser.add_argument("--exact-only", action="store_true", help="no simulation row")
    args = parser.parse_args(argv)
    return print_table(measure, table, quick=args.quick, simulate=not args.exact_only)


if __name__ == "__main__":
    sys.exit(main())
