// The page only calls the JSON API and draws what it returns: no model arithmetic here
// (unit conversion for display only).
"use strict";
const $ = (id) => document.getElementById(id);
const DTYPES = ["bf16", "fp16", "fp8", "fp4", "nvfp4", "int8", "int4", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "fp32"];
// always in the URL
const FIELDS = ["model", "hardware", "chips", "weight_dtype", "kv_dtype", "context", "batch", "engine"];
// in the URL when set (empty = the server's rule chooses)
const SPLIT = ["tp", "pp", "ep", "replicas"];
// the chip editor: record key, label, unit
const CHIP_FIELDS = [
  ["bf16_dense_tflops", "bf16 dense", "TFLOP/s"],
  ["fp8_dense_tflops", "fp8 dense", "TFLOP/s"],
  ["fp4_dense_tflops", "fp4 dense", "TFLOP/s"],
  ["memory_bandwidth_tb_per_s", "memory bandwidth", "TB/s"],
  ["memory_capacity_gb", "memory capacity", "GB"],
  ["scale_up_domain_chips", "scale-up domain", "chips"],
  ["scale_up_bandwidth_gb_per_s", "scale-up link", "GB/s per chip"],
  ["scale_out_bandwidth_gb_per_s", "scale-out", "GB/s per chip"],
  ["price_usd_per_hour", "price", "$ per chip-hour"],
  ["power_w", "power", "W"],
];
const C = {
  compute: "#2563eb", weights: "#ea580c", kv: "#16a34a", comm: "#9333ea", memory: "#dc2626",
  ideal: "#111827", engine: "#0f766e", dots: "#9ca3af", mark: "#7c3aed",
};
let uploaded = null;
let pending = null;
let hardwareById = {};
let engines = [];

// ---- formatting (display only) ----
function fmtTime(s) {
  if (s === null || s === undefined) return "–";
  if (s >= 1) return s.toPrecision(3) + " s";
  if (s >= 1e-3) return (s * 1e3).toPrecision(3) + " ms";
  return (s * 1e6).toPrecision(3) + " µs";
}
// a range in the unit of its centre value, e.g. "(7.70–11.4)"
function fmtRange(lo, hi, centre) {
  const k = centre >= 1 ? 1 : centre >= 1e-3 ? 1e3 : 1e6;
  return `(${(lo * k).toPrecision(3)}–${(hi * k).toPrecision(3)})`;
}
const fmtNum = (x) => (x === null || x === undefined ? "–" : x.toLocaleString("en-US", { maximumFractionDigits: 0 }));
const fmtGB = (b) => (b / 1e9).toLocaleString("en-US", { maximumFractionDigits: 1 }) + " GB";
const batchValue = () => Math.max(1, Math.round(Math.pow(2, parseFloat($("batch").value))));

function fill(select, items, value) {
  select.innerHTML = "";
  for (const it of items) {
    const o = document.createElement("option");
    o.value = it.id; o.textContent = it.label;
    if (it.title) o.title = it.title;
    select.appendChild(o);
  }
  if (value) select.value = value;
}

