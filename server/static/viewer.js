// gradserve viewer: watches a session over its WebSocket (SPEC section 4) and draws each run's graph
// (SPEC section 5) while the run builds it, then marks each node backward reaches with its gradient.
// No dependencies and nothing fetched from elsewhere: the page must work offline.
"use strict";

const $ = (id) => document.getElementById(id);
// Module calls are boxes that fold, loops fold to their first and last iteration, and the graph is painted
// on a <canvas>, only the part in view, so a run of tens of thousands of nodes costs what the screen shows.
const { W, H, PAD } = GradGraph;
const MAX_NODES = 50000;      // nodes past this are counted, not kept (the page's memory stays bounded)
const MAX_OUTPUT_LINES = 2000;
const CLOSE_REASONS = {
  1006: "connection lost", 1008: "this page's origin may not open streams", 1009: "a message was too big",
  1011: "server error", 1012: "server restarting", 1013: "fell behind the stream",
  4401: "no token given", 4404: "unknown session or wrong token", 4410: "the session is gone (its worker died)",
};
const FATAL_CLOSES = new Set([1008, 4401, 4404, 4410]);

// the formatting, grouping, layout and painting of a graph live in draw.js (shared with notebooks)
const { fmt, shapeText, numel, clip, summaryText, nodeClass, nodeTitle, layout: layoutGraph, paintGraph, boxW, boxH,
        GAP_IN_X, GAP_IN_Y, HEADER, LAYOUT_EVERY_MS } = GradGraph;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
// ------------------------------------------------------------------ state of the run on screen
const programs = new Map();  // run id -> program text, for runs this page started (source lines in errors)
let run = null;
const view = { zoom: 1, x: -PAD, y: -PAD, follow: true, hover: null, dirty: true };

function newRun(id) {
  return {
    id, nodes: new Map(), consumers: new Map(), queue: [], pending: new Map(), dirty: new Set(),
    layers: [], edgeKeys: new Set(), edges: [], edgesOf: new Map(), notKept: 0, backward: 0,
    skipped: { node: 0, backward: 0, log: 0 }, state: "running", t0: performance.now(), elapsed: null,
    metrics: null, error: null, selected: null, last: null, lastGrad: null, followed: null,
    box: { x0: 0, y0: 0, w: 0, h: 0, any: false }, program: programs.get(id) || null,
    calls: new Map(), folds: new Map(), structureDirty: true, laidOut: 0, lastLayout: 0, layoutMs: 0, paintMs: 0,
    shown: null, boxes: [], shownBoxes: [], lineNodes: null, diff: null, anomaly: null, anomalyInputs: new Set(),
  };
}

function startRun(id) {
  run = newRun(id);
  $("empty").hidden = true;
  hideBanner();
  $("detail").textContent = "click a node to see its value and gradient";
  // a new graph: the view starts at its top again and follows it; a zoom where a box's text is readable is
  // kept, a smaller one (a fit of the last run's whole graph) goes back to 100% (a paused run is read closely)
  view.hover = null;
  if (view.zoom < 0.6) { view.zoom = 1; $("zoom-level").textContent = "100%"; }
  view.x = -PAD; view.y = -PAD;
  setFollow(true);
  redraw();
  return run;
}

function runFor(ev) {
  if (run && run.id === ev.run) return run;
  const r = startRun(ev.run);  // joined while the run was going: what came before is missing
  printLine(`— joined run ${ev.run} while it was running`, "meta");
  return r;
}

function addNode(r, raw) {
  let n = r.nodes.get(raw.id);
  if (n) { mergeFields(r, n, raw); return n; }
  if (r.nodes.size >= MAX_NODES) { r.notKept++; return null; }
  n = Object.assign({}, raw);
  n.inputs = Array.isArray(raw.inputs) ? raw.inputs.slice() : [];
  r.nodes.set(n.id, n);
  n.inputs.forEach((src) => { if (src !== null && src !== undefined) addConsumer(r, src, n.id); });
  r.last = n;
  r.structureDirty = true;
  return n;
}

function addConsumer(r, src, dst) {
  let list = r.consumers.get(src);
  if (!list) r.consumers.set(src, (list = []));
  if (!list.includes(dst)) list.push(dst);
}

function mergeFields(r, n, raw) {
  for (const k of ["name", "value", "grad", "line", "op", "grad_fn"]) {
    if (raw[k] !== null && raw[k] !== undefined && n[k] == null) n[k] = raw[k];
  }
  for (const k of ["module", "call"]) if (raw[k] !== null && raw[k] !== undefined && n[k] == null) { n[k] = raw[k]; r.structureDirty = true; }
  if (raw.grad) n.grad = raw.grad;
  r.dirty.add(n);
}

function toggleFold(r, g) {
  const box = g.kind === "gap" ? g.parent : g;
  r.folds.set(box.key, !box.collapsed);
  layout(r);
  redraw();
}

function contentBox(r) { return r.box; }

// ------------------------------------------------------------------ painting
const canvas = $("graph");
const ctx = canvas.getContext("2d");
const css = getComputedStyle(document.documentElement);
const colour = (name) => css.getPropertyValue(name).trim();
const PALETTE = {
  param: [colour("--param"), colour("--param-line")], const: [colour("--const"), colour("--const-line")],
  op: [colour("--op"), colour("--op-line")], output: [colour("--output"), colour("--output-line")],
  grad: colour("--grad"), text: "#3c4043", title: "#202124", faint: "#80868b", edge: "#bdc1c6",
  box: ["#f3f6fc", "#9fb3d9"], loop: ["#fbf3fd", "#c39bd3"], added: "#188038", line: "#f9ab00", anomaly: "#d93025",
};
function fitCanvas() {
  // the canvas's backing store matches its size on screen in device pixels, so text stays sharp
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { w, h, dpr };
}

function layout(r) {
  layoutGraph(r);
  view.dirty = true;
}

function paint() {
  view.dirty = false;
  const { w, h, dpr } = fitCanvas();
  paintGraph({ ctx, view, palette: PALETTE, w, h, dpr }, run);
}

function nodeAt(px, py) {
  // what is under a point of the canvas: a node, a folded box, or the header of an unfolded one
  const r = run;
  if (!r || !r.shown) return null;
  const x = view.x + px / view.zoom, y = view.y + py / view.zoom;
  const hit = (b) => x >= b.x && x <= b.x + boxW(b) && y >= b.y && y <= b.y + boxH(b);
  for (const n of r.shown) if (hit(n)) return n;
  for (const b of r.shownBoxes) if (hit(b)) return b;
  for (let i = r.boxes.length - 1; i >= 0; i--) {
    const b = r.boxes[i];
    if (b.kind !== "iter" && x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + HEADER) return b;
  }
  return null;
}

// ------------------------------------------------------------------ frames
let framePending = false;

function schedule() {
  if (framePending) return;
  framePending = true;
  requestAnimationFrame(frame);
}

