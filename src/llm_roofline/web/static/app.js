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
  // the other views' keys stay; this view's are rewritten
  const q = new URLSearchParams(location.search);
  for (const k of [...q.keys()]) if (FIELDS.includes(k) || SPLIT.includes(k) || k === "pad_heads" || k.startsWith("chip.")) q.delete(k);
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
const okPositive = (v) => v !== null && v !== undefined && v > 0;
let ok = okPositive;
const okZero = (v) => v !== null && v !== undefined && v >= 0;
// opts.zeros: values of 0 are drawn too (linear axes only: counts, shares)
function chart(svg, legend, series, opts) {
  ok = opts.zeros && !opts.logx && !opts.logy ? okZero : okPositive;
  try { drawChart(svg, legend, series, opts); } finally { ok = okPositive; }
}
function drawChart(svg, legend, series, opts) {
  const W = 520, H = 290, L = 50, R = 14, T = 8, B = 34;
  const xs = [], ys = [];
  for (const s of series) for (let i = 0; i < s.x.length; i++) {
    for (const y of [s.y[i], s.y2 ? s.y2[i] : null]) if (ok(y) && ok(s.x[i])) { xs.push(s.x[i]); ys.push(y); }
  }
  legend.innerHTML = series.map((s) => `<span><i style="background:${s.color};opacity:${s.band ? 0.35 : 1};height:${s.band ? 8 : s.dots ? 5 : Math.max(2, s.width || 1.5)}px${s.dash ? ";background:repeating-linear-gradient(90deg," + s.color + " 0 4px,transparent 4px 7px)" : ""}"></i>${s.name}</span>`).join("");
  if (!xs.length) { svg.innerHTML = `<text x="${W / 2}" y="${H / 2}" text-anchor="middle">${esc(opts.empty || "nothing to draw")}</text>`; return; }
  const lx = opts.logx, ly = opts.logy;
  const tx = (v) => lx ? Math.log10(v) : v, ty = (v) => ly ? Math.log10(v) : v;
  let x0 = Math.min(...xs.map(tx)), x1 = Math.max(...xs.map(tx));
  let y0 = ly ? Math.min(...ys.map(ty)) : 0, y1 = Math.max(...ys.map(ty));
  // one value: a decade around it on a log axis, from it up on a linear one
  if (x1 === x0) { if (lx) { x0 -= 0.5; x1 += 0.5; } else x1 = x0 + 1; }
  if (y1 === y0) { if (ly) { y0 -= 0.5; y1 += 0.5; } else y1 = y0 + 1; }
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
    else if (s.dots) for (const p of pts) { const [a, b] = p.split(","); out += `<circle cx="${a}" cy="${b}" r="${s.r || 2}" fill="${s.color}" opacity="0.6"${s.dotClass ? ` class="${s.dotClass}"` : ""}/>`; }
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
      LR.fireDeployment(requestBody());
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
  initPlanning(hardware);
  LR.deployment = requestBody;
  for (const a of document.querySelectorAll("nav#views a")) a.addEventListener("click", (ev) => { ev.preventDefault(); LR.showView(a.dataset.view); });
  LR.showView(LR.view());
  readUrl();
  for (const f of [...FIELDS, ...SPLIT, "pad_heads"]) { $(f).addEventListener("input", later); $(f).addEventListener("change", later); }
  $("hardware").addEventListener("change", () => { resetChip(); later(); });
  // a result of the planning view is for the deployment it was run on: say when it changed
  const deploymentFields = FIELDS.filter((f) => f !== "context" && f !== "batch");
  for (const f of [...deploymentFields, ...SPLIT, "pad_heads", "upload"]) $(f).addEventListener("change", outdated);
  $("chip_fields").addEventListener("input", outdated);
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

// ---- the planning view: simulate this deployment, plan a fleet (the API does the work) ----
const PLANNING = () => $("planning");
const HW_MAX = 6;

function initPlanning(hardware) {
  const sel = PLANNING().querySelector('select[name="hardware"]');
  sel.innerHTML = "";
  for (const h of hardware) {
    const o = document.createElement("option");
    o.value = h.id;
    // plan ranks fleets by cost: a chip without a price cannot be planned
    o.disabled = !h.price_usd_per_hour;
    o.textContent = h.id + (h.price_usd_per_hour ? ` ($${h.price_usd_per_hour}/h)` : " (no price)");
    sel.appendChild(o);
  }
  const first = sel.querySelector('option[value="h100-sxm"]');
  if (first) first.selected = true;
  $("sim_run").addEventListener("click", runSimulate);
  $("plan_run").addEventListener("click", runPlan);
}

// the fields of the view for `scope` ("sim" or "plan"): name -> value as typed (a number
// where the input is numeric, left out when empty: the server's default)
function planningFields(scope) {
  const out = {};
  for (const el of PLANNING().querySelectorAll("[name]")) {
    if (!(el.dataset.for || "").split(" ").includes(scope)) continue;
    const key = scope === "sim" && el.dataset.sim ? el.dataset.sim : el.name;
    if (el.multiple) { out[key] = [...el.selectedOptions].map((o) => o.value); continue; }
    const v = el.value.trim();
    if (v === "") continue;
    out[key] = el.type === "number" && v !== "" && !Number.isNaN(Number(v)) ? Number(v) : v;
  }
  return out;
}

// the API field a 4xx names -> the input of this view that sets it
function planningInput(field, scope) {
  for (const el of PLANNING().querySelectorAll("[name]")) {
    if (!(el.dataset.for || "").split(" ").includes(scope)) continue;
    if (el.name === field || el.dataset.sim === field) return el;
  }
  return null;
}

function setPlanningState(kind, state, status) {
  PLANNING().dataset[kind + "State"] = state;
  const busy = PLANNING().dataset.simState === "busy" || PLANNING().dataset.planState === "busy";
  $("sim_run").disabled = PLANNING().dataset.simState === "busy";
  $("plan_run").disabled = PLANNING().dataset.planState === "busy";
  PLANNING().classList.toggle("busy", busy);
  $("p_status").textContent = status;
}

function outdated() {
  for (const id of ["sim_out", "plan_out"]) {
    if ($(id).hidden) continue;
    $(id).classList.add("outdated");
  }
  if (!$("sim_out").hidden || !$("plan_out").hidden) {
    $("p_status").textContent = "The deployment changed since this result: run it again to update it.";
  }
}

async function postJson(url, body) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const data = await res.json().catch(() => null);
  return { res, data };
}

