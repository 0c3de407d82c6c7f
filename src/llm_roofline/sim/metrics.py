"""What a run measured: per-request times from the requests' records (`RunResult`), the
watched instance's timeline, and the figures drawn from them: latency percentiles, goodput
within targets, the offered rate, the steady-state rates (completions and their output tokens
over the middle 60% of completions) and the warnings a run's figures carry."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llm_roofline.sim.entities import Requests
from llm_roofline.sim.workload import Workload

__all__ = [
    "FEW_REQUESTS",
    "LATENCY_KEYS",
    "RunResult",
    "Timeline",
    "goodput_rps",
    "latency_summary",
    "offered_rps",
    "request_times",
    "run_result",
    "run_warnings",
    "steady_rates",
    "sustained_rps",
]

FEW_REQUESTS = 100  # percentiles from fewer requests carry a warning

LATENCY_KEYS = (
    *(f"{m}_{q}_s" for m in ("ttft", "tpot") for q in ("p50", "p90", "p99")),
    *("ttft_mean_s", "tpot_mean_s", "e2e_p50_s", "e2e_p90_s", "e2e_p99_s", "e2e_mean_s"),
)


class Timeline:
    """One instance, one point per step: its end time, the requests waiting (as the step
    began: those arriving during the step are routed after it), those running and the share
    of KV memory in use. The event loop appends to its lists."""

    __slots__ = ("kv", "q", "run", "t")

    def __init__(self) -> None:
        self.t: list[float] = []
        self.q: list[int] = []
        self.run: list[int] = []
        self.kv: list[float] = []

    def sampled(self, points: int) -> dict[str, np.ndarray]:
        """Every (steps // points)-th point (all of them when fewer); empty when none."""
        if not self.t:
            return {}
        step = max(1, len(self.t) // max(points, 1))
        return {
            "t_s": np.asarray(self.t[::step]),
            "waiting": np.asarray(self.q[::step]),
            "running": np.asarray(self.run[::step]),
            "kv_share": np.asarray(self.kv[::step]),
        }


@dataclass(frozen=True)
class RunResult:
    """Per-request times (s: to the first token, per output token after it, end to end, and
    the finish), the span from the first arrival to the last finish, and what the loop
    counted: steps, preemptions, ∫ requests in the system dt (Little's L × span)."""

    ttft: np.ndarray
    tpot: np.ndarray
    e2e: np.ndarray
    finish: np.ndarray
    span: float
    steps: int
    preempted: int
    occupancy: float
    timeline: dict[str, np.ndarray] = field(default_factory=dict)


def run_result(
    reqs: Requests,
    *,
    steps: int,
    preempted: int,
    occupancy: float,
    timeline: dict[str, np.ndarray],
) -> RunResult:
    """The per-request times from the records of a finished run."""
    a, f, z = np.asarray(reqs.arrival), np.asarray(reqs.first), np.asarray(reqs.finish)
    ttft, tpot = request_times(a, f, z, np.asarray(reqs.out, dtype=np.float64))
    span = float(np.max(z) - np.min(a))  # > 0: every request takes at least one step
    return RunResult(ttft, tpot, z - a, z, span, steps, preempted, occupancy, timeline)


def request_times(
    arrival: np.ndarray, first: np.ndarray, finish: np.ndarray, out: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each request's time to first token (first - arrival) and time per output token
    ((finish - first) / (out - 1); NaN for a request of one output token).

    >>> t, p = request_times(np.array([0.0, 1.0]), np.array([0.5, 1.2]),
    ...                      np.array([2.5, 1.2]), np.array([5.0, 1.0]))
    >>> t.tolist(), p.tolist()[0], bool(np.isnan(p[1]))
    ([0.5, 0.19999999999999996], 0.5, True)
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        tpot = np.where(out > 1, (finish - first) / (out - 1), np.nan)
    return first - arrival, tpot


def goodput_rps(res: RunResult, slo_ttft_s: float | None, slo_tpot_s: float | None) -> float:
    """Requests per second within both targets (a request of one output token has no TPOT
    and meets any TPOT target)."""
    ok = np.ones(res.ttft.size, dtype=bool)
    if slo_ttft_s is not None:
        ok &= res.ttft <= slo_ttft_s
    if slo_tpot_s is not None:
        ok &= np.where(np.isnan(res.tpot), True, res.tpot <= slo_tpot_s)
    return float(ok.sum()) / res.span


def latency_summary(res: RunResult) -> dict[str, Any]:
    """`LATENCY_KEYS`: percentiles and means of TTFT, TPOT (requests that have one) and
    end-to-end latency over every request of the run (a run whose queue grew included, as a
    benchmark reports it: `stable` and the warnings say so); None when there is no value to
    summarise (no request had a second token)."""
    tpot = res.tpot[~np.isnan(res.tpot)]
    vals_of = {"ttft": res.ttft, "tpot": tpot, "e2e": res.e2e}
    summary: dict[str, Any] = {}
    for key in LATENCY_KEYS:
        metric, stat = key.split("_")[0], key.split("_")[1]
        vals = vals_of[metric]
        if vals.size == 0:
            summary[key] = None
        elif stat == "mean":
            summary[key] = float(np.mean(vals))
        else:
            summary[key] = float(np.percentile(vals, float(stat[1:])))
    return summary


def run_warnings(
    requests: int, stable: bool | None, offered: float | None, capacity: float | None
) -> list[str]:
    """What a reader of the figures should know: percentiles from fewer than `FEW_REQUESTS`
    requests, a throughput over one request, a queue that grew through the run."""
    notes = []
    if requests == 1:
        notes.append(
            "one request: its latencies are its own, and its throughput is one request over "
            "its latency, not a rate the deployment sustains"
        )
    elif requests < FEW_REQUESTS:
        notes.append(
            f"only {requests} requests: percentiles from fewer than {FEW_REQUESTS} are rough "
            f"(the p99 is about the slowest request); more requests make them firm"
        )
    if stable is False and offered is not None and capacity is not None:
        notes.append(
            f"{offered:.4g} requests/s offered, more than the {capacity:.4g} this deployment "
            "sustains: the queue grew through the run, so the percentiles are those of the "
            f"{requests} requests simulated and grow with the run's length"
        )
    return notes


def steady_rates(finish: np.ndarray, output_len: np.ndarray) -> tuple[float | None, float | None]:
    """Requests and output tokens completed per second over the middle 60% of completions
    (the run's start and its drain left out): the steady state a long run settles to. None
    for fewer than 10 requests or completions that fall at one time."""
    n = int(finish.size)
    if n < 10:
        return None, None
    order = np.argsort(finish, kind="stable")
    a, b = int(0.2 * n), int(0.8 * n)
    t = float(finish[order[b]] - finish[order[a]])
    if not t > 0:
        return None, None
    tokens = float(np.sum(np.asarray(output_len)[order[a + 1 : b + 1]]))
    return (b - a) / t, tokens / t


def offered_rps(work: Workload) -> float | None:
    """The open loop's offered rate: requests over the span of their arrivals."""
    if work.closed_loop or work.arrival_s is None or work.requests < 100:
        return None  # a few requests are a finite burst, not a rate to sustain
    gap = float(work.arrival_s[-1] - work.arrival_s[0])
    return (work.requests - 1) / gap if gap > 0 else None  # one burst: no rate to sustain


def sustained_rps(finish: np.ndarray) -> float:
    """Completions per second over the middle 60% of them (a saturating run's rate, its
    start and its drain left out)."""
    n = finish.size
    done = np.sort(finish)
    a, b = done[int(0.2 * n)], done[int(0.8 * n)]
    return float((int(0.8 * n) - int(0.2 * n)) / (b - a)) if b > a else float("inf")
