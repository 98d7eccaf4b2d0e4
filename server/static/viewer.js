// gradserve viewer: watches a session over its WebSocket (SPEC section 4) and draws each run's graph
// (SPEC section 5) while the run builds it, then marks each node backward reaches with its gradient.
// No dependencies and nothing fetched from elsewhere: the page must work offline.
"use strict";

const $ = (id) => document.getElementById(id);
// Layers run top-down in dependency order. A node never moves once placed, so a run can stream thousands of
// nodes without the drawing jumping around or being laid out again. The graph is painted on a <canvas>,
// and only the part in view, so a run of tens of thousands of nodes costs what the screen shows.
const W = 184, H = 64, GAP_X = 28, GAP_Y = 40, PAD = 24;
const STEP_X = W + GAP_X, STEP_Y = H + GAP_Y;
const CHARS = 25;             // characters that fit on one line of a node box
const MAX_NODES = 50000;      // nodes past this are counted, not kept (the page's memory stays bounded)
const ORPHAN_FRAMES = 30;     // frames a leaf waits for its first consumer before it is placed on its own
const MAX_OUTPUT_LINES = 2000;
const CLOSE_REASONS = {
  1006: "connection lost", 1008: "this page's origin may not open streams", 1009: "a message was too big",
  1011: "server error", 1012: "server restarting", 1013: "fell behind the stream",
  4401: "no token given", 4404: "unknown session or wrong token", 4410: "the session is gone (its worker died)",
};
const FATAL_CLOSES = new Set([1008, 4401, 4404, 4410]);

// ------------------------------------------------------------------ formatting
function fmt(x, digits = 4) {
  if (x === null || x === undefined) return "–";
  if (typeof x === "string") return x === "Infinity" ? "∞" : x === "-Infinity" ? "-∞" : x;  // "NaN" stays
  if (typeof x !== "number") return String(x);
  if (Number.isInteger(x) && Math.abs(x) < 1e7) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(digits - 2).replace("e+", "e");
  return String(Number(x.toPrecision(digits)));
}
const shapeText = (shape) => `[${(shape || []).join(", ")}]`;
const numel = (shape) => (shape || []).reduce((a, b) => a * b, 1);
const clip = (s, n = CHARS) => (s.length > n ? s.slice(0, n - 1) + "…" : s);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

function summaryText(n, s, mark) {
  if (!s) return "";
  if (numel(n.shape) === 1 && s.head && s.head.length) return `${mark}= ${fmt(s.head[0])}`;
  return mark ? `${mark}‖${fmt(s.norm, 3)}‖ μ ${fmt(s.mean, 3)}`
    : `μ ${fmt(s.mean, 3)} [${fmt(s.min, 3)}, ${fmt(s.max, 3)}]`;
}

function nodeClass(n) {
  if (n.kind === "leaf") return n.requires_grad ? "param" : "const";
  return n.kind === "output" || n.isOutput ? "output" : "op";
}

function nodeTitle(n) {
  if (n.kind === "leaf") return n.name || (n.requires_grad ? "parameter" : "constant");
  if (n.kind === "output" && !n.op) return n.name || "output";
  return n.name ? `${n.name} = ${n.op}` : n.op || "op";
}

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
    box: { minSlot: 0, maxSlot: 0, maxLayer: 0, any: false }, program: programs.get(id) || null,
  };
}

function startRun(id) {
  run = newRun(id);
  $("empty").hidden = true;
  hideBanner();
  $("detail").textContent = "click a node to see its value and gradient";
  // a new graph: the view starts at its top again and follows it; a readable zoom the user chose is kept
  view.hover = null;
  if (view.zoom < 0.3) { view.zoom = 1; $("zoom-level").textContent = "100%"; }
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
  r.queue.push(n);
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
  if (raw.grad) n.grad = raw.grad;
  r.dirty.add(n);
}

// ------------------------------------------------------------------ layout: layered, incremental
function layerOf(r, i) {
  return r.layers[i] || (r.layers[i] = { slots: new Map(), min: 0, max: -1 });
}