// an error in the view: the server's line naming the field, the input marked, and the
// result area saying there is no result (never a blank or an old chart)
function planningError(kind, data, status, scope) {
  const line = typeof data === "string" ? data : errorLine(data, status);
  $("p_error").textContent = line;
  const named = data && data.field ? planningInput(data.field, scope) : null;
  if (named) named.classList.add("bad_field");
  const out = $(kind === "sim" ? "sim_out" : "plan_out");
  out.hidden = false;
  out.classList.remove("outdated");
  out.classList.add("failed");
  if (kind === "sim") {
    $("sim_head").textContent = "No result.";
    $("sim_table").innerHTML = "";
    $("sim_numbers").innerHTML = "";
    for (const c of ["ttft", "tpot", "queue", "kv"]) chart($("c_sim_" + c), $("k_sim_" + c), [], { empty: "no result: " + line });
  } else {
    $("plan_head").textContent = "No result.";
    $("plan_best").innerHTML = "";
    $("plan_table").innerHTML = "";
    chart($("c_plan"), $("k_plan"), [], { empty: "no result: " + line });
  }
}

function clearMarks() {
  $("p_error").textContent = "";
  for (const el of PLANNING().querySelectorAll(".bad_field")) el.classList.remove("bad_field");
}

const cell = (v) => `<td>${v}</td>`;
const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const fmtRate = (x) => (x === null || x === undefined ? "–" : x.toPrecision(3));
const fmtUsd = (x) => (x === null || x === undefined ? "–" : "$" + (x >= 100 ? fmtNum(x) : x.toPrecision(3)));

async function runSimulate() {
  clearMarks();
  const body = requestBody();
  delete body.context_len; delete body.batch;  // the report's, not a traffic's
  Object.assign(body, planningFields("sim"));
  setPlanningState("sim", "busy", "Simulating the traffic on this deployment…");
  try {
    const { res, data } = await postJson("/api/simulate", body);
    if (!res.ok) { planningError("sim", data, res.status, "sim"); setPlanningState("sim", "error", ""); return; }
    drawSimulation(data);
    setPlanningState("sim", "done", "");
  } catch (e) {
    planningError("sim", String(e), 0, "sim");
    setPlanningState("sim", "error", "");
  }
}

