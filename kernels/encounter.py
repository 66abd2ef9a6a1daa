"""Kernel for encounters: each trial one encounter, every attack the attacker's own trial.

An encounter is two sides of combatants taking turns (in a fixed order, an order rolled
once by initiative, or simultaneously each round) until one side is down or
``max_rounds`` rounds have been played. Before each attack the attacker's side picks a
standing enemy (``focus``: the first in listed order; ``weakest``: the fewest hit points
left, ties in listed order; ``random``: uniformly), and the attack is one trial of the
attacker's system against that target, ``trial(s, args, scratch)`` of its kernel module,
rolling die by die; its damage comes off the target's hit points.

Attackers of different systems meet in one kernel: every (attacker, target) pair has a
kind (which of the encounter's systems) and a slot in that kind's tuple of kernel
arguments (the target's defense applied), and an attack dispatches on the kind over a
fixed set of at most :data:`MAX_KINDS` systems. As for fights (:mod:`critlab.kernels.fight`)
the loop is written once (:func:`_block`) and specialised by :func:`block_for` per tuple
of systems, each ``attack_k`` bound to a system's attack; unused kinds are bound to
:func:`no_attack` with a placeholder tuple. Each system's attack is compiled once as a
function of its own (:func:`attack_for`) and called, not inlined: inlining several
systems' trials into one loop compiled for many minutes. Each specialisation has its own
name in this file, so it is cached on disk like every kernel. A ``best`` side's lookups
in its table are kernels of their own (:mod:`critlab.kernels.best_table`), called.

A designer's own mechanic is a kind too: its attack is compiled from its rule at run time
(:func:`mechanic_attack`) and registered under a kind name of its own
(:func:`add_attack`); a block calling it has no source file to be cached by, so it is
cached in the folder and under the key its caller gives (the mechanic's cache,
:func:`critlab.kernels.mechanic.cache_in`).
"""

from __future__ import annotations

import linecache
import threading
from collections import namedtuple
from dataclasses import dataclass
from typing import Any

from numba import carray, njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from critlab.kernels import mechanic as km
from critlab.kernels.best_table import best_pick, order_row
from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import _stack_int64, local_scratch
from critlab.kernels.fight import trial_of
from critlab.kernels.jit import JIT_OPTIONS, bind, kernel
from critlab.kernels.rng import bounded, die, local_state
from critlab.kernels.vocab import vocabulary

Outcome = vocabulary("Outcome", "a_wins b_wins draw undecided", module=__name__)
Order = vocabulary("Order", "a_first b_first rolled simultaneous", module=__name__)
Policy = vocabulary("Policy", "focus weakest random best", module=__name__)
Counter = vocabulary("Counter", "decided_rounds_sum attacks any_down_a any_down_b", module=__name__)
# Histogram 0 is the rounds; histogram 1 + k is combatant k's hit points left.
ROUNDS = 0
# Three built-in systems and a mechanic: every kind a placeholder costs nothing to run.
MAX_KINDS = 4
# Two sides of at most 10 (critlab.analysis.encounter.declare.MAX_SIDE).
MAX_COMBATANTS = 20

Args = namedtuple(
    "Args",
    "n n_a hp attacks initiative policy order max_rounds pair_kind pair_slot pairs0 pairs1 pairs2 pairs3 "
    "table keys_a mult_a keys_b mult_b order_keys order_index",
)
"""The block's arguments: ``n`` combatants (side a's ``n_a`` first), their ``hp``,
``attacks`` and ``initiative`` (int64 arrays), each side's ``policy`` (an int64 array of
two :data:`Policy` codes), the :data:`Order` code, ``max_rounds``, and per (attacker,
target) pair (flat, ``i * n + j``) its ``pair_kind`` and its ``pair_slot`` in
``pairs0`` .. ``pairs3``: the kernel arguments of each kind's pairs. A side playing
``best`` follows ``table[order, attack, a_state, b_state]`` (the target member the exact
walk chose; -1 where none): a side's state is found by its key (hit points times
``mult_a``, summed) among the sorted ``keys_a`` (``keys_b``), the order of turns by its
Lehmer code among the sorted ``order_keys`` (``order_index``: its row of the table)."""


@kernel
def no_attack(s, a, scratch):
    """Stands for a kind an encounter does not use (never called)."""
    return 0


def system_trial(s, a, scratch):
    """Stands for one system's ``trial`` in :func:`_one_attack` (bound by :func:`attack_for`)."""
    raise NotImplementedError("bound per system by attack_for")


def _one_attack(s, a, scratch):
    """The damage of one attack of a system (its ``trial`` bound as ``system_trial``)."""
    return system_trial(s, a, scratch)[1]


def attack_0(s, a, scratch):
    """Stands for kind 0's attack in :func:`_attack` (bound by :func:`block_for`)."""
    raise NotImplementedError("bound per tuple of systems by block_for")


attack_1 = attack_2 = attack_3 = attack_0


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


