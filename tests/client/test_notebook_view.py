"""RunResult._repr_html_: what a notebook shows of a run, with the viewer's drawing code (draw.js)."""
import html
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from gradserve.client.notebook import MAX_CELLS, tensor_entry
from gradserve.client.results import RunResult

PROGRAM = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
pred = model(x)
loss = (pred ** 2).mean()
loss.backward()
"""


def test_run_result_html_has_a_statistics_table_that_needs_no_script():
    r = RunResult(values={"w": np.arange(6.0).reshape(2, 3)}, grads={"w": np.ones((2, 3))}, graph=None, stdout="hi <b>",
                  elapsed_ms=1.5)
    page = r._repr_html_()
    assert "<td><b>w</b></td><td>value</td><td>[2, 3]</td>" in page
    assert "<td>0</td><td>5</td><td>2.5</td>" in page  # min, max, mean of the value
    assert "hi &lt;b&gt;" in page  # stdout is escaped
    assert "GradDraw.heatmap" in page and "var GradGraph" in page  # the viewer's drawing code, inline


def test_run_result_html_cannot_be_broken_out_of_by_a_name():
    r = RunResult(values={"</script><script>alert(1)</script>": np.ones(2)}, grads={}, graph=None, stdout="")
    page = r._repr_html_()
    script = page[page.index("<script>"):]
    assert script.count("</script>") == 1  # only the element's own end tag
    assert html.escape("</script><script>alert(1)</script>") in page


def test_tensor_entry_block_averages_big_matrices_and_keeps_stats_of_all_values():
    a = np.arange(200 * 300, dtype=np.float64).reshape(200, 300)
    e = tensor_entry("a", "value", a)
    assert e["cells"]["shape"][0] <= MAX_CELLS and e["cells"]["shape"][1] <= MAX_CELLS
    assert e["stats"]["max"] == a.max() and e["stats"]["mean"] == pytest.approx(a.mean())
    assert tensor_entry("s", "value", np.array("text")) is None


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_run_result_html_draws_tensors_and_graph_in_a_browser(session):
    playwright_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (the dev extra)")
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    result = session.run(PROGRAM, inputs={"x": {"data": x, "requires_grad": True}}, outputs=["loss", "pred"],
                         graph=True)
    assert {"0.weight", "2.bias"} <= {n["name"] for n in result.graph["nodes"]}
    assert {m["path"] for m in result.graph["modules"]} == {"", "0", "1", "2"}  # boxes without a stream too
    shots = Path(os.environ.get("GRADSERVE_VIEWER_SHOTS") or tempfile.mkdtemp(prefix="gradserve-notebook-"))
    shots.mkdir(parents=True, exist_ok=True)
    page_file = shots / "notebook.html"
    # twice, as two cells of one notebook would show it: the second must not clash with the first
    page_file.write_text(f"<!doctype html><meta charset=utf-8><body>{result._repr_html_()}{result._repr_html_()}</body>")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        problems = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(page_file.as_uri())
        deadline = time.monotonic() + 20
        while page.evaluate("document.querySelectorAll('canvas.gs-graph').length") < 2 or not page.evaluate(
                "[...document.querySelectorAll('canvas.gs-graph')].every(c => c.width > 0)"):
            assert time.monotonic() < deadline, problems
            time.sleep(0.05)
        seen = page.evaluate("""(() => {
            const painted = (c) => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                                     let k = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) k++; return k; };
            const g = document.querySelector('canvas.gs-graph');
            return {heatmaps: document.querySelectorAll('canvas.heatmap').length,
                    histograms: document.querySelectorAll('canvas.histogram').length,
                    graph: painted(g), height: g.height};
        })()""")
        # per copy: the values of loss and pred and the gradient of the input x, each a histogram; pred [3, 1]
        # and x's gradient [3, 4] a heatmap too (a scalar has none)
        assert seen["histograms"] == 6 and seen["heatmaps"] == 4 and seen["graph"] > 5000
        page.screenshot(path=shots / "09-notebook.png", full_page=True)
        browser.close()
    assert problems == []


def test_pause_html_shows_the_line_the_stack_and_the_locals():
    from types import SimpleNamespace

    from gradserve.client.notebook import pause_html

    pause = SimpleNamespace(reason="breakpoint", line=3, source="a = 1\nb = 2\nc = a + b\nd = 4\n",
                            stack=[{"function": "<module>", "line": 3, "col": 1}],
                            locals={"a": 1, "w": np.arange(6.0).reshape(2, 3),
                                    "h": {"shape": [8], "dtype": "float32", "min": 0.0, "max": 1.0, "mean": 0.5,
                                          "head": [0.0, 1.0]}, "<x>": "</script>"})
    page = pause_html(pause)
    assert "paused (breakpoint) at line 3" in page
    assert "box-shadow:inset 3px 0 #188038'><span" in page and "c = a + b</div>" in page  # the paused line marked
    assert "<th>&lt;module&gt;</th><td>line 3</td>" in page
    assert "array [2, 3] float64 min 0 max 5 mean 2.5" in page and "class='gs-draw' data-i='0'" in page
    assert "tensor [8] float32 min 0 max 1 mean 0.5 [0, 1, …]" in page   # (4 significant digits, as the viewer)
    assert "&lt;x&gt;" in page and page[page.index("<script>"):].count("</script>") == 1


def test_a_debug_pause_renders_in_a_notebook(session):
    program = "import torch\nw = torch.ones(2, 3, requires_grad=True)\nloss = (w * 2).sum()\nloss.backward()\n"
    pages = []
    run = session.debug(program, breakpoints=[4])
    for pause in run:
        pages.append(pause._repr_html_())
        pause.continue_()
    assert len(pages) == 1
    page = pages[0]
    assert "paused (breakpoint) at line 4" in page
    assert "<th>w</th><td>tensor [2, 3] float32 min 1 max 1 mean 1 [1, 1, 1, 1, 1, 1]</td>" in page   # all six: no "…"
    assert "<th>loss</th><td>tensor [] float32 min 12 max 12 mean 12 [12]</td>" in page
    assert "<th>&lt;module&gt;</th><td>line 4</td>" in page
