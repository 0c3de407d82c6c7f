"""Bulk scenarios: `predict --scenarios` on 100,000 mixed rows, grouped by deployment, against
the per-row path measured in the same run.

What it measures: a seeded scenario CSV of 100,000 rows is written to a temporary directory and
read with `read_scenarios`; the timed part is `predict_rows` + `write_results` (what `predict
--scenarios` does after reading), median of 3 runs. Rows: six deployments (dense and MoE, MLA,
one to 72 chips, replicas and a pipeline split, the ideal engine and calibrated profiles), the
three modes of `serving.MODES` in equal shares, batch a power of two from 1 to 256, input_len
log-uniform 64..32,768 and output_len log-uniform 1..2,048 tokens (random whole numbers, so few
rows repeat a scenario). Each mode's rows are also timed alone (predict only, one run) to show
where the time goes. Baseline: the per-row path (`predict_one` row by row, what `predict_rows`
did before issue 13) on the first 1,000 rows, scaled to 100,000; the ratio is taken between the
two in this run, and the grouped results are checked against it (largest relative difference).

Target (issue 13): 100,000 rows in at most 3 s. The last line printed is one machine-readable
JSON record.
"""

from __future__ import annotations

import csv
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from llm_roofline.scenarios import (
    INPUT_COLUMNS,
    OUTPUT_COLUMNS,
    RANGE_COLUMNS,
    predict_one,
    predict_rows,
    read_scenarios,
    write_results,
)
from llm_roofline.serving import MODES

N_ROWS = 100_000
N_BASELINE = 1_000
REPEATS = 3
SEED = 13
TARGET_S = 3.0

# model, hardware, chips, pp, weight_dtype, kv_dtype, engine (the split: the deployment rule)
DEPLOYMENTS = [
    ("llama-3.1-8b", "h100-sxm", 1, "", "bf16", "bf16", "calibrated"),
    ("llama-3.1-70b", "h100-sxm", 8, "", "fp8", "bf16", "vllm"),
    ("deepseek-v3", "gb200", 72, "", "fp8", "bf16", "calibrated"),
    ("mixtral-8x7b", "rtx-pro-6000", 8, "", "bf16", "bf16", "ideal"),  # 8 replicas
    ("qwen3-235b-a22b", "h200", 8, "", "fp8", "fp8", "tensorrt-llm"),
    ("llama-3.1-70b", "l40s", 8, "2", "fp8", "bf16", "ideal"),  # pp 2 × 4 replicas
]


def write_csv(path: Path, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    dep = rng.integers(0, len(DEPLOYMENTS), n)
    mode = rng.integers(0, len(MODES), n)
    batch = 2 ** rng.integers(0, 9, n)
    inp = np.exp(rng.uniform(np.log(64), np.log(32_768), n)).round().astype(int)
    out = np.exp(rng.uniform(0, np.log(2_048), n)).round().astype(int)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(INPUT_COLUMNS)
        for k in range(n):
            model, hw, chips, pp, wd, kv, engine = DEPLOYMENTS[dep[k]]
            cells = {"model": model, "hardware": hw, "chips": chips, "pp": pp}
            cells.update(weight_dtype=wd, kv_dtype=kv, engine=engine, mode=MODES[mode[k]])
            cells.update(batch=batch[k], input_len=inp[k], output_len=out[k])
            w.writerow([cells.get(c, "") for c in INPUT_COLUMNS])


def max_rel_diff(grouped: list, alone: list) -> float:  # type: ignore[type-arg]
    worst = 0.0
    for g, a in zip(grouped, alone, strict=True):
        assert str(g.error) == str(a.error) and g.warning == a.warning and g.inputs == a.inputs
        for col in (*OUTPUT_COLUMNS, *RANGE_COLUMNS):
            x, y = g.outputs.get(col, g.extra.get(col)), a.outputs.get(col, a.extra.get(col))
            if isinstance(y, float):
                worst = max(worst, abs(x - y) / max(abs(y), 1e-300))
            else:
                assert x == y, col
    return worst


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "scenarios.csv", Path(tmp) / "out.csv"
        write_csv(src, N_ROWS, SEED)
        t0 = time.perf_counter()
        rows = read_scenarios(src)
        read_s = time.perf_counter() - t0
        predict_rows(rows[:200])  # warm caches (catalog, profiles)

        runs = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            results = predict_rows(rows)
            write_results(results, dst)
            runs.append(time.perf_counter() - t0)
        errors = sum(r.error is not None for r in results)

        by_mode = {}
        for mode in MODES:
            subset = [r for r in rows if r[1]["mode"] == mode]
            t0 = time.perf_counter()
            predict_rows(subset)
            by_mode[mode] = round(time.perf_counter() - t0, 3)
        distinct_continuous = len(
            {
                tuple(r[1][c] for c in (*INPUT_COLUMNS,))
                for r in rows
                if r[1]["mode"] == "continuous"
            }
        )

        base = rows[:N_BASELINE]
        t0 = time.perf_counter()
        alone = [predict_one(r, line) for line, r in base]
        t1 = time.perf_counter()
        write_results(alone, dst)
        base_s = (time.perf_counter() - t0) / N_BASELINE * N_ROWS
        base_predict_ms = (t1 - t0) / N_BASELINE * 1e3
        diff = max_rel_diff(predict_rows(base), alone)

    median = statistics.median(runs)
    record = {
        "benchmark": "predict --scenarios bulk",
        "rows": N_ROWS,
        "deployments": len(DEPLOYMENTS),
        "modes": list(MODES),
        "rows_with_errors": errors,
        "read_s": round(read_s, 3),
        "predict_and_write_s_median": round(median, 3),
        "predict_and_write_s_runs": [round(x, 3) for x in runs],
        "rows_per_s": round(N_ROWS / median),
        "predict_s_by_mode": by_mode,
        "distinct_continuous_scenarios": distinct_continuous,
        "baseline_rows": N_BASELINE,
        "baseline_ms_per_row": round(base_predict_ms, 3),
        "baseline_s_scaled_to_rows": round(base_s, 1),
        "speedup_vs_per_row": round(base_s / median, 1),
        "max_rel_diff_vs_per_row": diff,
        "target_s": TARGET_S,
        "meets_target": median <= TARGET_S,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": f"{platform.machine()}, {platform.processor() or 'unknown cpu'}",
    }
    print(f"grouped: {median:.2f} s for {N_ROWS:,} rows (median of {REPEATS}), by mode {by_mode}")
    print(f"per row: {base_s:.1f} s scaled from {N_BASELINE:,} rows ({base_s / median:.0f}×)")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
