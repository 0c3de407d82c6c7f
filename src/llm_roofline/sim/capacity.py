"""The request rate a deployment sustains (`sustained_capacity`, `simulate.capacity_rps`): the
highest Poisson rate at which the simulator's queue stays bounded.

A rate is sustained when an open loop at that rate is stationary: its requests wait no longer
at the end of the run than at its start (`waiting_drift`, `stationary`). The capacity is found
by probing: open-loop runs of the workload's lengths at Poisson rates (one draw of unit gaps,
scaled to each rate, so that the probes differ only in their rate), starting from the rate a
saturating closed loop completes (`saturated_rps`: every sequence slot kept full), growing by
`GROW` until a probe is not stationary (or shrinking until one is), then bisecting until the
bracket is within `TOLERANCE`; the capacity is the highest rate judged stationary.

The closed loop alone is not the capacity: with every slot full its clients fall into step
(many prompts admitted at once, then decoding together) and it completes fewer requests than
Poisson arrivals just below saturation keep flowing through (Llama 3.1 8B on one H100, ideal
engine, 512 → 128 tokens: 78.8 requests/s closed, about 96 open).

The stationarity test (docs/planning.md, "Capacity and stability"): the requests in arrival
order, the first tenth left out (the server fills up), the rest in thirds; the waiting seen by
each third is the lower quartile of its times to first token. The drift is the late third's
waiting less the early third's, over the time between their median arrivals: seconds of extra
waiting per second of arrivals. A queue that grows without bound has a drift of about
1 − μ/λ (it falls behind by that share of the arrivals), and every request waits behind it,
the quickest quarter included; a stationary one has a drift near 0, even when a burst (a
100,000-token prompt holding the queue for seconds) makes a third's median wait jump: such a
burst delays fewer than three quarters of a third's requests, so the lower quartile does not
move (Llama 3.1 8B on one H100, sharegpt-like 512 → 128 tokens at 30 requests/s: the medians
of the thirds drift by 3.9%, their lower quartiles by 0.0%). A run is stationary when its
drift is at most `DRIFT_LIMIT`, 1%: a server that falls behind by fewer than one request in a
hundred is not told apart from a stable one by a run of a few thousand requests.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from llm_roofline.sim.event_loop import run
from llm_roofline.sim.metrics import sustained_rps
from llm_roofline.sim.workload import Workload

if TYPE_CHECKING:
    from llm_roofline.sim.entities import Pool
    from llm_roofline.sim.step_predictor import StepTable

__all__ = [
    "DRIFT_LIMIT",
    "GROW",
    "MIN_JUDGED",
    "TOLERANCE",
    "capacity_clients",
    "capacity_requests",
    "saturated_rps",
    "stationary",
    "sustained_capacity",
    "waiting_drift",
]

DRIFT_LIMIT = 0.01  # the waiting may grow by at most 1% of the time elapsed
QUANTILE = 25  # the waiting a third's requests see: its lower quartile of times to first token
TOLERANCE = 0.03  # the probes stop when the bracket's ends are within 3% of each other
GROW = 1.2  # a probe's step while the capacity is not yet bracketed
MAX_PROBES = 12
MIN_JUDGED = 100  # fewer requests are a burst: no drift is judged from them
START_PER_CLIENT = 5  # the closed loop the probes start from: requests a client
PROBE_REQUESTS = 4000  # an open-loop probe serves at least this many requests
PROBE_PER_INSTANCE = 1000  # and 1,000 an instance (prefill and decode ones counted)


def waiting_drift(arrival_s: np.ndarray, ttft_s: np.ndarray) -> float | None:
    """Seconds of extra waiting per second of arrivals between the early and the late third
    of a run (module docstring); None for fewer than `MIN_JUDGED` requests or arrivals that
    all fall at one time."""
    n = int(np.size(arrival_s))
    if n < MIN_JUDGED:
        return None
    order = np.argsort(arrival_s, kind="stable")
    at = np.asarray(arrival_s, dtype=np.float64)[order]
    wait = np.asarray(ttft_s, dtype=np.float64)[order]
    lo, a, b = n // 10, n // 10 + (n - n // 10) // 3, n - (n - n // 10) // 3
    t_early, t_late = float(np.median(at[lo:a])), float(np.median(at[b:]))
    if not t_late > t_early:
        return None
    q = QUANTILE
    return float(np.percentile(wait[b:], q) - np.percentile(wait[lo:a], q)) / (t_late - t_early)


def stationary(arrival_s: np.ndarray, ttft_s: np.ndarray) -> bool | None:
    """Whether an open loop's queue stayed bounded: its waiting drift at most `DRIFT_LIMIT`
    (None when `waiting_drift` cannot judge)."""
    d = waiting_drift(arrival_s, ttft_s)
    return None if d is None else d <= DRIFT_LIMIT


def _stagger(work: Workload, table: StepTable, replicas: int, max_seqs: int) -> float:
    """How far apart the capacity run's clients start: one request's time at that many
    sequences in flight (the engine's, from the table) over the clients, so that they are
    spread over their requests' lives as in a steady state. Started together with equal
    lengths they would stay in lockstep (every prompt in one step, every decode together),
    and the rate measured would depend on where the waves fall. (A closed loop the user
    asks for starts its clients together, as serving benchmarks do.)"""
    if not work.closed_loop:
        return 0.0
    clients = int(work.concurrency or 1)
    per = max(1, min(max_seqs, -(-clients // replicas)))
    i = float(np.mean(work.input_len))
    o = float(np.mean(work.output_len))
    latency = table.prefill_time(min(i, float(table.tok[-1]))) + o * table.step_time(
        per, i + o / 2, 0
    )
    return latency / clients


def capacity_clients(max_seqs: int, replicas: int, disaggregated: bool = False) -> int:
    """The closed loop's clients: one per sequence slot of the (decode) instances, and,
    disaggregated, a quarter more, so that the slots stay full while some requests are in
    their prompts or in transit."""
    clients = max_seqs * replicas
    return clients + (-(-clients // 4) if disaggregated else 0)


def capacity_requests(
    max_seqs: int, replicas: int, disaggregated: bool = False, per_client: int = 20
) -> int:
    """The requests one capacity run serves (the closed loop, and each open-loop probe):
    `per_client` per client of the closed loop, at least 4,000 (the work it costs, which the
    web bounds before it asks)."""
    return max(4000, per_client * capacity_clients(max_seqs, replicas, disaggregated))


class _Runs:
    """The capacity runs on `pools` (the last one decoding, `simulate`'s) of one workload's
    lengths, cycled to `capacity_requests`: the closed loop and the open-loop probes."""

    def __init__(
        self, pools: list[Pool], work: Workload, per_client: int, deadline: float | None
    ) -> None:
        last = pools[-1]
        self.replicas, self.max_seqs = last.replicas, last.max_seqs
        self.clients = capacity_clients(self.max_seqs, self.replicas, len(pools) > 1)
        n = capacity_requests(self.max_seqs, self.replicas, len(pools) > 1, per_client)
        idx = np.arange(n) % work.requests
        self.inp_a, self.out_a = work.input_len[idx], work.output_len[idx]
        self.inp, self.out = self.inp_a.tolist(), self.out_a.tolist()
        self.pools = pools
        self.deadline = deadline
        instances = sum(p.replicas for p in pools)
        self.n_probe = min(n, max(PROBE_REQUESTS, PROBE_PER_INSTANCE * instances))
        self.at = np.cumsum(np.random.default_rng(0).exponential(1.0, self.n_probe))  # 1/s

    def closed(self) -> float:
        """Completions per second of the saturating closed loop (the middle 60%)."""
        loop = Workload(self.inp_a, self.out_a, None, self.clients, "saturating closed loop")
        stagger = _stagger(loop, self.pools[-1].table, self.replicas, self.max_seqs)
        res = run(self.pools, loop, self.inp, self.out, "least-loaded", 0, stagger, self.deadline)
        return sustained_rps(res.finish)

    def probe(self, rate: float) -> tuple[bool, float]:
        """An open loop at `rate`: whether it stayed stationary, and its completions per
        second (the middle 60%)."""
        at, k = self.at / rate, self.n_probe
        w = Workload(self.inp_a[:k], self.out_a[:k], at, None, f"capacity probe at {rate:g}/s")
        res = run(self.pools, w, self.inp[:k], self.out[:k], "least-loaded", 0, 0.0, self.deadline)
        return stationary(at, res.ttft) is not False, sustained_rps(res.finish)


def saturated_rps(
    pools: list[Pool], work: Workload, *, per_client: int = 20, deadline: float | None = None
) -> float:
    """The rate a saturating closed loop completes on `pools` (`simulate`'s), `work`'s
    lengths: every sequence slot kept full (`capacity_clients`), its completions per second
    over the middle 60% of them. `per_client`: requests per client (`capacity_requests`);
    `deadline`: a `time.perf_counter()` value past which the run stops (TimeLimitError)."""
    return _Runs(pools, work, per_client, deadline).closed()


def sustained_capacity(
    pools: list[Pool], work: Workload, *, per_client: int = 20, deadline: float | None = None
) -> float:
    """The highest Poisson rate at which `pools` keep their queue bounded on `work`'s
    lengths (module docstring); arguments as `saturated_rps`'s, the closed loop it starts
    from serving at most `START_PER_CLIENT` requests a client (a start, not the answer), each
    probe `PROBE_REQUESTS` or `PROBE_PER_INSTANCE` an instance, the more."""
    runs = _Runs(pools, work, min(per_client, START_PER_CLIENT), deadline)
    start = runs.closed()
    if not math.isfinite(start) or start <= 0:
        return start
    lo, hi, rate, served = 0.0, math.inf, start, start
    for _ in range(MAX_PROBES):
        ok, got = runs.probe(rate)
        if ok:
            lo = rate
        else:
            hi, served = rate, got
        if lo > 0 and hi <= lo * (1 + TOLERANCE):
            break
        rate = _next_rate(lo, hi, served)
    return lo if lo > 0 else served


def _next_rate(lo: float, hi: float, served: float) -> float:
    """The next probe's rate between the highest stationary rate `lo` (0: none yet) and the
    lowest one that was not, `hi` (inf: none yet), where that probe completed `served`
    requests a second. An overloaded server still completes about its capacity, so `served`
    points at the answer: tried first, kept within the bracket's inner part."""
    if math.isinf(hi):
        return lo * GROW
    if lo == 0:
        return max(hi / GROW, min(served, hi / (1 + TOLERANCE)))
    mid = math.sqrt(lo * hi)
    return served if lo * (1 + TOLERANCE / 2) <= served <= mid else mid