// ---- the chip editor ----
// the figure the editor shows for a key of a catalog record ("" when the record lacks it)
function baseValue(rec, key) {
  if (key in rec) return String(rec[key]);
  if (key === "memory_capacity_gb" && "memory_capacity_gib" in rec) {
    return String(+(rec.memory_capacity_gib * 2 ** 30 / 1e9).toPrecision(6)); // GiB -> GB for display
  }
  return "";
}
function buildChipEditor() {
  const box = $("chip_fields");
  box.innerHTML = "";
  for (const [key, label, unit] of CHIP_FIELDS) {
    const l = document.createElement("label");
    l.innerHTML = `<span>${label} <i>(${unit})</i></span>`;
    const inp = document.createElement("input");
    inp.type = "number"; inp.step = "any"; inp.id = "chip_" + key; inp.dataset.key = key;
    inp.addEventListener("input", () => { markEdits(); later(); });
    l.appendChild(inp);
    box.appendChild(l);
  }
}
function currentRecord() {
  const h = hardwareById[$("hardware").value];
  return h ? h.record : {};
}
// fill the editor from the chosen hardware's catalog record (drops every edit)
function resetChip() {
  const rec = currentRecord();
  for (const [key] of CHIP_FIELDS) {
    const inp = $("chip_" + key);
    inp.value = baseValue(rec, key);
    inp.dataset.base = inp.value;
    inp.placeholder = inp.value === "" ? "not in catalog" : "";
  }
  markEdits();
}
const chipEdits = () => CHIP_FIELDS.map(([k]) => $("chip_" + k)).filter((inp) => inp.value !== inp.dataset.base);
function markEdits() {
  const edits = chipEdits();
  for (const [k] of CHIP_FIELDS) $("chip_" + k).classList.remove("edited");
  for (const inp of edits) inp.classList.add("edited");
  const h = hardwareById[$("hardware").value];
  const name = h ? h.name : $("hardware").value;
  $("chip_state").textContent = edits.length
    ? `${name}, ${edits.length} figure${edits.length > 1 ? "s" : ""} edited`
    : `${name}, catalog figures`;
  $("chip_state").classList.toggle("edited", edits.length > 0);
  $("chip_reset").disabled = edits.length === 0;
}
// the chip record to send: the catalog record with the edits, or null when nothing is edited
function chipRecord() {
  const edits = chipEdits();
  if (!edits.length) return null;
  const base = currentRecord();
  const rec = { ...base };
  for (const inp of edits) {
    const key = inp.dataset.key, v = inp.value.trim();
    if (key === "memory_capacity_gb") delete rec.memory_capacity_gib;
    // an emptied figure the catalog had goes to the server as "" (it says which field is bad);
    // one the catalog never had stays unset
    if (v === "") { if (inp.dataset.base !== "") rec[key] = ""; else delete rec[key]; }
    else rec[key] = Number(v);
  }
  rec.id = $("hardware").value + "-edited";
  rec.name = (base.name || $("hardware").value) + " (edited)";
  return rec;
}

// ---- the URL carries the whole view ----
function readUrl() {
  const q = new URLSearchParams(location.search);
  for (const f of FIELDS) if (q.has(f)) $(f).value = q.get(f);
  for (const f of SPLIT) if (q.has(f)) $(f).value = q.get(f);
  $("pad_heads").checked = q.get("pad_heads") === "1";
  resetChip();
  let edited = false;
  for (const [key] of CHIP_FIELDS) if (q.has("chip." + key)) { $("chip_" + key).value = q.get("chip." + key); edited = true; }
  markEdits();
  if (edited) $("chip_editor").open = true;
}
function writeUrl() {
  const q = new URLSearchParams();
  for (const f of FIELDS) q.set(f, $(f).value);
  for (const f of SPLIT) if ($(f).value !== "") q.set(f, $(f).value);
  if ($("pad_heads").checked) q.set("pad_heads", "1");
  for (const inp of chipEdits()) q.set("chip." + inp.dataset.key, inp.value);
  history.replaceState(null, "", "?" + q.toString());
}

