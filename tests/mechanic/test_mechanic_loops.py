"""A rule's loops are bounded and interruptible: a loop that never ends stops with one line
naming its file and line (exit 2) in the exact walk and in the simulation, a long loop
under the bound gives the answer it always gave, a rule that calls itself is refused, and
a Ctrl-C or SIGTERM ends a long compiled run at once (exit 130)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from fractions import Fraction
from pathlib import Path

import pytest

from critlab.analysis.cli.main import main
from critlab.analysis.mechanic.loops import INTERRUPT, MAX_LOOP_RUNS

RULES = """
from critlab.analysis.mechanic import Int, mechanic, param, pool

TAG = "{tag}"


@mechanic(labels=("lo", "hi"), inputs={{"d": "1d6"}})
def forever(d):
    while True:
        pass
    return "lo",


@mechanic(labels=("lo", "hi"), inputs={{"d": "1d6"}})
def never_falls(d):
    x = d
    while x > 0:
        x = x * 1
    return "lo",


@mechanic(labels=("lo", "hi"), params={{"n": param(10, Int(1, 10**9), "dice")}}, inputs={{"d": "1d6"}})
def long_range(d, *, n):
    total = 0
    for _ in range(n):
        total += d
    return ("hi" if total % 2 else "lo"),


@mechanic(labels=("lo", "hi"), inputs={{"rolled": pool("60d60")}})
def forever_when_rolled(rolled):
    # 60d60 has too many outcomes for the exact walk, which stops at its first read: the
    # loop is met in the simulation alone
    while rolled[0] > 0:
        pass
    return "lo",


@mechanic(
    labels=("even", "odd"),
    values=("sevens",),
    params={{"k": param(1000, Int(1, 10**6), "steps per pip")}},
    inputs={{"d": "1d6", "e": "1d4"}},
)
def counted(d, e, *, k):
    i = 0
    sevens = 0
    while i < k * d:
        i += 1
        sevens += (i + e) % 7 == 0
    return ("odd" if sevens % 2 else "even"), sevens


@mechanic(labels=("lo", "hi"), params={{"m": param(10, Int(0, 2 * 10**6), "steps")}}, inputs={{"d": "1d2"}})
def exactly(d, *, m):
    i = 0
    while i < m:
        i += 1
    return ("hi" if d == 2 else "lo"),


@mechanic(
    labels=("lo", "hi"),
    params={{"k": param(900_000, Int(1, 10**6), "steps")}},
    inputs={{"rolled": pool("60d60")}},
)
def slow(rolled, *, k):
    i = 0
    n = 0
    while i < k:
        i += 1
        n += (i * rolled[0]) % 7 == 0
    return ("hi" if n % 2 else "lo"),


@mechanic(
    labels=("lo", "hi"),
    params={{"k": param(900_000, Int(1, 10**6), "steps")}},
    inputs={{"a": "1d100", "b": "1d100"}},
)
def slow_exact(a, b, *, k):
    i = 0
    n = 0
    while i < k:
        i += 1
        n += (i * a + b) % 7 == 0
    return ("hi" if n % 2 else "lo"),
