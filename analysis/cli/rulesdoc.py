"""docs/rules.md, generated from the rule systems themselves: each system's rules in its
module's own words, its parameters from their declarations, and its outcome labels,
distributions and metrics from exact results in every mode.

``python -m critlab.analysis.cli.rulesdoc`` (or ``make docs``) rewrites docs/rules.md; a test
fails when the file and the declarations disagree.

>>> text = render(["thac0"])
>>> "| `crit_threshold` |" in text and "`critical_hit`" in text
True
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from critlab.analysis.params import Choice, Int, declared, default_of
from critlab.analysis.spec import SpecError

HEADER = """# The rule systems

Generated from the code by `python -m critlab.analysis.cli.rulesdoc` (`make docs`); a test
keeps it in step. Every parameter is a flag of `critlab exact|simulate|validate SYSTEM`
in kebab case (`crit_range` → `--crit-range`); `none` spells an absent value; integers
accept −1000..1000 unless a range is given; a parameter that a mode does not use is
reported as `null`. Outcome labels partition a trial (their probabilities sum to 1);
every numeric distribution is per trial unless said otherwise, with an explicit `tail`
bin holding any mass (below 10⁻¹²) cut off from unbounded outcomes.

## Readings every system shares

- **Naturals and totals.** The natural is the face the dice show before modifiers; under a d20 roll mode
  (`roll`: `normal`, `advantage` = two d20 keep the higher, `disadvantage` = keep the lower) the kept die is
  the natural for every rule. The total is the natural plus modifiers.
- **Damage** is never negative: each damage roll is floored at 0 before anything else is done with it. Every
  numeric distribution is per trial; where its event does not happen the value is 0.
- **Exact decimals.** Fractions that the rules floor are computed exactly (`dr = 0.8` is 4/5).
- **Dice notation** (the field's: what Roll20, Foundry and the d20 notation accept, meaning what it means
  there). A term is `NdX` (faces `X`, `%`, `F` for -1/0/+1, or listed `{1,1,2}`; `0dX` is 0) with suffixes in
  this order: a reroll (`rr` while the face meets its selector, `ro` once), a clamp (`miT`, `maT`), an
  explosion (`!` or `!!` on the maximum or its selector, each added roll exploding again and never rerolled;
  `o` one added roll only; `!p` each added roll minus 1; `x` each added roll a die of its own, so keep and
  count see it), keep/drop over the dice's totals (`khK`, `kK`, `klK`, `dhK`, `dlK`; over an `x` term's every
  roll, explosions' own included: `4d6xkh3`, `4d6xdl1`), a count (`cs` the totals meeting its selector, minus
  with `df` those meeting df's; `cf`), and a scale (`*K`, `/K` rounding down). A selector is `T` (equality:
  **`1d6rr2` rerolls only 2s**; it once meant "2 or less", now `rr<=2`), `=T`, `<T`, `<=T`, `>T` or `>=T`. A
  group `{E1, E2, ...}` keeps, counts or sums its members' values (`{1d8!, 1d6!}kh1`, `{d6, d6, d8, d12}kh2`).
  Terms combine with `+`, `-` and integer modifiers, and a trailing comparison (`1d20+5>=15`) makes the value
  1 where it holds, else 0. Everything is exact (explosions with an explicit tail); limits on the text, the
  dice and the work an expression asks for are checked before any is done. Another tool's spelling is refused
  with critlab's (`4d6r1`: `rr1` or `ro1`; `4d6d1`: `dl1`; `1d20min10`: `mi10`; a `[label]`: a dialect).
