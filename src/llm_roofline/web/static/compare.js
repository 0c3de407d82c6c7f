// The compare view (?view=compare): deployment A is the controls at the top; B is A with the
// overrides of this view (hardware, chips, data types, engine, split), each in the URL as
// b.FIELD. Both come from /api/report; the page draws them overlaid and the headline numbers
// side by side with B's difference from A (display arithmetic only: (B − A) / A).
"use strict";
(() => {
const $ = (id) => document.getElementById(id);
const C = LR.PALETTE;
const KEYS = ["hardware", "chips", "weight_dtype", "kv_dtype", "engine", "tp", "pp", "ep", "replicas"];
const SPLIT = ["tp", "pp", "ep", "replicas"];
const input = (k) => $("b_" + k);
let pending = null, dirty = true, timer = null, release = () => {};
let aError = null; // why the controls at the top give no deployment A now (null: they give one)

// B's counts: text inputs (a bad one stays as typed or linked, and is named: never emptied by
// the browser into "as A"), read as the controls above read theirs (sizes: 1k = 1,024)
const NUMBERS = ["chips", ...SPLIT];
const badNumber = () => LR.badNumber(NUMBERS.map((k) => [k, input(k)]));
// B's overrides: field -> value (empty = as A); call it once badNumber() is null
function overrides() {
  const o = {};
  for (const k of KEYS) {
    const v = NUMBERS.includes(k) ? LR.numberIn(input(k), k) : input(k).value.trim();
    if (v !== undefined && v !== "") o[k] = v;
  }
  return o;
}
// B = A with the overrides. Another hardware drops A's chip edits and price; B's split is A's
// unless B gives its chips or any split degree (then B's own, the rest chosen by the rule).
function bodyB(a) {
  const o = overrides(), b = { ...a };
  if (o.hardware !== undefined) { delete b.chip; delete b.price_usd_per_hour; }
  if (o.chips !== undefined || SPLIT.some((k) => o[k] !== undefined)) for (const k of SPLIT) delete b[k];
  return Object.assign(b, o);
}
function writeUrl() {
  const pairs = {};
  for (const k of KEYS) pairs["b." + k] = input(k).value.trim();
  LR.urlSet(pairs);
}
function readUrl() {
  for (const k of KEYS) {
    const v = LR.urlGet("b." + k);
    if (v !== null) LR.setControl(input(k), v); // a hardware the list lacks is kept, and named by the server
  }
}

function fillSelect(sel, items) {
  sel.innerHTML = "";
  for (const [id, label] of [["", "as A"], ...items]) {
    const o = document.createElement("option");
    o.value = id; o.textContent = label;
    sel.appendChild(o);
  }
}

// ---- the headline numbers, A and B and B's difference ----
const ROWS = [
  ["step at the batch (engine)", (r) => r.at_batch.t_step_s, LR.fmtTime, "t_step_s"],
  ["ideal step at the batch", (r) => r.at_batch.t_ideal_s, LR.fmtTime, "t_ideal_s"],
  ["tokens/s, all sequences (engine)", (r) => r.at_batch.tokens_per_s, LR.fmtNum, "tokens_per_s"],
  ["tokens/s per user (engine)", (r) => r.at_batch.tokens_per_s_per_user, (x) => (x < 100 ? String(+x.toPrecision(3)) : LR.fmtNum(x)), "tokens_per_s_per_user"],
  ["$ per million tokens (engine)", (r) => r.at_batch.usd_per_million_tokens, LR.fmtUsd, "usd_per_million_tokens"],
  ["latency floor", (r) => r.latency_floor_s, LR.fmtTime, "latency_floor_s"],
  ["balance batch B*", (r) => r.balance_batch, LR.fmtNum, "balance_batch"],
  ["balanced context", (r) => r.balanced_context, LR.fmtNum, "balanced_context"],
  ["largest batch that fits", (r) => r.max_batch, LR.fmtNum, "max_batch"],
  ["memory per chip", (r) => r.at_batch.memory_per_chip_bytes, (b) => (b / 1e9).toFixed(1) + " GB", "memory_per_chip_bytes"],
];
const describe = (r) => {
  const d = r.deployment;
  return `${d.model} on ${d.chips} × ${d.hardware}, ${d.weight_dtype} weights, ${d.kv_dtype} KV, engine ${d.engine}; ${r.split}`;
};
function table(ra, rb) {
  const esc = LR.esc;
  let h = `<tr><th></th><th>A</th><th>B</th><th>B vs A</th></tr>`;
  h += `<tr><th>deployment</th><td class="desc" data-key="deployment_a">${esc(describe(ra))}</td><td class="desc" data-key="deployment_b">${rb ? esc(describe(rb)) : "–"}</td><td></td></tr>`;
  h += `<tr><th>bound at the batch</th><td>${esc(ra.at_batch.bound)}</td><td>${rb ? esc(rb.at_batch.bound) : "–"}</td><td></td></tr>`;
  for (const [label, get, fmt, key] of ROWS) {
    const a = get(ra), b = rb ? get(rb) : null;
    const diff = a !== null && b !== null && a !== 0 ? (b - a) / a : null;
    const def = { latency_floor_s: LR.DEFS.floor, balance_batch: LR.DEFS.bstar, balanced_context: LR.DEFS.bctx }[key];
    // a missing $ figure says why (no price, or price 0: hardware you own)
    const cell = (v, r) => esc(v === null ? "–" : fmt(v)) +
      (v === null && r && key === "usd_per_million_tokens" && r.cost_note ? ` <small class="why">${esc(r.cost_note)}</small>` : "");
    h += `<tr data-key="${key}"><th${def ? ` title="${esc(def)}"` : ""}>${esc(label)}${def ? ' <abbr class="q">?</abbr>' : ""}</th><td data-a="${a ?? ""}">${cell(a, ra)}</td>` +
      `<td data-b="${b ?? ""}">${cell(b, rb)}</td><td class="diff" data-diff="${diff ?? ""}">${LR.fmtPct(diff)}</td></tr>`;
  }
  $("cmp_table").innerHTML = h;
}

// ---- the charts: each deployment's engine step (with its range) or cost, A and B overlaid ----
const ms = (arr) => arr.map((v) => (v === null || v === undefined ? null : v * 1e3));
function stepOf(tag, color, c, x, eng) {
  const out = [];
  const name = `${tag}: ${eng === "ideal" ? "ideal" : eng} step`;
  if (eng !== "ideal") {
    out.push({ type: "scatter", mode: "lines", x, y: ms(c.t_step_low_s), line: { width: 0, color }, showlegend: false, hoverinfo: "skip", legendgroup: tag, name: `${tag}: range (low)` });
    out.push({ type: "scatter", mode: "lines", x, y: ms(c.t_step_high_s), fill: "tonexty", fillcolor: color + "2e", line: { width: 0, color },
      name: `${tag}: ${eng} range`, legendgroup: tag, customdata: ms(c.t_step_low_s), hovertemplate: `%{customdata:.3~g}–%{y:.3~g} ms<extra>${tag} range</extra>` });
  }
  out.push({ type: "scatter", mode: "lines", x, y: ms(eng === "ideal" ? c.t_ideal_s : c.t_step_s), name, legendgroup: tag,
    line: { color, width: 2.4, dash: tag === "B" ? "dash" : "solid" }, hovertemplate: `%{y:.3~g} ms<extra>${LR.esc(name)}</extra>` });
  return out;
}
const end = (r) => Math.max(1.3 * (r.max_batch || 0), 1.1 * r.at_batch.batch, 16);
function fitLine(tag, color, r) {
  return { x: r.max_batch, label: `${tag} fits up to ${LR.fmtNum(r.max_batch)}`, color };
}

function charts(ra, rb) {
  const both = [["A", C.a, ra], ["B", C.b, rb]].filter(([, , r]) => r);
  const top = Math.max(...both.map(([, , r]) => end(r)));
  LR.plot($("cmp_batch"), both.flatMap(([t, c, r]) => stepOf(t, c, r.step_vs_batch, r.step_vs_batch.batch, r.engine)), {
    x: { title: "batch (sequences)", range: [0, top] }, y: { title: "time per decode step (ms)", fromZero: true },
    vlines: both.filter(([, , r]) => r.max_batch > 0).map(([t, c, r]) => fitLine(t, c, r)),
  });
  LR.plot($("cmp_context"), both.flatMap(([t, c, r]) => stepOf(t, c, r.step_vs_context, r.step_vs_context.context_len, r.engine)), {
    x: { title: "context (tokens)", log: true }, y: { title: "time per decode step (ms)", log: true },
    vlines: [{ x: ra.at_batch.context_len, label: `context ${LR.fmtNum(ra.at_batch.context_len)}`, color: "#374151", dash: "dash" }],
  });
  const costs = both.filter(([, , r]) => r.cost_vs_batch).map(([t, c, r]) => {
    const k = r.engine === "ideal" ? "step_usd_per_million" : "engine_usd_per_million";
    const name = `${t}: ${r.engine}`;
    return { type: "scatter", mode: "lines", name, x: r.cost_vs_batch.batch, y: r.cost_vs_batch[k], line: { color: c, width: 2.4, dash: t === "B" ? "dash" : "solid" },
      hovertemplate: `$%{y:.3~g} per M<extra>${LR.esc(name)}</extra>` };
  });
  LR.plot($("cmp_cost"), costs, {
    x: { title: "batch (sequences)", log: true, range: [1, top] }, y: { title: "$ per million output tokens", log: true },
    vlines: both.filter(([, , r]) => r.max_batch > 0).map(([t, c, r]) => fitLine(t, c, r)),
    empty: [["A", ra], ["B", rb]].filter(([, r]) => r && r.cost_note).map(([t, r]) => `${t}: ${r.cost_note}`).join("; ") || "no cost to draw",
  });
  const fronts = [];
  for (const [t, c, r] of both) {
    if (!r.frontier) continue;
    const f = r.frontier;
    fronts.push({ type: "scatter", mode: "lines+markers", name: `${t}: frontier (${r.engine})`, x: f.frontier.map((i) => f.usd_per_million[i]),
      y: f.frontier.map((i) => f.latency_s[i] * 1e3), customdata: f.frontier.map((i) => [f.chips[i], f.batch[i]]),
      line: { color: c, width: 2.2, dash: t === "B" ? "dash" : "solid" }, marker: { size: 4, color: c },
      hovertemplate: `${t}: %{customdata[0]} chips, batch %{customdata[1]}: %{y:.3~g} ms, $%{x:.3~g} per M<extra></extra>` });
  }
  LR.plot($("cmp_front"), fronts, {
    x: { title: "$ per million output tokens", log: true }, y: { title: "time per output token (ms)", log: true },
    hovermode: "closest", empty: [["A", ra], ["B", rb]].filter(([, r]) => r && r.frontier_note).map(([t, r]) => `${t}: ${r.frontier_note}`).join("; ") || "no frontier to draw",
  });
}
function clear(line) {
  $("cmp_table").innerHTML = "";
  for (const id of ["cmp_batch", "cmp_context", "cmp_cost", "cmp_front"]) LR.plot($(id), [], { message: "no result: " + line });
}

async function run() {
  writeUrl();
  if (LR.current() !== "compare") { dirty = true; return; }
  dirty = false;
  const token = {};
  pending = token;
  for (const el of document.querySelectorAll("#b_controls .bad_field")) el.classList.remove("bad_field");
  const a = LR.deployment(), ra = LR.lastReport;
  if (aError !== null) { $("cmp_error").textContent = ""; clear("A: " + aError); return; }
  if (!a || !ra) { dirty = true; return; } // A's first answer is on its way: drawn then
  const bad = badNumber();
  if (bad) { // no B is asked for with another number: A alone, the field named
    $("cmp_error").textContent = "B: " + bad.line;
    bad.el.classList.add("bad_field");
    table(ra, null);
    await charts(ra, null);
    return;
  }
  const res = await LR.api("/api/report", bodyB(a));
  if (pending !== token) return;
  if (!res.ok) {
    const line = LR.errorLine(res.data, res.status);
    $("cmp_error").textContent = "B: " + line;
    const f = res.data && res.data.field;
    if (f && input(f)) input(f).classList.add("bad_field");
    table(ra, null);
    await charts(ra, null);
    return;
  }
  $("cmp_error").textContent = "";
  table(ra, res.data);
  await charts(ra, res.data);
}
const runNow = () => LR.busy(run());
function later() {
  if (timer === null) { release(); release = LR.hold(); }
  clearTimeout(timer);
  timer = setTimeout(() => { timer = null; run().finally(release); }, 60);
}

LR.on("controls", () => {
  const cat = LR.catalog;
  fillSelect(input("hardware"), cat.hardware.map((h) => [h.id, h.id]));
  fillSelect(input("weight_dtype"), cat.options.dtypes.map((d) => [d, d]));
  fillSelect(input("kv_dtype"), cat.options.dtypes.map((d) => [d, d]));
  fillSelect(input("engine"), cat.engines.map((e) => [e.id, e.id]));
  readUrl();
  for (const k of KEYS) { input(k).addEventListener("input", later); input(k).addEventListener("change", later); }
});
LR.onView("compare", () => { if (dirty) runNow(); });
LR.onDeployment(() => { aError = null; dirty = true; if (LR.current() === "compare") runNow(); });
LR.onNoDeployment((line) => { aError = line; dirty = true; if (LR.current() === "compare") runNow(); });
})();