function redraw() { view.dirty = true; schedule(); }

function frame() {
  framePending = false;
  flushOutput();
  const r = run;
  if (r) {
    if (r.structureDirty) {
      // a streaming run is laid out again at most every LAYOUT_EVERY_MS; a finished one at once
      // (a layout that takes long waits longer, so a huge stream keeps the page responsive)
      const every = Math.max(LAYOUT_EVERY_MS, 8 * r.layoutMs);
      const wait = r.state === "running" ? r.lastLayout + every - performance.now() : 0;
      if (wait <= 0) layout(r); else setTimeout(schedule, wait);
    }
    for (const n of r.dirty) if (r.selected === n) showDetail(r, n);
    if (r.dirty.size) view.dirty = true;
    r.dirty.clear();
    if (view.follow && r.last && r.last.rep && r.followed !== r.last) { follow(r, r.last.rep); r.followed = r.last; }
  }
  if (view.dirty) paint();
  const empty = $("empty");
  if (r && r.state !== "running" && !r.nodes.size) {  // say why the canvas is blank rather than leave it so
    empty.textContent = "This run built no graph: no tensor that requires grad went through an op.";
    empty.hidden = false;
  } else if (r) empty.hidden = true;
  updateStatus();
}

function follow(r, n) {
  // keep the newest node in view: centred across, near the bottom edge going down
  const w = canvas.clientWidth / view.zoom, h = canvas.clientHeight / view.zoom;
  const box = contentBox(r);
  if (box.w <= w) view.x = box.x0 - (w - box.w) / 2;
  else if (n.x < view.x || n.x + boxW(n) > view.x + w) view.x = n.x + boxW(n) / 2 - w / 2;
  if (n.y < view.y || n.y + boxH(n) + GAP_IN_Y / 2 > view.y + h) view.y = Math.max(-PAD, n.y + boxH(n) + GAP_IN_Y / 2 - h);
  view.dirty = true;
}

// ------------------------------------------------------------------ status line, output, details
function updateStatus() {
  const r = run;
  const state = $("run-state"), counts = $("run-counts"), metrics = $("run-metrics"), bar = $("run-progress");
  state.className = "";
  const title = r ? `${r.state === "done" ? "finished" : r.state} · ${r.id} — gradserve viewer` : "gradserve viewer";
  if (document.title !== title) document.title = title;  // tells a background tab how the run is going
  if (!r) { state.textContent = "waiting for a run"; counts.textContent = metrics.textContent = ""; bar.hidden = true; return; }
  state.replaceChildren("run ", bold(r.id), " · ");
  if (r.state === "running") state.append(`running ${((performance.now() - r.t0) / 1000).toFixed(1)} s`);
  else if (r.state === "done") state.append(`finished in ${fmt(r.elapsed)} ms`);
  else if (r.state === "cancelled") state.append("cancelled");
  else if (r.state === "paused" && r.paused) state.append(`paused (${r.paused.reason}) at line ${r.paused.line}`);
  else if (r.state === "error") {
    const e = r.error || {};
    state.className = "error";
    state.append(`${e.type || "error"}${e.line ? ` at line ${e.line}, col ${e.col}` : ""}`);
  }
  const total = r.nodes.size + r.notKept;
  let c = `${total} node${total === 1 ? "" : "s"} · ${r.backward} ∇`;
  if (r.notKept) c += ` · ${r.notKept} past ${MAX_NODES} not shown`;
  const sk = r.skipped;
  if (sk.node || sk.backward || sk.log) {
    c += ` · coalesced: ${[["node", sk.node], ["∇", sk.backward], ["log", sk.log]].filter(([, k]) => k).map(([w, k]) => `${k} ${w}`).join(", ")}`;
  }
  counts.textContent = c;
  metrics.replaceChildren();
  const m = r.metrics;
  if (m) {
    const parts = [];
    const desc = typeof m.desc === "string" && m.desc ? m.desc : null;   // a program's tqdm(desc=...): the title
    if (m.step !== undefined) parts.push(["step", m.total !== undefined ? `${fmt(m.step)}/${fmt(m.total)}` : fmt(m.step)]);
    for (const k in m) if (k !== "step" && k !== "total" && !(desc && k === "desc")) parts.push([k, metricText(m[k])]);
    if (desc) metrics.append(bold(clip(desc, 60)), parts.length ? " · " : "");
    parts.forEach(([k, v], i) => { if (i) metrics.append(" · "); metrics.append(`${k} `, bold(v)); });
  }
  if (m && typeof m.step === "number" && typeof m.total === "number" && m.total > 0) {
    bar.hidden = false; bar.max = m.total; bar.value = Math.min(m.total, m.step + (r.state === "done" ? 1 : 0));
  } else bar.hidden = true;
}

function metricText(v) {
  if (v && typeof v === "object" && "data" in v) v = v.data;  // a tensor sent to log()
  return typeof v === "number" || typeof v === "string" ? fmt(v) : clip(JSON.stringify(v), 40);
}

function bold(text) { const b = document.createElement("b"); b.textContent = text; return b; }

const outputQueue = [];

function printLine(text, cls) {
  outputQueue.push([text.endsWith("\n") ? text : text + "\n", cls]);
  if (outputQueue.length > MAX_OUTPUT_LINES) outputQueue.splice(0, outputQueue.length - MAX_OUTPUT_LINES);
  schedule();
}

function flushOutput() {
  if (!outputQueue.length) return;
  const out = $("stdout");
  const atEnd = out.scrollTop + out.clientHeight >= out.scrollHeight - 4;
  const frag = document.createDocumentFragment();
  for (const [text, cls] of outputQueue) {
    const span = document.createElement("span");
    if (cls) span.className = cls;
    span.textContent = text;
    frag.appendChild(span);
  }
  outputQueue.length = 0;
  out.appendChild(frag);
  while (out.childNodes.length > MAX_OUTPUT_LINES) out.removeChild(out.firstChild);
  if (atEnd) out.scrollTop = out.scrollHeight;
}

function summaryRows(label, n, s, cls) {
  if (!s) return [[label, "–", cls]];
  const head = (s.head || []).map((v) => fmt(v)).join(", ");
  return [[label, `min ${fmt(s.min)}  max ${fmt(s.max)}`, cls], ["", `mean ${fmt(s.mean)}  norm ${fmt(s.norm)}`, cls],
          ["", `[${head}${numel(n.shape) > (s.head || []).length ? ", …" : ""}]`, cls]];
}

function describe(r, id) {
  const n = r.nodes.get(id);
  return n ? `#${id} ${nodeTitle(n)}` : `#${id}`;
}

function sourceLine(r, line) {
  if (!r.program || !line) return null;
  return r.program.split("\n")[line - 1] ?? null;
}

