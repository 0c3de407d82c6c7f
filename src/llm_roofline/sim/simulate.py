"""Serving a traffic: a step-level simulator of continuous batching, like vLLM's and SGLang's.

Requests (`workload.Workload`: arrival times and lengths, or a closed loop of clients) reach
`replicas` independent instances of a deployment through a router (round-robin, or the
instance with the fewest requests). Each instance runs engine steps back to back while it has
work. One step, as vLLM's scheduler builds it:

1. every sequence past its prompt decodes one token (at most `max_seqs` sequences in flight);
2. the rest of the step's token budget (`max_batched_tokens`) goes to prompts, first to those
   already part-way through (chunked prefill), then to waiting requests in arrival order while
   a sequence slot and KV memory for the chunk are free;
3. the step's time is the engine's for that mix (`step_predictor.StepTable`: the decode sequences
   at their mean context plus the prompt tokens; a prefill pass alone when nothing decodes);
4. a request whose prompt completes emits its first token at the end of the step (its time to
   first token); a decoding one that reaches its output length leaves and frees its KV.

KV memory: an instance holds `kv_tokens` tokens of KV (what its memory leaves beside weights
and activations, `Deployment.max_batch` at the workload's longest request). When the decode
tokens of a step do not fit, the most recently admitted request is preempted, as vLLM does by
default: its KV is freed and it goes back to the head of the queue to recompute its prompt and
the tokens it had generated (its first-token time stays the first one).

Disaggregated serving (`prefill_pool`): prompts run on a pool of prefill instances (their own
deployment: chips and split) and decoding on `dep`'s instances; each prompt's first token comes
from its prefill instance, and its KV cache then crosses to a decode instance over the link
joining the pools (`collectives.kv_transfer_time`: the scale-up link when both pools fit one
scale-up domain, the scale-out network otherwise; one hand-off at a time per prefill
instance), where it waits for a slot and KV memory. The wait and the transfer fall between the
first token and the second, so they count in the time per output token, as a client sees it.
The prefill instance frees the prompt's KV when the prompt completes (the hand-off is assumed
to stream from a buffer).

Figures: the percentiles of time to first token, time per output token (a request's decode
time over its tokens after the first) and end-to-end latency, over every request simulated;
the throughput as benchmark tools compute it (`request_throughput_rps`, `output_tokens_per_s`:
completed requests and output tokens over the span from the first send to the last
completion, as `vllm bench serve` and `sglang.bench_serving` report them) and in the steady
state (`steady_request_rps`, `steady_output_tokens_per_s`: the middle 60% of completions, the
start and the drain left out); `capacity_rps`, the highest Poisson rate the deployment serves
with its queue bounded (`capacity.py`); `stable`, false when an open loop offers more than
that (the queue then grows through the run: the percentiles are still those of the requests
simulated, as a benchmark's are, but they grow with the run's length); None when the
capacity was not measured (`with_capacity=False`: a caller that judges stability itself, as
`plan` does). `warnings` says when the figures rest on few requests or on a growing queue.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_roofline._core.checks import batched_tokens, positive_int
from llm_roofline._core.errors import InputError
from llm_roofline._core.units import sig
from llm_roofline.sim.capacity import (
    capacity_clients,
    capacity_requests,
    saturated_rps,
    sustained_capacity,
)
from llm_roofline.sim.entities import Pool
from llm_roofline.sim.event_loop import Watch, run
from llm_roofline.sim.metrics import (
    LATENCY_KEYS,
    RunResult,
    goodput_rps,
    latency_summary,
    offered_rps,
    run_warnings,
    steady_rates,
)
from llm_roofline.sim.pools import build_pools, disagg_pools, kv_capacity, parse_disagg
from llm_roofline.sim.router import ROUTERS as ROUTER_TYPES
from llm_roofline.sim.serving_engines import DEFAULT_ENGINE, ServingEngine
from llm_roofline.sim.serving_engines import serving_engine as engine_settings
from llm_roofline.sim.workload import Workload, arrivals

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = [
    "LATENCY_KEYS",
    "LOAD_FRACTIONS",
    "ROUTERS",
    "SimResult",
    "capacity_clients",
    "capacity_requests",
    "capacity_rps",
    "disagg_pools",
    "kv_capacity",
    "latency_against_load",
    "parse_disagg",
    "saturated_rps",
    "simulate",
]

ROUTERS = tuple(ROUTER_TYPES)  # the routers' names: round-robin, least-loaded


@dataclass
class SimResult:
    """What `simulate` measured: `summary` (the JSON contract's keys), per-request times, and
    the queue and KV occupancy over time of the first instance (of the decode pool when
    disaggregated)."""

    summary: dict[str, Any]
    ttft_s: np.ndarray
    tpot_s: np.ndarray
    e2e_s: np.ndarray
    timeline: dict[str, np.ndarray] = field(default_factory=dict)
    stats: dict[str, float] = field(default_factory=dict)


def _check_server(
    router: str,
    max_seqs: int,
    max_batched_tokens: int,
    slo_ttft_s: float | None,
    slo_tpot_s: float | None,
) -> None:
    """Refuse a router, server limits or latency targets `simulate` cannot take."""
    if router not in ROUTERS:
        raise InputError(f"router must be one of {', '.join(ROUTERS)}, got {router!r}", "router")
    positive_int(max_seqs, "max_seqs")
    positive_int(max_batched_tokens, "max_batched_tokens")
    batched_tokens(max_seqs, max_batched_tokens)
    for name, s in (("slo_ttft", slo_ttft_s), ("slo_tpot", slo_tpot_s)):
        if s is not None and not (np.isfinite(s) and s > 0):
            raise InputError(f"{name} must be a positive time, got {s!r}", field=name)


def _longest(dep: Deployment, inp: list[int], out: list[int]) -> int:
    """The longest request's tokens (input + output), refused past the model's context."""
    longest = max(i + o for i, o in zip(inp, out, strict=True))
    window = dep.model.max_context
    if window is not None and longest > window:
        raise InputError(
            f"a request of {longest} tokens (input + output) exceeds the model's context of "
            f"{window}: shorter lengths, or a workload made with max_context={window}",
            field="input_len",
        )
    return longest


# size: the public call's settings (the CLI's flags, the web's fields), each by keyword
def simulate(
    dep: Deployment,
    work: Workload,
    *,
    max_seqs: int | None = None,
    max_batched_tokens: int | None = None,
    router: str = "round-robin",
    slo_ttft_s: float | None = None,
    slo_tpot_s: float | None = None,
    with_capacity: bool = True,
    timeline_points: int = 2000,
    rate: float | None = None,
    prefill_pool: Deployment | None = None,
    cache: dict[Any, Any] | None = None,
    deadline: float | None = None,
    serving_engine: str | ServingEngine = DEFAULT_ENGINE,
    watch: Watch | None = None,
    table_context: int = 0,
    **overrides: Any,
) -> SimResult:
    """Serve `work` on `dep` (module docstring); `summary` holds the contract's keys. `rate`:
    the rate the open loop was drawn at (stability is judged on it; without it, on the
    arrivals' own rate when there are at least 100 of them). With `prefill_pool`, serving is
    disaggregated: prompts on its instances, decoding on `dep`'s (`disagg_pools` builds both
    from one deployment). `cache`: a dict the caller keeps between runs of the same instances
    (any replica count), so that their step tables are built once (`plan` does). `deadline`:
    a `time.perf_counter()` value past which the run stops (TimeLimitError). `watch`: the event
    loop's watcher (`event_loop.run`), which may stop the run by raising. `table_context`: the
    step tables' longest context when above the work's longest request (`pools.build_pools`).
    `serving_engine`: the engine whose settings serve (`serving_engines.ENGINES`: its
    admission, KV memory, fixed costs and scheduling; "roofline" for the simulator before
    issue 27), `max_seqs`, `max_batched_tokens` and `overrides` (`serving_engines.OVERRIDES`)
    each replacing one of its defaults; `summary["serving_engine"]` holds the settings used."""
    eng = engine_settings(
        serving_engine,
        prefill_pool or dep,
        max_seqs=max_seqs,
        max_batched_tokens=max_batched_tokens,
        **overrides,
    )
    max_seqs, max_batched_tokens = eng.max_seqs, eng.max_batched_tokens
    _check_server(router, max_seqs, max_batched_tokens, slo_ttft_s, slo_tpot_s)
    inp, out = work.input_len.tolist(), work.output_len.tolist()
    longest = _longest(dep, inp, out)
    pools = build_pools(
        dep, prefill_pool, inp, longest, max_seqs, max_batched_tokens, cache, eng, table_context
    )
    res = run(pools, work, inp, out, router, timeline_points, deadline=deadline, watch=watch)
    cap_rps = (
        capacity_rps(
            dep,
            work,
            max_seqs=max_seqs,
            max_batched_tokens=max_batched_tokens,
            prefill_pool=prefill_pool,
            pools=pools,
            deadline=deadline,
        )
        if with_capacity
        else None
    )
    offered = None if work.closed_loop else rate if rate is not None else offered_rps(work)
    # unknown (None) for an open loop when the capacity was not measured (with_capacity=False)
    stable = True if offered is None else None if cap_rps is None else offered <= cap_rps
    steady_rps, steady_tok = steady_rates(res.finish, work.output_len)
    summary: dict[str, Any] = {
        "requests": work.requests,
        "output_tokens_per_s": float(sum(out)) / res.span,
        "request_throughput_rps": work.requests / res.span,
        "steady_request_rps": steady_rps,
        "steady_output_tokens_per_s": steady_tok,
        "goodput_rps": goodput_rps(res, slo_ttft_s, slo_tpot_s),
        "capacity_rps": cap_rps,
        "stable": stable,
        "offered_rps": offered,
        "disaggregated": prefill_pool is not None,
        "prefill_instances": prefill_pool.replicas if prefill_pool is not None else 0,
        "decode_instances": dep.replicas,
        **latency_summary(res),
        "warnings": run_warnings(work.requests, stable, offered, cap_rps),
        "serving_engine": eng.as_dict(),
    }
    return SimResult(summary, res.ttft, res.tpot, res.e2e, res.timeline, _stats(res, pools))


def _stats(res: RunResult, pools: list[Pool]) -> dict[str, float]:
    """What the run counted, for checks: its span and steps, preemptions, the KV tokens of a
    (decode) instance, and Little's law's two sides (L from the queues, plus each request's
    fixed cost outside the engine, during which it is in the system but in no queue; λW from
    the times)."""
    outside = res.e2e.size * pools[0].request_overhead_s
    return {
        "span_s": res.span,
        "steps": float(res.steps),
        "preemptions": float(res.preempted),
        "kv_tokens_per_instance": float(pools[-1].kv_cap),
        "little_l": (res.occupancy + outside) / res.span,
        "little_lambda_w": float(np.sum(res.e2e)) / res.span,
    }


# size: the public call's settings, each by keyword, as `simulate` takes them
def capacity_rps(
    dep: Deployment,
    work: Workload,
    *,
    max_seqs: int | None = None,
    max_batched_tokens: int | None = None,
    prefill_pool: Deployment | None = None,
    pools: list[Pool] | None = None,
    cache: dict[Any, Any] | None = None,
    per_client: int = 20,
    deadline: float | None = None,
    closed_loop: bool = False,
    serving_engine: str | ServingEngine = DEFAULT_ENGINE,
    table_context: int = 0,
) -> float:
    """The request rate `dep` (with `prefill_pool`: the two pools) sustains on `work`'s
    lengths: the highest Poisson rate at which its queue stays bounded
    (`capacity.sustained_capacity`: a closed loop, then some five open-loop probes of 4,000
    requests or more). `pools`: the run's own, reused; `cache` as `simulate`'s;
    `per_client`: requests per client of the saturating closed loop (at least 4,000 in all,
    `capacity_requests`; the search starts from one of at most 5 a client); `deadline` as
    `simulate`'s. `closed_loop`: that closed loop's rate alone (`capacity.saturated_rps`),
    one run: a cheaper estimate, usually at or below the capacity (8B on one H100, ideal
    engine, 512 → 128 tokens: 78.8 against about 100 requests/s). `serving_engine`: whose
    settings serve, as `simulate`'s (`max_seqs` and `max_batched_tokens` replace its
    defaults), so that a capacity and the simulations it judges run on one engine.
    `table_context` as `simulate`'s (the step tables of longer requests, from the cache)."""
    if pools is None:
        eng = engine_settings(
            serving_engine,
            prefill_pool or dep,
            max_seqs=max_seqs,
            max_batched_tokens=max_batched_tokens,
        )
        idx = np.arange(capacity_requests(eng.max_seqs, dep.replicas)) % work.requests
        inp, out = work.input_len[idx].tolist(), work.output_len[idx].tolist()
        longest = max(i + o for i, o in zip(inp, out, strict=True))
        pools = build_pools(
            dep,
            prefill_pool,
            inp,
            longest,
            eng.max_seqs,
            eng.max_batched_tokens,
            cache,
            eng,
            table_context,
        )
    measure = saturated_rps if closed_loop else sustained_capacity
    return measure(pools, work, per_client=per_client, deadline=deadline)


