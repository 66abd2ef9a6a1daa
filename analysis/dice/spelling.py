"""Other tools' spellings met where critlab's grammar expects its own: what each is there,
and what critlab writes instead (the notation's reader refuses them in critlab's words)."""

from __future__ import annotations

_DIALECTS = "or read it as that tool does: --dialect roll20|foundry ('foundry:EXPR' in a parameter)"
_FOUNDRY = {"sf": "subtract failures", "ms": "margin of success", "even": "count of even dice"}
_FOUNDRY["odd"] = "count of odd dice"


def _run(s: str, ok) -> str:
    """The longest start of ``s`` whose characters all pass ``ok``."""
    return s[: next((j for j, ch in enumerate(s) if not ok(ch)), len(s))]


def foreign(s: str, i: int) -> tuple[str, str] | None:
    """Another tool's spelling at ``s[i:]`` (lowered, spaces removed) and what critlab
    writes instead, or ``None``.

    >>> foreign("4d6r1", 3)[1]
    "is Roll20's and Foundry's reroll; critlab writes rr1 (while it shows) or ro1 (once), ..."
    """
    rest = s[i:]
    word = _run(rest, str.isalnum)
    letters = _run(rest, str.isalpha)
    sel = _run(rest[len(letters) :], lambda ch: ch.isdigit() or ch in "<>=")
    if rest.startswith("["):
        label = rest[: rest.find("]") + 1] or rest
        return label, "is a flavour label, read only in a dialect: " + _DIALECTS.split(": ", 1)[1]
    if letters in ("min", "max") and sel.isdigit():
        return letters + sel, f"is Foundry's clamp; critlab writes {letters[:2]}{sel}, {_DIALECTS}"
    if letters == "r":
        how = f"rr{sel or 1} (while it shows) or ro{sel or 1} (once)"
        return "r" + sel, f"is Roll20's and Foundry's reroll; critlab writes {how}, {_DIALECTS}"
    if letters == "d" and sel.isdigit():
        return "d" + sel, f"is Roll20's and Foundry's drop; critlab writes dl{sel}, {_DIALECTS}"
    if word in ("kh", "kl", "dh", "dl", "k", "d"):
        op = {"k": "kh", "d": "dl"}.get(word, word)
        return word, f"needs its number in critlab: {op}1 (Roll20 and Foundry read a bare {word} as {op}1)"
    if word in ("s", "sa", "sd"):
        return word, f"is Roll20's sorting, which changes no total; leave it out, {_DIALECTS}"
    if letters in _FOUNDRY:
        return letters, f"is Foundry's {_FOUNDRY[letters]}; {_DIALECTS.removeprefix('or ')}"
    if letters == "f" and sel:
        failures = f"critlab counts failures with cs...df{sel}"
        return "f" + sel, f"is Roll20's failure count; {failures}, {_DIALECTS}"
    if letters in ("m", "mt"):
        return letters + sel, "is Roll20's match; critlab has no matches"
    return None


__all__ = ["foreign"]