def _strip(context, builder, ty, value):
    """``value`` of type ``ty`` with every array in it unowned (see :func:`_unowned`)."""
    if isinstance(ty, types.Array):
        ary = context.make_array(ty)(context, builder, value=value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()
    if isinstance(ty, types.BaseTuple):
        for k, member in enumerate(ty.types):
            inner = _strip(context, builder, member, builder.extract_value(value, k))
            value = builder.insert_value(value, inner, k)
        return value
    return value


@intrinsic
def _unowned(typingctx, value):
    """``value`` (an array, or tuples and named tuples holding arrays) with no reference
    count: the same data, its arrays' meminfo null. Every array passed on or read from a
    tuple counts its references atomically, shared by every thread: in an encounter's
    loop that was 85% of the time. The caller's arguments keep the data alive."""
    sig = value(value)

    def codegen(context, builder, signature, args):
        return _strip(context, builder, signature.args[0], args[0])

    return sig, codegen


def _attack(s, kinds, slots, p0, p1, p2, p3, pair, scratch):
    """The damage of one attack of pair ``pair`` (attacker * n + target): its kind's
    attack on its slot's arguments. The arguments come in as the block's own locals, read
    from its arguments once: each read of a tuple of arrays inside the loop counted its
    arrays' references atomically, three quarters of the time of an encounter."""
    kind, slot = kinds[pair], slots[pair]
    if kind == 0:
        return attack_0(s, p0[slot], scratch)
    if kind == 1:
        return attack_1(s, p1[slot], scratch)
    if kind == 2:
        return attack_2(s, p2[slot], scratch)
    return attack_3(s, p3[slot], scratch)


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
    kinds, slots = a.pair_kind, a.pair_slot
    p0, p1, p2, p3 = a.pairs0, a.pairs1, a.pairs2, a.pairs3
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
                    d = max(0, _attack(s, kinds, slots, p0, p1, p2, p3, i * n + t, scratch))
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


_BLOCKS: dict[tuple[str, ...], object] = {}
_ATTACKS: dict[str, object] = {}
_REGISTERED: dict[str, object] = {}  # kinds given by add_attack
_LOCK = threading.Lock()


def add_attack(kind: str, fn) -> None:
    """Register ``fn(s, args, scratch)``, a compiled attack returning its damage (a
    mechanic's, :func:`mechanic_attack`), as kind ``kind`` for
    :func:`block_for` (a name no kernel module has: ``mechanic_<key>``)."""
    with _LOCK:
        _REGISTERED[kind] = fn


def attack_for(module: str):
    """One attack of the system whose kernel module is ``module``: its damage
    (compiled on first call, then cached on disk), or the attack registered as kind
    ``module`` by :func:`add_attack`. A function of its own, called and not inlined, so
    that every block calling it links the one compiled copy. Inlined, every tuple of
    systems and every shape of an encounter (a kind's pairs are a tuple, its length part
    of the block's type) compiled the systems' trials anew: measured on the example party
    against its ogre from an empty cache, the first simulation 55.8 s inlined and 40.7 s
    called, another shape after it 45.0 s and 7.9 s; the call costs 18% of the speed
    (0.93 M against 0.76 M encounters a second on one thread)."""
    fn = _REGISTERED.get(module) or _ATTACKS.get(module)
    if fn is None:
        name = "attack_" + module.rpartition(".")[2]
        py = bind(_one_attack, name, system_trial=trial_of(module))  # the cache's file name: one per system
        fn = _ATTACKS[module] = kernel(py)
    return fn


def block_for(modules: tuple[str, ...], cache: tuple[str, str] | None = None):
    """The encounter block for the systems whose kernel modules are ``modules`` (1 to
    :data:`MAX_KINDS`, kind ``k`` the ``k``-th; or kinds registered by
    :func:`add_attack`), compiled on first call, then cached on disk:
    ``block(state, n, out, layout, args)`` with :data:`Args`. ``cache`` is ``(folder,
    key)`` for a block calling a registered attack (which this file's cache cannot key),
    None to cache it beside this file or, with a registered attack, not at all."""
    if not 1 <= len(modules) <= MAX_KINDS:
        raise ValueError(f"an encounter block takes 1..{MAX_KINDS} systems, got {len(modules)}")
    with _LOCK:
        blk = _BLOCKS.get(modules)
        if blk is None:
            name = "block_" + "_".join(m.rpartition(".")[2] for m in modules)
            bound = {f"attack_{k}": no_attack for k in range(MAX_KINDS)}
            bound.update({f"attack_{k}": attack_for(m) for k, m in enumerate(modules)})
            bound["_attack"] = kernel(inline="always")(bind(_attack, "dispatch_" + name, **bound))
            fn = bind(_block, name, **bound)  # the cache's file name: one per tuple of systems
            if cache is not None:
                options = km.cache_in(fn, *cache)
                options.pop("boundscheck")  # the block is critlab's; the rule checks in its attack
                blk = njit(**options)(fn)
            elif any(m in _REGISTERED for m in modules):  # nowhere to cache it
                blk = njit(**{k: v for k, v in JIT_OPTIONS.items() if k != "cache"})(fn)
            else:
                blk = kernel(fn)
            _BLOCKS[modules] = blk
    return blk


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
    on first call (or loaded from the disk cache); its caller registers it (:func:`add_attack`).
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


@dataclass(frozen=True)
class EncounterKernel:
    """The encounter block of one tuple of kernel modules, picklable by those names (a
    Dask worker builds the same specialisation and loads it from its own cache)."""

    modules: tuple[str, ...]

    def __call__(self, state, n, out, layout, args) -> None:
        block_for(self.modules)(state, n, out, layout, args)
