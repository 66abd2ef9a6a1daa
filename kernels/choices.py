"""Kernels for a rule that chooses: its choices solved over the exact walk, then followed.

A rule calls ``choose(NAME, OPTIONS, *seen)``; the rewritten rule calls :func:`choose_at`
with its ``mem``, the spec's :data:`Policy` (one more argument of the rule, before its stop
flag, so every driver and an encounter's attack pass it on unchanged), the choice's site
(its index among the rule's ``choose`` calls), its number of options and the seen values.
What :func:`choose_at` does depends on the policy's mode:

- :data:`SOLVE` (the solve walk, :func:`make_solver`): a choice not yet given an option is
  a node of the walk, recorded in ``mem[MISS]`` as ``MAX_INPUTS + k`` (the run's ``k``-th
  choice) as a missed input is; the walk follows every option to the end of the rule (later
  inputs enumerated, later choices solved first, depth first) and takes the option of the
  highest objective, ties to the first (a relative 1e-12). Each choice position gets an
  entry: its key, the option taken, every option's objective and the seen values.
- :data:`FOLLOW` (the simulation, an encounter's attack) and :data:`MARK` (the exact walk
  under the policy, which also marks the entries it uses): the option is the entry's of the
  position reached, looked up by its key in an open-addressing hash table.
- :data:`FIXED`: option ``fixed[site]`` at every choice of that site (the fixed plays
  that ``choice_gain`` is measured against).

A position's key is what the run read before the choice: the site, how many choices came
before it in this run, the set of inputs read so far (``mem[SEEN_READS]``, a bit an input,
set by :func:`read_seen`), their values and the earlier choices' sites and options. The rule is a
function of what it reads, so the key names one node of the tree of its reads.
"""

from __future__ import annotations

import linecache
from collections import namedtuple

import numpy as np
from numba import njit

from critlab.kernels import mechanic as km
from critlab.kernels.jit import kernel
from critlab.kernels.mechanic import (
    CHOICE_N,
    CHOICE_SITE,
    CHOSEN,
    CHOSEN_DONE,
    CHOSEN_SITES,
    DONE,
    KEY,
    KEY_LEN,
    MAX_CHOICES,
    MAX_INPUTS,
    MAX_OPTIONS,
    MAX_SEEN,
    MISS,
    N_CHOSEN,
    OFFS,
    SEEN_READS,
    SEEN_VALUES,
    VALS,
    WIDTHS,
)

FOLLOW, SOLVE, MARK, FIXED = 0, 1, 2, 3

# The table a choosing rule reads (its policy argument): one int64 array, so that its reads
# in a trial touch one array (measured: a tuple of arrays read in the trial loop cost about
# 1 us a choice in reference counts, 10x the rest of the trial). A header of offsets, then
# the hash table's slots (entry + 1, 0 empty; a power of two of them), and per entry its
# key's length and start, the option taken and whether the exact walk reached it, the
# fixed option of each site (FIXED), and the keys' words.
(T_MODE, T_SLOTS, T_SLOT, T_KLEN, T_KSTART, T_OPTION, T_USED, T_FIXED, T_KEYS, T_ENTRIES, T_WORDS) = range(11)
HEADER = 16

Policy = namedtuple("Policy", "table site seen values sizes")
"""A spec's choices: ``table`` (what the rule reads, above), and what only the solve walk
writes and Python reads: per entry its ``site``, ``seen`` (:data:`MAX_SEEN` values) and
``values`` (each option's objective, :data:`MAX_OPTIONS` of them), and ``sizes``
(entries, key words)."""


