// The page's what-if views: "What matters most" (?view=sensitivity, POST /api/sensitivity) and
// "Fast modes" (?view=fast-mode, POST /api/fast-mode). Each sends the deployment of the controls
// at the top with its own inputs and draws what the API returns: no model arithmetic here.
// Every input carries a `name` equal to the API field it sets; its URL key is the view's prefix
// and that name (sens.tpot_ms, fast.speedup). A view's section says where it stands in
// data-state (idle, busy, done, error) and keeps the body it sent in data-request.
"use strict";
(() => {
  // the request keys of a deployment (schemas.SystemQuery) and the batch and context it runs at
  const DEPLOYMENT_KEYS = ["model", "config", "hardware", "chip", "chips", "tp", "pp", "ep", "replicas",
    "pad_heads", "weight_dtype", "kv_dtype", "engine", "price_usd_per_hour", "overlap", "context_len", "batch"];

  // ---- what LR may lack (another script owns it): local stand-ins ----
  const api = LR.api || (async (path, body) => {
    const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { ok: res.ok, status: res.status, data: await res.json().catch(() => null) };
  });
  const errorLine = LR.errorLine || ((data, status) => (data && typeof data.detail === "string" ? data.detail : `the server answered ${status}`));
  const hold = LR.hold || (() => () => {});
  const plot = (el, traces, opts) => (LR.plot ? LR.plot(el, traces, opts) : Promise.resolve());
  // grouped or overlaid bars over categories (LR.plot draws numeric axes only)
  function barPlot(el, traces, o) {
    if (!window.Plotly) return Promise.resolve();
    const empty = o.message || !traces.some((t) => t.y.some((y) => !none(y)));
    // a log axis ticks as every other chart of the page does: whole decades, plain numbers
    let ylog = {};
    if (o.ylog && LR.logTicks) {
      const ys = traces.flatMap((t) => t.y).filter((y) => !none(y) && y > 0);
      if (ys.length) {
        const lo = Math.floor(Math.log10(Math.min(...ys))), hi = Math.ceil(Math.log10(Math.max(...ys)));
        const range = [lo, Math.max(hi, lo + 1)];
        ylog = Object.assign({ range }, LR.logTicks(range[0], range[1]));
      }
    }
    const layout = {
      height: o.height || 360, margin: { l: 60, r: 16, t: 10, b: 10 }, barmode: o.barmode || "group",
      xaxis: Object.assign({ automargin: true, visible: !empty }, o.xaxis || {}),
      yaxis: Object.assign({ automargin: true, visible: !empty, title: { text: o.ytitle || "" }, type: o.ylog ? "log" : "linear", zeroline: !o.ylog, zerolinecolor: "#9ca3af", gridcolor: "#eef0f3" }, o.ylog ? ylog : {}),
      legend: { orientation: "h", x: 0, xanchor: "left", y: 1.02, yanchor: "bottom", font: { size: 11 } },
      hovermode: "closest", font: { family: "system-ui, sans-serif", size: 12, color: "#374151" },
      paper_bgcolor: "#fff", plot_bgcolor: "#fff", showlegend: !empty,
      annotations: empty ? [{ text: esc(o.message || "nothing to draw"), xref: "paper", yref: "paper", x: 0.5, y: 0.5, showarrow: false, font: { size: 13, color: "#6b7280" } }] : [],
    };
    return Plotly.react(el, empty ? [] : traces, layout, { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["select2d", "lasso2d"] })
      .then(() => { el.dataset.plotted = empty ? "empty" : "data"; });
  }
  const esc = LR.esc || ((t) => String(t).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]));
  const urlGet = LR.urlGet, urlSet = LR.urlSet;

  // ---- formats (display only) ----
  const none = (x) => x === null || x === undefined || !Number.isFinite(x);
  // 3 significant figures, thousands separated: 35.6, 2,657, 0.0874
  function sig(x, n = 3) {
    if (none(x)) return "–";
    if (x === 0) return "0";
    const d = Math.max(0, n - 1 - Math.floor(Math.log10(Math.abs(x))));
    return x.toLocaleString("en-US", { minimumFractionDigits: Math.min(d, 6), maximumFractionDigits: Math.min(d, 6) });
  }
  const pct = (x) => (none(x) ? "n/a" : Math.abs(x) < 5e-4 ? "0%" : (x > 0 ? "+" : "") + (100 * x).toFixed(1) + "%");
  const elas = (x) => (none(x) ? "n/a" : Math.abs(x) < 5e-4 ? "0" : (x > 0 ? "+" : "") + x.toFixed(2));
  const usd = (x) => (none(x) ? "no price" : "$" + sig(x));
  const times = (x) => (none(x) ? "–" : "×" + sig(x));
  const msTok = (s) => (none(s) ? "–" : sig(s * 1e3));
  // a step as a percentage, never rounded to a whole one: 0.025 -> "2.5", 0.1 -> "10"
  const stepPct = (share) => String(parseFloat((share * 100).toPrecision(6)));

  // ---- a little DOM ----
  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") e.textContent = v;
      else if (k === "html") e.innerHTML = v;
      else if (k === "data") for (const [dk, dv] of Object.entries(v)) e.dataset[dk] = dv;
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of kids) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  // a table: headers, then rows of cells; a cell is text or {text, data, cls, title}
  function table(id, headers, rows) {
    const t = h("table", { id, class: "ptable wtable" });
    t.append(h("thead", {}, h("tr", {}, ...headers.map((x) => h("th", { text: x })))));
    const body = h("tbody");
    for (const r of rows) {
      const tr = h("tr", r.data ? { data: r.data } : {});
      for (const c of r.cells) {
        if (c !== null && typeof c === "object") tr.append(h("td", { text: c.text, class: c.cls, title: c.title, data: c.data }));
        else tr.append(h("td", { text: c }));
      }
      body.append(tr);
    }
    t.append(body);
    return t;
  }

  document.head.append(h("style", { text: `
.wview { margin-top: 0.6rem; background: #fff; border: 1px solid #e5e7eb; border-radius: 6px; padding: 0.5rem 0.8rem; }
.wview h2 { font-size: 1.05rem; margin: 0 0 0.3rem; }
.wview .intro { margin: 0 0 0.5rem; font-size: 0.85rem; color: #4b5563; max-width: 60rem; line-height: 1.35; }
.wview .wrow { display: flex; flex-wrap: wrap; gap: 0.5rem 0.9rem; align-items: end; font-size: 0.85rem; margin: 0.3rem 0; }
.wview .wrow label { display: flex; flex-direction: column; gap: 0.15rem; }
.wview .wrow label.check { flex-direction: row; align-items: center; gap: 0.3rem; }
.wview .wrow input[type=text] { width: 9rem; }
.wview .wrow input[inputmode] { width: 6.5rem; }
.wview .wstatus { margin: 0.3rem 0; font-size: 0.85rem; color: #374151; min-height: 1.2em; }
.wview .werror { margin: 0.2rem 0; color: #b91c1c; font-size: 0.9rem; min-height: 1.2em; }
.wview .wout.stale { opacity: 0.4; filter: grayscale(1); }
.wview .wcharts { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 0.8rem; margin-top: 0.5rem; }
.wview .wchart { min-height: 320px; }
.wview .wsentences { font-size: 0.85rem; line-height: 1.4; margin: 0.4rem 0; padding-left: 1.2rem; }
.wview .wmessage { font-size: 0.95rem; margin: 0.4rem 0; line-height: 1.35; }
.wview .wnote { font-size: 0.8rem; color: #6b7280; margin: 0.15rem 0; }
.wview td.yes { color: #15803d; font-weight: 600; }
.wview td.no { color: #b91c1c; }
.wview tr.cheapest td { background: #ecfdf5; }
.wview .wtable td { white-space: nowrap; }
.wview .wscroll { overflow-x: auto; border-bottom: 1px solid #e5e7eb; }
` }));

  // ---- a view: inputs (each an API field), the URL, the request, the answer ----
  // spec: {name, id, prefix, route, title, intro, inputs: [{name, label, type, value, step, min,
  //   max, placeholder, help}], display: [{id, key, label, options, value}] (display-only
  //   selects: no name, URL key prefix.key), draw(data, view)}
  function makeView(spec) {
    const section = document.getElementById(spec.id);
    if (!section) return;
    section.classList.add("wview");
    section.dataset.state = "idle";
    const controls = h("div", { class: "wrow" });
    const inputs = {};
    for (const f of spec.inputs) {
      const saved = urlGet(spec.prefix + f.name);
      let inp;
      if (f.type === "checkbox") {
        inp = h("input", { type: "checkbox", name: f.name, title: f.help });
        inp.checked = saved === null ? !!f.value : saved === "1";
        controls.append(h("label", { class: "check" }, inp, f.label));
      } else {
        // a number is typed in a text input (inputmode brings the number keyboard): a bad
        // value, typed or from a link, stays as it is and is named, never emptied by the browser
        const numeric = f.type === "number";
        inp = h("input", { type: "text", inputmode: numeric ? (f.step === "1" ? "numeric" : "decimal") : null, name: f.name, step: f.step, min: f.min, max: f.max,
          placeholder: f.placeholder, title: f.help, data: numeric ? (f.allowed ? { numeric: "1", allowed: f.allowed } : { numeric: "1" }) : null });
        inp.value = saved === null ? (f.value ?? "") : saved;
        controls.append(h("label", {}, h("span", { html: f.label }), inp));
      }
      inputs[f.name] = inp;
    }
    const displays = {};
    for (const d of spec.display || []) {
      const sel = h("select", { id: d.id, "aria-label": d.label });
      for (const [v, t] of d.options) sel.append(h("option", { value: v, text: t }));
      // a link's value it does not list is kept (and named by badInput), not read as the default
      const saved = urlGet(spec.prefix + d.key);
      if (saved === null) sel.value = d.value; else LR.setControl(sel, saved);
      displays[d.key] = sel;
      controls.append(h("label", {}, h("span", { text: d.label }), sel));
    }
    const status = h("p", { class: "wstatus", "aria-live": "polite" });
    const error = h("p", { class: "werror", role: "alert" });
    const out = h("div", { class: "wout" });
    section.append(h("h2", { text: spec.title }), h("p", { class: "intro", html: spec.intro }), controls, status, error, out);

    const view = { section, inputs, displays, out, last: null };
    const numeric = () => Object.entries(inputs).filter(([, inp]) => inp.dataset.numeric);
    // the body for the API: the deployment's fields, then this view's inputs (empty: left out,
    // the server's default as the placeholder says); call it once badInput() is null
    function body(dep) {
      const b = {};
      for (const k of DEPLOYMENT_KEYS) if (dep[k] !== undefined) b[k] = dep[k];
      for (const [k, inp] of Object.entries(inputs)) {
        if (inp.type === "checkbox") { b[k] = inp.checked; continue; }
        const v = inp.dataset.numeric ? LR.numberIn(inp, k) : inp.value.trim();
        if (v !== undefined && v !== "") b[k] = v;
      }
      return b;
    }
    // the first input of this view that is not a number, or a choice from a link that is not
    // on its list ({field, line, el}, or null)
    function badInput() {
      for (const [key, sel] of Object.entries(displays)) {
        const o = sel.selectedOptions[0];
        if (o && o.dataset.unknown) {
          const known = [...sel.options].filter((x) => !x.dataset.unknown).map((x) => x.value).join(", ");
          return { field: key, line: `${key} must be one of ${known}, got '${o.value}'`, el: sel };
        }
      }
      return LR.badNumber(numeric());
    }
    function writeUrl() {
      const pairs = {};
      for (const [k, inp] of Object.entries(inputs)) pairs[spec.prefix + k] = inp.type === "checkbox" ? (inp.checked ? "1" : "0") : inp.value.trim();
      for (const [k, sel] of Object.entries(displays)) pairs[spec.prefix + k] = sel.value;
      urlSet(pairs);
    }
    let token = null, timer = null, release = null;
    let noDeployment = null; // why the controls above give no deployment now (null: they give one)
    const visible = () => !section.hidden;
    const done = () => { if (release) { release(); release = null; } };
    // no answer to show: the line says why; the last answer, for another question, goes
    // (`clear`: the view's own input is bad) or stays greyed (the deployment above is bad,
    // and comes back when it is good again)
    function noAnswer(line, clear) {
      token = null;
      error.textContent = line;
      status.textContent = "";
      if (clear) {
        out.innerHTML = "";
        out.append(h("p", { class: "wnote", text: "No result for these inputs." }));
        view.last = null;
      } else out.classList.add("stale");
      section.dataset.state = "error";
      done();
    }
    async function run() {
      timer = null;
      for (const inp of section.querySelectorAll(".bad_field")) inp.classList.remove("bad_field");
      if (noDeployment !== null) { noAnswer("the deployment above: " + noDeployment, false); return; }
      const dep = LR.deployment && LR.deployment();
      if (!dep) { section.dataset.state = "idle"; done(); return; } // the controls above have not answered yet
      const bad = badInput();
      if (bad) { bad.el.classList.add("bad_field"); noAnswer(bad.line, true); return; } // nothing asked with another number
      const b = body(dep);
      const mine = {};
      token = mine;
      section.dataset.state = "busy";
      status.textContent = spec.busy;
      let res;
      try { res = await api(spec.route, b); } catch (e) { res = { ok: false, status: 0, data: { detail: String(e) } }; }
      if (token !== mine) return;
      for (const inp of section.querySelectorAll(".bad_field")) inp.classList.remove("bad_field");
      section.dataset.request = JSON.stringify(b);
      if (!res.ok) {
        error.textContent = errorLine(res.data, res.status);
        const f = res.data && res.data.field;
        if (f && inputs[f]) inputs[f].classList.add("bad_field");
        out.innerHTML = "";
        out.append(h("p", { class: "wnote", text: "No result for these inputs." }));
        view.last = null;
        status.textContent = "";
        section.dataset.state = "error";
      } else {
        error.textContent = "";
        view.last = res.data;
        status.textContent = "";
        try { await spec.draw(res.data, view); } catch (e) { error.textContent = "drawing failed: " + e; }
        section.dataset.state = "done";
      }
      done();
    }
    // run soon (inputs settle first); the page stays busy until the answer is drawn
    function later(delay) {
      if (!visible()) { section.dataset.state = "idle"; return; }
      section.dataset.state = "busy";
      if (!release) release = hold();
      clearTimeout(timer);
      timer = setTimeout(run, delay);
    }
    view.redraw = () => { if (view.last) spec.draw(view.last, view); };
    for (const inp of Object.values(inputs)) {
      const ev = inp.type === "checkbox" ? "change" : "input";
      inp.addEventListener(ev, () => { writeUrl(); later(300); });
    }
    // a display choice redraws the answer shown (or asks, when a bad choice left none)
    for (const sel of Object.values(displays)) sel.addEventListener("change", () => { writeUrl(); if (view.last) view.redraw(); else later(0); });
    let seen = false;
    LR.onDeployment(() => { seen = true; noDeployment = null; out.classList.add("stale"); later(50); });
    LR.onView(spec.name, () => { writeUrl(); if (seen || noDeployment !== null || (LR.deployment && LR.deployment())) later(0); });
    // the controls above give no deployment: said here too, the last answer greyed (never
    // shown as if it answered them)
    if (LR.onNoDeployment) LR.onNoDeployment((line) => { noDeployment = String(line || "no deployment"); out.classList.add("stale"); later(0); });
    const origDraw = spec.draw;
    spec.draw = async (data, v) => { out.classList.remove("stale"); await origDraw(data, v); };
    return view;
  }

  // ---- What matters most ----
  const FIGS = ["flops", "memory_bandwidth", "memory_capacity", "scale_up_bandwidth", "scale_out_bandwidth", "price"];
  const METRICS = [["tokens_per_s_per_user", "tokens/s per user"], ["tokens_per_s", "throughput"], ["usd_per_million_tokens", "$ per million tokens"]];
  const BOUND_COLOR = { compute: "#2563eb", "memory bandwidth": "#16a34a", "memory capacity": "#ea580c", communication: "#9333ea" };

  function drawSensitivity(d, view) {
    const out = view.out;
    out.innerHTML = "";
    const step = stepPct(d.step);
    const chosen = view.displays.policy.value;
    const pol = d.policies.find((p) => p.policy === chosen) || d.policies[0];
    // the base at every policy
    out.append(h("p", { class: "wnote", text: `${d.deployment.model} on ${d.deployment.chips} × ${d.deployment.hardware} (${d.split}), context ${d.context_len.toLocaleString("en-US")}, ${d.engine} engine; each chip figure +${step}% on a copy of the chip, the engine run again.` }));
    out.append(table("sens_base", ["batch policy", "batch", "ms/token", "tokens/s per user", "throughput (tokens/s)", "$ per million tokens", "ideal step"],
      d.policies.map((p) => ({
        data: { policy: p.policy },
        cells: p.base === null ? [p.description, { text: p.note }, "", "", "", "", ""] : [
          p.description + (p.base.fits ? "" : " (does not fit)"),
          { text: p.base.batch.toLocaleString("en-US"), data: { key: "batch", value: p.base.batch } },
          { text: msTok(p.base.tpot_s), data: { key: "tpot_s", value: p.base.tpot_s } },
          { text: sig(p.base.tokens_per_s_per_user), data: { key: "tokens_per_s_per_user", value: p.base.tokens_per_s_per_user } },
          { text: sig(p.base.tokens_per_s), data: { key: "tokens_per_s", value: p.base.tokens_per_s } },
          { text: usd(p.base.usd_per_million_tokens), data: { key: "usd_per_million_tokens", value: p.base.usd_per_million_tokens ?? "" } },
          `${p.base.bound}-bound`,
        ],
      }))));
    if (pol.base === null) {
      out.append(h("p", { class: "wmessage", text: `At ${pol.description}: ${pol.note}.` }));
    } else {
      const headers = ["+" + step + "% of", "batch"];
      for (const [, label] of METRICS) headers.push(label, "elasticity");
      out.append(h("p", { class: "wmessage", text: `At ${pol.description} (batch ${pol.base.batch.toLocaleString("en-US")}):` }));
      out.append(table("sens_table", headers, pol.effects.map((e) => {
        const cells = [e.label, e.point ? e.point.batch.toLocaleString("en-US") : "none"];
        for (const [m] of METRICS) {
          cells.push({ text: pct(e.change[m]), data: { figure: e.figure, metric: m, kind: "change", value: e.change[m] ?? "" } });
          cells.push({ text: elas(e.elasticity[m]), data: { figure: e.figure, metric: m, kind: "elasticity", value: e.elasticity[m] ?? "" } });
        }
        return { data: { figure: e.figure }, cells };
      })));
    }
    const said = d.sentences.filter((s) => s.startsWith(`At batch ${pol.base ? pol.base.batch.toLocaleString("en-US") : ""} (${pol.description}`));
    const list = h("ul", { class: "wsentences", id: "sens_sentences" });
    for (const s of said.length ? said : d.sentences) list.append(h("li", { text: s }));
    out.append(list);
    const charts = h("div", { class: "wcharts" });
    const bars = h("div", { id: "sens_chart", class: "wchart" });
    charts.append(h("figure", {}, h("figcaption", { text: `What +${step}% of each chip figure buys, at ${pol.description} (% change)` }), bars));
    let catChart = null;
    if (d.catalog) {
      catChart = h("div", { id: "sens_catalog_chart", class: "wchart" });
      charts.append(h("figure", {}, h("figcaption", { text: "The cheapest $ per million tokens each chip reaches (log axis, a dot per chip), coloured by what bounds it" }), catChart));
    }
    out.append(charts);
    if (d.catalog) drawCatalog(d.catalog, out, d.step);
    const jobs = [];
    if (pol.base !== null) {
      const labels = pol.effects.map((e) => e.label);
      const colors = ["#0f766e", "#2563eb", "#c2410c"];
      const traces = METRICS.map(([m, label], i) => ({
        type: "bar", name: label, x: labels, y: pol.effects.map((e) => (none(e.change[m]) ? null : 100 * e.change[m])),
        marker: { color: colors[i] }, hovertemplate: `%{y:+.1f}%<extra>${esc(label)}</extra>`,
      }));
      jobs.push(barPlot(bars, traces, { ytitle: "change (%)", barmode: "group" }));
    } else jobs.push(barPlot(bars, [], { ytitle: "", message: pol.note }));
    if (catChart) {
      const served = d.catalog.rows.filter((r) => r.usd_per_million_tokens !== null);
      const groups = {};
      for (const r of served) (groups[r.bound || "none"] = groups[r.bound || "none"] || []).push(r);
      const traces = Object.entries(groups).map(([b, rows]) => ({
        // dots, not bars: on a log axis a bar's length says nothing (it depends on where the
        // axis starts); a dot's height is the value
        type: "scatter", mode: "markers", name: `bound: ${b}`, x: rows.map((r) => r.hardware), y: rows.map((r) => r.usd_per_million_tokens),
        marker: { color: BOUND_COLOR[b] || "#9ca3af", size: 9 }, hovertemplate: `%{x}: $%{y:.3~g} per million tokens<extra>${esc(b)}</extra>`,
      }));
      jobs.push(barPlot(catChart, traces, {
        ytitle: "$ per million tokens (log)", barmode: "overlay", ylog: true,
        xaxis: { categoryorder: "array", categoryarray: served.map((r) => r.hardware), tickangle: -45 },
      }));
    }
    return Promise.all(jobs);
  }

  function drawCatalog(c, out, stepShare) {
    const within = c.tpot_target_s ? ` within ${sig(c.tpot_target_s * 1e3)} ms per output token` : "";
    out.append(h("p", { class: "wmessage", html: `Across the catalog: the cheapest way each chip serves ${esc(c.model)} (up to ${c.max_chips} chips${within}, context ${c.context_len.toLocaleString("en-US")}), cheapest first; <i>bound</i> is the figure whose rise cuts its $ per token most.` }));
    const served = c.rows.filter((r) => r.usd_per_million_tokens !== null);
    const step = stepPct(stepShare);
    out.append(h("div", { class: "wscroll" }, table("sens_catalog", ["hardware", "$ per chip-hour", "chips", "tp · pp · ep", "batch", "ms/token", "tokens/s per user", "$ per million tokens", "bound", `$ per token at +${step}% of it`],
      served.map((r) => ({
        data: { hardware: r.hardware },
        cells: [r.hardware, usd(r.price_usd_per_hour), String(r.chips), `${r.tp} · ${r.pp} · ${r.ep}`, r.batch.toLocaleString("en-US"),
          msTok(r.tpot_s), sig(r.tokens_per_s_per_user),
          { text: usd(r.usd_per_million_tokens), data: { key: "usd_per_million_tokens", value: r.usd_per_million_tokens } },
          { text: r.bound || "–", title: r.reason }, { text: pct(r.bound_cost_change), data: { key: "bound_cost_change", value: r.bound_cost_change ?? "" } }],
      })))));
    for (const r of c.rows.filter((x) => x.usd_per_million_tokens === null)) out.append(h("p", { class: "wnote", text: `${r.hardware}: ${r.reason}` }));
    if (c.cheapest) out.append(h("p", { class: "wmessage", id: "sens_cheapest", text: `Cheapest: ${c.cheapest}, ${served[0].reason}.` }));
  }

  makeView({
    name: "sensitivity", id: "view_sensitivity", prefix: "sens.", route: "/api/sensitivity",
    title: "What matters most",
    intro: "Raise one chip figure at a time (dense FLOP/s, memory bandwidth, memory capacity, scale-up bandwidth, scale-out bandwidth, price) and run the engine again on the deployment above: how much each buys in tokens/s per user, throughput and $ per million tokens. Memory capacity changes no step time, only the batch that fits, so the answer is given at three batch policies: the batch above, the largest that fits, and the largest within a target time per output token.",
    busy: "Running the engine on each changed chip…",
    inputs: [
      { name: "tpot_ms", label: "target <i>(ms per output token)</i>", type: "number", step: "any", min: "0", placeholder: "none", allowed: "a number of ms above 0 (empty: no target)", help: "adds the policy 'the largest batch within the target' and bounds the catalog's search (default: none)" },
      { name: "step_pct", label: "change of each figure <i>(%)</i>", type: "number", step: "any", min: "0.1", max: "100", value: "10", help: "how much each chip figure is raised, from 0.1% to 100% (default 10%)" },
      { name: "across_catalog", label: "rank every chip of the catalog", type: "checkbox", value: true, help: "the cheapest $ per token each catalog chip reaches for this model, and what bounds it" },
      { name: "max_chips", label: "most chips per catalog chip", type: "number", step: "1", min: "1", max: "128", value: "8", help: "the most chips each catalog chip may use, up to 128 (default 8)" },
    ],
    display: [{ id: "sens_policy", key: "policy", label: "show the policy", value: "given", options: [["given", "the batch given"], ["largest", "the largest batch that fits"], ["target", "the largest within the target"]] }],
    draw: drawSensitivity,
  });

  // ---- Fast modes ----
  const OPTION_COLOR = { batch: "#c2410c", chips: "#2563eb", speculative: "#0f766e" };
  const OPTION_LABEL = { batch: "a smaller batch", chips: "more chips", speculative: "speculative decoding" };

  function drawFastMode(d, view) {
    const out = view.out;
    out.innerHTML = "";
    out.append(h("p", { class: "wmessage", id: "fast_message", text: d.message }));
    const rows = [{ label: "base (no speculation)", s: d.base, reaches: null, option: "base" }];
    for (const o of d.options) rows.push({ label: o.label, s: o.setting, reaches: o.reaches, option: o.option, note: o.note });
    out.append(table("fast_table", ["option", "setting", "ms/token", "tokens/s per user", "speed-up", "$ per million tokens", "price", `reaches ×${sig(d.speedup)}`],
      rows.map((r) => {
        const s = r.s;
        const cells = s === null
          ? [r.label, { text: r.note || "none" }, "–", "–", "–", "–", "–", { text: "no", cls: "no" }]
          : [r.label, s.option === "speculative" ? `${s.split}; batch ${s.batch.toLocaleString("en-US")}, γ ${s.gamma}, α ${s.acceptance}` : `${s.split}; batch ${s.batch.toLocaleString("en-US")}, ${s.chips} chip${s.chips > 1 ? "s" : ""}`,
            { text: msTok(s.tpot_s), data: { key: "tpot_s", value: s.tpot_s } },
            { text: sig(s.tokens_per_s_per_user), data: { key: "tokens_per_s_per_user", value: s.tokens_per_s_per_user } },
            { text: times(s.speedup), data: { key: "speedup", value: s.speedup } },
            { text: usd(s.usd_per_million_tokens), data: { key: "usd_per_million_tokens", value: s.usd_per_million_tokens } },
            { text: times(s.price_multiple), data: { key: "price_multiple", value: s.price_multiple } },
            r.reaches === null ? "–" : { text: r.reaches ? "yes" : "no", cls: r.reaches ? "yes" : "no" }];
        const tr = { data: { option: r.option }, cells };
        return tr;
      })));
    const cheap = out.querySelector(`#fast_table tr[data-option="${d.cheapest}"]`);
    if (cheap) cheap.classList.add("cheapest");
    for (const o of d.options) if (o.note) out.append(h("p", { class: "wnote", text: `${o.label}: ${o.note}` }));
    for (const [k, why] of Object.entries(d.not_tried || {})) out.append(h("p", { class: "wnote", "data-not-tried": k, text: `${OPTION_LABEL[k] || k}: not tried: ${why}` }));
    out.append(h("p", { class: "wnote", text: d.latency_floor.replace(/^the/, "The") + "." }));
    const chart = h("div", { id: "fast_chart", class: "wchart" });
    out.append(h("div", { class: "wcharts" }, h("figure", {}, h("figcaption", { text: "Price multiple against speed-up: each option's cheapest settings (every batch; for more chips, every split), the answers marked" }), chart)));
    const traces = [];
    for (const o of d.options) {
      const c = o.curve || {};
      if (!c.speedup || !c.speedup.length) continue;
      traces.push({
        type: "scatter", mode: "lines", name: o.label, x: c.speedup, y: c.price_multiple, line: { color: OPTION_COLOR[o.option], width: 2 },
        customdata: c.batch.map((b, i) => [b, c.chips[i]]),
        hovertemplate: `×%{x:.3~g} faster, ×%{y:.3~g} the price<br>batch %{customdata[0]:,}, %{customdata[1]} chips<extra>${esc(o.label)}</extra>`,
      });
      if (o.setting) {
        traces.push({ type: "scatter", mode: "markers", name: `${o.label}: ${o.reaches ? "cheapest reaching" : "fastest"}`, showlegend: false,
          x: [o.setting.speedup], y: [o.setting.price_multiple], marker: { color: OPTION_COLOR[o.option], size: 10, symbol: o.reaches ? "circle" : "x" },
          hovertemplate: `×%{x:.3~g} faster, ×%{y:.3~g} the price<extra>${esc(o.label)}</extra>` });
      }
    }
    traces.push({ type: "scatter", mode: "markers", name: "base", x: [1], y: [1], marker: { color: "#111827", size: 9, symbol: "diamond" }, hovertemplate: "the base<extra></extra>" });
    return plot(chart, traces, {
      x: { title: "speed-up (tokens/s per user ÷ the base's)", log: true }, y: { title: "price multiple ($ per token ÷ the base's)", log: true },
      vlines: [{ x: d.speedup, label: `×${sig(d.speedup)}` }], hovermode: "closest", height: 400,
    });
  }

  makeView({
    name: "fast-mode", id: "view_fast-mode", prefix: "fast.", route: "/api/fast-mode",
    title: "Fast modes",
    intro: "The lecture's opening question: fast modes sell tokens about 2.5× faster for 6× the price; why? From the deployment above at its batch, decoding without speculation, the cheapest way to raise tokens/s per user by the factor, among a smaller batch, more chips (every split up to the most chips) and speculative decoding, and the price multiple it implies ($ per million output tokens ÷ the base's).",
    busy: "Searching batches, chip counts and splits…",
    inputs: [
      { name: "speedup", label: "speed-up <i>(× tokens/s per user)</i>", type: "number", step: "0.1", min: "1", max: "1000", value: "2.5", help: "the factor on tokens/s per user (default 2.5)" },
      { name: "gamma", label: "drafted tokens γ", type: "number", step: "1", min: "1", max: "16", value: "1", help: "speculation: tokens drafted per verification (default 1, DeepSeek-V3's MTP)" },
      { name: "acceptance", label: "acceptance α <i>(0–1)</i>", type: "number", step: "0.01", min: "0", max: "1", value: "0.85", help: "speculation: the probability each drafted token is accepted (default 0.85, DeepSeek-V3's MTP figure)" },
      { name: "draft", label: "draft <i>(auto, mtp, none or a model id)</i>", type: "text", placeholder: "auto", help: "auto (empty): the model's own multi-token-prediction layer when its config has one (DeepSeek-V3), else speculation is not tried; mtp: as if it had one; none: a free draft (the most speculation can give); or a catalog model id" },
      { name: "max_chips", label: "most chips <i>(chips)</i>", type: "number", step: "1", min: "1", max: "1024", placeholder: "auto", help: "the most chips 'more chips' tries (default: twice the chips, at least the scale-up domain; at most 1,024)" },
    ],
    draw: drawFastMode,
  });
})();
