// gradserve drawing helpers shared by the viewer page and the notebook view of a RunResult (_repr_html_):
// a tensor's heatmap and histogram on a <canvas>, and its statistics. No dependencies.
"use strict";

var GradDraw = (typeof window !== "undefined" && window.GradDraw) || (() => {
  const MAX_CELLS = 256;  // a heatmap shows at most this many rows and columns (bigger tensors are averaged in blocks)

  function stats(data) {
    let lo = Infinity, hi = -Infinity, sum = 0, sq = 0, n = 0, bad = 0;
    for (const v of data) {
      if (!Number.isFinite(v)) { bad++; continue; }
      lo = Math.min(lo, v); hi = Math.max(hi, v); sum += v; sq += v * v; n++;
    }
    return { min: n ? lo : NaN, max: n ? hi : NaN, mean: n ? sum / n : NaN, norm: Math.sqrt(sq), count: data.length, nonfinite: bad };
  }

  function flatten(data, out = []) {
    if (Array.isArray(data)) { for (const d of data) flatten(d, out); return out; }
    out.push(typeof data === "number" ? data : typeof data === "boolean" ? Number(data)
      : data === "Infinity" ? Infinity : data === "-Infinity" ? -Infinity : NaN);
    return out;
  }

  function matrixShape(shape) {
    // 2-d as it is; 1-d as one row; more dimensions as rows of the last one
    if (!shape.length) return [1, 1];
    if (shape.length === 1) return [1, shape[0]];
    return [shape.slice(0, -1).reduce((a, b) => a * b, 1), shape[shape.length - 1]];
  }

  function colourOf(t) {
    // a diverging blue-white-red scale, t in [-1, 1]
    const a = Math.min(1, Math.abs(t));
    const [r, g, b] = t < 0 ? [255 - 200 * a, 255 - 150 * a, 255] : [255, 255 - 180 * a, 255 - 200 * a];
    return `rgb(${r | 0},${g | 0},${b | 0})`;
  }

  function heatmap(canvas, flat, shape, opts = {}) {
    const [rows, cols] = matrixShape(shape);
    const rs = Math.ceil(rows / MAX_CELLS), cs = Math.ceil(cols / MAX_CELLS);
    const R = Math.ceil(rows / rs), C = Math.ceil(cols / cs);
    const cells = new Float64Array(R * C);
    for (let i = 0; i < R; i++) {
      for (let j = 0; j < C; j++) {
        let s = 0, k = 0;
        for (let a = i * rs; a < Math.min(rows, (i + 1) * rs); a++)
          for (let b = j * cs; b < Math.min(cols, (j + 1) * cs); b++) { s += flat[a * cols + b]; k++; }
        cells[i * C + j] = s / k;
      }
    }
    let scale = 0;
    for (const v of cells) if (Number.isFinite(v)) scale = Math.max(scale, Math.abs(v));
    const width = opts.width || 260, cell = Math.max(1, Math.min(24, Math.floor(width / C)));
    const dpr = window.devicePixelRatio || 1;
    canvas.width = C * cell * dpr; canvas.height = R * cell * dpr;
    canvas.style.width = `${C * cell}px`; canvas.style.height = `${R * cell}px`;
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    for (let i = 0; i < R; i++) {
      for (let j = 0; j < C; j++) {
        const v = cells[i * C + j];
        ctx.fillStyle = Number.isFinite(v) ? colourOf(scale ? v / scale : 0) : "#000";
        ctx.fillRect(j * cell, i * cell, cell, cell);
      }
    }
    return { rows, cols, blocks: [rs, cs], scale };
  }

  function histogram(canvas, flat, opts = {}) {
    const bins = opts.bins || 40, width = opts.width || 260, height = opts.height || 90;
    const s = stats(flat);
    const counts = new Array(bins).fill(0);
    const span = s.max - s.min || 1;
    for (const v of flat) if (Number.isFinite(v)) counts[Math.min(bins - 1, Math.floor(((v - s.min) / span) * bins))]++;
    const top = Math.max(1, ...counts);
    const dpr = window.devicePixelRatio || 1;
    canvas.width = width * dpr; canvas.height = height * dpr;
    canvas.style.width = `${width}px`; canvas.style.height = `${height}px`;
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.fillStyle = opts.colour || "#5b7fc7";
    const bw = width / bins;
    counts.forEach((c, i) => { const h = (c / top) * (height - 14); ctx.fillRect(i * bw + 0.5, height - 12 - h, bw - 1, h); });
    ctx.fillStyle = "#5f6368"; ctx.font = "10px ui-monospace, monospace";
    ctx.textAlign = "left"; ctx.fillText(short(s.min), 1, height - 1);
    ctx.textAlign = "right"; ctx.fillText(short(s.max), width - 1, height - 1);
    return { counts, stats: s };
  }

  function short(x) {
    if (!Number.isFinite(x)) return String(x);
    const a = Math.abs(x);
    return a !== 0 && (a < 1e-3 || a >= 1e5) ? x.toExponential(2) : String(Number(x.toPrecision(4)));
  }

  return { stats, flatten, heatmap, histogram, matrixShape, short };
})();
if (typeof window !== "undefined") window.GradDraw = GradDraw;