def empty_policy(mode: int, sites: int, entries: int = 1, words: int = 1) -> Policy:
    """A policy of no entries with room for ``entries`` and ``words`` of keys."""
    entries, words, slots = max(entries, 1), max(words, 1), 1
    while slots < 2 * entries:
        slots *= 2
    sizes = {T_SLOT: slots, T_KLEN: entries, T_KSTART: entries, T_OPTION: entries, T_USED: entries}
    sizes.update({T_FIXED: max(sites, 1), T_KEYS: words})
    table = np.zeros(HEADER + sum(sizes.values()), np.int64)
    at = HEADER
    for field, size in sizes.items():
        table[field] = at
        at += size
    table[T_MODE], table[T_SLOTS], table[T_ENTRIES], table[T_WORDS] = mode, slots, entries, words
    return Policy(
        table=table,
        site=np.zeros(entries, np.int64),
        seen=np.zeros(entries * MAX_SEEN, np.int64),
        values=np.zeros(entries * MAX_OPTIONS),
        sizes=np.zeros(2, np.int64),
    )


def region(table: np.ndarray, field: int, size: int) -> np.ndarray:
    """The view of ``table``'s region ``field`` (e.g. :data:`T_OPTION`), ``size`` long."""
    return table[table[field] : table[field] + size]


def with_mode(policy: Policy, mode: int) -> Policy:
    """``policy`` in another mode (a copy of its table: the other keeps its own)."""
    table = policy.table.copy()
    table[T_MODE] = mode
    return policy._replace(table=table)


@kernel(inline="always")
def read_seen(mem, i):
    """:func:`critlab.kernels.mechanic.read`, recording that input ``i`` was read."""
    mem[SEEN_READS] |= np.int64(1) << i
    if mem[DONE + i] == 0 and mem[MISS] < 0:
        mem[MISS] = i
    return mem[VALS + i]


@kernel(inline="always")
def read_pool_seen(mem, i):
    """:func:`critlab.kernels.mechanic.read_pool`, recording that pool ``i`` was read."""
    mem[SEEN_READS] |= np.int64(1) << i
    if mem[DONE + i] == 0 and mem[MISS] < 0:
        mem[MISS] = i
    start = mem[OFFS + i]
    return mem[start : start + mem[WIDTHS + i]]


@kernel(inline="always")
def begin(mem):
    """Where a choosing rule starts: nothing read and nothing chosen yet in this run."""
    mem[SEEN_READS] = 0
    mem[N_CHOSEN] = 0


@kernel(inline="always")
def _write_key(mem, site, k):
    """The key of choice ``k`` of this run at ``site`` into ``mem[KEY:]``; its length."""
    mem[KEY] = site
    mem[KEY + 1] = k
    m = mem[SEEN_READS]
    mem[KEY + 2] = m
    n = 3
    i = 0
    while m != 0:
        if m & 1:
            o = mem[OFFS + i]
            for t in range(mem[WIDTHS + i]):
                mem[KEY + n] = mem[o + t]
                n += 1
        m >>= 1
        i += 1
    for c in range(k):
        mem[KEY + n] = mem[CHOSEN_SITES + c]
        mem[KEY + n + 1] = mem[CHOSEN + c]
        n += 2
    mem[KEY_LEN] = n
    return n


@kernel(inline="always")
def _hash(mem, n):
    """FNV-1a over the key's ``n`` words."""
    h = np.uint64(14695981039346656037)
    for j in range(n):
        h = (h ^ np.uint64(mem[KEY + j])) * np.uint64(1099511628211)
    return h


@kernel(inline="always")
def lookup(table, mem, n):
    """The entry of the key in ``mem[KEY:KEY + n]``, or -1."""
    mask = table[T_SLOTS] - 1
    slot, klen, kstart, keys = table[T_SLOT], table[T_KLEN], table[T_KSTART], table[T_KEYS]
    s = np.int64(_hash(mem, n) & np.uint64(mask))
    while True:
        e = table[slot + s] - 1
        if e < 0:
            return -1
        if table[klen + e] == n:
            start = keys + table[kstart + e]
            same = True
            for j in range(n):
                if table[start + j] != mem[KEY + j]:
                    same = False
                    break
            if same:
                return e
        s = (s + 1) & mask


