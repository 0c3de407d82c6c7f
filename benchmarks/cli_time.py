"""Figure-writing verbs: wall time of `llm-roofline report ... --out DIR` (one deployment, five
figures as PNG and SVG) and `llm-roofline demo --out DIR` (two deployments), against a bare
`python -c pass` and `python -c "import matplotlib.pyplot"`, all measured in the same run
(median of 5 each; `python benchmarks/cli_time.py 3` for fewer). Target (issue #13): each verb
under 2 s of its own time, i.e. its median minus the bare-python median.

Each run writes into a fresh temporary folder, so no run finds another's files. Beside the wall
time, each command's CPU time (user + system, from the children's resource usage) is reported:
on a machine shared with other work the wall time swings with the load, the CPU time much
less. The last line printed is one machine-readable JSON record.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
TARGET_S = 2.0
CLI = [sys.executable, "-m", "llm_roofline.cli"]
REPORT = ["report", "--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--chips", "8"]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], out_flag: bool = False) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `cmd`."""
    with tempfile.TemporaryDirectory() as tmp:
        full = [*cmd, "--out", str(Path(tmp) / "out")] if out_flag else cmd
        c0, t0 = _cpu(), time.perf_counter()
        subprocess.run(full, check=True, capture_output=True, cwd=tmp)
        return time.perf_counter() - t0, _cpu() - c0


def median(cmd: list[str], out_flag: bool = False) -> tuple[float, float]:
    """Median wall and median CPU seconds over RUNS runs."""
    runs = [timed(cmd, out_flag) for _ in range(RUNS)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def main() -> None:
    timed([*CLI, *REPORT], out_flag=True)  # warm the file cache and matplotlib's font cache
    base, base_cpu = median([sys.executable, "-c", "pass"])
    mpl, mpl_cpu = median([sys.executable, "-c", "import matplotlib.pyplot"])
    report, report_cpu = median([*CLI, *REPORT], out_flag=True)
    demo, demo_cpu = median([*CLI, "demo"], out_flag=True)
    record = {
        "benchmark": "cli figure verbs",
        "runs": RUNS,
        "bare_python_s_median": round(base, 4),
        "import_pyplot_s_median": round(mpl, 4),
        "report_out_s_median": round(report, 4),
        "demo_s_median": round(demo, 4),
        "report_own_s": round(report - base, 4),
        "demo_own_s": round(demo - base, 4),
        "bare_python_cpu_s_median": round(base_cpu, 4),
        "import_pyplot_cpu_s_median": round(mpl_cpu, 4),
        "report_out_cpu_s_median": round(report_cpu, 4),
        "demo_cpu_s_median": round(demo_cpu, 4),
        "target_s": TARGET_S,
        "meets_target": max(report, demo) - base < TARGET_S,
    }
    print(
        f"report --out: {report:.2f} s ({report_cpu:.2f} s CPU), demo: {demo:.2f} s "
        f"({demo_cpu:.2f} s CPU), median of {RUNS}; bare python {base * 1e3:.0f} ms, import "
        f"matplotlib.pyplot {mpl * 1e3:.0f} ms ({mpl_cpu * 1e3:.0f} ms CPU); "
        f"target < {TARGET_S:g} s each: {record['meets_target']}"
    )
    print(json.dumps(record))


if __name__ == "__main__":
    main()
