"""An attack called through its address (critlab.kernels.indirect): the same dice as the
attack called directly, the arguments read back as they were written, and a pair whose
arguments are not of its kind's type refused before any trial."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit, typeof

from critlab.analysis.encounter.declare import Combatant, Encounter, Side
from critlab.analysis.encounter.sim import encounter_kernel, kernel_plan
from critlab.analysis.systems import get_system
from critlab.kernels import encounter as ke
from critlab.kernels import indirect
from critlab.kernels.dice import local_scratch
from critlab.kernels.rng import local_state, stream_state
from critlab.kernels.vocab.dice import simple_only

THAC0 = get_system("thac0")
AXE = THAC0.make_spec(thac0=12, target_ac=5, damage="2d4ro1+1")  # the interpreter's dice
CLUB = THAC0.make_spec(thac0=14, target_ac=5, damage="1d6")  # simple dice


def _plan(a_spec, b_spec):
    enc = Encounter(Side((Combatant("a", 9, a_spec),)), Side((Combatant("b", 9, b_spec),)), order="a-first")
    return enc, *kernel_plan(enc)


@njit
def _through(state, n, address, packed, first, second):
    s, scratch = local_state(state), local_scratch()
    total = 0
    for i in range(n):
        at = first if i % 2 == 0 else second
        pair = indirect.offset(indirect.data_ptr(packed), at)
        total = total * 7 + indirect.call_attack(
            address, indirect.data_ptr(s), indirect.data_ptr(scratch), pair
        )
    return total


def _direct(attack):
    @njit
    def run(state, n, a, b):
        s, scratch = local_state(state), local_scratch()
        total = 0
        for i in range(n):
            total = total * 7 + attack(s, a if i % 2 == 0 else b, scratch)
        return total

    return run


@pytest.mark.parametrize("spec", [AXE, CLUB], ids=["interpreted", "simple"])
def test_an_attack_through_its_address_rolls_the_dice_of_a_direct_call(spec):
    _, kinds, plan = _plan(spec, spec)
    a, b = plan.pairs[1], plan.pairs[2]  # a attacks b, b attacks a: the same type, other targets
    assert typeof(a) == typeof(b)
    attack, name, cache = ke.EncounterKernel(kinds).attack(kinds[0])
    wrapped = ke.wrapper_of(attack, typeof(a), f"{name}_{ke.type_tag(typeof(a))}", cache)
    size = -(-indirect.size_of(a) // indirect.ALIGN) * indirect.ALIGN
    packed = np.zeros(2 * size, dtype=np.uint8)
    indirect.pack(packed, 0, a)
    indirect.pack(packed, size, b)
    # a running hash of 2,000 damages: any die drawn otherwise, or a byte misread, changes it
    through = _through(stream_state(4, 1), 2_000, wrapped.address, packed, 0, size)
    assert through == _direct(attack)(stream_state(4, 1), 2_000, a, b)


def test_a_pair_of_another_type_than_its_kind_is_refused():
    enc, kinds, plan = _plan(AXE, CLUB)  # one kind: an interpreted and a simple pair
    kernel = encounter_kernel(enc, kinds, plan)
    assert typeof(plan.pairs[1]) == typeof(plan.pairs[2])  # kernel_plan made them one type
    mixed = plan._replace(pairs=(None, plan.pairs[1], simple_only(plan.pairs[2]), None))
    assert typeof(mixed.pairs[1]) != typeof(mixed.pairs[2])
    with pytest.raises(
        ValueError, match="pair 2 of kind critlab.kernels.thac0 has arguments of another type"
    ):
        kernel.bound(mixed)
