"""`plan`'s speed: the cheapest fleet for the planning questions of the README, the docs and
the page, over two hardware kinds each (the second at a high rate and a tight TPOT target; the
second and fourth are docs/planning.md's two questions, the fourth with long-tailed lengths;
the fifth the README's, the sixth the same at 2k prompts, issue 27's; the last the page's
default), the library call as the command line makes it (every shape's bounds, the
simulations, the best fleet's capacity), against a baseline measured in the same run: numpy
sorting 10 million floats. Median of 5 (`python benchmarks/plan_speed.py 3` for fewer), wall
clock and this process's CPU time (the machine is shared: the CPU time is what the search
costs), and the fleet each chose with its runner-up. Target (issue #27): at most 5 s each on
the 2-core development machine.

The last line printed is one machine-readable JSON record.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import numpy as np

from llm_roofline.deploy.deployment import deployment
from llm_roofline.planning.fleet_plan import Fleet, plan
from llm_roofline.sim.simulate import simulate
from llm_roofline.sim.workload import make_workload

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
TARGET_S = 5.0
QUESTIONS = {
    "llama-3.1-8b on h100-sxm,a100-80gb at 60 req/s, 512 -> 128, TTFT p90 300 ms, TPOT p99 40 ms": {
        "model": "llama-3.1-8b",
        "hardware": ["h100-sxm", "a100-80gb"],
        "rate": 60.0,
        "input_len": 512,
        "output_len": 128,
        "ttft_p90_s": 0.3,
        "tpot_p99_s": 0.04,
    },
    "llama-3.1-8b on h100-sxm,a100-80gb at 200 req/s, 512 -> 128, TTFT p90 300 ms, TPOT p99 "
    "20 ms": {
        "model": "llama-3.1-8b",
        "hardware": ["h100-sxm", "a100-80gb"],
        "rate": 200.0,
        "input_len": 512,
        "output_len": 128,
        "ttft_p90_s": 0.3,
        "tpot_p99_s": 0.02,
    },
    "llama-3.1-70b fp8 on h100-sxm,mi300x at 5 req/s, 2048 -> 256, TTFT p90 1 s, TPOT p99 60 ms": {
        "model": "llama-3.1-70b",
        "hardware": ["h100-sxm", "mi300x"],
        "rate": 5.0,
        "input_len": 2048,
        "output_len": 256,
        "ttft_p90_s": 1.0,
        "tpot_p99_s": 0.06,
        "weight_dtype": "fp8",
    },
    "llama-3.1-70b fp8 on h100-sxm,mi300x at 5 req/s, sharegpt-like 1024 -> 256, TTFT p90 1 s, "
    "TPOT p99 60 ms": {
        "model": "llama-3.1-70b",
        "hardware": ["h100-sxm", "mi300x"],
        "rate": 5.0,
        "input_len": 1024,
        "output_len": 256,
        "length_dist": "sharegpt-like",
        "ttft_p90_s": 1.0,
        "tpot_p99_s": 0.06,
        "weight_dtype": "fp8",
    },
    "llama-3.1-70b fp8 on h100-sxm,mi300x at 50 req/s, 1024 -> 256, TTFT p90 500 ms, TPOT p99 "
    "30 ms (the README's)": {
        "model": "llama-3.1-70b",
        "hardware": ["h100-sxm", "mi300x"],
        "rate": 50.0,
        "input_len": 1024,
        "output_len": 256,
        "ttft_p90_s": 0.5,
        "tpot_p99_s": 0.03,
        "weight_dtype": "fp8",
    },
    "llama-3.1-70b fp8 on h100-sxm,mi300x at 50 req/s, 2048 -> 256, TTFT p90 500 ms, TPOT p99 "
    "30 ms": {
        "model": "llama-3.1-70b",
        "hardware": ["h100-sxm", "mi300x"],
        "rate": 50.0,
        "input_len": 2048,
        "output_len": 256,
        "ttft_p90_s": 0.5,
        "tpot_p99_s": 0.03,
        "weight_dtype": "fp8",
    },
    "llama-3.1-8b on h100-sxm at 20 req/s, 512 -> 128, TTFT p90 200 ms, TPOT p99 20 ms (the "
    "page's defaults)": {
        "model": "llama-3.1-8b",
        "hardware": ["h100-sxm"],
        "rate": 20.0,
        "input_len": 512,
        "output_len": 128,
        "ttft_p90_s": 0.2,
        "tpot_p99_s": 0.02,
    },
}


def one_simulation() -> dict[str, float]:
    """Where a plan's time goes: building one instance's step table (the first run of a shape)
    and one later run of 2,000 requests (Llama 3.1 8B, six H100s at 200 requests/s)."""
    dep = deployment("llama-3.1-8b", "h100-sxm", 6, replicas=6)
    work = make_workload(requests=2000, rate=200, input_len=512, output_len=128, seed=0)
    cache: dict[object, object] = {}
    t0 = time.perf_counter()
    simulate(dep, work, with_capacity=False, rate=200, cache=cache)
    first = time.perf_counter() - t0
    runs = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        simulate(dep, work, with_capacity=False, rate=200, cache=cache)
        runs.append(time.perf_counter() - t0)
    later = statistics.median(runs)
    return {"first_run_s": first, "later_run_median_s": later, "table_s": first - later}


def _fleet(f: Fleet | None) -> str:
    """A chosen fleet in a few words (a change in the search shows as a change here)."""
    if f is None:
        return "none"
    p, d = f.prefill_split, f.decode_split
    pools = (
        f"{f.prefill_instances} × tp {p.tp} pp {p.pp} + {f.decode_instances} × tp {d.tp} pp "
        f"{d.pp} (prefill + decode)"
        if f.disaggregated and p is not None and d is not None
        else f"{f.replicas} × tp {f.tp} pp {f.pp}"
    )
    return f"{f.chips} × {f.hardware}, {pools}, ${f.usd_per_hour:.2f}/hour"


def main() -> None:
    base: list[float] = []
    times: dict[str, list[float]] = {q: [] for q in QUESTIONS}
    cpu: dict[str, list[float]] = {q: [] for q in QUESTIONS}
    searched: dict[str, dict[str, float]] = {}
    best: dict[str, str] = {}
    runner_up: dict[str, str] = {}
    for _ in range(RUNS):
        x = np.random.default_rng(0).random(10_000_000)
        t0 = time.perf_counter()
        np.sort(x)
        base.append(time.perf_counter() - t0)
        for q, kw in QUESTIONS.items():
            args = dict(kw)
            model, hw = args.pop("model"), args.pop("hardware")
            t0, c0 = time.perf_counter(), time.process_time()
            res = plan(model, hw, **args)
            times[q].append(time.perf_counter() - t0)
            cpu[q].append(time.process_time() - c0)
            searched[q] = {k: v for k, v in res.searched.items() if k != "seconds"}
            best[q] = _fleet(res.best)
            runner_up[q] = _fleet(res.runner_up)
    b = statistics.median(base)
    record: dict[str, object] = {"runs": RUNS, "baseline_median_s": b, "target_s": TARGET_S}
    for q in QUESTIONS:
        m, c = statistics.median(times[q]), statistics.median(cpu[q])
        s = searched[q]
        print(
            f"{q}: median {m:.2f} s, CPU {c:.2f} s ({m / b:.1f}x the sort baseline of "
            f"{b:.3f} s); "
            f"{s['instance_shapes']} shapes, {s['pruned_by_bound']} pruned, "
            f"{s['simulations']} simulations; best {best[q]}; runner-up {runner_up[q]}"
        )
        record[q] = {
            "median_s": m,
            "cpu_median_s": c,
            "ratio_to_baseline": m / b,
            "best": best[q],
            "runner_up": runner_up[q],
            **s,
        }
    one = one_simulation()
    print(
        "one simulation of 2,000 requests (8B, six H100s, 200 req/s): "
        f"{one['later_run_median_s']:.3f} s once its step table exists; "
        f"the first run {one['first_run_s']:.3f} s (table {one['table_s']:.3f} s)"
    )
    record["one_simulation"] = one
    print(json.dumps(record))


if __name__ == "__main__":
    main()
