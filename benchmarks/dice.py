"""``make bench`` cases of the dice notation's exact engine beside icepool: L5R's
roll-and-keep 5k3, 6k3 and 10k5 (``Nd10!khK``), a reroll under a drop (``4d6ro1dl1``), a
success pool (``8d10cs>=7``), and each in icepool's own form: a Cortex pool of eight mixed
dice (``Pool([...]).highest(2)``), a Savage Worlds trait roll with its wild die
(``highest`` of two exploding dice), Chronicles of Darkness 10-again (``explode_to_pool``,
each added roll a die of its own) and World of Darkness botches (``df``).

The mixed-pool, ``x`` and botch rows run icepool at the explosion depth that cuts no more
than critlab's tail (the same cut mass); the first rows keep icepool's default depth.

critlab's side is timed uncached (the parse and the whole computation, every call);
icepool's is its first evaluation in a fresh process, since it memoises. icepool
truncates an explosion at its default depth of 9 extra rolls and leaves the cut mass on
the last value; critlab cuts each chain once less than its share of 1e-12 remains and
reports that mass as the tail. :func:`cut_masses` sets the two side by side.

``python -m benchmarks.dice [--rounds 3]`` prints each ratio as the median over the rounds.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from benchmarks.cases import BenchCase

# icepool's default explosion depth (the truncation its paper's timings use)
ICEPOOL_DEPTH = 9
CASES = {
    "5k3": "5d10!kh3",
    "6k3": "6d10!kh3",
    "10k5": "10d10!kh5",
    "4d6ro1dl1": "4d6ro1dl1",
    "8d10cs>=7": "8d10cs>=7",
    "cortex8": "{d4,d6,d6,d8,d8,d10,d12,d12}kh2",
    "savage": "{1d8!,1d6!}kh1",
    "10-again": "5d10x10cs>=8",
    "botches": "10d10cs>=6df=1",
}
# icepool depths cutting at most critlab's tail: (1/6)**18 < 1.4e-14 for the wild die of
# the trait roll, and 5 * 0.1**16 < 5e-16 for the five 10-again dice
SAVAGE_DEPTH = 17
TEN_AGAIN_DEPTH = 15


def exact_uncached(text: str):
    """critlab's exact distribution of ``text`` with no cache on the way: parsed (limits
    checked) and computed afresh."""
    from critlab.analysis.dice.evaluate import expr_dist
    from critlab.analysis.dice.notation import parse

    expr = parse.__wrapped__(text)
    return expr_dist(expr.terms, expr.constant)


def _exact_5k3():
    return exact_uncached(CASES["5k3"])


def _exact_6k3():
    return exact_uncached(CASES["6k3"])


def _exact_10k5():
    return exact_uncached(CASES["10k5"])


def _exact_4d6ro1dl1():
    return exact_uncached(CASES["4d6ro1dl1"])


def _exact_8d10cs7():
    return exact_uncached(CASES["8d10cs>=7"])


def _exact_cortex8():
    return exact_uncached(CASES["cortex8"])


def _exact_savage():
    return exact_uncached(CASES["savage"])


def _exact_ten_again():
    return exact_uncached(CASES["10-again"])


def _exact_botches():
    return exact_uncached(CASES["botches"])


# icepool's callables are module-level functions: they are pickled by reference into the
# fresh process that times them.
def _icepool_keep(count: int, keep: int):
    import icepool

    return icepool.d10.explode(depth=ICEPOOL_DEPTH).highest(count, keep).probabilities()


def _icepool_5k3():
    return _icepool_keep(5, 3)


def _icepool_6k3():
    return _icepool_keep(6, 3)


def _icepool_10k5():
    return _icepool_keep(10, 5)


def _icepool_4d6ro1dl1():
    import icepool

    return icepool.d6.reroll([1], depth=1).highest(4, 3).probabilities()


def _icepool_8d10cs7():
    import icepool

    return (8 @ (icepool.d10 >= 7)).probabilities()


def _icepool_cortex8():
    import icepool

    dice = [icepool.d(n) for n in (4, 6, 6, 8, 8, 10, 12, 12)]
    return icepool.Pool(dice).highest(2).sum().probabilities()


def _icepool_savage():
    import icepool

    trait, wild = icepool.d8.explode(depth=SAVAGE_DEPTH), icepool.d6.explode(depth=SAVAGE_DEPTH)
    return icepool.highest(trait, wild).probabilities()


def _icepool_ten_again():
    import icepool

    pool = icepool.d10.explode_to_pool(5, [10], depth=TEN_AGAIN_DEPTH)
    return pool.keep_outcomes([8, 9, 10]).size().probabilities()


def _icepool_botches():
    import icepool

    return (10 @ icepool.d10.map(lambda f: 1 if f >= 6 else (-1 if f == 1 else 0))).probabilities()


def bench_cases() -> list[BenchCase]:
    """The notation's cases: exact engine against icepool only (no simulation)."""
    pairs = [
        ("5k3", _exact_5k3, _icepool_5k3),
        ("6k3", _exact_6k3, _icepool_6k3),
        ("10k5", _exact_10k5, _icepool_10k5),
        ("4d6ro1dl1", _exact_4d6ro1dl1, _icepool_4d6ro1dl1),
        ("8d10cs>=7", _exact_8d10cs7, _icepool_8d10cs7),
        ("cortex8", _exact_cortex8, _icepool_cortex8),
        ("savage", _exact_savage, _icepool_savage),
        ("10-again", _exact_ten_again, _icepool_ten_again),
        ("botches", _exact_botches, _icepool_botches),
    ]
    return [
        BenchCase(f"dice {CASES[key]} (exact)", None, None, exact=ours, icepool=theirs)
        for key, ours, theirs in pairs
    ]


