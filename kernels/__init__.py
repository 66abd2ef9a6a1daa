"""critlab's Monte Carlo kernels: Numba-jitted, pure functions over arrays and scalars.

The jit policy lives in :mod:`kernels.jit`; random streams in :mod:`kernels.rng`; dice
in :mod:`kernels.dice`; histogram tallying in :mod:`kernels.bins`; the block runner
(threads, progress, cancellation) in :mod:`kernels.runner`; and one module per rule
system holds that system's block simulator.
"""
