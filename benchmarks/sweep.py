"""Engine speed: one vectorised call over 10^6 (batch × context) decode points, against a plain
Python loop calling the engine point by point, measured in the same run.

What it measures: wall time of `decode_step` for DeepSeek-V3 (MoE + MLA, the most work per
point in the catalog) on 72 GB200 chips, over a 1000 × 1000 grid of batch (1..4096) and context
(128..131072). The baseline is the same engine called once per point for 10^4 points of the same
grid, as a user without numpy broadcasting would. Each is run several times; medians are
reported, and the ratio is taken between medians of the same run.

Target (issue #2): under 0.3 µs per point for the vectorised sweep. The last line printed is one
machine-readable JSON record.
"""

from __future__ import annotations

import json
import platform
import statistics
import time

import numpy as np

import llm_roofline as lr

MODEL, HARDWARE, CHIPS = "deepseek-v3", "gb200", 72
N_SIDE = 1000  # 1000 × 1000 = 10^6 points
N_LOOP = 10_000
REPEATS = 7


def main() -> None:
    spec = lr.get_model(MODEL)
    system = lr.System(lr.get_hardware(HARDWARE), CHIPS)
    batch = np.unique(np.geomspace(1, 4096, N_SIDE).round())
    batch = np.linspace(1, 4096, N_SIDE) if batch.size < N_SIDE else batch
    context = np.geomspace(128, 131072, N_SIDE)
    B, S = batch[:, None], context[None, :]
    points = B.size * S.size

    lr.decode_step(spec, system, batch=B, context_len=S)  # warm caches
    vec_times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        step = lr.decode_step(spec, system, batch=B, context_len=S)
        _ = step.t_step.sum()
        vec_times.append(time.perf_counter() - t0)

    rng = np.random.default_rng(0)
    idx_b = rng.integers(0, batch.size, N_LOOP)
    idx_s = rng.integers(0, context.size, N_LOOP)
    pairs = [(float(batch[i]), float(context[j])) for i, j in zip(idx_b, idx_s, strict=True)]
    loop_times = []
    for _ in range(3):
        t0 = time.perf_counter()
        total = 0.0
        for b, s in pairs:
            total += float(lr.decode_step(spec, system, batch=b, context_len=s).t_step)
        loop_times.append(time.perf_counter() - t0)

    vec_us = statistics.median(vec_times) / points * 1e6
    loop_us = statistics.median(loop_times) / N_LOOP * 1e6
    record = {
        "benchmark": "decode_step sweep",
        "model": MODEL,
        "hardware": f"{CHIPS}x{HARDWARE}",
        "points": points,
        "vectorised_us_per_point_median": round(vec_us, 4),
        "vectorised_s_per_sweep_median": round(statistics.median(vec_times), 4),
        "vectorised_runs": REPEATS,
        "loop_points": N_LOOP,
        "loop_us_per_point_median": round(loop_us, 2),
        "loop_runs": len(loop_times),
        "speedup_vs_loop": round(loop_us / vec_us, 1),
        "target_us_per_point": 0.3,
        "meets_target": vec_us < 0.3,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": f"{platform.machine()}, {platform.processor() or 'unknown cpu'}",
    }
    print(f"vectorised: {vec_us:.3f} µs per point ({points:,} points, median of {REPEATS})")
    print(f"python loop: {loop_us:.1f} µs per point ({N_LOOP:,} points, median of 3)")
    print(f"speed-up: {loop_us / vec_us:,.0f}x; target < 0.3 µs per point: {vec_us < 0.3}")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
