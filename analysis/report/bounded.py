"""Reading a report configuration or a baseline within stated bounds, checked before the
report's work: the file's size, how deeply its tables and arrays nest, and how large its
integers are.

A configuration names a handful of systems and sections and a summary.json a few
thousand metrics, so the bounds sit far above any real file and far below what would
exhaust memory (``--config /dev/zero`` reads for ever), the parser's recursion (3,000
nested arrays) or a float (a 401-digit integer overflows one). Each is refused with one
:class:`ConfigError` line naming the file and, where it helps, the key.

>>> check_tree({"a": [1, {"b": 2}]}, "x.toml")
>>> check_tree({"checks": [{"min": 10**400}]}, "x.toml")
Traceback (most recent call last):
...
critlab.analysis.report.reading.ConfigError: x.toml: checks[1].min: an integer of 401 digits; ...
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from critlab.analysis.report.reading import ConfigError

# Bytes a configuration or a baseline may have: the largest shipped configuration is
# about 10 KB and a summary.json of a large report a few MB.
MAX_FILE_BYTES = 16 * 2**20
# Nesting of tables and arrays (the built-in configuration nests 4 deep, summary.json 3).
MAX_DEPTH = 32
# The largest integer magnitude anything in a report takes (a seed is below 2^63).
MAX_INT = 2**63


def read_bounded(path: Path, file: str, key: str) -> bytes:
    """The bytes of ``path``, at most :data:`MAX_FILE_BYTES` of them, read without reading
    more (a device such as /dev/zero never ends); an OSError is left to the caller."""
    with open(path, "rb") as f:
        raw = f.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(file, key, f"larger than {MAX_FILE_BYTES // 2**20} MiB; is it the right file?")
    return raw


def too_deep(file: str, key: str) -> ConfigError:
    """The error for a document the parser itself could not descend (RecursionError)."""
    return ConfigError(file, key, f"nested more than {MAX_DEPTH} tables or arrays deep")


def check_tree(data: Any, file: str, key: str = "") -> None:
    """Refuse a parsed document nested deeper than :data:`MAX_DEPTH` or holding an integer
    beyond :data:`MAX_INT` in magnitude (walked without recursion)."""
    stack: list[tuple[Any, str, int]] = [(data, key, 0)]
    while stack:
        node, where, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth >= MAX_DEPTH:
                raise too_deep(file, where)
            items = node.items() if isinstance(node, dict) else enumerate(node, start=1)
            for k, v in items:
                stack.append((v, _join(where, k, isinstance(node, list)), depth + 1))
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) >= MAX_INT:
            # str() refuses past 4,300 digits (about 14,000 bits): those are only "many"
            digits = f"{len(str(abs(node)))}" if node.bit_length() < 14_000 else "over 4,000"
            raise ConfigError(
                file, where, f"an integer of {digits} digits; at most {MAX_INT - 1:,} in magnitude"
            )


def _join(where: str, k: Any, index: bool) -> str:
    """A key path as the errors write it: ``checks[1].min``, ``--baseline: metrics.x``."""
    if index:
        return f"{where}[{k}]"
    if where.startswith("--") and ":" not in where:  # a flag names the file: its keys follow
        return f"{where}: {k}"
    return f"{where}.{k}" if where else str(k)


__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_INT", "check_tree", "read_bounded", "too_deep"]
