"""The serving simulator's speed: 100,000 requests of Llama 3.1 8B on one H100 (calibrated
engine, Poisson at 30 requests/s, 512 prompt and 128 output tokens drawn sharegpt-like), the
library call `simulate` (its step-time table, the run, and the saturating run that measures
the capacity), against a baseline measured in the same run: numpy sorting 10 million floats.
Median of 5 (`python benchmarks/simulate_speed.py 3` for fewer). Target (issue #15): at most
3 s on the 2-core development machine.

Also the step-time table's error against direct engine calls at 300 random mixes (decode
sequences, their mean context, prompt tokens), for the same deployment and a MoE one.

The last line printed is one machine-readable JSON record.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import numpy as np

from llm_roofline.deploy.deployment import deployment
from llm_roofline.sim.simulate import simulate
from llm_roofline.sim.step_predictor import StepTable, errors_against_engine
from llm_roofline.sim.workload import make_workload

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
TARGET_S = 3.0


def table_error(model: str, chips: int) -> dict[str, float]:
    dep = deployment(model, "h100-sxm", chips)
    tab = StepTable(dep, max_seqs=256, max_context=32768, max_tokens=8192)
    errs = np.abs(errors_against_engine(tab, dep, mixes=300, seed=1))
    return {"mean_abs": float(np.mean(errs)), "max_abs": float(np.max(errs))}


def main() -> None:
    dep = deployment("llama-3.1-8b", "h100-sxm", 1)
    work = make_workload(
        requests=100_000,
        rate=30,
        input_len=512,
        output_len=128,
        length_dist="sharegpt-like",
        max_context=131072,
        seed=1,
    )
    sim: list[float] = []
    base: list[float] = []
    steps = 0.0
    for _ in range(RUNS):
        x = np.random.default_rng(0).random(10_000_000)
        t0 = time.perf_counter()
        np.sort(x)
        base.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        res = simulate(dep, work)
        sim.append(time.perf_counter() - t0)
        steps = res.stats["steps"]
    m_sim, m_base = statistics.median(sim), statistics.median(base)
    print(f"simulate, 100,000 requests ({steps:,.0f} steps): median {m_sim:.2f} s")
    print(f"baseline, numpy sort of 1e7 floats:  median {m_base:.2f} s ({m_sim / m_base:.1f}×)")
    verdict = "met" if m_sim <= TARGET_S else "NOT met"
    print(f"target {TARGET_S:.0f} s: {verdict}")
    errors = {
        "llama-3.1-8b x1": table_error("llama-3.1-8b", 1),
        "mixtral-8x7b x2": table_error("mixtral-8x7b", 2),
    }
    for name, e in errors.items():
        print(
            f"step table vs engine, {name}: "
            f"mean |error| {e['mean_abs']:.3%}, max {e['max_abs']:.2%}"
        )
    print(
        json.dumps(
            {
                "runs": RUNS,
                "simulate_median_s": m_sim,
                "baseline_median_s": m_base,
                "steps": steps,
                "target_s": TARGET_S,
                "table_error": errors,
            }
        )
    )


if __name__ == "__main__":
    main()