function nearestFree(r, li, want) {
  const layer = layerOf(r, li);
  if (layer.slots.size > 200) return layer.slots.has(want) ? layer.max + 1 : want;  // wide layers: no search
  for (let k = 0; ; k++) {
    if (!layer.slots.has(want + k)) return want + k;
    if (k && !layer.slots.has(want - k)) return want - k;
  }
}

function rightOf(r, li) {
  const layer = layerOf(r, li);
  return layer.slots.size ? layer.max + 1 : 0;
}

function place(r, n, li, slot) {
  const layer = layerOf(r, li);
  n.layer = li; n.slot = slot;
  n.x = slot * STEP_X; n.y = li * STEP_Y;
  layer.slots.set(slot, n);
  if (layer.slots.size === 1) { layer.min = layer.max = slot; } else {
    layer.min = Math.min(layer.min, slot); layer.max = Math.max(layer.max, slot);
  }
  const b = r.box;
  if (!b.any) { b.minSlot = b.maxSlot = slot; b.maxLayer = li; b.any = true; } else {
    b.minSlot = Math.min(b.minSlot, slot); b.maxSlot = Math.max(b.maxSlot, slot); b.maxLayer = Math.max(b.maxLayer, li);
  }
  r.pending.delete(n.id);
  r.last = n;
  connectEdges(r, n);
  view.dirty = true;
}

function placeWithInputs(r, n) {
  const placed = [], leaves = [];
  for (const src of new Set(n.inputs)) {
    const s = src === null || src === undefined ? null : r.nodes.get(src);
    if (!s) continue;
    if (s.layer !== undefined) placed.push(s); else if (r.pending.has(s.id)) leaves.push(s);
  }
  const li = placed.length ? 1 + Math.max(...placed.map((s) => s.layer)) : leaves.length ? 1 : 0;
  // an op sits under its op inputs (a chain stays one straight column); reused parameters do not pull it sideways
  const anchor = placed.some((s) => s.kind !== "leaf") ? placed.filter((s) => s.kind !== "leaf") : placed;
  let base = anchor.length ? Math.round(mean(anchor.map((s) => s.slot))) : null;
  if (leaves.length) {  // a leaf arrives just before its first consumer: it hangs beside it, one layer up
    let want = base !== null ? base + 1 : rightOf(r, li - 1);
    for (const s of leaves) { place(r, s, li - 1, nearestFree(r, li - 1, want)); want = s.slot + 1; }
    if (base === null) base = Math.round(mean(leaves.map((s) => s.slot)));
  }
  const want = base !== null ? base : rightOf(r, li);
  const occupant = layerOf(r, li).slots.get(want);
  if (occupant && occupant.kind === "op" && !(r.consumers.get(occupant.id) || []).length) {
    // A dead end (a loss logged each step, a norm printed) steps aside for the chain it hangs off,
    // so a loop's nodes stay in one column instead of drifting a slot sideways at every step.
    moveTo(r, occupant, nearestFree(r, li, want + 1));
  }
  place(r, n, li, nearestFree(r, li, want));
}

function moveTo(r, n, slot) {
  const layer = layerOf(r, n.layer);
  layer.slots.delete(n.slot);
  layer.slots.set(slot, n);
  layer.min = Math.min(layer.min, slot); layer.max = Math.max(layer.max, slot);
  n.slot = slot; n.x = slot * STEP_X;
  r.box.minSlot = Math.min(r.box.minSlot, slot); r.box.maxSlot = Math.max(r.box.maxSlot, slot);
}

function placeLeafAlone(r, n) {
  // a leaf whose consumer is already drawn (a constant the final graph filled in) goes above it
  const c = (r.consumers.get(n.id) || []).map((id) => r.nodes.get(id)).find((c) => c && c.layer !== undefined);
  if (c && c.layer > 0) place(r, n, c.layer - 1, nearestFree(r, c.layer - 1, c.slot + 1));
  else place(r, n, 0, nearestFree(r, 0, rightOf(r, 0)));
}

