"""What the command line's subcommands share: flags from parameter declarations,
numbers read from text, JSON and tables printed, the Dask client of ``--scheduler``.

The subcommand modules (:mod:`critlab.analysis.cli.main`, ``fight_cli``, ``designer_cli``)
all import from here, so none of them imports another.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from contextlib import nullcontext
from typing import Any, NoReturn

from critlab.analysis.spec import SpecError, check_int, coerce, field_types
from critlab.analysis.text.digits import plain
from critlab.analysis.text.numtext import count_text, is_int_text, is_number_text, one_line

MAX_THREADS = 1024


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2, and never
    takes an abbreviation of a flag for the flag (``--crit-ran`` is not ``--crit-range``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"critlab: error: {one_line(message)}\n")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _add_system_params(parser: argparse.ArgumentParser, system: Any, skip: tuple[str, ...] = ()) -> None:
    """One flag per spec parameter (but those in ``skip``), its ``--help`` from the
    parameter's declaration (meaning, range or choices, the modes that use it, default);
    see docs/rules.md. Every subcommand that takes a system's parameters uses this."""
    from critlab.analysis.params import declared, help_line

    types = field_types(system.spec)
    decls = declared(system.spec)
    group = parser.add_argument_group(f"{system.name} parameters (see docs/rules.md)")
    for f in dataclasses.fields(system.spec):
        if f.name in skip:
            continue
        if f.name in decls:
            text, metavar = help_line(system.spec, f.name), decls[f.name].kind.metavar
        else:
            base = types[f.name][0]
            default = f.default if f.default is not dataclasses.MISSING else "required where the mode uses it"
            shown = str(default).lower() if isinstance(default, bool) else default
            text = f"default: {'none' if default is None else shown}"
            metavar = {bool: "true|false", int: "INT", float: "NUMBER"}.get(base, "TEXT")
        group.add_argument(_flag(f.name), dest=f"p_{f.name}", metavar=metavar, help=text.replace("%", "%%"))


def _int_arg(name: str, text: str | None, lo: int, hi: int) -> int | None:
    if text is None:
        return None
    if not is_int_text(text):
        raise SpecError(name, text, f"must be an integer in {lo}..{hi}, written in ASCII digits")
    return check_int(name, int(text), lo, hi)


def _count_arg(name: str, text: str | None, lo: int, hi: int) -> int | None:
    """A count such as ``--trials``: an integer, also in exact scientific form (``1e6``)."""
    if text is None:
        return None
    value = count_text(text)
    if value is None:
        raise SpecError(
            name, text, f"must be an integer in {lo}..{hi} written in ASCII digits, e.g. 1000000 or 1e6"
        )
    return check_int(name, value, lo, hi)


def _alpha_arg(text: str) -> float:
    allowed = "must be a number in (0, 1), written in ASCII digits, e.g. 0.001"
    if not is_number_text(text) or not 0 < float(text) < 1:
        raise SpecError("alpha", text, allowed)
    return float(text)


# A value that begins with "-" but is no flag: a dice expression or a negative number.


def _simulation_options(
    args: argparse.Namespace, what: str
) -> tuple[int, int | None, int | None, float | None] | None:
    """``(trials, seed, threads, alpha)`` of a subcommand that is exact unless ``--trials``
    is given (``fight``, ``encounter``), each checked before anything is computed; ``None``
    without ``--trials``, where a simulation-only flag is one line naming it."""
    from critlab.analysis.run import MAX_SEED, MAX_TRIALS

    if args.trials is None:
        for name in ("seed", "alpha", "threads", "scheduler"):
            if getattr(args, name) is not None:
                raise SpecError(
                    name, getattr(args, name), f"needs --trials: {what} is exact unless simulated"
                )
        return None
    return (
        _count_arg("trials", args.trials, 1, MAX_TRIALS),
        _int_arg("seed", args.seed, 0, MAX_SEED),
        _int_arg("threads", args.threads, 1, MAX_THREADS),
        _alpha_arg(args.alpha) if args.alpha is not None else None,
    )


def _spec_from_args(system, args: argparse.Namespace):
    params = {}
    for f in dataclasses.fields(system.spec):
        text = getattr(args, f"p_{f.name}")
        if text is not None:
            params[f.name] = coerce(system.spec, f.name, text)
    return system.make_spec(**params)


def _print_json(obj: Any) -> None:
    print(json.dumps(plain(obj), indent=2, allow_nan=False))  # 15 significant digits a number


def _format_table(title: str, rows: list[tuple[str, str]]) -> str:
    width = max((len(k) for k, _ in rows), default=0)
    return "\n".join([title, *(f"  {k:<{width}}  {v}" for k, v in rows)])


def _cluster(scheduler: str | None):
    """A Dask client for ``--scheduler`` (closed on exit), or ``None`` without one: Dask
    is imported only when asked for."""
    if scheduler is None:
        return nullcontext(None)
    from critlab.kernels.scheduler import connect

    return connect(scheduler)


def add_run_flags(parser: Any, *, trials_help: str, required: bool) -> None:
    """The flags of every command that simulates: ``--trials``, ``--seed``, ``--threads``,
    ``--no-progress`` and ``--scheduler``."""
    parser.add_argument("--trials", required=required, help=trials_help)
    parser.add_argument("--seed", help="non-negative integer; drawn from the OS when absent")
    parser.add_argument("--threads", help=f"worker threads, 1..{MAX_THREADS} (default: all cores)")
    parser.add_argument(
        "--no-progress", action="store_true", help="never show a progress bar or a compile's notice"
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS|local",
        help="run the blocks on the Dask scheduler at ADDRESS, or on a local 2-process cluster "
        "(same counts; --threads is then ignored)",
    )
