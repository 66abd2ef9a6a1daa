"""The designer's tools: sweeps over parameter grids, tune, sensitivity and the quantities they ask about."""
