"""Kernel for encounters: each trial one encounter, every attack the attacker's own trial.

An encounter is two sides of combatants taking turns (in a fixed order, an order rolled
once by initiative, or simultaneously each round) until one side is down or
``max_rounds`` rounds have been played. Before each attack the attacker's side picks a
standing enemy (``focus``: the first in listed order; ``weakest``: the fewest hit points
left, ties in listed order; ``random``: uniformly), and the attack is one trial of the
attacker's system against that target, ``trial(s, args, scratch)`` of its kernel module,
rolling die by die; its damage comes off the target's hit points.

Attackers of different systems meet in one kernel, compiled once for every encounter:
every (attacker, target) pair has its kind's attack, called through its address, and its
arguments, written as bytes into one buffer (:mod:`critlab.kernels.indirect`): the block's
types name no system and no number of pairs, so an encounter of attack kinds already
compiled compiles nothing. Each system's attack is compiled once as a function of its own
(:func:`attack_for`) and called, not inlined: inlining several systems' trials into one
loop compiled for many minutes. Its wrapper, which reads its arguments from the bytes, is
compiled once per system and argument type, cached on disk like every kernel. A ``best``
side's lookups in its table are kernels of their own (:mod:`critlab.kernels.best_table`),
called. :class:`EncounterKernel` writes the pairs' bytes and addresses in the process that
runs the block (an address is a process's own), and travels to a Dask worker by the kinds'
names.

A designer's own mechanic is a kind too: its attack is compiled from its rule at run time
(:func:`mechanic_attack`), and its wrapper cached in the folder and under the key its
caller gives (the mechanic's cache, :func:`critlab.kernels.mechanic.cache_in`).
"""

from __future__ import annotations

import hashlib
import linecache
import threading
from collections import namedtuple
from typing import Any

import numpy as np
from numba import carray, njit, typeof, types
from numba.core.extending import intrinsic

from critlab.kernels import indirect
from critlab.kernels import mechanic as km
from critlab.kernels.best_table import best_pick, order_row
from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import _stack_int64, local_scratch
from critlab.kernels.fight import trial_of
from critlab.kernels.indirect import call_attack, data_ptr, offset
from critlab.kernels.jit import bind, kernel
from critlab.kernels.rng import bounded, die, local_state
from critlab.kernels.vocab import vocabulary

Outcome = vocabulary("Outcome", "a_wins b_wins draw undecided", module=__name__)
Order = vocabulary("Order", "a_first b_first rolled simultaneous", module=__name__)
Policy = vocabulary("Policy", "focus weakest random best", module=__name__)
Counter = vocabulary("Counter", "decided_rounds_sum attacks any_down_a any_down_b", module=__name__)
# Histogram 0 is the rounds; histogram 1 + k is combatant k's hit points left.
ROUNDS = 0
# Two sides of at most 10 (critlab.analysis.encounter.declare.MAX_SIDE).
MAX_COMBATANTS = 20

Args = namedtuple(
    "Args",
    "n n_a hp attacks initiative policy order max_rounds pair_fn pair_at packed "
    "table keys_a mult_a keys_b mult_b order_keys order_index",
)
"""The block's arguments: ``n`` combatants (side a's ``n_a`` first), their ``hp``,
``attacks`` and ``initiative`` (int64 arrays), each side's ``policy`` (an int64 array of
two :data:`Policy` codes), the :data:`Order` code, ``max_rounds``, and per (attacker,
target) pair (flat, ``i * n + j``) the address of its kind's attack (``pair_fn``) and where
its arguments start in the bytes ``packed`` (``pair_at``; see :mod:`critlab.kernels.indirect`).
A side playing ``best`` follows ``table[order, attack, a_state, b_state]`` (the target member
the exact walk chose; -1 where none): a side's state is found by its key (hit points times
``mult_a``, summed) among the sorted ``keys_a`` (``keys_b``), the order of turns by its
Lehmer code among the sorted ``order_keys`` (``order_index``: its row of the table)."""

Plan = namedtuple("Plan", "kinds pair_kind pairs args")
"""What an encounter simulates, picklable (no address in it): its attacks' ``kinds`` (a
system's kernel module, or a mechanic's name), per pair its kind's index (``pair_kind``,
-1 for two of one side) and kernel arguments (``pairs``, None for two of one side), and the
block's :data:`Args` with ``pair_fn``, ``pair_at`` and ``packed`` yet to be filled in
(:meth:`EncounterKernel.bound`)."""


def system_trial(s, a, scratch):
    """Stands for one system's ``trial`` in :func:`_one_attack` (bound by :func:`attack_for`)."""
    raise NotImplementedError("bound per system by attack_for")


