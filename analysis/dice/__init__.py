"""The dice notation: its grammar, exact engine, work limits, reading in words, readable table,
and the d20 roll modes."""