- **Dialects.** `critlab dice --dialect roll20|foundry` (or `CRITLAB_DIALECT`, the flag winning),
  `critlab.dice(expr, dialect=...)` and a dice parameter written `roll20:EXPR` / `foundry:EXPR` read an
  expression as that tool's documentation defines it, restated in critlab's grammar (`roll20 8d6>4 =
  8d6cs>=4`). Roll20: `!` explodes into dice of their own (`x`), `!!` compounds (`!`), `!p` penetrates; a
  compare point `>T` is T or more, `<T` T or less; a bare compare point after dice counts successes
  (`8d6>4`), `fT` subtracts failures; `r` rerolls while (several join), `ro` once; `k` = `kh`, `d` = `dl`;
  `cs`/`cf` (colour), sorting and `[labels]` change nothing; matches (`m`, `mt`) are refused; a group of one
  roll acts on its dice (`{5d6!!}>8`), of several on their totals; computed dice (`(1+2)d6`) are integers,
  and words after the formula (or a `\\`) say what it is for. Foundry applies modifiers in the order
  written: `r` once, `rr` while, `x`/`xo`, `k`/`kh`/`kl`/`d`/`dl`/`dh` (1 where unwritten), `min`/`max`
  (`mi`/`ma`), `cs`/`cf`/`df`/`sf`/`even`/`odd` as each result counts there (`6d6even` is
  `6d{0,1,0,1,0,1}`), `ms` (the target off the total), compare points strict (`cs>10` is 11 or more),
  labels ignored, `!` refused naming `x`. A form a dialect defines that critlab cannot answer exactly (a cap
  `r1=1`, Roll20's `/` without `floor`) exits 2 naming it.
- **Fights** (`critlab fight`): a spec's attack repeated against a target of `hp` hit points,
  `attacks_per_round` attacks a round, at most `max_rounds` rounds; the target falls at the end of the first
  round whose damage reaches `hp`. Labels `defeated`, `undecided`; distributions `rounds`, `overkill`;
  metrics `mean_rounds`, `median_rounds`, `p_defeated_by_round_1..3`.
- **Designer tools.** A quantity is an outcome label, labels joined by `+`, or a metric (a fight's too, with
  `hp`). `critlab tune` searches an integer or choice grid exactly for the values nearest a target; `critlab
  sensitivity` shows every quantity at each integer parameter ± 1; `[[checks]]` in a report configuration
  bound a quantity, and `critlab report` exits 1 when one fails.
- **Exit codes.** 0 done; 1 a validation or balance check failed (the output is complete); 2 bad input (one
  line on stderr naming it); 130 interrupted.
"""

MODE_NAMES = ("mode", "kind")


def _mode_param(spec_cls: Any) -> str | None:
    decls = declared(spec_cls)
    return next((n for n in MODE_NAMES if n in decls and isinstance(decls[n].kind, Choice)), None)


def _fill_required(spec_cls: Any, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with every required integer given a small legal value."""
    out = dict(values)
    for name, decl in declared(spec_cls).items():
        if name in out or decl.optional or default_of(spec_cls, name) is not None:
            continue
        if isinstance(decl.kind, Int):
            out[name] = min(max(0, decl.kind.lo), decl.kind.hi)
    return out


def mode_results(system: Any) -> list[tuple[str | None, Any]]:
    """``(mode value or None, exact result)`` at the defaults of each mode."""
    mode = _mode_param(system.spec)
    modes = declared(system.spec)[mode].kind.choices if mode else (None,)
    out = []
    for value in modes:
        params = _fill_required(system.spec, {mode: value} if mode else {})
        try:
            out.append((value, system.exact(system.spec(**params))))
        except SpecError:  # a mode that needs more than small defaults: documented by its parameters
            continue
    return out


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _default(spec_cls: Any, name: str) -> str:
    decl = declared(spec_cls)[name]
    value = default_of(spec_cls, name)
    if value is None:
        return "none" if decl.optional else "required"
    return str(value).lower() if isinstance(value, bool) else str(value)


def system_section(system: Any) -> str:
    """The markdown section of one rule system."""
    module = sys.modules[system.spec.__module__]
    doc = inspect.cleandoc(module.__doc__ or "").split("\n>>>")[0].strip()
    # the docstring's first line names the system (the heading does that here)
    prose = doc.split("\n", 1)[1].strip() if "\n" in doc else doc
    lines = [f"## `{system.name}` — {system.title}", "", prose, "", "### Parameters", ""]
    lines += ["| parameter | allowed | default | used | meaning |", "|---|---|---|---|---|"]
    decls = declared(system.spec)
    for f in dataclasses.fields(system.spec):
        if f.name not in decls:
            lines.append(f"| `{f.name}` | | {_cell(f.default)} | | |")
            continue
        d = decls[f.name]
        used = d.describe_when().removeprefix("used when ") or "always"
        row = [f"`{f.name}`", d.kind.describe(), _default(system.spec, f.name), used, d.help]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    lines += ["", "### Outcomes, distributions and metrics", ""]
    mode = _mode_param(system.spec)
    for value, result in mode_results(system):
        where = f"`{mode} = {value}`" if mode else "Every spec"
        dists = ", ".join(f"`{k}`" for k in result.distributions) or "none"
        metrics = ", ".join(f"`{k}`" for k in result.metrics) or "none"
        lines.append(
            f"- {where}: labels {', '.join(f'`{lab}`' for lab in result.labels)}; "
            f"distributions {dists}; metrics {metrics}."
        )
    return "\n".join(lines) + "\n"


def render(names: Iterable[str] | None = None) -> str:
    """The whole rules page for the systems ``names`` (default: the built-in ones)."""
    from critlab.analysis.systems import BUILT_IN, get_system

    systems = [get_system(n) for n in (BUILT_IN if names is None else names)]
    return "\n".join([HEADER, *(system_section(s) for s in systems)])


def main() -> None:  # pragma: no cover - exercised by make docs
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/rules.md")
    path.write_text(render(), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":  # pragma: no cover
    main()
