// The planning view (?view=planning): simulate this deployment serving a traffic
// (/api/simulate), or plan the cheapest fleet meeting the targets (/api/plan). The API does
// the work; the page draws its answer. Every input carries the API field it sets as its name;
// its URL key is p.NAME (the plan's disaggregation choice: p.plan_disagg), left out at its
// default.
"use strict";
(() => {
const $ = (id) => document.getElementById(id);
const C = LR.PALETTE;
const HW_MAX = 6;
const VIEW = () => $("planning");
const fmtTime = LR.fmtTime, fmtNum = LR.fmtNum, fmtUsd = LR.fmtUsd, esc = LR.esc;
const fmtRate = (x) => (x === null || x === undefined ? "–" : LR.sig(x));
const fields = () => [...VIEW().querySelectorAll("[name]")];
const urlKey = (el) => el.dataset.url || "p." + el.name;
const valueOf = (el) => (el.multiple ? [...el.selectedOptions].map((o) => o.value).join(",") : el.value.trim());
const defaults = new Map();
let ranOn = { sim: null, plan: null }; // the deployment each result is for (JSON)

// ---- the URL: p.NAME for each input not at its default ----
function writeUrl() {
  const pairs = {};
  for (const el of fields()) pairs[urlKey(el)] = valueOf(el) === defaults.get(el) ? null : valueOf(el);
  LR.urlSet(pairs);
}
function readUrl() {
  for (const el of fields()) {
    const v = LR.urlGet(urlKey(el));
    if (v === null) continue;
    LR.setControl(el, v); // a value a list lacks is kept, for the server to name
  }
}

// the fields of the view for `scope` ("sim" or "plan"): name -> value as typed (a number
// where the input is numeric, left out when empty: the server's default)
function planningFields(scope) {
  const out = {};
  for (const el of fields()) {
    if (!(el.dataset.for || "").split(" ").includes(scope)) continue;
    const key = scope === "sim" && el.dataset.sim ? el.dataset.sim : el.name;
    if (el.multiple) { out[key] = [...el.selectedOptions].map((o) => o.value); continue; }
    const v = numeric(el) ? LR.numberIn(el, el.name) : el.value.trim();
    if (v !== undefined && v !== "") out[key] = v;
  }
  return out;
}
// the numeric inputs are text (inputmode): a bad value stays as typed or linked and is named,
// never emptied by the browser into the server's default
const numeric = (el) => el.hasAttribute("inputmode");
// the first input of the view for `scope` (or any scope) that is not a number: {field, line,
// el}, or null. planningFields(scope) is called once this is null.
function badNumber(scope) {
  return LR.badNumber(fields().filter((el) => numeric(el) && (!scope || (el.dataset.for || "").split(" ").includes(scope)))
    .map((el) => [el.name, el]));
}
// a bad number is marked and named as soon as it is typed or linked, before any run; the
// line goes once it is mended (a run's own error line stays until the next run)
let checkLine = null;
function check() {
  for (const el of VIEW().querySelectorAll("[inputmode].bad_field")) el.classList.remove("bad_field");
  const bad = badNumber(null);
  if (bad) bad.el.classList.add("bad_field");
  if (bad) { $("p_error").textContent = checkLine = bad.line; return; }
  if (checkLine !== null && $("p_error").textContent === checkLine) $("p_error").textContent = "";
  checkLine = null;
}
// a run with a bad number: its line and mark, the result area saying there is none
async function refuseBad(kind, bad) {
  await planningError(kind, bad.line, 0, kind);
  bad.el.classList.add("bad_field");
  setState(kind, "error", "");
}
// the API field a 4xx names -> the input of this view that sets it
function planningInput(field, scope) {
  for (const el of fields()) {
    if (!(el.dataset.for || "").split(" ").includes(scope)) continue;
    if (el.name === field || el.dataset.sim === field) return el;
  }
  return null;
}

function setState(kind, state, status) {
  VIEW().dataset[kind + "State"] = state;
  const busy = VIEW().dataset.simState === "busy" || VIEW().dataset.planState === "busy";
  $("sim_run").disabled = VIEW().dataset.simState === "busy";
  $("plan_run").disabled = VIEW().dataset.planState === "busy";
  VIEW().classList.toggle("busy", busy);
  $("p_status").textContent = status;
}

// what a result of `kind` ("sim" or "plan") depends on: the deployment (not the report's
// batch and context) and the view's own inputs for that kind (the traffic, the targets, the
// hardware), as typed
function resultKey(body, kind) {
  if (!body) return null;
  const b = { ...body };
  delete b.batch; delete b.context_len;
  const own = fields().filter((el) => (el.dataset.for || "").split(" ").includes(kind)).map((el) => [el.name, valueOf(el)]);
  return JSON.stringify([b, own]);
}
function outdated() {
  const dep = LR.deployment();
  let any = false;
  for (const [kind, id] of [["sim", "sim_out"], ["plan", "plan_out"]]) {
    if ($(id).hidden || ranOn[kind] === null) continue;
    const old = ranOn[kind] !== resultKey(dep, kind);
    $(id).classList.toggle("outdated", old);
    any = any || old;
  }
  if (any) $("p_status").textContent = "The deployment or this view's inputs changed since this result: run it again to update it.";
  else if ($("p_status").textContent.startsWith("The deployment or this view's inputs changed")) $("p_status").textContent = "";
}

// an error in the view: the server's line naming the field, the input marked, and the
// result area saying there is no result (never a blank or an old chart)
function planningError(kind, data, status, scope) {
  const line = typeof data === "string" ? data : LR.errorLine(data, status);
  $("p_error").textContent = line;
  const named = data && data.field ? planningInput(data.field, scope) : null;
  if (named) named.classList.add("bad_field");
  const out = $(kind === "sim" ? "sim_out" : "plan_out");
  out.hidden = false;
  out.classList.remove("outdated");
  out.classList.add("failed");
  ranOn[kind] = null;
  if (kind === "sim") {
    $("sim_head").textContent = "No result.";
    $("sim_table").innerHTML = "";
    $("sim_numbers").innerHTML = "";
    return Promise.all(["ttft", "tpot", "queue", "kv"].map((c) => LR.plot($("c_sim_" + c), [], { message: "no result: " + line })));
  }
  $("plan_head").textContent = "No result.";
  $("plan_prices").textContent = "";
  $("plan_best").innerHTML = "";
  $("plan_table").innerHTML = "";
  return LR.plot($("c_plan"), [], { message: "no result: " + line });
}
function clearMarks() {
  $("p_error").textContent = "";
  for (const el of VIEW().querySelectorAll(".bad_field")) el.classList.remove("bad_field");
}

async function runSimulate() {
  clearMarks();
  const dep = LR.deployment();
  setState("sim", "busy", "Simulating the traffic on this deployment…");
  const release = LR.hold();
  try {
    const bad = badNumber("sim");
    if (bad) { await refuseBad("sim", bad); return; }
    if (!dep) { await planningError("sim", "no deployment: " + ($("error").textContent || "see the controls above"), 0, "sim"); setState("sim", "error", ""); return; }
    const body = { ...dep };
    delete body.context_len; delete body.batch; // the report's, not a traffic's
    Object.assign(body, planningFields("sim"));
    const { ok, status, data } = await LR.api("/api/simulate", body);
    if (!ok) { await planningError("sim", data, status, "sim"); setState("sim", "error", ""); return; }
    ranOn.sim = resultKey(dep, "sim");
    await drawSimulation(data, planningFields("sim"));
    setState("sim", "done", "");
  } catch (e) {
    await planningError("sim", String(e), 0, "sim");
    setState("sim", "error", "");
  } finally { release(); }
}

// a disaggregated simulation's two pools, read from its answer's deployments, in a plan's
// fleet's terms (each pool's instances, one instance's chips and split), for fleetText
function simPools(r) {
  const one = (d) => ({ chips: d.chips / d.replicas, tp: d.tp, pp: d.pp, ep: d.ep });
  const d = r.deployment, pf = r.prefill_deployment;
  return { disaggregated: true, prefill_instances: pf.replicas, decode_instances: d.replicas, prefill_split: one(pf), decode_split: one(d) };
}
const ms = (a) => a.map((v) => (v === null || v === undefined ? null : v * 1e3));
function drawSimulation(r, asked) {
  const out = $("sim_out");
  out.hidden = false;
  out.classList.remove("outdated", "failed");
  const dep = r.disaggregated && r.prefill_deployment ? `disaggregated: ${fleetText(simPools(r))}` : r.split;
  $("sim_head").innerHTML = (r.stable
    ? `<b class="ok" id="sim_stable">stable</b>`
    : `<b class="bad" id="sim_stable">UNSTABLE</b> ${fmtRate(r.offered_rps)} requests/s offered, more than the ${fmtRate(r.capacity_rps)} this deployment sustains: the queue grows without bound, so these percentiles are those of the requests simulated and grow with their number.`)
    + ` <span class="muted">${esc(r.workload)}; <span id="sim_fleet">${esc(dep)}</span>; engine ${esc(r.engine)}</span>`;
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
  const load = r.latency_vs_load || [];
  const x = load.map((row) => row.rate_rps);
  const marks = [];
  if (r.offered_rps) marks.push({ x: r.offered_rps, label: `offered ${fmtRate(r.offered_rps)}/s`, color: "#374151", dash: "dash" });
  if (r.capacity_rps) marks.push({ x: r.capacity_rps, label: `capacity ${fmtRate(r.capacity_rps)}/s`, color: C.memory });
  const xr = x.length ? [0, Math.max(...x, ...marks.map((m) => m.x)) * 1.05] : undefined;
  const qs = [["p50", C.compute, 1.6], ["p90", C.weights, 1.6], ["p99", C.memory, 2.2]];
  const targets = { ttft: ["TTFT p90 target", asked.slo_ttft_ms], tpot: ["TPOT p99 target", asked.slo_tpot_ms] };
  const draws = [];
  for (const m of ["ttft", "tpot"]) {
    const [tl, tv] = targets[m];
    draws.push(LR.plot($("c_sim_" + m),
      qs.map(([q, color, width]) => ({ type: "scatter", mode: "lines+markers", name: q, x, y: ms(load.map((row) => row[`${m}_${q}_s`])),
        line: { color, width }, marker: { size: 5, color }, hovertemplate: `%{y:.3~g} ms<extra>${q}</extra>` })),
      { x: { title: "request rate (requests/s, Poisson)", range: xr }, y: { title: `${m === "ttft" ? "time to first token" : "time per output token"} (ms)`, log: true },
        vlines: marks, hlines: tv ? [{ y: tv, label: `${tl} ${tv} ms` }] : [], empty: "no curve: the capacity is unbounded" }));
  }
  const tl = r.timeline;
  const ln = (name, y, color, unit) => ({ type: "scatter", mode: "lines", name, x: tl.t_s, y, line: { color, width: 1.6 }, hovertemplate: `%{y:.3~g} ${unit}<extra>${name}</extra>` });
  draws.push(LR.plot($("c_sim_queue"), [ln("waiting", tl.waiting, C.weights, "requests"), ln("running", tl.running, C.compute, "requests")],
    { x: { title: "time (s)" }, y: { title: "requests", fromZero: true }, empty: "no timeline" }));
  draws.push(LR.plot($("c_sim_kv"), [ln("KV memory used", tl.kv_share.map((v) => (v === null ? null : v * 100)), C.kv, "%")],
    { x: { title: "time (s)" }, y: { title: "% of the instance's KV memory", range: [0, 100] }, empty: "no timeline" }));
  return Promise.all(draws);
}

async function runPlan() {
  clearMarks();
  const release = LR.hold();
  try {
    const bad = badNumber("plan");
    if (bad) { await refuseBad("plan", bad); return; }
    const body = planningFields("plan");
    if ((body.hardware || []).length > HW_MAX) {
      await planningError("plan", { detail: `choose at most ${HW_MAX} hardware, not ${body.hardware.length}`, field: "hardware" }, 400, "plan");
      setState("plan", "error", "");
      return;
    }
    const dep = LR.deployment();
    if (!dep) { await planningError("plan", "no model: " + ($("error").textContent || "see the controls above"), 0, "plan"); setState("plan", "error", ""); return; }
    if (dep.config) body.config = dep.config;
    body.model = dep.model;
    body.engine = dep.engine || "calibrated";
    body.weight_dtype = dep.weight_dtype;
    body.kv_dtype = dep.kv_dtype;
    const own = topPrice(dep);
    if (own && body.hardware.includes(own.hardware)) body.prices = { [own.hardware]: own.usd };
    setState("plan", "busy", "Planning: searching and simulating fleets (a few seconds)…");
    const { ok, status, data } = await LR.api("/api/plan", body);
    if (!ok) { await planningError("plan", data, status, "plan"); setState("plan", "error", ""); return; }
    ranOn.plan = resultKey(dep, "plan");
    await drawPlan(data, body);
    setState("plan", "done", "");
  } catch (e) {
    await planningError("plan", String(e), 0, "plan");
    setState("plan", "error", "");
  } finally { release(); }
}

// the price set at the top for the hardware at the top: {hardware, usd}, or null (the
// catalog's); it costs that hardware in a plan too
function topPrice(dep) {
  if (!dep || dep.price_usd_per_hour === undefined || typeof dep.price_usd_per_hour !== "number") return null;
  return { hardware: $("hardware").value, usd: dep.price_usd_per_hour };
}
// the chips chosen, in words under the list (a list of 35 shows 4 at a time: a choice
// scrolled out of sight is still named)
function showChosen() {
  const sel = VIEW().querySelector('select[name="hardware"]');
  const chosen = [...sel.selectedOptions].map((o) => o.value);
  const line = chosen.length ? "chosen: " + chosen.join(", ") : "none chosen";
  // written only when it changes: rewriting it lays the list out again, and Chromium then
  // scrolls the page to the list's chosen option (a click landing as the page moves is lost)
  if ($("p_hw_chosen").textContent !== line) $("p_hw_chosen").textContent = line;
}
// the plan's hardware choices, each with the price it will be costed at
function labelHardware() {
  const own = topPrice(LR.deployment());
  for (const o of VIEW().querySelector('select[name="hardware"]').options) {
    const h = LR.catalog.hardwareById[o.value];
    if (!h) continue; // an id from a link that the catalog lacks: kept as it is, for the server to name
    const mine = own && own.hardware === o.value;
    o.disabled = !h.price_usd_per_hour && !(mine && own.usd > 0);
    o.textContent = o.value + (mine ? ` ($${own.usd}/h, the price set above)` : h.price_usd_per_hour ? ` ($${h.price_usd_per_hour}/h)` : " (no price)");
  }
}

function fleetText(b) {
  if (b.disaggregated) {
    const ps = b.prefill_split || {}, ds = b.decode_split || {};
    const split = (x) => `tp ${x.tp} · pp ${x.pp}` + (x.ep > 1 ? ` · ep ${x.ep}` : "");
    return `${b.prefill_instances} prefill × ${ps.chips} (${split(ps)}) + ${b.decode_instances} decode × ${ds.chips} (${split(ds)})`;
  }
  const dp = b.dp > 1 ? ` · dp ${b.dp}` : "";
  return `${b.replicas} × ${b.instance_chips} chip${b.instance_chips > 1 ? "s" : ""} (tp ${b.tp} · pp ${b.pp} · ep ${b.ep}${dp})`;
}

// a fleet of the answer against the targets: the share of its capacity the rate uses, the
// margin to each target and the one that binds (plan's `standing`)
function standing(b) {
  const m = b.margins || {}, pct = (v) => (v === null || v === undefined ? "–" : `${LR.sig(v * 100)}%`);
  const util = b.utilisation === null || b.utilisation === undefined ? "–" : pct(b.utilisation);
  return `runs at ${util} of its capacity; margin TTFT p90 ${pct(m.ttft_p90)}, TPOT p99 ${pct(m.tpot_p99)}; binding: ${b.binding === "tpot_p99" ? "TPOT p99" : b.binding === "ttft_p90" ? "TTFT p90" : "–"}`;
}

// the flags of a `simulate` command, --name value -> {name: value} (--max-seqs: max_seqs)
function commandFlags(cmd) {
  const words = String(cmd || "").trim().split(/\s+/), out = {};
  for (let i = 0; i + 1 < words.length; i++) {
    if (words[i].startsWith("--") && !words[i + 1].startsWith("--")) out[words[i].slice(2).replace(/-/g, "_")] = words[i + 1];
  }
  return out;
}
// a plan's fleet into the deployment controls and Simulate's form as its `simulate` command
// has it (the decode instance's shape at the top; P:D and a prefill instance's shape; the
// traffic, the server's limits and the seed of its reported draw), then simulated: the same
// simulation the plan ran. The targets stay as typed; any other Simulate field the command
// leaves out goes back to its default, as the command line's would. A plan that was current
// stays so: what it was asked is unchanged (the fields it shares with Simulate get the values
// it ran with), unless a price set above for another chip has to go.
function useFleet(b) {
  const flags = commandFlags(b.simulate_command);
  const current = ranOn.plan !== null && ranOn.plan === resultKey(LR.deployment(), "plan");
  const set = (el, v) => {
    v = v === null || v === undefined ? "" : String(v);
    if (el.value === v) return;
    LR.setControl(el, v);
    el.dispatchEvent(new Event("change", { bubbles: true }));
  };
  // a catalog model (an uploaded config.json the plan ran on stays chosen)
  if ([...$("model").options].some((o) => o.value === flags.model)) set($("model"), flags.model);
  // the price above is that of the chip above: another chip is at the catalog's
  const repriced = flags.hardware !== $("hardware").value && $("price").value.trim() !== "";
  if (repriced) set($("price"), "");
  for (const id of ["hardware", "weight_dtype", "kv_dtype", "engine"]) if (flags[id] !== undefined) set($(id), flags[id]);
  for (const id of ["chips", "tp", "pp", "ep", "replicas"]) set($(id), flags[id]);
  set($("overlap"), "full"); // the command line's default, as plan times its fleets
  if ($("pad_heads").checked) { $("pad_heads").checked = false; $("pad_heads").dispatchEvent(new Event("change", { bubbles: true })); }
  if ($("chip_state").classList.contains("edited")) $("chip_reset").click(); // the catalog's chip
  for (const el of fields()) {
    if (!(el.dataset.for || "").split(" ").includes("sim") || el.dataset.sim) continue;
    set(el, flags[el.name] !== undefined ? flags[el.name] : defaults.get(el));
  }
  showPrefill();
  if (current && !repriced) { ranOn.plan = resultKey(LR.deployment(), "plan"); outdated(); }
  $("sim_run").scrollIntoView({ block: "center" });
  return runSimulate();
}
// a prefill instance's shape fields show for a disaggregated fleet (or while they hold a value)
function showPrefill() {
  const disagg = VIEW().querySelector('input[name="disagg"][data-for="sim"]');
  const own = [...$("p_prefill").querySelectorAll("input")].some((el) => el.value.trim() !== "");
  $("p_prefill").hidden = !(disagg.value.trim() || own);
}

function drawPlan(r, asked) {
  const out = $("plan_out");
  out.hidden = false;
  out.classList.remove("outdated", "failed");
  const b = r.best, s = r.searched || {};
  $("plan_prices").textContent = "costed at " + Object.entries(r.prices || {}).map(([h, p]) =>
    `${h} ${fmtUsd(p.usd_per_hour)} per chip-hour (${p.source === "request" ? "the price set above" : "the catalog's"})`).join("; ");
  const searched = `searched ${s.instance_shapes} instance shapes, ${s.simulations} simulations, ${s.seconds === undefined ? "–" : LR.sig(s.seconds)} s`;
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
      ["each draw (TTFT p90 / TPOT p99)", (b.draws || []).map((d) => `seed ${d.seed}: ${fmtTime(d.ttft_p90_s)} / ${fmtTime(d.tpot_p99_s)}`).join("; ") + " (the fleet's figures are the worst)", "draws"],
      ["where it stands", standing(b), "margins"],
      ["runner-up", r.runner_up ? `${fleetText(r.runner_up)}, ${fmtUsd(r.runner_up.usd_per_hour)} per hour; ${standing(r.runner_up)}` : "none simulated", "runner_up"],
      ["simulate it", b.simulate_command || "–", "simulate_command"],
    ];
    $("plan_best").innerHTML = rows.map(([k, v, key]) => `<tr><th>${k}</th><td data-key="${key}">${esc(v)}</td></tr>`).join("");
  } else {
    $("plan_head").innerHTML = `<b class="bad" id="plan_verdict">no fleet meets the targets</b> <span class="muted">${esc(searched)}</span>`;
    $("plan_best").innerHTML = `<tr><th>why</th><td data-key="reason">${esc(r.reason || "–")}</td></tr>`;
  }
  // the hardware asked for with no fleet simulated, each with why it lost
  $("plan_best").innerHTML += Object.entries(s.unsimulated || {}).map(([h, why]) =>
    `<tr class="lost"><th>${esc(h)}</th><td data-lost="${esc(h)}">${esc(why)}</td></tr>`).join("");
  if (b) {
    // the best fleet into the deployment controls and Simulate's form, each pool its own
    // shape, and simulated as the command above
    $("plan_best").innerHTML += `<tr><th></th><td><button id="plan_use" type="button">Simulate this fleet</button></td></tr>`;
    $("plan_use").addEventListener("click", () => useFleet(b));
  }
  const cands = r.candidates || [];
  const meets = cands.filter((c) => c.meets_slo), misses = cands.filter((c) => !c.meets_slo);
  const pts = (name, rows, color, size, symbol) => ({
    type: "scatter", mode: "markers", name, x: rows.map((c) => c.usd_per_hour), y: rows.map((c) => (c.tpot_p99_s === null ? null : c.tpot_p99_s * 1e3)),
    customdata: rows.map((c) => [c.hardware, fleetText(c), c.ttft_p90_s === null ? "–" : fmtTime(c.ttft_p90_s)]),
    marker: { color, size, symbol, opacity: 0.85, line: { width: 0 } },
    hovertemplate: "%{customdata[0]}, %{customdata[1]}<br>$%{x:.3~g}/h, TPOT p99 %{y:.3~g} ms, TTFT p90 %{customdata[2]}<extra></extra>",
  });
  const series = [pts("misses a target", misses, C.dots, 7, "circle"), pts("meets both", meets, C.engine, 8, "circle")];
  if (b) series.push(pts("best", [b], C.mark, 14, "star"));
  $("plan_table").innerHTML = "<tr><th>hardware</th><th>chips</th><th>instances</th><th>$/hour</th><th>TTFT p90</th><th>TPOT p99</th><th>meets</th></tr>" +
    cands.map((c) => "<tr>" + [esc(c.hardware), fmtNum(c.chips), esc(fleetText(c)), fmtUsd(c.usd_per_hour), fmtTime(c.ttft_p90_s), fmtTime(c.tpot_p99_s), c.meets_slo ? "yes" : "no"].map((v) => `<td>${v}</td>`).join("") + "</tr>").join("");
  return LR.plot($("c_plan"), series, {
    x: { title: "fleet cost ($ per hour)", log: true }, y: { title: "TPOT p99 (ms)", log: true },
    hlines: [{ y: asked.tpot_p99_ms, label: `TPOT p99 target ${asked.tpot_p99_ms} ms` }],
    hovermode: "closest", empty: "no fleet was simulated",
  });
}

LR.on("controls", () => {
  const sel = VIEW().querySelector('select[name="hardware"]');
  sel.innerHTML = "";
  for (const h of LR.catalog.hardware) {
    const o = document.createElement("option");
    o.value = h.id;
    o.selected = h.id === "h100-sxm";
    sel.appendChild(o);
  }
  // plan ranks fleets by cost: a chip without a price cannot be planned
  labelHardware();
  for (const el of fields()) defaults.set(el, valueOf(el));
  readUrl();
  for (const el of fields()) for (const ev of ["input", "change"]) el.addEventListener(ev, () => { writeUrl(); check(); outdated(); showChosen(); showPrefill(); });
  check();
  showPrefill();
  showChosen();
  $("sim_run").addEventListener("click", runSimulate);
  $("plan_run").addEventListener("click", runPlan);
});
LR.onView("planning", writeUrl);
LR.onDeployment(() => { labelHardware(); outdated(); });
LR.onNoDeployment(outdated);
})();
