// The page only calls the JSON API and draws what it returns: no model arithmetic here.
"use strict";
const $ = (id) => document.getElementById(id);
const DTYPES = ["bf16", "fp16", "fp8", "fp4", "nvfp4", "int8", "int4", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "fp32"];
const FIELDS = ["model", "hardware", "chips", "weight_dtype", "kv_dtype", "context", "batch"];
let uploaded = null;
let pending = null;

function fmtTime(s) {
  if (s >= 1) return s.toPrecision(3) + " s";
  if (s >= 1e-3) return (s * 1e3).toPrecision(3) + " ms";
  return (s * 1e6).toPrecision(3) + " µs";
}
const fmtNum = (x) => x.toLocaleString("en-US", { maximumFractionDigits: 0 });
const batchValue = () => Math.max(1, Math.round(Math.pow(2, parseFloat($("batch").value))));

function fill(select, items, value) {
  select.innerHTML = "";
  for (const it of items) {
    const o = document.createElement("option");
    o.value = it.id; o.textContent = it.label; select.appendChild(o);
  }
  if (value) select.value = value;
}

function readUrl() {
  const q = new URLSearchParams(location.search);
  for (const f of FIELDS) if (q.has(f)) $(f).value = q.get(f);
}
function writeUrl() {
  const q = new URLSearchParams();
  for (const f of FIELDS) q.set(f, $(f).value);
  history.replaceState(null, "", "?" + q.toString());
}

// ---- a small SVG chart: axes, lines, points (scaling only) ----
function chart(svg, series, opts) {
  const W = 520, H = 300, L = 56, R = 10, T = 10, B = 34;
  const xs = [], ys = [];
  for (const s of series) for (let i = 0; i < s.x.length; i++) {
    if (s.y[i] > 0 && s.x[i] > 0) { xs.push(s.x[i]); ys.push(s.y[i]); }
  }
  if (!xs.length) { svg.innerHTML = ""; return; }
  const lx = opts.logx, ly = opts.logy;
  const tx = (v) => lx ? Math.log10(v) : v, ty = (v) => ly ? Math.log10(v) : v;
  let x0 = Math.min(...xs.map(tx)), x1 = Math.max(...xs.map(tx));
  let y0 = ly ? Math.min(...ys.map(ty)) : 0, y1 = Math.max(...ys.map(ty));
  if (x1 === x0) x1 = x0 + 1; if (y1 === y0) y1 = y0 + 1;
  const px = (v) => L + (tx(v) - x0) / (x1 - x0) * (W - L - R);
  const py = (v) => H - B - (ty(v) - y0) / (y1 - y0) * (H - T - B);
  let out = `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#9ca3af"/>` +
            `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#9ca3af"/>`;
  for (let k = 0; k <= 4; k++) {
    const fx = x0 + (x1 - x0) * k / 4, fy = y0 + (y1 - y0) * k / 4;
    const vx = lx ? Math.pow(10, fx) : fx, vy = ly ? Math.pow(10, fy) : fy;
    out += `<text x="${L + (W - L - R) * k / 4}" y="${H - B + 14}" text-anchor="middle">${vx.toPrecision(2)}</text>`;
    out += `<text x="${L - 4}" y="${H - B - (H - T - B) * k / 4 + 3}" text-anchor="end">${vy.toPrecision(2)}</text>`;
  }
  out += `<text x="${(L + W) / 2}" y="${H - 4}" text-anchor="middle">${opts.xlabel}</text>`;
  let ly_ = T + 10;
  for (const s of series) {
    const pts = [];
    for (let i = 0; i < s.x.length; i++) if (s.y[i] > 0 && s.x[i] > 0) pts.push(`${px(s.x[i]).toFixed(1)},${py(s.y[i]).toFixed(1)}`);
    if (s.dots) for (const p of pts) { const [a, b] = p.split(","); out += `<circle cx="${a}" cy="${b}" r="2" fill="${s.color}" opacity="0.6"/>`; }
    else out += `<polyline class="series" data-name="${s.name}" fill="none" stroke="${s.color}" stroke-width="${s.width || 1.5}" points="${pts.join(" ")}"/>`;
    out += `<text x="${W - R - 4}" y="${ly_}" text-anchor="end" style="fill:${s.color}">${s.name}</text>`; ly_ += 12;
  }
  if (opts.markX) out += `<line x1="${px(opts.markX)}" y1="${T}" x2="${px(opts.markX)}" y2="${H - B}" stroke="#7c3aed" stroke-dasharray="3,3"/>`;
  svg.innerHTML = out;
}

