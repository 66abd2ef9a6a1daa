"""The command line's JSON at fixed points against golden files captured before the rule
systems were rebuilt on the shared mechanism (tests/golden/capture.py).

``exact`` must never change. ``simulate`` files hold for kernels whose dice are drawn as
when the files were captured; a kernel that draws its dice differently (the same dice,
another use of the stream) re-captures its files in the same change.

Keys, labels, integers (counts, trials, seeds), strings, booleans and nulls are compared
exactly; floating-point numbers within ``REL_TOL`` and ``ABS_TOL`` (see ``close``). The
files were written on one CPU, and NumPy picks its summation and FFT kernels by the CPU's
SIMD width, so the same exact sum can differ in its last few bits on another machine; a
test that compares text digit for digit then fails there although nothing changed. The
subprocess test at the end runs these checks again with NumPy's dispatch narrowed, a
stand-in for a CPU with narrower vectors.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from golden.capture import POINTS, argv

from critlab.analysis.cli.main import main

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CASES = [(s, i, c) for s, plist in POINTS.items() for i in range(len(plist)) for c in ("exact", "simulate")]

# Relative tolerance: float64 sums of up to ~10^6 terms carry a rounding error of a few
# 1e-16 relative to the sum, whatever the order of the additions; 1e-12 is far above that
# and is the tolerance at which docs/rules.md compares exact values.
REL_TOL = 1e-12
# Absolute tolerance, for numbers whose true value is 0 or far below 1e-12: a mean that
# cancels to about 1e-14, or a bin of an exploding distribution convolved by FFT whose
# value (about 1e-18) is rounding noise. 1e-13 is a tenth of the 1e-12 tail that
# docs/rules.md allows an exact answer to leave out, so no answer can move within it.
ABS_TOL = 1e-13


def close(a: float, b: float) -> bool:
    """True when two JSON numbers agree within the tolerances above."""
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def differences(got, want, path: str = "") -> list[str]:
    """Every place where ``got`` differs from ``want``, as ``path: got != want`` lines.

    Structure is exact. The one allowance is a distribution's bin present on one side
    only: that is accepted when its probability is itself within ``ABS_TOL`` of 0 (an FFT
    rounding residue where the true probability is 0 or negligible).
    """
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        bins = path.startswith(".distributions.") and path.count(".") == 2
        for key in want.keys() | got.keys():
            if key in want and key in got:
                out += differences(got[key], want[key], f"{path}.{key}")
            else:
                lone = got.get(key, want.get(key))
                numeric = isinstance(lone, float | int) and not isinstance(lone, bool)
                if not (bins and key != "tail" and numeric and close(lone, 0.0)):
                    out.append(f"{path}.{key}: only in {'output' if key in got else 'golden file'}")
        if bins and list(k for k in got if k in want) != list(k for k in want if k in got):
            out.append(f"{path}: bins in another order")
        elif not bins and list(got) != list(want):
            out.append(f"{path}: keys {list(got)} != {list(want)}")
        return out
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return [f"{path}: {len(got)} items != {len(want)}"]
        return [
            d
            for i, (g, w) in enumerate(zip(got, want, strict=True))
            for d in differences(g, w, f"{path}[{i}]")
        ]
    if isinstance(want, float) or isinstance(got, float):
        both = all(isinstance(x, float | int) and not isinstance(x, bool) for x in (got, want))
        return [] if both and close(got, want) else [f"{path}: {got!r} != {want!r}"]
    return [] if type(got) is type(want) and got == want else [f"{path}: {got!r} != {want!r}"]


def test_the_comparison_is_exact_where_it_should_be():
    assert differences({"a": 1, "b": [0.1, "x"]}, {"a": 1, "b": [0.1 + 1e-17, "x"]}) == []
    assert differences({"trials": 100001}, {"trials": 100000}) == [".trials: 100001 != 100000"]
    assert differences({"p": 0.1 + 1e-11}, {"p": 0.1}) != []  # past REL_TOL
    assert differences({"p": True}, {"p": 1}) != []
    assert differences({"a": 1, "b": 2}, {"b": 2, "a": 1}) != []  # key order is part of the contract
    bins = {"distributions": {"m": {"1": 0.5, "2": 0.5, "9": 2e-18, "tail": 0.0}}}
    assert differences(bins, {"distributions": {"m": {"1": 0.5, "2": 0.5, "tail": 0.0}}}) == []
    assert differences(bins, {"distributions": {"m": {"1": 0.5, "9": 2e-18, "tail": 0.0}}}) != []
    assert differences({"outcomes": {"hit": 1e-18}}, {"outcomes": {}}) != []  # a label never goes


@pytest.mark.parametrize(("system", "index", "command"), CASES)
def test_json_is_unchanged(system, index, command, capsys):
    # the golden files hold every bin: exact --json caps long distributions unless asked
    extra = (
        ["--seed", "1", "--trials", "100000", "--no-progress"] if command == "simulate" else ["--all-bins"]
    )
    assert main([command, system, *argv(system, POINTS[system][index]), *extra, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = json.loads((GOLDEN / f"{system}-{index}-{command}.json").read_text())
    assert differences(got, want) == []


def _dispatched() -> list[str]:
    """NumPy's dispatched SIMD feature groups that this CPU has, narrowest first."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]


NARROWINGS = {
    # Only the widest groups off: on an AVX-512 machine this leaves AVX2 (X86_V3).
    "widest": lambda found: found[1:],
    # Every dispatched group off: NumPy's baseline kernels only.
    "baseline": lambda found: found,
}

# The exact-value checks: the golden exact files, and the exact engine's values against
# icepool and first principles.
NARROWED_TESTS = ["tests/systems/test_golden.py", "tests/test_dist.py", "tests/dice/test_dice_exact.py"]


@pytest.mark.parametrize("narrowing", list(NARROWINGS))
def test_exact_values_hold_with_numpy_simd_narrowed(narrowing, tmp_path):
    disabled = NARROWINGS[narrowing](_dispatched())
    if not disabled:
        pytest.skip(f"this CPU has no dispatched NumPy features to turn off ({narrowing})")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(disabled)}
    probe = "import sys; from numpy._core._multiarray_umath import __cpu_features__ as f; "
    probe += "print([x for x in sys.argv[1:] if f[x]])"
    on = subprocess.run(
        [sys.executable, "-c", probe, *disabled], env=env, capture_output=True, text=True, check=True
    )
    assert on.stdout.strip() == "[]", f"NumPy kept {on.stdout.strip()} on with NPY_DISABLE_CPU_FEATURES"
    cmd = [sys.executable, "-m", "pytest", "-q", "--tb=line", "-p", "no:cacheprovider", *NARROWED_TESTS]
    cmd += ["-k", "not simulate and not narrowed", "--basetemp", str(tmp_path / "pytest")]
    res = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, f"with NPY_DISABLE_CPU_FEATURES={' '.join(disabled)}:\n{res.stdout[-4000:]}"