function showDetail(r, n) {
  const rows = [["node", `#${n.id} ${nodeTitle(n)}`], ["kind", nodeClass(n) + (n.grad_fn ? ` · ${n.grad_fn}` : "")],
    ["shape", `${shapeText(n.shape)} ${n.dtype || ""}`], ["requires grad", String(!!n.requires_grad)]];
  if (n.line) rows.push(["line", String(n.line)]);
  const src = sourceLine(r, n.line);
  if (src !== null) rows.push(["", src.trim(), "src"]);
  rows.push(...summaryRows("value", n, n.value), ...summaryRows("gradient", n, n.grad, "grad"));
  const ins = n.inputs.filter((s) => s !== null && s !== undefined);
  if (ins.length) rows.push(["inputs", ins.map((id) => describe(r, id)).join(", ")]);
  const outs = r.consumers.get(n.id) || [];
  if (outs.length) rows.push(["used by", outs.slice(0, 20).map((id) => describe(r, id)).join(", ") + (outs.length > 20 ? ", …" : "")]);
  const table = document.createElement("table");
  for (const [k, v, cls] of rows) {
    const tr = table.insertRow();
    const th = document.createElement("th"); th.textContent = k; tr.appendChild(th);
    const td = tr.insertCell(); td.textContent = v; if (cls) td.className = cls;
  }
  $("detail").replaceChildren(table);
}

function select(r, n) {
  r.selected = n;
  if (n) showDetail(r, n); else $("detail").textContent = "click a node to see its value and gradient";
  if (n && n.line) markLine(r, n.line, true); else if (r.markedLine) markLine(r, null);
  showTensors(r, n);
  redraw();
}

function hideBanner() { $("banner").hidden = true; $("banner").replaceChildren(); }

function showBanner(kind, title, message, pre) {
  const b = $("banner");
  b.className = kind === "note" ? "note" : "";
  const t = document.createElement("span"); t.className = "title"; t.textContent = title;
  b.replaceChildren(t, message ? ` ${message}` : "");
  if (pre) { const p = document.createElement("pre"); p.textContent = pre; b.appendChild(p); }
  const close = document.createElement("button");
  close.className = "close"; close.title = "hide"; close.textContent = "×";
  close.addEventListener("click", hideBanner);
  b.prepend(close);
  b.hidden = false;
}

function showError(r, err) {
  const e = err || {};
  const where = e.line ? ` at line ${e.line}, col ${e.col}` : "";
  const extra = [];
  const src = r ? sourceLine(r, e.line) : null;
  if (src !== null) {
    extra.push(`${String(e.line).padStart(4)} | ${src}`);
    if (e.col) extra.push(`${" ".repeat(4)} | ${" ".repeat(Math.max(0, e.col - 1))}^`);
  }
  const frames = Array.isArray(e.traceback) ? e.traceback : [];
  if (frames.length > 1) {
    // as Python prints it: a frame repeated (recursion) once with its count, and a long stack cut in the middle
    const lines = [];
    for (let i = 0; i < frames.length;) {
      const f = frames[i];
      let j = i + 1;
      while (j < frames.length && frames[j].line === f.line && frames[j].col === f.col && frames[j].function === f.function) j++;
      const line = r ? sourceLine(r, f.line) : null;
      lines.push(`  line ${String(f.line).padEnd(4)} col ${String(f.col).padEnd(3)} in ${f.function || "?"}${line !== null ? `:  ${line.trim()}` : ""}`);
      if (j - i > 1) lines.push(`  [previous frame repeated ${j - i - 1} more times]`);
      i = j;
    }
    const cut = lines.length > 14 ? [...lines.slice(0, 4), `  … ${lines.length - 10} more frames …`, ...lines.slice(-6)] : lines;
    extra.push("traceback (innermost last):", ...cut);
  }
  if (e.limit) extra.push(`limit: ${e.limit}`);
  showBanner("error", `${e.type || "Error"}${where}:`, e.message || "", extra.join("\n"));
}

// ------------------------------------------------------------------ the program: source lines <-> nodes
const breakpoints = new Map();  // line -> condition ("" for none); sent with debug runs and to a paused run

let sourceIsDraft = false;  // the program panel shows the editor's text (what Run sends), not the run on screen

function draftShown(r) {
  // while the editor is open the panel shows what Run will send, so that the gutter's breakpoints go on the
  // lines that will run; a run going or paused keeps its own text there (its nodes and pause point into it)
  if ($("editor").hidden || (r && (r.state === "running" || r.state === "paused"))) return false;
  return !r || r.program !== $("program").value;
}

function showSource(r) {
  const box = $("source");
  sourceIsDraft = draftShown(r);
  const text = sourceIsDraft ? $("program").value : r && r.program;
  $("source-note").textContent = sourceIsDraft ? "the editor's (breakpoints go on these lines)"
    : r ? (text ? `run ${r.id}` : `run ${r.id} (its text was not sent)`) : "";
  if (!text) { box.replaceChildren(Object.assign(document.createElement("div"), { className: "hint-line", textContent: "the program of the run on screen shows here" })); return; }
  const frag = document.createDocumentFragment();
  text.split("\n").forEach((line, i) => {
    const row = document.createElement("div");
    row.className = "ln"; row.dataset.line = String(i + 1); row.setAttribute("role", "listitem");
    const g = document.createElement("span"); g.className = "gutter"; g.textContent = String(i + 1); g.title = "set or clear a breakpoint (right-click: with a condition)";
    const c = document.createElement("span"); c.className = "code"; c.textContent = line || " ";
    row.append(g, c);
    frag.appendChild(row);
  });
  box.replaceChildren(frag);
  refreshSourceMarks(r);
}

function sourceRow(line) { return $("source").querySelector(`.ln[data-line="${line}"]`); }

function refreshSourceMarks(r) {
  if (sourceIsDraft) r = null;  // the run's nodes and pause point into another text
  const withNodes = new Set();
  if (r) for (const n of r.nodes.values()) if (n.line) withNodes.add(n.line);
  for (const row of $("source").querySelectorAll(".ln")) {
    const line = Number(row.dataset.line);
    row.classList.toggle("has-nodes", withNodes.has(line));
    row.classList.toggle("bp", breakpoints.has(line));
    row.classList.toggle("cond", !!breakpoints.get(line));
    row.classList.toggle("marked", !!r && r.markedLine === line);
    row.classList.toggle("paused", !!r && !!r.paused && r.paused.line === line);
    const cond = breakpoints.get(line);
    row.title = cond ? `breakpoint if ${cond}` : "";
    const g = row.firstChild, code = row.lastChild;
    if (code) { if (cond) code.dataset.cond = cond; else delete code.dataset.cond; }   // shown after the line (CSS)
    if (g) g.title = cond ? `breakpoint if ${cond} (click: clear; right-click: change the condition)`
      : breakpoints.has(line) ? "breakpoint (click: clear; right-click: add a condition)"
      : "set or clear a breakpoint (right-click: with a condition)";
  }
}