function placeQueued(r) {
  for (const n of r.queue) {
    if (n.layer !== undefined) continue;
    if (n.kind === "op" || n.inputs.some((s) => s !== null && s !== undefined)) placeWithInputs(r, n);
    else r.pending.set(n.id, 0);
  }
  r.queue = [];
  for (const [id, age] of r.pending) {
    const n = r.nodes.get(id);
    const hasPlacedConsumer = (r.consumers.get(id) || []).some((c) => r.nodes.get(c)?.layer !== undefined);
    if (r.state !== "running" || age >= ORPHAN_FRAMES || hasPlacedConsumer) placeLeafAlone(r, n);
    else r.pending.set(id, age + 1);
  }
}

function addEdge(r, from, to, index) {
  const key = `${from}>${to}>${index}`;
  if (r.edgeKeys.has(key)) return;
  const s = r.nodes.get(from), t = r.nodes.get(to);
  if (!s || !t || s.layer === undefined || t.layer === undefined) return;
  r.edgeKeys.add(key);
  const e = { from: s, to: t, index };
  r.edges.push(e);
  for (const id of [from, to]) {
    let list = r.edgesOf.get(id);
    if (!list) r.edgesOf.set(id, (list = []));
    list.push(e);
  }
}

function connectEdges(r, n) {
  n.inputs.forEach((src, i) => { if (src !== null && src !== undefined) addEdge(r, src, n.id, i); });
  for (const c of r.consumers.get(n.id) || []) {
    const t = r.nodes.get(c);
    if (t) t.inputs.forEach((src, i) => { if (src === n.id) addEdge(r, n.id, c, i); });
  }
}

function contentBox(r) {
  const b = r.box;
  return { x0: b.minSlot * STEP_X - PAD, y0: -PAD, w: (b.maxSlot - b.minSlot + 1) * STEP_X - GAP_X + 2 * PAD,
           h: (b.maxLayer + 1) * STEP_Y - GAP_Y + 2 * PAD };
}

// ------------------------------------------------------------------ painting
const canvas = $("graph");
const ctx = canvas.getContext("2d");
const css = getComputedStyle(document.documentElement);
const colour = (name) => css.getPropertyValue(name).trim();
const PALETTE = {
  param: [colour("--param"), colour("--param-line")], const: [colour("--const"), colour("--const-line")],
  op: [colour("--op"), colour("--op-line")], output: [colour("--output"), colour("--output-line")],
  grad: colour("--grad"), text: "#3c4043", title: "#202124", faint: "#80868b", edge: "#bdc1c6",
};
const FONT = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace';

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

function edgeEnds(e) {
  const s = e.from, t = e.to, count = Math.max(1, t.inputs.length);
  return [s.x + W / 2, s.y + H, t.x + (W * (e.index + 1)) / (count + 1), t.y];
}

function traceEdge(e) {
  const [x1, y1, x2, y2] = edgeEnds(e);
  ctx.moveTo(x1, y1);
  if (y2 > y1) {
    const dy = Math.max(GAP_Y * 0.6, (y2 - y1) / 2);
    ctx.bezierCurveTo(x1, y1 + dy, x2, y2 - dy, x2, y2 - 1);
  } else {  // same or lower layer (only when a final graph adds an edge the stream did not give): go round
    const s = e.from, side = Math.max(s.x, e.to.x) + W + GAP_X / 2;
    ctx.moveTo(s.x + W, s.y + H / 2);
    ctx.bezierCurveTo(side, s.y + H / 2, side, y2 - GAP_Y / 2, x2, y2 - 1);
  }
}

function arrowHead(e) {
  const [, , x2, y2] = edgeEnds(e);
  ctx.moveTo(x2, y2); ctx.lineTo(x2 - 4, y2 - 7); ctx.lineTo(x2 + 4, y2 - 7); ctx.closePath();
}

