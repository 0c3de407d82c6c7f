"""Cross-validation's wall time: `llm-roofline validate --engine calibrated --cv` and
`llm-roofline calibrate` (each fits the calibrated engine once per held-out source and once per
held-out hardware kind), against a bare `python -c pass` and `llm-roofline validate` (the
ideal engine on every row, no fitting), all measured in the same run (median of 5 each;
`python benchmarks/validate_cv.py 3` for fewer). Target (issue #14): `validate --cv` within
10 s on the 2-core development machine; it took 65-74 s before.

The last line printed is one machine-readable JSON record.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
TARGET_S = 10.0
CLI = [sys.executable, "-m", "llm_roofline.cli"]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "validate (ideal, no fitting)": [*CLI, "validate", "--json"],
    "validate --engine calibrated --cv": [*CLI, "validate", "--engine", "calibrated", "--cv"],
    "calibrate": [*CLI, "calibrate"],
}


def main() -> None:
    times: dict[str, list[float]] = {k: [] for k in COMMANDS}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(RUNS):  # alternate the commands: a load change hits them all alike
            for name, cmd in COMMANDS.items():
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True, cwd=tmp)
                times[name].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med["python -c pass"]
    for name, m in med.items():
        print(f"{name:36s} median {m:6.2f} s   ({m / base:5.1f}× python -c pass)")
    cv = med["validate --engine calibrated --cv"]
    verdict = "met" if cv <= TARGET_S else "NOT met"
    print(f"validate --cv: {cv:.2f} s, target {TARGET_S:.0f} s: {verdict}")
    print(json.dumps({"runs": RUNS, "median_s": med, "target_s": TARGET_S}))


if __name__ == "__main__":
    main()