function drawSimulation(r) {
  const out = $("sim_out");
  out.hidden = false;
  out.classList.remove("outdated", "failed");
  const dep = r.disaggregated
    ? `disaggregated: ${r.prefill_instances} prefill + ${r.decode_instances} decode instances (${r.split})`
    : r.split;
  $("sim_head").innerHTML = (r.stable
    ? `<b class="ok" id="sim_stable">stable</b>`
    : `<b class="bad" id="sim_stable">UNSTABLE</b> ${fmtRate(r.offered_rps)} requests/s offered, more than the ${fmtRate(r.capacity_rps)} this deployment sustains: the queue grows without bound, so no latency percentile is given.`)
    + ` <span class="muted">${esc(r.workload)}; ${esc(dep)}; engine ${esc(r.engine)}</span>`;
  const rows = [["time to first token", "ttft"], ["time per output token", "tpot"], ["end to end", "e2e"]];
  $("sim_table").innerHTML = "<tr><th></th><th>p50</th><th>p90</th><th>p99</th><th>mean</th></tr>" +
    rows.map(([name, k]) => `<tr><th>${name}</th>` + ["p50", "p90", "p99", "mean"].map((q) => `<td data-key="${k}_${q}_s">${fmtTime(r[`${k}_${q}_s`])}</td>`).join("") + "</tr>").join("");
  const nums = [
    ["capacity", `${fmtRate(r.capacity_rps)} requests/s`, "capacity_rps"],
    ["throughput", `${fmtRate(r.request_throughput_rps)} requests/s · ${fmtNum(r.output_tokens_per_s)} output tokens/s`, "request_throughput_rps"],
    ["goodput", `${fmtRate(r.goodput_rps)} requests/s meeting the targets`, "goodput_rps"],
    ["KV memory", `${fmtNum(r.kv_tokens_per_instance)} tokens per instance · ${fmtNum(r.preemptions)} preemptions`, "kv_tokens_per_instance"],
  ];
  $("sim_numbers").innerHTML = nums.map(([l, v, k]) => `<div class="num"><span>${l}</span><b data-key="${k}">${v}</b></div>`).join("");
  const ms = (a) => a.map((v) => (v === null || v === undefined ? null : v * 1e3));
  const load = r.latency_vs_load || [];
  const x = load.map((row) => row.rate_rps);
  const mark = r.offered_rps;
  const qs = [["p50", C.compute, 1.5], ["p90", C.weights, 1.5], ["p99", C.memory, 2]];
  for (const m of ["ttft", "tpot"]) {
    chart($("c_sim_" + m), $("k_sim_" + m),
      qs.map(([q, color, width]) => ({ name: q, x, y: ms(load.map((row) => row[`${m}_${q}_s`])), color, width })),
      { xlabel: "request rate (requests/s, Poisson)", ylabel: "ms", logy: true, markX: mark, empty: "no curve: the capacity is unbounded" });
  }
  const tl = r.timeline;
  chart($("c_sim_queue"), $("k_sim_queue"), [
    { name: "waiting", x: tl.t_s, y: tl.waiting, color: C.weights },
    { name: "running", x: tl.t_s, y: tl.running, color: C.compute },
  ], { xlabel: "time (s)", ylabel: "requests", zeros: true, empty: "no timeline" });
  chart($("c_sim_kv"), $("k_sim_kv"), [
    { name: "KV memory used", x: tl.t_s, y: tl.kv_share.map((v) => (v === null ? null : v * 100)), color: C.kv },
  ], { xlabel: "time (s)", ylabel: "% of the instance's KV memory", zeros: true, empty: "no timeline" });
}

async function runPlan() {
  clearMarks();
  const body = planningFields("plan");
  if ((body.hardware || []).length > HW_MAX) {
    planningError("plan", { detail: `choose at most ${HW_MAX} hardware, not ${body.hardware.length}`, field: "hardware" }, 400, "plan");
    setPlanningState("plan", "error", "");
    return;
  }
  if (uploaded) body.config = uploaded; else body.model = $("model").value;
  body.engine = $("engine").value || "calibrated";
  body.weight_dtype = $("weight_dtype").value;
  body.kv_dtype = $("kv_dtype").value;
  setPlanningState("plan", "busy", "Planning: searching and simulating fleets (a few seconds)…");
  try {
    const { res, data } = await postJson("/api/plan", body);
    if (!res.ok) { planningError("plan", data, res.status, "plan"); setPlanningState("plan", "error", ""); return; }
    drawPlan(data);
    setPlanningState("plan", "done", "");
  } catch (e) {
    planningError("plan", String(e), 0, "plan");
    setPlanningState("plan", "error", "");
  }
}

