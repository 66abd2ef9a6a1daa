"""The designer's subcommands of ``critlab``: ``tune`` and ``sensitivity``.

::

    critlab tune SYSTEM --vary PARAM=LO..HI [--vary PARAM=A,B,...] --target QUANTITY=VALUE [--top K]
                 [--PARAM VALUE ...] [--json]
    critlab sensitivity SYSTEM [--only PARAM,...] [--quantities Q,...] [--PARAM VALUE ...] [--json]

:func:`add_parsers` adds them to the command line's subparsers and :func:`run` runs
one; a bad option raises :class:`~critlab.analysis.spec.SpecError`, which the command
line prints as one line with exit status 2. Fight parameters (``--hp``,
``--attacks-per-round``, ``--max-rounds``) make the fight's outcomes and metrics
quantities too.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from critlab.analysis.cli.args import _add_system_params, _cluster, _flag
from critlab.analysis.design.quantity import (
    Quantity,
    fight_params_of,
    is_probability_name,
    snake,
    split_fight,
)
from critlab.analysis.design.tune import DEFAULT_TOP, MAX_GRID, known_params, param_kind, tune_params
from critlab.analysis.params import Int, declared
from critlab.analysis.results import json_number as _num
from critlab.analysis.spec import SpecError, coerce
from critlab.analysis.systems import get_system, registry
from critlab.analysis.text.digits import plain
from critlab.analysis.text.numtext import is_int_text, is_number_text

COMMANDS = ("tune", "sensitivity")
_RANGE = re.compile(r"\s*([+-]?[0-9]+)\s*\.\.\s*([+-]?[0-9]+)\s*")
_FIGHT_HELP = {
    "hp": "the target's hit points, 1..10^6: the fight's outcomes and metrics become quantities",
    "attacks_per_round": "attacks a round in the fight, 1..100 (default 1)",
    "max_rounds": "rounds before a fight is undecided, 1..10^6 (default 1000)",
}


def _add_params(parser: argparse.ArgumentParser, system: Any, skip: tuple[str, ...] = ()) -> None:
    """One flag per spec parameter (``--help`` from its declaration), and the fight's."""
    _add_system_params(parser, system, skip)
    names = fight_params_of(system)
    if names:
        fight = parser.add_argument_group("fight (a repeated attack against hp; see docs/rules.md)")
        for name in names:
            fight.add_argument(_flag(name), dest=f"p_{name}", metavar="INT", help=_FIGHT_HELP[name])


SYSTEM_HELP = "a rule system below, an encounter file (FILE.toml) or a mechanic (file.py:function)"


def add_parsers(subparsers: Any, mechanics: Sequence[Any] = ()) -> None:
    """Add ``tune`` and ``sensitivity`` (one sub-subcommand per system, and per mechanic
    named on the command line) to ``subparsers``."""
    tune = subparsers.add_parser("tune", help="parameter values that bring a quantity nearest a target")
    sens = subparsers.add_parser("sensitivity", help="every quantity at each integer parameter ± 1")
    for command in (tune, sens):
        systems = command.add_subparsers(
            dest="system", required=True, metavar="SYSTEM", parser_class=type(command), help=SYSTEM_HELP
        )
        for system in (*registry().values(), *mechanics):
            sp = systems.add_parser(system.name, help=system.title)
            shared = ()
            if command is tune:
                sp.add_argument(
                    "--vary",
                    action="append",
                    required=True,
                    metavar="PARAM=LO..HI|A,B",
                    help="an integer parameter over LO..HI, or any parameter over a comma list; "
                    "repeat for a grid (the first varies slowest)",
                )
                # A spec parameter called target (crits-cats) shares the flag: its value is
                # a plain number, the tuning target's is QUANTITY=VALUE.
                shared = ("target",) if "target" in {f.name for f in dataclasses.fields(system.spec)} else ()
                sp.add_argument(
                    "--target",
                    dest="targets",
                    action="append",
                    required=True,
                    metavar="QUANTITY=VALUE",
                    help="an outcome, outcomes joined by '+', or a metric, and the value to approach"
                    + (f"; a plain number is {system.name}'s own target parameter" if shared else ""),
                )
                sp.add_argument("--top", metavar="K", help=f"points to list (default {DEFAULT_TOP})")
                sp.add_argument("--no-progress", action="store_true", help="never show a progress bar")
            else:
                add_narrowing(sp, "PARAM", "the integer parameters to perturb (default: every one)")
            sp.add_argument("--json", action="store_true", help="print the JSON of docs/rules.md")
            add_scheduler(sp)
            _add_params(sp, system, shared)


