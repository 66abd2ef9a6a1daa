"""``python -m critlab``: the ``critlab`` command line."""

import sys

from critlab.analysis.cli import main

sys.exit(main())
