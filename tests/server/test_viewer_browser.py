"""The viewer in a real browser (Debian's Chromium driven by Playwright, no browser download): module
boxes that fold and unfold, loops folded to "×N", a node's tensors as a heatmap and histogram, node <->
source line highlighting, the diff between runs, and a 10,000-node run's layout and frame times.

Each step is screenshotted into GRADSERVE_VIEWER_SHOTS (default: a temporary directory)."""
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from server_harness import open_session

playwright_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (the dev extra)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)")

NET = """import torch
import torch.nn as nn
torch.manual_seed(0)
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 4)
    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Linear(4, 1)
    def forward(self, x):
        return self.head(self.block(x) + x)
model = Net()
pred = model(x)
loss = (pred ** 2).mean()
loss.backward()
"""

RNN = """import torch
torch.manual_seed(0)
W = torch.randn(8, 8, requires_grad=True)
U = torch.randn(3, 8, requires_grad=True)
xs = torch.randn(40, 3)
h = torch.zeros(8)
for t in range(40):
    h = torch.tanh(xs[t] @ U + h @ W * 0.1)
loss = h.sum()
loss.backward()
"""

BIG = """import torch
w = torch.ones(4, requires_grad=True)
h = w * 0
for t in range(2500):
    h = (h * 0.5 + w).tanh() - 0.1
loss = h.sum()
loss.backward()
"""