// ---- a small SVG chart: axes, ticks, lines, bands, points (scaling only) ----
function fmtTick(v) {
  const a = Math.abs(v);
  if (a >= 1e6) return +(v / 1e6).toPrecision(3) + "M";
  if (a >= 1e4) return +(v / 1e3).toPrecision(3) + "k";
  if (a === 0) return "0";
  return String(+v.toPrecision(3));
}
function linTicks(a, b) {
  const raw = (b - a) / 5, mag = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / mag;
  const step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
  const out = [];
  for (let v = Math.ceil(a / step) * step; v <= b + step * 1e-9; v += step) out.push(v);
  return out;
}
function logTicks(a, b) { // a, b: log10 of the range
  for (const mult of [[1], [1, 3], [1, 2, 5]]) {
    const out = [];
    for (let k = Math.floor(a); k <= Math.ceil(b); k++) for (const m of mult) {
      const v = m * Math.pow(10, k), lv = Math.log10(v);
      if (lv >= a - 1e-9 && lv <= b + 1e-9) out.push(v);
    }
    if (out.length >= 3) return out;
  }
  return linTicks(Math.pow(10, a), Math.pow(10, b));
}
const ok = (v) => v !== null && v !== undefined && v > 0;
function chart(svg, legend, series, opts) {
  const W = 520, H = 290, L = 50, R = 14, T = 8, B = 34;
  const xs = [], ys = [];
  for (const s of series) for (let i = 0; i < s.x.length; i++) {
    for (const y of [s.y[i], s.y2 ? s.y2[i] : null]) if (ok(y) && ok(s.x[i])) { xs.push(s.x[i]); ys.push(y); }
  }
  legend.innerHTML = series.map((s) => `<span><i style="background:${s.color};opacity:${s.band ? 0.35 : 1};height:${s.band ? 8 : s.dots ? 5 : Math.max(2, s.width || 1.5)}px${s.dash ? ";background:repeating-linear-gradient(90deg," + s.color + " 0 4px,transparent 4px 7px)" : ""}"></i>${s.name}</span>`).join("");
  if (!xs.length) { svg.innerHTML = `<text x="${W / 2}" y="${H / 2}" text-anchor="middle">${opts.empty || "nothing to draw"}</text>`; return; }
  const lx = opts.logx, ly = opts.logy;
  const tx = (v) => lx ? Math.log10(v) : v, ty = (v) => ly ? Math.log10(v) : v;
  let x0 = Math.min(...xs.map(tx)), x1 = Math.max(...xs.map(tx));
  let y0 = ly ? Math.min(...ys.map(ty)) : 0, y1 = Math.max(...ys.map(ty));
  if (x1 === x0) x1 = x0 + 1; if (y1 === y0) y1 = y0 + 1;
  if (!ly) y1 *= 1.04; // head room
  const px = (v) => L + (tx(v) - x0) / (x1 - x0) * (W - L - R);
  const py = (v) => H - B - (ty(v) - y0) / (y1 - y0) * (H - T - B);
  let out = "";
  // where the batch does not fit in memory: a grey band
  if (opts.fits && opts.fitsX) {
    let start = null;
    for (let i = 0; i <= opts.fits.length; i++) {
      const bad = i < opts.fits.length && !opts.fits[i];
      if (bad && start === null) start = i;
      if (!bad && start !== null) {
        const a = px(opts.fitsX[Math.max(0, start - 1)]), b = px(opts.fitsX[i - 1]);
        out += `<rect class="nofit" x="${a.toFixed(1)}" y="${T}" width="${Math.max(1, b - a).toFixed(1)}" height="${H - T - B}" fill="#f3f4f6"/>` +
               (b - a >= 70
                 ? `<text x="${((a + b) / 2).toFixed(1)}" y="${T + 12}" text-anchor="middle" class="muted">does not fit</text>`
                 : `<text x="${(a - 3).toFixed(1)}" y="${T + 12}" text-anchor="end" class="muted">does not fit →</text>`);
        start = null;
      }
    }
  }
  const xt = lx ? logTicks(x0, x1) : linTicks(x0, x1), yt = ly ? logTicks(y0, y1) : linTicks(y0, y1);
  for (const v of xt) {
    const x = px(v).toFixed(1);
    out += `<line x1="${x}" y1="${T}" x2="${x}" y2="${H - B}" stroke="#f0f0f0"/>` +
           `<text x="${x}" y="${H - B + 13}" text-anchor="middle">${fmtTick(v)}</text>`;
  }
  for (const v of yt) {
    const y = py(v).toFixed(1);
    out += `<line x1="${L}" y1="${y}" x2="${W - R}" y2="${y}" stroke="#f0f0f0"/>` +
           `<text x="${L - 4}" y="${(+y + 3).toFixed(1)}" text-anchor="end">${fmtTick(v)}</text>`;
  }
  out += `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#9ca3af"/>` +
         `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#9ca3af"/>`;
  out += `<text x="${(L + W - R) / 2}" y="${H - 5}" text-anchor="middle">${opts.xlabel}</text>`;
  out += `<text x="11" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 11 ${(T + H - B) / 2})">${opts.ylabel}</text>`;
  for (const s of series) {
    const pts = [], hi = [];
    for (let i = 0; i < s.x.length; i++) {
      if (!ok(s.x[i]) || !ok(s.y[i])) continue;
      pts.push(`${px(s.x[i]).toFixed(1)},${py(s.y[i]).toFixed(1)}`);
      if (s.band && ok(s.y2[i])) hi.push(`${px(s.x[i]).toFixed(1)},${py(s.y2[i]).toFixed(1)}`);
    }
    if (s.band) out += `<polygon class="band" data-name="${s.name}" fill="${s.color}" opacity="0.16" stroke="none" points="${pts.concat(hi.reverse()).join(" ")}"/>`;
    else if (s.dots) for (const p of pts) { const [a, b] = p.split(","); out += `<circle cx="${a}" cy="${b}" r="2" fill="${s.color}" opacity="0.6"/>`; }
    else out += `<polyline class="series" data-name="${s.name}" fill="none" stroke="${s.color}" stroke-width="${s.width || 1.5}"${s.dash ? ' stroke-dasharray="5,3"' : ""} points="${pts.join(" ")}"/>`;
  }
  if (ok(opts.markX) && tx(opts.markX) >= x0 && tx(opts.markX) <= x1) {
    out += `<line x1="${px(opts.markX).toFixed(1)}" y1="${T}" x2="${px(opts.markX).toFixed(1)}" y2="${H - B}" stroke="${C.mark}" stroke-dasharray="3,3"/>`;
  }
  svg.innerHTML = out;
}
const anyPositive = (a) => a.some((v) => ok(v));

