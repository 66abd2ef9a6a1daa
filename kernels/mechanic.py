"""Kernels for a designer's own mechanic: one compiled rule, run lazily over its inputs.

The rule is the designer's function, rewritten (by :mod:`critlab.analysis.mechanic.compile`)
so that it takes a small int64 array ``mem`` and its parameters, and reads input ``i``
with :func:`read` (one value) or :func:`read_pool` (a pool: its dice's values, sorted
highest first, as an array). ``mem`` holds, for each input, whether it has a value yet and
its value or values (layout below). A read of an input that has no value yet records the
input in ``mem[MISS]`` (the first such read only) and returns a stand-in; the caller then
gives the input a value and runs the rule again. The rule's result is kept from the first
run that read no input without a value.

The one idea serves both engines:

- :func:`make_kernels`' ``block`` (simulation) rolls the missing input die by die
  (by its plan where every input is simple dice, else with
  :func:`critlab.kernels.dice.roll_expr`; a pool: each of its dice, sorted into place as
  it is rolled) and runs the rule again, so inputs are rolled in the order the rule first
  reads them, as a table would roll them, and an input the rule does not read in a trial
  is never rolled: it costs nothing and draws nothing from the stream (a mechanic with an
  extra, unused input gives the very same counts).
- ``explore`` (exact) walks the tree of the rule's reads depth first: at a node it runs
  the rule with the inputs assigned so far; a read of an unassigned input branches over
  that input's exact outcomes (a value, or a pool's distinct sorted dice, see
  :func:`pool_table`), each branch weighted by its probability, and a run that reads
  nothing new is a leaf whose label and values are added with its weight (a compensated
  sum). The leaves are counted as the walk goes, and the walk stops past its budget: an
  input the rule never reads costs nothing.
- An encounter's attack (:func:`critlab.kernels.encounter.mechanic_attack`) is one trial
  of ``block``'s loop returning the rule's damage value, a function of its own that the
  encounter block calls.

The rule's result is re-run at most once per input a trial reads, and each input is
rolled at one place in the code (the compile time of a roll grows with every place a
die is written out, see :mod:`critlab.kernels.jit`).

The generated drivers inline the designer's rule (``make_kernels`` is handed an
``inline="always"`` dispatcher; a called rule costs 2-3x per trial, the stream no longer
in registers). They are built from source at run time, so Numba's own per-file cache
cannot key them: :func:`cache_in` marks a generated function with a folder and a key of
its own (the caller's: the rule's source, its declaration, the versions), and
:class:`KeyedCacheLocator` makes Numba cache it there (Numba writes its cache files to a
temporary name and renames them, so processes may share the folder).
"""

from __future__ import annotations

import linecache
import textwrap
from collections import namedtuple
from typing import Any, NamedTuple

import numpy as np
from numba import carray, njit

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import _stack_int64, local_scratch
from critlab.kernels.fast_dice import roll_stacked
from critlab.kernels.jit import kernel
from critlab.kernels.keyed_cache import OPTIONS as _OPTIONS
from critlab.kernels.keyed_cache import KeyedCacheLocator as KeyedCacheLocator  # re-exported: its users'
from critlab.kernels.keyed_cache import cache_in
from critlab.kernels.outcomes import put_outcome
from critlab.kernels.rng import local_state

# mem layout: [MISS, done flags, scalar values, each input's value offset, each input's
# width (dice in a pool, 1 for a value), then the pools' dice], in the kernel's own stack
# frame (see critlab.kernels.rng.local_state: a local buffer aliases nothing).
MAX_INPUTS = 32
MISS = 0
DONE = 1
VALS = DONE + MAX_INPUTS
OFFS = VALS + MAX_INPUTS
WIDTHS = OFFS + MAX_INPUTS
POOLS = WIDTHS + MAX_INPUTS
# The dice of all of a mechanic's pools together (a pool has at most 100, as a dice term).
MAX_POOL_DICE = 512
# Then a choosing rule's (critlab.kernels.choices): what this run read and chose so far, the
# choice it reached without an option, each choice's option and site, the seen values, and
# the key of a choice's position (its site, choices before, inputs read, values, options).
MAX_CHOICES, MAX_SEEN, MAX_OPTIONS = 32, 8, 16  # choices in one run, values seen, options
CHOICE = POOLS + MAX_POOL_DICE
SEEN_READS, N_CHOSEN, CHOICE_SITE, CHOICE_N, KEY_LEN = range(CHOICE, CHOICE + 5)
CHOSEN_DONE = CHOICE + 5
CHOSEN = CHOSEN_DONE + MAX_CHOICES
CHOSEN_SITES = CHOSEN + MAX_CHOICES
SEEN_VALUES = CHOSEN_SITES + MAX_CHOICES
KEY = SEEN_VALUES + MAX_SEEN
KEY_SIZE = 3 + MAX_INPUTS + MAX_POOL_DICE + 2 * MAX_CHOICES
MEM_SIZE = KEY + KEY_SIZE

