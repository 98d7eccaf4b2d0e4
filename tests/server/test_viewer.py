"""The graph viewer at GET /viewer: what it serves, and (where Chromium is installed) what it shows.

The first tests need no browser: the page, its script and stylesheet, its headers, and that the script
speaks SPEC section 4's stream. The last one drives a headless Chromium over the DevTools protocol
(with ``websockets``, already a dependency), watches real runs and reads what the page drew.
"""
import base64
import contextlib
import json
import re
import shutil
import subprocess
import tempfile
import time
from html.parser import HTMLParser

import httpx
import pytest

from server_harness import open_session


class _Assets(HTMLParser):
    """Collects the page's script sources, stylesheet links, inline scripts and inline handlers."""

    def __init__(self):
        super().__init__()
        self.scripts, self.styles, self.inline, self.handlers = [], [], [], []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            if attrs.get("src"):
                self.scripts.append(attrs["src"])
            else:
                self._in_script = True
        if tag == "link" and attrs.get("rel") == "stylesheet":
            self.styles.append(attrs["href"])
        self.handlers += [k for k in attrs if k.startswith("on") or k == "style"]

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline.append(data)


def _assets(html):
    parser = _Assets()
    parser.feed(html)
    return parser


def test_viewer_page_is_html_with_a_content_security_policy(http):
    r = http.get("/viewer")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"
    csp = dict(part.strip().split(" ", 1) for part in r.headers["content-security-policy"].split(";"))
    assert csp["default-src"] == "'none'"
    assert csp["script-src"] == "'self'" and csp["style-src"] == "'self'"
    assert csp["connect-src"] == "'self'"  # the stream is same-origin; nothing else may be reached
    assert csp["frame-ancestors"] == "'none'"


def test_viewer_page_loads_only_its_own_script_and_stylesheet(http):
    page = _assets(http.get("/viewer").text)
    assert page.scripts == ["/viewer/draw.js", "/viewer/viewer.js"]
    assert page.styles == ["/viewer/viewer.css"]
    assert page.inline == [] and page.handlers == []  # the CSP allows no inline script, handler or style


@pytest.mark.parametrize("path, kind", [("/viewer/viewer.js", "text/javascript"), ("/viewer/draw.js", "text/javascript"),
                                        ("/viewer/viewer.css", "text/css")])
def test_viewer_assets_are_served_with_their_content_type(http, path, kind):
    r = http.get(path)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith(kind)
    assert r.headers["x-content-type-options"] == "nosniff"
    assert len(r.text) > 1000


def test_viewer_assets_fetch_nothing_from_elsewhere(http):
    # the product must work offline: no CDN, no web font, no absolute URL to load anything from
    for path in ("/viewer", "/viewer/viewer.js", "/viewer/draw.js", "/viewer/viewer.css"):
        text = http.get(path).text
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), path
        assert not re.search(r"""url\(\s*["']?(https?:)?//""", text), path
        assert "@import" not in text, path


def test_viewer_unknown_asset_is_a_404_with_an_error_body(http):
    r = http.get("/viewer/secrets.py")
    assert r.status_code == 404
    assert r.json()["error"]["type"] == "NotFound"


def test_viewer_script_opens_the_stream_route_spec_names_and_watches(http):
    js = http.get("/viewer/viewer.js").text
    assert re.search(r"/v1/sessions/\$\{encodeURIComponent\(id\)\}/stream", js)
    assert 'type: "watch"' in js and "token" in js
    # the token goes in the first message, never the stream URL (servers and proxies log URLs)
    assert "?token=" not in js


def test_viewer_script_handles_every_stream_event_spec_names(http):
    js = http.get("/viewer/viewer.js").text
    handled = set(re.findall(r'case "(\w+)":', js))
    assert {"started", "node", "backward", "stdout", "log", "result", "error", "cancelled", "dropped", "module", "names",
            "paused", "evaluated"} <= handled