def add_narrowing(parser: argparse.ArgumentParser, metavar: str, what: str) -> None:
    """``--only`` and ``--quantities``, which narrow a sensitivity (systems' and encounters')."""
    parser.add_argument("--only", metavar=f"{metavar}[,{metavar}...]", help=what)
    parser.add_argument(
        "--quantities", metavar="Q[,Q...]", help="the outcomes and metrics to report (default: every one)"
    )


def add_scheduler(parser: argparse.ArgumentParser) -> None:
    """``--scheduler``: the exact points on a Dask cluster (the answers are the local ones)."""
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS|local",
        help="compute the exact points on the Dask scheduler at ADDRESS, or on a local 2-process "
        "cluster (the same answers; the work budget times its workers)",
    )


def names_list(flag: str, text: str | None) -> list[str] | None:
    """A comma list of ``--only`` or ``--quantities`` (``None`` when not given).

    >>> names_list("--only", "to-hit, thac0")
    ['to-hit', 'thac0']
    """
    if text is None:
        return None
    names = [t.strip() for t in text.split(",")]
    if not all(names):
        raise SpecError(
            flag.lstrip("-"), text, "must be a comma list of names with none empty, e.g. thac0,to_hit"
        )
    return names


def skipped_line(command: str, attrs: dict[str, Any]) -> str | None:
    """The one stderr line of a tune's skipped points: how many, why, the first refusal
    (``None`` when none was skipped)."""
    if not attrs["skipped"]:
        return None
    why = f"; the first refused {attrs['first_refusal']}" if attrs["first_refusal"] else ""
    counts = (
        f"{attrs['refused']} refused by the rules, {attrs['null']} with a null {attrs['target']['quantity']}"
    )
    return f"critlab {command}: {attrs['skipped']} of {attrs['points']} points skipped ({counts}){why}"


def print_tune(df: Any, probability: bool) -> None:
    """A tune's points for people: the value in percent for a probability (else an
    amount), the error in percentage points (else a signed amount)."""
    from critlab.analysis.text.human import change, number

    shown = df.astype(object)
    shown["value"] = [number(v, probability=probability) for v in df["value"]]
    shown["error"] = [change(e, probability=probability) for e in df["error"]]
    print(shown.to_string(index=False))


def print_sensitivity(df: Any, probability: Any = None) -> None:
    """A sensitivity's text for people: the rows that change (the others said in a last
    line), each quantity in percent where ``probability(quantity)`` says so."""
    import pandas as pd  # here: the help of tune and sensitivity loads no pandas

    from critlab.analysis.design.sensitivity import changing
    from critlab.analysis.text.human import number

    shown = changing(df).astype(object)
    is_prob = probability or (lambda q: False)
    for col in ("at", "minus_1", "plus_1"):
        shown[col] = [
            number(v, probability=is_prob(q), missing="null")
            for v, q in zip(shown[col], shown["quantity"], strict=True)
        ]
    with pd.option_context("display.max_rows", None, "display.width", 120):
        if len(shown):
            print(shown.to_string(index=False))
    left = len(df) - len(shown)
    if left:
        every = "every row" if not len(shown) else f"{left:,} rows"
        print(f"({every} with the same value at -1, here and +1 left out; --json lists them)")


