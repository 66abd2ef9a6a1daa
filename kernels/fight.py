"""Kernel for fights: each trial is one fight, every attack the system's own trial.

A fight repeats a system's attack, ``attacks_per_round`` attacks a round, until the damage
dealt reaches ``hp`` at the end of a round or ``max_rounds`` rounds have been played. The
attack is the system's per-trial kernel function, ``trial(s, args, scratch)`` in its
kernel module, returning ``(label, damage, ...)`` and rolling die by die.

The fight loop is written once (:func:`_block`) and specialised per system by
:func:`block_for`: a new function on the very same code, whose global ``system_trial`` is
bound to that system's ``trial``. Numba then inlines the trial like every leaf of a trial
loop (a fight runs as fast as a hand-written one: ~20 ns an attack for thac0), and each
specialisation has its own name in this file, so ``cache=True`` works as for every kernel:
a system's first fight compiles in about 15 s of CPU (its trial included), later runs load
it in a fraction of a second. Measured alternatives were worse: a trial passed as a
first-class function argument is cached but not inlined (2.3x slower); a closure over it
is fast but never found in the cache again; an ``overload`` resolving it by argument type
compiles for 90 s. The cache is stamped with every kernel source
(:mod:`critlab.kernels.jit`), so editing a system's ``trial`` compiles its fights again.
"""

from __future__ import annotations

import importlib
import threading
from collections import namedtuple
from dataclasses import dataclass

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import local_scratch
from critlab.kernels.jit import bind, kernel
from critlab.kernels.rng import local_state
from critlab.kernels.vocab import vocabulary

Outcome = vocabulary("Outcome", "defeated undecided", module=__name__)
Hist = vocabulary("Hist", "rounds overkill", module=__name__)
Counter = vocabulary("Counter", "defeated_rounds_sum overkill_sum attacks", module=__name__)

Args = namedtuple("Args", "attack hp attacks_per_round max_rounds")
"""The block's arguments: the attack's own kernel arguments (a system's namedtuple) and the
fight's ``hp``, ``attacks_per_round`` and ``max_rounds``."""


def trial_of(module: str):
    """The per-trial kernel function ``trial`` of kernel module ``module``, or a TypeError
    naming what is missing.

    >>> from critlab.kernels import thac0
    >>> trial_of("critlab.kernels.thac0") is thac0.trial
    True
    """
    trial = getattr(importlib.import_module(module), "trial", None)
    if trial is None:
        raise TypeError(f"{module} has no per-trial kernel function trial(s, args, scratch)")
    return trial


def system_trial(s, attack_args, scratch):
    """Stands for one system's ``trial`` in :func:`_block`; each specialisation made by
    :func:`block_for` binds the name to its own."""
    raise NotImplementedError("bound per system by block_for")


def _block(s, n, out, layout, a):
    """Tally ``n`` fights into ``out`` (see :mod:`critlab.kernels.bins` for the layout):
    the label, the rounds played and the overkill (damage past ``hp`` at the end of the
    defeating round; 0 when undecided), and counters of the defeated fights' rounds, the
    overkill and the attacks rolled."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    for _ in range(n):
        dealt = 0
        rounds = 0
        while rounds < a.max_rounds and dealt < a.hp:
            rounds += 1
            for _ in range(a.attacks_per_round):
                dealt += system_trial(s, a.attack, scratch)[1]
        overkill = 0
        if dealt >= a.hp:
            add_label(out, Outcome.DEFEATED)
            overkill = dealt - a.hp
            add_counter(out, layout, Counter.DEFEATED_ROUNDS_SUM, rounds)
        else:
            add_label(out, Outcome.UNDECIDED)
        add_value(out, layout, Hist.ROUNDS, rounds)
        add_value(out, layout, Hist.OVERKILL, overkill)
        add_counter(out, layout, Counter.OVERKILL_SUM, overkill)
        add_counter(out, layout, Counter.ATTACKS, rounds * a.attacks_per_round)


_BLOCKS: dict[str, object] = {}
_LOCK = threading.Lock()


def block_for(module: str):
    """The fight block of the system whose kernel module is ``module`` (compiled on first
    call, then cached on disk): ``block(state, n, out, layout, args)`` with :data:`Args`."""
    with _LOCK:
        blk = _BLOCKS.get(module)
        if blk is None:
            # the name is the cache's file name: one per system
            name = "block_" + module.rpartition(".")[2]
            blk = _BLOCKS[module] = kernel(bind(_block, name, system_trial=trial_of(module)))
    return blk


@dataclass(frozen=True)
class FightKernel:
    """The fight block of one system's kernel module, picklable by that name alone (a Dask
    worker builds the same specialisation and loads it from its own cache)."""

    module: str

    def __call__(self, state, n, out, layout, args) -> None:
        block_for(self.module)(state, n, out, layout, args)
