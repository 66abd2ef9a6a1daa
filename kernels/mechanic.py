"""Kernels for a designer's own mechanic: one compiled rule, run lazily over its inputs.

The rule is the designer's function, rewritten (by :mod:`critlab.analysis.mechanic.compile`)
so that it takes a small int64 array ``mem`` and its parameters, and reads input ``i``
with :func:`read`. ``mem`` holds, for each input, whether it has a value yet and the
value (layout below). A read of an input that has no value yet records the input in
``mem[MISS]`` (the first such read only) and returns a stand-in; the caller then gives
the input a value and runs the rule again. The rule's result is kept from the first run
that read no input without a value.

The one idea serves both engines:

- :func:`make_kernels`' ``block`` (simulation) rolls the missing input die by die with
  :func:`critlab.kernels.dice.roll_expr` and runs the rule again, so inputs are rolled in
  the order the rule first reads them, as a table would roll them, and an input the rule
  does not read in a trial is never rolled: it costs nothing and draws nothing from the
  stream (a mechanic with an extra, unused input gives the very same counts).
- ``explore`` (exact) walks the tree of the rule's reads depth first: at a node it runs
  the rule with the inputs assigned so far; a read of an unassigned input branches over
  that input's exact support, each branch weighted by its probability, and a run that
  reads nothing new is a leaf whose label and values are added with its weight (a
  compensated sum). An unused input never multiplies the work.

The rule's result is re-run at most once per input a trial reads, and each input is
rolled at one place in the code (the compile time of a roll grows with every place a
die is written out, see :mod:`critlab.kernels.jit`).

The generated drivers inline the designer's rule (``make_kernels`` is handed an
``inline="always"`` dispatcher; a called rule costs 2-3x per trial, the stream no longer
in registers), so they are compiled per mechanic and not cached on disk (``cache=True``
needs a function that lives in a file numba can key on; these are built at run time).
"""

from __future__ import annotations

import linecache
from collections import namedtuple
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import local_scratch, roll_expr
from critlab.kernels.jit import kernel
from critlab.kernels.rng import local_state

# mem layout: [MISS, done flags (MAX_INPUTS), values (MAX_INPUTS)], inside the 128 int64
# of a local_scratch() buffer (its own stack frame: see critlab.kernels.rng.local_state).
MAX_INPUTS = 32
MISS = 0
DONE = 1
VALS = DONE + MAX_INPUTS
MEM_SIZE = VALS + MAX_INPUTS

# The generated drivers' jit options: critlab.kernels.jit's, without the disk cache.
_OPTIONS = {"error_model": "numpy", "nogil": True}

Args = namedtuple("Args", "terms starts consts params")
"""A spec's arguments for ``block``: every input's encoded terms stacked (input ``i`` is
``terms[starts[i]:starts[i + 1]]`` with constant ``consts[i]``) and the rule's
parameters as one tuple, in declaration order."""


@kernel(inline="always")
def read(mem, i):
    """Input ``i``'s value; when it has none yet, the first such read is recorded in
    ``mem[MISS]`` and the stand-in ``mem[VALS + i]`` is returned."""
    if mem[DONE + i] == 0 and mem[MISS] < 0:
        mem[MISS] = i
    return mem[VALS + i]


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


class Kernels(NamedTuple):
    """The compiled drivers of one rule (see :func:`make_kernels`)."""

    block: Any
    explore: Any
    ranges: Any


# One trial loop for the simulation block and the range pilot: the rule run until it reads
# no input without a value, each missing input rolled at one place.
_TRIALS = """
def {name}(s, n, {outputs}, a):
    s = local_state(s)
    scratch = local_scratch()
    mem = local_scratch()
    k = a.consts.shape[0]
    terms, starts, consts, p = a.terms, a.starts, a.consts, a.params
    for _ in range(n):
        for j in range(k):
            mem[DONE + j] = 0
        while True:
            mem[MISS] = -1
            r = user(mem{params})
            i = mem[MISS]
            if i < 0:
                break
            mem[VALS + i] = roll_expr(s, terms[starts[i] : starts[i + 1]], consts[i], scratch)
            mem[DONE + i] = 1
{after}
"""

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

