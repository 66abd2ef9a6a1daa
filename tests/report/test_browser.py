"""The reports in a real browser: headless Chromium (from the system's packages) loads
the default and the designer report with no console message and no request leaving the
file, and lays each out at a desktop's 1280 px and a phone's 390 px without sideways
scrolling (tables scroll inside their box, every figure links to its full-size image).

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

from critlab.analysis.report.config import DEFAULT_CONFIG

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)

ROOT = Path(__file__).resolve().parents[2]
REPORTS = {"default": DEFAULT_CONFIG, "designer": ROOT / "reports" / "examples" / "designer.toml"}
PHONE, DESKTOP = 390, 1280  # CSS pixels

# Injected into a copy of a report (the report itself has no script): open every
# collapsed part, then say how wide the page is and what sticks out beyond the viewport.
# Inside a table's scrolling box a wide table is fine; the box itself must fit.
MEASURE = """<script>
window.addEventListener('load', () => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const root = document.documentElement, width = root.clientWidth;
  const over = [...document.querySelectorAll('body *')]
    .filter(e => !e.closest('.scroll') || e.classList.contains('scroll'))
    .filter(e => e.getBoundingClientRect().right > width + 0.5)
    .map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')
         + ' to ' + Math.round(e.getBoundingClientRect().right) + ' px');
  const figures = [...document.querySelectorAll('figure img')].map(img => ({
    shown: img.clientWidth, natural: img.naturalWidth,
    link: img.closest('a') ? img.closest('a').getAttribute('href') : null}));
  // a stacked table's cells (a check's verdict among them) are all in view, never scrolled
  const hidden = [...document.querySelectorAll('table.stack td')]
    .filter(td => td.getBoundingClientRect().right > width + 0.5).map(td => td.textContent);
  // words wrap whole: nothing may break a word mid-way ("rang e") but one wider than its line
  const anywhere = [...document.querySelectorAll('td, th, p, li, summary, figcaption')]
    .filter(e => getComputedStyle(e).overflowWrap === 'anywhere').length;
  const stacked = document.querySelectorAll('table.stack').length;
  const said = JSON.stringify({inner: window.innerWidth, width, scroll: root.scrollWidth, over, figures,
                               hidden, anywhere, stacked});
  if (window.parent !== window) { window.parent.postMessage(said, '*'); }
  else { document.body.setAttribute('data-measure', said); }
});
</script>"""


def load(page: Path, tmp: Path, window: str = "1280,900") -> tuple[str, list[str], list[str]]:
    """Load ``page`` headless: (the DOM after load, console lines, URLs the page requested)."""
    net = tmp / "net.json"
    cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        f"--user-data-dir={tmp / 'profile'}",
        "--enable-logging=stderr", "--v=0", f"--log-net-log={net}", "--virtual-time-budget=5000",
        f"--window-size={window}",
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


@pytest.fixture(scope="module", params=sorted(REPORTS))
def page(request, shipped) -> Path:
    """Each shipped report (a small-trial build, shared with the trust tests); its index.html."""
    return shipped(request.param, REPORTS[request.param]) / "index.html"


def measure(page: Path, width: int, tmp: Path) -> dict:
    """The page's layout at ``width`` CSS pixels. Headless Chromium's window is at least
    500 px wide, so a phone's width is a frame of that width inside a host page."""
    probe = page.with_name("measured.html")
    probe.write_text(
        page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8"
    )
    host = page.with_name("host.html")
    host.write_text(
        '<!DOCTYPE html><html><body style="margin:0"><pre id="out"></pre>'
        f'<iframe src="{probe.name}" style="width:{width}px;height:844px;border:0"></iframe>'
        "<script>addEventListener('message', e => { document.getElementById('out').textContent = e.data; });"
        "</script></body></html>",
        encoding="utf-8",
    )
    dom, _, _ = load(host, tmp, window=f"{max(width, 800)},900")
    found = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    assert found and found.group(1), "the page did not report its layout"
    from html import unescape

    return json.loads(unescape(found.group(1)))


def test_the_report_loads_with_no_console_message_and_no_request_out(page, tmp_path):
    html = page.read_text(encoding="utf-8")
    # nothing in the file points at the web: every image is embedded, every link relative
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "<script" not in html.lower() and "<link" not in html.lower()
    dom, console, requested = load(page, tmp_path)
    assert "<h1>" in dom and "<details>" in dom and 'class="findings"' in dom
    assert console == [], console
    assert leaving(requested) == [], requested


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_page_fits_its_width_and_every_figure_opens_full_size(page, tmp_path, width):
    got = measure(page, width, tmp_path)
    assert got["inner"] == width
    # no sideways scrolling: tables scroll inside their own box, nothing else is wider
    assert got["scroll"] <= got["width"] and got["over"] == [], got["over"]
    assert got["figures"]
    for fig in got["figures"]:
        assert fig["link"] and fig["link"].startswith("figures/") and (page.parent / fig["link"]).is_file()
        assert fig["shown"] <= got["width"]
        if width == PHONE:  # the narrow form: shown near the size it was drawn, its text legible
            assert fig["shown"] >= 0.8 * fig["natural"], fig
    # the balance checks and validations stack on a phone: every cell in view
    assert got["stacked"] >= 1 and got["hidden"] == [], got["hidden"]
    assert got["anywhere"] == 0


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
