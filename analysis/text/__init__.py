"""Text in and out: numbers read from what a user types (ASCII digits, exact decimals,
one-line messages; :mod:`.numtext`) and numbers written for machines (15 significant
digits; :mod:`.digits`)."""