def _one_attack(s, a, scratch):
    """The damage of one attack of a system (its ``trial`` bound as ``system_trial``)."""
    return system_trial(s, a, scratch)[1]


@kernel(inline="always")
def _pick(s, hp, lo, hi, policy):
    """The target among indices ``lo..hi-1`` (the enemies, at least one standing)."""
    if policy == Policy.FOCUS:
        for j in range(lo, hi):
            if hp[j] > 0:
                return j
    if policy == Policy.WEAKEST:
        best = -1
        for j in range(lo, hi):
            if hp[j] > 0 and (best < 0 or hp[j] < hp[best]):
                best = j
        return best
    standing = 0
    for j in range(lo, hi):
        if hp[j] > 0:
            standing += 1
    k = 0 if standing == 1 else bounded(s, standing)
    for j in range(lo, hi):
        if hp[j] > 0:
            if k == 0:
                return j
            k -= 1
    return -1


@intrinsic
def _unowned(typingctx, value):
    """``value`` (an array, or tuples and named tuples holding arrays) with no reference
    count: the same data, its arrays' meminfo null. Every array passed on or read from a
    tuple counts its references atomically, shared by every thread: in an encounter's
    loop that was 85% of the time. The caller's arguments keep the data alive."""
    sig = value(value)

    def codegen(context, builder, signature, args):
        return indirect.unowned_value(context, builder, signature.args[0], args[0])

    return sig, codegen


