"""The web API under load, on loopback only: `llm-roofline serve` in a subprocess, then

1. 200 sequential `/api/report` calls (the page's update: curves of ~200 points): p50/p99;
2. 2,000 requests, 16 at a time, over a mix of the page's calls (report for varied batches and
   models, models, hardware): p50/p99 and the error count.

Bounded in count and time; stops by itself. Target (issue #6): an update's call under 50 ms.
The last line is one machine-readable JSON record.
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

N_SEQ, N_LOAD, CONCURRENCY = 200, 2000, 16
MODELS = ["llama-3.1-8b", "llama-3.1-70b", "deepseek-v3", "qwen3-30b-a3b", "gpt-oss-120b"]


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


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
    }
    print(
        f"/api/report ({points} points per curve), {N_SEQ} calls one at a time: p50 "
        f"{rec['report_p50_ms']} ms, p99 {rec['report_p99_ms']} ms (target < 50 ms)"
    )
    print(
        f"{N_LOAD} requests, {CONCURRENCY} at a time: p50 {rec['load_p50_ms']} ms, p99 "
        f"{rec['load_p99_ms']} ms, {errors} errors, {rec['load_requests_per_s']} requests/s"
    )
    print(json.dumps(rec))


if __name__ == "__main__":
    main()