# -- reading the options -------------------------------------------------------------------
def _given(system: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The parameters given as flags, read by their types (fight parameters as integers)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(system.spec):
        text = getattr(args, f"p_{f.name}", None)
        if text is not None:
            out[f.name] = coerce(system.spec, f.name, text)
    for name in fight_params_of(system):
        text = getattr(args, f"p_{name}", None)
        if text is not None:
            if not is_int_text(text):
                raise SpecError(name, text, "must be an integer, written in ASCII digits")
            out[name] = int(text)
    return out


def parse_vary(system: Any, texts: list[str], given: dict[str, Any]) -> dict[str, Any]:
    """``--vary`` options as ``{param: values}`` (ranges stay ``range`` objects, so a huge
    one is refused by its size, not listed).

    >>> from critlab.analysis.systems import get_system
    >>> parse_vary(get_system("thac0"), ["target-ac=-2..3", "crit_option=double,max"], {})
    {'target_ac': range(-2, 4), 'crit_option': ('double', 'max')}
    """
    known = known_params(system)
    out: dict[str, Any] = {}
    for text in texts:
        name, sep, spec = text.partition("=")
        name = snake(name)
        if not sep or not name or not spec.strip():
            raise SpecError("vary", text, "must be PARAM=LO..HI or PARAM=A,B,..., e.g. crit_range=0..10")
        if name not in known:
            raise SpecError(name, spec, f"is not a parameter of {system.name}; known: {', '.join(known)}")
        if name in out:
            raise SpecError(name, spec, "is varied twice: give one --vary per parameter")
        if name in given:
            raise SpecError(name, spec, f"is also given as {_flag(name)}: vary it or set it, not both")
        kind, _ = param_kind(system, name)
        decl = declared(system.spec).get(name)
        step = (decl.kind.lo, decl.kind.step) if decl is not None and isinstance(decl.kind, Int) else (0, 1)
        out[name] = vary_values(name, spec, kind, lambda t, name=name: coerce(system.spec, name, t), step)
    return out


def vary_values(
    name: str, spec: str, kind: str, word: Callable[[str], Any] = str, step: tuple[int, int] = (0, 1)
) -> range | tuple:
    """The values of one ``--vary NAME=SPEC``: ``LO..HI`` or a comma list of integers for an
    integer ``kind``, a comma list read by ``word`` otherwise (ASCII digits only). An
    integer declared with a step (``step`` = its first value and step) varies over its own
    values between LO and HI: a trait die's 4..12 is 4, 6, 8, 10, 12.

    >>> vary_values("hp", "3..5", "int"), vary_values("order", "a-first, rolled", "choice")
    (range(3, 6), ('a-first', 'rolled'))
    >>> vary_values("trait", "4..12", "int", step=(4, 2))
    range(4, 13, 2)
    """
    m = _RANGE.fullmatch(spec)
    if kind == "int" and m is not None:
        lo, hi = int(m.group(1)), int(m.group(2))
        if lo > hi:
            raise SpecError(name, spec, f"LO..HI needs LO <= HI, got {lo} > {hi}")
        first, every = step
        return range(lo + (first - lo) % every, hi + 1, every)
    items = [t.strip() for t in spec.split(",")]
    if any(not t for t in items):
        raise SpecError(name, spec, "has an empty value in its comma list")
    if kind == "int":
        if not all(is_int_text(t) for t in items):
            raise SpecError(name, spec, "must be LO..HI or a comma list of integers, e.g. 0..10")
        return tuple(int(t) for t in items)
    return tuple(word(t) for t in items)


def parse_target(text: str) -> tuple[str, float]:
    """``--target QUANTITY=VALUE``.

    >>> parse_target("hit+crit=0.5")
    ('hit+crit', 0.5)
    """
    quantity, sep, value = text.rpartition("=")
    if not sep or not quantity.strip() or not is_number_text(value) or not math.isfinite(float(value)):
        raise SpecError("target", text, "must be QUANTITY=VALUE with a finite number, e.g. crit=0.08")
    return quantity.strip(), float(value)


def _top(text: str | None) -> int:
    if text is None:
        return DEFAULT_TOP
    if not is_int_text(text) or not 1 <= int(text) <= MAX_GRID:
        raise SpecError("top", text, f"must be an integer in 1..{MAX_GRID}")
    return int(text)


# -- the commands --------------------------------------------------------------------------
def _plain(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def _split_targets(system: Any, args: argparse.Namespace) -> str:
    """The one ``--target QUANTITY=VALUE``; a plain value of a shared ``--target`` is the
    spec's own ``target`` parameter (set on ``args`` as its flag would)."""
    goals = [t for t in args.targets if "=" in t]
    plain = [t for t in args.targets if "=" not in t]
    own = "target" in {f.name for f in dataclasses.fields(system.spec)}
    if plain and not own:
        raise SpecError("target", plain[0], "must be QUANTITY=VALUE, e.g. crit=0.08")
    if len(plain) > 1:
        raise SpecError("target", plain[1], f"{system.name}'s target parameter is given twice")
    if plain:
        args.p_target = plain[0]
    if len(goals) != 1:
        shown = ", ".join(goals) or "none"
        raise SpecError("target", shown, "give exactly one --target QUANTITY=VALUE, e.g. crit=0.08")
    return goals[0]


def _tune(args: argparse.Namespace) -> int:
    system = get_system(args.system)
    goal = _split_targets(system, args)
    given = _given(system, args)
    vary = parse_vary(system, args.vary, given)
    target = parse_target(goal)
    top = _top(args.top)
    progress = False if args.no_progress else None
    with _cluster(args.scheduler) as client:
        df = tune_params(system, given, vary=vary, target=target, top=top, progress=progress, client=client)
    a = df.attrs
    line = skipped_line("tune", a)
    if line:
        print(line, file=sys.stderr)
    names = list(vary)
    if args.json:
        out: dict[str, Any] = {"system": system.name, "params": a["params"]}
        if a["fight"]:
            out["fight"] = a["fight"]
        out["target"] = a["target"]
        out["points"] = [
            {
                "params": {n: _plain(row[n]) for n in names},
                "value": float(row["value"]),
                "error": float(row["error"]),
            }
            for row in df.to_dict(orient="records")
        ]
        out["skipped"] = a["skipped"]
        out["first_refusal"] = a["first_refusal"]
        print(json.dumps(plain(out), indent=2, allow_nan=False))
        return 0
    fixed = ", ".join(f"{k}={v}" for k, v in {**a["params"], **a["fight"]}.items() if v is not None)
    print(f"{system.name}: {fixed}")
    t = a["target"]
    print(f"target {t['quantity']} = {t['value']:g}: {a['points']} points, {a['skipped']} skipped")
    best = system.make_spec(**split_fight(system, {**given, **{n: df[n].iloc[0] for n in names}})[0])
    print_tune(df, Quantity(system, t["quantity"]).is_probability(best))
    return 0


def _sensitivity(args: argparse.Namespace) -> int:
    from critlab.analysis.design.sensitivity import sensitivity

    system = get_system(args.system)
    spec_params, fight = split_fight(system, _given(system, args))
    spec = system.make_spec(**spec_params)
    only, quantities = names_list("--only", args.only), names_list("--quantities", args.quantities)
    with _cluster(args.scheduler) as client:
        df = sensitivity(spec, fight=fight, only=only, quantities=quantities, client=client)
    if args.json:
        out: dict[str, Any] = {"system": system.name, "params": spec.params()}
        if fight:
            out["fight"] = fight
        out["rows"] = [
            {
                "param": r["param"],
                "quantity": r["quantity"],
                "at": _num(r["at"]),
                "minus_1": _num(r["minus_1"]),
                "plus_1": _num(r["plus_1"]),
            }
            for r in df.to_dict(orient="records")
        ]
        print(json.dumps(plain(out), indent=2, allow_nan=False))
        return 0
    fixed = ", ".join(f"{k}={v}" for k, v in {**spec.params(), **fight}.items() if v is not None)
    print(f"{system.name}: {fixed}")
    labels = system.exact(spec).labels
    print_sensitivity(df, lambda q: is_probability_name(q, labels))
    return 0


def run(args: argparse.Namespace) -> int:
    """Run ``critlab tune`` or ``critlab sensitivity``; the exit status."""
    if args.command == "tune":
        return _tune(args)
    if args.command == "sensitivity":
        return _sensitivity(args)
    raise ValueError(f"not a designer command: {args.command!r}")


__all__ = [
    "COMMANDS",
    "add_narrowing",
    "add_parsers",
    "add_scheduler",
    "names_list",
    "parse_target",
    "parse_vary",
    "print_sensitivity",
    "run",
    "skipped_line",
]