// ------------------------------------------------------------------ the graph: grouping, layout, painting
// Shared by the viewer page (viewer.js) and the inline notebook view (RunResult._repr_html_). A run ``r`` is
// {nodes: Map(id -> node with inputs), consumers: Map(id -> ids), calls: Map(call -> module call), folds:
// Map(box key -> folded)}; layout(r) adds the boxes and positions, paintGraph(d, r) draws them on a canvas.
var GradGraph = (typeof window !== "undefined" && window.GradGraph) || (() => {
  const W = 184, H = 64, PAD = 24;
  const CHARS = 25;             // characters that fit on one line of a node box
  const DEFAULT_PALETTE = {
    param: ["#e8f0fe", "#3367d6"], const: ["#f1f3f4", "#9aa0a6"], op: ["#fff4e0", "#c77c02"], output: ["#e6f4ea", "#188038"],
    grad: "#8e44ad", text: "#3c4043", title: "#202124", faint: "#80868b", edge: "#bdc1c6",
    box: ["#f3f6fc", "#9fb3d9"], loop: ["#fbf3fd", "#c39bd3"], added: "#188038", line: "#f9ab00", anomaly: "#d93025",
  };
  let ctx = null, view = null, PALETTE = DEFAULT_PALETTE;  // set by paintGraph for the functions it calls
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

  // ------------------------------------------------------------------ structure: module calls, loops, layout
  // The nodes of a run form a tree of groups: a box per module call (the nodes its forward made, named by the
  // module path), and inside any box, repeated runs of the same ops at the same lines fold into a loop ("×40",
  // the first and last iterations shown). A leaf sits in the box of the module that owns it (a parameter), at
  // the top (an input or variable), or beside its first consumer (a constant). The layout is redone from the
  // tree when it changes (throttled while a run streams): rows in dependency order inside each box.
  const GROUP_PAD = 10, HEADER = 22, GAP_IN_X = 22, GAP_IN_Y = 34;
  const LAYOUT_EVERY_MS = 250;

  function newGroup(kind, key, label, parent) {
    const g = { group: true, kind, key, label, parent, items: [], depth: parent ? parent.depth + 1 : 0, first: Infinity,
                x: 0, y: 0, w: W, h: H, count: 0 };
    return g;
  }

  function moduleLabel(info) {
    // "encoder.layers.0 · TransformerEncoderLayer"; a module called at top level has the path "" and is
    // titled by the program variable that holds it ("head · Linear"), else by its class alone
    const path = info.path || info.name;
    return path ? `${path} · ${info.class}` : info.class;
  }

  function signature(item, memo) {
    if (!item.group) return `${item.op}@${item.line}`;
    if (memo.has(item)) return memo.get(item);
    let s;
    if (item.kind === "module") s = `M${item.info ? `${item.info.path || item.info.name || ""}:${item.info.class}` : "?"}`;
    else if (item.kind === "loop") s = `L${item.items.length}:${item.items[0].items.map((i) => signature(i, memo)).join(",")}`;
    else s = `G${item.items.map((i) => signature(i, memo)).join(",")}`;
    memo.set(item, s);
    return s;
  }

  function foldLoops(r, g, memo) {
    for (const it of g.items) if (it.group) foldLoops(r, it, memo);
    for (let pass = 0; pass < 3; pass++) {  // inner loops first, then the loops around them
      const items = g.items, n = items.length;
      if (n < 3) return;
      const codes = new Map(), code = items.map((it) => {
        const s = signature(it, memo);
        if (!codes.has(s)) codes.set(s, codes.size);
        return codes.get(s);
      });
      const next = new Int32Array(n).fill(-1), lastAt = new Map();
      for (let i = n - 1; i >= 0; i--) { next[i] = lastAt.has(code[i]) ? lastAt.get(code[i]) : -1; lastAt.set(code[i], i); }
      const same = (a, b, p) => { for (let k = 0; k < p; k++) if (code[a + k] !== code[b + k]) return false; return true; };
      const out = [];
      let changed = false;
      for (let i = 0; i < n;) {
        let best = null;
        for (let j = next[i], tries = 0; j !== -1 && tries < 8 && (j - i) * 3 <= n - i; j = next[j], tries++) {
          const p = j - i;
          let k = 1;
          while (i + (k + 1) * p <= n && same(i, i + k * p, p)) k++;
          if (k >= 3) { best = [p, k]; break; }
        }
        if (!best) { out.push(items[i]); i++; continue; }
        const [p, k] = best;
        const loop = newGroup("loop", `${g.key}/L${signature(items[i], memo)}@${i}`, "", g);
        for (let t = 0; t < k; t++) {
          const it = newGroup("iter", `${loop.key}#${t}`, `#${t + 1}`, loop);
          it.items = items.slice(i + t * p, i + (t + 1) * p);
          for (const c of it.items) if (c.group) c.parent = it;
          loop.items.push(it);
        }
        out.push(loop);
        i += p * k;
        changed = true;
      }
      g.items = out;
      if (!changed) return;
    }
  }

  function setDepths(g, depth) {
    g.depth = depth;
    g.first = Infinity; g.count = 0;
    let lo = Infinity, hi = -Infinity;
    for (const it of g.items) {
      if (it.group) {
        it.parent = g;
        setDepths(it, depth + 1);
        g.first = Math.min(g.first, it.first); g.count += it.count;
        lo = Math.min(lo, it.lines[0]); hi = Math.max(hi, it.lines[1]);
      } else {
        it.owner = g;
        g.first = Math.min(g.first, it.id); g.count++;
        if (it.line) { lo = Math.min(lo, it.line); hi = Math.max(hi, it.line); }
      }
    }
    g.lines = [lo, hi];
    if (g.kind === "loop") {
      const k = g.items.length;
      g.label = `×${k}` + (lo <= hi ? ` · line${lo === hi ? ` ${lo}` : `s ${lo}–${hi}`}` : "");
    }
  }

  function buildTree(r) {
    const root = newGroup("root", "root", "", null);
    const byCall = new Map();
    const callGroup = (id) => {
      let g = byCall.get(id);
      if (g) return g;
      const info = r.calls.get(id);
      const parent = info && info.parent !== null && info.parent !== undefined && r.calls.has(info.parent) ? callGroup(info.parent) : root;
      g = newGroup("module", `c${id}`, info ? moduleLabel(info) : `call ${id}`, parent);
      g.info = info;
      parent.items.push(g);
      byCall.set(id, g);
      return g;
    };
    const leaves = [];
    for (const n of r.nodes.values()) {
      if (n.kind === "leaf" || (n.kind === "output" && !n.inputs.length)) { leaves.push(n); continue; }
      const g = n.call !== null && n.call !== undefined && r.calls.has(n.call) ? callGroup(n.call) : root;
      g.items.push(n);
    }
    foldLoops(r, root, new Map());
    setDepths(root, 0);  // owners of the op nodes, for the leaves below
    for (const leaf of leaves) {
      const c = (r.consumers.get(leaf.id) || []).map((id) => r.nodes.get(id)).find((c) => c && c.owner);
      let g = c ? c.owner : root;
      if (leaf.name && leaf.module !== null && leaf.module !== undefined) {  // a parameter: its module's box
        let h = g;
        while (h && !(h.kind === "module" && h.info && h.info.path === leaf.module)) h = h.parent;
        g = h || g;
      } else if (leaf.name) g = root;  // an input or a variable of the program
      g.items.push(leaf);
    }
    setDepths(root, 0);
    // the boxes a user folded or unfolded keep that state; loops start folded, modules of big runs too
    const big = r.nodes.size > 600;
    const walk = (g, modules) => {  // modules: how many module boxes g sits in
      if (g.kind === "loop" || g.kind === "module") {
        const chosen = r.folds.get(g.key);
        g.collapsed = chosen !== undefined ? chosen : g.kind === "loop" || (big && g.kind === "module" && modules >= 1);
      }
      for (const it of g.items) if (it.group) walk(it, modules + (g.kind === "module" ? 1 : 0));
    };
    walk(root, 0);
    return root;
  }

  function shownItems(g) {
    if (g.kind === "loop" && g.collapsed && g.items.length > 2) {
      if (!g.gap) g.gap = { group: true, kind: "gap", key: `${g.key}/gap`, parent: g, items: [], x: 0, y: 0, w: W, h: H, first: g.items[1].first };
      g.gap.label = `⋯ ${g.items.length - 2} more iteration${g.items.length === 3 ? "" : "s"}`;
      g.gap.count = g.items.slice(1, -1).reduce((a, it) => a + it.count, 0);
      return [g.items[0], g.gap, g.items[g.items.length - 1]];
    }
    return g.items;
  }

  function itemOf(g, node) {
    // the item of g's shown items that holds node (undefined when node is outside g)
    let prev = node, h = node.owner;
    while (h && h !== g) { prev = h; h = h.parent; }
    if (h !== g) return undefined;
    if (g.kind === "loop" && g.collapsed && g.gap && prev !== g.items[0] && prev !== g.items[g.items.length - 1]) return g.gap;
    return prev;
  }

  function measure(r, g) {
    if (g.kind === "module" && g.collapsed) { g.w = W; g.h = H; return; }
    const items = shownItems(g);
    for (const it of items) if (it.group && it.kind !== "gap") measure(r, it);
    // ranks: an item sits below every item of this box it takes an input from
    const rank = new Map(), order = items.slice().sort((a, b) => a.first - b.first);
    const deps = new Map(items.map((it) => [it, new Set()]));
    const consumersIn = new Map();
    const visit = (node) => {
      const a = itemOf(g, node);
      for (const src of node.inputs) {
        if (src === null || src === undefined) continue;
        const s = r.nodes.get(src);
        if (!s || !s.owner) continue;
        const b = itemOf(g, s);
        if (b === undefined || b === a) continue;
        deps.get(a).add(b);
        if (!b.group && b.kind === "leaf") { if (!consumersIn.has(b)) consumersIn.set(b, []); consumersIn.get(b).push(a); }
      }
    };
    const each = (it) => { if (it.group) { for (const c of it.items) each(c); } else visit(it); };
    for (const it of g.items) each(it);
    for (const it of order) {
      if (g.kind === "loop") { rank.set(it, rank.size); continue; }  // iterations one under the other, in order
      if (!it.group && it.kind === "leaf") continue;
      let k = 0;
      for (const b of deps.get(it)) if (rank.has(b)) k = Math.max(k, rank.get(b) + 1);
      rank.set(it, k);
    }
    for (const it of order) {
      if (rank.has(it)) continue;  // a leaf: one row above its first consumer in this box
      const cs = (consumersIn.get(it) || []).filter((c) => rank.has(c));
      rank.set(it, cs.length ? Math.min(...cs.map((c) => rank.get(c))) - 1 : 0);
    }
    const rows = [];
    const low = Math.min(0, ...rank.values());  // leaves above a first row push the rest down one
    for (const it of order) { const k = rank.get(it) - low; (rows[k] || (rows[k] = [])).push(it); }
    const pad = g.kind === "root" ? 0 : GROUP_PAD, top = g.kind === "root" ? 0 : HEADER;
    let y = top + (g.kind === "root" ? 0 : 4), width = 0;
    const laid = [];
    for (const row of rows) {
      if (!row) continue;
      let x = 0, hmax = 0;
      for (const it of row) { const [w, h] = size(it); it.rx = x; it.ry = y; x += w + GAP_IN_X; hmax = Math.max(hmax, h); }
      laid.push([row, x - GAP_IN_X]);
      width = Math.max(width, x - GAP_IN_X);
      y += hmax + GAP_IN_Y;
    }
    for (const [row, w] of laid) { const shift = (width - w) / 2; for (const it of row) it.rx += shift + pad; }
    g.w = Math.max(width + 2 * pad, g.kind === "root" ? 0 : Math.min(320, 40 + 7 * g.label.length));
    g.h = Math.max(y - GAP_IN_Y + pad, top + H / 2);
  }

  function size(it) { return it.group ? [it.w, it.h] : [W, H]; }

  function position(r, g, x, y) {
    g.x = x; g.y = y;
    const collapsedModule = g.kind === "module" && g.collapsed;
    if (g.kind !== "root") (collapsedModule ? r.shownBoxes : r.boxes).push(g);
    if (collapsedModule) { hideUnder(g, g); return; }
    const items = shownItems(g);
    if (g.kind === "loop" && g.collapsed && g.gap) {
      r.shownBoxes.push(g.gap);
      g.gap.x = x + g.gap.rx; g.gap.y = y + g.gap.ry;
      for (const it of g.items.slice(1, -1)) hideUnder(it, g.gap);
    }
    for (const it of items) {
      if (it.kind === "gap") continue;
      if (it.group) position(r, it, x + it.rx, y + it.ry);
      else { it.x = x + it.rx; it.y = y + it.ry; it.rep = it; r.shown.push(it); }
    }
  }

  function hideUnder(g, box) {
    for (const it of g.items) { if (it.group) hideUnder(it, box); else it.rep = box; }
  }

  function layout(r) {
    const t0 = performance.now();
    r.tree = buildTree(r);
    measure(r, r.tree);
    r.shown = []; r.boxes = []; r.shownBoxes = [];
    position(r, r.tree, 0, 0);
    // edges between what is shown: a node inside a folded box draws from or to that box
    r.edges = [];
    const keys = new Set();
    for (const n of r.nodes.values()) {
      if (!n.rep) continue;
      n.inputs.forEach((src, i) => {
        if (src === null || src === undefined) return;
        const s = r.nodes.get(src);
        if (!s || !s.rep || s.rep === n.rep) return;
        const key = s.rep === s && n.rep === n ? `${src}>${n.id}>${i}` : `${s.rep.key || s.id}>${n.rep.key || n.id}`;
        if (keys.has(key)) return;
        keys.add(key);
        r.edges.push({ from: s.rep, to: n.rep, index: n.rep === n ? i : 0, count: n.rep === n ? n.inputs.length : 1 });
      });
    }
    r.box = { x0: -PAD, y0: -PAD, w: r.tree.w + 2 * PAD, h: r.tree.h + 2 * PAD, any: r.nodes.size > 0 };
    r.laidOut = r.nodes.size;
    r.structureDirty = false;
    r.lastLayout = performance.now();
    r.layoutMs = r.lastLayout - t0;
  }

  // ------------------------------------------------------------------ painting
  const FONT = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace';

  const boxW = (b) => (b.group ? b.w : W), boxH = (b) => (b.group ? b.h : H);

  function edgeEnds(e) {
    const s = e.from, t = e.to;
    return [s.x + boxW(s) / 2, s.y + boxH(s), t.x + (boxW(t) * (e.index + 1)) / (e.count + 1), t.y];
  }

  function traceEdge(e) {
    const [x1, y1, x2, y2] = edgeEnds(e);
    ctx.moveTo(x1, y1);
    if (y2 > y1) {
      const dy = Math.max(GAP_IN_Y * 0.6, (y2 - y1) / 2);
      ctx.bezierCurveTo(x1, y1 + dy, x2, y2 - dy, x2, y2 - 1);
    } else {  // a target at the same height or above: go round the side
      const s = e.from, side = Math.max(s.x + boxW(s), e.to.x + boxW(e.to)) + GAP_IN_X;
      ctx.moveTo(s.x + boxW(s), s.y + boxH(s) / 2);
      ctx.bezierCurveTo(side, s.y + boxH(s) / 2, side, y2 - GAP_IN_Y / 2, x2, y2 - 1);
    }
  }

  function arrowHead(e) {
    const [, , x2, y2] = edgeEnds(e);
    ctx.moveTo(x2, y2); ctx.lineTo(x2 - 4, y2 - 7); ctx.lineTo(x2 + 4, y2 - 7); ctx.closePath();
  }

  const inView = (b, v) => !(b.x + boxW(b) < v[0] || b.x > v[2] || b.y + boxH(b) < v[1] || b.y > v[3]);

  function paintGraph(d, r) {
    // d: {ctx, view: {x, y, zoom, hover, diff}, palette, w, h, dpr}; draws what of r's layout is in view
    ({ ctx, view } = d);
    PALETTE = d.palette || DEFAULT_PALETTE;
    const t0 = performance.now();
    const { w, h, dpr } = d;
    ctx.clearRect(0, 0, w, h);
    if (!r || !r.shown) return;
    const z = view.zoom;
    ctx.setTransform(dpr * z, 0, 0, dpr * z, -view.x * z * dpr, -view.y * z * dpr);  // world -> device pixels
    const v = [view.x, view.y, view.x + w / z, view.y + h / z];
    const detail = z >= 0.45, tiny = z < 0.15;

    // the boxes of unfolded module calls and loops, outermost first
    for (const b of r.boxes) {
      if (!inView(b, v)) continue;
      const [fill, line] = b.kind === "loop" || b.kind === "iter" ? PALETTE.loop : PALETTE.box;
      roundRect(b.x, b.y, b.w, b.h, 8);
      ctx.fillStyle = fill; ctx.globalAlpha = b.kind === "iter" ? 0.5 : 0.7; ctx.fill(); ctx.globalAlpha = 1;
      ctx.strokeStyle = line; ctx.lineWidth = Math.max(1, 1 / z);
      if (b.kind === "iter") ctx.setLineDash([5, 4]);
      ctx.stroke(); ctx.setLineDash([]);
      if (!tiny && b.kind !== "iter") {
        const f = detail ? 11 : farFont(z, HEADER - 4);   // (zoomed out: as big as the header holds)
        ctx.font = `600 ${f}px ${FONT}`; ctx.fillStyle = PALETTE.title; ctx.textAlign = "left"; ctx.textBaseline = "alphabetic";
        const n = Math.max(4, Math.floor((b.w - 12) / (f * 0.62)));
        ctx.fillText(clip(`▾ ${detail ? b.label : shortLabel(b, n - 2)}`, n), b.x + 8, b.y + Math.max(15, f + 1));
      } else if (!tiny) {
        ctx.font = `11px ${FONT}`; ctx.fillStyle = PALETTE.faint; ctx.textAlign = "left";
        ctx.fillText(b.label, b.x + 8, b.y + 15);
      }
    }

    // edges whose bounding box meets the view, in three passes: plain, gradient-carrying, selected
    const groups = [[], [], []];
    for (const e of r.edges) {
      const a = e.from, b = e.to;
      if (Math.max(a.y + boxH(a), b.y + boxH(b)) < v[1] || Math.min(a.y, b.y) > v[3]) continue;
      if (Math.max(a.x + boxW(a), b.x + boxW(b)) + GAP_IN_X < v[0] || Math.min(a.x, b.x) > v[2]) continue;
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

    for (const b of r.shownBoxes) if (inView(b, v)) paintFolded(r, b, tiny);
    for (const n of r.shown) if (inView(n, v)) paintNode(r, n, detail, tiny);
    r.paintMs = performance.now() - t0;
  }

  function shortLabel(b, room) {
    // a module box's label with the enclosing module's path left out ("self_attn · MultiheadAttention" inside
    // layers.0), and its class too when ``room`` characters cannot hold it: for zoomed-out views
    const info = b.info;
    if (!info || !info.path) return b.label;
    let p = b.parent;
    while (p && p.kind !== "module") p = p.parent;
    const base = p && p.info && p.info.path ? `${p.info.path}.` : "";
    const path = base && info.path.startsWith(base) ? info.path.slice(base.length) : info.path;
    const full = `${path} · ${info.class}`;
    return full.length <= room ? full : path;
  }

  function farFont(z, most) {
    // a font size in graph units that is about 10 screen pixels at zoom z, at most ``most``
    return Math.min(most, Math.max(11, 10 / z));
  }

  function roundRect(x, y, w, h, rad) {
    ctx.beginPath();
    if (ctx.roundRect) ctx.roundRect(x, y, w, h, rad); else ctx.rect(x, y, w, h);
  }

  function paintFolded(r, b, tiny) {
    // a folded module call, or the hidden middle of a loop: one box standing for its nodes
    const [fill, line] = b.kind === "gap" ? PALETTE.loop : PALETTE.box;
    roundRect(b.x, b.y, W, H, 8);
    ctx.fillStyle = fill; ctx.fill();
    ctx.strokeStyle = b === view.hover ? PALETTE.title : line; ctx.lineWidth = 2 / Math.max(1, view.zoom);
    ctx.stroke();
    roundRect(b.x + 4, b.y + 4, W - 8, H - 8, 6); ctx.lineWidth = 1; ctx.stroke();
    if (tiny) return;
    if (view.zoom < 0.45) {  // zoomed out: the label alone, readable
      const f = farFont(view.zoom, 26);
      ctx.font = `600 ${f}px ${FONT}`; ctx.fillStyle = PALETTE.title; ctx.textAlign = "left"; ctx.textBaseline = "middle";
      const n = Math.max(4, Math.floor((W - 16) / (f * 0.62)));
      ctx.fillText(clip(b.kind === "gap" ? b.label : `▸ ${shortLabel(b, n - 2)}`, n), b.x + 11, b.y + H / 2);
      ctx.textBaseline = "alphabetic";
      return;
    }
    ctx.font = `600 11px ${FONT}`; ctx.fillStyle = PALETTE.title; ctx.textAlign = "left"; ctx.textBaseline = "alphabetic";
    ctx.fillText(clip(b.kind === "gap" ? b.label : `▸ ${b.label}`), b.x + 11, b.y + 24);
    ctx.font = `11px ${FONT}`; ctx.fillStyle = PALETTE.text;
    ctx.fillText(`${b.count} node${b.count === 1 ? "" : "s"} · click to unfold`, b.x + 11, b.y + 42);
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
    const marked = r.lineNodes && r.lineNodes.has(n), added = view.diff && r.diff && r.diff.added.has(n);
    const bad = r.anomaly && (n === r.anomaly || r.anomalyInputs.has(n));
    ctx.lineWidth = Math.max(picked || current || marked || added || bad ? 2.6 : cls === "output" ? 2 : 1.3, 1 / z);
    ctx.strokeStyle = bad ? PALETTE.anomaly : picked ? PALETTE.title : marked ? PALETTE.line : added ? PALETTE.added
      : current && r.lastGrad ? PALETTE.grad : line;
    if (cls === "const" && !picked && !marked && !bad) ctx.setLineDash([4, 3]);
    ctx.stroke();
    ctx.setLineDash([]);
    if (bad && n === r.anomaly) { roundRect(n.x - 4, n.y - 4, W + 8, H + 8, 8); ctx.lineWidth = 2; ctx.stroke(); }
    if (n.grad) { ctx.fillStyle = PALETTE.grad; ctx.fillRect(n.x + 1, n.y + 1, 5, H - 2); }
    if (!detail) {  // zoomed out: the title alone, in letters big enough to read on screen
      const f = farFont(z, 26);
      ctx.font = `600 ${f}px ${FONT}`; ctx.fillStyle = PALETTE.title; ctx.textAlign = "left"; ctx.textBaseline = "middle";
      ctx.fillText(clip(nodeTitle(n), Math.max(4, Math.floor((W - 16) / (f * 0.62)))), n.x + 11, n.y + H / 2);
      ctx.textBaseline = "alphabetic";
      return;
    }
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


  return { W, H, PAD, CHARS, DEFAULT_PALETTE, GAP_IN_X, GAP_IN_Y, HEADER, LAYOUT_EVERY_MS, fmt, shapeText, numel, clip,
           summaryText, nodeClass, nodeTitle, layout, paintGraph, boxW, boxH, roundRect };
})();
if (typeof window !== "undefined") window.GradGraph = GradGraph;
