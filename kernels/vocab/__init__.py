"""Vocabularies: the names a kernel counts under, defined once.

A kernel module defines its outcome labels, histograms and counters as
:class:`~enum.IntEnum` vocabularies made by :func:`vocabulary`; the kernel uses the
members (``Outcome.HIT``, compile-time constants for Numba) and the analysis side reads
the same names with :func:`words` for the exact model's labels and the tally layout. A
label added or reordered in one place moves everywhere, so counts cannot be swapped.

>>> Outcome = vocabulary("Outcome", "miss hit crit")
>>> int(Outcome.HIT), words(Outcome)
(1, ('miss', 'hit', 'crit'))
"""

from __future__ import annotations

from enum import IntEnum


def vocabulary(name: str, names: str, *, module: str | None = None) -> type[IntEnum]:
    """An IntEnum numbering the space-separated ``names`` from 0 in order (member names
    upper case). ``module`` (the defining module's ``__name__``) keeps it picklable."""
    enum = IntEnum(name, [(n.upper(), i) for i, n in enumerate(names.split())])
    if module is not None:
        enum.__module__ = module
    return enum


def spelled(name: str, labels: tuple[str, ...], *, module: str | None = None) -> type[IntEnum]:
    """A vocabulary of labels a user writes (a wound ladder's level names, in any case):
    members ``L0, L1, ...`` by position, and :func:`words` gives ``labels`` as written.

    >>> words(spelled("Wound", ("none", "Graze")))
    ('none', 'Graze')
    """
    enum = vocabulary(name, " ".join(f"l{i}" for i in range(len(labels))), module=module)
    enum._spelled_ = tuple(labels)
    return enum


def words(enum: type[IntEnum]) -> tuple[str, ...]:
    """The vocabulary's names in index order, lower case, as results and JSON spell them
    (a :func:`spelled` vocabulary's labels as written)."""
    written = enum.__dict__.get("_spelled_")
    if written is not None:
        return written
    return tuple(m.name.lower() for m in sorted(enum, key=int))