function markLine(r, line, scroll) {
  // a line's nodes outlined in the graph, the line itself highlighted in the program
  r.markedLine = line;
  r.lineNodes = line ? new Set([...r.nodes.values()].filter((n) => n.line === line)) : null;
  refreshSourceMarks(r);
  const row = line && sourceRow(line);
  if (row && scroll) row.scrollIntoView({ block: "nearest" });
  redraw();
}

function onSourceClick(e) {
  const row = e.target.closest(".ln");
  if (!row) return;
  const line = Number(row.dataset.line);
  if (e.target.classList.contains("gutter")) { toggleBreakpoint(line, null); return; }
  if (!run || sourceIsDraft) return;
  if (run.markedLine === line) { markLine(run, null); return; }
  markLine(run, line, false);
  const first = [...run.lineNodes].find((n) => n.rep);
  if (first) { setFollow(false); centreOn(first.rep); }
}

function toggleBreakpoint(line, condition) {
  if (condition === null && breakpoints.has(line)) breakpoints.delete(line);
  else breakpoints.set(line, condition || "");
  refreshSourceMarks(run);
  if (run && run.paused) debugCommand("breakpoints", { breakpoints: breakpointList() });
}

function breakpointList() {
  return [...breakpoints].map(([line, condition]) => (condition ? { line, condition } : { line }));
}

function centreOn(b) {
  const w = canvas.clientWidth / view.zoom, h = canvas.clientHeight / view.zoom;
  view.x = b.x + boxW(b) / 2 - w / 2; view.y = b.y + boxH(b) / 2 - h / 2;
  redraw();
}

// ------------------------------------------------------------------ tensors: the full value and gradient of a node
const tensorCache = new Map();  // `${run}/${node}` -> the answer of GET /nodes/{id}

