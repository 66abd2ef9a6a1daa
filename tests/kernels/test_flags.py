"""Numba's compile flags read in one pass (critlab.kernels.flags)."""

from __future__ import annotations

from numba.core.compiler import Flags

from critlab.kernels import flags


def test_it_is_installed_on_this_numba():
    # A Numba whose flags are laid out otherwise compiles correctly but slower: fail here, not silently.
    assert flags.install()
    assert flags.install()  # twice: still the one reader


def test_the_values_are_what_each_option_reads():
    f = Flags()
    f.nrt = True
    f.error_model = "numpy"
    f.enable_ssa = False
    assert f.values() == {name: getattr(f, name) for name in Flags.options}
    assert f.values()["error_model"] == "numpy" and f.values()["nrt"] is True


def test_flags_compare_and_hash_by_their_values():
    a, b = Flags(), Flags()
    a.nrt = b.nrt = True
    assert a == b and hash(a) == hash(b)
    b.boundscheck = True
    assert a != b


def test_the_hash_and_equality_are_numbas_own():
    # Numba's: the hash of the sorted option names (its values() iterated), equality by values
    a, b = Flags(), Flags()
    b.nrt = Flags.options["nrt"].default  # set to its default: stored differently, the same values
    assert hash(a) == hash(tuple(sorted(Flags.options))) == hash(b)
    assert a == b and a._values != b._values
    b.nrt = not b.nrt
    assert a != b and hash(a) == hash(b)
    assert (a == object()) is False
