"""``python -m critlab``: the ``critlab`` command line."""

import sys

from critlab.analysis.cli.main import main

sys.exit(main())
