"""The ``critlab`` command line (the rules' contract, one for every system).

::

    critlab exact    SYSTEM [--PARAM VALUE ...] [--json]
    critlab simulate SYSTEM --trials N [--seed S] [--scheduler ADDRESS|local] [--PARAM VALUE ...] [--json]
    critlab validate SYSTEM --trials N [--seed S] [--alpha A] [--scheduler ADDRESS|local] [--PARAM VALUE ...]
                            [--json]
    critlab dice     EXPR [--json]
    critlab report   [--config FILE] [--out DIR] [--force] [--trials N] [--seed S] [--baseline FILE]
                     [--scheduler ADDRESS|local]

Exit status: 0 done; 1 a validation failed (the output is still complete); 2 bad input
or a failure to run (bad parameter, dice expression, output path or scheduler, a full
disk), always as one line on stderr; 130 interrupted (Ctrl-C at any time, start-up
included). ``--scheduler`` runs the simulation's blocks on a Dask cluster (an
address such as ``tcp://10.0.0.5:8786``, or ``local`` for two worker processes on this
machine) with the same counts as a local run; see docs/scaling-out.md.
"""

from __future__ import annotations

import signal
import sys


def _interrupted_while_loading(signum: int, frame: object) -> None:
    # Ctrl-C while numpy, pandas and the rule systems load: the same one line and exit
    # status as an interrupt later on, not a traceback from inside an import.
    print("critlab: interrupted", file=sys.stderr, flush=True)
    raise SystemExit(130)


def _hold_interrupts_while_loading() -> object | None:
    """Ctrl-C held back while the libraries load, and the previous handler. Blocked meanwhile,
    the signal waits for the end of the imports (no import is left half done), and the
    threads the libraries start (OpenBLAS's) inherit the block, so that a Ctrl-C always
    reaches this thread, which the cluster start-up relies on (kernels.cluster)."""
    try:
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return None
        previous = signal.signal(signal.SIGINT, _interrupted_while_loading)
    except ValueError:  # not the main thread: leave signals alone
        return None
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    return previous


def _release_interrupts(previous: object | None) -> None:
    if previous is None:
        return
    if hasattr(signal, "pthread_sigmask"):
        # a Ctrl-C during the imports reaches _interrupted_while_loading here
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, previous)  # type: ignore[arg-type]


_previous_handler = _hold_interrupts_while_loading()

import argparse  # noqa: E402
import errno  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import threading  # noqa: E402
from collections.abc import Iterator, Sequence  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from typing import Any  # noqa: E402

from critlab.analysis.cli.args import (  # noqa: E402
    MAX_THREADS,
    _add_system_params,
    _alpha_arg,
    _cluster,
    _count_arg,
    _format_table,
    _int_arg,
    _Parser,
    _print_json,
    _spec_from_args,
    add_run_flags,
)
from critlab.analysis.results import ALL_BINS_HELP, CAPPED, cap_bins  # noqa: E402
from critlab.analysis.run import MAX_SEED, MAX_TRIALS  # noqa: E402
from critlab.analysis.spec import MissingParameter, SpecError  # noqa: E402
from critlab.analysis.systems import get_system, registry  # noqa: E402
from critlab.analysis.text.numtext import one_line  # noqa: E402

_release_interrupts(_previous_handler)


