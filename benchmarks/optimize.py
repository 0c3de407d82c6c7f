"""The `optimize` search: wall time of the whole search for one model (target, issue #4: under
2 s), median of 5 runs each, for three catalog models of different shapes. The last line is
one machine-readable JSON record."""

from __future__ import annotations

import json
import statistics
import time

from llm_roofline.deploy.deployment import deployment
from llm_roofline.planning.optimize import search

CASES = [
    ("llama-3.1-70b", "h100-sxm", 16),
    ("qwen3-235b-a22b", "h200", 32),
    ("deepseek-v3", "gb200", 72),
]


def main() -> None:
    records = []
    for model, hw, n in CASES:
        dep = deployment(model, hw, weight_dtype="fp8")  # the calibrated engine, the default
        search(dep, n)  # warm the caches
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            r = search(dep, n, tpot_s=0.02)
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        records.append(
            {
                "model": model,
                "hardware": hw,
                "max_chips": n,
                "median_s": round(med, 4),
                "splits": r.configs_tried,
                "points": int(r.points["batch"].size),
            }
        )
        print(
            f"{model} on up to {n} × {hw}: {med:.3f} s median, {r.configs_tried} splits, "
            f"{r.points['batch'].size:,} points; target < 2 s: {med < 2}"
        )
    print(json.dumps({"benchmark": "optimize search", "runs": 5, "cases": records}))


if __name__ == "__main__":
    main()