_EXPLORE = """
def explore(fill, p, sup_start, sup_len, sup_vals, sup_probs, tails, label_p, vmin, vmax, hist_off, hist,
            cut, counts, bad):
    mem = np.zeros(MEM_SIZE, np.int64)
    k = sup_start.shape[0]
    n_labels = label_p.shape[1]
    pos = np.zeros(k, np.int64)
    branch = np.zeros(k + 1, np.int64)
    w = np.zeros(k + 1)
    for j in range(k):
        mem[DONE + j] = 0
        mem[VALS + j] = sup_vals[sup_start[j]]
    depth = 0
    w[0] = 1.0
    while True:
        mem[MISS] = -1
        r = user(mem{params})
        counts[0] += 1
        i = mem[MISS]
        if i >= 0:
            depth += 1
            branch[depth] = i
            pos[i] = 0
            mem[DONE + i] = 1
            mem[VALS + i] = sup_vals[sup_start[i]]
            compensated_add(cut, 0, w[depth - 1] * tails[i])
            w[depth] = w[depth - 1] * sup_probs[sup_start[i]]
            continue
        counts[1] += 1
        label = {label}
        if label < 0 or label >= n_labels:
            bad[0] = label
            for j in range(k):
                bad[1 + j] = mem[VALS + j] if mem[DONE + j] else -(2**62)
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
                q = sup_start[j] + pos[j]
                mem[VALS + j] = sup_vals[q]
                w[depth] = w[depth - 1] * sup_probs[q]
                break
            mem[DONE + j] = 0
            mem[VALS + j] = sup_vals[sup_start[j]]
            depth -= 1
        if depth == 0:
            break
"""

_FILL = """            compensated_add(hist, hist_off[{j}] + r[{r}] - vmin[{j}], w[depth])
"""


def _shift(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


def make_kernels(user: Any, n_params: int, n_values: int, returns_tuple: bool) -> Kernels:
    """The simulation block, the exact tree walk and the range pilot of one rule.

    ``user(mem, *params)`` is the rewritten rule (an njit function) returning a label
    index, or a tuple of the label and ``n_values`` integer values when
    ``returns_tuple``. ``block(s, n, out, layout, a)`` tallies ``n`` trials (labels, one
    histogram and one counter per value, then a counter of labels out of range);
    ``explore(fill, params, ...)`` walks the exact tree (pass ``fill=0``: label
    probabilities and value ranges; ``fill=1``: value histograms); ``ranges`` records
    the values' minimum and maximum over ``n`` trials (for a simulation without an
    exact support).
    """
    params = "".join(f", p[{i}]" for i in range(n_params))
    label = "r[0]" if returns_tuple else "r"
    values = "".join(_VALUE.format(j=j, r=j + 1) for j in range(n_values))
    tally = _TALLY.format(label=label, n_values=n_values, values=values)
    minmax = "".join(_MINMAX.format(j=j, r=j + 1) for j in range(n_values)) or "        pass\n"
    fill = "".join(_FILL.format(j=j, r=j + 1) for j in range(n_values))
    namespace = {
        "user": user,
        "np": np,
        "local_state": local_state,
        "local_scratch": local_scratch,
        "roll_expr": roll_expr,
        "add_label": add_label,
        "add_value": add_value,
        "add_counter": add_counter,
        "compensated_add": compensated_add,
        "MISS": MISS,
        "DONE": DONE,
        "VALS": VALS,
        "MEM_SIZE": MEM_SIZE,
    }
    sources = {
        "block": _TRIALS.format(name="block", outputs="out, layout", params=params, after=tally),
        "ranges": _TRIALS.format(name="ranges", outputs="vmin, vmax", params=params, after=minmax),
        "explore": _EXPLORE.format(params=params, label=label, minmax=_shift(minmax, 4), fill=fill),
    }
    compiled = {}
    for name, source in sources.items():
        # a file name of its own, registered with linecache, so that numba (and a
        # traceback) can show the generated source
        filename = f"<critlab mechanic {name} {id(user):x}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)
        compiled[name] = njit(**_OPTIONS)(namespace[name])
    return Kernels(compiled["block"], compiled["explore"], compiled["ranges"])
