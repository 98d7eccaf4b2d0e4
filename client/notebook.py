"""Jupyter views (``_repr_html_``) of a run's answer: its values and gradients as heatmaps and
histograms, and its graph in module boxes, drawn by ``static/draw.js``, the same code the
server's viewer page draws with. The statistics also come as a plain table, so a notebook that
runs no script (an untrusted one, a rendered file) still shows them."""
from __future__ import annotations

import html
import json
import uuid
from importlib.resources import files

import numpy as np

MAX_CELLS = 64       # a heatmap sent inline has at most this many rows and columns (blocks averaged)
MAX_VALUES = 4096    # values a histogram is drawn from (a strided sample past it)


def _draw_js() -> str:
    return (files("gradserve.client") / "static" / "draw.js").read_text(encoding="utf-8")


def _script_json(obj) -> str:
    """JSON that is safe inside a <script> element (no "</script>", no HTML comment openers)."""
    text = json.dumps(obj, allow_nan=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _finite_list(a: np.ndarray) -> list:
    return [float(v) if np.isfinite(v) else None for v in a.reshape(-1).tolist()]


def _stats(a: np.ndarray) -> dict:
    a = np.asarray(a, dtype=np.float64)
    finite = a[np.isfinite(a)]
    if not finite.size:
        return {"min": None, "max": None, "mean": None, "norm": None}
    return {"min": float(finite.min()), "max": float(finite.max()), "mean": float(finite.mean()),
            "norm": float(np.sqrt((finite * finite).sum()))}


def _matrix(a: np.ndarray) -> np.ndarray:
    """The 2-d view a heatmap shows (rows of the last dimension), block-averaged to MAX_CELLS."""
    a = np.asarray(a, dtype=np.float64)
    m = a.reshape(1, -1) if a.ndim <= 1 else a.reshape(-1, a.shape[-1])
    rs, cs = -(-m.shape[0] // MAX_CELLS), -(-m.shape[1] // MAX_CELLS)
    if rs > 1 or cs > 1:
        rows, cols = -(-m.shape[0] // rs), -(-m.shape[1] // cs)
        padded = np.full((rows * rs, cols * cs), np.nan)
        padded[:m.shape[0], :m.shape[1]] = m
        with np.errstate(all="ignore"):
            m = np.nanmean(padded.reshape(rows, rs, cols, cs), axis=(1, 3))
    return m


def tensor_entry(name: str, kind: str, value) -> dict | None:
    """What the notebook view draws of one value: its shape, statistics, heatmap cells and sample."""
    a = np.asarray(value)
    if a.dtype.kind not in "biuf" or a.size == 0:
        return None
    flat = a.astype(np.float64).reshape(-1)
    sample = flat if flat.size <= MAX_VALUES else flat[:: -(-flat.size // MAX_VALUES)]
    m = _matrix(a)
    return {"name": name, "kind": kind, "shape": list(a.shape), "dtype": str(a.dtype), "stats": _stats(a),
            "cells": {"shape": list(m.shape), "data": _finite_list(m)} if a.ndim >= 1 and a.size > 1 else None,
            "sample": _finite_list(sample)}


def _fmt(x) -> str:
    return "–" if x is None else f"{x:.4g}"


def run_result_html(result) -> str:
    tensors = []
    for name, v in result.values.items():
        entry = tensor_entry(name, "value", v)
        if entry:
            tensors.append(entry)
        if name in result.grads:
            entry = tensor_entry(name, "gradient", result.grads[name])
            if entry:
                tensors.append(entry)
    for name, g in result.grads.items():
        if name not in result.values:
            entry = tensor_entry(name, "gradient", g)
            if entry:
                tensors.append(entry)
    uid = f"gradserve-{uuid.uuid4().hex[:12]}"
    rows = "".join(
        f"<tr><td><b>{html.escape(t['name'])}</b></td><td>{t['kind']}</td><td>{html.escape(str(t['shape']))}</td>"
        f"<td>{html.escape(t['dtype'])}</td>" + "".join(f"<td>{_fmt(t['stats'][k])}</td>" for k in ("min", "max", "mean", "norm"))
        + f"<td class='gs-draw' data-i='{i}'></td></tr>"
        for i, t in enumerate(tensors))
    nodes = len(result.graph["nodes"]) if result.graph else 0
    head = (f"<div style='font:12px system-ui,sans-serif;color:#5f6368;margin:4px 0'>RunResult · "
            f"{len(result.values)} value(s), {len(result.grads)} gradient(s)"
            + (f" · {result.elapsed_ms:.3g} ms" if result.elapsed_ms is not None else "")
            + (f" · graph of {nodes} nodes" if nodes else "") + "</div>")
    table = ("<style>.gradserve-run td,.gradserve-run th{padding:1px 8px 1px 0;vertical-align:top}</style>"
             "<table style='font:12px ui-monospace,monospace;border-collapse:collapse'>"
             "<tr style='text-align:left;color:#5f6368'><th>name</th><th></th><th>shape</th><th>dtype</th><th>min</th>"
             f"<th>max</th><th>mean</th><th>norm</th><th></th></tr>{rows}</table>") if tensors else ""
    graph = f"<canvas class='gs-graph' style='border:1px solid #e8eaed;max-width:100%'></canvas>" if nodes else ""
    stdout = (f"<pre style='max-height:12em;overflow:auto;background:#f8f9fa;padding:4px'>{html.escape(result.stdout)}</pre>"
              if result.stdout else "")
    script = f"""<script>(function () {{
{_draw_js()}
var root = document.getElementById({json.dumps(uid)}), tensors = {_script_json(tensors)}, graph = {_script_json(result.graph)};
{_BOOT}
}})();</script>"""
    return f"<div id='{uid}' class='gradserve-run'>{head}{table}{graph}{stdout}</div>{script}"


# Draws the tensors and the graph of a rendered RunResult (runs inside the function the script wraps).
_BOOT = r"""
root.querySelectorAll("td.gs-draw").forEach(function (td) {
  var t = tensors[Number(td.dataset.i)];
  var num = function (xs) { return xs.map(function (v) { return v === null ? NaN : v; }); };
  if (t.cells) {
    var hm = document.createElement("canvas"); hm.className = "heatmap";
    GradDraw.heatmap(hm, num(t.cells.data), t.cells.shape, { width: 160 });
    td.appendChild(hm);
  }
  var hist = document.createElement("canvas"); hist.className = "histogram";
  GradDraw.histogram(hist, num(t.sample), { width: 160, height: 48, colour: t.kind === "gradient" ? "#8e44ad" : "#5b7fc7" });
  td.appendChild(hist);
});
var canvas = root.querySelector("canvas.gs-graph");
if (canvas && graph) {
  var r = { nodes: new Map(), consumers: new Map(), calls: new Map(), folds: new Map(), selected: null, state: "done" };
  (graph.modules || []).forEach(function (m) { r.calls.set(m.call, m); });
  var inputs = new Map();
  graph.edges.forEach(function (e) { if (!inputs.has(e.to)) inputs.set(e.to, []); inputs.get(e.to)[e.input_index] = e.from; });
  var outputs = [];
  graph.nodes.forEach(function (raw) {
    if (raw.kind === "output") { outputs.push(raw); return; }
    var n = Object.assign({}, raw, { inputs: Array.from(inputs.get(raw.id) || [], function (s) { return s === undefined ? null : s; }) });
    r.nodes.set(n.id, n);
    n.inputs.forEach(function (s) { if (s === null) return; if (!r.consumers.has(s)) r.consumers.set(s, []); r.consumers.get(s).push(n.id); });
  });
  outputs.forEach(function (o) {  // an output names the node that made it rather than being drawn twice
    var src = (inputs.get(o.id) || [])[0], n = src !== undefined ? r.nodes.get(src) : null;
    if (n) { if (!n.name) n.name = o.name; n.isOutput = true; }
  });
  var draw = function () {
    GradGraph.layout(r);
    var width = Math.min(root.clientWidth || 900, 900), z = Math.min(1, width / r.box.w), dpr = window.devicePixelRatio || 1;
    var h = Math.min(r.box.h * z, 1200);
    canvas.width = width * dpr; canvas.height = h * dpr; canvas.style.width = width + "px"; canvas.style.height = h + "px";
    var view = { x: r.box.x0 - Math.max(0, (width / z - r.box.w) / 2), y: r.box.y0, zoom: z, hover: null, diff: false };
    canvas._view = view;
    GradGraph.paintGraph({ ctx: canvas.getContext("2d"), view: view, w: width, h: h, dpr: dpr }, r);
  };
  canvas.addEventListener("click", function (e) {  // a click on a box's header or a folded box folds or unfolds it
    var v = canvas._view, x = v.x + e.offsetX / v.zoom, y = v.y + e.offsetY / v.zoom;
    var hit = r.shownBoxes.concat(r.boxes.slice().reverse()).find(function (b) {
      return b.kind !== "iter" && x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + (b.collapsed && b.kind === "module" || b.kind === "gap" ? b.h : GradGraph.HEADER);
    });
    if (!hit) return;
    var box = hit.kind === "gap" ? hit.parent : hit;
    r.folds.set(box.key, !box.collapsed);
    draw();
  });
  draw();
}
"""


def _num(x) -> str:
    """A summary's number as the viewer writes it (4 significant digits; "NaN", "Infinity" as they came)."""
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def _summary_text(v) -> str:
    if isinstance(v, dict) and ("min" in v or "shape" in v):
        shape = f"tensor {list(v['shape'])} {v.get('dtype', '')} " if v.get("shape") is not None else ""
        head = v.get("head")
        numel = int(np.prod(v["shape"])) if isinstance(v.get("shape"), list) else None
        more = ", …" if isinstance(head, list) and (numel is None or numel > len(head)) else ""
        head = f" [{', '.join(_num(x) for x in head)}{more}]" if isinstance(head, list) else ""
        return f"{shape}min {_num(v.get('min'))} max {_num(v.get('max'))} mean {_num(v.get('mean'))}{head}"
    if isinstance(v, np.ndarray):
        s = _stats(v) if v.dtype.kind in "biuf" and v.size else {}
        return f"array {list(v.shape)} {v.dtype} " + " ".join(f"{k} {_fmt(s.get(k))}" for k in ("min", "max", "mean"))
    return str(v)


def pause_html(pause) -> str:
    """A paused debug run (anything with ``reason``, ``line``, ``stack``, ``locals`` and optionally
    ``source``): where it stopped, the stack, and the locals with tensors drawn as histograms."""
    uid = f"gradserve-{uuid.uuid4().hex[:12]}"
    source = getattr(pause, "source", None) or getattr(pause, "program", None)
    line = getattr(pause, "line", None)
    lines = ""
    if isinstance(source, str) and isinstance(line, int):
        text = source.split("\n")
        lo, hi = max(1, line - 3), min(len(text), line + 3)
        lines = "".join(
            f"<div style='white-space:pre;{'background:#e6f4ea;box-shadow:inset 3px 0 #188038' if i == line else ''}'>"
            f"<span style='color:#9aa0a6;display:inline-block;width:3em;text-align:right;margin-right:8px'>{i}</span>"
            f"{html.escape(text[i - 1])}</div>" for i in range(lo, hi + 1))
        lines = f"<div style='font:12px ui-monospace,monospace;border:1px solid #e8eaed;margin:4px 0'>{lines}</div>"
    stack = "".join(f"<tr><th>{html.escape(str(f.get('function') or '<module>'))}</th><td>line {html.escape(str(f.get('line')))}"
                    f"</td></tr>" for f in reversed(list(getattr(pause, "stack", None) or [])) if isinstance(f, dict))
    tensors = []
    rows = []
    for name, v in (getattr(pause, "locals", None) or {}).items():
        cell = ""
        if isinstance(v, np.ndarray):
            entry = tensor_entry(name, "value", v)
            if entry:
                cell = f"<td class='gs-draw' data-i='{len(tensors)}'></td>"
                tensors.append(entry)
        rows.append(f"<tr><th>{html.escape(str(name))}</th><td>{html.escape(_summary_text(v))}</td>{cell}</tr>")
    head = (f"<div style='font:12px system-ui,sans-serif;color:#5f6368'>paused ({html.escape(str(getattr(pause, 'reason', '')))})"
            f" at line {html.escape(str(line))}</div>")
    tables = (f"<table style='font:12px ui-monospace,monospace'>{stack}</table>"
              f"<table style='font:12px ui-monospace,monospace'>{''.join(rows)}</table>")
    script = f"""<script>(function () {{
{_draw_js()}
var root = document.getElementById({json.dumps(uid)}), tensors = {_script_json(tensors)}, graph = null;
{_BOOT}
}})();</script>"""
    return f"<div id='{uid}' class='gradserve-pause'>{head}{lines}{tables}</div>{script}"