@kernel(inline="always")
def add_entry(table, site, seen, sizes, mem):
    """A new entry for the choice position in ``mem`` (its key, site and seen values);
    its index, or -1 when the policy is full."""
    n = mem[KEY_LEN]
    e = sizes[0]
    w = sizes[1]
    if e >= table[T_ENTRIES] or w + n > table[T_WORDS] or 2 * (e + 1) > table[T_SLOTS]:
        return -1
    keys = table[T_KEYS]
    for j in range(n):
        table[keys + w + j] = mem[KEY + j]
    table[table[T_KSTART] + e] = w
    table[table[T_KLEN] + e] = n
    table[table[T_OPTION] + e] = -1
    site[e] = mem[CHOICE_SITE]
    for t in range(MAX_SEEN):
        seen[e * MAX_SEEN + t] = mem[SEEN_VALUES + t]
    mask = table[T_SLOTS] - 1
    slot = table[T_SLOT]
    s = np.int64(_hash(mem, n) & np.uint64(mask))
    while table[slot + s] != 0:
        s = (s + 1) & mask
    table[slot + s] = e + 1
    sizes[0] = e + 1
    sizes[1] = w + n
    return e


@kernel(inline="always")
def choose_at(mem, table, site, n, line, s0, s1, s2, s3, s4, s5, s6, s7):
    """The option index taken at this choice (see the module docstring); ``line`` is the
    ``choose`` call's, named by an error."""
    k = mem[N_CHOSEN]
    mem[N_CHOSEN] = k + 1
    if mem[MISS] >= 0:  # this run has missed an input: its result is thrown away
        return 0
    if k >= MAX_CHOICES:
        raise RuntimeError("the rule made more than 32 choices in one run", line)
    mode = table[T_MODE]
    mem[CHOSEN_SITES + k] = site
    if mode == SOLVE:
        if mem[CHOSEN_DONE + k] == 0:
            mem[MISS] = MAX_INPUTS + k
            mem[CHOICE_SITE] = site
            mem[CHOICE_N] = n
            mem[SEEN_VALUES] = s0
            mem[SEEN_VALUES + 1] = s1
            mem[SEEN_VALUES + 2] = s2
            mem[SEEN_VALUES + 3] = s3
            mem[SEEN_VALUES + 4] = s4
            mem[SEEN_VALUES + 5] = s5
            mem[SEEN_VALUES + 6] = s6
            mem[SEEN_VALUES + 7] = s7
            _write_key(mem, site, k)
            return 0
        return mem[CHOSEN + k]
    if mode == FIXED:
        option = table[table[T_FIXED] + site]
    else:
        e = lookup(table, mem, _write_key(mem, site, k))
        if e < 0:
            raise RuntimeError("this choice's position is not in the solved policy", line)
        option = table[table[T_OPTION] + e]
        if mode == MARK:
            table[table[T_USED] + e] = 1
    mem[CHOSEN + k] = option
    return option