// the ideal step and the engine's step with its range, for a step curve (seconds -> ms)
function stepSeries(c, x, eng, ms) {
  const out = [];
  if (eng !== "ideal") {
    out.push({ name: `${eng} range`, x, y: ms(c.t_step_low_s), y2: ms(c.t_step_high_s), color: C.engine, band: true });
    out.push({ name: `${eng} step`, x, y: ms(c.t_step_s), color: C.engine, width: 2.5 });
  }
  out.push({ name: "ideal step", x, y: ms(c.t_ideal_s), color: C.ideal, width: eng === "ideal" ? 3 : 2 });
  return out;
}

function draw(r) {
  const ms = (a) => a.map((v) => (v === null ? null : v * 1e3));
  const a = r.at_batch, eng = r.engine, ranged = a.t_step_low_s !== null;
  document.body.dataset.engine = eng;
  $("split").textContent = r.split;
  $("n_batch").textContent = fmtNum(a.batch);
  const step = $("n_step");
  step.dataset.idealS = a.t_ideal_s;
  step.dataset.stepS = a.t_step_s;
  step.textContent = eng === "ideal"
    ? `ideal ${fmtTime(a.t_ideal_s)}`
    : `ideal ${fmtTime(a.t_ideal_s)} · ${eng} ${fmtTime(a.t_step_s)}` + (ranged ? " " + fmtRange(a.t_step_low_s, a.t_step_high_s, a.t_step_s) : "");
  const e = engines.find((x) => x.id === eng);
  $("n_engine_note").textContent = !e ? "" : eng === "ideal"
    ? `engine ideal: ${e.note}`
    : `engine ${eng}: ${e.note}` + (e.low !== null ? `; range ×${e.low.toFixed(2)}–${e.high.toFixed(2)} of its estimate` : "");
  $("l_tps").textContent = `(${eng})`;
  $("l_usd").textContent = `(${eng})`;
  $("n_tps").textContent = fmtNum(a.tokens_per_s);
  $("n_usd").textContent = a.usd_per_million_tokens === null ? "no price" : "$" + a.usd_per_million_tokens.toPrecision(3);
  $("n_bound").textContent = a.bound;
  $("n_floor").textContent = fmtTime(r.latency_floor_s);
  $("n_bstar").textContent = fmtNum(r.balance_batch);
  $("n_mem").textContent = `${fmtGB(a.memory_per_chip_bytes)} of ${fmtGB(a.memory_capacity_bytes)}`;
  $("n_mem").classList.toggle("bad", !a.fits);
  $("n_max").textContent = fmtNum(r.max_batch);
  $("regime_text").textContent = a.regime;
  $("fit").textContent = a.fit_message || "";

  const sb = r.step_vs_batch;
  const terms = (c, x) => {
    const out = [
      { name: "compute", x, y: ms(c.t_compute_s), color: C.compute },
      { name: "weights", x, y: ms(c.t_weights_s), color: C.weights },
      { name: "KV cache", x, y: ms(c.t_kv_s), color: C.kv },
    ];
    if (anyPositive(c.t_comm_s)) out.push({ name: "communication", x, y: ms(c.t_comm_s), color: C.comm });
    out.push({ name: "memory (weights + KV)", x, y: ms(c.t_memory_s), color: C.memory, dash: true, width: 1.2 });
    return out;
  };
  chart($("c_batch"), $("k_batch"), [...terms(sb, sb.batch), ...stepSeries(sb, sb.batch, eng, ms)],
    { xlabel: "batch (sequences)", ylabel: "ms per step", markX: a.batch, fits: sb.fits, fitsX: sb.batch });
  const sc = r.step_vs_context;
  chart($("c_context"), $("k_context"), [...terms(sc, sc.context_len), ...stepSeries(sc, sc.context_len, eng, ms)],
    { xlabel: "context (tokens)", ylabel: "ms per step", logx: true, logy: true, fits: sc.fits, fitsX: sc.context_len,
      markX: parseInt($("context").value, 10) });
  if (r.cost_vs_batch) {
    const c = r.cost_vs_batch, x = c.batch;
    const s = [
      { name: "weights", x, y: c.weights_usd_per_million, color: C.weights },
      { name: "compute", x, y: c.compute_usd_per_million, color: C.compute },
      { name: "KV cache", x, y: c.kv_usd_per_million, color: C.kv },
    ];
    if (anyPositive(c.communication_usd_per_million)) s.push({ name: "communication", x, y: c.communication_usd_per_million, color: C.comm });
    if (eng !== "ideal") s.push({ name: eng, x, y: c.engine_usd_per_million, color: C.engine, width: 2.5 });
    s.push({ name: "ideal", x, y: c.step_usd_per_million, color: C.ideal, width: eng === "ideal" ? 3 : 2 });
    chart($("c_cost"), $("k_cost"), s, { xlabel: "batch (sequences)", ylabel: "$ per million tokens", logx: true, logy: true, markX: a.batch });
  } else chart($("c_cost"), $("k_cost"), [], { empty: "no price for this chip: set one in the chip editor" });
  $("front_engine").textContent = `(${eng}; log axes)`;
  if (r.frontier) {
    const f = r.frontier;
    const fx = f.frontier.map((i) => f.usd_per_million[i]), fy = f.frontier.map((i) => f.latency_s[i] * 1e3);
    chart($("c_front"), $("k_front"), [
      { name: "chips × batch", x: f.usd_per_million, y: f.latency_s.map((v) => (v === null ? null : v * 1e3)), color: C.dots, dots: true },
      { name: `frontier (${eng})`, x: fx, y: fy, color: eng === "ideal" ? C.ideal : C.engine, width: 2 },
    ], { xlabel: "$ per million tokens", ylabel: "ms per token", logx: true, logy: true });
  } else chart($("c_front"), $("k_front"), [], { empty: "no price for this chip: set one in the chip editor" });
}

