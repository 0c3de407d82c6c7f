"""The API route of the page's simulation view (`/api/simulate`): the request's deployment
(`request_deployment.deployment_of`; disaggregated, its prefill and decode pools, each
instance of its own shape: `pool_shapes.shaped_pools`) served a traffic step by step by the
library's simulator, within a bound on the work one web request may ask for. The function's
name is part of the OpenAPI contract (its operationId is derived from it)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from fastapi import APIRouter

from llm_roofline._core.checks import batched_tokens
from llm_roofline._core.errors import InputError
from llm_roofline._core.units import ms
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.sim.serving_engines import ServingEngine
from llm_roofline.sim.workload import Workload
from llm_roofline.web.json_values import json_body
from llm_roofline.web.request_deployment import deployment_of
from llm_roofline.web.schemas import SimulateRequest
from llm_roofline.web.schemas_sim_answers import SimulateAnswer

__all__ = ["api_simulate"]

api_simulate = APIRouter(prefix="/api")


# /api/simulate answers in about a second, at worst ten or so. The simulator's time grows
# with the engine steps it runs (some 500,000 a second) and with the requests it routes (each
# costs some steps, more with more instances), so a request is refused (a 400 naming the
# field) when that could exceed SIM_STEPS step-equivalents, counting each request served alone
# (a closed loop of one client, or a very light open loop) in its own run and in the
# latency-against-load runs, and every sequence slot full in the capacity run; and when it
# has more than SIM_INSTANCES instances. The curve is LOAD_FRACTIONS of the capacity, with
# fewer requests for long ones; the timeline at most TIMELINE_POINTS points.
LOAD_FRACTIONS = (0.1, 0.25, 0.4, 0.55, 0.7, 0.8, 0.9)
LOAD_REQUESTS = (50, 400)  # requests per point of the curve: the least and the most
LOAD_STEPS = 60_000  # steps alone per point of the curve, when that leaves more than 50
TIMELINE_POINTS = 300
SIM_STEPS = 5_000_000
SIM_INSTANCES = 64


def _timeline(tl: dict[str, Any], points: int = TIMELINE_POINTS) -> dict[str, Any]:
    """The first instance's queue and KV share over the run, at most `points` of its samples
    (evenly spaced, the first and the last kept)."""
    keys = ("t_s", "waiting", "running", "kv_share")
    if not tl or not len(tl["t_s"]):
        return {k: [] for k in keys}
    n = len(tl["t_s"])
    idx = np.unique(np.linspace(0, n - 1, min(n, points)).round().astype(np.int64))
    return {k: json_body(np.asarray(tl[k])[idx]) for k in keys}


def _curve_requests(
    req: SimulateRequest, dep: Deployment, pf: Deployment | None, eng: ServingEngine
) -> int:
    """How many requests each point of the latency-against-load curve serves; a 400 when the
    whole request could run more than SIM_STEPS engine steps (see above). Only a bound on the
    work one request may ask for: every figure comes from the simulator."""
    from llm_roofline.sim.simulate import capacity_requests

    disaggregated = pf is not None
    instances = dep.replicas + (pf.replicas if pf is not None else 0)
    if instances > SIM_INSTANCES:  # the simulator's events look at every instance
        raise InputError(
            f"{instances} instances is over the {SIM_INSTANCES} one web request may simulate: "
            "fewer chips or replicas (`llm-roofline simulate` has no such limit)",
            field="disagg" if disaggregated else "replicas" if req.replicas else "chips",
        )
    alone = req.output_len + -(-req.input_len // eng.max_batched_tokens)  # a request's steps
    lo, hi = LOAD_REQUESTS
    per_point = max(lo, min(hi, LOAD_STEPS // alone))
    fit = int(dep.max_batch(req.input_len + req.output_len)) // dep.replicas
    slots = max(1, min(eng.max_seqs, fit)) * dep.replicas  # decoding at once, all instances
    capacity_run = capacity_requests(eng.max_seqs, dep.replicas, disaggregated)  # as simulate's
    route = 4 + instances // 2  # routing a request costs some steps, more with more instances
    own = req.requests * (alone + route)
    curve = len(LOAD_FRACTIONS) * per_point * (alone + route)
    capacity = capacity_run * alone // slots + capacity_run * (1 + route)
    steps = own + curve + capacity
    if steps > SIM_STEPS:
        raise InputError(
            f"this traffic could take some {steps:,} engine steps to simulate, over the "
            f"{SIM_STEPS:,} one web request may take: fewer requests, shorter outputs, fewer "
            "instances or a smaller max_seqs (`llm-roofline simulate` has no such limit)",
            field="requests"
            if own >= max(curve, capacity)
            else "max_seqs"
            if capacity >= curve
            else "output_len",
        )
    return per_point


def _pools(req: SimulateRequest) -> tuple[Deployment | None, Deployment]:
    """(the prefill pool, the decode pool) of `disagg` "P:D", a prefill instance of the shape
    the prefill_ fields give (`pool_shapes.shaped_pools`, as `simulate --prefill-...`); (None,
    the deployment) without `disagg`, where a prefill field is refused, naming it."""
    from llm_roofline.sim.pool_shapes import PREFILL_FIELDS, pools_of

    dep = deployment_of(req)
    return pools_of(dep, req.disagg, {f: getattr(req, f) for f in PREFILL_FIELDS})


def _workload(req: SimulateRequest, dep: Deployment) -> Workload:
    """The request's traffic, its lengths capped at the model's trained context."""
    from llm_roofline.sim.workload import make_workload

    return make_workload(
        requests=req.requests,
        rate=req.rate,
        concurrency=req.concurrency,
        input_len=req.input_len,
        output_len=req.output_len,
        arrival=req.arrival,
        burstiness=req.burstiness,
        length_dist=req.length_dist,
        input_spread=req.input_spread,
        output_spread=req.output_spread,
        max_context=dep.model.max_context,
        seed=req.seed,
        range_ratio=req.range_ratio,
    )


def _engine(req: SimulateRequest, dep: Deployment) -> ServingEngine:
    """The request's serving engine, its fields over the engine's defaults (a 400 naming the
    field the library refuses)."""
    from llm_roofline.sim.serving_engines import serving_engine

    def seconds(v: float | None) -> float | None:
        return None if v is None else v * ms

    return serving_engine(
        req.serving_engine,
        dep,
        max_seqs=req.max_seqs,
        max_batched_tokens=req.max_batched_tokens,
        memory_share=req.memory_share,
        request_overhead_s=seconds(req.request_overhead_ms),
        step_overhead_s=seconds(req.step_overhead_ms),
        frontend_s=seconds(req.frontend_ms),
        policy=req.schedule,
        chunked_prefill=req.chunked_prefill,
        scheduler_steps=req.scheduler_steps,
        prefix_caching=req.prefix_caching,
        prefix_hit_rate=req.prefix_hit_rate,
        reserve_output=req.reserve_output,
    )


# size: the six inputs of the simulator's latency-against-load, each one the route has at hand
def _load_curve(
    dep: Deployment,
    work: Workload,
    seed: int,
    per_point: int,
    cap: float | None,
    server: dict[str, Any],
) -> list[dict[str, Any]]:
    """The latency percentiles against load up to the capacity `cap` (none without a finite,
    positive capacity)."""
    from llm_roofline.sim.simulate import latency_against_load

    if cap is None or not math.isfinite(cap) or cap <= 0:
        return []
    return latency_against_load(
        dep, work, fractions=LOAD_FRACTIONS, requests=per_point, seed=seed, capacity=cap, **server
    )


@api_simulate.post("/simulate", response_model=SimulateAnswer, response_model_exclude_unset=True)
def simulate(req: SimulateRequest) -> dict[str, Any]:
    """Serve a traffic on the deployment step by step (`llm-roofline simulate --json`'s keys),
    with the latency percentiles against load up to the capacity (`latency_vs_load`) and the
    first instance's queue and KV memory over the run (`timeline`, at most 300 points). An
    open loop offering more than the capacity is `stable: false`, its percentiles null."""
    from llm_roofline.sim.simulate import simulate as run

    pf, dep = _pools(req)
    work = _workload(req, dep)
    eng = _engine(req, pf or dep)
    batched_tokens(eng.max_seqs, eng.max_batched_tokens)  # before the work cap divides by it
    per_point = _curve_requests(req, dep, pf, eng)
    server: dict[str, Any] = {"serving_engine": eng, "prefill_pool": pf}
    res = run(
        dep,
        work,
        router=req.router,
        slo_ttft_s=req.slo_ttft_ms * ms if req.slo_ttft_ms else None,
        slo_tpot_s=req.slo_tpot_ms * ms if req.slo_tpot_ms else None,
        rate=req.rate,
        timeline_points=TIMELINE_POINTS,
        **server,
    )
    curve = _load_curve(dep, work, req.seed, per_point, res.summary["capacity_rps"], server)
    body: dict[str, Any] = json_body(
        {
            "deployment": dep.as_dict(),
            "prefill_deployment": pf.as_dict() if pf is not None else None,
            "split": dep.split_text(),
            "engine": dep.engine,
            "workload": work.description,
            **res.summary,
            "preemptions": int(res.stats["preemptions"]),
            "kv_tokens_per_instance": int(res.stats["kv_tokens_per_instance"]),
            "latency_vs_load": curve,
            "timeline": _timeline(res.timeline),
        }
    )
    return body
