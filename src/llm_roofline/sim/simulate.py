"""Serving a traffic: a step-level simulator of continuous batching, like vLLM's and SGLang's.

Requests (`workload.Workload`: arrival times and lengths, or a closed loop of clients) reach
`replicas` independent instances of a deployment through a router (round-robin, or the
instance with the fewest requests). Each instance runs engine steps back to back while it has
work. One step, as vLLM's scheduler builds it:

1. every sequence past its prompt decodes one token (at most `max_seqs` sequences in flight);
2. the rest of the step's token budget (`max_batched_tokens`) goes to prompts, first to those
   already part-way through (chunked prefill), then to waiting requests in arrival order while
   a sequence slot and KV memory for the chunk are free;
3. the step's time is the engine's for that mix (`steptable.StepTable`: the decode sequences
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
time over its tokens after the first) and end-to-end latency; throughputs over the span from
the first arrival to the last completion; `capacity_rps`, the request rate the deployment
sustains, measured by the same simulator with every sequence slot kept full (a closed loop of
`max_seqs × replicas` clients, over the middle 60% of completions); `stable`, false when an
open loop offers more than that (the queue then grows without bound and the latency
percentiles are left out: they would only measure how long the run was); None when the
capacity was not measured (`with_capacity=False`: a caller that judges stability itself, as
`plan` does from one instance's capacity).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError
from llm_roofline._core.units import sig
from llm_roofline.deploy.fit_advice import fit_message, no_fit_reason
from llm_roofline.engine.collectives import kv_transfer_time
from llm_roofline.sim import scheduler
from llm_roofline.sim.step_predictor import StepTable
from llm_roofline.sim.workload import Workload, arrivals

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = [
    "ROUTERS",
    "SimResult",
    "capacity_rps",
    "disagg_pools",
    "kv_capacity",
    "parse_disagg",
    "simulate",
]

ROUTERS = ("round-robin", "least-loaded")
LATENCY_KEYS = (
    *(f"{m}_{q}_s" for m in ("ttft", "tpot") for q in ("p50", "p90", "p99")),
    *("ttft_mean_s", "tpot_mean_s", "e2e_p50_s", "e2e_p90_s", "e2e_p99_s", "e2e_mean_s"),
)


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


def kv_capacity(dep: Deployment, longest: int) -> int:
    """KV tokens one instance holds: what memory.max_batch leaves beside weights and
    activations, counted in sequences of the longest request and of shorter ones (up to 8,192
    tokens: a whole number of long sequences would waste the remainder), the most of those;
    refused when the longest request does not fit alone."""
    per = int(dep.max_batch(longest)) // dep.replicas
    if per < 1:
        # imports deployment: kept out of the import chain

        line = fit_message(dep.instance_deployment(), longest, 1)
        raise InputError(
            f"a request of {longest} tokens does not fit one instance: "
            + no_fit_reason(line, longest, per),
            field="input_len",
        )
    short = min(longest, 8192)
    return max(per * longest, int(dep.max_batch(short)) // dep.replicas * short)


def _table(dep: Deployment, max_seqs: int, longest: int, budget: int) -> StepTable:
    """The step times a run needs: up to `max_seqs` decoding, contexts up to the longest
    request, prompt tokens up to the budget."""
    return StepTable(dep, max_seqs=max_seqs, max_context=longest, max_tokens=max(budget, 2))


def parse_disagg(text: str) -> tuple[int, int]:
    """`P:D` → (P prefill instances, D decode instances), each a positive integer."""
    parts = str(text).split(":")
    try:
        p, d = (int(x) for x in parts)
    except ValueError:
        p = d = 0
    if len(parts) != 2 or p < 1 or d < 1:
        raise InputError(
            f"disagg must be P:D, prefill and decode instance counts (e.g. 1:3), got {text!r}",
            field="disagg",
        )
    return p, d


def disagg_pools(dep: Deployment, prefill: int, decode: int) -> tuple[Deployment, Deployment]:
    """`prefill` and `decode` instances, each one instance of `dep` (its chips over its
    replicas, its split): the prefill pool's deployment and the decode pool's."""
    for name, v in (("prefill", prefill), ("decode", decode)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InputError(f"{name} instances must be a positive integer, got {v!r}", "disagg")
    one = dep.instance_chips
    return (
        replace(dep, chips=one * prefill, replicas=prefill),
        replace(dep, chips=one * decode, replicas=decode),
    )


def _pools(
    dep: Deployment,
    prefill_pool: Deployment | None,
    inp: list[int],
    longest: int,
    max_seqs: int,
    budget: int,
    cache: dict[Any, Any] | None = None,
) -> list[scheduler.Pool]:
    """The scheduler's pools: `dep`'s instances serving whole requests, or, with a prefill
    pool, its instances running prompts and `dep`'s decoding them. `cache`: a dict kept
    between runs, holding each instance's KV capacity and step table by what they depend on."""

    def once(key: tuple[Any, ...], make: Any) -> Any:
        if cache is None:
            return make()
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def instance_key(d: Deployment) -> tuple[Any, ...]:
        return (
            id(d.spec),
            id(d.chip),
            d.instance_chips,
            d.tp,
            d.pp,
            d.ep,
            d.pad_heads,
            d.weight_dtype,
            d.kv_dtype,
            d.overlap,
            d.engine,
            d.comm,
            max_seqs,
            budget,
        )

    key = instance_key(dep)
    cap = once(("kv", *key, longest), lambda: kv_capacity(dep, longest))
    tab = once(("table", *key, longest), lambda: _table(dep, max_seqs, longest, budget))
    if prefill_pool is None:
        return [scheduler.Pool(tab, cap, max_seqs, budget, dep.replicas)]
    pf = prefill_pool
    for what, a, b in (
        ("hardware", pf.chip.id, dep.chip.id),
        ("model", pf.spec.name, dep.spec.name),
        ("kv_dtype", pf.kv_dtype, dep.kv_dtype),
    ):
        if a != b:
            raise InputError(
                f"the prefill and decode pools must share the {what} ({a} vs {b})", field=what
            )
    longest_prompt = max(inp)
    lens = np.unique(np.asarray(inp, dtype=np.int64))
    hand = kv_transfer_time(
        dep.model,
        get_dtype(dep.kv_dtype).bytes,
        dep.chip,
        senders=pf.parallel.sequence_kv_chips(pf.model),
        receivers=dep.parallel.sequence_kv_chips(dep.model),
        fleet=pf.chips + dep.chips,
        comm=dep.comm,
        tokens=lens.astype(np.float64),
    )
    times = dict(zip(lens.tolist(), hand.tolist(), strict=True))

    def transfer(tokens: int) -> float:
        return float(times[tokens])  # the prefill pool runs each request's own input, unpreempted

    pkey = instance_key(pf)
    pre = scheduler.Pool(
        once(
            ("prefill table", *pkey),
            lambda: StepTable(pf, max_seqs=1, max_context=2, max_tokens=max(budget, 2)),
        ),
        once(("kv", *pkey, longest_prompt + 1), lambda: kv_capacity(pf, longest_prompt + 1)),
        max_seqs,
        budget,
        pf.replicas,
        "prefill",
        transfer,
    )
    return [pre, scheduler.Pool(tab, cap, max_seqs, budget, dep.replicas, "decode")]