// the server's 4xx body as one line naming the field
function errorLine(data, status) {
  const d = data && data.detail;
  if (typeof d === "string") return data.field && !d.includes(data.field) ? `${data.field}: ${d}` : d;
  if (Array.isArray(d) && d.length) {
    const x = d[0], loc = (x.loc || []).filter((p) => p !== "body").join(".");
    return `${loc || data.field || "request"}: ${x.msg}`;
  }
  return `the server answered ${status}`;
}

function requestBody() {
  const body = {
    chips: parseInt($("chips").value, 10) || 1,
    weight_dtype: $("weight_dtype").value, kv_dtype: $("kv_dtype").value,
    context_len: parseInt($("context").value, 10) || 1, batch: batchValue(),
    engine: $("engine").value || "calibrated",
  };
  // split degrees: a number as typed (the server says what is wrong with it), empty = auto
  for (const f of SPLIT) {
    const v = $(f).value.trim();
    if (v !== "") body[f] = Number.isInteger(Number(v)) ? Number(v) : v;
  }
  if ($("pad_heads").checked) body.pad_heads = true;
  const chip = chipRecord();
  if (chip) body.chip = chip; else body.hardware = $("hardware").value;
  if (uploaded) body.config = uploaded; else body.model = $("model").value;
  return body;
}