@pytest.fixture(scope="module")
def shots():
    path = Path(os.environ.get("GRADSERVE_VIEWER_SHOTS") or tempfile.mkdtemp(prefix="gradserve-viewer-shots-"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def page(live_server):
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        problems = []
        pg.on("pageerror", lambda e: problems.append(str(e)))
        pg.on("console", lambda m: m.type == "error" and "ERR_CONNECTION_REFUSED" not in m.text and problems.append(m.text))
        pg.problems = problems
        yield pg
        browser.close()


def _wait(page, expression, timeout_s=30):
    """Polls ``expression`` in the page (the page's CSP forbids wait_for_function's eval, rightly)."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(f"(() => {{ try {{ return !!({expression}); }} catch (e) {{ return false; }} }})()"):
        if time.monotonic() > deadline:
            raise AssertionError(f"the page never reached: {expression}")
        time.sleep(0.05)


def _watch(page, live_server, session):
    page.goto(f"{live_server.url}/viewer#session={session.id}&token={session.token}")
    _wait(page, "document.getElementById('conn').classList.contains('live')")


def _finished(page, n=None):
    _wait(page, "run && run.state === 'done' && !run.structureDirty && !framePending"
                           + (f" && run.id === {n!r}" if n else ""))


def _click_world(page, box):
    """Clicks the canvas at a point given in graph coordinates ({x, y}), after bringing it into view."""
    pos = page.evaluate("""(b) => { setFollow(false); centreOn(b.ref ? run.boxes.find(g => g.key === b.ref)
                             || run.shownBoxes.find(g => g.key === b.ref) : run.nodes.get(b.id));
                             return null; }""", box)
    _wait(page, "!framePending")
    xy = page.evaluate("""(p) => { const c = document.getElementById('graph').getBoundingClientRect();
                         return [c.left + (p.x - view.x) * view.zoom, c.top + (p.y - view.y) * view.zoom]; }""",
                       {"x": box["px"], "y": box["py"]} if "px" in box else pos)
    page.mouse.click(*xy)


def _box(page, label):
    return page.evaluate("""(label) => { const b = [...run.boxes, ...run.shownBoxes].find(g => g.label === label);
                           return b && {key: b.key, x: b.x, y: b.y, w: b.w, h: b.h, collapsed: !!b.collapsed}; }""", label)


def _click_box_header(page, label):
    b = _box(page, label)
    page.evaluate("(key) => { setFollow(false); centreOn([...run.boxes, ...run.shownBoxes].find(g => g.key === key)); }", b["key"])
    _wait(page, "!framePending")
    b = _box(page, label)
    xy = page.evaluate("""(b) => { const c = document.getElementById('graph').getBoundingClientRect();
                         return [c.left + (b.x + 30 - view.x) * view.zoom, c.top + (b.y + 10 - view.y) * view.zoom]; }""", b)
    page.mouse.click(*xy)
    _wait(page, "!framePending")


def _click_node(page, expression):
    """Clicks the node the JS ``expression`` finds (it sees ``run``)."""
    nid = page.evaluate(f"(() => {{ const n = {expression}; setFollow(false); centreOn(n.rep); return n.id; }})()")
    _wait(page, "!framePending")
    xy = page.evaluate("""(id) => { const n = run.nodes.get(id), c = document.getElementById('graph').getBoundingClientRect();
                         return [c.left + (n.x + 60 - view.x) * view.zoom, c.top + (n.y + 30 - view.y) * view.zoom]; }""", nid)
    page.mouse.click(*xy)
    return nid


def test_viewer_groups_modules_folds_them_and_shows_a_nodes_tensors_and_line(live_server, http, page, shots):
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        x = np.linspace(-1, 1, 20).reshape(5, 4).tolist()
        session.ok(NET, inputs={"x": {"data": x, "requires_grad": True}}, outputs=["loss"])
        _finished(page)
        labels = page.evaluate("run.boxes.map(b => b.label)")
        # the model called at top level is named by the variable that holds it (newcomer H5)
        assert {"model · Net", "block · Block", "block.fc1 · Linear", "block.fc2 · Linear", "head · Linear"} <= set(labels)
        names = page.evaluate("[...run.nodes.values()].map(nodeTitle)")
        assert {"x", "block.fc1.weight", "head.bias", "loss = mean", "pred = linear"} <= set(names)
        # the program that ran is on screen, whoever started it
        assert page.locator("#source .ln").count() == NET.count("\n") + 1
        page.evaluate("fit()")
        page.screenshot(path=shots / "01-modules.png")

        # fold the block: its nodes give way to one box, edges go to it; unfold brings them back
        _click_box_header(page, "block · Block")
        folded = page.evaluate("""(() => { const b = run.shownBoxes.find(g => g.label === 'block · Block');
            return b && {count: b.count, hidden: [...run.nodes.values()].filter(n => n.rep === b).length,
                         edges: run.edges.filter(e => e.from === b || e.to === b).length}; })()""")
        assert folded and folded["hidden"] == folded["count"] >= 7 and folded["edges"] >= 2
        page.evaluate("fit()")
        page.screenshot(path=shots / "02-block-folded.png")
        _click_world(page, {"ref": _box(page, "block · Block")["key"], "px": _box(page, "block · Block")["x"] + 40,
                            "py": _box(page, "block · Block")["y"] + 30})
        _wait(page, "run.boxes.some(b => b.label === 'block · Block')")
        assert page.evaluate("[...run.nodes.values()].every(n => n.rep === n)")

        # a parameter: its full value as a heatmap and a histogram, with its gradient
        _click_node(page, "[...run.nodes.values()].find(n => n.name === 'block.fc1.weight')")
        page.wait_for_selector("#tensors canvas.heatmap[data-of=value]")
        page.wait_for_selector("#tensors canvas.heatmap[data-of=gradient]")
        caption = page.locator("#tensors figcaption").first.text_content()
        assert caption.startswith("value [8, 4]") and "norm" in caption
        painted = page.evaluate("""(() => { const c = document.querySelector('#tensors canvas.heatmap');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; const colours = new Set();
            for (let i = 0; i < d.length; i += 4) colours.add(d[i] * 65536 + d[i + 1] * 256 + d[i + 2]); return colours.size; })()""")
        assert painted > 10  # 32 different weights: many colours, not a blank box
        page.screenshot(path=shots / "03-heatmap.png")

        # node -> line: clicking an op marks its line; line -> nodes: clicking a line outlines its nodes
        nid = _click_node(page, "[...run.nodes.values()].find(n => n.op === 'relu')")
        line = page.evaluate(f"run.nodes.get({nid}).line")
        _wait(page, f"document.querySelector('#source .ln.marked')?.dataset.line === '{line}'")
        page.screenshot(path=shots / "04-node-to-line.png")
        head_line = NET.split("\n").index("        return self.head(self.block(x) + x)") + 1
        page.locator(f"#source .ln[data-line='{head_line}'] .code").click()
        marked = page.evaluate("[...run.lineNodes].map(n => n.op).sort()")
        assert marked == ["add", "linear"]
        _wait(page, "!framePending")
        page.screenshot(path=shots / "05-line-to-nodes.png")
        assert page.problems == []
    finally:
        session.delete()


def test_viewer_folds_a_loop_of_40_steps_and_shows_a_diff_between_runs(live_server, http, page, shots):
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        session.ok(RNN, outputs=["loss"])
        _finished(page)
        loop = page.evaluate("""(() => { const b = run.boxes.find(b => b.kind === 'loop');
            return b && {label: b.label, n: b.items.length, gap: b.gap && b.gap.label, shown: run.shown.length,
                         total: run.nodes.size}; })()""")
        assert loop["label"].startswith("×40") and loop["n"] == 40 and loop["gap"] == "⋯ 38 more iterations"
        assert loop["shown"] < loop["total"] / 4  # the first and the last iteration, not forty
        page.evaluate("fit()")
        page.screenshot(path=shots / "06-loop-folded.png")

        # the model changes between runs: the diff shows the ops added and removed
        session.ok(RNN.replace("h = torch.tanh(xs[t] @ U + h @ W * 0.1)", "h = torch.sigmoid(xs[t] @ U + h @ W * 0.1)"),
                   outputs=["loss"])
        _finished(page)
        page.wait_for_selector("#diff:not([hidden])")
        page.click("#diff")
        diff = page.evaluate("({added: [...run.diff.added].map(n => n.op), removed: run.diff.removed})")
        assert set(diff["added"]) == {"sigmoid"} and len(diff["removed"]) == 1 and "tanh" in diff["removed"][0]
        assert page.locator("#detail td.removed").count() == 1
        page.evaluate("fit()")
        page.screenshot(path=shots / "07-diff.png")
        assert page.problems == []
    finally:
        session.delete()


def test_viewer_stays_interactive_on_a_10000_node_run(live_server, http, page, shots):
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        session.ok(BIG, outputs=["loss"])
        _finished(page)
        seen = page.evaluate("""(() => {
            const t0 = performance.now(); layout(run); const layoutMs = performance.now() - t0;
            const frames = [];
            for (let i = 0; i < 20; i++) { const t = performance.now(); view.x += 37; view.zoom = i % 2 ? 0.5 : 1; paint(); frames.push(performance.now() - t); }
            fit(); const t = performance.now(); paint(); const fitMs = performance.now() - t;
            frames.sort((a, b) => a - b);
            return {nodes: run.nodes.size, shown: run.shown.length, layoutMs, frameP50: frames[10], frameMax: frames[19], fitMs,
                    loop: run.boxes.find(b => b.kind === 'loop')?.label};
        })()""")
        print(f"\n10k-node run: {seen}")
        # (a loaded machine may have the server coalesce a few node events: then the loop folds in pieces)
        assert seen["nodes"] >= 9_000 and seen["loop"].startswith("×")
        assert seen["shown"] < 200
        page.screenshot(path=shots / "08-10k-nodes.png")
        # unfolded, every node is on the canvas: laying out and painting all of them stays interactive
        page.evaluate("for (const b of run.boxes.filter(b => b.kind === 'loop')) run.folds.set(b.key, false); layout(run)")
        unfolded = page.evaluate("""(() => {
            const t0 = performance.now(); layout(run); const layoutMs = performance.now() - t0;
            fit(); const frames = [];
            for (let i = 0; i < 10; i++) { const t = performance.now(); view.y += 500; paint(); frames.push(performance.now() - t); }
            view.zoom = 1; view.x = 0; view.y = run.box.h / 2;
            for (let i = 0; i < 10; i++) { const t = performance.now(); view.y += 300; paint(); frames.push(performance.now() - t); }
            frames.sort((a, b) => a - b);
            return {shown: run.shown.length, layoutMs, frameP50: frames[10], frameMax: frames[19]};
        })()""")
        print(f"10k-node run unfolded: {unfolded}")
        assert unfolded["shown"] >= 9_000
        assert page.problems == []
    finally:
        session.delete()


def _sent(page):
    return page.evaluate("window.__sent")


def test_viewer_debugger_panel_speaks_spec_section_4(live_server, http, page, shots):
    """The debugger's face against SPEC section 4's wire format, with the run side's events given to the
    page as the stream would: a pause shows its line, stack and locals; the controls and the eval box send
    debug commands; gutter clicks make breakpoints; an anomaly outlines the NaN node and its inputs."""
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        session.ok(RNN, outputs=["loss"])
        _finished(page)
        # record what the page sends on its stream from here on
        page.evaluate("""() => { window.__sent = []; const ws = conn.ws, send = ws.send.bind(ws);
                                 ws.send = (m) => { window.__sent.push(JSON.parse(m)); send(m); }; }""")
        page.locator("#source .ln[data-line='8'] .gutter").click()
        assert page.evaluate("[...breakpoints.keys()]") == [8]
        assert page.locator("#source .ln.bp").count() == 1
        # a debug run from the page carries the breakpoints and pause_on
        page.check("#debug")
        assert page.is_enabled("#run"), page.evaluate("[conn.kind, conn.ownRun]")
        page.click("#run")
        _wait(page, "window.__sent.some(m => m.type === 'run')", timeout_s=5)
        message = next(m for m in _sent(page) if m["type"] == "run")
        assert message["debug"] is True and message["breakpoints"] == [{"line": 8}]
        assert message["pause_on"] == ["exception", "anomaly"] and message["program"] == RNN
        # the server pauses it at line 8 (the run side is tested end to end below): clear the breakpoint, go on
        _wait(page, "run.state === 'paused'")
        page.locator("#source .ln[data-line='8'] .gutter").click()
        page.click("#dbg-continue")
        _wait(page, "run.state === 'done'")
        page.locator("#source .ln[data-line='8'] .gutter").click()
        # from here the run side's events are played to the page, and what it sends is kept, not sent
        page.evaluate("() => { window.__sent = []; conn.ws.send = (m) => { window.__sent.push(JSON.parse(m)); }; }")
        rid = page.evaluate("run.id")
        nan_node = page.evaluate("[...run.nodes.values()].filter(n => n.op === 'tanh').pop().id")  # the newest
        page.evaluate("""([rid, nid]) => {
            const n = run.nodes.get(nid); n.value = Object.assign({}, n.value, {min: 'NaN', max: 'NaN', mean: 'NaN'});
            onEvent({type: 'paused', run: rid, seq: 900, reason: 'anomaly', line: 8, col: 9,
                     node: {op: 'TanhBackward0', phase: 'forward', line: 8, inputs: [], output: {min: 'NaN'}},
                     stack: [{function: '<module>', line: 8, col: 9}],
                     locals: {t: '3', h: {shape: [8], dtype: 'float32', min: 'NaN', max: 'NaN', mean: 'NaN', norm: 'NaN', head: ['NaN']}}});
        }""", [rid, nan_node])
        _wait(page, "!document.getElementById('debugger').hidden && !framePending")
        assert page.locator("#source .ln.paused").get_attribute("data-line") == "8"
        assert "anomaly" in page.locator("#pause-reason").text_content()
        assert "paused (anomaly) at line 8" in page.locator("#run-state").text_content()
        assert page.locator("#locals th").all_text_contents() == ["t", "h"]
        assert "tensor [8] float32 min NaN" in page.locator("#locals td").nth(1).text_content()
        assert page.locator("#stack th").all_text_contents() == ["<module>"]
        outlined = page.evaluate("({node: run.anomaly && run.anomaly.id, inputs: [...run.anomalyInputs].map(n => n.op)})")
        assert outlined["node"] == nan_node and outlined["inputs"] == ["add"]
        page.screenshot(path=shots / "10-paused-anomaly.png")

        page.fill("#eval", "h.sum()")
        page.press("#eval", "Enter")
        page.evaluate("(rid) => onEvent({type: 'evaluated', run: rid, seq: 901, value: {shape: [], dtype: 'float32', min: 'NaN', max: 'NaN', mean: 'NaN', norm: 'NaN', head: ['NaN']}})", rid)
        page.fill("#eval", "undefined_name")
        page.press("#eval", "Enter")
        page.evaluate("(rid) => onEvent({type: 'evaluated', run: rid, seq: 902, error: {type: 'NameError', message: \"name 'undefined_name' is not defined\"}})", rid)
        assert "NameError" in page.locator("#eval-out .err").last.text_content()
        # a command the run refuses is an error event that leaves it paused (not a failed run)
        page.evaluate("(rid) => onEvent({type: 'error', run: rid, seq: 903, paused: true, error: {type: 'DebugError', command: 'breakpoints', message: 'line 2 has no code'}})", rid)
        assert page.evaluate("run.state") == "paused" and "no code" not in page.locator("#banner").text_content()
        assert "line 2 has no code" in page.locator("#eval-out .err").last.text_content()
        page.locator("#source .ln[data-line='9'] .gutter").click()  # a breakpoint added while paused goes to the run
        page.click("#dbg-next")
        sent = [m for m in _sent(page) if m["type"] == "debug"]
        assert sent == [{"type": "debug", "id": rid, "command": "eval", "expr": "h.sum()"},
                        {"type": "debug", "id": rid, "command": "eval", "expr": "undefined_name"},
                        {"type": "debug", "id": rid, "command": "breakpoints", "breakpoints": [{"line": 8}, {"line": 9}]},
                        {"type": "debug", "id": rid, "command": "next"}]
        assert page.evaluate("run.paused") is None and page.locator("#source .ln.paused").count() == 0
        # another watcher resumed it: the panel goes
        page.evaluate("(rid) => onEvent({type: 'paused', run: rid, seq: 904, reason: 'step', line: 9, col: 1, stack: [], locals: {}})", rid)
        assert page.locator("#debugger").is_visible()
        page.evaluate("(rid) => onEvent({type: 'resumed', run: rid, seq: 905, command: 'continue'})", rid)
        assert page.locator("#debugger").is_hidden() and page.evaluate("run.paused") is None
        page.screenshot(path=shots / "11-after-next.png")
        assert page.problems == []
    finally:
        session.delete()


TRANSFORMER = """import torch
import torch.nn as nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32)
encoder = nn.TransformerEncoder(layer, num_layers=8)
src = torch.randn(7, 3, 16)
for step in range(3):
    out = encoder(src)
    loss = out.pow(2).mean()
    loss.backward()
"""


def test_viewer_keeps_a_big_transformer_run_readable(live_server, http, page, shots):
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        session.ok(TRANSFORMER, outputs=["loss"])
        _finished(page)
        seen = page.evaluate("""(() => ({nodes: run.nodes.size, shown: run.shown.length + run.shownBoxes.length,
            loops: run.boxes.filter(b => b.kind === 'loop').map(b => b.label),
            folded: run.shownBoxes.filter(b => b.kind === 'module').map(b => b.label),
            params: [...run.nodes.values()].filter(n => n.kind === 'leaf' && n.requires_grad).map(n => n.name)}))()""")
        assert seen["nodes"] > 600
        assert "layers.0.self_attn.in_proj_weight" in seen["params"]
        # three steps of the same forward fold into one loop; inside it, each layer is a folded box
        assert seen["loops"] and seen["loops"][0].startswith("×3")
        assert {"layers.0 · TransformerEncoderLayer", "layers.5 · TransformerEncoderLayer"} <= set(seen["folded"])
        assert seen["shown"] < 80
        page.evaluate("fit()")
        page.screenshot(path=shots / "12-transformer-folded.png")
        b = page.evaluate("run.shownBoxes.find(g => g.label === 'layers.0 · TransformerEncoderLayer').key")
        page.evaluate("(key) => toggleFold(run, run.shownBoxes.find(g => g.key === key))", b)
        inner = page.evaluate("[...run.boxes, ...run.shownBoxes].filter(g => g.label.startsWith('layers.0.')).map(g => g.label)")
        assert {"layers.0.self_attn · MultiheadAttention", "layers.0.linear1 · Linear"} <= set(inner)
        page.evaluate("(key) => { setFollow(false); centreOn(run.boxes.find(g => g.key === key)); }", b)
        _wait(page, "!framePending")
        page.screenshot(path=shots / "13-transformer-layer-open.png")
        assert page.problems == []
    finally:
        session.delete()


DEBUGGED = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Linear(3, 1)
x = torch.randn(4, 3)
for step in range(3):
    loss = model(x).pow(2).mean()
    loss.backward()
print("done", round(loss.item(), 4))
"""


def test_viewer_debugs_a_run_end_to_end(live_server, http, page, shots):
    """Set a breakpoint by clicking the gutter, run with debug from the page, see the pause (line, stack,
    locals), evaluate an expression, continue, and see the run finish."""
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        page.click("#edit")
        page.fill("#program", DEBUGGED)
        page.click("#edit")  # the editor closes; the source view shows what will run once it starts
        session.ok(DEBUGGED)  # a first run puts the program on screen, where its gutter takes breakpoints
        _finished(page)
        page.locator("#source .ln[data-line='8'] .gutter").click()
        assert page.locator("#source .ln.bp").count() == 1
        page.check("#debug")
        page.click("#run")
        _wait(page, "run && run.paused && !document.getElementById('debugger').hidden")
        assert page.locator("#source .ln.paused").get_attribute("data-line") == "8"
        assert "breakpoint" in page.locator("#pause-reason").text_content()
        names = page.locator("#locals th").all_text_contents()
        assert {"model", "x", "step", "loss"} <= set(names)
        assert page.locator("#stack th").all_text_contents() == ["<module>"]
        _wait(page, "!run.structureDirty && !framePending")
        # the input x, an unnamed leaf until the run ends, is named from the pause's locals and leaves the box
        assert page.evaluate("[...run.nodes.values()].filter(n => n.name === 'x').map(n => n.rep === n && n.owner.kind)") == ["root"]
        page.screenshot(path=shots / "14-debug-paused.png")

        page.fill("#eval", "loss.item() * 2")
        page.press("#eval", "Enter")
        _wait(page, "document.querySelectorAll('#eval-out > div:not(.meta)').length >= 1")
        value = page.locator("#eval-out > div:not(.meta)").last.text_content()
        loss = float(page.evaluate("run.paused.locals.loss.mean"))
        assert abs(float(value.split()[-1] if " " in value else value) - 2 * loss) < 1e-4, value
        page.screenshot(path=shots / "15-debug-eval.png")

        # a breakpoint clicked on a line with no code: the run refuses it, the page says so and drops the dot
        page.locator("#source .ln[data-line='10'] .gutter").click()
        _wait(page, "!breakpoints.has(10)")
        assert "line 10 has no code" in page.locator("#eval-out .err").last.text_content()
        assert page.locator("#source .ln[data-line='10']").get_attribute("class").split() == ["ln"]
        assert page.evaluate("run.state") == "paused"

        page.locator("#source .ln[data-line='8'] .gutter").click()  # clear the breakpoint: continue runs to the end
        page.click("#dbg-continue")
        _wait(page, "run.state === 'done'")
        assert page.locator("#debugger").is_hidden()
        assert "done" in page.locator("#stdout").text_content()
        titles = page.evaluate("[...run.nodes.values()].map(nodeTitle)")
        assert titles.count("x") == 1 and {"weight", "bias"} <= set(titles)  # the final graph adds no copy of x
        page.screenshot(path=shots / "16-debug-finished.png")
        assert page.problems == []
    finally:
        session.delete()


def test_viewer_breakpoints_go_on_the_lines_of_the_program_being_edited(live_server, http, page, shots):
    """Newcomer 2, V1 and V2: the gutter is where breakpoints are set, so while the editor is open it shows
    the editor's text. A fresh session's first program takes breakpoints before it ever ran, and after an
    edit that moves lines, a breakpoint clicked on a line stops at that line of the new program, not at the
    line of that number in the previous run's text."""
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        page.click("#edit")
        page.fill("#program", DEBUGGED)
        _wait(page, "document.querySelectorAll('#source .ln').length >= 9")  # no run yet: the editor's lines
        assert page.locator("#source .ln[data-line='7'] .code").text_content().strip() == "loss = model(x).pow(2).mean()"
        page.locator("#source .ln[data-line='7'] .gutter").click()
        page.check("#debug")
        page.click("#run")
        _wait(page, "run && run.paused && !document.getElementById('debugger').hidden")
        assert page.locator("#source .ln.paused").get_attribute("data-line") == "7"
        assert page.evaluate("run.paused.locals.step") == "0"
        page.click("#cancel")
        _wait(page, "run && run.state !== 'paused' && run.state !== 'running'")

        # two lines added on top: the gutter follows the text being edited, the old breakpoint's dot stays on
        # line 7 (now `for step ...`) and is cleared, and line 9 is the loss line now
        page.fill("#program", "a = 1\nb = 2\n" + DEBUGGED)
        _wait(page, "document.querySelectorAll('#source .ln').length >= 11")
        assert page.locator("#source .ln[data-line='9'] .code").text_content().strip() == "loss = model(x).pow(2).mean()"
        assert page.locator("#source .ln.has-nodes").count() == 0  # the last run's nodes point into another text
        page.locator("#source .ln[data-line='7'] .gutter").click()
        page.locator("#source .ln[data-line='9'] .gutter").click()
        assert page.evaluate("breakpointList()") == [{"line": 9}]
        page.click("#run")
        _wait(page, "run && run.paused && !document.getElementById('debugger').hidden")
        assert page.locator("#source .ln.paused").get_attribute("data-line") == "9"
        assert page.locator("#source .ln.paused .code").text_content().strip() == "loss = model(x).pow(2).mean()"
        page.screenshot(path=shots / "16b-debug-edited-program.png")
        page.locator("#source .ln[data-line='9'] .gutter").click()
        page.click("#dbg-continue")
        _wait(page, "run.state === 'done'")
        assert page.problems == []
    finally:
        session.delete()


def test_viewer_debug_keys_work_from_the_eval_box_and_an_exec_answers_ok(live_server, http, page, shots):
    """Newcomer 2: after an expression in the eval box (Enter keeps the focus there), F10 and F8 did nothing,
    since the page ignored keys typed in an input; function keys type nothing, so they now step from there.
    A statement (``!stmt``) answered ``null`` under it; it says ``ok``."""
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        page.click("#edit")
        page.fill("#program", DEBUGGED)
        _wait(page, "document.querySelectorAll('#source .ln').length >= 9")
        page.locator("#source .ln[data-line='7'] .gutter").click()
        page.check("#debug")
        page.click("#run")
        _wait(page, "run && run.paused && !document.getElementById('debugger').hidden")
        page.fill("#eval", "!step_seen = step")
        page.press("#eval", "Enter")
        _wait(page, "document.querySelectorAll('#eval-out > div').length >= 2")
        assert page.locator("#eval-out > div").last.text_content() == "ok"
        assert "null" not in page.locator("#eval-out").text_content()
        page.fill("#eval", "step_seen + 1")
        page.press("#eval", "Enter")
        _wait(page, "document.querySelectorAll('#eval-out > div:not(.meta)').length >= 2")
        assert page.locator("#eval-out > div:not(.meta)").last.text_content().strip() == "1"
        assert page.evaluate("document.activeElement.id") == "eval"
        page.keyboard.press("F10")
        _wait(page, "run.paused && run.paused.line === 8")
        page.locator("#source .ln[data-line='7'] .gutter").click()
        page.focus("#eval")
        page.keyboard.press("F8")
        _wait(page, "run.state === 'done'")
        assert page.problems == []
    finally:
        session.delete()


NAN = """import torch
w = torch.tensor([4.0, -1.0], requires_grad=True)
shifted = w * 2 - 1
root = torch.sqrt(shifted)
loss = root.sum()
loss.backward()
"""


NAN_BACKWARD = """import torch
w = torch.tensor([0.0, 4.0], requires_grad=True)
root = torch.sqrt(w)
loss = (root * 3).sum()
loss.backward()
"""


def test_viewer_outlines_the_op_that_made_nan_in_an_anomaly_pause(live_server, http, page, shots):
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        page.click("#edit")
        page.fill("#program", NAN)
        page.check("#debug")
        page.click("#run")
        _wait(page, "run && run.paused && run.paused.reason === 'anomaly' && !framePending")
        seen = page.evaluate("({op: run.anomaly && run.anomaly.op, inputs: [...run.anomalyInputs].map(n => n.op),"
                             " line: run.paused.line, selected: run.selected && run.selected.op})")
        assert seen == {"op": "sqrt", "inputs": ["sub"], "line": 4, "selected": "sqrt"}
        assert page.locator("#source .ln.paused").get_attribute("data-line") == "4"
        page.evaluate("fit()")
        page.screenshot(path=shots / "17-anomaly-nan.png")
        assert "when the run has finished" in page.locator("#tensors").text_content()  # no fetch from a busy session
        page.click("#dbg-continue")
        _wait(page, "run.state === 'done' || run.state === 'error'")
        # once it has ended, the selected node's tensors come: NaN counted beside the histogram
        page.wait_for_selector("#tensors canvas.histogram")
        assert "1 NaN/Inf" in page.locator("#tensors figcaption").first.text_content()

        # NaN made by backward: the pause is at the backward() line, the outlined node the sqrt that line 3 made
        page.fill("#program", NAN_BACKWARD)   # (the editor is still open)
        page.click("#run")
        _wait(page, "run && run.paused && run.paused.reason === 'anomaly' && !framePending")
        seen = page.evaluate("({op: run.anomaly && run.anomaly.op, line: run.anomaly && run.anomaly.line,"
                             " inputs: [...run.anomalyInputs].map(nodeTitle), paused: run.paused.line,"
                             " phase: run.paused.node.phase})")
        assert seen == {"op": "sqrt", "line": 3, "inputs": ["w"], "paused": 5, "phase": "backward"}, seen
        why = page.locator("#pause-why").text_content()
        assert "SqrtBackward0 · backward · made at line 3" in why and "gradient 0" in why and "inf" in why.lower(), why
        page.evaluate("fit()")
        page.screenshot(path=shots / "18-anomaly-backward.png")
        page.click("#dbg-continue")
        _wait(page, "run.state === 'done' || run.state === 'error'")
        assert page.problems == []
    finally:
        session.delete()


ALTERED = """import torch
import torch.nn as nn
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)
    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(h)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4)
for step in range(3):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
print("final", round(loss.item(), 4))
"""


def test_viewer_newcomer_alters_the_network_mid_run_and_sees_the_diff(live_server, http, page, shots):
    """As a new user would, all from the page: run a program, right-click the gutter for a conditional
    breakpoint, debug-run it, see it stop only when the condition holds, evaluate, replace model.fc2 with
    a Sequential and lower the learning rate (exec), continue, see the result and the graph diff (the new
    layers added), fold and unfold the new module box, and open a new weight's heatmap."""
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        page.click("#edit")
        page.fill("#program", ALTERED)
        page.click("#edit")
        page.click("#run")                                   # a plain run first: the graph to compare with
        _finished(page)
        assert "final" in page.locator("#stdout").text_content()
        page.evaluate("fit()")
        page.screenshot(path=shots / "20-newcomer-first-run.png")

        # right-click the gutter of line 17: a condition, asked for in a dialog
        page.once("dialog", lambda d: d.accept("step == 1"))
        page.locator("#source .ln[data-line='17'] .gutter").click(button="right")
        assert page.evaluate("[...breakpoints]") == [[17, "step == 1"]]
        assert "step == 1" in page.locator("#source .ln[data-line='17'] .gutter").get_attribute("title")
        page.screenshot(path=shots / "21-newcomer-conditional-breakpoint.png")

        page.check("#debug")
        page.click("#run")
        _wait(page, "run && run.paused && !document.getElementById('debugger').hidden && !framePending")
        seen = page.evaluate("({line: run.paused.line, step: run.paused.locals.step, reason: run.paused.reason})")
        assert seen == {"line": 17, "step": "1", "reason": "breakpoint"}   # step 0 went by: the condition held only now
        page.screenshot(path=shots / "22-newcomer-paused-at-step-1.png")

        def ask(text):
            n = page.locator("#eval-out > div:not(.meta)").count()
            page.fill("#eval", text)
            page.press("#eval", "Enter")
            _wait(page, f"document.querySelectorAll('#eval-out > div:not(.meta)').length > {n}")
            return page.locator("#eval-out > div:not(.meta)").last.text_content()

        loss = float(ask("loss.item()"))
        assert abs(loss - float(page.evaluate("run.paused.locals.loss.mean"))) < 1e-6
        ask("!model.fc2 = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2)); opt.param_groups[0]['lr'] = 0.01")
        assert "(1): Tanh()" in ask("model.fc2")
        assert float(ask("opt.param_groups[0]['lr']")) == 0.01
        assert page.evaluate("run.state") == "paused"
        page.screenshot(path=shots / "23-newcomer-exec-altered.png")

        page.locator("#source .ln[data-line='17'] .gutter").click()   # clear it, and go on to the end
        page.click("#dbg-continue")
        _finished(page)
        assert page.locator("#debugger").is_hidden()
        assert page.locator("#stdout").text_content().count("final") == 2
        labels = page.evaluate("run.boxes.map(b => b.label)")
        assert {"fc2 · Linear", "fc2 · Sequential", "fc2.1 · Tanh"} <= set(labels)   # before and after the exec
        page.evaluate("fit()")
        page.screenshot(path=shots / "24-newcomer-finished.png")

        # the diff against the first run: the layers the exec put in are added (the old fc2 still ran at step 0)
        page.wait_for_selector("#diff:not([hidden])")
        page.click("#diff")
        added = page.evaluate("[...run.diff.added].map(n => `${n.module}:${n.op || n.name}`)")
        assert {"fc2.0:linear", "fc2.1:tanh", "fc2.2:linear", "fc2.0:fc2.0.weight"} <= set(added), added
        assert page.evaluate("run.diff.removed") == []
        rows = page.locator("#detail td.added").all_text_contents()
        assert any("fc2.1: tanh (line 11)" in r for r in rows), rows
        assert page.evaluate("""(() => { const t = document.getElementById('toolbar'), d = document.getElementById('diff'),
            f = document.getElementById('zoom-fit'); return d.getBoundingClientRect().top === f.getBoundingClientRect().top
            || Math.abs(d.getBoundingClientRect().top - f.getBoundingClientRect().top) < 8; })()"""), "the toolbar wrapped"
        page.screenshot(path=shots / "25-newcomer-diff.png")
        page.click("#diff")

        # fold the new Sequential into one box, then unfold it
        _click_box_header(page, "fc2 · Sequential")
        folded = page.evaluate("run.shownBoxes.some(g => g.label === 'fc2 · Sequential')")
        assert folded
        page.screenshot(path=shots / "26-newcomer-sequential-folded.png")
        b = _box(page, "fc2 · Sequential")
        _click_world(page, {"ref": b["key"], "px": b["x"] + 40, "py": b["y"] + 30})
        _wait(page, "run.boxes.some(g => g.label === 'fc2 · Sequential') && !framePending")
        page.screenshot(path=shots / "27-newcomer-sequential-unfolded.png")

        # the new layer's weight: first used at step 1, the iteration folded between the first and the last
        gap = page.evaluate("""(() => { const g = run.shownBoxes.find(g => g.label.startsWith('⋯'));
                                 return {key: g.key, x: g.x, y: g.y}; })()""")
        _click_world(page, {"ref": gap["key"], "px": gap["x"] + 40, "py": gap["y"] + 15})
        _wait(page, "!run.shownBoxes.some(g => g.label.startsWith('⋯')) && !framePending")
        _click_node(page, "[...run.nodes.values()].find(n => n.name === 'fc2.0.weight' && run.shown.includes(n))")
        page.wait_for_selector("#tensors canvas.heatmap[data-of=value]")
        page.wait_for_selector("#tensors canvas.heatmap[data-of=gradient]")
        assert page.locator("#tensors figcaption").first.text_content().startswith("value [8, 8]")
        page.screenshot(path=shots / "28-newcomer-new-weight-heatmap.png")
        assert page.problems == []
    finally:
        session.delete()


def test_viewer_resumes_a_run_whose_client_went_away(live_server, http, page, shots):
    """A Python client starts a debug run, it pauses, the client goes away without a word: the run waits,
    and the viewer, opened at the session's viewer_url, shows the pause, steps, evaluates and continues it
    to its end."""
    from gradserve.client import Client
    with Client(live_server.url) as client, client.session() as session:
        page.goto(session.viewer_url)
        _wait(page, "document.getElementById('conn').classList.contains('live')")
        run = session.debug(DEBUGGED, breakpoints=[(7, "step == 2")])
        assert next(iter(run)).line == 7
        run._stream._ws.close()   # the client's connection drops (a crash, a lost network): no cancel sent
        _wait(page, "run && run.paused && run.paused.line === 7 && !document.getElementById('debugger').hidden")
        assert page.locator("#source .ln.paused").get_attribute("data-line") == "7"
        assert page.evaluate("run.paused.locals.step") == "2"
        page.screenshot(path=shots / "30-watcher-sees-orphaned-pause.png")
        page.click("#dbg-next")
        _wait(page, "run.paused && run.paused.line === 8")
        page.fill("#eval", "loss.item() > 0")
        page.press("#eval", "Enter")
        _wait(page, "document.querySelectorAll('#eval-out > div:not(.meta)').length >= 1")
        assert page.locator("#eval-out > div:not(.meta)").last.text_content() == "True"   # (as Python writes it)
        page.screenshot(path=shots / "31-watcher-stepped-and-evaluated.png")
        page.click("#dbg-continue")
        _wait(page, "run.state === 'done' && !framePending")
        assert "done" in page.locator("#stdout").text_content()
        page.screenshot(path=shots / "32-watcher-finished-the-run.png")
        assert page.problems == []


def test_viewer_cancels_a_paused_run_another_client_started(live_server, http, page, shots):
    """Newcomer 1: a run paused by the Python client (or `gradserve run --debug`) shows in the viewer with
    its controls, but the page could only resume it: Cancel is the page's own runs' button, and the panel had
    no cancel, though SPEC section 4 lets any watcher send the debug "cancel". The panel's cancel ends it."""
    import threading

    from gradserve.client import Client, RunCancelled

    session = open_session(http)
    outcome = {}

    def debug_from_the_client():
        with Client(live_server.url) as client:
            s = client.attach(session.id, session.token)
            try:
                with s.debug(DEBUGGED, breakpoints=[(7, "step == 1")]) as run:
                    for pause in run:
                        outcome.setdefault("pauses", []).append(pause.line)
                        deadline = time.monotonic() + 30
                        while "ended" not in outcome and time.monotonic() < deadline:
                            time.sleep(0.05)   # leaves the pause to the page (the loop would continue it)
                        break
                    outcome["result"] = run.result
            except RunCancelled:
                outcome["result"] = None
            except Exception as e:  # noqa: BLE001 - reported by the assertion below
                outcome["other"] = repr(e)

    try:
        _watch(page, live_server, session)
        thread = threading.Thread(target=debug_from_the_client, daemon=True)
        thread.start()
        _wait(page, "run && run.paused && !document.getElementById('debugger').hidden")
        assert page.locator("#source .ln.paused").get_attribute("data-line") == "7"
        assert page.locator("#cancel").is_disabled()          # not the page's run
        assert page.locator("#dbg-cancel").is_enabled()
        page.screenshot(path=shots / "17-debug-paused-by-a-client.png")
        page.click("#dbg-cancel")
        _wait(page, "run.state === 'cancelled'")
        assert page.locator("#debugger").is_hidden()
        outcome["ended"] = True
        thread.join(30)
        assert outcome.get("pauses") == [7] and "other" not in outcome, outcome
        # the session is free again: a run goes through
        assert session.ok("y = 1 + 1", outputs=["y"])["values"]["y"] == 2
        assert page.problems == []
    finally:
        session.delete()


def test_docs_page_draws_the_api_offline(live_server, http, page, shots):
    """Newcomer 1: /docs (the address `gradserve serve` prints for the API) was FastAPI's Swagger UI, whose
    script and stylesheet come from a CDN: on a machine without internet the page stayed blank. It is drawn
    from /openapi.json by the server's own files now, with a curl line for each route."""
    spec = http.get("/openapi.json").json()
    operations = [(m.upper(), p) for p, ms in spec["paths"].items() for m in ms]
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"{live_server.url}/docs")
    _wait(page, f"document.querySelectorAll('#ops .op').length === {len(operations)}")
    titles = page.locator("#ops .op h2").all_text_contents()
    assert [t.replace("Bearer", "").strip() for t in titles] == [f"{m}{p}" for m, p in operations]
    run = page.locator("#ops .op", has_text="/v1/sessions/{session_id}/run").first
    text = run.text_content()
    assert "program *" in text and "outputs" in text and "409" in text and "Bearer" in text
    assert "curl -s -XPOST" in run.locator("pre").text_content()
    assert all(u.startswith(live_server.url) for u in requested), requested   # nothing fetched from elsewhere
    page.screenshot(path=shots / "18-docs.png", full_page=False)
    assert page.problems == []


def test_viewer_titles_the_status_line_with_a_programs_tqdm_desc(live_server, http, page):
    """Newcomer 1: a program's tqdm reports as log events (step = n, total, desc, postfix); the status line
    shows its desc as the title ("epochs · step 3/3 · loss 0.5"), not as a metric "desc epochs"."""
    session = open_session(http)
    try:
        _watch(page, live_server, session)
        session.ok("from tqdm import tqdm\nbar = tqdm(range(3), desc='epochs')\nfor i in bar:\n"
                   "    bar.set_postfix(loss=0.5)\n")
        _finished(page)
        _wait(page, "document.getElementById('run-metrics').textContent.includes('3/3')")
        assert page.locator("#run-metrics").text_content() == "epochs · step 3/3 · loss 0.5"
        assert page.locator("#run-metrics b").first.text_content() == "epochs"
        assert page.evaluate("document.getElementById('run-progress').value") == 3
        assert page.problems == []
    finally:
        session.delete()
