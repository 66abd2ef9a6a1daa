"""A sixth rule system that exists only for the tests: the files a new system needs.

``kernel.py`` (the simulator: vocabularies, argument tuple, per-trial function, block)
and ``system.py`` (the spec with declared parameters, the exact model, ``SYSTEM``) are
all of it; ``tests/conftest.py`` adds the one registry line. The contract suite, the CLI,
sweeps and validation then treat it like any built-in system.
"""
