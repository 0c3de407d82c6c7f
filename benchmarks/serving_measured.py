"""The serving simulator against published serving measurements with stated settings
(tests/data/serving_measurements.csv): every closed-loop row with fixed lengths, simulated with
the same model, chips, split, data types, lengths and number of clients, on the calibrated
engine. Prints each row's |ln(simulated / measured)| and each series' median; the last line
is one JSON record. Figures are reported in docs/planning.md.

Rows with dataset lengths (ShareGPT, OpenOrca) are left out: their sources do not state the
lengths' means, so the traffic cannot be rebuilt.
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from collections import defaultdict
from pathlib import Path

from llm_roofline.deploy.deployment import deployment
from llm_roofline.sim.simulate import simulate
from llm_roofline.sim.workload import make_workload

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "serving_measurements.csv"
METRICS = {  # measured metric -> simulate's summary key
    "ttft_mean_s": "ttft_mean_s",
    "ttft_p50_s": "ttft_p50_s",
    "ttft_p99_s": "ttft_p99_s",
    "tpot_mean_s": "tpot_mean_s",
    "itl_mean_s": "tpot_mean_s",
    "e2e_mean_s": "e2e_mean_s",
    "output_tokens_per_s": "output_tokens_per_s",
    "request_throughput_rps": "request_throughput_rps",
}


def rows() -> list[dict[str, str]]:
    with DATA.open(encoding="utf-8") as f:
        return [
            r
            for r in csv.DictReader(f)
            if r["load_kind"] == "concurrency"
            and r["input_len"]
            and r["output_len"]
            and r["metric"] in METRICS
        ]


def main() -> None:
    series: dict[str, list[float]] = defaultdict(list)
    cache: dict[tuple[str, ...], dict[str, object]] = {}
    out = []
    for r in rows():
        kv = r["kv_dtype"].split()[0] if r["kv_dtype"] else "bf16"
        key = (r["model"], r["hardware"], r["chips"], r["tp"], r["weight_dtype"], kv,
               r["load"], r["input_len"], r["output_len"])  # fmt: skip
        if key not in cache:
            dep = deployment(r["model"], r["hardware"], int(r["chips"]), tp=int(r["tp"]),
                             weight_dtype=r["weight_dtype"], kv_dtype=kv)  # fmt: skip
            c = int(float(r["load"]))
            i, o = int(r["input_len"]), int(r["output_len"])
            w = make_workload(requests=max(8 * c, 64), concurrency=c, input_len=i, output_len=o)
            cache[key] = simulate(dep, w, with_capacity=False).summary
        sim = cache[key][METRICS[r["metric"]]]
        measured = float(r["value"])
        assert isinstance(sim, float)
        err = abs(math.log(sim / measured))
        name = f"{r['model']} on {r['chips']}x {r['hardware']}, {r['input_len']}/{r['output_len']}"
        series[name].append(err)
        out.append({"series": name, "clients": r["load"], "metric": r["metric"],
                    "measured": measured, "simulated": sim, "abs_ln_error": err})  # fmt: skip
        print(f"{name:48s} C={r['load']:>4s} {r['metric']:24s} measured {measured:10.4g} "
              f"simulated {sim:10.4g}  |ln| {err:.2f}")  # fmt: skip
    print()
    summary = {k: statistics.median(v) for k, v in series.items()}
    for k, v in summary.items():
        print(f"{k:48s} median |ln(simulated/measured)| {v:.2f} over {len(series[k])} figures")
    allerr = [e for v in series.values() for e in v]
    print(f"all {len(allerr)} figures: median {statistics.median(allerr):.2f}")
    print(json.dumps({"series_median": summary, "median": statistics.median(allerr),
                      "figures": len(allerr)}))  # fmt: skip


if __name__ == "__main__":
    main()
