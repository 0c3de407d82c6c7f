// The deployment controls at the top of the page and the deployment view (?view=deployment).
// The page only calls the JSON API and draws what it returns: no model arithmetic here (unit
// conversion for display only). Every control carries a `name` equal to the API field it sets,
// and that name is its URL key: the URL holds true values (batch=24 is 24 sequences).
"use strict";
(() => {
const $ = (id) => document.getElementById(id);
const ctl = (name) => $("controls").querySelector(`[name="${name}"]`);
// always in the URL (the link fixes the deployment whatever the defaults become)
const FIELDS = ["model", "hardware", "chips", "weight_dtype", "kv_dtype", "context_len", "batch", "engine"];
// in the URL when set (empty = the server's rule or the catalog chooses)
const SPLIT = ["tp", "pp", "ep", "replicas"];
const OPTIONAL = [...SPLIT, "price_usd_per_hour"];
// the chip editor: record key, label, unit (the input's name and URL key: chip.KEY)
const CHIP_FIELDS = [
  ["bf16_dense_tflops", "bf16 dense", "TFLOP/s"],
  ["fp8_dense_tflops", "fp8 dense", "TFLOP/s"],
  ["fp4_dense_tflops", "fp4 dense", "TFLOP/s"],
  ["memory_bandwidth_tb_per_s", "memory bandwidth", "TB/s"],
  ["memory_capacity_gb", "memory capacity", "GB = 10⁹ B", "GB of 10⁹ bytes: a card sold as \"24GB\" holds 24 GiB = 25.8 GB, as nvidia-smi reports it"],
  ["scale_up_domain_chips", "scale-up domain", "chips"],
  ["scale_up_bandwidth_gb_per_s", "scale-up link", "GB/s per chip"],
  ["scale_out_bandwidth_gb_per_s", "scale-out", "GB/s per chip"],
  ["power_w", "power", "W"],
];
const C = LR.PALETTE;
const UPLOAD = "upload:";
let uploaded = null; // {name, config} of a config.json read from a file, or {name, error}
let pending = null;
let hardwareById = {};
let engines = [];
let last = null; // the last report drawn, and for which body
let chartsDirty = false;

// ---- formatting (display only) ----
const fmtTime = LR.fmtTime, fmtNum = LR.fmtNum;
// a range in the unit of its centre value, e.g. "(7.70–11.4)"
function fmtRange(lo, hi, centre) {
  const k = centre >= 1 ? 1 : centre >= 1e-3 ? 1e3 : 1e6;
  return `(${LR.sig(lo * k)}–${LR.sig(hi * k)})`;
}
// tokens/s per user: three figures below 100 (8.54), whole numbers above
const fmtPerUser = (x) => (x < 100 ? String(+x.toPrecision(3)) : fmtNum(x));
const fmtGB = (b) => (b / 1e9).toLocaleString("en-US", { maximumFractionDigits: 1 }) + " GB";

function fill(select, items, value) {
  select.innerHTML = "";
  for (const it of items) {
    const o = document.createElement("option");
    o.value = it.id; o.textContent = it.label;
    if (it.title) o.title = it.title;
    select.appendChild(o);
  }
  if (value !== undefined) select.value = value;
}

// ---- the context and the batch: counts as the command line reads them (16k = 16,384) ----
const COUNTS = { context_len: "context", batch: "batch" }; // API field -> input id
// the count typed in a field, or null when it is not one (countError says why)
function countOf(field) {
  try { return LR.count($(COUNTS[field]).value, field); } catch (e) { return null; }
}
// the other numbers of the controls: text inputs (inputmode), so that a bad value stays as
// typed or linked and is named here, never emptied by the browser into a default; chips and
// the split read sizes as counts do, the price is a decimal
const NUMBERS = ["chips", "tp", "pp", "ep", "replicas", "price_usd_per_hour"];
// the first field of the controls that does not read as a number: {line, field}, or null
function countError() {
  for (const field of Object.keys(COUNTS)) {
    try { LR.count($(COUNTS[field]).value, field); } catch (e) { return { line: e.message, field }; }
  }
  const bad = LR.badNumber(NUMBERS.map((f) => [f, ctl(f)]));
  return bad && { line: bad.line, field: bad.field };
}
// once a field is left, a count typed as 32k shows as the number it is (32768)
function normalizeCount(field) {
  const n = countOf(field);
  if (n !== null && $(COUNTS[field]).value.trim() !== String(n)) $(COUNTS[field]).value = String(n);
}
// the batch's log2 slider follows the batch
function syncSlider() {
  const v = countOf("batch");
  if (v !== null) $("batch_slider").value = String(Math.log2(v));
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
  for (const [key, label, unit, hint] of CHIP_FIELDS) {
    const l = document.createElement("label");
    l.innerHTML = `<span>${label} <i>(${unit})</i></span>`;
    if (hint) l.title = hint;
    const inp = document.createElement("input");
    // text, not number: a bad figure stays as typed (or linked) and the server names it
    inp.type = "text"; inp.inputMode = "decimal"; inp.id = "chip_" + key; inp.name = "chip." + key; inp.dataset.key = key;
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
  const h = hardwareById[$("hardware").value];
  $("price").placeholder = h && h.price_usd_per_hour ? String(h.price_usd_per_hour) : "none";
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
    else rec[key] = typed(v);
  }
  rec.id = $("hardware").value + "-edited";
  rec.name = (base.name || $("hardware").value) + " (edited)";
  return rec;
}

// ---- the model: a catalog id, or an uploaded config.json ("upload:NAME") ----
function uploadOption(name, note) {
  const sel = $("model");
  for (const o of [...sel.options]) if (o.value.startsWith(UPLOAD)) o.remove();
  const o = document.createElement("option");
  o.value = UPLOAD + name;
  o.textContent = `uploaded: ${name}` + (note ? ` (${note})` : "");
  sel.insertBefore(o, sel.firstChild);
  sel.value = o.value;
}
// why the controls make no deployment (null when they make one)
function noDeploymentReason() {
  const m = $("model").value;
  if (!m.startsWith(UPLOAD)) return null;
  const name = m.slice(UPLOAD.length);
  if (uploaded && uploaded.name === name) return uploaded.error || null;
  return `model: "${name}" was an uploaded config.json, which a link cannot carry: choose the file again (or a catalog model)`;
}
async function readUpload() {
  const file = $("upload").files[0];
  if (!file) return;
  const text = await file.text();
  let cfg = null, error = null;
  try { cfg = JSON.parse(text); } catch (e) { error = `config: ${file.name} is not JSON (${e.message})`; }
  if (!error && (cfg === null || typeof cfg !== "object" || Array.isArray(cfg))) error = `config: ${file.name} is not a JSON object`;
  const path = cfg && typeof cfg._name_or_path === "string" ? cfg._name_or_path.trim().split("/").pop() : "";
  const name = (path || file.name.replace(/\.json$/i, "") || "config").replace(/[^\w.@+-]/g, "_");
  uploaded = error ? { name, error } : { name, config: cfg };
  uploadOption(name, error ? "not read" : "");
  later();
}

// ---- the URL carries the deployment: each control's name is its key ----
function readUrl() {
  const q = new URLSearchParams(location.search);
  if (!q.has("context_len") && q.has("context")) q.set("context_len", q.get("context")); // older links
  const model = q.get("model");
  if (model && model.startsWith(UPLOAD)) uploadOption(model.slice(UPLOAD.length), "choose the file again");
  // a value a list lacks is kept (setControl), so that the server names it: never the
  // list's first entry in its place
  for (const f of [...FIELDS, ...OPTIONAL, "overlap"]) {
    if (!q.has(f) || (f === "model" && model.startsWith(UPLOAD))) continue;
    LR.setControl(ctl(f), q.get(f));
  }
  for (const f of Object.keys(COUNTS)) normalizeCount(f); // context_len=32k shows as 32768
  syncSlider();
  $("pad_heads").checked = q.get("pad_heads") === "1";
  resetChip();
  let edited = false;
  for (const [key] of CHIP_FIELDS) if (q.has("chip." + key)) { $("chip_" + key).value = q.get("chip." + key); edited = true; }
  markEdits();
  if (edited) $("chip_editor").open = true;
}
function writeUrl() {
  // the other views' keys stay; these are rewritten
  const pairs = {};
  for (const k of new URLSearchParams(location.search).keys()) if (k.startsWith("chip.") || k === "context") pairs[k] = null;
  for (const f of FIELDS) pairs[f] = ctl(f).value;
  // the URL holds the true count (context_len=32768 for 32k); text that is not one, as typed
  for (const f of Object.keys(COUNTS)) if (countOf(f) !== null) pairs[f] = String(countOf(f));
  for (const f of OPTIONAL) pairs[f] = ctl(f).value.trim();
  pairs.overlap = ctl("overlap").value === "full" ? null : ctl("overlap").value;
  pairs.pad_heads = $("pad_heads").checked ? "1" : null;
  for (const inp of chipEdits()) pairs["chip." + inp.dataset.key] = inp.value;
  LR.urlSet(pairs);
}

// a number as typed (the server says what is wrong with it); empty = left out. Decimal text
// only: "0x10" goes as typed, never as 16
function typed(v) {
  v = v.trim();
  if (v === "") return undefined;
  const n = LR.decimal(v);
  return Number.isFinite(n) ? n : v;
}
// the body of /api/report for the controls, or null when they make no deployment
function requestBody() {
  if (noDeploymentReason() || countError()) return null;
  const body = {
    chips: LR.numberIn(ctl("chips"), "chips") ?? 1,
    weight_dtype: $("weight_dtype").value, kv_dtype: $("kv_dtype").value,
    context_len: countOf("context_len"), batch: countOf("batch"),
    engine: $("engine").value || "calibrated",
  };
  if ($("overlap").value && $("overlap").value !== "full") body.overlap = $("overlap").value;
  for (const f of OPTIONAL) {
    const v = LR.numberIn(ctl(f), f);
    if (v !== undefined) body[f] = v;
  }
  if ($("pad_heads").checked) body.pad_heads = true;
  const chip = chipRecord();
  if (chip) body.chip = chip; else body.hardware = $("hardware").value;
  const m = $("model").value;
  if (m.startsWith(UPLOAD)) { body.model = uploaded.name; body.config = uploaded.config; } else body.model = m;
  return body;
}

// ---- the deployment view's numbers and charts ----
function clearNumbers() {
  for (const id of ["n_batch", "n_step", "n_tps", "n_tpu", "n_usd", "n_bound", "n_floor", "n_bstar", "n_bctx", "n_mem", "n_max", "split"]) $(id).textContent = "–";
  for (const id of ["n_engine_note", "regime_text", "fit", "l_tps", "l_tpu", "l_usd", "n_usd_note"]) $(id).textContent = "";
  for (const el of document.querySelectorAll("#numbers .num.nofit")) el.classList.remove("nofit");
  delete $("n_step").dataset.idealS; delete $("n_step").dataset.stepS; delete $("n_usd").dataset.usd;
}
function drawNumbers(r) {
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
  for (const id of ["l_tps", "l_tpu", "l_usd"]) $(id).textContent = `(${eng})`;
  $("n_tps").textContent = fmtNum(a.tokens_per_s);
  $("n_tpu").textContent = a.tokens_per_s_per_user === null ? "–" : fmtPerUser(a.tokens_per_s_per_user);
  const usd = a.usd_per_million_tokens;
  $("n_usd").textContent = usd === null ? "–" : LR.fmtUsd(usd);
  $("n_usd_note").textContent = usd === null ? r.cost_note || "" : "";
  if (usd === null) delete $("n_usd").dataset.usd; else $("n_usd").dataset.usd = usd;
  $("n_bound").textContent = a.bound;
  $("n_floor").textContent = fmtTime(r.latency_floor_s);
  $("n_bstar").textContent = fmtNum(r.balance_batch);
  $("n_bctx").textContent = r.balanced_context === null ? "–" : `${fmtNum(r.balanced_context)} tokens`;
  const gib = (a.memory_capacity_bytes / 2 ** 30).toLocaleString("en-US", { maximumFractionDigits: 1 });
  $("n_mem").textContent = `${fmtGB(a.memory_per_chip_bytes)} of ${fmtGB(a.memory_capacity_bytes)} (${gib} GiB)`;
  $("n_mem").classList.toggle("bad", !a.fits);
  // a batch that does not fit: its speed and cost are what it would get if it fit, greyed
  // and said so on each card (the line under the numbers says what would fit)
  for (const id of ["n_step", "n_tps", "n_tpu", "n_usd"]) $(id).closest(".num").classList.toggle("nofit", !a.fits);
  $("n_max").textContent = fmtNum(r.max_batch);
  $("regime_text").textContent = a.regime;
  $("fit").textContent = LR.pageText(a.fit_message || "");
}

const ms = (arr) => arr.map((v) => (v === null || v === undefined ? null : v * 1e3));
// a line trace; hover shows its value in `unit`
function line(name, x, y, color, extra) {
  const unit = (extra && extra.unit) || "ms";
  const t = { type: "scatter", mode: "lines", name, x, y, line: { color, width: 1.6 },
    hovertemplate: `%{y:.3~g} ${unit}<extra>${LR.esc(name)}</extra>` };
  if (extra) { Object.assign(t.line, extra.line || {}); for (const k of ["legendgroup", "showlegend", "visible"]) if (k in extra) t[k] = extra[k]; }
  return t;
}
// a range as a shaded band between low and high (two traces: the low edge, then the high
// edge filled down to it), hover showing "low–high"
function band(name, x, lo, hi, color, group) {
  return [
    { type: "scatter", mode: "lines", x, y: lo, line: { width: 0, color }, showlegend: false, hoverinfo: "skip", legendgroup: group || name, name: name + " (low)" },
    { type: "scatter", mode: "lines", x, y: hi, fill: "tonexty", fillcolor: color + "33", line: { width: 0, color }, name, legendgroup: group || name,
      customdata: lo, hovertemplate: `%{customdata:.3~g}–%{y:.3~g} ms<extra>${LR.esc(name)}</extra>` },
  ];
}
const anyPositive = (a) => a.some((v) => v !== null && v > 0);
// whether attention is over 5% of the compute anywhere on a curve
const attentionShows = (c) => c.t_compute_s.some((v, i) => v > 0 && v - c.t_matmul_s[i] > 0.05 * v);
// the ideal terms of a step curve (seconds -> ms)
function termTraces(c, x) {
  const out = [
    line("compute", x, ms(c.t_compute_s), C.compute),
  ];
  // attention is compute too; where it is a visible share, the matmuls alone (what B* weighs
  // against the weight fetch) get a line of their own
  if (attentionShows(c)) out.push(line("matmul (no attention)", x, ms(c.t_matmul_s), C.compute, { line: { dash: "dot", width: 1.2 } }));
  out.push(
    line("weights", x, ms(c.t_weights_s), C.weights),
    line("KV cache", x, ms(c.t_kv_s), C.kv),
  );
  if (anyPositive(c.t_comm_s)) out.push(line("communication", x, ms(c.t_comm_s), C.comm));
  out.push(line("memory (weights + KV)", x, ms(c.t_memory_s), C.memory, { line: { dash: "dash", width: 1.2 } }));
  return out;
}
// the ideal step and the engine's step with its range (seconds -> ms)
function stepTraces(c, x, eng) {
  const out = [];
  if (eng !== "ideal") {
    out.push(...band(`${eng} range`, x, ms(c.t_step_low_s), ms(c.t_step_high_s), C.engine));
    out.push(line(`${eng} step`, x, ms(c.t_step_s), C.engine, { line: { width: 2.6 } }));
  }
  out.push(line("ideal step", x, ms(c.t_ideal_s), C.ideal, { line: { width: eng === "ideal" ? 3 : 2 } }));
  return out;
}
// where the batch axis ends: a little past the largest batch that fits (and the chosen batch)
function batchEnd(r) {
  return Math.max(1.3 * (r.max_batch || 0), 1.1 * r.at_batch.batch, 16);
}
// the span of x where `fits` is false after the last point that fits (null when all fit)
function noFitFrom(x, fits) {
  const i = fits.indexOf(false);
  if (i < 0) return null;
  return i === 0 ? x[0] : x[i - 1];
}
const uirev = (r) => JSON.stringify([r.model, r.hardware, r.chips, r.split, r.at_batch.context_len]);

function drawCharts(r) {
  const a = r.at_batch, eng = r.engine, rev = uirev(r);
  const end = batchEnd(r);
  const fitBand = r.max_batch < end ? [{ x0: Math.max(r.max_batch, 0), x1: null, label: "does not fit in memory", hover: LR.DEFS.nofit }] : [];
  const bstar = { x: r.balance_batch, label: `B* ${LR.fmtShort(r.balance_batch)}`, color: C.mark, hover: LR.DEFS.bstar };
  const here = { x: a.batch, label: `batch ${fmtNum(a.batch)}`, color: "#374151", dash: "dash", hover: "the batch chosen above" };
  const sb = r.step_vs_batch;
  LR.plot($("c_batch"), [...termTraces(sb, sb.batch), ...stepTraces(sb, sb.batch, eng)], {
    x: { title: "batch (sequences)", range: [0, end] }, y: { title: "time per decode step (ms)", fromZero: true },
    vlines: [bstar, here], bands: fitBand,
    hlines: [{ y: r.latency_floor_s * 1e3, label: `latency floor ${fmtTime(r.latency_floor_s)}`, hover: LR.DEFS.floor }],
    uirevision: rev,
  });
  const sc = r.step_vs_context, S = a.context_len;
  const from = noFitFrom(sc.context_len, sc.fits);
  LR.plot($("c_context"), [...termTraces(sc, sc.context_len), ...stepTraces(sc, sc.context_len, eng)], {
    x: { title: "context (tokens)", log: true }, y: { title: "time per decode step (ms)", log: true },
    vlines: [
      { x: r.balanced_context, label: `balanced context ${LR.fmtShort(r.balanced_context)}`, color: C.mark, hover: LR.DEFS.bctx },
      { x: S, label: `context ${fmtNum(S)}`, color: "#374151", dash: "dash", hover: "the context chosen above" },
    ],
    bands: from === null ? [] : [{ x0: from, x1: sc.context_len[sc.context_len.length - 1], label: "does not fit in memory", hover: LR.DEFS.nofit }],
    uirevision: rev,
  });
  if (r.cost_vs_batch) {
    const c = r.cost_vs_batch, x = c.batch, usd = { unit: "$/M tokens" };
    const s = [
      line("weights", x, c.weights_usd_per_million, C.weights, usd),
      line("compute", x, c.compute_usd_per_million, C.compute, usd),
      line("KV cache", x, c.kv_usd_per_million, C.kv, usd),
    ];
    if (anyPositive(c.communication_usd_per_million)) s.push(line("communication", x, c.communication_usd_per_million, C.comm, usd));
    if (eng !== "ideal") s.push(line(eng, x, c.engine_usd_per_million, C.engine, { ...usd, line: { width: 2.6 } }));
    s.push(line("ideal", x, c.step_usd_per_million, C.ideal, { ...usd, line: { width: eng === "ideal" ? 3 : 2 } }));
    LR.plot($("c_cost"), s, {
      x: { title: "batch (sequences)", log: true, range: [1, end] }, y: { title: "$ per million output tokens", log: true },
      vlines: [bstar, here], bands: fitBand, uirevision: rev,
    });
  } else LR.plot($("c_cost"), [], { message: r.cost_note || "no cost to draw" });
  $("front_engine").textContent = `(${eng}; log axes)`;
  if (r.frontier) {
    const f = r.frontier;
    const info = f.chips.map((n, i) => [n, f.batch[i]]);
    const fx = f.frontier.map((i) => f.usd_per_million[i]), fy = f.frontier.map((i) => f.latency_s[i] * 1e3);
    const traces = [
      { type: "scatter", mode: "markers", name: "chips × batch", x: f.usd_per_million, y: ms(f.latency_s), customdata: info,
        marker: { color: C.dots, size: 5, opacity: 0.7 },
        hovertemplate: "%{customdata[0]} chips, batch %{customdata[1]}: %{y:.3~g} ms per token, $%{x:.3~g} per M<extra></extra>" },
      { type: "scatter", mode: "lines", name: `frontier (${eng})`, x: fx, y: fy, line: { color: eng === "ideal" ? C.ideal : C.engine, width: 2 }, hoverinfo: "skip" },
    ];
    if (a.usd_per_million_tokens !== null) {
      traces.push({ type: "scatter", mode: "markers", name: `this deployment (batch ${fmtNum(a.batch)})`, x: [a.usd_per_million_tokens], y: [a.t_step_s * 1e3],
        marker: { color: C.mark, size: 11, symbol: "diamond" }, hovertemplate: "this deployment: %{y:.3~g} ms per token, $%{x:.3~g} per M<extra></extra>" });
    }
    LR.plot($("c_front"), traces, {
      x: { title: "$ per million output tokens", log: true }, y: { title: "time per output token (ms)", log: true },
      hovermode: "closest", uirevision: rev,
    });
  } else LR.plot($("c_front"), [], { message: r.frontier_note || "no frontier to draw" });
}
function clearCharts(line) {
  for (const id of ["c_batch", "c_context", "c_cost", "c_front"]) LR.plot($(id), [], { message: "no result: " + line });
}
// charts are drawn only in a view that shows them (plotly sizes a chart from its box)
function drawVisible() {
  if (LR.current() !== "deployment" || !chartsDirty) return;
  chartsDirty = false;
  return last && last.report ? drawCharts(last.report) : clearCharts(last ? last.error : "");
}

// ---- one update: the report for the controls as they stand ----
function showWarnings(list) {
  const w = $("warnings");
  w.textContent = list && list.length ? "⚠ " + list.map(LR.pageText).join(" · ") : "";
}
function markField(field) {
  if (!field) return;
  const named = $("chip_" + field) || ctl(field) ||
    ($("model").value.startsWith(UPLOAD) && !["chips", "batch", "context_len", "hardware", "engine"].includes(field) ? $("upload") : null);
  if (named) named.classList.add("bad_field");
}
// no deployment to show: the error line says why; numbers and charts are cleared, not kept
function noResult(line, field) {
  $("error").textContent = line;
  markField(field);
  document.body.classList.remove("stale");
  document.body.classList.add("no_result");
  clearNumbers();
  showWarnings([]);
  last = { report: null, error: line };
  chartsDirty = true;
  LR.lastReport = null;
  LR.fireNoDeployment(line);
}

async function update() {
  writeUrl();
  const token = {};
  pending = token;
  for (const el of document.querySelectorAll("#controls .bad_field")) el.classList.remove("bad_field");
  const body = requestBody();
  try {
    if (noDeploymentReason()) { noResult(noDeploymentReason(), "config"); return; }
    const bad = countError();
    if (bad && !LR.lastReport) { noResult(bad.line, bad.field); return; } // nothing to keep
    if (bad) { // a context or batch that is not a count: said so, the last good view kept greyed
      $("error").textContent = bad.line;
      markField(bad.field);
      document.body.classList.add("stale");
      LR.fireNoDeployment(bad.line);
      return;
    }
    const { ok, status, data } = await LR.api("/api/report", body);
    if (pending !== token) return;
    if (!ok) {
      const line = LR.errorLine(data, status);
      if (body.config) { noResult(line, data && data.field); return; } // another model's figures would mislead
      $("error").textContent = line;
      markField(data && data.field);
      document.body.classList.add("stale");  // the last good view stays, greyed
      LR.fireNoDeployment(line);
      return;
    }
    $("error").textContent = "";
    document.body.classList.remove("stale", "no_result");
    showWarnings(data.warnings);
    drawNumbers(data);
    last = { report: data, error: null };
    chartsDirty = true;
    LR.lastReport = data;
    await drawVisible();
    LR.fireDeployment(body, data);
  } catch (e) {
    if (pending !== token) return;
    $("error").textContent = String(e);
    document.body.classList.add("stale");
  } finally {
    if (pending === token) {
      await drawVisible();
      document.body.dataset.ready = String(Date.now());
      document.body.dataset.settled = String(Date.now());
      releaseUpdate();
    }
  }
}

// body[data-busy] is held from an input until the answer to the last one is drawn
let timer = null;
let releaseUpdate = () => {};
function later() {
  if (timer === null) { releaseUpdate(); releaseUpdate = LR.hold(); }
  clearTimeout(timer);
  timer = setTimeout(() => { timer = null; update(); }, 60);
}

async function main() {
  const [models, hardware, engineList, options] = await Promise.all(
    ["/api/models", "/api/hardware", "/api/engines", "/api/options"].map((u) => fetch(u).then((r) => r.json())));
  engines = engineList;
  hardwareById = Object.fromEntries(hardware.map((h) => [h.id, h]));
  const dtypes = options.dtypes.map((d) => ({ id: d, label: d }));
  fill($("model"), models.map((m) => ({ id: m.id, label: m.id })), "llama-3.1-8b");
  fill($("hardware"), hardware.map((h) => ({ id: h.id, label: h.id + (h.status === "announced" ? " (announced)" : "") })), "h100-sxm");
  fill($("weight_dtype"), dtypes, "bf16");
  fill($("kv_dtype"), dtypes, "bf16");
  fill($("overlap"), options.overlap.map((o) => ({ id: o, label: o + (o === "full" ? " (lecture)" : "") })), "full");
  const def = engines.find((e) => e.default);
  fill($("engine"), engines.map((e) => ({
    id: e.id, title: e.note,
    label: e.id + (e.id === "ideal" ? " (lower bound)" : e.default ? " (default)" : ""),
  })), def ? def.id : "calibrated");
  buildChipEditor();
  LR.catalog = { models, hardware, hardwareById, engines, options };
  LR.deployment = requestBody;
  for (const a of document.querySelectorAll("nav#views a")) a.addEventListener("click", (ev) => { ev.preventDefault(); LR.showView(a.dataset.view); });
  LR.onView("deployment", () => { chartsDirty = true; drawVisible(); });
  readUrl();
  for (const f of [...FIELDS, ...OPTIONAL, "overlap", "pad_heads"]) {
    if (f === "model") continue;
    ctl(f).addEventListener("input", later); ctl(f).addEventListener("change", later);
  }
  $("batch").addEventListener("input", syncSlider);
  for (const f of Object.keys(COUNTS)) $(COUNTS[f]).addEventListener("change", () => normalizeCount(f));
  $("batch_slider").addEventListener("input", () => { $("batch").value = String(Math.round(2 ** Number($("batch_slider").value))); later(); });
  $("hardware").addEventListener("change", () => { resetChip(); later(); });
  $("chip_reset").addEventListener("click", () => { resetChip(); later(); });
  $("model").addEventListener("change", () => {
    // a catalog model: the file input is cleared, an upload read before stays on the list
    if (!$("model").value.startsWith(UPLOAD)) $("upload").value = "";
    later();
  });
  $("upload").addEventListener("change", () => { if ($("upload").files[0]) { LR.busy(readUpload()); } });
  LR.emit("controls");
  // a link to a view that does not exist: said so (the deployment view shown instead), not
  // silently replaced
  const asked = LR.urlGet("view");
  LR.showView(LR.view());
  if (asked !== null && !LR.VIEWS.includes(asked)) {
    $("view_note").textContent = `view: no view "${asked}"; the views are ${LR.VIEWS.join(", ")} (the deployment view is shown)`;
  }
  LR.initialRelease();
  later();
}

main();
})();