async function fetchTensors(r, n) {
  const key = `${r.id}/${n.id}`;
  if (tensorCache.has(key)) return tensorCache.get(key);
  const res = await fetch(`/v1/sessions/${encodeURIComponent(conn.id)}/nodes/${n.id}?run=${encodeURIComponent(r.id)}`,
    { headers: { Authorization: `Bearer ${conn.token}` } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error((body.error && body.error.message) || `HTTP ${res.status}`);
  if (tensorCache.size > 20) tensorCache.delete(tensorCache.keys().next().value);
  tensorCache.set(key, body);
  return body;
}

function tensorFigure(label, t, colour) {
  const flat = GradDraw.flatten(t.data);
  const s = GradDraw.stats(flat);
  const fig = document.createElement("figure");
  const cap = document.createElement("figcaption");
  cap.textContent = `${label} ${shapeText(t.shape)}  min ${fmt(s.min)}  max ${fmt(s.max)}  mean ${fmt(s.mean)}  norm ${fmt(s.norm)}`
    + (s.nonfinite ? `  ${s.nonfinite} NaN/Inf` : "");
  fig.appendChild(cap);
  if (t.shape.length >= 2 || (t.shape.length === 1 && t.shape[0] > 1)) {
    const hm = document.createElement("canvas");
    hm.className = "heatmap"; hm.dataset.of = label;
    const info = GradDraw.heatmap(hm, flat, t.shape, { width: 300 });
    hm.title = `${info.rows}×${info.cols}${info.blocks[0] * info.blocks[1] > 1 ? ` (blocks of ${info.blocks.join("×")} averaged)` : ""}, ±${fmt(info.scale)}`;
    fig.appendChild(hm);
  }
  const hist = document.createElement("canvas");
  hist.className = "histogram"; hist.dataset.of = label;
  GradDraw.histogram(hist, flat, { width: 300, colour });
  fig.appendChild(hist);
  return fig;
}

async function showTensors(r, n) {
  const box = $("tensors");
  box.replaceChildren();
  if (!n || !conn.id || n.group) return;
  if (r.state === "running" || r.state === "paused") {
    // the session is busy with the run (or holds it paused): its nodes' tensors come once it has ended
    box.textContent = "the full value and gradient come when the run has finished (a paused run answers eval)";
    return;
  }
  box.textContent = "fetching the tensors…";
  try {
    const body = await fetchTensors(r, n);
    if (r.selected !== n) return;
    box.replaceChildren();
    if (body.value) box.appendChild(tensorFigure("value", body.value, "#5b7fc7"));
    if (body.grad) box.appendChild(tensorFigure("gradient", body.grad, PALETTE.grad));
  } catch (e) {
    if (r.selected === n) box.textContent = `no tensors: ${e.message}`;
  }
}

// ------------------------------------------------------------------ diff: what a run's graph changed since the last one
let previousStructure = null;  // {keys: Map(key -> description)} of the last finished run

function structureKey(n) { return `${n.module ?? ""}|${n.kind === "leaf" ? `leaf:${n.name || ""}:${shapeText(n.shape)}` : `${n.op}@${n.line}`}`; }

function structureOf(r) {
  const keys = new Map();
  for (const n of r.nodes.values()) {
    if (n.kind === "output" || (n.kind === "leaf" && !n.requires_grad)) continue;
    const k = structureKey(n);
    if (!keys.has(k)) keys.set(k, `${n.module ? `${n.module}: ` : ""}${nodeTitle(n)}${n.line ? ` (line ${n.line})` : ""} ${shapeText(n.shape)}`);
  }
  return { keys };
}

function runEnded(r) {
  r.paused = null;
  if (r.selected && !r.selected.group) setTimeout(() => { if (run === r) showTensors(r, r.selected); }, 0);
  $("debugger").hidden = true;
  refreshSourceMarks(r);
  const now = structureOf(r);
  if (previousStructure && r.nodes.size) {
    const added = new Set([...r.nodes.values()].filter((n) => now.keys.has(structureKey(n)) && !previousStructure.keys.has(structureKey(n))));
    const removed = [...previousStructure.keys].filter(([k]) => !now.keys.has(k)).map(([, d]) => d);
    const kinds = new Map();
    for (const n of added) { const k = structureKey(n); kinds.set(k, [now.keys.get(k), (kinds.get(k)?.[1] || 0) + 1]); }
    r.diff = added.size || removed.length ? { added, kinds, removed } : null;
  }
  if (r.nodes.size) previousStructure = now;
  const b = $("diff");
  b.hidden = !r.diff;
  if (r.diff) b.textContent = `diff: +${r.diff.kinds.size} −${r.diff.removed.length}`;
  b.classList.toggle("on", view.diff && !!r.diff);
}

function toggleDiff() {
  view.diff = !view.diff;
  $("diff").classList.toggle("on", view.diff);
  if (view.diff && run && run.diff) {
    const table = document.createElement("table");
    const row = (k, v, cls) => { const tr = table.insertRow(); const th = document.createElement("th"); th.textContent = k; tr.appendChild(th); const td = tr.insertCell(); td.textContent = v; if (cls) td.className = cls; };
    row("changed", "since the previous run (added: outlined green)");
    for (const [desc, count] of [...run.diff.kinds.values()].slice(0, 30)) row("added", `${desc}${count > 1 ? ` ×${count}` : ""}`, "added");
    for (const d of run.diff.removed.slice(0, 30)) row("removed", d, "removed");
    $("detail").replaceChildren(table);
  } else if (run) select(run, run.selected);
  redraw();
}

// ------------------------------------------------------------------ the debugger (SPEC section 4: paused, debug, evaluated)
function debugCommand(command, extra = {}) {
  if (!conn.ws || conn.ws.readyState !== WebSocket.OPEN || !run || !run.paused) return;
  conn.ws.send(JSON.stringify({ type: "debug", id: run.id, command, ...extra }));
  if (["continue", "step", "next", "out", "cancel"].includes(command)) {
    run.paused = null; run.state = "running";
    $("debugger").classList.add("resuming");
    refreshSourceMarks(run);
  }
}

function valueText(v) {
  if (v && typeof v === "object" && ("min" in v || "shape" in v)) {  // a tensor summary
    const head = Array.isArray(v.head) ? ` [${v.head.map((x) => fmt(x)).join(", ")}${numel(v.shape) > v.head.length ? ", …" : ""}]` : "";
    return `${v.shape ? `tensor ${shapeText(v.shape)} ${v.dtype || ""} ` : ""}min ${fmt(v.min)} max ${fmt(v.max)} mean ${fmt(v.mean)}${head}`;
  }
  if (v && typeof v === "object" && "repr" in v) return String(v.repr);
  return typeof v === "string" ? v : JSON.stringify(v);
}

function showPauseWhy(ev) {
  // what stopped the run: a post-mortem's exception, an anomaly's op (forward, or the backward node and the
  // line whose op made it) with the summaries of what went in and what came out
  const box = $("pause-why");
  const table = document.createElement("table");
  const row = (k, v, cls) => { const tr = table.insertRow(); const th = document.createElement("th"); th.textContent = k; tr.appendChild(th); const td = tr.insertCell(); td.textContent = v; if (cls) td.className = cls; };
  const e = ev.exception, n = ev.node && typeof ev.node === "object" ? ev.node : null;
  if (ev.reason === "exception" && e) row("raised", `${e.type || "Error"}: ${e.message || ""}`, "err");
  const c = ev.condition_error && typeof ev.condition_error === "object" ? ev.condition_error : null;
  if (ev.reason === "breakpoint" && c) row("condition failed", `${c.condition || ""} → ${c.type || "Error"}: ${c.message || ""}`, "err");
  if (ev.reason === "anomaly" && n) {
    row("NaN/Inf", `${n.op || "an op"} · ${n.phase || ""}${n.line ? ` · made at line ${n.line}` : ""}`, "err");
    (n.inputs || []).forEach((s, i) => { if (s) row(n.phase === "backward" ? "gradient in" : `input ${i}`, valueText(s)); });
    if (n.output) row("output", valueText(n.output), "err");
    (n.grads || []).forEach((s, i) => { if (s) row(`gradient ${i}`, valueText(s), (n.nonfinite || []).includes(i) ? "err" : ""); });
  }
  box.hidden = !table.rows.length;
  box.replaceChildren(table);
}

function onPaused(ev) {
  const r = runFor(ev);
  r.paused = ev; r.state = "paused";
  $("debugger").hidden = false;
  $("debugger").classList.remove("resuming");
  $("pause-reason").textContent = `${ev.reason || ""} · line ${ev.line}${ev.col ? `, col ${ev.col}` : ""}`;
  const stack = document.createElement("table");
  for (const f of [...(ev.stack || [])].reverse()) {
    const tr = stack.insertRow();
    const th = document.createElement("th"); th.textContent = f.function || "<module>"; tr.appendChild(th);
    const td = tr.insertCell(); td.textContent = `line ${f.line}${sourceLine(r, f.line) !== null ? `: ${sourceLine(r, f.line).trim()}` : ""}`;
  }
  $("stack").replaceChildren(stack);
  showPauseWhy(ev);
  const locals = document.createElement("table");
  for (const [k, v] of Object.entries(ev.locals || {})) {
    const tr = locals.insertRow();
    const th = document.createElement("th"); th.textContent = k; tr.appendChild(th);
    const td = tr.insertCell(); td.textContent = valueText(v);
  }
  $("locals").replaceChildren(locals);
  // a local tensor that is an unnamed leaf on screen (x = torch.randn(...) before the run names it) gets its name
  for (const [k, v] of Object.entries(ev.locals || {})) {
    if (!v || typeof v !== "object" || !Array.isArray(v.shape) || !Array.isArray(v.head)) continue;
    const same = (n) => n.kind === "leaf" && !n.name && n.value && JSON.stringify(n.shape) === JSON.stringify(v.shape)
      && JSON.stringify(n.value.head) === JSON.stringify(v.head) && n.value.min === v.min && n.value.max === v.max;
    const hits = [...r.nodes.values()].filter(same);
    if (hits.length === 1) { hits[0].name = k; r.structureDirty = true; }
  }
  // an anomaly: the node that made the NaN, outlined in red with its inputs
  r.anomaly = null; r.anomalyInputs = new Set();
  if (ev.reason === "anomaly") {
    // the node comes as its id, or as {id?, op (its grad_fn name), phase, line, inputs}
    const info = ev.node && typeof ev.node === "object" ? ev.node : null;
    let n = ev.node !== undefined && ev.node !== null ? r.nodes.get(info ? info.id : ev.node) || null : null;
    if (!n && info) {
      const fits = (m) => m.kind === "op" && (!info.op || m.grad_fn === info.op || m.op === info.op)
        && (info.line === null || info.line === undefined || m.line === info.line);
      // forward: the op just made; backward: the node the gradient just reached
      n = info.phase === "backward" && r.lastGrad && fits(r.lastGrad) ? r.lastGrad
        : [...r.nodes.values()].reverse().find(fits) || null;
    }
    if (!n) {
      const bad = (s) => s && ["min", "max", "mean"].some((k) => typeof s[k] === "string");
      n = [...r.nodes.values()].reverse().find((m) => m.line === ev.line && (bad(m.value) || bad(m.grad)))
        || [...r.nodes.values()].reverse().find((m) => bad(m.value) || bad(m.grad)) || null;
    }
    if (n) {
      r.anomaly = n;
      r.anomalyInputs = new Set(n.inputs.map((id) => r.nodes.get(id)).filter(Boolean));
      select(r, n);
      if (n.rep) { setFollow(false); centreOn(n.rep); }
    }
  }
  const row = sourceRow(ev.line);
  refreshSourceMarks(r);
  if (row) row.scrollIntoView({ block: "nearest" });
  printLine(`— paused (${ev.reason}) at line ${ev.line}`, "meta");
  redraw();
}

function onEvaluated(ev) {
  const out = $("eval-out");
  const line = document.createElement("div");
  if (ev.error) { line.className = "err"; line.textContent = `${ev.error.type || "Error"}: ${ev.error.message || ""}`; }
  else if (ev.command === "exec") { line.className = "done"; line.textContent = "ok"; }  // statements have no value
  else line.textContent = valueText(ev.value);
  out.appendChild(line);
  while (out.childNodes.length > 50) out.removeChild(out.firstChild);
  out.scrollTop = out.scrollHeight;
}

function onDebugError(ev) {
  const e = ev.error || {};
  const line = document.createElement("div");
  line.className = "err";
  line.textContent = `${e.type || "Error"}${e.command ? ` (${e.command})` : ""}: ${e.message || ""}`;
  $("eval-out").appendChild(line);
  printLine(`— ${line.textContent}`, "err");
  // a breakpoint the run refused (a line with no code, a condition that is not an expression) leaves the gutter
  if (e.command === "breakpoints" && Number.isInteger(e.line) && breakpoints.has(e.line)) {
    breakpoints.delete(e.line);
    refreshSourceMarks(run);
  }
}

function installDebugger() {
  // (cancel: a paused run's watchers may end it, SPEC section 4, where the Cancel button is the page's own runs')
  for (const c of ["continue", "step", "next", "out", "cancel"]) $(`dbg-${c}`).addEventListener("click", () => debugCommand(c));
  $("eval-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const expr = $("eval").value.trim();
    if (!expr || !run || !run.paused) return;
    const echo = document.createElement("div"); echo.className = "meta"; echo.textContent = `» ${expr}`;
    $("eval-out").appendChild(echo);
    if (expr.startsWith("!")) debugCommand("exec", { code: expr.slice(1) }); else debugCommand("eval", { expr });
  });
  $("source").addEventListener("click", onSourceClick);
  $("source").addEventListener("contextmenu", (e) => {
    const row = e.target.closest(".ln");
    if (!row || !e.target.classList.contains("gutter")) return;
    e.preventDefault();
    const line = Number(row.dataset.line);
    const cond = window.prompt(`break at line ${line} when (empty: always)`, breakpoints.get(line) || "");
    if (cond !== null) toggleBreakpoint(line, cond.trim());
  });
  document.addEventListener("keydown", (e) => {
    // function keys type nothing, so they work from the eval box too (where focus stays after Enter)
    if (!run || !run.paused) return;
    const keys = { F8: "continue", F10: "next", F11: e.shiftKey ? "out" : "step" };
    if (keys[e.key]) { e.preventDefault(); debugCommand(keys[e.key]); }
  });
}

// ------------------------------------------------------------------ events (SPEC section 4)
function onEvent(ev) {
  switch (ev.type) {
    case "started": {
      const r = startRun(ev.run);
      if (typeof ev.program === "string") r.program = ev.program;
      showSource(r);
      printLine(`— run ${ev.run} started`, "meta");
      break;
    }
    case "node": addNode(runFor(ev), ev.node); break;
    case "module": {  // a module call, announced before the first node its forward makes
      const r = runFor(ev);
      r.calls.set(ev.call, { call: ev.call, path: ev.path, class: ev.class, parent: ev.parent, name: ev.name });
      r.structureDirty = true;
      break;
    }
    case "names": {  // after the run: the nodes that hold the program's variables
      const r = runFor(ev);
      for (const [id, name] of Object.entries(ev.names || {})) {
        const n = r.nodes.get(Number(id));
        if (n && !n.name) { n.name = name; if (n.kind === "op") n.isOutput = true; r.dirty.add(n); }
      }
      break;
    }
    case "backward": {
      const r = runFor(ev);
      r.backward++;
      const n = r.nodes.get(ev.node);
      if (n) { n.grad = ev.grad; r.dirty.add(n); r.lastGrad = n; }
      break;
    }
    case "stdout": printLine(ev.text || ""); break;
    case "log": {
      const r = runFor(ev);
      r.metrics = ev.metrics || {};
      printLine(`log ${Object.entries(r.metrics).map(([k, v]) => `${k}=${metricText(v)}`).join("  ")}`, "log");
      break;
    }
    case "dropped": {  // counted in the status line; said once per run here
      const r = runFor(ev);
      if (!r.skipped.node && !r.skipped.backward && !r.skipped.log) {
        printLine("(the server is coalescing this run's node, backward and log events to keep up; counts above)", "meta");
      }
      r.skipped.node += ev.node || 0; r.skipped.backward += ev.backward || 0; r.skipped.log += ev.log || 0;
      break;
    }
    case "result": {
      const r = runFor(ev);
      r.state = "done"; r.elapsed = ev.elapsed_ms;
      if (ev.graph) mergeGraph(r, ev.graph); else if (ev.values) nameFromValues(r, ev.values);
      runEnded(r);
      printLine(`— run ${ev.run} finished in ${fmt(ev.elapsed_ms)} ms`, "meta");
      ownRunEnded(ev.run);
      view.dirty = true;
      break;
    }
    case "error":
      // a debug command the run refused (bad expression, a line with no code...): the run goes on as it was
      if ("paused" in ev || (ev.error && ev.error.type === "DebugError")) onDebugError(ev); else onError(ev);
      break;
    case "paused": onPaused(ev); break;
    case "evaluated": onEvaluated(ev); break;
    case "resumed": {  // whoever resumed it (this page or another watcher)
      const r = runFor(ev);
      r.paused = null; r.state = "running";
      $("debugger").hidden = true;
      refreshSourceMarks(r);
      break;
    }
    case "breakpoints": {  // the paused run's breakpoints as it took them
      if (Array.isArray(ev.breakpoints)) {
        breakpoints.clear();
        for (const b of ev.breakpoints) if (b && Number.isInteger(b.line)) breakpoints.set(b.line, b.condition || "");
        refreshSourceMarks(runFor(ev));
      }
      break;
    }
    case "cancelled": {
      const r = runFor(ev);
      r.state = "cancelled";
      r.paused = null; $("debugger").hidden = true;
      printLine(`— run ${ev.run} cancelled`, "meta");
      ownRunEnded(ev.run);
      view.dirty = true;
      break;
    }
    default: return;  // pong and event types this page does not know
  }
  schedule();
}

function onError(ev) {
  const e = ev.error || {};
  const text = `${e.type || "Error"}${e.line ? ` (line ${e.line}, col ${e.col})` : ""}: ${e.message || ""}`;
  printLine(`— error ${text}`, "err");
  if (ev.run === null || ev.run === undefined) {  // about the connection, not a run
    showBanner("note", `${e.type || "Error"}:`, e.message || "");
    return;
  }
  ownRunEnded(ev.run);
  if (!run || run.id !== ev.run) {
    if (ev.status) { showBanner("note", `run not started (${ev.status} ${e.type || ""}):`, e.message || ""); return; }
    startRun(ev.run);
  }
  run.state = "error";
  run.error = e;
  view.dirty = true;
  runEnded(run);
  showError(run, e);
}

function mergeGraph(r, g) {
  // The final graph of a run asked with "graph": true: it names variables and fills in what the stream coalesced.
  for (const m of g.modules || []) {
    if (!r.calls.has(m.call)) { r.calls.set(m.call, m); r.structureDirty = true; }
  }
  const inputsOf = new Map();
  for (const e of g.edges) {
    if (!inputsOf.has(e.to)) inputsOf.set(e.to, []);
    inputsOf.get(e.to)[e.input_index] = e.from;
  }
  for (const raw of g.nodes) {
    if (raw.kind === "output") {
      const src = (inputsOf.get(raw.id) || []).find((s) => s !== undefined);
      const target = src !== undefined ? r.nodes.get(src) : matchLeaf(r, raw);
      if (target) {  // an output is the tensor an op (or leaf) made: label that node rather than draw a copy
        if (raw.name && !target.name) target.name = raw.name;
        if (src !== undefined) target.isOutput = true;
        if (raw.grad) target.grad = raw.grad;
        r.dirty.add(target);
        continue;
      }
    }
    const ins = Array.from(inputsOf.get(raw.id) || [], (s) => (s === undefined ? null : s));
    const n = addNode(r, Object.assign({}, raw, { inputs: ins }));
    if (!n) continue;
    ins.forEach((s, i) => {
      if (s === null) return;
      if (n.inputs[i] === null || n.inputs[i] === undefined) n.inputs[i] = s;
      addConsumer(r, s, n.id);
    });
    r.structureDirty = true;
  }
}

function matchLeaf(r, out) {
  // a named input that no op produced (x, target): the one unnamed leaf holding exactly its values
  const hits = [];
  const shape = JSON.stringify(out.shape), value = JSON.stringify(out.value);
  for (const n of r.nodes.values()) {
    if (n.kind === "leaf" && out.name && n.name === out.name) return n;  // named already (the names event)
    if (n.kind === "leaf" && !n.name && out.value && JSON.stringify(n.shape) === shape && JSON.stringify(n.value) === value) hits.push(n);
  }
  return hits.length === 1 ? hits[0] : null;
}

function flatNumbers(data, out) {
  if (Array.isArray(data)) { for (const d of data) if (!flatNumbers(d, out)) return false; return true; }
  const v = typeof data === "boolean" ? Number(data) : data;
  if (typeof v !== "number") return false;  // NaN / Infinity strings: leave such values unnamed
  out.push(v);
  return true;
}

function nameFromValues(r, values) {
  // Without the final graph, name a node when one variable's value is exactly what that node computed:
  // same shape, same first values, same min, max and mean.
  const close = (a, b) => typeof a === "number" && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  for (const [name, t] of Object.entries(values)) {
    if (!t || typeof t !== "object" || !Array.isArray(t.shape) || t.data === undefined || numel(t.shape) > 100000) continue;
    const flat = [];
    if (!flatNumbers(t.data, flat) || !flat.length) continue;
    let lo = Infinity, hi = -Infinity, sum = 0;
    for (const v of flat) { lo = Math.min(lo, v); hi = Math.max(hi, v); sum += v; }
    const m = sum / flat.length, shape = JSON.stringify(t.shape);
    let hit = null, count = 0;
    for (const n of r.nodes.values()) {
      const s = n.value;
      if (!s || n.name || JSON.stringify(n.shape) !== shape || !Array.isArray(s.head)) continue;
      if (!s.head.every((v, i) => v === flat[i]) || !close(s.min, lo) || !close(s.max, hi) || !close(s.mean, m)) continue;
      count++;
      if (!hit || n.id > hit.id) hit = n;  // the same value made twice (a copy): the later one is the variable
    }
    if (hit && (count === 1 || hit.kind === "op")) {
      hit.name = name;
      if (hit.kind === "op") hit.isOutput = true;
      r.dirty.add(hit);
    }
  }
}

// ------------------------------------------------------------------ connection
const conn = { ws: null, kind: "off", id: "", token: "", retries: 0, timer: null, ownRun: null, runSeq: 0 };

function setConn(kind, text) {
  conn.kind = kind;
  const el = $("conn");
  el.className = `conn ${kind}`;
  el.textContent = text;
  refreshButtons();
}

function refreshButtons() {
  const live = conn.kind === "live";
  $("run").disabled = !live || !!conn.ownRun;
  $("cancel").disabled = !live || !conn.ownRun;
}

function streamUrl(id) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/v1/sessions/${encodeURIComponent(id)}/stream`;
}

function watch(id, token) {
  conn.id = id; conn.token = token; conn.retries = 0; conn.wasLive = false;
  // the token stays with this tab (reloads reconnect) but leaves the address bar, where anyone watching could read it
  try { sessionStorage.setItem(`gradserve.token.${id}`, token); } catch (_) { /* storage disabled */ }
  history.replaceState(null, "", `${location.pathname}${location.search}#session=${encodeURIComponent(id)}`);
  openStream();
}

