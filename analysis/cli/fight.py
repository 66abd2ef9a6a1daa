"""The ``critlab fight`` subcommand: rounds to defeat a target, exact by default.

::

    critlab fight SYSTEM --hp H [--attacks-per-round K] [--max-rounds R]
                  [--trials N [--seed S] [--alpha A] [--threads T] [--scheduler ADDRESS|local]]
                  [--PARAM VALUE ...] [--json [--all-bins]]

``--json`` prints ``{"system", "params" (the attack's), "fight": {"hp",
"attacks_per_round", "max_rounds"}, "outcomes", "distributions", "metrics"}``; with
``--trials`` it adds ``"simulated"`` (the keys of ``simulate --json``) and
``"validation"`` (the keys of ``validate --json``), and the exit status is 1 when the
validation fails. A distribution of more than 1000 values (a 100d1000 fight's overkill)
lists the 1000 consecutive values holding the most probability, the rest in its ``tail``,
with a note on stderr, as ``exact --json`` does; ``--all-bins`` lists every value. A bad
parameter, a system or mode whose attack deals no damage, and a fight over the exact
engine's work bound exit 2 with one line.

:func:`add_parser` adds the subcommand to the command line's subparsers and :func:`run`
runs it; the system parameters are the command line's own (see :mod:`critlab.analysis.cli.main`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from critlab.analysis.fight.exact import MAX_ATTACKS_PER_ROUND, MAX_HP, MAX_ROUNDS, FightResult
from critlab.analysis.results import ALL_BINS_HELP, CAPPED, JSON_BINS, cap_bins
from critlab.analysis.spec import MissingParameter
from critlab.analysis.text.human import amount, number, percent

COMMAND = "fight"
_FIGHT_FLAGS = {
    "hp": "the target's hit points, 1..10^6 (required)",
    "attacks_per_round": f"attacks a round, 1..{MAX_ATTACKS_PER_ROUND} (default 1); a round is played out",
    "max_rounds": "rounds before the fight is undecided, 1..10^6 (default 1000)",
}
# Options that only a simulation uses: given without --trials they are an error.


def add_parser(subparsers: Any, mechanics: Sequence[Any] = ()) -> None:
    """Add ``fight`` (one sub-subcommand per system, and per mechanic named on the command
    line) to the command line's ``subparsers``."""
    from critlab.analysis.cli import args as cli
    from critlab.analysis.design.quantity import fight_params_of
    from critlab.analysis.systems import registry

    cmd = subparsers.add_parser(
        COMMAND, help="rounds to defeat a target of hp hit points (exact; --trials adds MC)"
    )
    systems = cmd.add_subparsers(dest="system", required=True, metavar="SYSTEM", parser_class=type(cmd))
    for system in (*registry().values(), *mechanics):
        sp = systems.add_parser(system.name, help=system.title)
        group = sp.add_argument_group("fight (the spec's attack repeated against hp; see docs/rules.md)")
        # a spec's own parameter of the same name (a contest's max_rounds) keeps its flag
        for name in fight_params_of(system):
            group.add_argument(cli._flag(name), dest=f"fight_{name}", metavar="INT", help=_FIGHT_FLAGS[name])
        sim = sp.add_argument_group("simulation (with --trials: simulated and validated)")
        cli.add_run_flags(
            sim, trials_help="simulate this many fights, 1..10^13, and validate them", required=False
        )
        sim.add_argument("--alpha", help="significance level of the validation (default 0.001)")
        sp.add_argument("--json", action="store_true", help="print the rules' JSON")
        sp.add_argument("--all-bins", action="store_true", help=ALL_BINS_HELP)
        cli._add_system_params(sp, system)


def _fight_params(args: argparse.Namespace) -> dict[str, int]:
    from critlab.analysis.cli.args import _int_arg

    hp = getattr(args, "fight_hp", None)
    if hp is None:
        raise MissingParameter("hp", "the target's hit points, 1..1000000")
    out = {"hp": _int_arg("hp", hp, 1, MAX_HP)}
    k = getattr(args, "fight_attacks_per_round", None)
    out["attacks_per_round"] = 1 if k is None else _int_arg("attacks_per_round", k, 1, MAX_ATTACKS_PER_ROUND)
    r = getattr(args, "fight_max_rounds", None)
    out["max_rounds"] = 1000 if r is None else _int_arg("max_rounds", r, 1, MAX_ROUNDS)
    return out