function fleetText(b) {
  if (b.disaggregated) {
    const ps = b.prefill_split || {}, ds = b.decode_split || {};
    return `${b.prefill_instances} prefill × ${ps.chips} (tp ${ps.tp} · pp ${ps.pp}) + ${b.decode_instances} decode × ${ds.chips} (tp ${ds.tp} · pp ${ds.pp})`;
  }
  const dp = b.dp > 1 ? ` · dp ${b.dp}` : "";
  return `${b.replicas} × ${b.instance_chips} chip${b.instance_chips > 1 ? "s" : ""} (tp ${b.tp} · pp ${b.pp} · ep ${b.ep}${dp})`;
}

function drawPlan(r) {
  const out = $("plan_out");
  out.hidden = false;
  out.classList.remove("outdated", "failed");
  const b = r.best, s = r.searched || {};
  const searched = `searched ${s.instance_shapes} instance shapes, ${s.simulations} simulations, ${s.seconds === undefined ? "–" : s.seconds.toPrecision(2)} s`;
  if (b) {
    $("plan_head").innerHTML = `<b class="ok" id="plan_verdict">best plan</b> <span class="muted">${esc(searched)}</span>`;
    const rows = [
      ["hardware", b.hardware, "hardware"],
      ["chips", fmtNum(b.chips), "chips"],
      ["instances", fleetText(b), "replicas"],
      ["disaggregated", b.disaggregated ? `yes: ${b.prefill_chips} prefill + ${b.decode_chips} decode chips` : "no", "disaggregated"],
      ["cost", `${fmtUsd(b.usd_per_hour)} per hour`, "usd_per_hour"],
      ["cost per million output tokens", fmtUsd(b.usd_per_million_output_tokens), "usd_per_million_output_tokens"],
      ["TTFT p90", fmtTime(b.ttft_p90_s), "ttft_p90_s"],
      ["TPOT p99", fmtTime(b.tpot_p99_s), "tpot_p99_s"],
      ["capacity", `${fmtRate(b.capacity_rps)} requests/s`, "capacity_rps"],
    ];
    $("plan_best").innerHTML = rows.map(([k, v, key]) => `<tr><th>${k}</th><td data-key="${key}">${esc(v)}</td></tr>`).join("");
  } else {
    $("plan_head").innerHTML = `<b class="bad" id="plan_verdict">no fleet meets the targets</b> <span class="muted">${esc(searched)}</span>`;
    $("plan_best").innerHTML = `<tr><th>why</th><td data-key="reason">${esc(r.reason || "–")}</td></tr>`;
  }
  const cands = r.candidates || [];
  const meets = cands.filter((c) => c.meets_slo), misses = cands.filter((c) => !c.meets_slo);
  const pts = (rows) => ({ x: rows.map((c) => c.usd_per_hour), y: rows.map((c) => (c.tpot_p99_s === null ? null : c.tpot_p99_s * 1e3)) });
  const series = [
    { name: "misses a target", ...pts(misses), color: C.dots, dots: true, r: 4, dotClass: "miss" },
    { name: "meets both", ...pts(meets), color: C.engine, dots: true, r: 4, dotClass: "meets" },
  ];
  if (b) series.push({ name: "best", ...pts([b]), color: C.mark, dots: true, r: 6, dotClass: "best" });
  chart($("c_plan"), $("k_plan"), series, { xlabel: "$ per hour", ylabel: "TPOT p99 (ms)", logx: true, logy: true, empty: "no fleet was simulated" });
  $("plan_table").innerHTML = "<tr><th>hardware</th><th>chips</th><th>instances</th><th>$/hour</th><th>TTFT p90</th><th>TPOT p99</th><th>meets</th></tr>" +
    cands.map((c) => "<tr>" + [esc(c.hardware), fmtNum(c.chips), esc(fleetText(c)), fmtUsd(c.usd_per_hour), fmtTime(c.ttft_p90_s), fmtTime(c.tpot_p99_s), c.meets_slo ? "yes" : "no"].map(cell).join("") + "</tr>").join("");
}

main();