# The module the generated functions claim as theirs: Numba imports it again when it
# loads them from the cache (any importable module would do).
_HOME = __name__

Args = namedtuple("Args", "terms starts consts params offs widths plans")
"""A spec's arguments for ``block``: every input's encoded terms stacked (input ``i`` is
``terms[starts[i]:starts[i + 1]]`` with constant ``consts[i]``; a pool's is one die), the
rule's parameters as one tuple, in declaration order, where each input's values live
in ``mem`` (``offs``) and how many there are (``widths``: 1 for a value, a pool's dice),
and each input's :func:`~critlab.kernels.vocab.dice.plan` (a row of ``plans``). ``terms``
is None where every input is simple: the rule's kernels then compile no dice interpreter
(:func:`~critlab.kernels.fast_dice.roll_stacked`)."""


@kernel(inline="always")
def local_mem():
    """The rule's ``mem`` in the kernel's own stack frame."""
    return carray(_stack_int64(MEM_SIZE), MEM_SIZE)


@kernel(inline="always")
def read(mem, i):
    """Input ``i``'s value; when it has none yet, the first such read is recorded in
    ``mem[MISS]`` and the stand-in ``mem[VALS + i]`` is returned."""
    if mem[DONE + i] == 0 and mem[MISS] < 0:
        mem[MISS] = i
    return mem[VALS + i]


@kernel(inline="always")
def read_pool(mem, i):
    """Pool ``i``'s dice, highest first (a view of ``mem``); a stand-in of the same length
    when it has no value yet, recorded as :func:`read` does."""
    if mem[DONE + i] == 0 and mem[MISS] < 0:
        mem[MISS] = i
    start = mem[OFFS + i]
    return mem[start : start + mem[WIDTHS + i]]


@kernel(inline="always")
def compensated_add(acc, i, x):
    """``acc[0, i] += x`` with Neumaier's compensation kept in ``acc[1, i]``: the sum of
    millions of small weights stays exact to rounding."""
    s = acc[0, i]
    t = s + x
    if abs(s) >= abs(x):
        acc[1, i] += (s - t) + x
    else:
        acc[1, i] += (x - t) + s
    acc[0, i] = t


@kernel(inline="always")
def count_leaf(counts, max_leaves):
    """A leaf of an exact walk counted in ``counts[1]``; False instead, with ``counts[3]``
    set, once ``max_leaves`` leaves are counted (the walk stops there)."""
    if counts[1] >= max_leaves:
        counts[3] = 1
        return False
    counts[1] += 1
    return True


@kernel(inline="always")
def walk_start(mem, k, sup_len, val_start, offs, widths, sup_vals):
    """``mem`` at the start of an exact walk over ``k`` inputs (:mod:`critlab.kernels.outcomes`):
    each input in its place, none read yet, each with a table holding its first outcome."""
    for j in range(k):
        mem[OFFS + j] = offs[j]
        mem[WIDTHS + j] = widths[j]
        mem[DONE + j] = 0
        if sup_len[j] > 0:
            put_outcome(mem, j, 0, val_start, offs, widths, sup_vals)


class Kernels(NamedTuple):
    """The compiled drivers of one rule (see :func:`make_kernels`)."""

    block: Any
    explore: Any
    ranges: Any


# One trial's runs of the rule: a run that misses an input (mem[MISS]) rolls that input's
# dice, sorted into place, and the rule runs again, until it has every input it reads.
# Shared by the simulation's trials below and an encounter's attack (critlab.kernels.encounter).
RUN_RULE = """\
while True:
    mem[MISS] = -1
    r = user(mem{params})
    i = mem[MISS]
    if i < 0:
        break
    o = a.offs[i]
    for t in range(a.widths[i]):
        v = roll_stacked(s, a.terms, a.starts, a.plans, a.consts, i, scratch)
        q = t
        while q > 0 and mem[o + q - 1] < v:
            mem[o + q] = mem[o + q - 1]
            q -= 1
        mem[o + q] = v
    mem[DONE + i] = 1
"""


