"""Names as a reader reads them: every parameter, metric and outcome label the report
shows (captions, alt text, table headers, sentences) from its declaration.

A parameter's declared ``label`` and ``unit`` win (``target_ac`` → "target AC",
``dr`` → "damage resistance (DR)"); any other snake_case name reads with spaces
(``expected_damage`` → "expected damage", ``cap_before_armor`` → "cap before armor");
a contest's sides read as A and B (``a_wins`` → "A wins"). Joined outcomes read as
alternatives (``minor_critical+major_critical`` → "minor critical or major critical"),
a distribution's pooled bin as its name and values (``weapon_life=3..5`` → "weapon life
3..5").

>>> words("expected_damage"), words("a_wins"), words("minor_critical+major_critical"), words("p_down")
('expected damage', 'A wins', 'minor critical or major critical', 'P(down)')
>>> words("margin=12..13+tail"), phrase("P(hit or critical_hit) at cap_before_armor = true")
('margin 12..13 and the tail', 'P(hit or critical hit) at cap before armor = true')
"""

from __future__ import annotations

import re
from typing import Any

# a snake_case identifier: two or more lowercase words joined by "_"
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def words(name: str, spec_cls: Any = None, *, unit: bool = True) -> str:
    """One declared name (a parameter, metric, outcome or pooled bin) in words."""
    from critlab.analysis.params import axis_label

    name = str(name)
    if "=" in name:  # a distribution's (pooled) bin: "damage=3..5+tail"
        group, values = name.split("=", 1)
        tail = values.endswith("+tail")
        values = values.removesuffix("+tail")
        shown = "the tail" if values == "tail" else values + (" and the tail" if tail else "")
        return f"{words(group, spec_cls, unit=False)} {shown}"
    if "+" in name:
        return " or ".join(words(part, spec_cls, unit=unit) for part in name.split("+"))
    text = axis_label(name, spec_cls)
    if text == name.replace("_", " ") and name[:2] in ("a_", "b_"):  # a contest's sides, undeclared
        return name[0].upper() + " " + name[2:].replace("_", " ")
    if text == name.replace("_", " ") and name.startswith("p_"):  # a probability metric: p_down
        return f"P({name[2:].replace('_', ' ')})"
    if not unit and spec_cls is not None:
        from critlab.analysis.params import declared

        decl = declared(spec_cls).get(name)
        if decl is not None and decl.unit:
            text = text.removesuffix(f" ({decl.unit})")
    return text


def phrase(text: str, spec_cls: Any = None) -> str:
    """``text`` with every snake_case name in it put in words (numbers and other words kept)."""
    return _SNAKE.sub(lambda m: words(m.group(0), spec_cls, unit=False), str(text))


def params_words(params: dict[str, Any], spec_cls: Any = None) -> str:
    """Parameters as a caption lists them: "attack bonus 5, evasion 15, cap before armor true".

    >>> params_words({"attack_bonus": 5, "roll": "advantage", "dt": None})
    'attack bonus 5, roll advantage'
    """
    from critlab.analysis.report.doc import fmt_value

    return ", ".join(
        f"{words(k, spec_cls, unit=False)} {fmt_value(v)}" for k, v in params.items() if v is not None
    )