def cut_masses() -> dict[str, tuple[float, float]]:
    """Per case, ``(critlab's tail, icepool's cut mass)``: the probability critlab leaves
    unrepresented, and the probability icepool misplaces by stopping each die after
    ``ICEPOOL_DEPTH`` explosions (some die would have exploded again: ``1 - (1 - q**10)**N``
    for N d10s, ``q = 1/10``; 0 where nothing explodes)."""
    from critlab.analysis.dice.notation import parse

    cuts = {
        "savage": 1 - (1 - (1 / 8) ** (SAVAGE_DEPTH + 1)) * (1 - (1 / 6) ** (SAVAGE_DEPTH + 1)),
        "10-again": -np.expm1(5 * np.log1p(-(0.1 ** (TEN_AGAIN_DEPTH + 1)))),
    }
    out = {}
    for key, text in CASES.items():
        ours = exact_uncached(text).tail
        (term,) = parse(text).terms
        if key in cuts:
            theirs = cuts[key]
        elif term.exploding:
            q = 1 / term.sides
            theirs = -np.expm1(term.count * np.log1p(-(q ** (ICEPOOL_DEPTH + 1))))
        else:
            theirs = 0.0
        out[key] = (float(ours), float(theirs))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dice", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each ratio is their median")
    args = parser.parse_args(argv)
    from benchmarks.timing import cold_seconds, seconds

    masses = cut_masses()
    head = ("case", "critlab ms", "icepool ms", "ratio", "critlab tail", "icepool cut")
    print(f"{head[0]:<12} {head[1]:>11} {head[2]:>11} {head[3]:>8} {head[4]:>13} {head[5]:>12}")
    for key, case in zip(CASES, bench_cases(), strict=True):
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(seconds(case.exact))
            theirs.append(cold_seconds(case.icepool, repeats=1))
        ratios = np.array(theirs) / np.array(ours)
        tail, cut = masses[key]
        print(
            f"{key:<12} {np.median(ours) * 1e3:>11.4f} {np.median(theirs) * 1e3:>11.3f} "
            f"{np.median(ratios):>7.0f}x {tail:>13.2e} {cut:>12.2e}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
