"""The dice notation: its grammar, its exact engine, its work limits, its readable table, and the d20 roll modes."""