def run_rule(indent: int) -> str:
    """:data:`RUN_RULE` indented by ``indent`` spaces, for a template's loop body."""
    return textwrap.indent(RUN_RULE, " " * indent)


# One trial loop for the simulation block and the range pilot: the rule run until it reads
# no input without a value, each missing input rolled at one place (a value is a pool of
# one die).
_TRIALS = (
    """
def {name}(s, n, {outputs}, a):
    s = local_state(s)
    scratch = local_scratch()
    mem = local_mem()
    k = a.consts.shape[0]
    p = a.params
    for j in range(k):
        mem[OFFS + j] = a.offs[j]
        mem[WIDTHS + j] = a.widths[j]
        mem[VALS + j] = 0
    for j in range(POOLS, MEM_SIZE):
        mem[j] = 0
    for _ in range(n):
        for j in range(k):
            mem[DONE + j] = 0
"""
    + run_rule(8)
    + """{after}
"""
)

_TALLY = """        label = {label}
        if label < 0 or label >= layout[0]:
            add_counter(out, layout, {n_values}, 1)
            continue
        add_label(out, label)
{values}"""

_VALUE = """        add_value(out, layout, {j}, r[{r}])
        add_counter(out, layout, {j}, r[{r}])
"""

_MINMAX = """        vmin[{j}] = min(vmin[{j}], r[{r}])
        vmax[{j}] = max(vmax[{j}], r[{r}])
"""

# The exact walks' loop head and leaf, shared by explore below and the choices' solve walk
# (critlab.kernels.choices): each run of the rule counted, a read of an input (or a choice)
# without a value the branch taken next; a run that reads none is a leaf, counted against
# the budget, its label checked.
WALK_HEAD = """\
    while True:
        mem[MISS] = -1
        r = user(mem{params})
        counts[0] += 1
        i = mem[MISS]
        if i >= 0:
"""
WALK_LEAF = """\
            continue
        if not count_leaf(counts, max_leaves):
            return
        label = {label}
        if label < 0 or label >= n_labels:
"""

# Input j's outcome q: sup_probs[sup_start[j] + q], its values (widths[j] of them) at
# sup_vals[val_start[j] + q * widths[j]:]. counts: runs of the rule, leaves, a label out
# of range (1), the leaf budget spent (1), an input read that has no outcomes table (1 + j).
_EXPLORE = (
    """
def explore(fill, p, sup_start, sup_len, val_start, offs, widths, sup_vals, sup_probs, tails, max_leaves,
            label_p, vmin, vmax, hist_off, hist, cut, counts, bad):
    mem = np.zeros(MEM_SIZE, np.int64)
    k = sup_start.shape[0]
    n_labels = label_p.shape[1]
    pos = np.zeros(k, np.int64)
    branch = np.zeros(k + 1, np.int64)
    w = np.zeros(k + 1)
    walk_start(mem, k, sup_len, val_start, offs, widths, sup_vals)
    depth = 0
    w[0] = 1.0
"""
    + WALK_HEAD
    + """            if sup_len[i] <= 0:
                counts[4] = 1 + i
                return
            depth += 1
            branch[depth] = i
            pos[i] = 0
            mem[DONE + i] = 1
            put_outcome(mem, i, 0, val_start, offs, widths, sup_vals)
            compensated_add(cut, 0, w[depth - 1] * tails[i])
            w[depth] = w[depth - 1] * sup_probs[sup_start[i]]
"""
    + WALK_LEAF
    + """            bad[0] = label
            for j in range(k):
                bad[1 + j] = mem[VALS + j] if mem[DONE + j] and offs[j] == VALS + j else -(2**62)
            counts[2] = 1
            return
        compensated_add(label_p, label, w[depth])
        if fill == 0:
{minmax}            pass
        else:
{fill}            pass
        while depth > 0:
            j = branch[depth]
            pos[j] += 1
            if pos[j] < sup_len[j]:
                put_outcome(mem, j, pos[j], val_start, offs, widths, sup_vals)
                w[depth] = w[depth - 1] * sup_probs[sup_start[j] + pos[j]]
                break
            mem[DONE + j] = 0
            depth -= 1
        if depth == 0:
            break
"""
)

_FILL = """            compensated_add(hist, hist_off[{j}] + r[{r}] - vmin[{j}], w[depth])
"""


