"""The web API under load, on loopback only: `llm-roofline serve` in a subprocess, then

1. 200 sequential `/api/report` calls (the page's update: curves of ~200 points): p50/p99;
2. 2,000 requests, 16 at a time, over a mix of the page's calls (report for varied batches and
   models, models, hardware): p50/p99 and the error count;
3. the page's load: the size of every asset it fetches (plotly.js is most of it), the time to
   fetch them one after another, and, where Debian's Chromium is installed, the time from
   navigation to the first charts drawn (a fresh browser context each time, so nothing is
   cached; and a reload, which keeps plotly.js from the browser's cache).

Bounded in count and time; stops by itself. Target (issue #6): an update's call under 50 ms.
The last line is one machine-readable JSON record.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

N_SEQ, N_LOAD, CONCURRENCY = 200, 2000, 16
N_PAGE = 5  # page loads in the browser (each in a fresh context), and as many reloads
PAGE = "/?model=llama-3.1-70b&hardware=h100-sxm&chips=8&batch=64"
MODELS = ["llama-3.1-8b", "llama-3.1-70b", "deepseek-v3", "qwen3-30b-a3b", "gpt-oss-120b"]


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


def page_assets(c: httpx.Client) -> dict[str, Any]:
    """The page and every asset it names: bytes each, and the time to fetch them in turn."""
    t0 = time.perf_counter()
    html = c.get("/").text
    sizes = {"/": len(html.encode())}
    for url in re.findall(r'<(?:script|link)[^>]*?(?:src|href)="(/[^"]+)"', html):
        sizes[url] = len(c.get(url).content)
    for url in ("/api/models", "/api/hardware", "/api/engines", "/api/options"):
        sizes[url] = len(c.get(url).content)
    return {"bytes": sizes, "fetch_s": time.perf_counter() - t0}


def page_in_browser(url: str) -> dict[str, float] | None:
    """Navigation to the first charts drawn (body[data-ready], nothing pending) in Chromium:
    the median of N_PAGE fresh contexts, and of N_PAGE reloads in one context."""
    chromium = shutil.which("chromium")
    if chromium is None:
        return None
    from playwright.sync_api import sync_playwright

    def load(page: Any, reload: bool = False) -> float:
        t0 = time.perf_counter()
        page.reload() if reload else page.goto(url)
        page.wait_for_selector("body[data-ready]", timeout=60_000)
        page.wait_for_function("!document.body.dataset.busy", timeout=60_000)
        return time.perf_counter() - t0

    cold, warm = [], []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        for _ in range(N_PAGE):
            ctx = b.new_context(viewport={"width": 1280, "height": 1000})
            cold.append(load(ctx.new_page()))
            ctx.close()
        ctx = b.new_context(viewport={"width": 1280, "height": 1000})
        page = ctx.new_page()
        load(page)
        for _ in range(N_PAGE):
            warm.append(load(page, reload=True))
        b.close()
    return {"cold_s": statistics.median(cold), "reload_s": statistics.median(warm)}


def main() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "llm_roofline.cli", "serve", "--port", str(port)],
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=10) as c:
            for _ in range(100):
                try:
                    c.get("/api/hardware")
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            body = {
                "model": "llama-3.1-70b",
                "hardware": "h100-sxm",
                "chips": 8,
                "context_len": 4096,
                "batch": 64,
            }
            c.post("/api/report", json=body)  # warm
            seq = []
            for i in range(N_SEQ):
                t0 = time.perf_counter()
                r = c.post("/api/report", json={**body, "batch": 1 + i})
                seq.append(time.perf_counter() - t0)
                assert r.status_code == 200
            points = len(r.json()["step_vs_batch"]["batch"])

        def one(i: int) -> tuple[float, int]:
            with httpx.Client(base_url=url, timeout=30) as c:
                t0 = time.perf_counter()
                if i % 10 == 0:
                    r = c.get("/api/models")
                elif i % 10 == 1:
                    r = c.get("/api/hardware")
                else:
                    m = MODELS[i % len(MODELS)]
                    hw, n = ("gb200", 72) if m == "deepseek-v3" else ("h100-sxm", 8)
                    r = c.post(
                        "/api/report",
                        json={
                            "model": m,
                            "hardware": hw,
                            "chips": n,
                            "context_len": 1024 * (1 + i % 8),
                            "batch": 1 + i % 512,
                        },
                    )
                return time.perf_counter() - t0, r.status_code

        t0 = time.perf_counter()
        with ThreadPoolExecutor(CONCURRENCY) as ex:
            results = list(ex.map(one, range(N_LOAD)))
        wall = time.perf_counter() - t0
        with httpx.Client(base_url=url, timeout=30) as c:
            assets = page_assets(c)
        browser = page_in_browser(url + PAGE)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    lat = [t for t, _ in results]
    errors = sum(1 for _, code in results if code != 200)
    rec = {
        "benchmark": "web API",
        "report_points": points,
        "report_sequential_calls": N_SEQ,
        "report_p50_ms": round(statistics.median(seq) * 1e3, 2),
        "report_p99_ms": round(pct(seq, 99) * 1e3, 2),
        "load_requests": N_LOAD,
        "load_concurrency": CONCURRENCY,
        "load_p50_ms": round(statistics.median(lat) * 1e3, 2),
        "load_p99_ms": round(pct(lat, 99) * 1e3, 2),
        "load_errors": errors,
        "load_requests_per_s": round(N_LOAD / wall, 1),
        "target_ms": 50,
        "page_bytes": sum(assets["bytes"].values()),
        "plotly_bytes": assets["bytes"].get("/static/vendor/plotly.min.js"),
        "page_fetch_ms": round(assets["fetch_s"] * 1e3, 1),
        "page_load_ms": round(browser["cold_s"] * 1e3) if browser else None,
        "page_reload_ms": round(browser["reload_s"] * 1e3) if browser else None,
    }
    print(
        f"/api/report ({points} points per curve), {N_SEQ} calls one at a time: p50 "
        f"{rec['report_p50_ms']} ms, p99 {rec['report_p99_ms']} ms (target < 50 ms)"
    )
    print(
        f"{N_LOAD} requests, {CONCURRENCY} at a time: p50 {rec['load_p50_ms']} ms, p99 "
        f"{rec['load_p99_ms']} ms, {errors} errors, {rec['load_requests_per_s']} requests/s"
    )
    own = {k: v for k, v in assets["bytes"].items() if "vendor" not in k}
    print(
        f"the page: {rec['page_bytes'] / 1e6:.2f} MB in {len(assets['bytes'])} files (plotly.js "
        f"{rec['plotly_bytes'] / 1e6:.2f} MB; the page's own files and catalogs "
        f"{sum(own.values()) / 1e3:.0f} kB), fetched one after another in "
        f"{rec['page_fetch_ms']} ms"
    )
    if browser:
        print(
            f"Chromium, navigation to the first charts drawn: {rec['page_load_ms']} ms (nothing "
            f"cached, median of {N_PAGE}), {rec['page_reload_ms']} ms on a reload"
        )
    print(json.dumps(rec))


if __name__ == "__main__":
    main()
