"""Engine speed: one vectorised call over 10^6 (batch × context) decode points, against a plain
Python loop calling the engine point by point, and the cost of one scalar call, all measured in
the same run.

What it measures: wall time of `decode_step` for DeepSeek-V3 (MoE + MLA, the most work per
point in the catalog) on 72 GB200 chips, over a 1000 × 1000 grid of batch (1..4096) and context
(128..131072). The baseline is the same engine called once per point for 10^4 points of the same
grid, as a user without numpy broadcasting would. Each is run several times; medians are
reported, and the ratio is taken between medians of the same run.

Scalar calls: `decode_step(spec, system, batch=b, context_len=s)` with Python floats, for the
DeepSeek-V3 case above (no split) and for Llama 3.1 70B on 8 H100 with tp = 8 (the split path,
communication costed), against `sum(range(1000))` timed in the same run, interleaved with them,
so the ratio holds across machines.

Targets: under 0.3 µs per point for the vectorised sweep (issue #2); a scalar call at most 1.3×
`sum(range(1000))` (issue #13). The last line printed is one machine-readable JSON record.
"""

from __future__ import annotations

import json
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np

import llm_roofline as lr
from llm_roofline._core import units
from llm_roofline.engine.parallel import Parallelism

MODEL, HARDWARE, CHIPS = "deepseek-v3", "gb200", 72
SPLIT_MODEL, SPLIT_HARDWARE, SPLIT_CHIPS, SPLIT_TP = "llama-3.1-70b", "h100-sxm", 8, 8
N_SIDE = 1000  # 1000 × 1000 = 10^6 points
N_LOOP = 10_000
REPEATS = 7
SCALAR_CALLS = 2_000  # calls per timed block
SCALAR_REPEATS = 15
SCALAR_TARGET = 1.3  # × sum(range(1000))


def _block_us(f: Callable[[], object], calls: int) -> float:
    """Mean µs per call of `calls` calls in a row."""
    t0 = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - t0) / calls / units.us


def scalar_times() -> dict[str, float]:
    """Medians (µs) of sum(range(1000)), of the two scalar decode_step calls and of one
    `Deployment.decode` (what the surfaces call), interleaved."""
    spec = lr.get_model(MODEL)
    system = lr.System(lr.get_hardware(HARDWARE), CHIPS)
    split_spec = lr.get_model(SPLIT_MODEL)
    split_system = lr.System(lr.get_hardware(SPLIT_HARDWARE), SPLIT_CHIPS)
    par = Parallelism.of(SPLIT_CHIPS, SPLIT_TP)
    dep = lr.deployment(MODEL, HARDWARE, chips=CHIPS)  # its default split, the calibrated engine
    b, s = 64.0, 4096.0
    cases: dict[str, Callable[[], object]] = {
        "sum_range_1000": lambda: sum(range(1000)),
        "scalar_decode": lambda: lr.decode_step(spec, system, batch=b, context_len=s),
        "scalar_split_decode": lambda: lr.decode_step(
            split_spec, split_system, batch=b, context_len=s, parallel=par
        ),
        "deployment_decode": lambda: dep.decode(b, s),
    }
    for f in cases.values():  # warm: the plans are cached, the interpreter's caches filled
        _block_us(f, 100)
    runs: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(SCALAR_REPEATS):
        for name, f in cases.items():
            runs[name].append(_block_us(f, SCALAR_CALLS))
    return {name: statistics.median(v) for name, v in runs.items()}


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

    sc = scalar_times()
    base = sc["sum_range_1000"]
    ratio = sc["scalar_decode"] / base
    split_ratio = sc["scalar_split_decode"] / base

    vec_us = statistics.median(vec_times) / points / units.us
    loop_us = statistics.median(loop_times) / N_LOOP / units.us
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
        "scalar_sum_range_1000_us_median": round(base, 3),
        "scalar_decode_us_median": round(sc["scalar_decode"], 3),
        "scalar_decode_ratio": round(ratio, 3),
        "scalar_split_case": f"{SPLIT_MODEL} on {SPLIT_CHIPS}x{SPLIT_HARDWARE}, tp={SPLIT_TP}",
        "scalar_split_decode_us_median": round(sc["scalar_split_decode"], 3),
        "scalar_split_decode_ratio": round(split_ratio, 3),
        "deployment_decode_case": f"deployment({MODEL!r}, {HARDWARE!r}, {CHIPS}).decode(64, 4096)",
        "deployment_decode_us_median": round(sc["deployment_decode"], 3),
        "scalar_calls_per_run": SCALAR_CALLS,
        "scalar_runs": SCALAR_REPEATS,
        "scalar_target_ratio": SCALAR_TARGET,
        "scalar_meets_target": ratio <= SCALAR_TARGET,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": f"{platform.machine()}, {platform.processor() or 'unknown cpu'}",
    }
    print(f"vectorised: {vec_us:.3f} µs per point ({points:,} points, median of {REPEATS})")
    print(f"python loop: {loop_us:.1f} µs per point ({N_LOOP:,} points, median of 3)")
    print(f"speed-up: {loop_us / vec_us:,.0f}x; target < 0.3 µs per point: {vec_us < 0.3}")
    print(
        f"scalar call: {sc['scalar_decode']:.2f} µs = {ratio:.2f}x sum(range(1000)) "
        f"({base:.2f} µs); split case {sc['scalar_split_decode']:.2f} µs = {split_ratio:.2f}x; "
        f"target <= {SCALAR_TARGET}x: {ratio <= SCALAR_TARGET}"
    )
    print(f"Deployment.decode (calibrated engine): {sc['deployment_decode']:.2f} µs")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
