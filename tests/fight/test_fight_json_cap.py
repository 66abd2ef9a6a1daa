"""``critlab fight --json`` caps a distribution of more than 1000 values as ``exact --json``
does: the 1000 consecutive values holding the most probability, the rest in its tail."""

from __future__ import annotations

import json

import numpy as np

from critlab.analysis.cli.main import main

# 1d1000 twice a round (a natural 20 doubles it) against 10 hp: overkill spans ~4000 values
WIDE = ["thac0", "--thac0", "15", "--target-ac", "5", "--damage", "1d1000", "--hp", "10"]
WIDE += ["--attacks-per-round", "2", "--json"]


def _values(dist: dict) -> dict[int, float]:
    return {int(k): v for k, v in dist.items() if k != "tail"}


def test_a_wide_overkill_is_capped_to_the_heaviest_window(capsys):
    assert main(["fight", *WIDE, "--all-bins"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert main(["fight", *WIDE]) == 0
    out = capsys.readouterr()
    capped = json.loads(out.out)

    every = _values(full["distributions"]["overkill"])
    assert len(every) > 1000  # the uncapped distribution really is wide
    kept = _values(capped["distributions"]["overkill"])
    assert len(kept) == 1000
    assert sorted(kept) == list(range(min(kept), min(kept) + 1000))  # consecutive values
    assert all(kept[v] == every[v] for v in kept)  # the same numbers, only fewer

    # the heaviest window of 1000 consecutive values, found here from the full list
    lo, hi = min(every), max(every)
    probs = np.array([every.get(v, 0.0) for v in range(lo, hi + 1)])
    windows = np.convolve(probs, np.ones(1000), mode="valid")
    assert min(kept) == lo + int(np.argmax(windows))

    # the mass left out is in the tail: the distribution still sums to 1
    rest = sum(p for v, p in every.items() if v not in kept)
    tail = capped["distributions"]["overkill"]["tail"]
    assert abs(tail - (full["distributions"]["overkill"]["tail"] + rest)) < 1e-12
    assert abs(sum(kept.values()) + tail - 1.0) < 1e-12

    assert "overkill has" in out.err and "--all-bins" in out.err
    assert capped["distributions"]["rounds"] == full["distributions"]["rounds"]  # small: untouched


def test_a_narrow_fight_is_written_whole_without_a_note(capsys):
    argv = ["fight", "thac0", "--thac0", "15", "--target-ac", "5", "--hp", "30", "--json"]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert out.err == ""
    overkill = _values(json.loads(out.out)["distributions"]["overkill"])
    assert len(overkill) < 1000 and max(overkill) >= 15  # a double 2d8 crit overshoots by 15


def test_simulated_distributions_are_capped_too(capsys):
    status = main(["fight", *WIDE, "--trials", "20000", "--seed", "3", "--no-progress"])
    out = capsys.readouterr()
    body = json.loads(out.out)
    assert status in (0, 1)  # the validation's verdict is not what is tested here
    for part in (body, body["simulated"]):
        for dist in part["distributions"].values():
            assert dist is None or len(dist) <= 1001
    simulated = body["simulated"]["distributions"]["overkill"]
    assert abs(sum(_values(simulated).values()) + simulated["tail"] - 1.0) < 1e-9
    assert "simulated overkill has" in out.err