function paint() {
  view.dirty = false;
  const { w, h, dpr } = fitCanvas();
  ctx.clearRect(0, 0, w, h);
  const r = run;
  if (!r || !r.box.any) return;
  const z = view.zoom;
  ctx.setTransform(dpr * z, 0, 0, dpr * z, -view.x * z * dpr, -view.y * z * dpr);  // world -> device pixels
  const vx0 = view.x, vy0 = view.y, vx1 = view.x + w / z, vy1 = view.y + h / z;
  const detail = z >= 0.45, tiny = z < 0.15;

  // edges whose bounding box meets the view, in three passes: plain, gradient-carrying, selected
  const groups = [[], [], []];
  for (const e of r.edges) {
    const a = e.from, b = e.to;
    if (Math.max(a.y, b.y) + H < vy0 || Math.min(a.y, b.y) > vy1) continue;
    if (Math.max(a.x, b.x) + W + GAP_X < vx0 || Math.min(a.x, b.x) > vx1) continue;
    const hot = r.selected && (a === r.selected || b === r.selected) || view.hover && (a === view.hover || b === view.hover);
    groups[hot ? 2 : a.grad && b.grad ? 1 : 0].push(e);
  }
  const styles = [[PALETTE.edge, 1.2, 1], [PALETTE.grad, 1.4, 0.6], [PALETTE.title, 2, 1]];
  groups.forEach((list, i) => {
    if (!list.length) return;
    const [stroke, width, alpha] = styles[i];
    ctx.globalAlpha = alpha;
    ctx.strokeStyle = ctx.fillStyle = stroke;
    ctx.lineWidth = Math.max(width, 0.8 / z);
    ctx.beginPath();
    for (const e of list) traceEdge(e);
    ctx.stroke();
    if (!tiny) { ctx.beginPath(); for (const e of list) arrowHead(e); ctx.fill(); }
  });
  ctx.globalAlpha = 1;

  // nodes of the layers in view
  const l0 = Math.max(0, Math.floor(vy0 / STEP_Y)), l1 = Math.min(r.layers.length - 1, Math.floor(vy1 / STEP_Y));
  for (let li = l0; li <= l1; li++) {
    const layer = r.layers[li];
    if (!layer) continue;
    for (const n of layer.slots.values()) {
      if (n.x + W < vx0 || n.x > vx1) continue;
      paintNode(r, n, detail, tiny);
    }
  }
}

function roundRect(x, y, w, h, rad) {
  ctx.beginPath();
  if (ctx.roundRect) ctx.roundRect(x, y, w, h, rad); else ctx.rect(x, y, w, h);
}

function paintNode(r, n, detail, tiny) {
  const cls = nodeClass(n);
  const [fill, line] = PALETTE[cls];
  const z = view.zoom;
  if (tiny) {  // far out: coloured blocks are all one can see
    ctx.fillStyle = n.grad ? PALETTE.grad : line;
    ctx.fillRect(n.x, n.y, W, H);
    return;
  }
  roundRect(n.x, n.y, W, H, 5);
  ctx.fillStyle = fill;
  ctx.fill();
  // while a run goes on, the node just made (or, during backward, the one the gradient just reached) stands out
  const current = r.state === "running" && (r.lastGrad ? n === r.lastGrad : n === r.last);
  const picked = n === r.selected || n === view.hover;
  ctx.lineWidth = Math.max(picked || current ? 2.6 : cls === "output" ? 2 : 1.3, 1 / z);
  ctx.strokeStyle = picked ? PALETTE.title : current && r.lastGrad ? PALETTE.grad : line;
  if (cls === "const") ctx.setLineDash([4, 3]);
  ctx.stroke();
  ctx.setLineDash([]);
  if (n.grad) { ctx.fillStyle = PALETTE.grad; ctx.fillRect(n.x + 1, n.y + 1, 5, H - 2); }
  if (!detail) return;
  const lineNo = n.line ? `L${n.line}` : "";
  ctx.textBaseline = "alphabetic";
  ctx.font = `600 11px ${FONT}`;
  ctx.fillStyle = PALETTE.title;
  ctx.textAlign = "left";
  ctx.fillText(clip(nodeTitle(n), CHARS - lineNo.length - 1), n.x + 11, n.y + 17);
  ctx.font = `11px ${FONT}`;
  if (lineNo) { ctx.fillStyle = PALETTE.faint; ctx.textAlign = "right"; ctx.fillText(lineNo, n.x + W - 8, n.y + 17); }
  ctx.textAlign = "left";
  ctx.fillStyle = PALETTE.text;
  ctx.fillText(clip(`${shapeText(n.shape)} ${n.dtype || ""}`), n.x + 11, n.y + 31);
  ctx.fillText(clip(summaryText(n, n.value, "")), n.x + 11, n.y + 45);
  if (n.grad) { ctx.fillStyle = PALETTE.grad; ctx.fillText(clip(summaryText(n, n.grad, "∇ ")), n.x + 11, n.y + 59); }
}

