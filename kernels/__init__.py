"""critlab's Monte Carlo kernels: Numba-jitted, pure functions over arrays and scalars.

The jit policy lives in :mod:`critlab.kernels.jit`; random streams in :mod:`critlab.kernels.rng`; dice
in :mod:`critlab.kernels.dice`; histogram tallying in :mod:`critlab.kernels.bins`; the block runner
(threads, progress, cancellation) in :mod:`critlab.kernels.runner`; and one module per rule
system holds that system's block simulator.
"""
