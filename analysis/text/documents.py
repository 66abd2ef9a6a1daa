"""Documents a person hands critlab (a report configuration, a baseline, an encounter file)
read within stated bounds: the file's size, how deeply its tables and arrays nest, and
how large its integers are. One reader for all of them, so every file is held to the same.

A configuration names a handful of systems and sections, an encounter a few combatants
and a summary.json a few thousand metrics, so the bounds sit far above any real file and
far below what would exhaust memory (``/dev/zero`` reads for ever), the parser's
recursion (3,000 nested arrays) or a float (a 401-digit integer overflows one). Each is
refused with one line naming the file and, where it helps, the key; the caller chooses the
error's class (a report's ``ConfigError``), :class:`DocumentError` by default.

>>> check_tree({"a": [1, {"b": 2}]}, "x.toml")
>>> check_tree({"checks": [{"min": 10**400}]}, "x.toml")
Traceback (most recent call last):
...
critlab.analysis.text.documents.DocumentError: x.toml: checks[1].min: an integer of 401 digits; ...
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "deep.toml"
>>> _ = path.write_text("a = " + "[" * 100_000)
>>> load_toml(path, "deep.toml")
Traceback (most recent call last):
...
critlab.analysis.text.documents.DocumentError: deep.toml: nested more than 32 tables or arrays deep
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from critlab.analysis.spec_error import shown

# Bytes a document may have: the largest shipped configuration is about 10 KB and a
# summary.json of a large report a few MB.
MAX_FILE_BYTES = 16 * 2**20
# Nesting of tables and arrays (the built-in configuration nests 4 deep, summary.json 3).
MAX_DEPTH = 32
# The largest integer magnitude anything read takes (a seed is below 2^63).
MAX_INT = 2**63
_TOO_LARGE = f"at most {MAX_INT - 1:,} in magnitude"
_MANY = "over 4,300"  # Python's own bound on an integer's digits as text


class DocumentError(ValueError):
    """A document that cannot be read: names the file, the key (if any) and what is allowed."""

    def __init__(self, file: str, key: str, message: str) -> None:
        self.file, self.key, self.message = file, key, message
        super().__init__(f"{file}: {key}: {message}" if key else f"{file}: {message}")


Error = Callable[[str, str, str], Exception]  # (file, key, message): the caller's error


def read_bounded(path: Path, file: str, key: str, error: Error = DocumentError) -> bytes:
    """The bytes of ``path``, at most :data:`MAX_FILE_BYTES` of them, read without reading
    more (a device such as /dev/zero never ends); an OSError is left to the caller."""
    with open(path, "rb") as f:
        raw = f.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise error(file, key, f"larger than {MAX_FILE_BYTES // 2**20} MiB; is it the right file?")
    return raw


def too_deep(file: str, key: str, error: Error = DocumentError) -> Exception:
    """The error for a document the parser itself could not descend (RecursionError)."""
    return error(file, key, f"nested more than {MAX_DEPTH} tables or arrays deep")


def check_tree(data: Any, file: str, key: str = "", error: Error = DocumentError) -> None:
    """Refuse a parsed document nested deeper than :data:`MAX_DEPTH` or holding an integer
    beyond :data:`MAX_INT` in magnitude (walked without recursion)."""
    stack: list[tuple[Any, str, int]] = [(data, key, 0)]
    while stack:
        node, where, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth >= MAX_DEPTH:
                raise too_deep(file, where, error)
            items = node.items() if isinstance(node, dict) else enumerate(node, start=1)
            for k, v in items:
                stack.append((v, _join(where, k, isinstance(node, list)), depth + 1))
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) >= MAX_INT:
            raise error(file, where, f"an integer of {_digits(node)} digits; {_TOO_LARGE}")


def load_toml(
    path: Path,
    file: str,
    key: str = "",
    *,
    parse_float: Callable[[str], Any] = float,
    error: Error = DocumentError,
) -> tuple[dict[str, Any], bytes]:
    """The TOML document at ``path`` (and its bytes), read and checked within the bounds;
    anything else wrong with it is one ``error``; an OSError is left to the caller."""
    raw = read_bounded(path, file, key, error)
    try:
        data = tomllib.loads(raw.decode("utf-8"), parse_float=parse_float)
    except RecursionError:
        raise too_deep(file, key, error) from None
    except UnicodeDecodeError:
        raise error(file, key, "not valid TOML: the file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(file, key, f"not valid TOML: {exc}") from None
    except ValueError as exc:
        raise error(file, key, _unreadable("TOML", exc)) from None
    check_tree(data, file, key, error)
    return data, raw


def load_json(path: Path, file: str, key: str = "", *, error: Error = DocumentError) -> Any:
    """The JSON document at ``path``, read and checked within the bounds, as :func:`load_toml`."""
    raw = read_bounded(path, file, key, error)
    try:
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise too_deep(file, key, error) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise error(file, key, f"not JSON: {exc}") from None
    except ValueError as exc:
        raise error(file, key, _unreadable("JSON", exc)) from None
    check_tree(data, file, key, error)
    return data


def _digits(n: int) -> str:
    """How many digits ``n`` has, as text: str() refuses past 4,300 (those are only "many")."""
    try:
        return f"{len(str(abs(n)))}"
    except ValueError:
        return _MANY


def _unreadable(kind: str, exc: ValueError) -> str:
    """A parser's ValueError that is no syntax error: an integer past Python's 4,300 digits."""
    if "integer string conversion" in str(exc):
        return f"an integer of {_MANY} digits; {_TOO_LARGE}"
    return f"not valid {kind}: {exc}"


def _join(where: str, k: Any, index: bool) -> str:
    """A key path as the errors write it: ``checks[1].min``, ``--baseline: metrics.x`` (a
    key's control characters escaped, a long one cut: :func:`critlab.analysis.spec_error.shown`)."""
    k = shown(k)
    if index:
        return f"{where}[{k}]"
    if where.startswith("--") and ":" not in where:  # a flag names the file: its keys follow
        return f"{where}: {k}"
    return f"{where}.{k}" if where else str(k)


__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_INT",
    "DocumentError",
    "check_tree",
    "load_json",
    "load_toml",
    "read_bounded",
    "too_deep",
]