def _shift(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


def generated_namespace(user: Any) -> dict[str, Any]:
    """The globals of a generated driver: the rule as ``user`` and the kernels' helpers."""
    return {
        "__name__": _HOME,
        "user": user,
        "np": np,
        "local_state": local_state,
        "local_scratch": local_scratch,
        "local_mem": local_mem,
        "roll_stacked": roll_stacked,
        "add_label": add_label,
        "add_value": add_value,
        "add_counter": add_counter,
        "compensated_add": compensated_add,
        "put_outcome": put_outcome,
        "count_leaf": count_leaf,
        "walk_start": walk_start,
        "MISS": MISS,
        "DONE": DONE,
        "VALS": VALS,
        "OFFS": OFFS,
        "WIDTHS": WIDTHS,
        "POOLS": POOLS,
        "MEM_SIZE": MEM_SIZE,
    }


def driver_sources(n_params: int, n_values: int, returns_tuple: bool) -> dict[str, str]:
    """The source of each driver of a rule (``block``, ``ranges``, ``explore``: see
    :func:`make_kernels`), for a rule of ``n_params`` parameters returning a label or, when
    ``returns_tuple``, a label and ``n_values`` values."""
    params = "".join(f", p[{i}]" for i in range(n_params))
    label = "r[0]" if returns_tuple else "r"
    values = "".join(_VALUE.format(j=j, r=j + 1) for j in range(n_values))
    tally = _TALLY.format(label=label, n_values=n_values, values=values)
    minmax = "".join(_MINMAX.format(j=j, r=j + 1) for j in range(n_values)) or "        pass\n"
    fill = "".join(_FILL.format(j=j, r=j + 1) for j in range(n_values))
    return {
        "block": _TRIALS.format(name="block", outputs="out, layout", params=params, after=tally),
        "ranges": _TRIALS.format(name="ranges", outputs="vmin, vmax", params=params, after=minmax),
        "explore": _EXPLORE.format(params=params, label=label, minmax=_shift(minmax, 4), fill=fill),
    }


def interpreted(rule: Any, name: str, source: str, extra: dict[str, Any] | None = None) -> Any:
    """Walk ``name`` (``source``: ``explore``'s, or the choices' ``solve``) as a plain
    Python function over the compiled ``rule``, called from Python at each run: the
    same statements on the same arrays as the compiled walk, so the same arithmetic in
    the same order and the same result, bit for bit, without compiling the walk (a
    second or two of Numba's time) for a walk that Python finishes at once. The walk's
    own helpers run as Python (their ``py_func``); ``extra`` adds names (the choices')."""
    namespace = {**generated_namespace(rule), **(extra or {})}
    for key, value in namespace.items():
        if key != "user" and hasattr(value, "py_func"):
            namespace[key] = value.py_func
    filename = f"critlab_mechanic_interpreted_{name}_{id(rule):x}"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def make_kernels(
    user: Any,
    n_params: int,
    n_values: int,
    returns_tuple: bool,
    cache: tuple[str, str] | None = None,
    tag: str = "",
) -> Kernels:
    """The simulation block, the exact tree walk and the range pilot of one rule.

    ``user(mem, *params)`` is the rewritten rule (an njit function) returning a label
    index, or a tuple of the label and ``n_values`` integer values when
    ``returns_tuple``. ``block(s, n, out, layout, a)`` tallies ``n`` trials (labels, one
    histogram and one counter per value, then a counter of labels out of range);
    ``explore(fill, params, ...)`` walks the exact tree (pass ``fill=0``: label
    probabilities and value ranges; ``fill=1``: value histograms); ``ranges`` records
    the values' minimum and maximum over ``n`` trials (for a simulation without an
    exact support). ``cache`` is ``(folder, key)`` to cache the drivers on disk (see
    :func:`cache_in`); ``tag`` tells apart drivers of the same rule built another way.
    """
    namespace = generated_namespace(user)
    sources = driver_sources(n_params, n_values, returns_tuple)
    key = cache[1] if cache else f"{id(user):x}"
    compiled = {}
    for name, source in sources.items():
        # a file name of its own (the cache's index is named by it), registered with
        # linecache, so that numba (and a traceback) can show the generated source
        filename = f"critlab_mechanic_{tag}{name}_{key[:16]}"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)
        fn = namespace[name]
        options = cache_in(fn, *cache) if cache else dict(_OPTIONS)
        compiled[name] = njit(**options)(fn)
    return Kernels(compiled["block"], compiled["explore"], compiled["ranges"])