"""

SIMULATE = ["--trials", "2000", "--seed", "1", "--no-progress"]
LONG = ["--trials", "100000000", "--seed", "1", "--no-progress"]  # hours of slow's trials


@pytest.fixture(scope="module")
def rules(tmp_path_factory) -> Path:
    # a tag of its own: the compiled rules are this file's, not a cache entry from elsewhere
    path = tmp_path_factory.mktemp("loops") / "rules.py"
    path.write_text(textwrap.dedent(RULES.format(tag=uuid.uuid4().hex)))
    return path


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _one_line(capsys) -> str:
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err, captured
    assert captured.err.count("\n") == 1, captured.err
    return captured.err


@pytest.mark.parametrize(
    ("rule", "loop"),
    [("forever", "while True"), ("never_falls", "while x > 0"), ("long_range", "for _ in range(n)")],
)
@pytest.mark.parametrize("command", ["exact", "simulate"])
def test_a_loop_that_does_not_end_is_one_line_naming_its_file_and_line(rules, rule, loop, command, capsys):
    extra = SIMULATE if command == "simulate" else []
    flags = ["--n", str(10**9)] if rule == "long_range" else []
    assert main([command, f"{rules}:{rule}", *flags, *extra]) == 2
    err = _one_line(capsys)
    where = f"{rule} ({rules}, line {_line_of(rules, loop)})"
    assert f"{where}: its loops ran past {MAX_LOOP_RUNS:,} " in err, err


def test_the_simulation_stops_a_loop_the_exact_walk_never_meets(rules, capsys):
    assert main(["exact", f"{rules}:forever_when_rolled"]) == 2
    assert "too many distinct outcomes" in _one_line(capsys)
    for threads in ("1", "2"):
        assert main(["simulate", f"{rules}:forever_when_rolled", *SIMULATE, "--threads", threads]) == 2
        err = _one_line(capsys)
        line = _line_of(rules, "while rolled[0] > 0")
        assert f"forever_when_rolled ({rules}, line {line}): its loops ran past" in err, err


def test_the_bound_is_a_count_of_iterations(rules):
    import critlab

    exactly = critlab.get_system(f"{rules}:exactly")
    at_bound = exactly.exact(exactly.make_spec(m=MAX_LOOP_RUNS)).outcomes
    assert at_bound == {"lo": 0.5, "hi": 0.5}
    line = _line_of(rules, "while i < m")
    with pytest.raises(ValueError, match=rf"^exactly \(.*, line {line}\): its loops ran past 1,000,000 "):
        exactly.exact(exactly.make_spec(m=MAX_LOOP_RUNS + 1))
    assert INTERRUPT[0] == 0  # no run left the stop flag set


def _counted_by_hand(k: int) -> tuple[dict[str, Fraction], dict[int, Fraction]]:
    """``counted``'s exact distribution from its definition: d, e uniform; ``sevens`` the
    i in 1..k*d with i + e a multiple of 7, counted by arithmetic, not by a loop."""
    labels = {"even": Fraction(0), "odd": Fraction(0)}
    sevens: dict[int, Fraction] = {}
    for d in range(1, 7):
        for e in range(1, 5):
            # i + e = 7j for j with 1 + e <= 7j <= k*d + e
            n = (k * d + e) // 7 - e // 7
            p = Fraction(1, 24)
            labels["odd" if n % 2 else "even"] += p
            sevens[n] = sevens.get(n, Fraction(0)) + p
    return labels, sevens


@pytest.mark.parametrize("k", [1000, 166_666])  # 166,666 * 6 = 999,996 iterations: just under the bound
def test_a_long_loop_under_the_bound_gives_its_exact_answer(rules, k):
    import critlab

    counted = critlab.get_system(f"{rules}:counted")
    r = counted.exact(counted.make_spec(k=k))
    labels, sevens = _counted_by_hand(k)
    for label, p in labels.items():
        assert r.outcomes[label] == pytest.approx(float(p), abs=1e-15)
    dist = r.distributions["sevens"]
    for value, p in sevens.items():
        assert dist.pmf(value) == pytest.approx(float(p), abs=1e-15)
    assert (dist.min, dist.max) == (min(sevens), max(sevens))
    assert r.metrics["mean_sevens"] == pytest.approx(float(sum(v * p for v, p in sevens.items())), rel=1e-14)


def test_the_counted_loop_simulates_as_its_exact_answer(rules):
    import critlab
    from critlab.analysis.validate import validate

    counted = critlab.get_system(f"{rules}:counted")
    spec = counted.make_spec(k=50)
    sim = counted.simulate(spec, trials=200_000, seed=11, threads=2, progress=False)
    # chi-square per group at alpha 0.001 (the validator's default): a false alarm in 1,000
    assert validate(counted.exact(spec), sim).passed


def test_a_rule_that_calls_itself_is_refused(tmp_path, capsys):
    path = tmp_path / "recursive.py"
    path.write_text(
        "from critlab.analysis.mechanic import mechanic\n\n\n"
        '@mechanic(labels=("lo", "hi"), inputs={"d": "1d6"})\n'
        "def again(d):\n"
        "    if d > 1:\n"
        "        return again(d - 1)\n"
        '    return "lo",\n'
    )
    assert main(["exact", f"{path}:again"]) == 2
    err = _one_line(capsys)
    assert f"again ({path}, line 7): the rule calls itself" in err, err


@pytest.fixture(scope="module")
def warm(rules) -> Path:
    """``slow`` and ``slow_exact`` compiled (the disk cache), at a few steps a run."""
    assert main(["simulate", f"{rules}:slow", "--k", "10", "--trials", "10", "--no-progress"]) == 0
    assert main(["exact", f"{rules}:slow_exact", "--k", "10", "--json"]) == 0
    return rules


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads a process's CPU time from /proc")
@pytest.mark.parametrize(
    ("argv", "signum"),
    [
        (["simulate", "slow", *LONG, "--threads", "2"], signal.SIGINT),
        (["simulate", "slow", *LONG, "--threads", "1"], signal.SIGTERM),
        (["exact", "slow_exact"], signal.SIGINT),
    ],
)
def test_an_interrupt_during_a_long_compiled_run_ends_it(warm, argv, signum, capsys):
    # Each trial of slow (each leaf of slow_exact) runs 900,000 iterations, under the
    # bound: a block of 2^18 trials, or the walk of 10^4 leaves, is minutes of compiled
    # work that never returns to Python on its own. Compiled first (the warm fixture), so
    # that the command below is running that work when the signal comes.
    capsys.readouterr()
    command, rule, *rest = argv
    proc = subprocess.Popen(
        [sys.executable, "-m", "critlab", command, f"{warm}:{rule}", *rest],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        # past start-up (about 2-3 CPU seconds) and seconds into the compiled work
        deadline = time.monotonic() + 120
        while _cpu_seconds(proc.pid) < 6 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        t0 = time.monotonic()
        os.killpg(proc.pid, signum)
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert (proc.returncode, err, out) == (130, "critlab: interrupted\n", ""), err[-2000:]
    assert took < 5
