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
  function errorLine(data, status) {
    const d = data && data.detail;
    if (typeof d === "string") return data.field && !d.includes(data.field) ? `${data.field}: ${d}` : d;
    if (Array.isArray(d) && d.length) {
      const x = d[0], loc = (x.loc || []).filter((p) => p !== "body").join(".");
      return `${loc || data.field || "request"}: ${x.msg}`;
    }
    return `the server answered ${status}`;
  }

  // ---- the URL: each view keeps its own keys; set() changes only the keys it is given ----
  const urlGet = (key) => new URLSearchParams(location.search).get(key);
  function urlSet(pairs) {
    const q = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(pairs)) {
      if (v === null || v === undefined || v === "") q.delete(k); else q.set(k, String(v));
    }
    history.replaceState(null, "", "?" + q.toString());
  }

  // ---- views: ?view=NAME shows <section class="view" data-view="NAME"> ----
  const VIEWS = ["deployment", "compare", "economics", "planning", "sensitivity", "fast-mode"];
  const view = () => (VIEWS.includes(urlGet("view")) ? urlGet("view") : "deployment");
  const viewHandlers = {};
  // fn() runs each time the view is shown
  const onView = (name, fn) => { viewHandlers[name] = fn; };
  function showView(name) {
    urlSet({ view: name === "deployment" ? null : name });
    for (const s of document.querySelectorAll("section.view")) s.hidden = s.dataset.view !== name;
    for (const a of document.querySelectorAll("nav#views a")) a.setAttribute("aria-current", a.dataset.view === name ? "page" : "false");
    document.body.dataset.view = name;
    if (viewHandlers[name]) viewHandlers[name]();
  }

  // ---- the deployment of the controls at the top (app.js sets `deployment`) ----
  // deployment(): the request body of /api/report for the controls as they stand
  // onDeployment(fn): fn(body) after each change of those controls
  const onDeployment = (fn) => { listeners.push(fn); };
  const fireDeployment = (body) => { for (const fn of listeners) fn(body); };

  // ---- formats (display only) ----
  function fmtTime(s) {
    if (s === null || s === undefined) return "–";
    if (s >= 3600) return (s / 3600).toPrecision(3) + " h";
    if (s >= 60) return (s / 60).toPrecision(3) + " min";
    if (s >= 1) return s.toPrecision(3) + " s";
    if (s >= 1e-3) return (s * 1e3).toPrecision(3) + " ms";
    return (s * 1e6).toPrecision(3) + " µs";
  }
  const fmtNum = (x) => (x === null || x === undefined ? "–" : x.toLocaleString("en-US", { maximumFractionDigits: 0 }));
  const fmtUsd = (x) => (x === null || x === undefined ? "–" : "$" + (x >= 100 ? fmtNum(x) : x.toPrecision(3)));
  const fmtPct = (x) => (x === null || x === undefined ? "–" : (x >= 0 ? "+" : "") + (100 * x).toFixed(1) + "%");

  // ---- charts ----
  // plot(div, traces, opts): plotly traces; opts.x / opts.y = {title (with its unit), log},
  // opts.vlines = [{x, label, color}] (markers such as B*), opts.bands = [{x0, x1, label}] (shaded
  // spans, each labelled). Log axes tick at powers of ten. Hover, zoom and PNG/SVG export come
  // from plotly's mode bar.
  function axis(a) {
    const out = { title: { text: a.title || "" }, automargin: true, zeroline: false };
    if (a.log) Object.assign(out, { type: "log", dtick: 1, exponentformat: "power", minor: { ticks: "outside", showgrid: false } });
    if (a.range) out.range = a.range;
    return out;
  }
  function plot(el, traces, opts) {
    const shapes = [], annotations = [];
    for (const b of opts.bands || []) {
      shapes.push({ type: "rect", xref: "x", yref: "paper", x0: b.x0, x1: b.x1, y0: 0, y1: 1, fillcolor: b.color || "#9ca3af", opacity: 0.15, line: { width: 0 }, layer: "below" });
      annotations.push({ xref: "x", yref: "paper", x: opts.x && opts.x.log ? Math.log10(Math.sqrt(b.x0 * b.x1)) : (b.x0 + b.x1) / 2, y: 1, yanchor: "bottom", text: esc(b.label), showarrow: false, font: { size: 11, color: "#4b5563" } });
    }
    for (const v of opts.vlines || []) {
      shapes.push({ type: "line", xref: "x", yref: "paper", x0: v.x, x1: v.x, y0: 0, y1: 1, line: { color: v.color || "#7c3aed", width: 1.5, dash: "dot" } });
      annotations.push({ xref: "x", yref: "paper", x: opts.x && opts.x.log ? Math.log10(v.x) : v.x, y: 1, yanchor: "bottom", text: esc(v.label), showarrow: false, font: { size: 11, color: v.color || "#7c3aed" } });
    }
    const layout = {
      margin: { l: 60, r: 20, t: 30, b: 50 }, height: opts.height || 320,
      xaxis: axis(opts.x || {}), yaxis: axis(opts.y || {}), shapes, annotations,
      legend: { orientation: "h", x: 0, y: -0.25, yanchor: "top" }, hovermode: "closest",
      font: { family: "system-ui, sans-serif", size: 12 },
    };
    const config = { responsive: true, displaylogo: false, toImageButtonOptions: { format: "png", filename: el.id || "chart" },
      modeBarButtonsToAdd: [{ name: "download as SVG", icon: Plotly.Icons.disk, click: (gd) => Plotly.downloadImage(gd, { format: "svg", filename: gd.id || "chart" }) }] };
    return Plotly.react(el, traces, layout, config);
  }

  return { api, errorLine, urlGet, urlSet, VIEWS, view, onView, showView, deployment: () => null, onDeployment, fireDeployment, esc, fmtTime, fmtNum, fmtUsd, fmtPct, plot };
})();
