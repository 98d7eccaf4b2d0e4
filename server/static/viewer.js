// gradserve viewer: watches a session over its WebSocket and draws each run's graph as its nodes arrive.
"use strict";
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const W = 150, H = 40, GAP_X = 60, GAP_Y = 18;

let ws = null;
let runSeq = 0;
let graph = { nodes: new Map(), edges: [] };
let redrawPending = false;

function resetGraph() {
  graph = { nodes: new Map(), edges: [] };
  $("detail").textContent = "click a node";
  scheduleDraw();
}

function ensureNode(id, fields) {
  let n = graph.nodes.get(id);
  if (!n) { n = { id, kind: "leaf", op: null, name: null, shape: [], inputs: [] }; graph.nodes.set(id, n); }
  Object.assign(n, fields || {});
  return n;
}

function addNode(node) {
  const inputs = node.inputs || [];
  inputs.forEach((src, i) => {
    if (src === null || src === undefined) return;
    ensureNode(src);
    graph.edges.push({ from: src, to: node.id, input_index: i });
  });
  ensureNode(node.id, node);
  scheduleDraw();
}

function loadGraph(g) {
  // A full graph (the result of a run asked with "graph": true) replaces what streamed in.
  graph = { nodes: new Map(), edges: g.edges.slice() };
  for (const n of g.nodes) graph.nodes.set(n.id, Object.assign({ inputs: [] }, n));
  scheduleDraw();
}

function scheduleDraw() {
  if (redrawPending) return;
  redrawPending = true;
  requestAnimationFrame(() => { redrawPending = false; draw(); });
}

function layout() {
  // Layered layout: a node's column is one past the deepest of its inputs.
  const depth = new Map();
  const incoming = new Map();
  for (const e of graph.edges) {
    if (!incoming.has(e.to)) incoming.set(e.to, []);
    incoming.get(e.to).push(e.from);
  }
  const visit = (id, guard) => {
    if (depth.has(id)) return depth.get(id);
    if (guard > 10000) return 0;
    const ins = incoming.get(id) || [];
    const d = ins.length ? 1 + Math.max(...ins.map((s) => visit(s, guard + 1))) : 0;
    depth.set(id, d);
    return d;
  };
  const columns = [];
  for (const id of [...graph.nodes.keys()].sort((a, b) => a - b)) {
    const d = visit(id, 0);
    (columns[d] = columns[d] || []).push(id);
  }
  const pos = new Map();
  columns.forEach((ids, c) => ids.forEach((id, r) => pos.set(id, { x: 20 + c * (W + GAP_X), y: 20 + r * (H + GAP_Y) })));
  return { pos, cols: columns.length, rows: Math.max(1, ...columns.map((c) => (c ? c.length : 0))) };
}

function label(n) {
  const what = n.kind === "op" ? (n.op || "op") : (n.name || n.kind);
  const name = n.kind === "op" && n.name ? ` ${n.name}` : "";
  return [`${what}${name}`, `[${(n.shape || []).join(", ")}] ${n.dtype || ""}`];
}

function draw() {
  const { pos, cols, rows } = layout();
  const svg = $("graph");
  svg.setAttribute("width", Math.max(800, 40 + cols * (W + GAP_X)));
  svg.setAttribute("height", Math.max(600, 40 + rows * (H + GAP_Y)));
  const edges = $("edges"), nodes = $("nodes");
  edges.replaceChildren();
  nodes.replaceChildren();
  for (const e of graph.edges) {
    const a = pos.get(e.from), b = pos.get(e.to);
    if (!a || !b) continue;
    const p = document.createElementNS(SVG, "path");
    const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
    p.setAttribute("d", `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`);
    p.setAttribute("class", "edge");
    edges.appendChild(p);
  }
  for (const n of graph.nodes.values()) {
    const p = pos.get(n.id);
    const g = document.createElementNS(SVG, "g");
    g.setAttribute("class", `node ${n.kind}${n.grad ? " has-grad" : ""}`);
    g.setAttribute("transform", `translate(${p.x},${p.y})`);
    const r = document.createElementNS(SVG, "rect");
    r.setAttribute("width", W); r.setAttribute("height", H);
    g.appendChild(r);
    label(n).forEach((line, i) => {
      const t = document.createElementNS(SVG, "text");
      t.setAttribute("x", 8); t.setAttribute("y", 16 + i * 14);
      t.textContent = line.length > 22 ? line.slice(0, 21) + "…" : line;
      g.appendChild(t);
    });
    g.addEventListener("click", () => {
      $("detail").textContent = JSON.stringify(n, null, 1);
    });
    nodes.appendChild(g);
  }
}

function print(text) {
  const out = $("stdout");
  out.textContent += text;
  out.scrollTop = out.scrollHeight;
}

function onEvent(ev) {
  switch (ev.type) {
    case "started": resetGraph(); print(`— run ${ev.run} started\n`); break;
    case "node": addNode(ev.node); break;
    case "backward": ensureNode(ev.node, { grad: ev.grad }); scheduleDraw(); break;
    case "stdout": print(ev.text); break;
    case "log": print(`log ${JSON.stringify(ev.metrics)}\n`); break;
    case "dropped": print(`(${ev.node || 0} node and ${ev.backward || 0} backward events skipped to keep up)\n`); break;
    case "result":
      if (ev.graph) loadGraph(ev.graph);
      print(`— run ${ev.run} finished in ${ev.elapsed_ms} ms\n`);
      break;
    case "error": {
      const e = ev.error || {};
      print(`— error ${e.type}: ${e.message}${e.line ? ` (line ${e.line}, col ${e.col})` : ""}\n`);
      break;
    }
    case "cancelled": print(`— run ${ev.run} cancelled\n`); break;
  }
}

function connect() {
  const id = $("session").value.trim(), token = $("token").value.trim();
  if (!id || !token) { $("status").textContent = "session id and token needed"; return; }
  if (ws) ws.close();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${scheme}://${location.host}/v1/sessions/${encodeURIComponent(id)}/stream`);
  ws.onopen = () => {
    ws.send(JSON.stringify({ token, type: "watch" }));  // the token travels in the first message, not the URL
    $("status").textContent = `watching ${id}`;
    $("run").disabled = false;
  };
  ws.onmessage = (m) => onEvent(JSON.parse(m.data));
  ws.onclose = (e) => { $("status").textContent = `closed (${e.code})`; $("run").disabled = true; };
}

$("connect").addEventListener("click", connect);
$("run").addEventListener("click", () => {
  if (!ws || ws.readyState !== WebSocket.OPEN) return;
  ws.send(JSON.stringify({ type: "run", id: `viewer-${++runSeq}`, program: $("program").value, trace: true, graph: true }));
});

// #session=<id>&token=<token> in the address fills the form and connects (the fragment never reaches the server).
const params = new URLSearchParams(location.hash.slice(1));
if (params.get("session")) {
  $("session").value = params.get("session");
  $("token").value = params.get("token") || "";
  connect();
}
