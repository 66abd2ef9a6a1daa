"""How results show themselves in Jupyter: a distribution's table, summary and plot
(:mod:`.dist`), and results' outcome tables, verdicts and plots (:mod:`.results`)."""
