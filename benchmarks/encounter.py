"""``make bench`` rows for encounters: the exact chain beside a plain Python version of the
same chain, and the simulation's encounters per second.

The plain version is the chain as a dictionary of the reachable hit-point tuples, played
attack by attack (what one writes without vectorising); both are timed over the same
first rounds of one order of turns, as many as the plain one plays within a budget (a
full 3 v 2 would take it many minutes).
Run ``python -m benchmarks.encounter [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from critlab.analysis.encounter.declare import Combatant, Encounter, Side
from critlab.analysis.encounter.exact import exact_encounter
from critlab.analysis.systems import get_system

ROOT = Path(__file__).resolve().parents[1]
PARTY = ROOT / "reports" / "examples" / "party_vs_ogre.toml"


def duel() -> Encounter:
    """100 hp against 100 hp, thac0 15 against AC 5 both (1d8, crits double), rolled."""
    spec = get_system("thac0").make_spec(thac0=15, target_ac=5)
    return Encounter(Side((Combatant("x", 100, spec),)), Side((Combatant("y", 100, spec),)), order="rolled")


def three_v_two() -> Encounter:
    """Three of 8, 10 and 12 hp against two of 30 and 20 (one with 2 attacks), a-first:
    837,837 states, just under the chain's bound."""
    spec = get_system("thac0").make_spec(thac0=12, target_ac=5, damage="1d8+2")
    a = Side(tuple(Combatant(f"p{k}", 8 + 2 * k, spec) for k in range(3)))
    b = Side((Combatant("o1", 30, spec, attacks=2), Combatant("o2", 20, spec)))
    return Encounter(a, b, order="a-first")


def plain_chain(enc: Encounter, rounds: int) -> float:
    """The same chain as a dictionary of states (sequential order, focus targeting),
    played for ``rounds`` rounds; the mass still fighting."""
    people = enc.combatants
    n, n_a = len(people), enc.n_a
    damage = {pair: d.to_dict() for pair, d in enc.pair_damage().items()}
    turns = list(range(n)) if enc.order != "b-first" else [*range(n_a, n), *range(n_a)]
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
                    t = next(e for e in enemies if s[e] > 0)
                    for d, q in damage[(i, t)].items():
                        s2 = list(s)
                        s2[t] = max(0, s[t] - d)
                        nxt[tuple(s2)] += p * q
                live = {
                    s: p
                    for s, p in nxt.items()
                    if any(s[k] > 0 for k in range(n_a)) and any(s[k] > 0 for k in range(n_a, n))
                }
    return sum(live.values())


def measure(*, quick: bool = False, log=print) -> list[dict[str, Any]]:
    """The rows: each exact encounter's time and rounds; both chains over the same first
    rounds (as many as the plain one plays within its budget, a rolled duel's first
    order only); and the simulation's encounters a second (warm, all threads)."""
    budget = 5.0 if quick else 30.0
    rows = []
    for name, build in (
        ("duel 100 v 100 hp (rolled)", duel),
        ("3 v 2, 837,837 states (a-first)", three_v_two),
    ):
        enc = build()
        t0 = time.perf_counter()
        r = exact_encounter(enc)
        exact_s = time.perf_counter() - t0
        played = int(r.distributions["rounds"].max)
        # the same first rounds of one order of turns, in both chains
        one = enc.replace(order="a-first")
        k, plain_s = 0, 0.0
        while k < played and plain_s < budget:
            k += 1
            t0 = time.perf_counter()
            plain_chain(one, k)
            plain_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        exact_encounter(one.replace(max_rounds=k))
        same_s = time.perf_counter() - t0
        rows.append(
            {
                "case": name,
                "exact_s": exact_s,
                "rounds": played,
                "compared_rounds": k,
                "plain_s": plain_s,
                "exact_same_s": same_s,
                "ratio": plain_s / same_s,
            }
        )
        log(
            f"  {name}: exact {exact_s:.3g} s; first {k} rounds: plain {plain_s:.3g} s, "
            f"critlab {same_s:.3g} s"
        )
    from critlab.analysis.encounter.load import load_encounter
    from critlab.analysis.encounter.sim import simulate_encounter

    enc = load_encounter(PARTY)
    simulate_encounter(enc, trials=1000, seed=1, progress=False)  # compiled or loaded
    trials = 500_000 if quick else 4_000_000
    t0 = time.perf_counter()
    simulate_encounter(enc, trials=trials, seed=1, progress=False)
    rate = trials / (time.perf_counter() - t0)
    rows.append({"case": "simulated party v ogre (reports/examples)", "encounters_per_s": rate})
    log(f"  simulated party v ogre: {rate:,.0f} encounters/s")
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    lines = ["| encounter | exact | plain Python chain | simulated |", "|---|---|---|---|"]
    for r in rows:
        if "exact_s" in r:
            lines.append(
                f"| {r['case']} | {r['exact_s']:.2f} s ({r['rounds']} rounds) "
                f"| first {r['compared_rounds']} rounds {r['plain_s']:.2f} s, "
                f"critlab {r['exact_same_s']:.2f} s "
                f"({r['ratio']:.1f}x) | |"
            )
        else:
            lines.append(f"| {r['case']} | | | {r['encounters_per_s'] / 1e6:.2f}M encounters/s |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.encounter", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="fewer simulated encounters")
    args = parser.parse_args(argv)
    print(table(measure(quick=args.quick, log=lambda m: print(m, file=sys.stderr))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