# The solve walk: explore's tree of reads (critlab.kernels.mechanic), where a choice is one
# more kind of node, whose value is its best child's, and a chance node's the weighted sum
# of its children's (the inputs' tails count 0). counts as explore's, and [5] the policy full.
_SOLVE = (
    """
def solve(p, sup_start, sup_len, val_start, offs, widths, sup_vals, sup_probs, max_leaves,
          olab, table, site, seen, values, sizes, counts, root):
    mem = np.zeros(MEM_SIZE, np.int64)
    k = sup_start.shape[0]
    n_labels = olab.shape[0]
    size = k + MAX_CHOICES + 1
    branch = np.zeros(size, np.int64)
    pos = np.zeros(size, np.int64)
    kids = np.zeros(size, np.int64)
    entry = np.zeros(size, np.int64)
    best = np.zeros(size, np.int64)
    acc = np.zeros(size)
    walk_start(mem, k, sup_len, val_start, offs, widths, sup_vals)
    depth = 0
"""
    + km.WALK_HEAD
    + """            depth += 1
            branch[depth] = i
            pos[depth] = 0
            acc[depth] = 0.0
            if i < MAX_INPUTS:
                if sup_len[i] <= 0:
                    counts[4] = 1 + i
                    return
                kids[depth] = sup_len[i]
                mem[DONE + i] = 1
                put_outcome(mem, i, 0, val_start, offs, widths, sup_vals)
            else:
                c = i - MAX_INPUTS
                kids[depth] = mem[CHOICE_N]
                mem[CHOSEN_DONE + c] = 1
                mem[CHOSEN + c] = 0
                best[depth] = 0
                e = add_entry(table, site, seen, sizes, mem)
                if e < 0:
                    counts[5] = 1
                    return
                entry[depth] = e
"""
    + km.WALK_LEAF
    + """            counts[2] = 1
            return
        v = {objective}
        while depth > 0:
            d = depth
            j = branch[d]
            if j < MAX_INPUTS:
                acc[d] += sup_probs[sup_start[j] + pos[d]] * v
            else:
                values[entry[d] * MAX_OPTIONS + pos[d]] = v
                if pos[d] == 0 or v > acc[d] + 1e-12 * max(1.0, abs(acc[d])):
                    acc[d] = v
                    best[d] = pos[d]
            pos[d] += 1
            if pos[d] < kids[d]:
                if j < MAX_INPUTS:
                    put_outcome(mem, j, pos[d], val_start, offs, widths, sup_vals)
                else:
                    mem[CHOSEN + j - MAX_INPUTS] = pos[d]
                break
            v = acc[d]
            if j < MAX_INPUTS:
                mem[DONE + j] = 0
            else:
                table[table[T_OPTION] + entry[d]] = best[d]
                mem[CHOSEN_DONE + j - MAX_INPUTS] = 0
            depth -= 1
        if depth == 0:
            root[0] = v
            return
"""
)


def solver_source(n_params: int, returns_tuple: bool, objective_value: int | None) -> str:
    """The solve walk's source for a rule of ``n_params`` arguments after ``mem`` (its
    policy and stop flag included); the objective is label weights ``olab`` or, with
    ``objective_value``, that value's index among the rule's values."""
    params = "".join(f", p[{i}]" for i in range(n_params))
    label = "r[0]" if returns_tuple else "r"
    objective = "olab[label]" if objective_value is None else f"float(r[{1 + objective_value}])"
    return _SOLVE.format(params=params, label=label, objective=objective)


def solver_namespace() -> dict:
    """The names the solve walk uses besides ``user`` and the mechanic kernels' helpers."""
    return {
        "add_entry": add_entry,
        "T_OPTION": T_OPTION,
        "MAX_CHOICES": MAX_CHOICES,
        "MAX_INPUTS": MAX_INPUTS,
        "MAX_OPTIONS": MAX_OPTIONS,
        "CHOICE_N": CHOICE_N,
        "CHOSEN": CHOSEN,
        "CHOSEN_DONE": CHOSEN_DONE,
    }


def make_solver(
    user, n_params: int, returns_tuple: bool, objective_value: int | None, cache=None, tag: str = ""
):
    """The solve walk of one rule (``user`` as for
    :func:`critlab.kernels.mechanic.make_kernels`), compiled on first call, cached on disk
    under ``cache`` (``(folder, key)``) as the rule's other drivers are."""
    source = solver_source(n_params, returns_tuple, objective_value)
    key = cache[1] if cache else f"{id(user):x}"
    filename = f"critlab_mechanic_{tag}solve_{key[:16]}"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {**km.generated_namespace(user), **solver_namespace()}
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace["solve"]
    return njit(**(km.cache_in(fn, *cache) if cache else km.cache_in(fn, None, "")))(fn)
