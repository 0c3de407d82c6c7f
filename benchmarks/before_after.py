"""Issue 13's "before" figures: an earlier revision and this tree, alternated in one run.

Usage: `python benchmarks/before_after.py [REV]` (default f3ed286, `main` as issue 13 began).
It checks REV out into a temporary git worktree and, in fresh processes, against each tree in
turn (the benchmark code is this tree's in both; only the library differs):
- `sweep.scalar_times()` three times: the median µs of `sum(range(1000))`, a scalar
  `decode_step` for DeepSeek-V3 on 72 GB200, one for Llama 3.1 70B on 8 H100 with tp 8, and one
  `Deployment.decode`;
- the wall time of `llm-roofline --help` (15 runs), of `report ... --out` and of `demo`
  (3 runs each), as `python -m llm_roofline.cli`.
It prints the medians and one JSON record. Needs a git checkout with REV in its history.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 3
HELP_RUNS = 15
REPORT = ["report", "--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--chips", "8"]
CODE = (
    "import json, sys; sys.path.insert(0, 'benchmarks'); import sweep; "
    "print(json.dumps(sweep.scalar_times()))"
)


def _times(src: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(src))  # ahead of the installed (editable) package
    out = subprocess.run(
        [sys.executable, "-c", CODE], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout))


def _wall(src: Path, args: list[str], out: bool) -> float:
    """Wall seconds of one `python -m llm_roofline.cli ARGS` (with `--out` a fresh folder)."""
    env = dict(os.environ, PYTHONPATH=str(src))
    with tempfile.TemporaryDirectory() as tmp:
        full = [sys.executable, "-m", "llm_roofline.cli", *args]
        full += ["--out", str(Path(tmp) / "out")] if out else []
        t0 = time.perf_counter()
        subprocess.run(full, env=env, cwd=tmp, capture_output=True, check=True)
        return time.perf_counter() - t0


def main() -> None:
    rev = sys.argv[1] if len(sys.argv) > 1 else "f3ed286"
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "-q", str(old), rev], cwd=ROOT, check=True)
        try:
            trees = {"before": old / "src", "after": ROOT / "src"}
            runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
            for _ in range(RUNS):
                for name, src in trees.items():
                    runs[name].append(_times(src))
            commands = {"help": (["--help"], False, HELP_RUNS), "report_out": (REPORT, True, RUNS)}
            commands["demo"] = (["demo"], True, RUNS)
            walls: dict[str, dict[str, list[float]]] = {n: {} for n in trees}
            for cmd, (args, out, n) in commands.items():
                for src in trees.values():
                    _wall(src, args, out)  # warm: file cache, matplotlib's font cache
                for _ in range(n):
                    for name, src in trees.items():
                        walls[name].setdefault(cmd, []).append(_wall(src, args, out))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT)
    record: dict[str, object] = {"benchmark": "issue 13 before and after", "revision": rev}
    for name, rs in runs.items():
        medians = {f"{k}_us": round(statistics.median(r[k] for r in rs), 2) for k in rs[0]}
        medians |= {f"{k}_s": round(statistics.median(v), 3) for k, v in walls[name].items()}
        record[name] = medians
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in medians.items()))
    print(json.dumps(record))


if __name__ == "__main__":
    main()
