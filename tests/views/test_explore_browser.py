"""critlab.explore in a real JupyterLab, driven by headless Chromium: a notebook whose one
cell explores thac0 is run in the browser, a slider is moved with the keyboard as a
designer would, and the figure the kernel draws changes; the kernel's explorer is then at
the slider's new point, with ``critlab.exact``'s answer there. The simulate button then
shows its progress bar, and the verdict.

The browser is spoken to over the Chrome DevTools Protocol (Chromium's remote-debugging
websocket, through tornado's websocket client, which JupyterLab's server brings).
Skipped, with the reason, where Chromium or JupyterLab is absent.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)
pytest.importorskip("jupyterlab", reason="JupyterLab is not installed (pip install 'critlab[notebooks]')")

import nbformat  # noqa: E402
from tornado.websocket import websocket_connect  # noqa: E402
from tqdm import tqdm  # noqa: E402

import critlab  # noqa: E402

CELL = 'import critlab\nex = critlab.explore("thac0", thac0=15, target_ac=5)\nex'
FIGURE = "document.querySelector('.widget-output img')"  # the explorer's figure: its Output's image
# the notebook's panel (the shell's current widget is none in a headless window, which never has focus)
NOTEBOOK = "[...jupyterapp.shell.widgets('main')].find(w => w.sessionContext)"
OUTPUTS = "[...document.querySelectorAll('.widget-output')].map(o => o.textContent)"
TOKEN = "critlab-browser-test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, seconds: float) -> bytes:
    end = time.monotonic() + seconds
    while True:
        try:
            return urllib.request.urlopen(url, timeout=2).read()
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.3)


class Page:
    """One Chromium page over its DevTools websocket."""

    def __init__(self, ws) -> None:
        self.ws, self.n = ws, 0

    async def call(self, method: str, **params):
        self.n += 1
        me = self.n
        await self.ws.write_message(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            message = json.loads(await self.ws.read_message())
            if message.get("id") == me:
                assert "error" not in message, message["error"]
                return message["result"]

    async def js(self, expression: str, seconds: float = 10):
        r = await self.call(
            "Runtime.evaluate",
            expression=expression,
            awaitPromise=True,
            returnByValue=True,
            timeout=seconds * 1e3,
        )
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"].get("text", r["exceptionDetails"]))
        return r["result"].get("value")

    async def until(self, expression: str, seconds: float, what: str):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                value = await self.js(expression)
            except RuntimeError:  # the page is still loading what the expression reads
                value = None
            if value:
                return value
            await asyncio.sleep(0.25)
        shown = await self.js(f"JSON.stringify({OUTPUTS})")  # what the explorer's outputs held
        raise AssertionError(f"{what}: not seen within {seconds:.0f} s; the outputs: {shown[:500]}")


def _long_run() -> int:
    """Trials of the explored point that simulate in about 4 s here (its progress bar shows
    after a second), measured in this process, which also compiles the simulator (into the
    disk cache the notebook's kernel then loads)."""
    spec = critlab.get_system("thac0").make_spec(thac0=15, target_ac=5, to_hit=1)
    critlab.simulate(spec, trials=1000, seed=1, progress=False)
    t0 = time.perf_counter()
    critlab.simulate(spec, trials=4_000_000, seed=1, progress=False)
    rate = 4_000_000 / (time.perf_counter() - t0)
    return int(min(max(4 * rate, 4_000_000), 10**10)) // 1_000_000 * 1_000_000


async def _drive(debugger: str, url: str, trials: int) -> dict:
    ws = await websocket_connect(debugger, max_message_size=2**28)
    try:
        return await _steps(Page(ws), url, trials)
    finally:
        # the close handshake awaited (tornado ends it within 5 s), so the socket is closed
        # here: a socket left open was collected in whichever later test of this worker
        # ran the collector, and its ResourceWarning failed that test
        ws.close()
        await asyncio.wait_for(_closed(ws), 10)


async def _closed(ws) -> None:
    while await ws.read_message() is not None:
        pass


async def _steps(page: Page, url: str, trials: int) -> dict:
    await page.call("Page.enable")
    await page.call("Page.navigate", url=url)
    await page.until(
        "!!(window.jupyterapp && document.querySelector('.jp-Notebook .jp-Cell'))", 120, "the notebook"
    )
    await page.until(f"!!{NOTEBOOK}?.sessionContext?.session?.kernel", 120, "its kernel")
    await page.js("jupyterapp.commands.execute('notebook:run-all-cells').then(() => true)", 60)
    before = await page.until(f"{FIGURE}?.src", 240, "the explorer's figure")
    first = await page.js("document.querySelector('.widget-slider .widget-readout').textContent")
    await page.js("document.querySelector('.widget-slider .noUi-handle').focus(), true")
    for kind in ("keyDown", "keyUp"):  # the keyboard moves a focused slider one step, as a release does
        await page.call(
            "Input.dispatchKeyEvent", type=kind, key="ArrowRight", code="ArrowRight", windowsVirtualKeyCode=39
        )
    after = await page.until(f"{FIGURE}?.src !== {json.dumps(before)} && {FIGURE}.src", 60, "a new figure")
    moved = await page.js("document.querySelector('.widget-slider .widget-readout').textContent")
    kernel = await page.js(_in_kernel('print(ex.spec().to_hit, repr(ex.result.outcomes["hit"]))'), 60)
    # simulate: a run long enough for its progress bar (shown after a second), then the verdict
    await page.js(_in_kernel(f"ex.trials.value = {trials}"), 60)
    await page.js(
        "[...document.querySelectorAll('button')].find(b => b.textContent.includes('simulate')).click(), true"
    )
    bar = await page.until(
        f"{OUTPUTS}.find(t => t.includes('trial/s'))", 300, "the simulation's progress bar"
    )
    verdict = await page.until(f"{OUTPUTS}.find(t => t.includes('trials at seed'))", 300, "the verdict")
    return {"before": before, "after": after, "first": first, "moved": moved, "kernel": kernel, "bar": bar,
            "verdict": verdict}  # fmt: skip


def _in_kernel(code: str) -> str:
    """JavaScript that runs ``code`` in the notebook's kernel and returns what it printed."""
    return f"""(async () => {{
        const k = {NOTEBOOK}.sessionContext.session.kernel;
        const f = k.requestExecute({{code: {json.dumps(code)}}});
        let out = '';
        f.onIOPub = m => {{ if (m.header.msg_type === 'stream') {{ out += m.content.text; }} }};
        await f.done;
        return out; }})()"""


def test_a_slider_moved_in_jupyterlab_redraws_the_figure(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nbformat.write(nb, tmp_path / "explore.ipynb")
    trials = _long_run()
    lab_port, debug_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTER_PLATFORM_DIRS": "1",
        "MPLBACKEND": "Agg",
    }
    lab_cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
        f"--port={lab_port}", f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={tmp_path}",
        "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=", "--ServerApp.terminals_enabled=False",
    ]  # fmt: skip
    browser_cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
        "--disable-background-networking", "--disable-component-update", "--window-size=1400,1000",
        f"--user-data-dir={tmp_path / 'profile'}", f"--remote-debugging-port={debug_port}", "about:blank",
    ]  # fmt: skip
    with open(tmp_path / "lab.log", "w") as lab_log, open(tmp_path / "browser.log", "w") as browser_log:
        lab = subprocess.Popen(lab_cmd, env=env, stdout=lab_log, stderr=subprocess.STDOUT)
        browser = subprocess.Popen(browser_cmd, stdout=browser_log, stderr=subprocess.STDOUT)
        try:
            _get(f"http://127.0.0.1:{lab_port}/api/status?token={TOKEN}", 120)
            targets = json.loads(_get(f"http://127.0.0.1:{debug_port}/json", 60))
            debugger = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
            url = f"http://127.0.0.1:{lab_port}/lab/tree/explore.ipynb?token={TOKEN}"
            seen = asyncio.run(_drive(debugger, url, trials))
        finally:
            for process in (browser, lab):
                process.terminate()
            for process in (browser, lab):
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
    assert seen["before"].startswith("data:image/svg+xml") and seen["after"] != seen["before"]
    assert (seen["first"], seen["moved"]) == ("0", "1")  # the to-hit bonus, one step right
    to_hit, hit = seen["kernel"].split()
    spec = critlab.get_system("thac0").make_spec(thac0=15, target_ac=5, to_hit=1)
    assert int(to_hit) == 1 and float(hit) == critlab.exact(spec).outcomes["hit"]
    assert f"/{tqdm.format_sizeof(trials)}" in seen["bar"]  # tqdm's bar, in the explorer's own output
    assert f"{trials:,} trials at seed 1" in seen["verdict"] and "Passed" in seen["verdict"]
