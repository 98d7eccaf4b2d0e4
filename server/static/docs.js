// gradserve API page (/docs): every route of /openapi.json with its parameters, body, answers and a curl line,
// drawn here so that it works offline (FastAPI's Swagger UI loads its script from a CDN).
"use strict";
const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

let spec = null;

function resolve(schema) {
  // a $ref to #/components/schemas/NAME, followed
  let s = schema || {};
  for (let i = 0; i < 8 && s.$ref; i++) s = s.$ref.split("/").slice(1).reduce((o, k) => (o || {})[k], spec) || {};
  return s;
}

function typeText(schema, depth = 0) {
  const s = schema || {};
  if (s.$ref) return s.$ref.split("/").pop();
  const alts = s.oneOf || s.anyOf;
  if (alts) return depth > 2 ? "…" : alts.map((a) => typeText(a, depth + 1)).join(" | ");
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (s.type === "array") return `${s.items && Object.keys(s.items).length ? typeText(s.items, depth + 1) : "any"}[]`;
  if (s.type === "object" && s.additionalProperties && typeof s.additionalProperties === "object")
    return `{name: ${depth > 2 ? "…" : typeText(s.additionalProperties, depth + 1)}}`;
  return s.type || "any";
}

function table(rows, head) {
  const t = el("table");
  if (head) { const tr = t.insertRow(); for (const h of head) tr.appendChild(el("th", h)); }
  for (const r of rows) {
    const tr = t.insertRow();
    r.forEach((v, i) => { const td = tr.insertCell(); if (v instanceof Node) td.appendChild(v); else td.textContent = v; if (i === 1) td.className = "type"; });
  }
  return t;
}

function properties(schema) {
  // an object schema's fields: name, type, required, description
  const s = resolve(schema);
  const required = new Set(s.required || []);
  return Object.entries(s.properties || {}).map(([k, p]) => {
    const each = p.additionalProperties && typeof p.additionalProperties === "object" ? p.additionalProperties.description : "";
    return [k + (required.has(k) ? " *" : ""), typeText(p),
      [(p.description || resolve(p).description || "").split("\n")[0], each ? `each: ${each}` : ""].filter(Boolean).join("; ")];
  });
}

function curlLine(path, method, op) {
  const url = location.origin + path.replace(/\{(\w+)\}/g, (_, k) => (k === "session_id" ? "$ID" : `$${k.toUpperCase()}`));
  const parts = [`curl -s${method === "get" ? "" : ` -X${method.toUpperCase()}`} '${url}'`];
  if (op.security && op.security.length) parts.push(`-H "Authorization: Bearer $TOKEN"`);
  const content = (op.requestBody || {}).content || {};
  if (content["application/json"]) {
    const s = resolve(content["application/json"].schema);
    const body = {};
    for (const k of s.required || []) body[k] = k === "program" ? "y = (x * x).sum()\ny.backward()" : "…";
    parts.push("-H 'Content-Type: application/json'", `-d '${JSON.stringify(body)}'`);
  } else if (content["application/octet-stream"]) parts.push("--data-binary @file");
  return parts.join(" \\\n     ");
}

function operation(path, method, op) {
  const box = el("section", null, "op");
  box.id = `${method}-${path}`;
  const h = el("h2");
  h.append(el("span", method.toUpperCase(), `method ${method}`), el("code", path));
  if (op.security && op.security.length) h.appendChild(el("span", "Bearer", "auth"));
  box.appendChild(h);
  if (op.summary) box.appendChild(el("b", op.summary));
  if (op.description) box.appendChild(el("p", op.description.trim(), "desc"));
  const params = op.parameters || [];
  if (params.length) {
    box.appendChild(el("h3", "Parameters"));
    box.appendChild(table(params.map((p) => [`${p.name}${p.required ? " *" : ""}`, `${typeText(p.schema)} (${p.in})`,
      (p.description || (p.schema || {}).description || "").split("\n")[0]])));
  }
  const content = (op.requestBody || {}).content || {};
  for (const [type, media] of Object.entries(content)) {
    box.appendChild(el("h3", `Body (${type})${media.schema ? `: ${typeText(media.schema)}` : ""}`));
    const rows = properties(media.schema);
    if (rows.length) box.appendChild(table(rows));
    else if (media.schema && resolve(media.schema).description) box.appendChild(el("p", resolve(media.schema).description, "desc"));
  }
  const answers = Object.entries(op.responses || {}).map(([code, r]) => {
    const media = Object.entries(r.content || {})[0];
    return [code, media && media[1].schema ? typeText(media[1].schema) : "", (r.description || "").split("\n")[0]];
  });
  if (answers.length) { box.appendChild(el("h3", "Answers")); box.appendChild(table(answers)); }
  box.appendChild(el("pre", curlLine(path, method, op)));
  return box;
}

async function main() {
  try {
    const r = await fetch("/openapi.json");
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    spec = await r.json();
  } catch (e) {
    $("ops").replaceChildren(el("p", `could not read /openapi.json: ${e.message}`, "note"));
    return;
  }
  const info = spec.info || {};
  document.title = `${info.title || "gradserve"} API ${info.version || ""}`;
  $("title").textContent = `API ${info.version || ""}`;
  $("description").textContent = info.description || "";
  const ops = [], toc = [];
  for (const [path, methods] of Object.entries(spec.paths || {})) {
    for (const [method, op] of Object.entries(methods)) {
      if (!["get", "post", "put", "delete", "patch"].includes(method)) continue;
      const box = operation(path, method, op);
      ops.push(box);
      const a = el("a", `${method.toUpperCase()} ${path}${op.summary ? ` — ${op.summary}` : ""}`);
      a.href = `#${box.id}`;
      toc.push(a);
    }
  }
  $("toc").replaceChildren(...toc);
  $("ops").replaceChildren(...ops);
  if (location.hash) { const t = document.getElementById(decodeURIComponent(location.hash.slice(1))); if (t) t.scrollIntoView(); }
}

main();
