// The economics view (?view=economics): API prices read backwards (/api/pricing), the cost per
// output token against context (/api/cost-vs-context) and where to keep a KV cache by hold time
// (/api/cache-tiers), for the deployment of the controls at the top. Its inputs live in the URL
// as econ.NAME. No model arithmetic here: every figure is the API's; the page only formats
// (units for display) and draws. Everything is inside one function: the other scripts' names
// stay theirs.
"use strict";
(() => {
  const SECTION = () => document.getElementById("view_economics");
  const byId = (id) => document.getElementById(id);
  const esc = LR.esc || ((t) => String(t).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]));

  // ---- the view's inputs: [API field, label, unit, default ("" = none), placeholder] ----
  const PRICING = [
    ["input_price", "input price", "$ per M tokens", "3", ""],
    ["output_price", "output price", "$ per M tokens", "15", ""],
    ["cache_hit_price", "cache-hit price", "$ per M tokens", "0.3", "none"],
    ["long_context_threshold", "price steps up above", "tokens", "", "no step"],
    ["long_input_price", "input price above it", "$ per M tokens", "", "–"],
    ["long_output_price", "output price above it", "$ per M tokens", "", "–"],
    ["active_params", "active parameters", "count", "", "the model's"],
    ["ratio", "hardware ratio", "FLOP/B", "", "the chip's"],
  ];
  const TIERS = [["context_len", "context of the cached sequence", "tokens", "", "the deployment's"]];
  const INPUTS = [...PRICING, ...TIERS];
  const KEY = (name) => "econ." + name;
  const COLORS = { hbm: "#2563eb", dram: "#16a34a", flash: "#ea580c", disk: "#9333ea", recompute: "#111827" };
  const ENGINE_NOTE = (e) => (e === "ideal" ? "ideal: a floor" : `engine ${e}`);

  // ---- formats (display only) ----
  function fmt(x) {
    if (x === null || x === undefined || !Number.isFinite(x)) return "–";
    if (Math.abs(x) >= 1000) return x.toLocaleString("en-US", { maximumFractionDigits: 0 });
    return String(+x.toPrecision(3));
  }
  const usd = (x) => (x === null || x === undefined ? "–" : "$" + fmt(x));
  const secs = LR.fmtTime; // the command line's ladder, ns to years (`cache-tiers` prints the same)
  const gb = (b) => fmt(b / 1e9) + " GB";
  const tokens = (n) => (n === null || n === undefined ? "–" : n.toLocaleString("en-US", { maximumFractionDigits: 0 }));
  // a figure of the API's answer: its exact value rides along for the tests (data-value)
  const val = (key, x, text) => `<b data-key="${key}" data-value="${x === null || x === undefined ? "" : x}">${esc(text)}</b>`;
  const card = (label, key, x, text, note) =>
    `<div class="num"><span>${label}</span>${val(key, x, text)}${note ? `<small>${note}</small>` : ""}</div>`;

  // ---- the URL: econ.NAME for each input that is not at its default ("" kept: cleared) ----
  function readUrl() {
    const q = new URLSearchParams(location.search);
    for (const [name, , , def] of INPUTS) {
      const el = input(name);
      el.value = q.has(KEY(name)) ? q.get(KEY(name)) : def;
    }
  }
  function writeUrl() {
    const q = new URLSearchParams(location.search);
    for (const [name, , , def] of INPUTS) {
      const v = input(name).value.trim();
      if (v === def) q.delete(KEY(name)); else q.set(KEY(name), v);
    }
    history.replaceState(null, "", "?" + q.toString());
  }

  // ---- the DOM ----
  const input = (name) => SECTION().querySelector(`[name="${name}"]`);
  function field([name, label, unit, , placeholder]) {
    // a number typed in a text input: a bad value, typed or from a link, stays as it is and is
    // named (the browser would empty a number input and the server's default would answer)
    return `<label>${label} <i>(${unit})</i> <input name="${name}" type="text" inputmode="decimal" min="0" step="any"${placeholder ? ` placeholder="${placeholder}"` : ""}></label>`;
  }
  function build() {
    const s = SECTION();
    s.dataset.state = "idle";
    const style = document.createElement("style");
    style.textContent = `
#view_economics { margin-top: 1rem; }
#view_economics h2 { font-size: 1.05rem; margin: 0 0 0.3rem; }
#view_economics h3 { font-size: 0.95rem; margin: 0 0 0.3rem; }
#view_economics h3 small, #view_economics h2 small { font-weight: normal; color: #6b7280; font-size: 0.8rem; margin-left: 0.4rem; }
#view_economics .epanel { background: #fff; border: 1px solid #e5e7eb; border-radius: 6px; padding: 0.5rem 0.8rem; margin: 0 0 0.8rem; }
#view_economics .erow { display: flex; flex-wrap: wrap; gap: 0.5rem 0.9rem; align-items: end; font-size: 0.85rem; margin: 0.3rem 0; }
#view_economics .erow label { display: flex; flex-direction: column; gap: 0.15rem; }
#view_economics .erow input { width: 7rem; }
#view_economics .enums { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.4rem 0; }
#view_economics .enums .num small { white-space: normal; max-width: 22rem; }
#view_economics .eerror { color: #b91c1c; font-size: 0.9rem; min-height: 1.2em; margin: 0.2rem 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#view_economics .eline { font-size: 0.88rem; margin: 0.3rem 0; }
#view_economics .ewarn { color: #b45309; font-size: 0.85rem; }
#view_economics .egrid { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 0.8rem; }
#view_economics .echart { min-height: 340px; }
#view_economics details { font-size: 0.85rem; margin: 0.3rem 0; }
#view_economics details summary { cursor: pointer; color: #374151; }
#view_economics[data-state="busy"] .epanel { opacity: 0.7; }
#view_economics .epanel.failed .eout, #view_economics.stale #econ_deployment { opacity: 0.35; filter: grayscale(1); }
`;
    document.head.appendChild(style);
    s.innerHTML = `
<h2>Economics <small>what prices say, what a token costs against context, where to keep a KV cache: for the deployment above</small></h2>
<p class="eline" id="econ_deployment">–</p>
<p class="eerror" id="econ_error" role="alert"></p>
<div class="epanel" id="econ_pricing" data-api="pricing">
  <h3>What API prices say <small>read backwards, as <code>llm-roofline pricing</code>; the cost floor at the context above</small></h3>
  <div class="erow">${PRICING.slice(0, 3).map(field).join("")}</div>
  <div class="erow">${PRICING.slice(3).map(field).join("")}</div>
  <p class="eerror" id="econ_pricing_error" role="alert"></p>
  <div class="eout" id="econ_pricing_out"></div>
</div>
<div class="egrid">
  <div class="epanel" id="econ_cost" data-api="cost-vs-context">
    <h3>Cost vs context <small>$ per million output tokens, log axes</small></h3>
    <p class="eerror" id="econ_cost_error" role="alert"></p>
    <div class="eout"><div class="echart" id="econ_cost_chart"></div></div>
  </div>
  <div class="epanel" id="econ_tiers" data-api="cache-tiers">
    <h3>Where to keep a KV cache <small>by hold time, as <code>llm-roofline cache-tiers</code></small></h3>
    <div class="erow">${TIERS.map(field).join("")}</div>
    <p class="eerror" id="econ_tiers_error" role="alert"></p>
    <div class="eout" id="econ_tiers_out"></div>
    <div class="eout"><div class="echart" id="econ_tiers_chart"></div></div>
  </div>
</div>`;
    for (const [name] of INPUTS) {
      const el = input(name);
      el.addEventListener("input", changed);
      el.addEventListener("change", changed);
    }
    // the tokens of a sequence: a count, read as the command line does (32k = 32,768)
    input("context_len").step = "1";
    input("context_len").min = "1";
    input("context_len").inputMode = "numeric";
  }

  // ---- requests: the deployment above with this view's fields ----
  let deployment = null; // the last deployment the controls above answered for
  // the view's fields of `list` (empty: left out, the server's default); call it once bad()
  // says none is bad
  function fields(list) {
    const out = {};
    for (const [name] of list) {
      const v = LR.numberIn(input(name), name);
      if (v !== undefined) out[name] = v;
    }
    return out;
  }
  // the first field of `list` that is not a number, as an answer the panel shows (the field
  // named, nothing asked with another number), or null
  function bad(list) {
    const b = LR.badNumber(list.map(([name]) => [name, input(name)]));
    return b && { ok: false, status: 0, data: { detail: b.line, field: b.field } };
  }
  function bodies() {
    const dep = { ...deployment };
    delete dep.batch; // the report's, not a question of this view
    const context = dep.context_len;
    delete dep.context_len;
    const pricing = bad(PRICING) || { ...dep, context_len: context, ...fields(PRICING) };
    const tiers = bad(TIERS) || { ...dep, context_len: context, ...fields(TIERS) };
    return { pricing, cost: dep, tiers };
  }

  // ---- asking the API; each answer remembered by its request, so an unchanged one is not
  // asked again ----
  const memo = new Map();
  async function ask(path, body) {
    const key = path + " " + JSON.stringify(body);
    if (memo.has(key)) return memo.get(key);
    const res = LR.api ? await LR.api(path, body) : await localApi(path, body);
    if (res.ok || (res.status >= 400 && res.status < 500)) {
      if (memo.size > 64) memo.clear();
      memo.set(key, res);
    }
    return res;
  }
  async function localApi(path, body) {
    const r = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { ok: r.ok, status: r.status, data: await r.json().catch(() => null) };
  }
  function errorLine(data, status) {
    if (LR.errorLine) return LR.errorLine(data, status);
    const d = data && data.detail;
    if (typeof d === "string") return data.field && !d.includes(data.field) ? `${data.field}: ${d}` : d;
    if (Array.isArray(d) && d.length) return `${(d[0].loc || []).filter((p) => p !== "body").join(".") || data.field}: ${d[0].msg}`;
    return `the server answered ${status}`;
  }

  // body[data-busy] is held (LR.hold, where common.js has it) from an input of this view until
  // its answer is drawn, as the rest of the page does: the browser tests wait on it
  const hold = () => (LR.hold ? LR.hold() : () => {});
  let release = () => {};
  let pending = null;
  let dirty = true;
  const visible = () => !SECTION().hidden;
  async function compute() {
    const released = release; // this run answers the inputs so far
    release = () => {};
    if (!deployment) { released(); return; } // the controls above have not answered yet
    dirty = false;
    const token = {};
    pending = token;
    SECTION().dataset.state = "busy";
    const b = bodies();
    const mine = hold();
    let answers;
    try {
      // a panel whose own field is bad has its answer already: the line naming it
      const asked = (path, body) => (body.ok === false ? body : ask(path, body));
      answers = await Promise.all([asked("/api/pricing", b.pricing), asked("/api/cost-vs-context", b.cost), asked("/api/cache-tiers", b.tiers)]);
    } catch (e) {
      answers = [0, 1, 2].map(() => ({ ok: false, status: 0, data: String(e) }));
    }
    if (pending !== token) { mine(); released(); return; }
    try { await draw(answers); } finally { mine(); released(); }
  }
  async function draw(answers) {
    for (const el of SECTION().querySelectorAll(".bad_field")) el.classList.remove("bad_field");
    const [pricing, cost, tiers] = answers;
    // the header follows the deployment asked about; when neither answer carrying it came,
    // it greys with cost's line (cost has no field of its own: its error is the deployment's)
    const told = [pricing, cost].find((a) => a.ok);
    if (told) { drawHeader(told.data); fresh(); } else stale(typeof cost.data === "string" ? cost.data : errorLine(cost.data, cost.status));
    const ok = [
      await show("pricing", pricing, drawPricing),
      await show("cost", cost, (d) => drawCost(d, pricing.ok ? pricing.data : null)),
      await show("tiers", tiers, (d) => drawTiers(d, pricing.ok ? pricing.data : null)),
    ];
    SECTION().dataset.state = ok.every(Boolean) ? "done" : "error";
  }
  // one panel: its drawing, or its one-line error naming the field (the input marked)
  async function show(panel, res, drawIt) {
    const box = byId("econ_" + panel), line = byId(`econ_${panel}_error`);
    if (res.ok) {
      line.textContent = "";
      box.classList.remove("failed");
      await drawIt(res.data);
      return true;
    }
    const text = typeof res.data === "string" ? res.data : errorLine(res.data, res.status);
    line.textContent = (LR.pageText ? LR.pageText(text) : text).replace(/\s+/g, " ");
    line.title = line.textContent;
    box.classList.add("failed");
    const named = res.data && res.data.field ? box.querySelector(`[name="${res.data.field}"]`) : null;
    if (named) named.classList.add("bad_field");
    return false;
  }

  let timer = null;
  function changed() {
    SECTION().dataset.state = "busy"; // until the answer to this input is drawn
    if (timer === null) { release(); release = hold(); }
    writeUrl();
    clearTimeout(timer);
    timer = setTimeout(() => { timer = null; compute(); }, 120);
  }

  // ---- drawing ----
  // the header: the deployment an answer is for (pricing's or cost's, which both carry it)
  function drawHeader(d) {
    const dep = d.deployment;
    byId("econ_deployment").innerHTML =
      `${esc(dep.model)} on ${dep.chips} × ${esc(dep.hardware)} (${esc(d.split)}), ${esc(ENGINE_NOTE(d.engine))}` +
      (dep.price_usd_per_hour ? `, $${fmt(dep.price_usd_per_hour)} per chip-hour` : "");
  }
  // no answer for the deployment asked about: the header (an older deployment's) greyed, the
  // line saying why; fresh() undoes it once an answer is drawn
  function stale(line) {
    SECTION().classList.add("stale");
    byId("econ_error").textContent = line.replace(/\s+/g, " ");
    byId("econ_error").title = byId("econ_error").textContent;
  }
  function fresh() {
    SECTION().classList.remove("stale");
    byId("econ_error").textContent = "";
  }
  function drawPricing(d) {
    const dep = d.deployment, f = d.cost_floor;
    let html = `<div class="enums">` +
      card("output ÷ input price", "output_to_input", d.output_to_input, fmt(d.output_to_input) + "×",
        `if prices track cost, decode runs at ${val("decode_to_prefill_mfu", d.decode_to_prefill_mfu, fmt(d.decode_to_prefill_mfu))} of prefill's utilisation`) +
      card(`cost floor, input <i>($ per M tokens, ${esc(ENGINE_NOTE(f.engine))})</i>`, "cost_floor.usd_per_million_input_tokens",
        f.usd_per_million_input_tokens, usd(f.usd_per_million_input_tokens),
        `a prefill of ${tokens(d.context_len)} tokens; priced ${usd(d.input_price)}`) +
      card(`cost floor, output <i>($ per M tokens, ${esc(ENGINE_NOTE(f.engine))})</i>`, "cost_floor.usd_per_million_output_tokens",
        f.usd_per_million_output_tokens, usd(f.usd_per_million_output_tokens),
        `decode at batch ${val("cost_floor.batch", f.batch, tokens(f.batch))}, the largest that fits at that context; priced ${usd(d.output_price)}`);
    const st = d.price_step;
    if (st) {
      const whose = st.active_params_source === "model" ? " (the model's, multiplied per token)" : " (given)";
      html += card("KV cache the price step implies <i>(bytes per token)</i>", "price_step.implied_kv_bytes_per_token",
        st.implied_kv_bytes_per_token, tokens(st.implied_kv_bytes_per_token) + " B",
        `a step at ${tokens(st.long_context_threshold)} tokens, ${LR.fmtWords(st.active_params)} active parameters${whose}, ` +
        `${fmt(st.flops_per_byte)} FLOP/B (${esc(st.flops_per_byte_source)}); this model holds ` +
        `${val("cost_floor.kv_bytes_per_token", f.kv_bytes_per_token, tokens(f.kv_bytes_per_token) + " B")} per token (${esc(dep.kv_dtype)})` +
        (st.long_output_to_input !== null ? `; above the step output ÷ input is ${val("price_step.long_output_to_input", st.long_output_to_input, fmt(st.long_output_to_input) + "×")}` : ""));
    }
    const hit = d.cache_hit;
    if (hit) {
      html += card("cache hit ÷ input price", "cache_hit.to_input", hit.to_input, fmt(hit.to_input) + "×",
        `a hit priced ${usd(hit.price)} per M tokens: bringing a prompt back must cost no more (table below)`);
    }
    html += `</div>`;
    if (st && st.active_params_note) html += `<p class="ewarn">note: ${esc(st.active_params_note)}</p>`;
    if (hit) {
      html += `<table class="ptable" id="econ_hit_table"><caption class="eline">Bringing a cached ${tokens(hit.context_len)}-token prompt back on this deployment, held for no time <i>($ per M tokens)</i></caption>` +
        `<tr><th>from</th><th>read time</th><th>$ per M tokens</th><th>within the hit price ${usd(hit.price)}</th></tr>` +
        Object.entries(hit.tiers).map(([id, t]) =>
          `<tr><td title="${esc(t.name)}">${esc(id)}</td><td>${val(`cache_hit.tiers.${id}.fetch_s`, t.fetch_s, secs(t.fetch_s))}</td>` +
          `<td>${val(`cache_hit.tiers.${id}.usd_per_million_tokens`, t.usd_per_million_tokens, usd(t.usd_per_million_tokens))}</td>` +
          `<td>${t.covered ? "yes" : "no"}</td></tr>`).join("") +
        `<tr><td>recompute (prefill)</td><td></td><td>${val("cache_hit.recompute_usd_per_million_tokens", hit.recompute_usd_per_million_tokens, usd(hit.recompute_usd_per_million_tokens))}</td>` +
        `<td>${hit.recompute_covered ? "yes" : "no"}</td></tr></table>`;
    }
    if (st) {
      html += `<details><summary>the catalog's models against the same step (bf16 KV cache)</summary><table class="ptable">` +
        `<tr><th>model</th><th>active</th><th>KV B/token</th><th>implied B/token</th><th>real ÷ implied</th></tr>` +
        st.catalog_vs_price_step.map((r) => `<tr><td>${esc(r.model)}</td><td>${fmt(r.active_params / 1e9)}B</td><td>${tokens(r.kv_bytes_per_token)}</td>` +
          `<td>${tokens(r.implied_kv_bytes_per_token)}</td><td>${tokens(r.ratio)}×</td></tr>`).join("") +
        `</table></details>`;
    }
    byId("econ_pricing_out").innerHTML = html;
  }

  const line = (x, y, name, color, extra) => ({ x, y, name, type: "scatter", mode: "lines", line: { color, width: 2, ...(extra || {}) }, connectgaps: false });

  function drawCost(d, pricing) {
    const S = d.context;
    const traces = [
      line(S, d.usd_per_million_output_tokens, "largest batch that fits", "#111827", { width: 3 }),
      line(S, d.usd_per_million_output_tokens_batch1, "batch 1", "#ea580c", { dash: "dash" }),
    ];
    traces[0].customdata = d.batch;
    traces[0].hovertemplate = "context %{x:,.0f}: $%{y:.3g} per M (batch %{customdata:,.0f})<extra></extra>";
    // the prices given above, drawn as given: a flat output price, stepping up above a threshold
    if (pricing) {
      const st = pricing.price_step, x0 = S[0], x1 = S[S.length - 1];
      if (st && st.long_output_price !== null && st.long_context_threshold > x0 && st.long_context_threshold < x1) {
        const t = st.long_context_threshold;
        traces.push(line([x0, t, t, x1], [pricing.output_price, pricing.output_price, st.long_output_price, st.long_output_price],
          `price: ${usd(pricing.output_price)}, ${usd(st.long_output_price)} per M above ${tokens(t)} tokens`, "#dc2626"));
      } else {
        traces.push(line([x0, x1], [pricing.output_price, pricing.output_price], `price: ${usd(pricing.output_price)} per M output`, "#dc2626"));
      }
    }
    const vlines = [];
    if (deployment && deployment.context_len) vlines.push({ x: deployment.context_len, label: `context ${tokens(deployment.context_len)}`, color: "#7c3aed" });
    if (d.no_fit_from !== null) vlines.push({ x: d.no_fit_from, label: "one sequence no longer fits", color: "#6b7280" });
    const bands = [];
    if (d.max_context && d.max_context < S[S.length - 1]) bands.push({ x0: d.max_context, x1: S[S.length - 1], label: "beyond the trained max context" });
    return LR.plot(byId("econ_cost_chart"), traces, {
      x: { title: "context length (tokens)", log: true, range: [S[0], S[S.length - 1]] },
      y: { title: `$ per million output tokens (${d.engine})`, log: true },
      vlines, bands, height: 340,
    });
  }

  function drawTiers(d, pricing) {
    const tiers = Object.entries(d.tiers);
    let html = `<p class="eline">KV cache of one ${tokens(d.context_len)}-token sequence: ${val("kv_bytes", d.kv_bytes, gb(d.kv_bytes))}; ` +
      `recomputing it (prefill, ${esc(ENGINE_NOTE(d.engine))}) takes ${val("recompute_s", d.recompute_s, secs(d.recompute_s))}, ` +
      `${val("recompute_usd", d.recompute_usd, usd(d.recompute_usd))}</p>`;
    if (d.warning) html += `<p class="ewarn">${esc(LR.pageText ? LR.pageText(d.warning) : d.warning)}</p>`;
    html += `<table class="ptable"><tr><th>tier</th><th>drain time</th><th>read at</th><th>bring back</th></tr>` +
      tiers.map(([id, t]) => `<tr><td title="${esc(t.name)}">${esc(id)}</td>` +
        `<td>${val(`tiers.${id}.drain_time_s`, t.drain_time_s, secs(t.drain_time_s))}</td>` +
        `<td>${val(`tiers.${id}.bandwidth`, t.bandwidth, fmt(t.bandwidth / 1e9) + " GB/s")}${t.devices > 1 ? ` (${t.devices} chips)` : ""}</td>` +
        `<td>${val(`tiers.${id}.fetch_s`, t.fetch_s, secs(t.fetch_s))}</td></tr>`).join("") + `</table>`;
    html += `<p class="eline" id="econ_cheapest">cheapest: ` +
      d.cheapest_from.map((c, i) => `from ${val(`cheapest_from.${i}.hold_s`, c.hold_s, secs(c.hold_s))}: <b data-key="cheapest_from.${i}.tier" data-value="${esc(c.tier)}">${esc(c.tier)}</b>`).join("; ") + `</p>`;
    byId("econ_tiers_out").innerHTML = html;
    const traces = tiers.map(([id, t]) => line(d.hold_s, t.usd_per_million_tokens, `${id} (drain ${secs(t.drain_time_s)})`, COLORS[id] || "#6b7280"));
    traces.push(line([d.hold_s[0], d.hold_s[d.hold_s.length - 1]], [d.recompute_usd_per_million_tokens, d.recompute_usd_per_million_tokens], "recompute (prefill)", COLORS.recompute, { dash: "dash" }));
    if (pricing && pricing.cache_hit) {
      const p = pricing.cache_hit.price;
      traces.push(line([d.hold_s[0], d.hold_s[d.hold_s.length - 1]], [p, p], `cache-hit price ${usd(p)}`, "#dc2626", { dash: "dot" }));
    }
    // where each choice is cheapest, as the API says: shaded spans of hold time
    const last = d.hold_s[d.hold_s.length - 1];
    const bands = d.cheapest_from.map((c, i) => ({
      x0: c.hold_s, x1: i + 1 < d.cheapest_from.length ? d.cheapest_from[i + 1].hold_s : last,
      label: c.tier, color: COLORS[c.tier] || "#9ca3af",
    })).filter((b) => b.x1 > b.x0);
    return LR.plot(byId("econ_tiers_chart"), traces, {
      x: { title: "hold time (s)", log: true, range: [d.hold_s.find((h) => h > 0) || 1, last] },
      y: { title: "$ per M cached tokens", log: true },
      vlines: [{ x: 300, label: "5 min", color: "#6b7280" }, { x: 3600, label: "1 h", color: "#6b7280" }].filter((v) => v.x >= d.hold_s[0] && v.x <= last),
      bands, height: 340,
    });
  }

  // ---- wiring: compute when the view is shown and when the deployment above changes ----
  const sameDeployment = (a, b) => {
    if (!a || !b) return false;
    const strip = (x) => { const y = { ...x }; delete y.batch; return JSON.stringify(y); };
    return strip(a) === strip(b);
  };
  function init() {
    build();
    readUrl();
    LR.onDeployment((body) => {
      if (!body) return;
      const same = sameDeployment(body, deployment);
      deployment = body;
      if (same && !dirty) return; // only the batch moved: nothing here depends on it
      dirty = true;
      if (visible()) compute();
    });
    // the controls above make no deployment (an error there): no figure here is for them
    if (typeof LR.onNoDeployment === "function") {
      LR.onNoDeployment((why) => {
        deployment = null;
        dirty = true;
        for (const panel of ["pricing", "cost", "tiers"]) {
          byId(`econ_${panel}_error`).textContent = "the deployment above: " + String(why || "no deployment").replace(/\s+/g, " ");
          byId("econ_" + panel).classList.add("failed");
        }
        stale("the deployment above: " + String(why || "no deployment"));
        SECTION().dataset.state = "error";
      });
    }
    LR.onView("economics", () => {
      if (!deployment) {
        const body = LR.deployment && LR.deployment();
        if (body && document.body.dataset.ready) deployment = body;
      }
      if (dirty || SECTION().dataset.state === "idle") compute();
    });
  }
  init();
})();
