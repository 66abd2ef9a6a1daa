"""The ``critlab dice`` subcommand: dice expressions' exact distributions, read in words.

::

    critlab dice EXPR [EXPR ...] [--dialect critlab|roll20|foundry] [--json]

Each expression's reading in words, then P(= v), P(>= v) and P(<= v) in percent (several:
side by side); ``--json`` the documented object (a list for several). ``--dialect`` (or
the environment's ``CRITLAB_DIALECT``, the flag winning) reads every expression as that
tool does; an expression written ``roll20:EXPR`` names its own. It imports neither the
rule systems nor Numba.
"""

from __future__ import annotations

import argparse
from typing import Any

from critlab.analysis.dice.dialect import DIALECTS, ENVIRONMENT

# Every suffix of the notation with an example (docs/rules.md, "Dice notation", says it all).
NOTATION = f"""\
the notation (docs/rules.md, "Dice notation"): terms joined by + and -, numbers,
and a comparison; suffixes in this order, S a selector, K and T numbers:
  faces        2d6, d20 (1d20), 1d% (d100), 4dF (-1, 0, +1), 2d{{1,1,2}} (listed)
  rrS          reroll while the face meets S: 1d20rr1, 1d6rr<=2
  roS          reroll once: 2d6ro<=2
  miT maT      clamp each face: 2d6mi3, 1d20ma18, 3d6mi2ma5
  ! !S !o      explode on the maximum (or S) into the die: 1d6!, 1d6!>=5, 1d6!o
  !!           the same as !: 5d6!!
  !p           penetrating, each added roll 1 less: 1d6!p
  x xS xo      explode, each added roll a die of its own: 5d10x10cs>=8, 4d6xkh3
  khK klK k    keep the highest / lowest K: 4d6kh3, 2d20kl1, 6d10!kh3 (k = kh)
  dlK dhK      drop the lowest / highest K: 4d6dl1, 3d6xdh1
  csS dfS      count successes, minus botches: 5d10cs>=8, 10d10cs>=6df=1
  cfS          count failures: 6d6cf<=2
  *K /K        scale (/ rounds down): 2d6*2, 1d6/2
  groups       {{1d8!, 1d6!}}kh1, {{d6, d6, d8, d12}}kh2, {{1d6, 1d8, 1d10}}cs>=5
  comparison   1d20+5>=15 (1 where it holds, else 0)
  S            T (that face alone: 1d6rr2 rerolls only 2s), =T, <T, <=T, >T, >=T
dialects (--dialect, {ENVIRONMENT}, or roll20:/foundry: before an expression):
  roll20       Roll20's Dice Reference: '8d6>4' counts the dice of 4 or more
  foundry      Foundry VTT's dice modifiers: '4d6r1' rerolls once, '1d20min10'
"""


def add_parser(subparsers: Any) -> None:
    """Add ``dice`` to the command line's ``subparsers``."""
    dice = subparsers.add_parser(
        "dice",
        help="exact distribution of dice expressions (several: side by side)",
        description="Exact distribution of dice expressions, each read in words first.",
        epilog=NOTATION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    dice.add_argument("expr", nargs="+", help="dice notation, e.g. 4d6dl1, 2d6+1 or 1d6! (suffixes below)")
    dice.add_argument(
        "--dialect",
        help=f"read the expressions as that tool does: {', '.join(DIALECTS)} (default: ${ENVIRONMENT}, "
        "else critlab)",
    )
    dice.add_argument("--json", action="store_true", help="print the documented JSON (a list for several)")


def run(args: argparse.Namespace) -> int:
    """Print the expressions' readings and tables (or JSON); bad input raises a
    ``ValueError`` (one line, exit 2)."""
    from critlab.analysis.cli.args import _print_json
    from critlab.analysis.dice.dialect import check_dialect, from_environment
    from critlab.analysis.dice.notation import parse
    from critlab.analysis.views import dice as view

    dialect = check_dialect("--dialect", args.dialect) if args.dialect is not None else from_environment()
    exprs = [parse(text, dialect) for text in args.expr]  # every expression checked before any output
    if args.json:
        objs = [view.to_json(e) for e in exprs]
        _print_json(objs[0] if len(objs) == 1 else objs)
    else:
        print("\n".join(view.table_lines(exprs)))
    return 0


__all__ = ["NOTATION", "add_parser", "run"]