def _block(s, n_trials, out, layout, a):
    """Tally ``n_trials`` encounters into ``out`` (see :mod:`critlab.kernels.bins`): the
    label, the round it ended in (``max_rounds`` when undecided), every combatant's hit
    points left, and counters of the decided encounters' rounds, the attacks rolled and
    the encounters in which someone of side a (of side b) went down."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    n, n_a = a.n, a.n_a
    # in the kernel's own frame: arrays with no reference count to update at every use
    hp = carray(_stack_int64(MAX_COMBATANTS), n)
    order = carray(_stack_int64(MAX_COMBATANTS), n)
    roll = carray(_stack_int64(MAX_COMBATANTS), n)
    pending = carray(_stack_int64(MAX_COMBATANTS), n)
    a = _unowned(a)
    start_hp, attacks_of, initiative = a.hp, a.attacks, a.initiative
    fns, at = a.pair_fn, a.pair_at
    packed, state, work = data_ptr(a.packed), data_ptr(s), data_ptr(scratch)
    policies = a.policy
    for _ in range(n_trials):
        for i in range(n):
            hp[i] = start_hp[i]
            order[i] = i
        if a.order == Order.B_FIRST:
            for i in range(n):
                order[i] = (i + n_a) % n
        elif a.order == Order.ROLLED:
            for i in range(n):
                roll[i] = die(s, 20) + initiative[i]
            # insertion sort, highest roll first; ties to the higher modifier, then side
            # a, then listed order (the lower index, both)
            for p in range(1, n):
                c = order[p]
                q = p - 1
                while q >= 0:
                    o = order[q]
                    if roll[o] > roll[c] or (
                        roll[o] == roll[c]
                        and (initiative[o] > initiative[c] or (initiative[o] == initiative[c] and o < c))
                    ):
                        break
                    order[q + 1] = o
                    q -= 1
                order[q + 1] = c
        row = 0
        if a.order == Order.ROLLED and a.table.shape[0] > 1:
            row = order_row(order, n, a.order_keys, a.order_index)
        up_a, up_b = n_a, n - n_a
        rounds = 0
        attacks = 0
        at_once = a.order == Order.SIMULTANEOUS
        while rounds < a.max_rounds and up_a > 0 and up_b > 0:
            rounds += 1
            if at_once:
                for i in range(n):
                    pending[i] = 0
            pos = 0  # the attack of the round, counted over every turn (a best table's column)
            for p in range(n):
                i = order[p]
                pos += attacks_of[i]
                if hp[i] <= 0:
                    continue
                side_b = i >= n_a
                lo, hi = (0, n_a) if side_b else (n_a, n)
                policy = policies[1 if side_b else 0]
                for _k in range(attacks_of[i]):
                    # targets from the hit points now: in simultaneous order those of the
                    # round's start, as damage waits in pending until its end
                    if policy == Policy.BEST:
                        t = best_pick(
                            hp, lo, hi, row, pos - attacks_of[i] + _k, n_a, n,
                            a.mult_a, a.keys_a, a.mult_b, a.keys_b, a.table,
                        )  # fmt: skip
                    else:
                        t = _pick(s, hp, lo, hi, policy)
                    pair = i * n + t
                    d = max(0, call_attack(fns[pair], state, work, offset(packed, at[pair])))
                    attacks += 1
                    if at_once:
                        pending[t] += d
                    elif d > 0:
                        hp[t] -= d
                        if hp[t] <= 0:
                            hp[t] = 0
                            if side_b:
                                up_a -= 1
                            else:
                                up_b -= 1
                        if up_a == 0 or up_b == 0:
                            break
                if up_a == 0 or up_b == 0:
                    break
            if at_once:
                for i in range(n):
                    if hp[i] > 0 and pending[i] > 0:
                        hp[i] = max(0, hp[i] - pending[i])
                        if hp[i] == 0:
                            if i < n_a:
                                up_a -= 1
                            else:
                                up_b -= 1
        if up_a > 0 and up_b > 0:
            add_label(out, Outcome.UNDECIDED)
        else:
            if up_a > 0:
                add_label(out, Outcome.A_WINS)
            elif up_b > 0:
                add_label(out, Outcome.B_WINS)
            else:
                add_label(out, Outcome.DRAW)
            add_counter(out, layout, Counter.DECIDED_ROUNDS_SUM, rounds)
        add_value(out, layout, ROUNDS, rounds)
        for i in range(n):
            add_value(out, layout, 1 + i, hp[i])
        add_counter(out, layout, Counter.ATTACKS, attacks)
        down_a = 0
        down_b = 0
        for i in range(n):
            if hp[i] == 0:
                if i < n_a:
                    down_a = 1
                else:
                    down_b = 1
        add_counter(out, layout, Counter.ANY_DOWN_A, down_a)
        add_counter(out, layout, Counter.ANY_DOWN_B, down_b)


block = kernel(_block)
"""The encounter block: ``block(state, n, out, layout, args)`` with :data:`Args` (compiled
once, then cached on disk, whatever the encounter's kinds and size)."""

_ATTACKS: dict[str, object] = {}
_WRAPPERS: dict[tuple, Any] = {}
_LOCK = threading.Lock()


def attack_for(module: str):
    """One attack of the system whose kernel module is ``module``: its damage (compiled
    on first call, then cached on disk). A function of its own, called and not inlined:
    inlined, every tuple of systems and every shape of an encounter compiled the systems'
    trials anew (measured on the example party against its ogre from an empty cache, the
    first simulation 55.8 s inlined and 40.7 s called, another shape after it 45.0 s and
    7.9 s; the call cost 18% of the speed, 0.93 M against 0.76 M encounters a second on
    one thread)."""
    with _LOCK:
        fn = _ATTACKS.get(module)
        if fn is None:
            name = "attack_" + module.rpartition(".")[2]
            # the name is the cache's file name: one per system
            py = bind(_one_attack, name, system_trial=trial_of(module))
            fn = _ATTACKS[module] = kernel(py)
    return fn


def sample(plan: Plan, kind: int) -> Any:
    """The kernel arguments of the first pair of kind ``kind`` (every pair of a kind has
    its type): what the kind's attack and wrapper are compiled for."""
    return plan.pairs[int(np.flatnonzero(plan.pair_kind == kind)[0])]


def type_tag(args_type: types.Type) -> str:
    """A short name for a Numba type, the same in every process (a cache file's name)."""
    return hashlib.sha256(str(args_type).encode()).hexdigest()[:12]


def wrapper_of(attack: Any, args_type: types.Type, name: str, cache: tuple[str, str] | None) -> Any:
    """:func:`critlab.kernels.indirect.wrapper` of ``attack`` for ``args_type``, made once
    per process."""
    key = (name, args_type)
    with _LOCK:
        made = _WRAPPERS.get(key)
    if made is None:
        made = indirect.wrapper(attack, args_type, name, cache)
        with _LOCK:
            made = _WRAPPERS.setdefault(key, made)
    return made


class EncounterKernel:
    """The encounter block with the attacks of ``kinds`` (systems' kernel modules, and
    kinds whose attacks ``others`` gives: ``others.attack(kind)`` is ``(attack, name,
    cache)`` or None, as :meth:`attack`), picklable by those: each process that runs it
    makes the kinds' wrappers (or loads them from its own cache) and writes the pairs'
    bytes and addresses itself."""

    __slots__ = ("_bound", "kinds", "others")

    def __init__(self, kinds: tuple[str, ...], others: Any = None) -> None:
        self.kinds, self.others = tuple(kinds), others
        self._bound: dict[int, tuple[Any, Args]] = {}

    def __reduce__(self) -> tuple:
        return (EncounterKernel, (self.kinds, self.others))

    def attack(self, kind: str) -> tuple[Any, str, tuple[str, str] | None]:
        """``(attack, name, cache)`` of ``kind``: its compiled attack, its wrapper's cache
        file name (the argument type's tag is added), and its cache (``(folder, key)``, or
        None: beside this file)."""
        given = None if self.others is None else self.others.attack(kind)
        return given or (attack_for(kind), "attack_" + kind.rpartition(".")[2], None)

    def attacks(self) -> list[Any]:
        """Each kind's compiled attack (what compiles, with the block, on a first run)."""
        return [self.attack(kind)[0] for kind in self.kinds]

    def bound(self, plan: Plan) -> Args:
        """The block's arguments for ``plan`` in this process (made once per plan): every
        pair's kind's attack address and its arguments' bytes. Every pair of a kind has
        the kind's argument type (a ValueError otherwise: the bytes would be misread)."""
        with _LOCK:
            found = self._bound.get(id(plan))
        if found is not None and found[0] is plan:
            return found[1]
        types_of, addresses, sizes = [], [], []
        for k, kind in enumerate(self.kinds):
            attack, name, cache = self.attack(kind)
            first = sample(plan, k)
            args_type = typeof(first)
            types_of.append(args_type)
            wrapped = wrapper_of(attack, args_type, f"{name}_{type_tag(args_type)}", cache)
            addresses.append(wrapped.address)
            sizes.append(-(-indirect.size_of(first) // indirect.ALIGN) * indirect.ALIGN)  # one type a kind
        n_pairs = plan.pair_kind.shape[0]
        fns, at = np.zeros(n_pairs, dtype=np.int64), np.zeros(n_pairs, dtype=np.int64)
        end = 0
        for p in range(n_pairs):
            k = int(plan.pair_kind[p])
            if k < 0:
                continue
            if typeof(plan.pairs[p]) != types_of[k]:
                raise ValueError(f"pair {p} of kind {self.kinds[k]} has arguments of another type")
            fns[p], at[p] = addresses[k], end
            end += sizes[k]
        packed = np.zeros(max(end, 1), dtype=np.uint8)
        for p in range(n_pairs):
            if plan.pair_kind[p] >= 0:
                indirect.pack(packed, at[p], plan.pairs[p])
        args = plan.args._replace(pair_fn=fns, pair_at=at, packed=packed)
        with _LOCK:
            if len(self._bound) >= 8:  # a few plans at a time: a sweep's points one after another
                self._bound.clear()
            self._bound[id(plan)] = (plan, args)  # the plan held: its id is not reused meanwhile
        return args

    def __call__(self, state, n, out, layout, plan) -> None:
        block(state, n, out, layout, self.bound(plan))


# One attack of a mechanic's rule: a single trial of the mechanic's simulation block
# (critlab.kernels.mechanic), its inputs rolled as the rule reads them, returning one of its values
# (its damage). mem is set up anew for each attack: an attack is one call.
_ATTACK = (
    """
def attack(s, a, scratch):
    mem = local_mem()
    p = a.params
    for j in range(a.consts.shape[0]):
        mem[OFFS + j] = a.offs[j]
        mem[WIDTHS + j] = a.widths[j]
        mem[DONE + j] = 0
        for t in range(a.widths[j]):
            mem[a.offs[j] + t] = 0
"""
    + km.run_rule(4)
    + """    return np.int64(r[{value}])
"""
)


def mechanic_attack(
    user: Any, n_params: int, value: int, cache: tuple[str, str] | None = None, tag: str = ""
) -> Any:
    """One attack of a rule, for an encounter: ``attack(s, a, scratch)`` rolls the inputs
    of a mechanic's arguments ``a`` (:data:`critlab.kernels.mechanic.Args`) as the rule
    reads them (from stream ``s``, with ``scratch`` for
    :func:`critlab.kernels.dice.roll_expr`) and returns item ``value`` of the rule's
    result as an int64 (1 + the index of its damage among the values). ``user``,
    ``cache`` and ``tag`` as for :func:`critlab.kernels.mechanic.make_kernels`; compiled
    on first call (or loaded from the disk cache); its caller gives it to the block
    (:meth:`EncounterKernel.attack`).
    """
    params = "".join(f", p[{i}]" for i in range(n_params))
    source = _ATTACK.format(params=params, value=value)
    key = cache[1] if cache else f"{id(user):x}"
    filename = f"critlab_mechanic_{tag}attack{value}_{key[:16]}"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = km.generated_namespace(user)
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace["attack"]
    return njit(**(km.cache_in(fn, *cache) if cache else km.cache_in(fn, None, "")))(fn)
