"""The ``critlab`` command line: one contract for every system (see :mod:`critlab.analysis.cli.main`)."""