# More worker threads than this is a typo, not a machine.
def _build_parser(
    mechanics: Sequence[Any] = (),
    *,
    systems: bool = True,
    command: str | None = None,
    only: str | None = None,
) -> _Parser:
    """The command line's parser; ``mechanics`` are designers' mechanics named on this
    command line (``critlab exact rules.py:attack ...``), given their flags like a system.

    ``systems=False`` (for ``dice`` and ``report``) leaves out the rule systems' flags, so
    those commands never import the systems, their kernels or Numba: they start fast.
    ``command`` and ``only`` (the subcommand and the system named on the command line)
    build just those parsers, for the same reason; without them every parser is built."""
    parser = _Parser(prog="critlab", description="Exact and Monte Carlo analysis of tabletop dice mechanics.")
    from critlab import __version__

    parser.add_argument("--version", action="version", version=f"critlab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    from critlab.analysis.cli import dice as dice_cli

    dice_cli.add_parser(sub)  # dice expressions: needs no system's flags

    for cmd_name, text in (
        ("exact", "exact outcome distribution"),
        ("simulate", "Monte Carlo simulation"),
        ("validate", "simulation held against the exact distribution"),
    ):
        cmd = sub.add_parser(cmd_name, help=text)
        if not systems or (command is not None and command != cmd_name):
            continue
        by_name = cmd.add_subparsers(dest="system", required=True, metavar="SYSTEM", parser_class=_Parser)
        known = [get_system(only)] if only is not None else list(registry().values())
        for system in (*known, *mechanics):
            sp = by_name.add_parser(system.name, help=system.title)
            if cmd_name != "exact":
                add_run_flags(sp, trials_help="number of trials, 1..10^13", required=True)
            if cmd_name == "validate":
                sp.add_argument("--alpha", default="0.001", help="significance level (default 0.001)")
            sp.add_argument("--json", action="store_true", help="print the documented JSON")
            if cmd_name == "exact":
                sp.add_argument("--all-bins", action="store_true", help=ALL_BINS_HELP)
            _add_system_params(sp, system)

    if systems and command is None:
        from critlab.analysis.cli import design as designer_cli
        from critlab.analysis.cli import fight as fight_cli

        designer_cli.add_parsers(sub, mechanics)  # tune, sensitivity
        fight_cli.add_parser(sub, mechanics)  # rounds to defeat a target
    else:
        for name, text in (
            ("tune", "tune a parameter to a target"),
            ("sensitivity", "what each +-1 is worth"),
            ("fight", "rounds to defeat a target"),
        ):
            sub.add_parser(name, help=text)
    from critlab.analysis.cli import encounter as encounter_cli

    encounter_cli.add_parser(sub)  # both sides fight back: needs no system's flags
    report = sub.add_parser("report", help="build a balance report")
    report.add_argument("--config", help="TOML configuration (default: the built-in one)")
    report.add_argument("--out", help="output folder (default: reports/<name>)")
    report.add_argument(
        "--force",
        action="store_true",
        help="use an --out folder that is not a critlab report: it is kept beside the new report, renamed",
    )
    report.add_argument("--trials", help="trials per validation (overrides the configuration)")
    report.add_argument("--seed", help="seed (overrides the configuration)")
    report.add_argument("--baseline", help="an earlier summary.json to compare against")
    report.add_argument("--no-progress", action="store_true")
    report.add_argument(
        "--scheduler",
        metavar="ADDRESS|local",
        help="compute the exact points on the Dask scheduler at ADDRESS, or on a local 2-process "
        "cluster (the same report; every work budget times its workers)",
    )
    return parser


_DASH_VALUE = re.compile(r"-[0-9dD.(]")


def _value_flags(parser: argparse.ArgumentParser) -> set[str]:
    """Every ``--flag`` of ``parser`` and its subcommands that takes one value."""
    flags: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags |= _value_flags(sub)
        elif action.option_strings and action.nargs is None:
            flags.update(o for o in action.option_strings if o.startswith("--"))
    return flags


def _dash_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` with values that begin with ``-`` bound to their flag, which argparse
    would take for options: ``--damage -1d4+3`` becomes ``--damage=-1d4+3`` and
    ``dice -1d6 --json`` becomes ``dice --json -- -1d6``."""
    flags = _value_flags(parser)
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            out.extend(argv[i:])
            break
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if tok in flags and nxt is not None and nxt.startswith("-") and not nxt.startswith("--"):
            out.append(f"{tok}={nxt}")
            i += 2
            continue
        out.append(tok)
        i += 1
    if out[:1] == ["dice"] and "--" not in out:
        dashed = [t for t in out[1:] if _DASH_VALUE.match(t)]
        if dashed:
            out = ["dice", *(t for t in out[1:] if t not in dashed), "--", *dashed]
    return out


def _print_result(result, *, simulated: bool) -> None:
    from critlab.analysis.text.human import amount, number, percent

    head = f"{result.system}: " + ", ".join(f"{k}={v}" for k, v in result.params.items() if v is not None)
    print(head)
    if simulated:
        print(f"simulated: {result.trials:,} trials, seed {result.seed}")
        se = dict(zip(result.labels, result.tally.standard_errors, strict=True))
        rows = [(k, percent(p, se[k])) for k, p in result.outcomes.items()]
        unreachable: list[str] = []
    else:
        # a label these rules cannot reach (exactly 0) is left out of the table, named
        # below it; --json keeps every label
        rows = [(k, percent(p)) for k, p in result.outcomes.items() if p != 0.0]
        unreachable = [k for k, p in result.outcomes.items() if p == 0.0]
    print(_format_table("outcomes", rows))
    if unreachable:
        print(f"  (never with these parameters: {', '.join(unreachable)})")
    dists = result.tally.hists if simulated else result.distributions
    drows = []
    for name, d in dists.items():
        if d is None:
            drows.append((name, "null"))
        elif simulated:
            drows.append((name, f"mean {amount(d.mean())} (binned)"))
        else:
            drows.append(
                (name, f"mean {amount(d.mean)}  sd {amount(d.sd)}  range {d.min}..{d.max}  tail {d.tail:.2g}")
            )
    if drows:
        print(_format_table("distributions", drows))
    if result.metrics:
        rows = [
            (k, number(v, probability=k.startswith("p_"), missing="null")) for k, v in result.metrics.items()
        ]
        print(_format_table("metrics", rows))
    policy = getattr(result, "policy_lines", None)  # a choosing mechanic's best play, in words
    if policy is not None:
        print("policy (best play)\n" + "\n".join(f"  {line}" for line in policy()))


def _cmd_system(args: argparse.Namespace) -> int:
    system = get_system(args.system)
    spec = _spec_from_args(system, args)
    if args.command == "exact":
        result = system.exact(spec)
        if args.json:
            out = result.to_json()
            if not args.all_bins:
                for name, size in cap_bins(out["distributions"]).items():
                    print(f"critlab: note: {name} has {size} values; {CAPPED}", file=sys.stderr)
            _print_json(out)
        else:
            _print_result(result, simulated=False)
        return 0
    # every option is checked before the simulation (and before a cluster is reached)
    trials = _count_arg("trials", args.trials, 1, MAX_TRIALS)
    seed = _int_arg("seed", args.seed, 0, MAX_SEED)
    threads = _int_arg("threads", args.threads, 1, MAX_THREADS)
    alpha = _alpha_arg(args.alpha) if args.command == "validate" else None
    progress = False if args.no_progress else None
    with _cluster(args.scheduler) as client:
        sim = system.simulate(
            spec, trials=trials, seed=seed, threads=threads, progress=progress, client=client
        )
    if args.command == "simulate":
        _print_json(sim.to_json()) if args.json else _print_result(sim, simulated=True)
        return 0
    from critlab.analysis.validate import validate

    v = validate(system.exact(spec), sim, alpha=alpha)
    if args.json:
        _print_json(v.to_json())
    else:
        print(v.text())  # the pooled bins, at most a screen
    return 0 if v.passed else 1


def _cmd_report(args: argparse.Namespace) -> int:
    from critlab.analysis.report import main as report_main

    return report_main(args)


@contextmanager
def _interrupts_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread meanwhile, then unblocked (a Ctrl-C meanwhile is
    raised then): the threads started meanwhile inherit the block, so that a Ctrl-C
    always reaches this thread, which the local cluster's start-up relies on
    (kernels.cluster keeps a Ctrl-C while it starts pending, not lost)."""
    held = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    if held:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if held:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _named(argv: Sequence[str]) -> dict[str, str]:
    """The subcommand and built-in system named first on the command line
    (``exact thac0 ...``), so that only their parsers are built; else nothing."""
    from critlab.analysis.systems import MODULES

    if len(argv) >= 2 and argv[0] in ("exact", "simulate", "validate") and argv[1] in MODULES:
        return {"command": argv[0], "only": argv[1]}
    if argv[:1] and argv[0] in ("exact", "simulate", "validate"):  # its systems, not tune's or fight's
        return {"command": argv[0]}
    return {}


def _run(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from critlab.analysis.cli import encounter as encounter_cli

    if encounter_cli.is_design_argv(argv):  # an encounter file standing for SYSTEM
        status = encounter_cli.run_design(argv)
        sys.stdout.flush()
        return status
    command = next((a for a in argv if not a.startswith("-")), None)
    # No subcommand (--version, --help) or dice/report: no rule system's flags are needed,
    # so neither the systems nor NumPy load (RULES: --help within 0.3 s).
    systems = command not in (None, "dice", "report", "encounter")
    mechanics: list[Any] = []
    if systems and any(":" in a for a in argv[:2]):  # a designer's mechanic: compiled, with Numba
        from critlab.analysis.mechanic.load import systems_in_argv

        mechanics = systems_in_argv(argv)
    with _interrupts_blocked():  # the threads loading the rule systems starts inherit the block
        parser = _build_parser(mechanics, systems=systems, **_named(argv))
    args = parser.parse_args(_dash_values(parser, argv))
    if args.command == "dice":
        from critlab.analysis.cli import dice as dice_cli

        status = dice_cli.run(args)
    elif args.command == "report":
        status = _cmd_report(args)
    elif args.command in ("tune", "sensitivity"):
        from critlab.analysis.cli import design as designer_cli

        status = designer_cli.run(args)
    elif args.command == "fight":
        from critlab.analysis.cli import fight as fight_cli

        status = fight_cli.run(args)
    elif args.command == "encounter":
        from critlab.analysis.cli import encounter as encounter_cli

        status = encounter_cli.run(args)
    else:
        status = _cmd_system(args)
    # Written out here, inside the error handling: a full disk must not surface as
    # "Exception ignored" when the interpreter flushes stdout on its way out.
    sys.stdout.flush()
    return status


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of what could not be
    written (a closed pipe, a full disk) neither fails nor prints."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is no file (a test's capture): nothing to flush
        pass


def _error(message: object) -> int:
    print(f"critlab: error: {one_line(message)}", file=sys.stderr, flush=True)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``critlab`` console command: the exit status (0 done, 1 a
    validation failed, 2 bad input or a failure to run, 130 interrupted); every failure
    is one line on stderr."""
    from critlab.analysis.cli.interrupts import interrupts_end_the_run

    try:
        with interrupts_end_the_run():
            return _run(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2, already printed)
        return exc.code if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:
        print("critlab: interrupted", file=sys.stderr, flush=True)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `critlab dice 1d6! | head`): stop quietly
        _silence_stdout()
        return 0
    except MissingParameter as exc:  # named as the flag to give
        return _error(exc.flag_text())
    except (SpecError, ValueError) as exc:
        return _error(exc)
    except MemoryError:
        return _error("out of memory (a smaller expression, grid or trial count fits)")
    except OSError as exc:  # a full disk, a file that went away, a lost cluster connection
        if exc.filename is None and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO):
            _silence_stdout()  # it was stdout: its last flush would fail again
            return _error(f"cannot write the output: {exc.strerror}")
        where = f": {exc.filename}" if exc.filename else ""
        return _error(f"{exc.strerror or exc}{where}")


if __name__ == "__main__":
    sys.exit(main())