function openStream() {
  clearTimeout(conn.timer);
  if (conn.ws) { conn.ws.onclose = null; conn.ws.close(); conn.ws = null; }
  setConn("wait", conn.retries ? `reconnecting to ${conn.id}…` : `connecting to ${conn.id}…`);
  const ws = new WebSocket(streamUrl(conn.id));
  conn.ws = ws;
  ws.onopen = () => {
    // the token travels in the first message, not the URL (which servers and proxies log)
    ws.send(JSON.stringify({ token: conn.token, type: "watch" }));
    ws.send(JSON.stringify({ type: "ping" }));  // its pong says the token was accepted
  };
  ws.onmessage = (m) => {
    let ev;
    try { ev = JSON.parse(m.data); } catch (_) { return; }
    if (ev.type === "pong" && conn.ws === ws) {
      if (conn.retries) printLine("— reconnected; events sent while disconnected are not shown", "meta");
      conn.retries = 0;
      conn.wasLive = true;
      if ($("banner").className === "note") hideBanner();  // an earlier refusal no longer applies
      setConn("live", `watching ${conn.id}`);
      return;
    }
    onEvent(ev);
  };
  ws.onclose = (e) => {
    if (conn.ws !== ws) return;
    conn.ws = null;
    conn.ownRun = null;
    const why = e.code === 4404 && conn.wasLive ? "the session has ended (expired, deleted or the server restarted)"
      : CLOSE_REASONS[e.code] || `closed (${e.code})`;
    if (FATAL_CLOSES.has(e.code)) { setConn("bad", why); return; }
    const delay = Math.min(10000, 500 * 2 ** conn.retries);
    conn.retries++;
    setConn("wait", `${why}; reconnecting in ${Math.ceil(delay / 1000)} s`);
    conn.timer = setTimeout(openStream, delay);
  };
}

