"""The browser tests' shared parts (a plugin of conftest.py): the server (`serve` on loopback),
Debian's Chromium driven by Playwright, and `Page`, a page that records script errors and its
requests, waits until the answer to the last input is drawn, and reads plotly's charts (their
traces, axes, ticks and labels). Every view's test file uses these."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llm_roofline.cli", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/api/hardware", timeout=1)
            break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        err = proc.stderr.read().decode() if proc.stderr else ""
        pytest.fail("the server did not start: " + err[-500:])
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is needed (make test-browser installs it with apt-get)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


# What a chart shows, read from plotly's graph div: the traces (name, points, fill), each
# axis's type, range and labelled ticks, and any label (tick, axis title, legend entry, marker
# or band label) that leaves the chart's box or overlaps another of its kind.
_CHART = """(id) => {
  const gd = document.getElementById(id);
  if (!gd || !gd._fullLayout) return null;
  const box = gd.getBoundingClientRect();
  const rect = (el) => el.getBoundingClientRect();
  const inside = (r) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5 &&
    r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
  const hits = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
    a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const sel = ".xtick text, .ytick text, g.annotation, .legend .traces, " +
    ".g-xtitle text, .g-ytitle text";
  const labels = [...gd.querySelectorAll(sel)].filter((el) => rect(el).width > 0);
  const outside = labels.filter((el) => !inside(rect(el))).map((el) => el.textContent);
  const overlaps = [];
  for (const group of [".xtick text", ".ytick text", "g.annotation", ".legend .traces"]) {
    const els = [...gd.querySelectorAll(group)].filter((el) => rect(el).width > 0);
    for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
      if (hits(rect(els[i]), rect(els[j]))) overlaps.push([els[i].textContent, els[j].textContent]);
    }
  }
  const axis = (a) => a ? { type: a.type, range: a.range,
    ticks: (a._vals || []).filter((v) => v.text).map((v) => [v.x, v.text]),
    title: a.title ? a.title.text : "" } : null;
  const fl = gd._fullLayout;
  const legend = gd.querySelector(".legend"), area = gd.querySelector(".nsewdrag");
  // each label of a marker or band (a vertical line's or a span's, in the strip above the
  // plot): whether it sits above the plot area, where no curve runs, and its hover text
  const plotBox = area ? rect(area) : null;
  const markers = [...gd.querySelectorAll("g.annotation")].map((el) => {
    const ann = fl.annotations[Number(el.dataset.index)] || {}, r = rect(el);
    return { text: el.textContent, strip: ann.yref === "paper" && ann.y === 1,
      above: plotBox ? r.bottom <= plotBox.top + 0.5 : null,
      over_axis: plotBox ? r.left < plotBox.left - 0.5 || r.right > plotBox.right + 0.5 : null,
      hover: ann.hovertext || "" };
  }).filter((m) => m.strip);
  const below = legend && area ? rect(legend).top >= rect(area).bottom - 0.5 : null;
  const buttons = [...gd.querySelectorAll(".modebar-btn")].map((b) => b.dataset.title);
  return {
    legend_below: below, buttons, markers,
    traces: (gd.data || []).map((t) => ({ name: t.name, x: t.x || [], y: t.y || [],
      fill: t.fill || null, legend: t.showlegend !== false, mode: t.mode || "" })),
    x: fl.xaxis && fl.xaxis.visible !== false ? axis(fl.xaxis) : null,
    y: fl.yaxis && fl.yaxis.visible !== false ? axis(fl.yaxis) : null,
    annotations: [...gd.querySelectorAll("g.annotation")].map((el) => el.textContent),
    text: gd.textContent, outside, overlaps, plotted: gd.dataset.plotted || "",
  };
}"""


def params(url: str) -> dict[str, str]:
    """A URL's query as a dict (its order left aside)."""
    from urllib.parse import parse_qsl, urlsplit

    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


