"""Benchmark cases of ``make bench`` (never imported by the library)."""