def simulate(
    dep: Deployment,
    work: Workload,
    *,
    max_seqs: int = 256,
    max_batched_tokens: int = 8192,
    router: str = "round-robin",
    slo_ttft_s: float | None = None,
    slo_tpot_s: float | None = None,
    with_capacity: bool = True,
    timeline_points: int = 2000,
    rate: float | None = None,
    prefill_pool: Deployment | None = None,
    cache: dict[Any, Any] | None = None,
    deadline: float | None = None,
) -> SimResult:
    """Serve `work` on `dep` (module docstring); `summary` holds the contract's keys. `rate`:
    the rate the open loop was drawn at (stability is judged on it; without it, on the
    arrivals' own rate when there are at least 100 of them). With `prefill_pool`, serving is
    disaggregated: prompts on its instances, decoding on `dep`'s (`disagg_pools` builds both
    from one deployment). `cache`: a dict the caller keeps between runs of the same instances
    (any replica count), so that their step tables are built once (`plan` does). `deadline`:
    a `time.perf_counter()` value past which the run stops (TimeLimitError)."""
    if router not in ROUTERS:
        raise InputError(f"router must be one of {', '.join(ROUTERS)}, got {router!r}", "router")
    for name, v in (("max_seqs", max_seqs), ("max_batched_tokens", max_batched_tokens)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InputError(f"{name} must be a positive integer, got {v!r}", field=name)
    if max_batched_tokens < max_seqs:
        raise InputError(
            f"max_batched_tokens ({max_batched_tokens}) must be at least max_seqs ({max_seqs}):"
            " every sequence in flight decodes a token each step",
            field="max_batched_tokens",
        )
    for name, s in (("slo_ttft", slo_ttft_s), ("slo_tpot", slo_tpot_s)):
        if s is not None and not (np.isfinite(s) and s > 0):
            raise InputError(f"{name} must be a positive time, got {s!r}", field=name)
    inp, out = work.input_len.tolist(), work.output_len.tolist()
    longest = max(i + o for i, o in zip(inp, out, strict=True))
    window = dep.model.max_context
    if window is not None and longest > window:
        raise InputError(
            f"a request of {longest} tokens (input + output) exceeds the model's context of "
            f"{window}: shorter lengths, or a workload made with max_context={window}",
            field="input_len",
        )
    pools = _pools(dep, prefill_pool, inp, longest, max_seqs, max_batched_tokens, cache)
    res = scheduler.run(pools, work, inp, out, router, timeline_points, deadline=deadline)
    ttft, tpot, e2e = res["ttft"], res["tpot"], res["e2e"]
    span = res["span"]
    n = work.requests
    summary: dict[str, Any] = {
        "requests": n,
        "output_tokens_per_s": float(sum(out)) / span,
        "request_throughput_rps": n / span,
    }
    ok = np.ones(n, dtype=bool)
    if slo_ttft_s is not None:
        ok &= ttft <= slo_ttft_s
    if slo_tpot_s is not None:
        ok &= np.where(np.isnan(tpot), True, tpot <= slo_tpot_s)
    summary["goodput_rps"] = float(ok.sum()) / span
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
    summary["capacity_rps"] = cap_rps
    offered = None if work.closed_loop else rate if rate is not None else _offered(work)
    # unknown (None) for an open loop when the capacity was not measured (with_capacity=False)
    stable = True if offered is None else None if cap_rps is None else offered < cap_rps
    summary["stable"] = stable
    summary["offered_rps"] = offered
    summary["disaggregated"] = prefill_pool is not None
    summary["prefill_instances"] = prefill_pool.replicas if prefill_pool is not None else 0
    summary["decode_instances"] = dep.replicas
    has_tpot = tpot[~np.isnan(tpot)]
    for key in LATENCY_KEYS:
        metric, stat = key.split("_")[0], key.split("_")[1]
        vals = {"ttft": ttft, "tpot": has_tpot, "e2e": e2e}[metric]
        if stable is False or vals.size == 0:
            summary[key] = None
        elif stat == "mean":
            summary[key] = float(np.mean(vals))
        else:
            summary[key] = float(np.percentile(vals, float(stat[1:])))
    stats = {
        "span_s": span,
        "steps": float(res["steps"]),
        "preemptions": float(res["preempted"]),
        "kv_tokens_per_instance": float(pools[-1].kv_cap),
        "little_l": res["occupancy"] / span,
        "little_lambda_w": float(np.sum(e2e)) / span,
    }
    return SimResult(summary, ttft, tpot, e2e, res["timeline"], stats)


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


def _offered(work: Workload) -> float | None:
    """The open loop's offered rate: requests over the span of their arrivals."""
    if work.closed_loop or work.arrival_s is None or work.requests < 100:
        return None  # a few requests are a finite burst, not a rate to sustain
    gap = float(work.arrival_s[-1] - work.arrival_s[0])
    return (work.requests - 1) / gap if gap > 0 else None  # one burst: no rate to sustain


def capacity_rps(
    dep: Deployment,
    work: Workload,
    *,
    max_seqs: int = 256,
    max_batched_tokens: int = 8192,
    prefill_pool: Deployment | None = None,
    pools: list[scheduler.Pool] | None = None,
    cache: dict[Any, Any] | None = None,
    per_client: int = 20,
    deadline: float | None = None,
) -> float:
    """The request rate `dep` (with `prefill_pool`: the two pools) sustains on `work`'s
    lengths: a closed loop keeping every sequence slot full, its completions per second over
    the middle 60% of them. Disaggregated, a quarter more clients than decode slots, so that
    the slots stay full while some requests are in their prompts or in transit. `pools`:
    the run's own, reused; `cache` as `simulate`'s; `per_client`: requests per client served
    (at least 4,000 in all); `deadline` as `simulate`'s."""
    clients = max_seqs * dep.replicas
    if prefill_pool is not None:
        clients += -(-clients // 4)
    n = max(4000, per_client * clients)
    idx = np.arange(n) % work.requests
    loop = Workload(
        input_len=work.input_len[idx],
        output_len=work.output_len[idx],
        arrival_s=None,
        concurrency=clients,
        description="saturating closed loop",
    )
    inp, out = loop.input_len.tolist(), loop.output_len.tolist()
    longest = max(i + o for i, o in zip(inp, out, strict=True))
    if pools is None:
        pools = _pools(dep, prefill_pool, inp, longest, max_seqs, max_batched_tokens, cache)
    stagger = _stagger(loop, pools[-1].table, dep.replicas, max_seqs)
    res = scheduler.run(pools, loop, inp, out, "least-loaded", 0, stagger, deadline)
    done = np.sort(res["finish"])
    a, b = done[int(0.2 * n)], done[int(0.8 * n)]
    return float((int(0.8 * n) - int(0.2 * n)) / (b - a)) if b > a else float("inf")


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

    cap = capacity_rps(dep, work, **server) if capacity is None else capacity
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