function ownRunEnded(id) {
  if (conn.ownRun !== id) return;
  conn.ownRun = null;
  refreshButtons();
}

function runProgram() {
  if (!conn.ws || conn.ws.readyState !== WebSocket.OPEN || conn.ownRun) return;
  const id = `viewer-${Date.now().toString(36)}-${++conn.runSeq}`;
  // the editor's text when it is open, otherwise the program on screen again
  const program = $("editor").hidden && run && run.program ? run.program : $("program").value;
  programs.set(id, program);
  if (programs.size > 50) programs.delete(programs.keys().next().value);
  conn.ownRun = id;
  refreshButtons();
  const message = { type: "run", id, program, trace: true, graph: true };
  if ($("debug").checked) Object.assign(message, { debug: true, breakpoints: breakpointList(), pause_on: ["exception", "anomaly"] });
  conn.ws.send(JSON.stringify(message));
}

// ------------------------------------------------------------------ zoom, pan, follow
function setZoom(z, ax, ay) {
  z = Math.min(3, Math.max(0.004, z));
  if (ax === undefined) { ax = canvas.clientWidth / 2; ay = canvas.clientHeight / 2; }
  const wx = view.x + ax / view.zoom, wy = view.y + ay / view.zoom;  // the point under the cursor stays put
  view.zoom = z;
  view.x = wx - ax / z; view.y = wy - ay / z;
  $("zoom-level").textContent = `${Math.round(z * 100)}%`;
  redraw();
}

