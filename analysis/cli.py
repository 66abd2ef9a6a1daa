"""The ``critlab`` command line (RULES.md's contract, one for every system).

::

    critlab exact    SYSTEM [--PARAM VALUE ...] [--json]
    critlab simulate SYSTEM --trials N [--seed S] [--scheduler ADDRESS|local] [--PARAM VALUE ...] [--json]
    critlab validate SYSTEM --trials N [--seed S] [--alpha A] [--scheduler ADDRESS|local] [--PARAM VALUE ...]
                            [--json]
    critlab dice     EXPR [--json]
    critlab report   [--config FILE] [--out DIR] [--trials N] [--seed S] [--baseline FILE]

A bad parameter or dice expression exits 2 with one line naming it; a failed
validation exits 1. ``--scheduler`` runs the simulation's blocks on a Dask cluster (an
address such as ``tcp://10.0.0.5:8786``, or ``local`` for two worker processes on this
machine) with the same counts as a local run; see docs/scaling-out.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any, NoReturn

from critlab.analysis.spec import SpecError, check_int, coerce, field_types
from critlab.analysis.systems import get_system, registry
from critlab.analysis.systems.base import MAX_SEED, MAX_TRIALS


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"critlab: error: {message}\n")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _add_system_params(parser: argparse.ArgumentParser, system) -> None:
    """One flag per spec parameter, its ``--help`` from the parameter's declaration
    (meaning, range or choices, the modes that use it, default); see docs/rules.md."""
    from critlab.analysis.params import declared, help_line

    types = field_types(system.spec)
    decls = declared(system.spec)
    group = parser.add_argument_group(f"{system.name} parameters (see docs/rules.md)")
    for f in dataclasses.fields(system.spec):
        if f.name in decls:
            group.add_argument(
                _flag(f.name),
                dest=f"p_{f.name}",
                metavar=decls[f.name].kind.metavar,
                help=help_line(system.spec, f.name).replace("%", "%%"),
            )
            continue
        base, optional = types[f.name]
        default = f.default if f.default is not dataclasses.MISSING else "required where the mode uses it"
        shown = "none" if default is None else str(default).lower() if isinstance(default, bool) else default
        kind = {bool: "true|false", int: "INT", float: "NUMBER"}.get(base, "TEXT")
        group.add_argument(_flag(f.name), dest=f"p_{f.name}", metavar=kind, help=f"default: {shown}")


def _build_parser() -> _Parser:
    parser = _Parser(prog="critlab", description="Exact and Monte Carlo analysis of tabletop dice mechanics.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    dice = sub.add_parser("dice", help="exact distribution of a dice expression")
    dice.add_argument("expr", help="dice notation, e.g. 4d6dl1 or 2d6+1")
    dice.add_argument("--json", action="store_true")

    for command, text in (
        ("exact", "exact outcome distribution"),
        ("simulate", "Monte Carlo simulation"),
        ("validate", "simulation held against the exact distribution"),
    ):
        cmd = sub.add_parser(command, help=text)
        systems = cmd.add_subparsers(dest="system", required=True, metavar="SYSTEM", parser_class=_Parser)
        for system in registry().values():
            sp = systems.add_parser(system.name, help=system.title)
            if command != "exact":
                sp.add_argument("--trials", required=True, help="number of trials, 1..10^13")
                sp.add_argument("--seed", help="non-negative integer; drawn from the OS when absent")
                sp.add_argument("--threads", type=int, help="worker threads (default: all cores)")
                sp.add_argument("--no-progress", action="store_true", help="never show a progress bar")
                sp.add_argument(
                    "--scheduler",
                    metavar="ADDRESS|local",
                    help="run the blocks on the Dask scheduler at ADDRESS, or on a local 2-process cluster "
                    "(same counts; --threads is then ignored)",
                )
            if command == "validate":
                sp.add_argument("--alpha", default="0.001", help="significance level (default 0.001)")
            sp.add_argument("--json", action="store_true", help="print RULES.md's JSON")
            _add_system_params(sp, system)

    report = sub.add_parser("report", help="build a balance report")
    report.add_argument("--config", help="TOML configuration (default: the built-in one)")
    report.add_argument("--out", help="output folder (default: reports/<name>)")
    report.add_argument("--trials", help="trials per validation (overrides the configuration)")
    report.add_argument("--seed", help="seed (overrides the configuration)")
    report.add_argument("--baseline", help="an earlier summary.json to compare against")
    report.add_argument("--no-progress", action="store_true")
    return parser


def _int_arg(name: str, text: str | None, lo: int, hi: int) -> int | None:
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise SpecError(name, text, f"must be an integer in {lo}..{hi}") from None
    return check_int(name, value, lo, hi)


def _spec_from_args(system, args: argparse.Namespace):
    params = {}
    for f in dataclasses.fields(system.spec):
        text = getattr(args, f"p_{f.name}")
        if text is not None:
            params[f.name] = coerce(system.spec, f.name, text)
    return system.make_spec(**params)


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, allow_nan=False))


def _format_table(title: str, rows: list[tuple[str, str]]) -> str:
    width = max((len(k) for k, _ in rows), default=0)
    return "\n".join([title, *(f"  {k:<{width}}  {v}" for k, v in rows)])


def _print_result(result, *, simulated: bool) -> None:
    head = f"{result.system}: " + ", ".join(f"{k}={v}" for k, v in result.params.items() if v is not None)
    print(head)
    if simulated:
        print(f"trials={result.trials} seed={result.seed}")
        se = dict(zip(result.labels, result.tally.standard_errors, strict=True))
        rows = [(k, f"{p:.6f} ± {se[k]:.6f}") for k, p in result.outcomes.items()]
    else:
        rows = [(k, f"{p:.10f}") for k, p in result.outcomes.items()]
    print(_format_table("outcomes", rows))
    dists = result.tally.hists if simulated else result.distributions
    drows = []
    for name, d in dists.items():
        if d is None:
            drows.append((name, "null"))
        elif simulated:
            drows.append((name, f"mean {d.mean():.4f} (binned)"))
        else:
            drows.append(
                (name, f"mean {d.mean:.4f}  sd {d.sd:.4f}  range {d.min}..{d.max}  tail {d.tail:.2g}")
            )
    if drows:
        print(_format_table("distributions", drows))
    if result.metrics:
        print(
            _format_table(
                "metrics", [(k, "null" if v is None else f"{v:.6g}") for k, v in result.metrics.items()]
            )
        )


def _cmd_dice(args: argparse.Namespace) -> int:
    from critlab.analysis.dice_view import table_lines
    from critlab.analysis.notation import parse

    expr = parse(args.expr)
    if args.json:
        d = expr.dist()
        _print_json(
            {
                "expression": args.expr,
                "distribution": {str(k): v for k, v in d.to_dict(tail=True).items()},
                "mean": d.mean,
                "sd": d.sd,
            }
        )
    else:
        print("\n".join(table_lines(expr)))
    return 0


def _cluster(scheduler: str | None):
    """A Dask client for ``--scheduler`` (closed on exit), or ``None`` without one: Dask
    is imported only when asked for."""
    if scheduler is None:
        return nullcontext(None)
    from critlab.kernels.cluster import connect

    return connect(scheduler)


def _cmd_system(args: argparse.Namespace) -> int:
    system = get_system(args.system)
    spec = _spec_from_args(system, args)
    if args.command == "exact":
        result = system.exact(spec)
        _print_json(result.to_json()) if args.json else _print_result(result, simulated=False)
        return 0
    trials = _int_arg("trials", args.trials, 1, MAX_TRIALS)
    seed = _int_arg("seed", args.seed, 0, MAX_SEED)
    progress = False if args.no_progress else None
    with _cluster(args.scheduler) as client:
        sim = system.simulate(
            spec, trials=trials, seed=seed, threads=args.threads, progress=progress, client=client
        )
    if args.command == "simulate":
        _print_json(sim.to_json()) if args.json else _print_result(sim, simulated=True)
        return 0
    from critlab.analysis.validate import validate

    try:
        alpha = float(args.alpha)
    except ValueError:
        raise SpecError("alpha", args.alpha, "must be a number in (0, 1)") from None
    if not 0 < alpha < 1:
        raise SpecError("alpha", args.alpha, "must be a number in (0, 1)")
    v = validate(system.exact(spec), sim, alpha=alpha)
    if args.json:
        _print_json(v.to_json())
    else:
        print(v.text())  # the pooled bins, at most a screen
    return 0 if v.passed else 1


def _cmd_report(args: argparse.Namespace) -> int:
    from critlab.analysis.report import main as report_main

    return report_main(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``critlab`` console command."""
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "dice":
            return _cmd_dice(args)
        if args.command == "report":
            return _cmd_report(args)
        return _cmd_system(args)
    except (SpecError, ValueError) as exc:
        print(f"critlab: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("critlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `critlab dice 1d6! | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