# ---------------------------------------------------------------------------------------- in a browser
class _Chromium:
    """A headless Chromium and one page of it, driven over the DevTools protocol."""

    def __init__(self, width=1280, height=800):
        from websockets.sync.client import connect

        self.profile = tempfile.mkdtemp(prefix="gradserve-chromium-")
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={self.profile}", "--remote-debugging-port=0", f"--window-size={width},{height}",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        browser_url = None
        deadline = time.monotonic() + 60
        while browser_url is None:
            line = self.proc.stderr.readline()
            if not line and (self.proc.poll() is not None or time.monotonic() > deadline):
                raise RuntimeError("chromium did not start")
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            browser_url = m and m.group(1)
        port = re.search(r":(\d+)/", browser_url).group(1)
        pages = [t for t in httpx.get(f"http://127.0.0.1:{port}/json/list").json() if t["type"] == "page"]
        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(pages[0]["webSocketDebuggerUrl"], max_size=None))
        self.next_id = 0
        self.problems = []  # uncaught exceptions and console errors (a CSP refusal among them)
        self.call("Runtime.enable")
        self.call("Log.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=60))
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return message.get("result", {})
            if message.get("method") == "Runtime.exceptionThrown":
                self.problems.append(message["params"]["exceptionDetails"].get("exception", {}).get("description"))
            elif message.get("method") == "Log.entryAdded" and message["params"]["entry"]["level"] == "error":
                text = message["params"]["entry"]["text"]
                if "ERR_CONNECTION_REFUSED" not in text:
                    self.problems.append(text)

    def js(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in r, r["exceptionDetails"]
        return r["result"].get("value")

    def wait_for(self, expression, timeout_s=30):
        """Polls ``expression`` until it is true (false while the page is still loading and it throws)."""
        deadline = time.monotonic() + timeout_s
        while not self.js(f"(() => {{ try {{ return !!({expression}); }} catch (e) {{ return false; }} }})()"):
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never reached: {expression}")
            time.sleep(0.05)

    def close(self):
        with contextlib.suppress(Exception):
            self.stack.close()
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture
def chromium():
    browser = _Chromium()
    yield browser
    browser.close()


MLP = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
x = torch.randn(16, 4)
target = torch.randn(16, 1)
pred = model(x)
loss = ((pred - target) ** 2).mean()
log(step=1, loss=loss)
loss.backward()
"""

# what the page holds about the run on screen: node labels, grid cells, gradients, and pixels drawn
_SNAPSHOT = """(() => {
  const nodes = [...run.nodes.values()];
  const g = document.getElementById('graph');
  const px = g.getContext('2d').getImageData(0, 0, g.width, g.height).data;
  let painted = 0;
  for (let i = 3; i < px.length; i += 4) if (px[i]) painted++;
  return {state: run.state, titles: nodes.map(nodeTitle), cells: nodes.map((n) => `${n.x}:${n.y}`),
          placed: nodes.filter((n) => n.rep === n).length, grads: nodes.filter((n) => n.grad).length,
          edges: run.edges.length, painted, status: document.getElementById('statusline').textContent,
          conn: document.getElementById('conn').textContent,
          banner: document.getElementById('banner').hidden ? null : document.getElementById('banner').textContent};
})()"""


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium (apt-get install chromium)")
def test_viewer_in_chromium_draws_a_watched_run_its_gradients_and_an_error(live_server, http, chromium):
    session = open_session(http)
    try:
        chromium.call("Page.navigate", url=f"{live_server.url}/viewer#session={session.id}&token={session.token}")
        chromium.wait_for("document.getElementById('conn').classList.contains('live')")
        # the token has left the address bar (anyone watching the screen could read it there)
        assert session.token not in chromium.js("location.href")

        session.ok(MLP)
        chromium.wait_for("run.state === 'done' && !run.structureDirty && !framePending")
        seen = chromium.js(_SNAPSHOT)
        # x, W1, b1, linear, relu, W2, b2, linear, target, sub, pow, mean: every node placed, none on another
        assert seen["placed"] == 12 and len(set(seen["cells"])) == 12
        assert seen["edges"] == 11
        assert seen["grads"] == 10  # backward reached all but the two constants
        assert {"x", "target", "pred = linear", "loss = mean", "relu", "0.weight", "2.bias"} <= set(seen["titles"])
        assert "loss 0.9015" in seen["status"] and "12 nodes" in seen["status"]
        assert seen["painted"] > 10_000
        assert seen["banner"] is None

        r = session.run("a = torch.ones(2, 3, requires_grad=True)\nb = torch.ones(4, 5)\nc = a @ b\n")
        assert r.status_code == 422
        chromium.wait_for("run.state === 'error' && !framePending")
        seen = chromium.js(_SNAPSHOT)
        assert "RuntimeError at line 3, col 5" in seen["banner"]
        assert "RuntimeError at line 3, col 5" in seen["status"]

        png = base64.b64decode(chromium.call("Page.captureScreenshot", format="png")["data"])
        assert png.startswith(b"\x89PNG")
        assert chromium.problems == []
    finally:
        session.delete()