def answer(result: FightResult) -> str:
    """The fight's answer in one sentence, before any table: how many rounds the target
    lasts (mean and median), how often it falls by round 3, and how often at all.

    >>> from critlab.analysis.fight.exact import fight
    >>> from critlab.analysis.systems import get_system
    >>> print(answer(fight(get_system("thac0").make_spec(thac0=15, target_ac=5), hp=30, attacks_per_round=2)))
    The 30 hp target falls in 6.307 rounds on average (median 6); by round 3 in 5.35% of fights; \
defeated in 100.00% within 1000 rounds.
    """
    m, f = result.metrics, result.fight
    if m.get("mean_rounds") is None:
        return f"The {f.hp} hp target is never defeated within {f.max_rounds} rounds."
    by3 = m.get("p_defeated_by_round_3")
    return (
        f"The {f.hp} hp target falls in {amount(m['mean_rounds'])} rounds on average (median "
        f"{m['median_rounds']}); by round 3 in {percent(by3)} of fights; defeated in "
        f"{percent(result.outcomes['defeated'])} within {f.max_rounds} rounds."
    )


def _print_exact(result: FightResult, verdict: str = "") -> None:
    """The fight as a person reads it: the answer, a simulation's verdict (when given),
    then the tables."""
    from critlab.analysis.cli.args import _format_table

    params = ", ".join(f"{k}={v}" for k, v in result.params.items() if v is not None)
    print(f"{result.system}: {params}")
    print("fight: " + ", ".join(f"{k}={v}" for k, v in result.fight.to_json().items()))
    print(answer(result))  # the answer first, the tables after it
    if verdict:
        print(verdict)
    rounds = result.distributions["rounds"]
    by_round, shown = 0.0, []
    for r in range(rounds.min, rounds.max + 1):
        by_round += rounds.pmf(r)
        shown.append((f"{r}", f"{percent(rounds.pmf(r)):>8}  by then {percent(by_round):>8}"))
        if by_round >= 0.9999 or len(shown) >= 30:  # the rest reads ">99.99%": cut as `dice` cuts
            break
    print(_format_table("rounds (P(defeated in round r), P(defeated by round r))", shown))
    print(_format_table("outcomes", [(k, percent(p)) for k, p in result.outcomes.items()]))
    rows = [
        (name, f"mean {amount(d.mean)}  sd {amount(d.sd)}  range {d.min}..{d.max}  tail {d.tail:.2g}")
        for name, d in result.distributions.items()
    ]
    print(_format_table("distributions", rows))
    metrics = [
        (k, number(v, probability=k.startswith("p_"), missing="null")) for k, v in result.metrics.items()
    ]
    print(_format_table("metrics", metrics))


def _json(exact: FightResult, args: argparse.Namespace, **more: Any) -> dict[str, Any]:
    """The fight's JSON (and ``more``: the simulated and the validation), every
    distribution of more than :data:`~critlab.analysis.results.JSON_BINS` values capped as
    ``exact --json`` caps them, a note on stderr for each, unless ``--all-bins``."""
    every = getattr(args, "all_bins", False)
    out, capped = exact.capped_json(None if every else JSON_BINS)
    out.update(more)
    if "simulated" in more and not every:
        capped.update({f"simulated {k}": n for k, n in cap_bins(more["simulated"]["distributions"]).items()})
    for name, size in capped.items():
        print(f"critlab: note: {name} has {size} values; {CAPPED}", file=sys.stderr)
    return out


def run(args: argparse.Namespace) -> int:
    """Run ``critlab fight``: 0 done, 1 the validation failed; a bad option raises
    SpecError (exit 2, one line)."""
    from critlab.analysis.cli import args as cli
    from critlab.analysis.fight.exact import fight
    from critlab.analysis.systems import get_system

    system = get_system(args.system)
    spec = cli._spec_from_args(system, args)
    params = _fight_params(args)
    options = cli._simulation_options(args, "a fight")
    simulating = options is not None
    if simulating:
        trials, seed, threads, alpha = options
    exact = fight(spec, **params)
    if not simulating:
        cli._print_json(_json(exact, args)) if args.json else _print_exact(exact)
        return 0
    from critlab.analysis.fight.sim import simulate_fight
    from critlab.analysis.validate import DEFAULT_ALPHA, validate

    progress = False if args.no_progress else None
    with cli._cluster(args.scheduler) as client:
        sim = simulate_fight(
            spec,
            **params,
            trials=trials,
            seed=seed,
            threads=threads,
            progress=progress,
            client=client,
            exact=exact,
        )
    v = validate(exact, sim, alpha=DEFAULT_ALPHA if alpha is None else alpha)
    if args.json:
        cli._print_json(_json(exact, args, simulated=sim.to_json(), validation=v.to_json()))
    else:
        _print_exact(exact, v.verdict())
        print(f"simulated: {sim.trials:,} fights, seed {sim.seed}")
        se = dict(zip(sim.labels, sim.tally.standard_errors, strict=True))
        print(cli._format_table("outcomes", [(k, percent(p, se[k])) for k, p in sim.outcomes.items()]))
        metrics = [
            (k, number(m, probability=k.startswith("p_"), missing="null")) for k, m in sim.metrics.items()
        ]
        print(cli._format_table("metrics", metrics))
        print(v.text())
    return 0 if v.passed else 1


__all__ = ["COMMAND", "add_parser", "run"]
