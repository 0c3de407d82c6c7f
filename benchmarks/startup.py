"""Command-line start-up: wall time of `llm-roofline --help` against a bare `python -c pass`,
both measured in the same run (median of 15 each). Target (issue #3): --help under 0.3 s.

Plotting (matplotlib) and tables (rich) are imported inside the verbs that need them, so
--help pays only for Python, numpy and the package's own modules. The last line printed is one
machine-readable JSON record.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

RUNS = 15


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    python = [sys.executable, "-c", "pass"]
    cli = [sys.executable, "-m", "llm_roofline.cli", "--help"]
    timed(cli)  # warm the file cache
    base = statistics.median(timed(python) for _ in range(RUNS))
    help_s = statistics.median(timed(cli) for _ in range(RUNS))
    record = {
        "benchmark": "cli --help start-up",
        "runs": RUNS,
        "help_s_median": round(help_s, 4),
        "bare_python_s_median": round(base, 4),
        "overhead_s": round(help_s - base, 4),
        "target_s": 0.3,
        "meets_target": help_s < 0.3,
    }
    print(
        f"llm-roofline --help: {help_s * 1e3:.0f} ms median ({RUNS} runs); "
        f"bare python: {base * 1e3:.0f} ms; target < 300 ms: {help_s < 0.3}"
    )
    print(json.dumps(record))


if __name__ == "__main__":
    main()
