"""The ``critlab encounter`` subcommand: who wins when both sides fight back, exact by default.

::

    critlab encounter FILE [--trials N [--seed S] [--alpha A] [--threads T] [--scheduler ADDRESS|local]]
                      [--json]

FILE is an encounter in TOML (see :mod:`critlab.analysis.encounter.load`). Without
``--json`` a short table: P(a wins), P(b wins), P(draw), P(undecided) as percentages, the
mean rounds, and each combatant's P(down) and mean hit points left. ``--json`` prints
``{"encounter": {every setting, defaults filled}, "outcomes", "distributions",
"metrics"}``; ``--trials`` adds ``"simulated"`` and ``"validation"`` and exits 1 when the
validation fails. An encounter the exact chain refuses (over 10^7 states) is simulated
alone when ``--trials`` is given (no validation then), else it exits 2 with one line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from critlab.analysis.spec import SpecError
from critlab.analysis.text.human import amount, change, percent

COMMAND = "encounter"
# The rules' bounds on trials and seeds (as every simulating command reads them).
# Options that only a simulation uses: given without --trials they are an error.


def add_parser(subparsers: Any) -> None:
    """Add ``encounter`` to the command line's ``subparsers`` (it imports nothing heavy)."""
    from critlab.analysis.cli.args import add_run_flags

    cmd = subparsers.add_parser(COMMAND, help="who wins when both sides fight back (exact; --trials adds MC)")
    cmd.add_argument("file", metavar="FILE", help="an encounter in TOML (see docs/rules.md, Encounters)")
    sim = cmd.add_argument_group("simulation (with --trials: simulated and validated)")
    add_run_flags(
        sim, trials_help="simulate this many encounters, 1..10^13, and validate them", required=False
    )
    sim.add_argument("--alpha", help="significance level of the validation (default 0.001)")
    cmd.add_argument("--json", action="store_true", help="print the rules' JSON")


def print_table(result: Any, simulated: Any = None) -> None:
    """The readable table of an exact (or, alone, a simulated) encounter result."""
    from critlab.analysis.cli.args import _format_table

    enc = result.encounter if result is not None else simulated.encounter
    source = result if result is not None else simulated
    outcomes = source.outcomes
    print(f"encounter: order {enc.order}, max_rounds {enc.max_rounds}")
    for s, side in (("a", enc.a), ("b", enc.b)):
        members = ", ".join(f"{c.name} ({c.hp} hp)" for c in side.combatants)
        print(f"  side {s} ({side.targeting}): {members}")
    names = {"a_wins": "P(a wins)", "b_wins": "P(b wins)", "draw": "P(draw)", "undecided": "P(undecided)"}
    rows = []
    se = dict(zip(simulated.labels, simulated.tally.standard_errors, strict=True)) if simulated else {}
    for label, text in names.items():
        if result is not None and simulated is not None:
            seen = percent(simulated.outcomes[label], se[label])
            cell = f"{percent(outcomes[label]):>7}   simulated {seen}"
        elif simulated is not None:
            cell = percent(outcomes[label], se[label])  # to its standard error's second digit
        else:
            cell = percent(outcomes[label])
        rows.append((text, cell))
    rows.append(("mean rounds", amount(source.metrics["mean_rounds"], missing="null")))
    print(_format_table("outcomes" if result is not None else "simulated outcomes", rows))
    width = max(len(c.name) for c in enc.combatants)
    print(f"  {'combatant':<{width}}  side    hp  P(down)  mean hp left")
    for k, c in enumerate(enc.combatants):
        side = "a" if k < enc.n_a else "b"
        down, left = source.metrics[f"p_down_{c.name}"], source.metrics[f"mean_hp_left_{c.name}"]
        print(f"  {c.name:<{width}}  {side:>4}  {c.hp:>4}  {percent(down):>7}  {amount(left):>12}")
    for s in ("a", "b"):
        print(f"  P(someone on side {s} goes down) {percent(source.metrics[f'p_any_down_{s}'])}")
    for s in ("a", "b"):
        gain = source.metrics.get(f"best_gain_{s}")
        if gain is not None:  # how much tactics matter
            added = change(gain, probability=True)
            print(f"  best targeting adds {added} to P({s} wins) over its best fixed policy")


def run(args: argparse.Namespace) -> int:
    """Run ``critlab encounter``: 0 done, 1 the validation failed; a bad file or option
    raises SpecError or ValueError (exit 2, one line)."""
    from critlab.analysis.cli import args as cli
    from critlab.analysis.encounter.exact import exact_encounter
    from critlab.analysis.encounter.load import load_encounter

    options = cli._simulation_options(args, "an encounter")
    simulating = options is not None
    if simulating:
        trials, seed, threads, alpha = options
    enc = load_encounter(args.file)
    try:
        exact = exact_encounter(enc)
    except SpecError as exc:
        if not simulating or exc.name != "encounter":
            raise
        exact = None  # over the exact chain's bound: the simulation still runs
    if not simulating:
        cli._print_json(exact.to_json()) if args.json else print_table(exact)
        return 0
    from critlab.analysis.encounter.sim import simulate_encounter
    from critlab.analysis.validate import DEFAULT_ALPHA, validate

    progress = False if args.no_progress else None
    with cli._cluster(args.scheduler) as client:
        sim = simulate_encounter(
            enc, trials=trials, seed=seed, threads=threads, progress=progress, client=client, exact=exact
        )
    if exact is None:
        if args.json:
            cli._print_json({"encounter": enc.to_json(), "simulated": sim.to_json()})
        else:
            print("exact: refused (over 10^7 states reached, or past the work budget); simulated only")
            print_table(None, sim)
        return 0
    v = validate(exact, sim, alpha=DEFAULT_ALPHA if alpha is None else alpha)
    if args.json:
        cli._print_json({**exact.to_json(), "simulated": sim.to_json(), "validation": v.to_json()})
    else:
        print_table(exact, sim)
        print(f"simulated: {sim.trials:,} encounters, seed {sim.seed}")
        print(v.text())  # the verdict in words, then the statistics
    return 0 if v.passed else 1


