"""The figures of the serving validation: a row's simulated figure and the statistics of the
errors, ln(simulated / measured).

A row's simulated figure (`simulated_value`): percentiles and means over the simulated
requests (a mean ITL is the token-weighted mean gap after the first token; ITL percentiles
are read as TPOT's); throughputs as benchmark tools count them, completions over the span
from the first send to the last completion. When a run's requests were capped
(`serving.request_count`), the span is extended by those not simulated at the rate the run
sustained (open loop: the lower of the offered rate and the completions per second over
their middle 60%; closed loop: clients over the mean latency, Little's law); with no count
stated the run is taken as long, at that rate.

`error_stats`: the median and 90th percentile of the errors' size and their signed median;
`grouped_stats` by metric family (TTFT, TPOT/ITL, throughput, e2e) within groups.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from llm_roofline._core.errors import InputError
from llm_roofline.sim.metrics import sustained_rps
from llm_roofline.sim.simulate import SimResult
from llm_roofline.sim.workload import Workload

if TYPE_CHECKING:
    from llm_roofline.validation.serving import ServingRow, Setting

__all__ = ["FAMILIES", "error_stats", "grouped_stats", "metric_family", "simulated_value"]

FAMILIES = ("ttft", "tpot", "throughput", "e2e")
_LATENCY = re.compile(r"^(ttft|tpot|itl|e2e)_(mean|p\d{1,2}(?:\.\d+)?)_s$")
_THROUGHPUTS = {  # metric -> the tokens counted per request ("" counts the requests)
    "output_tokens_per_s": "out",
    "request_throughput_rps": "",
    "total_tokens_per_s": "in+out",
    "input_tokens_per_s": "in",
}


def metric_family(metric: str) -> str | None:
    """The family a metric belongs to (TTFT, TPOT, throughput, e2e; ITL counts as TPOT), or
    None for a metric the simulator does not give."""
    m = _LATENCY.match(metric)
    if m:
        return "tpot" if m.group(1) == "itl" else m.group(1)
    return "throughput" if metric in _THROUGHPUTS else None


def simulated_value(metric: str, res: SimResult, work: Workload, s: Setting) -> float:
    """The row's figure from its simulation (module docstring)."""
    m = _LATENCY.match(metric)
    if m is None:
        i, o = float(np.mean(work.input_len)), float(np.mean(work.output_len))
        per = {"": 1.0, "out": o, "in": i, "in+out": i + o}
        return float(_request_rate(res, work, s) * per[_THROUGHPUTS[metric]])
    kind, stat = m.groups()
    if kind == "itl" and stat == "mean":  # every gap after the first token, equally weighted
        gaps = np.asarray(work.output_len, dtype=np.float64) - 1
        return float(np.sum(res.e2e_s - res.ttft_s) / max(float(np.sum(gaps)), 1.0))
    times = {"ttft": res.ttft_s, "tpot": res.tpot_s, "itl": res.tpot_s, "e2e": res.e2e_s}[kind]
    times = times[~np.isnan(times)]
    if times.size == 0:
        raise InputError(f"no simulated request has a {kind}", field="metric")
    return float(np.mean(times) if stat == "mean" else np.percentile(times, float(stat[1:])))


def _request_rate(res: SimResult, work: Workload, s: Setting) -> float:
    """Completed requests per second as a benchmark tool counts them (module docstring)."""
    n = work.requests
    span = float(res.stats["span_s"])
    if work.closed_loop:
        sustained = float(s.load) / float(np.mean(res.e2e_s))  # Little's law, no think time
    else:
        assert work.arrival_s is not None
        sustained = min(s.load, sustained_rps(np.asarray(work.arrival_s) + res.e2e_s))
    if s.stated_requests is None:
        return sustained
    if s.stated_requests <= n:
        return n / span
    return s.stated_requests / (span + (s.stated_requests - n) / sustained)


def error_stats(errors: Iterable[float]) -> dict[str, float]:
    """Of ln(simulated / measured): how many, the median and 90th percentile of their size
    (numpy's linear interpolation) and their signed median."""
    e = np.asarray(list(errors), dtype=np.float64)
    if e.size == 0:
        return {"n": 0.0}
    a = np.abs(e)
    return {
        "n": float(e.size),
        "median_abs": float(np.median(a)),
        "p90_abs": float(np.percentile(a, 90)),
        "signed_median": float(np.median(e)),
    }


def grouped_stats(
    rows: Sequence[ServingRow], errors: Sequence[float], key: Callable[[ServingRow], str]
) -> dict[str, dict[str, dict[str, float]]]:
    """`error_stats` for each group `key` gives (source, engine...), by metric family and
    over all its rows ("all")."""
    by: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r, e in zip(rows, errors, strict=True):
        g = by[key(r)]
        g[r.family or "?"].append(e)
        g["all"].append(e)
    return {k: {f: error_stats(v[f]) for f in (*FAMILIES, "all") if f in v} for k, v in by.items()}