class Page:
    """A page on the server that records script errors and every request it makes; `settle`
    waits until the answer to the last input is drawn (the page keeps body[data-busy] set
    until then)."""

    def __init__(self, browser: Any, url: str) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 1000})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.goto(url)

    def goto(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready]")
        self.settle()

    def url(self) -> str:
        """The page's address as it stands (after the page's own history.replaceState)."""
        href: str = self.page.evaluate("location.href")
        return href

    def settle(self) -> None:
        self.page.wait_for_function("!document.body.dataset.busy", timeout=120_000)

    def fill_together(self, values: dict[str, str]) -> None:
        """Set several inputs in one task of the page (each then fires its `input` event), so
        no debounced request can go out between them, however slow the machine: filling them
        one by one lets the page's 60 ms debounce fire between two fills under load."""
        self.page.evaluate(
            """(values) => {
              for (const [sel, v] of Object.entries(values)) {
                const el = document.querySelector(sel);
                el.value = v;
                el.dispatchEvent(new Event("input", { bubbles: true }));
                el.dispatchEvent(new Event("change", { bubbles: true }));
              }
            }""",
            values,
        )

    def text(self, selector: str) -> str:
        return self.page.text_content(selector) or ""

    def seconds(self, which: str) -> float:
        """The exact value behind the headline: `ideal-s` or `step-s`."""
        return float(self.page.get_attribute("#n_step", f"data-{which}") or "nan")

    def chart(self, chart_id: str) -> dict[str, Any]:
        """What the chart `chart_id` shows (see _CHART)."""
        out: dict[str, Any] | None = self.page.evaluate(_CHART, chart_id)
        assert out is not None, f"no chart #{chart_id}"
        return out

    def trace(self, chart_id: str, name: str) -> dict[str, Any] | None:
        """The trace of that name on the chart, or None."""
        return next((t for t in self.chart(chart_id)["traces"] if t["name"] == name), None)

    def points(self, name: str, chart_id: str = "c_batch") -> list[Any] | None:
        """The y values of a trace of the step-vs-batch chart (None when it is not drawn)."""
        t = self.trace(chart_id, name)
        return None if t is None else list(t["y"])

    def readable(self, chart_id: str) -> dict[str, Any]:
        """Assert that the chart can be read: each axis titled with at least two labelled
        ticks; a log axis's at least three, at powers of ten (and at 2 and 5 of each decade
        when fewer than three decades show), written as plain numbers with k, M or G (1, 20,
        500, 1k, 0.01: never 10²); no label leaving the chart's box or overlapping another of
        its kind; every marker's and band's label above the plot area, where no curve crosses
        it. Returns what the chart shows."""
        import math
        import re

        c = self.chart(chart_id)
        assert c["plotted"] == "data", (chart_id, c["text"][:200])
        for name in ("x", "y"):
            a = c[name]
            assert a is not None and a["title"], (chart_id, name, a)
            assert len(a["ticks"]) >= 2, (chart_id, name, a["ticks"])
            if a["type"] == "log":
                assert len(a["ticks"]) >= 3, (chart_id, name, "too few ticks", a["ticks"])
                decades = a["range"][1] - a["range"][0]
                allowed = (1.0, 2.0, 5.0) if decades < 3 else (1.0,)
                for at, text in a["ticks"]:
                    mantissa = 10 ** (at - math.floor(at + 1e-9))
                    assert min(abs(mantissa - m) for m in allowed) < 1e-6, (
                        chart_id,
                        name,
                        "a tick off 1, 2, 5 × 10^k (or off a power of ten over 3 decades)",
                        at,
                        text,
                    )
                    plain = re.fullmatch(r"\d+(\.\d+)?[kMG]?|\de-\d+", text)
                    assert plain, (chart_id, name, "a tick not written as a plain number", text)
                    value = (
                        float(text[:-1]) * {"k": 1e3, "M": 1e6, "G": 1e9}[text[-1]]
                        if text[-1] in "kMG"
                        else float(text)
                    )
                    assert value == pytest.approx(10**at, rel=1e-6), (chart_id, name, at, text)
        for m in c["markers"]:
            assert m["above"], (chart_id, "a marker's label inside the plot", m["text"])
            assert not m["over_axis"], (
                chart_id,
                "a marker's label beyond the plot's sides",
                m["text"],
            )
        assert not c["outside"], (chart_id, "labels outside the chart", c["outside"])
        assert c["legend_below"] is not False, (chart_id, "the legend over the plot")
        assert not c["overlaps"], (chart_id, "labels overlapping", c["overlaps"])
        return c

    def controls(self, scope: str = "#controls") -> dict[str, str]:
        """Every named control under `scope`: name -> value (a checkbox: "1" or "")."""
        out: dict[str, str] = self.page.evaluate(
            """(scope) => Object.fromEntries([...document.querySelectorAll(scope + " [name]")]
              .filter((el) => el.type !== "file")
              .map((el) => [el.name, el.type === "checkbox" ? (el.checked ? "1" : "")
                : el.multiple ? [...el.selectedOptions].map((o) => o.value).join(",")
                : el.value]))""",
            scope,
        )
        return out

    def foreign(self, origin: str) -> list[str]:
        """The requests the page made anywhere but `origin` (data: URLs aside)."""
        return [u for u in self.requests if not u.startswith(origin + "/") and u != origin]

    def close(self) -> None:
        assert not self.errors, self.errors
        self.page.close()


def shoot(page: Any, selector: str, name: str, tmp_path: Path) -> Path:
    """A screenshot of one element: into docs/figures/NAME under `make screenshot` (which sets
    LLM_ROOFLINE_SCREENSHOT to a file in that folder), else into the test's tmp_path."""
    import os

    folder = os.environ.get("LLM_ROOFLINE_SCREENSHOT")
    shot = Path(folder).parent / name if folder else tmp_path / name
    page.locator(selector).screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000, f"{name}: a blank screenshot"
    return shot