LOAD_FRACTIONS = (0.1, 0.25, 0.4, 0.55, 0.7, 0.8, 0.9, 0.95)


def latency_against_load(
    dep: Deployment,
    work: Workload,
    *,
    fractions: tuple[float, ...] = LOAD_FRACTIONS,
    requests: int = 2000,
    seed: int = 0,
    capacity: float | None = None,
    **server: Any,
) -> list[dict[str, Any]]:
    """The summary at Poisson rates that are `fractions` of the capacity (`capacity`, when the
    caller has measured it), on `work`'s lengths (its first `requests`, cycled): the
    latency-against-load curve."""

    if capacity is None:  # the run's own capacity, measured with its serving engine
        capacity = simulate(dep, work, timeline_points=0, **server).summary["capacity_rps"]
    cap = float(capacity)
    n = max(requests, 2)
    idx = np.arange(n) % work.requests
    rows = []
    for f in fractions:
        rate = f * cap
        at = arrivals(n, rate, rng=np.random.default_rng(seed))
        w = Workload(
            input_len=work.input_len[idx],
            output_len=work.output_len[idx],
            arrival_s=at,
            concurrency=None,
            description=f"Poisson at {sig(rate)} requests/s",
        )
        res = simulate(dep, w, with_capacity=False, timeline_points=0, rate=rate, **server)
        rows.append({**res.summary, "load": f, "rate_rps": rate, "capacity_rps": cap})
    return rows
