"""Shared test set-up: a non-interactive matplotlib backend, so plots render headless."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
