"""The serving simulator against published serving measurements, timed: the library call
behind `llm-roofline validate --serving` (`validation.serving_fit.validate_serving`; the
command prints the tables by metric, source and engine).

Every row of tests/data/serving_measurements.csv is simulated with its deployment, load (a
Poisson rate, a closed loop of clients, or everything at t = 0), lengths and engine; the
errors |ln(simulated / measured)| are reported as shipped and with the serving engines'
fixed costs fitted leaving one source out. Prints the figures by metric; the last line is
one JSON record. Figures are reported in docs/planning.md and docs/validation.md.
"""

from __future__ import annotations

import json
import time

from llm_roofline.validation.serving_fit import validate_serving


def main() -> None:
    start = time.perf_counter()
    rep = validate_serving()
    seconds = time.perf_counter() - start
    print(f"{rep['rows']} rows, {rep['simulated']} simulated in {rep['settings']} settings")
    for name in ("shipped", "held_out"):
        for family, s in rep[name]["by_family"].items():
            print(
                f"{name:9s} {family:10s} median |ln| {s['median_abs']:.3f}, 90th percentile "
                f"{s['p90_abs']:.3f}, signed median {s['signed_median']:+.3f} over {int(s['n'])}"
            )
    print(f"fixed costs fitted on every source: {rep['fitted']['costs']}")
    record = {k: rep[k]["by_family"] for k in ("shipped", "held_out")}
    print(json.dumps({**record, "fitted": rep["fitted"], "seconds": round(seconds, 1)}))


if __name__ == "__main__":
    main()