function nodeAt(px, py) {
  // the node under a point of the canvas: layers and slots are a grid, so no search
  const r = run;
  if (!r) return null;
  const x = view.x + px / view.zoom, y = view.y + py / view.zoom;
  const li = Math.floor(y / STEP_Y), slot = Math.floor(x / STEP_X);
  if (y - li * STEP_Y > H || x - slot * STEP_X > W || !r.layers[li]) return null;
  return r.layers[li].slots.get(slot) || null;
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
    placeQueued(r);
    for (const n of r.dirty) if (r.selected === n) showDetail(r, n);
    if (r.dirty.size) view.dirty = true;
    r.dirty.clear();
    if (view.follow && r.last && r.followed !== r.last) { follow(r, r.last); r.followed = r.last; }
    if (r.pending.size) schedule();  // leaves still waiting for their consumer age by one frame each
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
  else if (n.x < view.x || n.x + W > view.x + w) view.x = n.x + W / 2 - w / 2;
  if (n.y < view.y || n.y + H + GAP_Y / 2 > view.y + h) view.y = Math.max(-PAD, n.y + H + GAP_Y / 2 - h);
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
    if (m.step !== undefined) parts.push(["step", m.total !== undefined ? `${fmt(m.step)}/${fmt(m.total)}` : fmt(m.step)]);
    for (const k in m) if (k !== "step" && k !== "total") parts.push([k, metricText(m[k])]);
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

// ------------------------------------------------------------------ events (SPEC section 4)
function onEvent(ev) {
  switch (ev.type) {
    case "started":
      startRun(ev.run);
      printLine(`— run ${ev.run} started`, "meta");
      break;
    case "node": addNode(runFor(ev), ev.node); break;
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
      printLine(`— run ${ev.run} finished in ${fmt(ev.elapsed_ms)} ms`, "meta");
      ownRunEnded(ev.run);
      view.dirty = true;
      break;
    }
    case "error": onError(ev); break;
    case "cancelled": {
      const r = runFor(ev);
      r.state = "cancelled";
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
  showError(run, e);
}

function mergeGraph(r, g) {
  // The final graph of a run asked with "graph": true: it names variables and fills in what the stream coalesced.
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
      addEdge(r, s, n.id, i);
    });
  }
}

function matchLeaf(r, out) {
  // a named input that no op produced (x, target): the one unnamed leaf holding exactly its values
  const hits = [];
  const shape = JSON.stringify(out.shape), value = JSON.stringify(out.value);
  for (const n of r.nodes.values()) {
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
  const program = $("program").value;
  programs.set(id, program);
  if (programs.size > 50) programs.delete(programs.keys().next().value);
  conn.ownRun = id;
  refreshButtons();
  conn.ws.send(JSON.stringify({ type: "run", id, program, trace: true, graph: true }));
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
    if (!drag.moved && run) select(run, nodeAt(e.offsetX, e.offsetY));  // a click: pick a node, or clear
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
window.addEventListener("hashchange", watchFromAddress);
watchFromAddress();