function fit() {
  if (!run || !run.box.any) return;
  const b = contentBox(run), w = canvas.clientWidth, h = canvas.clientHeight;
  const z = Math.min(1.5, Math.max(0.004, Math.min(w / b.w, h / b.h)));
  setZoom(z);
  view.x = b.x0 - (w / z - b.w) / 2;
  view.y = b.y0;
  redraw();
}

function panBy(dx, dy) {
  view.x += dx / view.zoom; view.y += dy / view.zoom;
  redraw();
}

function setFollow(on) {
  view.follow = on;
  $("follow").checked = on;
  if (on && run) { run.followed = null; schedule(); }
}

function installControls() {
  $("zoom-in").addEventListener("click", () => setZoom(view.zoom * 1.25));
  $("zoom-out").addEventListener("click", () => setZoom(view.zoom / 1.25));
  $("zoom-reset").addEventListener("click", () => setZoom(1));
  $("zoom-fit").addEventListener("click", () => { setFollow(false); fit(); });
  $("follow").addEventListener("change", (e) => setFollow(e.target.checked));
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const rect = canvas.getBoundingClientRect();
    if (e.ctrlKey || e.metaKey) setZoom(view.zoom * Math.exp(-e.deltaY * 0.002), e.clientX - rect.left, e.clientY - rect.top);
    else {
      if (view.follow) setFollow(false);  // the user looks elsewhere: stop pulling the view to new nodes
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? canvas.clientHeight : 1;
      panBy((e.shiftKey ? e.deltaY : e.deltaX) * unit, (e.shiftKey ? 0 : e.deltaY) * unit);
    }
  }, { passive: false });
  let drag = null;
  canvas.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, moved: false };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener("pointermove", (e) => {
    if (drag) {
      if (!drag.moved && Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 3) {
        drag.moved = true; canvas.classList.add("dragging"); setFollow(false);
      }
      if (drag.moved) { panBy(drag.x - e.clientX, drag.y - e.clientY); drag.x = e.clientX; drag.y = e.clientY; }
      return;
    }
    const n = nodeAt(e.offsetX, e.offsetY);
    if (n !== view.hover) { view.hover = n; canvas.classList.toggle("over-node", !!n); redraw(); }
  });
  canvas.addEventListener("pointerleave", () => { if (view.hover) { view.hover = null; redraw(); } });
  const endDrag = (e) => {
    if (!drag) return;
    if (!drag.moved && run) {  // a click: fold or unfold a box, pick a node, or clear
      const hit = nodeAt(e.offsetX, e.offsetY);
      if (hit && hit.group) toggleFold(run, hit); else select(run, hit);
    }
    drag = null;
    canvas.classList.remove("dragging");
    if (canvas.hasPointerCapture(e.pointerId)) canvas.releasePointerCapture(e.pointerId);
  };
  canvas.addEventListener("pointerup", endDrag);
  canvas.addEventListener("pointercancel", (e) => { drag = null; canvas.classList.remove("dragging"); });
  $("canvas").addEventListener("keydown", (e) => {
    const step = 80;
    const keys = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (keys[e.key]) { e.preventDefault(); setFollow(false); panBy(...keys[e.key]); }
    else if (e.key === "+" || e.key === "=") setZoom(view.zoom * 1.25);
    else if (e.key === "-") setZoom(view.zoom / 1.25);
    else if (e.key === "f") { setFollow(false); fit(); }
    else if (e.key === "0") setZoom(1);
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && run) select(run, null); });
  new ResizeObserver(() => redraw()).observe(canvas);
  $("watch-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const id = $("session").value.trim(), token = $("token").value.trim();
    if (!id || !token) { setConn("bad", "a session id and its token are needed"); return; }
    watch(id, token);
  });
  $("run").addEventListener("click", runProgram);
  $("diff").addEventListener("click", toggleDiff);
  $("edit").addEventListener("click", () => {
    const ed = $("editor");
    ed.hidden = !ed.hidden;
    $("edit").textContent = ed.hidden ? "edit" : "hide editor";
    if (!ed.hidden) { if (run && run.program) $("program").value = run.program; $("program").focus(); }
    showSource(run);
  });
  let redrawSource = 0;
  $("program").addEventListener("input", () => {  // the panel follows the text as it is typed
    clearTimeout(redrawSource);
    redrawSource = setTimeout(() => { if (!(run && (run.state === "running" || run.state === "paused"))) showSource(run); }, 80);
  });
  $("cancel").addEventListener("click", () => {
    if (conn.ws && conn.ownRun) conn.ws.send(JSON.stringify({ type: "cancel", id: conn.ownRun }));
  });
  $("program").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); runProgram(); }
  });
  window.addEventListener("online", () => { if (conn.id && !conn.ws) { conn.retries = 1; openStream(); } });
  setInterval(() => { if (run && run.state === "running") updateStatus(); }, 250);
}

function watchFromAddress() {
  // #session=<id>&token=<token> fills the form and connects (the fragment never reaches the server)
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("session");
  let token = params.get("token");
  if (id && !token) { try { token = sessionStorage.getItem(`gradserve.token.${id}`); } catch (_) { token = null; } }
  if (id) $("session").value = id;
  if (id && token && (id !== conn.id || token !== conn.token || !conn.ws)) { $("token").value = token; watch(id, token); }
}

installControls();
installDebugger();
window.addEventListener("hashchange", watchFromAddress);
watchFromAddress();
