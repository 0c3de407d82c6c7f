// What every view of the page shares: the API, the URL, the view switch, the deployment of the
// controls at the top, number formats and charts (plotly.js, served by the package). No model
// arithmetic here: the page only draws what the API returns.
"use strict";
const LR = (() => {
  const listeners = [];
  const esc = (t) => String(t).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

  // ---- the API ----
  // GET (no body) or POST a JSON route; resolves {ok, status, data}, never throws on a 4xx
  async function api(path, body) {
    const init = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    const res = await fetch(path, init);
    const data = await res.json().catch(() => null);
    return { ok: res.ok, status: res.status, data };
  }
  // the server's 4xx body as one line naming the field
  // the schema's wording ("Input should be greater than or equal to 1") as the page's own
  // ("must be at least 1"), its limits with thousands separators; other messages as they are
  const PLAIN = [
    [/^Input should be greater than or equal to (\S+)$/, (n) => `must be at least ${n}`],
    [/^Input should be less than or equal to (\S+)$/, (n) => `must be at most ${n}`],
    [/^Input should be greater than (\S+)$/, (n) => `must be above ${n}`],
    [/^Input should be less than (\S+)$/, (n) => `must be below ${n}`],
    [/^Input should be a valid integer.*$/, () => "must be a whole number"],
    [/^Input should be a valid number.*$/, () => "must be a number"],
    [/^Field required$/, () => "is required"],
    [/^Extra inputs are not permitted$/, () => "is not a field this request takes"],
  ];
  function plainWords(msg) {
    for (const [re, say] of PLAIN) {
      const m = msg.match(re);
      if (m) return say(m[1] !== undefined && /^-?\d+(\.\d+)?$/.test(m[1]) ? Number(m[1]).toLocaleString("en-US") : m[1]);
    }
    return msg;
  }
  function errorLine(data, status) {
    const d = data && data.detail;
    if (typeof d === "string") return data.field && !d.includes(data.field) ? `${data.field}: ${d}` : d;
    if (Array.isArray(d) && d.length) {
      const x = d[0], loc = (x.loc || []).filter((p) => p !== "body").join(".");
      return `${loc || data.field || "request"}: ${plainWords(x.msg || "")}`;
    }
    return `the server answered ${status}`;
  }

  // ---- busy: body[data-busy] is set while any request or pending input is unanswered (the
  // browser tests wait on it). hold() returns its release; busy(promise) holds until it settles.
  let holds = document.body.dataset.busy ? 1 : 0; // the page starts busy until app.js's first draw
  function hold() {
    holds++;
    document.body.dataset.busy = "1";
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--holds <= 0) { holds = 0; delete document.body.dataset.busy; }
    };
  }
  const busy = (p) => { const release = hold(); return Promise.resolve(p).finally(release); };
  const initialRelease = () => { if (holds > 0) { holds--; if (holds === 0) delete document.body.dataset.busy; } };

  // ---- the URL: each view keeps its own keys; set() changes only the keys it is given ----
  const urlGet = (key) => new URLSearchParams(location.search).get(key);
  function urlSet(pairs) {
    const q = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(pairs)) {
      if (v === null || v === undefined || v === "") q.delete(k); else q.set(k, String(v));
    }
    const s = q.toString();
    if (s !== location.search.replace(/^\?/, "")) history.replaceState(null, "", "?" + s);
  }

  // ---- views: ?view=NAME shows <section class="view" data-view="NAME"> ----
  const VIEWS = ["deployment", "compare", "economics", "planning", "sensitivity", "fast-mode"];
  const view = () => (VIEWS.includes(urlGet("view")) ? urlGet("view") : "deployment");
  const viewHandlers = {};
  // fn() runs each time the view is shown (several may listen to one view)
  const onView = (name, fn) => { (viewHandlers[name] = viewHandlers[name] || []).push(fn); };
  let shown = null;
  const current = () => shown || view();
  function showView(name) {
    shown = name;
    const note = document.getElementById("view_note");
    if (note) note.textContent = ""; // a note on a view asked for in a link goes once one is chosen
    urlSet({ view: name === "deployment" ? null : name });
    for (const s of document.querySelectorAll("section.view")) s.hidden = s.dataset.view !== name;
    for (const a of document.querySelectorAll("nav#views a")) a.setAttribute("aria-current", a.dataset.view === name ? "page" : "false");
    document.body.dataset.view = name;
    for (const fn of viewHandlers[name] || []) fn();
  }

  // ---- the deployment of the controls at the top (app.js sets `deployment`) ----
  // deployment(): the request body of /api/report for the controls as they stand, or null when
  //   they do not make one (an uploaded config that must be chosen again)
  // onDeployment(fn): fn(body, report) after each change of those controls that the server
  //   accepted (report: the /api/report answer, also kept as LR.lastReport)
  // onNoDeployment(fn): fn(line) when a change gives no deployment (the error line shown)
  // on("controls", fn): fn() once the controls are filled from the catalogs (LR.catalog:
  //   models, hardware, hardwareById, engines, options {dtypes, overlap})
  const onDeployment = (fn) => { listeners.push(fn); };
  const fireDeployment = (body, report) => { for (const fn of listeners) fn(body, report); };
  const events = {};
  const on = (name, fn) => { (events[name] = events[name] || []).push(fn); };
  const emit = (name, ...args) => { for (const fn of events[name] || []) fn(...args); };
  const onNoDeployment = (fn) => on("no-deployment", fn);
  const fireNoDeployment = (line) => emit("no-deployment", line);

  // ---- counts as people write them: the command line's rules (units.parse_count) ----
  // count("32k") is 32,768: k, M and G are binary (1,024, 1,048,576, 2^30), any case; commas
  // and underscores separate thousands; a decimal or exponent is fine when the count comes out
  // whole ("1.5k" is 1,536, "1e3" 1,000). Anything else throws an Error whose message is one
  // line naming `name`, never a different number. Exact: decimal digits in BigInt.
  const COUNT_HELP = "k = 1,024, M = 1,048,576: 16k = 16,384";
  const SUFFIX = { k: 10n, m: 20n, g: 30n };
  function count(text, name) {
    const raw = String(text);
    const bad = new Error(`${name || "value"} must be a positive integer (or a size like 16k or 1M; ${COUNT_HELP}), got '${raw.trim()}'`);
    let s = raw.trim().replace(/[_,]/g, "");
    const shift = SUFFIX[s.slice(-1).toLowerCase()];
    if (shift !== undefined) s = s.slice(0, -1);
    const m = /^\+?(\d*)(?:\.(\d*))?(?:e([+-]?\d{1,4}))?$/i.exec(s);
    if (!m || (m[1] + (m[2] || "")) === "") throw bad;
    const frac = m[2] || "";
    let num = BigInt(m[1] + frac || "0") << (shift || 0n);
    let exp = BigInt(m[3] || "0") - BigInt(frac.length); // value = num × 10^exp
    if (exp >= 0n) num *= 10n ** exp;
    else {
      const div = 10n ** -exp;
      if (num % div !== 0n) throw bad; // not whole
      num /= div;
    }
    if (num < 1n) throw bad;
    return Number(num);
  }
  // ---- numbers typed in a field (the page's numeric inputs are text, inputmode numeric or
  // decimal, so that a bad value stays on screen as typed and is named, never emptied by the
  // browser and replaced by a default) ----
  // decimal(text): the number a decimal text is ("1.5", "-2", "1e3"), NaN for anything else
  // ("0x10", "Infinity", "1,5": what Number() would read as another number or not at all)
  const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
  const decimal = (text) => (DECIMAL.test(String(text).trim()) ? Number(String(text).trim()) : NaN);
  // what a numeric field allows, in words: its data-allowed, else from its min and max (a hint;
  // the server checks the range and names the field)
  function allowed(el) {
    if (el.dataset.allowed) return el.dataset.allowed;
    const lo = el.getAttribute("min"), hi = el.getAttribute("max");
    if (lo !== null && hi !== null) return `a number from ${lo} to ${hi}`;
    return lo !== null ? `a number, at least ${lo}` : "a number";
  }
  // a field that counts (step 1, at least 1: chips, tokens) reads sizes as count() does
  const counts = (el) => el.getAttribute("step") === "1" && Number(el.getAttribute("min")) >= 1;
  // numberIn(el, name): the number typed in `el`; undefined when empty (the server's default,
  // as the placeholder says). Anything else throws an Error whose message is one line naming
  // `name` and what it allows, never a different number.
  function numberIn(el, name) {
    const raw = el.value.trim();
    if (raw === "") return undefined;
    if (counts(el)) return count(raw, name);
    const n = decimal(raw);
    if (!Number.isFinite(n)) throw new Error(`${name} must be ${allowed(el)}, got '${raw}'`);
    return n;
  }
  // the first of `names` (input name -> element) that does not read as a number:
  // {field, line, el}, or null
  function badNumber(entries) {
    for (const [name, el] of entries) {
      try { numberIn(el, name); } catch (e) { return { field: name, line: e.message, el }; }
    }
    return null;
  }
  // setControl(el, value): a control set from a link. A select keeps a value it does not list
  // (an option is added for it, "(not in the list)") so that the request carries it and the
  // server names the field, rather than the browser quietly showing its first option. A
  // multiple select takes a comma-separated list.
  function setControl(el, value) {
    if (el.tagName !== "SELECT") { el.value = value; return; }
    const want = el.multiple ? String(value).split(",").filter((v) => v !== "") : [String(value)];
    for (const v of want) {
      if ([...el.options].some((o) => o.value === v)) continue;
      const o = document.createElement("option");
      o.value = v; o.textContent = `${v} (not in the list)`; o.dataset.unknown = "1";
      el.appendChild(o);
    }
    if (el.multiple) for (const o of el.options) o.selected = want.includes(o.value);
    else el.value = want[0];
  }

  // a line of the library's meant for the command line, in the page's words: its flags
  // become the controls that set the same thing (display only)
  const pageText = (t) => String(t)
    .replace(/--kv-dtype (\S+?)(?=[,;)]|\s|$)/g, "KV cache $1")
    .replace(/--weight-dtype (\S+?)(?=[,;)]|\s|$)/g, "Weights $1");

  // ---- the lecture's markers, defined (the cards' tooltips and the charts' marker hovers) ----
  const DEFS = {
    bstar: "B*, the balance batch: the batch (all replicas and groups) at which the busiest chip's matmul time equals its weight-fetch time with one micro-batch (attention and KV left out, as in the lecture); memory-bound below it (batching more is almost free); KV traffic, and a second micro-batch that hides communication, move the real balance higher",
    floor: "latency floor: all the weights a token needs, read once at full memory bandwidth; the fastest a token can come, whatever the batch",
    bctx: "balanced context: the context at which one sequence's KV-cache fetch takes as long as its matmuls; beyond it, reading the KV cache bounds the step",
    nofit: "beyond here the weights, KV cache and activations need more memory than a chip has",
  };

  // ---- formats (display only) ----
  const fmtNum = (x) => (x === null || x === undefined ? "–" : x.toLocaleString("en-US", { maximumFractionDigits: 0 }));
  // 3 significant figures, never in exponent form (toPrecision writes 1234 as "1.23e+3")
  function sig(x) {
    const r = +x.toPrecision(3);
    return Math.abs(r) >= 1000 ? fmtNum(r) : String(r);
  }
  // a figure as the command line writes it (cli/_format.py fmt_num): `digits` significant
  // digits, never in exponent form, at most four decimals (smaller: "<0.0001"), thousands
  // commas, no trailing zeros; "n/a" when not finite
  function cliNum(v, digits = 3) {
    if (!Number.isFinite(v)) return "n/a";
    if (v === 0) return "0";
    let decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(v))));
    if (decimals > 4) {
      if (Math.abs(v) < 0.5e-4) return v > 0 ? "<0.0001" : "-<0.0001";
      decimals = 4;
    }
    const text = v.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
  }
  // a duration in the unit a person reads it in, the command line's ladder (cli/_format.py
  // time_unit): ns, µs, ms, s below a minute, min below an hour, h below two days, d below a
  // year, then y; tests/web/test_formats.py holds the two to the same text
  const DAY = 86400;
  const TIME_UNITS = [[365 * DAY, 365 * DAY, "y"], [2 * DAY, DAY, "d"], [3600, 3600, "h"], [60, 60, "min"], [1, 1, "s"], [1e-3, 1e-3, "ms"], [1e-6, 1e-6, "µs"]];
  function timeUnit(s) {
    const a = Math.abs(s);
    if (!Number.isFinite(a) || a === 0) return [1, "s"];
    for (const [from, scale, name] of TIME_UNITS) if (a >= from) return [scale, name];
    return [1e-9, "ns"];
  }
  function fmtTime(s) {
    if (s === null || s === undefined) return "–";
    if (!Number.isFinite(s)) return "n/a";
    const [scale, unit] = timeUnit(s);
    return `${cliNum(s / scale)} ${unit}`;
  }
  // money as the command line writes it (cli/_format.py fmt_money): three significant digits
  // below $1,000 ($0.159, $1.1, $150), whole dollars with commas from there ($1,234), a tiny
  // amount in fixed point ($0.0000166), never an exponent; "n/a" when not finite;
  // tests/web/test_formats.py holds the two to the same text
  function fmtUsd(x) {
    if (x === null || x === undefined) return "–";
    if (!Number.isFinite(x)) return "n/a";
    const a = Math.abs(x);
    if (a !== 0 && a < 1e-4) {
      const fixed = x.toFixed(Math.min(20, 2 - Math.floor(Math.log10(a))));
      return "$" + fixed.replace(/0+$/, "").replace(/\.$/, "");
    }
    if (a < 999.5) return "$" + String(+x.toPrecision(3));
    return "$" + x.toLocaleString("en-US", { maximumFractionDigits: 0 });
  }
  // a large count in words, as the command line writes it: 69.5 billion, 31.5 trillion
  function fmtWords(v) {
    for (const [scale, word] of [[1e12, "trillion"], [1e9, "billion"], [1e6, "million"]]) {
      if (Math.abs(v) >= scale) return `${sig(v / scale)} ${word}`;
    }
    return sig(v);
  }
  const fmtPct = (x) => (x === null || x === undefined ? "–" : (x >= 0 ? "+" : "") + (100 * x).toFixed(1) + "%");
  // a marker's value: whole numbers up to 100,000 (as the numbers beside the charts show
  // them), then 3 significant figures with k or M
  function fmtShort(v) {
    const a = Math.abs(v);
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + "M";
    if (a >= 1e5) return +(v / 1e3).toPrecision(3) + "k";
    return a >= 10 ? fmtNum(v) : String(+v.toPrecision(3));
  }

  // ---- charts ----
  // plot(div, traces, opts): plotly traces drawn with the page's defaults. Returns a promise.
  //   opts.x / opts.y = {title (with its unit), log, range: [lo, hi] in data units}
  //   opts.vlines = [{x, label, color}]: markers such as B*; one beyond the x range is named at
  //     the edge with an arrow ("B* 295 →")
  //   opts.hlines = [{y, label, color}]: levels such as the latency floor
  //   opts.bands = [{x0, x1, label, color}]: shaded spans, each labelled (x1 null: to the end)
  //   opts.empty: the message shown when there is nothing to draw (or opts.message: always)
  //   opts.hovermode ("x unified" by default; "closest" for scatter), opts.height, opts.uirevision
  //   each of vlines, hlines and bands may carry `hover`: its definition, read on its label
  // Log axes tick at powers of ten (and 2 and 5 when fewer than three decades show), written
  // 1, 10, 100, 1k, 0.01; the legend sits below the plot; the markers' and bands' labels sit in
  // a strip above the plot (no curve crosses them), stacked when they would overlap and turned
  // inwards when they would leave it. Hover, zoom and PNG/SVG export come from plotly's mode bar.
  const PALETTE = {
    compute: "#2563eb", weights: "#ea580c", kv: "#16a34a", comm: "#9333ea", memory: "#dc2626",
    ideal: "#111827", engine: "#0f766e", dots: "#9ca3af", mark: "#7c3aed", floor: "#b45309",
    nofit: "#9ca3af", a: "#0f766e", b: "#c2410c",
  };
  // text for a plotly label: its own markup characters escaped (plotly draws a few tags, and
  // no entity but these three), long lines wrapped at words
  const plotText = (t) => String(t).replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]);
  function wrap(t, width) {
    const lines = [];
    let cur = "";
    for (const word of String(t).split(/\s+/)) {
      if (cur && cur.length + 1 + word.length > width) { lines.push(cur); cur = word; } else cur = cur ? cur + " " + word : word;
    }
    if (cur) lines.push(cur);
    return lines.map(plotText).join("<br>");
  }
  const lg = (v) => Math.log10(v);
  const finite = (v) => v !== null && v !== undefined && Number.isFinite(v);
  // the extent of what an axis shows: [lo, hi] of the finite values (positive on a log axis)
  function extent(values, log) {
    let lo = Infinity, hi = -Infinity;
    for (const v of values) if (finite(v) && (!log || v > 0)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    return lo <= hi ? [lo, hi] : null;
  }
  function axis(a, values) {
    const out = {
      title: { text: a.title || "", standoff: 6 }, automargin: true, zeroline: false,
      gridcolor: "#eef0f3", linecolor: "#9ca3af", showline: true, ticks: "outside", ticklen: 4,
      tickcolor: "#9ca3af", tickfont: { size: 11 }, exponentformat: "SI", minexponent: 3,
    };
    if (a.hoverTitle !== false) out.unifiedhovertitle = { text: `${plotText(a.short || a.title || "")} %{x:,.4~g}` };
    if (a.log) {
      // ticks at powers of ten (and 2 and 5 of each decade when fewer than three show), written
      // as plain numbers with k, M, G (logTicks); the range out until two powers of ten show
      const e = a.range ? a.range : extent(values, true);
      Object.assign(out, { type: "log", minor: { ticks: "outside", ticklen: 2, showgrid: false, tickcolor: "#c4c8cf", dtick: "D1" } });
      if (a.range) out.range = a.range.map(lg);
      else if (e) {
        // out to the nearest powers of ten until two of them show
        let lo = lg(e[0]), hi = lg(e[1]);
        const pad = 0.04 * Math.max(hi - lo, 0.5);
        lo -= pad; hi += pad;
        const decades = () => Math.floor(hi) - Math.ceil(lo) + 1;
        while (decades() < 2) {
          const below = lo - Math.floor(lo - 1e-9), above = Math.ceil(hi + 1e-9) - hi;
          if (below <= above) lo = Math.floor(lo - 1e-9); else hi = Math.ceil(hi + 1e-9);
        }
        out.range = [lo, hi];
      }
      if (out.range) Object.assign(out, logTicks(out.range[0], out.range[1]));
    } else if (a.range) {
      out.range = a.range.slice();
    } else if (a.fromZero) {
      out.rangemode = "tozero";
    }
    return out;
  }
  // a log axis's tick labels: plain numbers with k, M, G as the counts elsewhere on the page
  // (1, 20, 500, 1k, 2M, 0.05); below 0.0001 an exponent (1e-5)
  function tickText(v) {
    const a = Math.abs(v), p = (x) => String(+x.toPrecision(3));
    if (a >= 1e9) return p(v / 1e9) + "G";
    if (a >= 1e6) return p(v / 1e6) + "M";
    if (a >= 1e3) return p(v / 1e3) + "k";
    return a >= 1e-4 ? p(v) : v.toExponential(0);
  }
  // the ticks of a log axis over [lo, hi] (log10 units): every power of ten, and 2 and 5 of
  // each decade too when fewer than three decades show (as the library's figures do)
  function logTicks(lo, hi) {
    const mantissas = hi - lo < 3 ? [1, 2, 5] : [1], vals = [];
    for (let k = Math.floor(lo); k <= Math.ceil(hi); k++) {
      for (const m of mantissas) {
        const v = Number(`${m}e${k}`); // exact decimal, not m × 10^k in floating point
        if (lg(v) >= lo - 1e-9 && lg(v) <= hi + 1e-9) vals.push(v);
      }
    }
    return { tickmode: "array", tickvals: vals, ticktext: vals.map(tickText) };
  }
  // after a zoom (or its reset, or a redraw keeping the reader's zoom) the log axes' ticks
  // follow the range shown
  function retick(el) {
    if (el._lrReticking) return null; // its own relayout's event
    const update = {};
    for (const name of ["xaxis", "yaxis"]) {
      const a = el._fullLayout && el._fullLayout[name];
      if (!a || a.type !== "log" || !a.range) continue;
      const t = logTicks(a.range[0], a.range[1]);
      if (JSON.stringify(t.tickvals) === JSON.stringify(a.tickvals)) continue;
      update[name + ".tickvals"] = t.tickvals;
      update[name + ".ticktext"] = t.ticktext;
    }
    if (!Object.keys(update).length) return null;
    el._lrReticking = true;
    return Promise.resolve(Plotly.relayout(el, update)).finally(() => { el._lrReticking = false; });
  }
  // where an x sits in plotly's coordinates for an annotation: log10 on a log axis (a shape
  // takes the data value itself)
  const ax = (o, x) => (o && o.log ? lg(x) : x);

  function hasData(traces, logx, logy) {
    return traces.some((t) => (t.y || []).some((y, i) => finite(y) && (!logy || y > 0) &&
      (!t.x || (finite(t.x[i]) && (!logx || t.x[i] > 0)))));
  }
  // the points of each trace up to the axis's end and one beyond (so the line reaches the
  // edge), so that the other axis fits what is shown
  function clip(traces, hi) {
    return traces.map((t) => {
      if (!t.x) return t;
      let n = t.x.findIndex((x) => finite(x) && x > hi);
      if (n < 0) return t;
      n += 1;
      const out = { ...t, x: t.x.slice(0, n), y: t.y.slice(0, n) };
      if (Array.isArray(t.customdata)) out.customdata = t.customdata.slice(0, n);
      return out;
    });
  }

  function decorations(opts) {
    const shapes = [], annotations = [];
    const xo = opts.x || {}, r = xo.range || null;
    // a marker's or band's label sits in a strip above the plot, where no curve crosses it;
    // hovering it reads its definition
    const lab = (text, color, extra, hover) => Object.assign({ text: plotText(text), showarrow: false, font: { size: 11, color },
      bgcolor: "rgba(255,255,255,0.85)", borderpad: 1, yref: "paper", y: 1, yanchor: "bottom", yshift: 1 },
    hover ? { hovertext: wrap(hover, 60), hoverlabel: { bgcolor: "#fff", bordercolor: color, font: { size: 11, color: "#111827" } } } : {}, extra);
    for (const b of opts.bands || []) {
      const x1 = b.x1 === null || b.x1 === undefined ? (r ? r[1] : null) : b.x1;
      if (x1 === null) continue;
      const lo = r ? Math.max(b.x0, r[0]) : b.x0, hi = r ? Math.min(x1, r[1]) : x1;
      if (!(hi > lo)) continue;
      shapes.push({ type: "rect", xref: "x", yref: "paper", x0: b.x0, x1: Math.max(x1, b.x0), y0: 0, y1: 1,
        fillcolor: b.color || PALETTE.nofit, opacity: 0.2, line: { width: 0 }, layer: "below" });
      // the label at the band's top, ending at its right edge
      annotations.push(lab(b.label, "#4b5563", { xref: "x", x: ax(xo, hi), xanchor: "right", xshift: -2 }, b.hover));
    }
    for (const v of opts.vlines || []) {
      if (!finite(v.x) || (xo.log && v.x <= 0)) continue;
      const color = v.color || PALETTE.mark;
      if (r && v.x > r[1]) { annotations.push(lab(`${v.label} →`, color, { xref: "paper", x: 1, xanchor: "right" }, v.hover)); continue; }
      if (r && v.x < r[0]) { annotations.push(lab(`← ${v.label}`, color, { xref: "paper", x: 0, xanchor: "left" }, v.hover)); continue; }
      shapes.push({ type: "line", xref: "x", yref: "paper", x0: v.x, x1: v.x, y0: 0, y1: 1,
        line: { color, width: 1.5, dash: v.dash || "dot" } });
      annotations.push(lab(v.label, color, { xref: "x", x: ax(xo, v.x) }, v.hover));
    }
    const yo = opts.y || {};
    for (const h of opts.hlines || []) {
      if (!finite(h.y) || (yo.log && h.y <= 0)) continue;
      const color = h.color || PALETTE.floor;
      shapes.push({ type: "line", xref: "paper", yref: "y", x0: 0, x1: 1, y0: h.y, y1: h.y,
        line: { color, width: 1.2, dash: h.dash || "dash" } });
      annotations.push(lab(h.label, color, { xref: "paper", x: 0, xanchor: "left", xshift: 4, yref: "y", y: ax(yo, h.y), yanchor: "bottom", yshift: 0 }, h.hover));
    }
    return { shapes, annotations };
  }

  // labels that would leave the plot area turn inwards (anchored at their other side)
  function inwards(el) {
    const fl = el._fullLayout, size = fl._size, box = el.getBoundingClientRect();
    const left = box.left + size.l, right = box.left + size.l + size.w, update = {};
    const top = box.top + size.t, bottom = box.top + size.t + size.h;
    for (const n of el.querySelectorAll("g.annotation")) {
      const i = Number(n.dataset.index), ann = fl.annotations[i];
      if (!ann || ann.xref === "paper" && ann.yref === "paper") continue;
      const r = n.getBoundingClientRect();
      // a level's label above the plot goes under its line; below it, over its line
      if (ann.yref === "y" && r.top < top - 1 && ann.yanchor !== "top") update[`annotations[${i}].yanchor`] = "top";
      else if (ann.yref === "y" && r.bottom > bottom + 1 && ann.yanchor !== "bottom") update[`annotations[${i}].yanchor`] = "bottom";
      if (r.right > right + 1 && ann.xanchor !== "right") Object.assign(update, { [`annotations[${i}].xanchor`]: "right", [`annotations[${i}].xshift`]: -2 });
      else if (r.left < left - 1 && ann.xanchor !== "left") Object.assign(update, { [`annotations[${i}].xanchor`]: "left", [`annotations[${i}].xshift`]: 2 });
    }
    return update;
  }
  // labels that overlap an earlier one move a row further into the plot
  function unstack(el) {
    const fl = el._fullLayout, update = {}, placed = [];
    const overlap = (a, b) => a.left < b.right + 3 && b.left < a.right + 3 && a.top < b.bottom && b.top < a.bottom;
    for (const n of el.querySelectorAll("g.annotation")) {
      const i = Number(n.dataset.index), ann = fl.annotations[i];
      if (!ann) continue;
      const r0 = n.getBoundingClientRect(), h = r0.height + 1;
      const down = ann.yanchor === "top" ? 1 : -1; // a label hanging from the top moves down
      let r = { left: r0.left, right: r0.right, top: r0.top, bottom: r0.bottom }, shift = 0;
      while (placed.some((p) => overlap(p, r)) && shift < 8 * h) {
        shift += h;
        r = { ...r, top: r.top + down * h, bottom: r.bottom + down * h };
      }
      if (shift) update[`annotations[${i}].yshift`] = (ann.yshift || 0) - down * shift;
      placed.push(r);
    }
    return update;
  }

  // the strip above the plot grows to hold its labels (stacked rows included), and to start
  // below the mode bar where a label would sit under it (the bar, shown on hover, would hide
  // the label and take its hover)
  function roomAbove(el) {
    const fl = el._fullLayout, box = el.getBoundingClientRect(), top = box.top + fl._size.t;
    const bar = el.querySelector(".modebar"), b = bar ? bar.getBoundingClientRect() : null;
    let rows = 0, under = false;
    for (const n of el.querySelectorAll("g.annotation")) {
      const ann = fl.annotations[Number(n.dataset.index)];
      if (!(ann && ann.yref === "paper" && ann.y === 1 && ann.yanchor === "bottom")) continue;
      const r = n.getBoundingClientRect();
      rows = Math.max(rows, top - r.top);
      if (b && b.width && r.right > b.left && r.left < b.right) under = true;
    }
    const t = Math.ceil(rows + 4 + (under ? b.bottom - box.top : 0));
    return t > fl.margin.t ? { "margin.t": t } : {};
  }

  const svgButton = {
    name: "Download plot as SVG",
    icon: { width: 1000, height: 1000, path: "M100 100h800v800h-800z M250 700l150-250 120 150 80-100 150 200z", transform: "matrix(1 0 0 -1 0 1000)" },
    click: (gd) => Plotly.downloadImage(gd, { format: "svg", filename: gd.id || "chart" }),
  };

  async function plot(el, traces, opts) {
    opts = opts || {};
    const xo = opts.x || {}, yo = opts.y || {};
    let drawn = opts.message ? [] : traces.filter((t) => t.y && t.y.length);
    if (xo.range) drawn = clip(drawn, xo.range[1]);
    const empty = opts.message || (!hasData(drawn, xo.log, yo.log) ? opts.empty || "nothing to draw" : null);
    const deco = empty ? { shapes: [], annotations: [] } : decorations(opts);
    if (empty) {
      deco.annotations.push({ text: wrap(empty, Math.max(30, Math.floor((el.clientWidth || 500) / 8))), xref: "paper", yref: "paper", x: 0.5, y: 0.5, showarrow: false,
        font: { size: 13, color: "#6b7280" } });
    }
    const above = deco.annotations.some((a) => a.yref === "paper" && a.y === 1 && a.yanchor === "bottom");
    const layout = {
      height: opts.height || 380,
      margin: { l: 56, r: 16, t: above ? 24 : 10, b: 10 },
      xaxis: empty ? { visible: false } : axis(xo, drawn.flatMap((t) => t.x || [])),
      yaxis: empty ? { visible: false } : axis(yo, [...drawn.flatMap((t) => t.y || []), ...(opts.hlines || []).map((h) => h.y)]),
      shapes: deco.shapes, annotations: deco.annotations,
      showlegend: !empty,
      legend: { orientation: "h", x: 0, xanchor: "left", y: 0, yref: "container", yanchor: "bottom",
        font: { size: 11 }, itemwidth: 30, tracegroupgap: 0, bgcolor: "rgba(0,0,0,0)" },
      hovermode: opts.hovermode || "x unified",
      hoverlabel: { font: { size: 11 } },
      font: { family: "system-ui, sans-serif", size: 12, color: "#374151" },
      paper_bgcolor: "#fff", plot_bgcolor: "#fff",
      uirevision: opts.uirevision || null,
    };
    const config = {
      responsive: true, displaylogo: false,
      toImageButtonOptions: { format: "png", filename: el.id || "chart", scale: 2 },
      modeBarButtonsToAdd: [svgButton],
      modeBarButtonsToRemove: ["select2d", "lasso2d"],
    };
    await Plotly.react(el, empty ? [] : drawn, layout, config);
    // (plotly itself makes room below the plot for a legend placed in the container)
    if (!empty && el._fullLayout.annotations.length) {
      for (const step of [inwards, unstack, roomAbove]) {
        const update = step(el);
        if (Object.keys(update).length) await Plotly.relayout(el, update);
      }
    }
    if (!empty) await retick(el);
    if (!el._lrRetick) { el._lrRetick = true; el.on("plotly_relayout", () => retick(el)); }
    el.dataset.plotted = empty ? "empty" : "data";
    return el;
  }

  return {
    api, errorLine, urlGet, urlSet, VIEWS, view, current, onView, showView,
    deployment: () => null, onDeployment, fireDeployment, onNoDeployment, fireNoDeployment, on, emit,
    lastReport: null, catalog: null,
    hold, busy, initialRelease,
    esc, count, decimal, numberIn, badNumber, setControl, pageText, DEFS, fmtTime, timeUnit, cliNum, fmtNum, fmtUsd, fmtPct, fmtShort, fmtWords, sig, PALETTE, plot, logTicks,
  };
})();