function draw(r) {
  const ms = (a) => a.map((v) => v * 1e3);
  const a = r.at_batch;
  $("n_floor").textContent = fmtTime(r.latency_floor_s);
  $("n_bstar").textContent = fmtNum(r.balance_batch);
  $("n_step").textContent = fmtTime(a.t_step_s);
  $("n_bound").textContent = a.bound;
  $("n_tps").textContent = fmtNum(a.tokens_per_s);
  $("n_usd").textContent = a.usd_per_million_tokens === null ? "no price" : "$" + a.usd_per_million_tokens.toPrecision(3);
  $("n_fits").textContent = a.fits ? "yes" : "NO";
  $("n_max").textContent = fmtNum(r.max_batch);
  $("regime").textContent = a.regime;
  const sb = r.step_vs_batch;
  chart($("c_batch"), [
    { name: "compute", x: sb.batch, y: ms(sb.t_compute_s), color: "#2563eb" },
    { name: "weights", x: sb.batch, y: ms(sb.t_weights_s), color: "#ea580c" },
    { name: "KV cache", x: sb.batch, y: ms(sb.t_kv_s), color: "#16a34a" },
    { name: "memory", x: sb.batch, y: ms(sb.t_memory_s), color: "#dc2626" },
    { name: "step", x: sb.batch, y: ms(sb.t_step_s), color: "#111827", width: 3.5 },
  ], { xlabel: "batch", markX: a.batch });
  const sc = r.step_vs_context;
  chart($("c_context"), [
    { name: "compute", x: sc.context_len, y: ms(sc.t_compute_s), color: "#2563eb" },
    { name: "memory", x: sc.context_len, y: ms(sc.t_memory_s), color: "#dc2626" },
    { name: "step", x: sc.context_len, y: ms(sc.t_step_s), color: "#111827", width: 3.5 },
  ], { xlabel: "context (tokens)", logx: true, logy: true });
  if (r.cost_vs_batch) {
    const c = r.cost_vs_batch;
    chart($("c_cost"), [
      { name: "weights/B", x: c.batch, y: c.weights_usd_per_million, color: "#ea580c" },
      { name: "compute/B", x: c.batch, y: c.compute_usd_per_million, color: "#2563eb" },
      { name: "KV/B", x: c.batch, y: c.kv_usd_per_million, color: "#16a34a" },
      { name: "step", x: c.batch, y: c.step_usd_per_million, color: "#111827", width: 3 },
    ], { xlabel: "batch", logx: true, logy: true });
  } else $("c_cost").innerHTML = "";
  if (r.frontier) {
    const f = r.frontier;
    const fx = f.frontier.map((i) => f.usd_per_million[i]), fy = f.frontier.map((i) => f.latency_s[i] * 1e3);
    chart($("c_front"), [
      { name: "configs", x: f.usd_per_million, y: f.latency_s.map((v) => v * 1e3), color: "#9ca3af", dots: true },
      { name: "frontier", x: fx, y: fy, color: "#111827", width: 2 },
    ], { xlabel: "$ per million tokens", logx: true, logy: true });
  } else $("c_front").innerHTML = "";
}

async function update() {
  $("batch_out").textContent = fmtNum(batchValue());
  writeUrl();
  const body = {
    hardware: $("hardware").value, chips: parseInt($("chips").value, 10) || 1,
    weight_dtype: $("weight_dtype").value, kv_dtype: $("kv_dtype").value,
    context_len: parseInt($("context").value, 10) || 1, batch: batchValue(),
  };
  if (uploaded) body.config = uploaded; else body.model = $("model").value;
  const token = {};
  pending = token;
  try {
    const res = await fetch("/api/report", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const data = await res.json();
    if (pending !== token) return;
    if (!res.ok) {
      const d = data.detail;
      $("error").textContent = typeof d === "string" ? `${data.field}: ${d}` : JSON.stringify(d);
      return;
    }
    $("error").textContent = "";
    draw(data);
    document.body.dataset.ready = String(Date.now());
  } catch (e) { $("error").textContent = String(e); }
}

let timer = null;
const later = () => { clearTimeout(timer); timer = setTimeout(update, 60); };

async function main() {
  const [models, hardware] = await Promise.all([fetch("/api/models").then((r) => r.json()), fetch("/api/hardware").then((r) => r.json())]);
  fill($("model"), models.map((m) => ({ id: m.id, label: m.id })), "llama-3.1-8b");
  fill($("hardware"), hardware.map((h) => ({ id: h.id, label: h.id + (h.status === "announced" ? " (announced)" : "") })), "h100-sxm");
  fill($("weight_dtype"), DTYPES.map((d) => ({ id: d, label: d })), "bf16");
  fill($("kv_dtype"), DTYPES.map((d) => ({ id: d, label: d })), "bf16");
  readUrl();
  for (const f of FIELDS) { $(f).addEventListener("input", later); $(f).addEventListener("change", later); }
  $("model").addEventListener("change", () => { uploaded = null; $("upload").value = ""; });
  $("upload").addEventListener("change", async () => {
    const file = $("upload").files[0];
    if (!file) { uploaded = null; later(); return; }
    try { uploaded = JSON.parse(await file.text()); $("error").textContent = ""; later(); }
    catch (e) { uploaded = null; $("error").textContent = "config: the file is not JSON"; }
  });
  update();
}
main();
