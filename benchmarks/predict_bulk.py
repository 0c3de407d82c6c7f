"""Bulk scenarios: `predict --scenarios` on 100,000 mixed rows, by column, against the per-row
path measured in the same run.

What it measures: a seeded scenario CSV of 100,000 rows is written to a temporary directory.
Timed, median of 3 runs each: the path the command line takes (`scenario_columns.predict_file`:
read, predict and write by column), predict + write alone (`predict_table` + `write`, the table
read beforehand), the row-object path of the library (`predict_rows` + `write_results` on rows
read by `read_scenarios`: the same columnar core, each row's result a `ScenarioResult`, written
by the csv module; its file must be byte for byte the columnar one), and the command end to end
(`llm-roofline predict --scenarios IN --out OUT` in a subprocess: Python start-up, imports,
read, predict, write). Rows: six deployments (dense and MoE, MLA, one to 72 chips, replicas and
a pipeline split, the ideal engine and calibrated profiles), the three modes of `serving.MODES`
in equal shares, batch a power of two from 1 to 256, input_len log-uniform 64..32,768 and
output_len log-uniform 1..2,048 tokens (random whole numbers, so few rows repeat a scenario).
Each mode's rows are also predicted alone (one run) to show where the time goes. Baseline: the
per-row path (`predict_one` row by row, then `write_results`) on the first 1,000 rows, scaled to
100,000; the columnar figures of those rows are checked against it (largest relative
difference).

Target (issue 13): 100,000 rows predicted and written in at most 3 s (aim: 2.5 s), the command
end to end in at most 3 s. The last line printed is one machine-readable JSON record.
"""

from __future__ import annotations

import csv
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from llm_roofline.deploy.scenarios.columns import (
    Table,
    predict_file,
    predict_rows,
    predict_table,
    read_table,
)
from llm_roofline.deploy.scenarios.rows import (
    INPUT_COLUMNS,
    OUTPUT_COLUMNS,
    RANGE_COLUMNS,
    predict_one,
    read_scenarios,
    write_results,
)
from llm_roofline.serving.modes import MODES

N_ROWS = 100_000
N_BASELINE = 1_000
REPEATS = 3
SEED = 13
TARGET_S = 3.0  # predict + write, and the command end to end
AIM_S = 2.5  # predict + write, with margin

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


def max_rel_diff(columnar: dict[str, list[str]], alone: list) -> float:  # type: ignore[type-arg]
    """The largest relative difference of a float cell between the columnar output and the
    per-row results; every other cell must be equal."""
    worst = 0.0
    for k, a in enumerate(alone):
        assert columnar["error"][k] == (str(a.error) if a.error else "")
        assert columnar["warning"][k] == a.warning
        for col in (*OUTPUT_COLUMNS, *RANGE_COLUMNS):
            x, y = columnar[col][k], a.outputs.get(col, a.extra.get(col))
            if isinstance(y, float):
                worst = max(worst, abs(float(x) - y) / max(abs(y), 1e-300))
            else:
                assert x == ("" if y is None else str(y).lower()), col
    return worst


def subset(table: Table, rows: list[int]) -> Table:
    return Table(
        {c: [v[k] for k in rows] for c, v in table.cells.items()}, [table.lines[k] for k in rows]
    )


def median_of(fn: Callable[[], object]) -> tuple[float, list[float]]:
    runs = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs), [round(x, 3) for x in runs]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src, dst, old = Path(tmp) / "scenarios.csv", Path(tmp) / "out.csv", Path(tmp) / "old.csv"
        write_csv(src, N_ROWS, SEED)
        predict_file(src, dst)  # warm caches (catalog, profiles)

        cli_s, cli_runs = median_of(lambda: predict_file(src, dst))
        table = read_table(src)
        pw_s, pw_runs = median_of(lambda: predict_table(table).write(dst))
        errors = len(predict_table(table).errors)

        rows = read_scenarios(src)
        old_s, old_runs = median_of(lambda: write_results(predict_rows(rows), old))
        identical = old.read_bytes() == dst.read_bytes()

        cmd = [str(Path(sys.executable).parent / "llm-roofline"), "predict", "--scenarios"]
        cmd += [str(src), "--out", str(dst)]
        e2e_s, e2e_runs = median_of(lambda: subprocess.run(cmd, check=True, capture_output=True))

        by_mode = {}
        for mode in MODES:
            part = subset(table, [k for k, m in enumerate(table.cells["mode"]) if m == mode])
            t0 = time.perf_counter()
            predict_table(part)
            by_mode[mode] = round(time.perf_counter() - t0, 3)
        distinct_continuous = len(
            {tuple(map(r.get, INPUT_COLUMNS)) for _, r in rows if r["mode"] == "continuous"}
        )

        base = rows[:N_BASELINE]
        t0 = time.perf_counter()
        alone = [predict_one(r, line) for line, r in base]
        t1 = time.perf_counter()
        write_results(alone, dst)
        base_s = (time.perf_counter() - t0) / N_BASELINE * N_ROWS
        base_predict_ms = (t1 - t0) / N_BASELINE * 1e3
        diff = max_rel_diff(predict_table(subset(table, list(range(N_BASELINE)))).columns, alone)

    record = {
        "benchmark": "predict --scenarios bulk",
        "rows": N_ROWS,
        "deployments": len(DEPLOYMENTS),
        "modes": list(MODES),
        "rows_with_errors": errors,
        "read_predict_write_s_median": round(cli_s, 3),
        "read_predict_write_s_runs": cli_runs,
        "predict_and_write_s_median": round(pw_s, 3),
        "predict_and_write_s_runs": pw_runs,
        "rows_per_s": round(N_ROWS / pw_s),
        "cli_end_to_end_s_median": round(e2e_s, 3),
        "cli_end_to_end_s_runs": e2e_runs,
        "row_objects_predict_and_write_s_median": round(old_s, 3),
        "row_objects_predict_and_write_s_runs": old_runs,
        "row_objects_file_identical": identical,
        "predict_s_by_mode": by_mode,
        "distinct_continuous_scenarios": distinct_continuous,
        "baseline_rows": N_BASELINE,
        "baseline_ms_per_row": round(base_predict_ms, 3),
        "baseline_s_scaled_to_rows": round(base_s, 1),
        "speedup_vs_per_row": round(base_s / pw_s, 1),
        "max_rel_diff_vs_per_row": diff,
        "target_s": TARGET_S,
        "aim_s": AIM_S,
        "meets_target": pw_s <= TARGET_S and e2e_s <= TARGET_S,
        "meets_aim": pw_s <= AIM_S,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": f"{platform.machine()}, {platform.processor() or 'unknown cpu'}",
    }
    print(
        f"by column: predict + write {pw_s:.2f} s, with reading {cli_s:.2f} s, the command end "
        f"to end {e2e_s:.2f} s for {N_ROWS:,} rows (medians of {REPEATS}), by mode {by_mode}"
    )
    print(f"row objects (predict_rows + write_results): {old_s:.2f} s, same file: {identical}")
    print(f"per row: {base_s:.1f} s scaled from {N_BASELINE:,} rows ({base_s / pw_s:.0f}×)")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