__all__ = ["COMMAND", "add_parser", "print_table", "run"]


# -- tune and sensitivity over an encounter file -------------------------------------------
def is_design_argv(argv: list[str]) -> bool:
    """Whether ``argv`` is ``tune FILE.toml ...`` or ``sensitivity FILE.toml ...``: an
    encounter file standing for SYSTEM."""
    return len(argv) >= 2 and argv[0] in ("tune", "sensitivity") and argv[1].endswith(".toml")


def _design_parser(command: str) -> argparse.ArgumentParser:
    from critlab.analysis.cli.args import _Parser

    p = _Parser(prog=f"critlab {command}", description=f"{command} over an encounter file's settings")
    p.add_argument("file", metavar="FILE", help="an encounter in TOML")
    if command == "tune":
        p.add_argument(
            "--vary", action="append", required=True, help="SETTING=LO..HI or SETTING=A,B (repeatable)"
        )
        p.add_argument("--target", required=True, help="QUANTITY=VALUE, e.g. a_wins=0.75")
        p.add_argument("--top", help="points to print (default 5)")
    else:
        from critlab.analysis.cli.design import add_narrowing

        add_narrowing(p, "SETTING", "the integer settings to perturb (default: every one)")
    p.add_argument("--json", action="store_true", help="print the JSON")
    from critlab.analysis.cli.design import add_scheduler

    add_scheduler(p)
    return p


def _vary(enc: Any, texts: list[str]) -> dict[str, Any]:
    from critlab.analysis.cli.design import vary_values
    from critlab.analysis.encounter.settings import setting_kind

    out: dict[str, Any] = {}
    for text in texts:
        name, sep, spec = text.partition("=")
        if not sep or not name or not spec.strip():
            raise SpecError("vary", text, "must be SETTING=LO..HI or SETTING=A,B,..., e.g. ogre.hp=30..90")
        name = name.strip()
        if name in out:
            raise SpecError(name, spec, "is varied twice: give one --vary per setting")
        kind, _ = setting_kind(enc, name)
        out[name] = vary_values(name, spec, kind)
    return out


def run_design(argv: list[str]) -> int:
    """``critlab tune FILE.toml --vary SETTING=LO..HI --target QUANTITY=VALUE [--top K]
    [--json]`` and ``critlab sensitivity FILE.toml [--json]``."""
    import math

    from critlab.analysis.cli.args import _cluster, _print_json
    from critlab.analysis.encounter.load import load_encounter
    from critlab.analysis.encounter.model import EncounterModel

    command = argv[0]
    args = _design_parser(command).parse_args(argv[1:])
    enc = load_encounter(args.file)
    model = EncounterModel(enc)
    if command == "sensitivity":
        from critlab.analysis.cli.design import names_list, print_sensitivity
        from critlab.analysis.design.sensitivity import sensitivity_model

        only, quantities = names_list("--only", args.only), names_list("--quantities", args.quantities)
        with _cluster(args.scheduler) as client:
            df = sensitivity_model(model, only=only, quantities=quantities, client=client)
        if args.json:
            rows = [
                {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                for r in df.to_dict(orient="records")
            ]
            _print_json({"encounter": enc.to_json(), "rows": rows})
        else:
            print_sensitivity(df, _encounter_probability)
        return 0
    quantity, sep, value = args.target.rpartition("=")
    try:
        goal = float(value)
    except ValueError:
        goal = math.nan
    if not sep or not quantity.strip() or not math.isfinite(goal):
        raise SpecError(
            "target", args.target, "must be QUANTITY=VALUE with a finite number, e.g. a_wins=0.75"
        )
    top = 5 if args.top is None else int(args.top) if args.top.isdigit() and int(args.top) >= 1 else None
    if top is None:
        raise SpecError("top", args.top, "must be a positive integer")
    from critlab.analysis.design.grid import tune_model

    vary = _vary(enc, args.vary)
    with _cluster(args.scheduler) as client:
        df = tune_model(model, vary=vary, target=(quantity.strip(), goal), top=top, client=client)
    a = df.attrs
    from critlab.analysis.cli.design import skipped_line

    line = skipped_line("tune", a)
    if line:
        print(line, file=sys.stderr)
    names = [c for c in df.columns if c not in ("value", "error")]
    if args.json:
        points = [
            {
                "params": {n: (r[n].item() if hasattr(r[n], "item") else r[n]) for n in names},
                "value": float(r["value"]),
                "error": float(r["error"]),
            }
            for r in df.to_dict(orient="records")
        ]
        out = {"encounter": enc.to_json(), "target": a["target"], "points": points, "skipped": a["skipped"]}
        _print_json({**out, "first_refusal": a["first_refusal"]})
        return 0
    t = a["target"]
    print(f"target {t['quantity']} = {t['value']:g}: {a['points']} points, {a['skipped']} skipped")
    from critlab.analysis.cli.design import print_tune

    print_tune(df, _encounter_probability(t["quantity"]))
    return 0


def _encounter_probability(quantity: str) -> bool:
    """Whether an encounter's quantity is a probability: its outcomes (joined by ``+``),
    ``p_`` metrics and ``best_gain_`` (a difference of probabilities)."""
    from critlab.analysis.design.quantity import is_probability_name
    from critlab.analysis.encounter.exact import LABELS

    return is_probability_name(quantity, LABELS) or quantity.startswith("best_gain_")
