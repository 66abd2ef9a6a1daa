"""The report's page in a real browser: headless Chromium (from the system's packages)
loads index.html with no console message and no request leaving the file.

Chromium's own background traffic (update checks and the like) is told apart from the
page's by the network log: a request the page makes carries the file's origin in its
network isolation key. A page made to fail (a console error, an image from the web)
checks that the test would see both. Skipped, with the reason, where Chromium is absent.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from critlab.analysis.report import build_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)

CONFIG = """
[report]
name = "browser"
title = "Browser check"
trials = 20_000
batches = 4
seed = 5

[systems.thac0]
params = { thac0 = 15, target_ac = 5 }

[[systems.thac0.sections]]
kind = "metric_by"
id = "by-ac"
grid = { target_ac = [0, 5, 10], thac0 = [15, 10] }
metrics = ["expected_damage"]
headline = true

[[systems.thac0.sections]]
kind = "outcomes_by"
id = "outcomes"
grid = { target_ac = [0, 5] }

[[systems.thac0.sections]]
kind = "validation"
id = "check"
"""


def load(page: Path, tmp: Path) -> tuple[str, list[str], list[str]]:
    """Load ``page`` headless: (the DOM after load, console lines, URLs the page requested)."""
    net = tmp / "net.json"
    cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        f"--user-data-dir={tmp / 'profile'}",
        "--enable-logging=stderr", "--v=0", f"--log-net-log={net}", "--virtual-time-budget=3000",
        "--dump-dom", page.resolve().as_uri(),
    ]  # fmt: skip
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    log = json.loads(net.read_text(encoding="utf-8"))
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls: dict[int, str] = {}
    for event in log["events"]:
        params = event.get("params", {})
        if "url" in params:
            urls.setdefault(event["source"]["id"], params["url"])
    requested = [
        urls.get(e["source"]["id"], "?")
        for e in log["events"]
        if e["type"] == start and "file://" in str(e.get("params", {}).get("network_isolation_key", ""))
    ]
    return run.stdout, console, requested


def leaving(urls: list[str]) -> list[str]:
    return [u for u in urls if not u.startswith(("file:", "data:"))]


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("browser")
    config = tmp / "browser.toml"
    config.write_text(CONFIG, encoding="utf-8")
    return build_report(config, out=tmp / "out", progress=False).out / "index.html"


def test_the_report_loads_with_no_console_message_and_no_request_out(page, tmp_path):
    html = page.read_text(encoding="utf-8")
    # nothing in the file points at the web: every image is embedded, every link relative
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "<script" not in html.lower() and "<link" not in html.lower()
    dom, console, requested = load(page, tmp_path)
    assert "<h1>Browser check</h1>" in dom and "<details>" in dom and 'class="findings"' in dom
    assert console == [], console
    assert leaving(requested) == [], requested


def test_the_check_sees_a_console_error_and_a_request_out(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!DOCTYPE html><html><body><img src="http://example.invalid/x.png">'
        '<script>console.error("boom")</script></body></html>',
        encoding="utf-8",
    )
    _, console, requested = load(bad, tmp_path)
    assert any('"boom"' in line for line in console)
    assert leaving(requested) == ["http://example.invalid/x.png"]
