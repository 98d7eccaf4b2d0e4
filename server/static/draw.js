// gradserve drawing helpers shared by the viewer page and the notebook view of a RunResult (_repr_html_):
// a tensor's heatmap and histogram on a <canvas>, and its statistics. No dependencies.
"use strict";

const GradDraw = (() => {
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
