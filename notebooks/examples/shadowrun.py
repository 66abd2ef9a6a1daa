"""Shadowrun (5th and 6th editions) success test: hits and glitches in a pool of d6s.

Roll ``dice`` d6: each 5 or 6 is a hit, and the test succeeds with at least
``threshold`` hits. When more than half the dice show a 1 the roll **glitches**
(something goes wrong, whatever the hits), and a glitch with no hit at all is a
**critical glitch**. ``hits`` is the number of hits, ``net_hits`` the hits beyond the
threshold (negative when the test fails).

The pool is one input, ``pool("{dice}d6")``, read once as its dice sorted highest first:
exact over its distinct sorted outcomes (12d6: 6,188 of them; 20d6: 53,130), simulated
die by die.

    critlab exact notebooks/examples/shadowrun.py:success_test --dice 12 --threshold 3
"""

from __future__ import annotations

from critlab.analysis.mechanic import Int, mechanic, param, pool


@mechanic(
    labels=("critical_glitch", "glitch_failure", "glitch_success", "failure", "success"),
    values=("hits", "net_hits"),
    params={
        "dice": param(12, Int(1, 40), "d6s in the pool (attribute plus skill plus modifiers)"),
        "threshold": param(2, Int(0, 20), "hits the test needs"),
    },
    inputs={"rolled": pool("{dice}d6")},
)
def success_test(rolled, *, dice, threshold):
    """Shadowrun success test (hits on 5-6; a glitch when more than half the dice show 1)"""
    hits, ones = 0, 0
    for die in rolled:  # a loop, not np.count_nonzero(rolled >= 5): no array made per run
        hits += die >= 5
        ones += die == 1
    made = hits >= threshold
    if 2 * ones > dice:
        if hits == 0:
            return "critical_glitch", hits, hits - threshold
        return ("glitch_success" if made else "glitch_failure"), hits, hits - threshold
    return ("success" if made else "failure"), hits, hits - threshold