async function update() {
  $("batch_out").textContent = fmtNum(batchValue());
  writeUrl();
  const token = {};
  pending = token;
  try {
    const res = await fetch("/api/report", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestBody()) });
    const data = await res.json().catch(() => null);
    if (pending !== token) return;
    for (const el of document.querySelectorAll(".bad_field")) el.classList.remove("bad_field");
    if (!res.ok) {
      $("error").textContent = errorLine(data, res.status);
      // the input the server named, when it is one of ours
      const named = data && data.field && ($("chip_" + data.field) || (SPLIT.includes(data.field) ? $(data.field) : null));
      if (named) named.classList.add("bad_field");
      document.body.classList.add("stale");
    } else {
      $("error").textContent = "";
      document.body.classList.remove("stale");
      draw(data);
      document.body.dataset.ready = String(Date.now());
    }
  } catch (e) {
    if (pending !== token) return;
    $("error").textContent = String(e);
    document.body.classList.add("stale");
  }
  document.body.dataset.settled = String(Date.now());
  if (pending === token && timer === null) delete document.body.dataset.busy;
}

// body[data-busy] is set from an input until the answer to the last one is drawn (tests wait on it)
let timer = null;
const later = () => {
  document.body.dataset.busy = "1";
  clearTimeout(timer);
  timer = setTimeout(() => { timer = null; update(); }, 60);
};

async function main() {
  const [models, hardware, engineList] = await Promise.all(
    ["/api/models", "/api/hardware", "/api/engines"].map((u) => fetch(u).then((r) => r.json())));
  engines = engineList;
  hardwareById = Object.fromEntries(hardware.map((h) => [h.id, h]));
  fill($("model"), models.map((m) => ({ id: m.id, label: m.id })), "llama-3.1-8b");
  fill($("hardware"), hardware.map((h) => ({ id: h.id, label: h.id + (h.status === "announced" ? " (announced)" : "") })), "h100-sxm");
  fill($("weight_dtype"), DTYPES.map((d) => ({ id: d, label: d })), "bf16");
  fill($("kv_dtype"), DTYPES.map((d) => ({ id: d, label: d })), "bf16");
  const def = engines.find((e) => e.default);
  fill($("engine"), engines.map((e) => ({
    id: e.id, title: e.note,
    label: e.id + (e.id === "ideal" ? " (lower bound)" : e.default ? " (default)" : ""),
  })), def ? def.id : "calibrated");
  buildChipEditor();
  readUrl();
  for (const f of [...FIELDS, ...SPLIT, "pad_heads"]) { $(f).addEventListener("input", later); $(f).addEventListener("change", later); }
  $("hardware").addEventListener("change", () => { resetChip(); later(); });
  $("chip_reset").addEventListener("click", () => { resetChip(); later(); });
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
