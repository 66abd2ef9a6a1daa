"""Write the golden JSON of ``critlab exact`` and ``critlab simulate --seed 1 --trials 100000``
for every point of points.json (run once before a refactor; the tests compare against it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
POINTS: dict[str, list[dict]] = json.loads((HERE / "points.json").read_text())
"""Each system's golden parameter points, shared by the tests that walk them."""


def argv(system: str, params: dict) -> list[str]:
    out = []
    for k, v in params.items():
        out += ["--" + k.replace("_", "-"), str(v).lower() if isinstance(v, bool) else str(v)]
    return out


def main() -> None:
    for system, plist in POINTS.items():
        for i, params in enumerate(plist):
            for cmd, extra in (("exact", []), ("simulate", ["--seed", "1", "--trials", "100000"])):
                res = subprocess.run(
                    ["critlab", cmd, system, *argv(system, params), *extra, "--json"],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                (HERE / f"{system}-{i}-{cmd}.json").write_text(res.stdout)
                print(system, i, cmd, file=sys.stderr)


if __name__ == "__main__":
    main()
