"""The JSON API's routes (`/api/...`), at module level; the page's own routes are in `page.py`.
Each API route builds the request's deployment (`deployment.deployment_of`)
and asks the library; none computes a figure itself. The functions' names are part of the
OpenAPI contract (each operationId is derived from one)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from fastapi import APIRouter

from llm_roofline._core.dtypes import list_dtypes
from llm_roofline._core.errors import ConfigError, InputError
from llm_roofline._core.units import hour, ms
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.deploy.scenarios.rows import OUTPUT_COLUMNS, RANGE_COLUMNS, scenario_inputs
from llm_roofline.engine.roofline import OVERLAP_MODES
from llm_roofline.hardware.catalog import get_hardware, hardware_records, list_hardware
from llm_roofline.hardware.chip import Chip
from llm_roofline.model.checkpoints import list_models, model_entry
from llm_roofline.model.hf.config import spec_from_config
from llm_roofline.model.spec import ModelSpec
from llm_roofline.web.report_body import report_body
from llm_roofline.web.request_deployment import deployment_of
from llm_roofline.web.schemas import (
    OptimizeRequest,
    PlanRequest,
    PredictRequest,
    ReportRequest,
    SimulateRequest,
    SweepRequest,
)

__all__ = ["api"]

api = APIRouter(prefix="/api")


@api.get("/models")
def models() -> list[dict[str, Any]]:
    out = []
    for mid in list_models():
        e = model_entry(mid)
        s = e.spec
        out.append(
            {
                "id": mid,
                "name": e.name,
                "attention": s.attention.kind,
                "moe": s.is_moe,
                "params_stored": s.params_stored,
                "params_multiplied": s.params_multiplied,
                "kv_bytes_per_token_bf16": s.kv_bytes_per_token(2.0),
            }
        )
    return out


def _record(hw_id: str) -> dict[str, Any]:
    """A catalog record's figures in the catalog's schema (what the chip editor starts from)."""
    rec = hardware_records()[hw_id]
    keep = (int, float, str)
    return {
        k: v
        for k, v in rec.items()
        if not k.startswith("_") and isinstance(v, keep) and not isinstance(v, bool)
    }


@api.get("/hardware")
def hardware() -> list[dict[str, Any]]:
    out = []
    for hid in list_hardware():
        c = get_hardware(hid)
        out.append(
            {
                "id": hid,
                "name": c.name,
                "status": c.status,
                "memory_bytes": c.memory_bytes,
                "memory_bandwidth": c.memory_bw,
                "peak_flops": dict(c.peak_flops),
                "scale_up_domain": c.scale_up_domain,
                "price_usd_per_hour": c.price_usd_per_s * hour or None,
                "estimated": list(c.estimated),
                "record": _record(hid),
            }
        )
    return out


@api.get("/options")
def options() -> dict[str, list[str]]:
    """The names a deployment's fields take besides the catalogs: data types (`weight_dtype`,
    `kv_dtype`) and overlap modes (`overlap`)."""
    return {"dtypes": [d.name for d in list_dtypes()], "overlap": list(OVERLAP_MODES)}


@api.get("/engines")
def engines() -> list[dict[str, Any]]:
    """The engines a deployment can name: `ideal` (the lower bound), `calibrated` (the
    realistic default) and the fitted profiles, each with its range and what it was fitted
    on."""
    from llm_roofline.calibration.profile import get_profile, list_profiles

    out = []
    for name in list_profiles():
        p = get_profile(name)
        out.append(
            {
                "id": name,
                "note": p.note
                if p is not None
                else "datasheet peaks, no overheads: a lower bound on time",
                "low": None if p is None else p.low,
                "high": None if p is None else p.high,
                "default": name == "calibrated",
            }
        )
    return out


@api.post("/report")
def report(req: ReportRequest) -> dict[str, Any]:
    """Headline figures and the curves the page draws (each about 200 points): the ideal
    bound and the engine's estimate with its range, for one deployment."""
    return report_body(deployment_of(req), req)


@api.post("/predict")
def predict(req: PredictRequest) -> dict[str, Any]:
    """One scenario of the contract (the same columns as `llm-roofline predict --json`)."""
    dep = deployment_of(req)
    res = dep.serve(
        batch=req.batch,
        input_len=req.input_len,
        output_len=req.output_len,
        mode=req.mode,
        search_fit=True,
    )
    out = res.as_dict()
    record = {**scenario_inputs(dep, req.batch, req.input_len, req.output_len, req.mode)}
    record.update({c: out[c] for c in OUTPUT_COLUMNS})
    record.update({c: out.get(c) for c in RANGE_COLUMNS})
    record["pad_heads"] = dep.pad_heads  # JSON: a bool, as in `deployment`
    record["split"] = dep.split_text()
    record["warning"] = "; ".join(res.warnings)
    return record


@api.post("/sweep")
def sweep(req: SweepRequest) -> dict[str, Any]:
    from llm_roofline.deploy.report_table import sweep as run_sweep

    return {"rows": run_sweep(deployment_of(req), req.batches, req.contexts)}


@api.post("/optimize")
def optimize(req: OptimizeRequest) -> dict[str, Any]:
    from llm_roofline.planning.optimize import search

    res = search(
        deployment_of(req),
        req.max_chips,
        context_len=req.context_len,
        tpot_s=req.tpot_ms * ms if req.tpot_ms else None,
        ttft_s=req.ttft_ms * ms if req.ttft_ms else None,
    )
    return {
        "engine": res.engine,
        "frontier": [res.row(int(i)) for i in res.frontier],
        "best": res.row(res.best) if res.best is not None else None,
        "configs_tried": res.configs_tried,
    }


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


def json_body(x: Any) -> Any:
    """A value for JSON: numpy scalars and arrays as Python numbers and lists, a non-finite
    number (an unstable run's figure, an unbounded capacity) as null."""
    if isinstance(x, dict):
        return {str(k): json_body(v) for k, v in x.items()}
    if isinstance(x, list | tuple | np.ndarray):
        return [json_body(v) for v in x]
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, float | np.floating):
        return float(x) if math.isfinite(x) else None
    return x


def _timeline(tl: dict[str, Any], points: int = TIMELINE_POINTS) -> dict[str, Any]:
    """The first instance's queue and KV share over the run, at most `points` of its samples
    (evenly spaced, the first and the last kept)."""
    keys = ("t_s", "waiting", "running", "kv_share")
    if not tl or not len(tl["t_s"]):
        return {k: [] for k in keys}
    n = len(tl["t_s"])
    idx = np.unique(np.linspace(0, n - 1, min(n, points)).round().astype(np.int64))
    return {k: json_body(np.asarray(tl[k])[idx]) for k in keys}


def _curve_requests(req: SimulateRequest, dep: Deployment, pf: Deployment | None) -> int:
    """How many requests each point of the latency-against-load curve serves; a 400 when the
    whole request could run more than SIM_STEPS engine steps (see above). Only a bound on the
    work one request may ask for: every figure comes from the simulator."""
    disaggregated = pf is not None
    instances = dep.replicas + (pf.replicas if pf is not None else 0)
    if instances > SIM_INSTANCES:  # the simulator's events look at every instance
        raise InputError(
            f"{instances} instances is over the {SIM_INSTANCES} one web request may simulate: "
            "fewer chips or replicas (`llm-roofline simulate` has no such limit)",
            field="disagg" if disaggregated else "replicas" if req.replicas else "chips",
        )
    alone = req.output_len + -(-req.input_len // req.max_batched_tokens)  # a request's steps
    lo, hi = LOAD_REQUESTS
    per_point = max(lo, min(hi, LOAD_STEPS // alone))
    fit = int(dep.max_batch(req.input_len + req.output_len)) // dep.replicas
    slots = max(1, min(req.max_seqs, fit)) * dep.replicas  # decoding at once, all instances
    clients = req.max_seqs * dep.replicas  # the capacity run's, as simulate.capacity_rps's
    clients += -(-clients // 4) if disaggregated else 0
    capacity_run = max(4000, 20 * clients)  # requests
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


@api.post("/simulate")
def simulate(req: SimulateRequest) -> dict[str, Any]:
    """Serve a traffic on the deployment step by step (`llm-roofline simulate --json`'s keys),
    with the latency percentiles against load up to the capacity (`latency_vs_load`) and the
    first instance's queue and KV memory over the run (`timeline`, at most 300 points). An
    open loop offering more than the capacity is `stable: false`, its percentiles null."""
    from llm_roofline.sim.simulate import disagg_pools, latency_against_load, parse_disagg
    from llm_roofline.sim.simulate import simulate as run
    from llm_roofline.sim.workload import make_workload

    dep = deployment_of(req)
    pf = None
    if req.disagg is not None:
        pf, dep = disagg_pools(dep, *parse_disagg(req.disagg))
    work = make_workload(
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
    )
    if req.max_batched_tokens < req.max_seqs:  # before the work cap, which divides by it
        raise InputError(
            f"max_batched_tokens ({req.max_batched_tokens}) must be at least max_seqs "
            f"({req.max_seqs}): every sequence in flight decodes a token each step",
            field="max_batched_tokens",
        )
    per_point = _curve_requests(req, dep, pf)
    server: dict[str, Any] = {
        "max_seqs": req.max_seqs,
        "max_batched_tokens": req.max_batched_tokens,
        "prefill_pool": pf,
    }
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
    cap = res.summary["capacity_rps"]
    curve = (
        latency_against_load(
            dep,
            work,
            fractions=LOAD_FRACTIONS,
            requests=per_point,
            seed=req.seed,
            capacity=cap,
            **server,
        )
        if cap is not None and math.isfinite(cap) and cap > 0
        else []
    )
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


def _plan_model(req: PlanRequest) -> str | ModelSpec:
    """The request's model: its uploaded config, or a catalog id (checked here, so that no
    path reaches the library: the server reads no files)."""
    if req.config is not None:
        return spec_from_config(req.config, name=req.model or "uploaded config", source="upload")
    if req.model is None:
        raise ConfigError("give a catalog model id or an uploaded config.json", field="model")
    model_entry(req.model)  # an unknown id is a 400 naming `model`
    return req.model


def _plan_chips(req: PlanRequest) -> list[Chip]:
    """The request's catalog chips (the server reads no file), each at the request's price
    where it gives one (`plan.priced_chips`: a 400 naming `prices` otherwise)."""
    from llm_roofline.planning.fleet_plan import priced_chips

    return priced_chips([get_hardware(h, files=False) for h in req.hardware], req.prices)


PLAN_SECONDS = 60.0  # a plan search past this is stopped (a 400): `llm-roofline plan` has no limit


@api.post("/plan")
def plan(req: PlanRequest) -> dict[str, Any]:
    """The cheapest fleet of the hardware given meeting TTFT p90 and TPOT p99 at the rate
    (`llm-roofline plan --json`'s keys): `best` (None when no fleet within `max_chips` meets
    both, with `reason` saying which target binds), the frontier of the fleets simulated
    (`candidates`) and what the search did. Models and chips are catalog ids or the body's
    own config: the server reads no file."""
    from llm_roofline.planning.fleet_plan import plan as search

    chips = _plan_chips(req)
    model = _plan_model(req)
    res = search(
        model,
        chips,
        rate=req.rate,
        input_len=req.input_len,
        output_len=req.output_len,
        ttft_p90_s=req.ttft_p90_ms * ms,
        tpot_p99_s=req.tpot_p99_ms * ms,
        max_chips=req.max_chips,
        disagg=req.disagg,
        engine=req.engine,
        weight_dtype=req.weight_dtype,
        kv_dtype=req.kv_dtype,
        length_dist=req.length_dist,
        requests=req.requests,
        seed=req.seed,
        max_seqs=req.max_seqs,
        max_batched_tokens=req.max_batched_tokens,
        time_limit_s=PLAN_SECONDS,
    )
    body: dict[str, Any] = json_body(res.as_dict())
    # the price each chip was costed at, and whether it was the request's or the catalog's
    given = req.prices or {}
    body["prices"] = {
        h: {
            "usd_per_hour": c.price_usd_per_s * hour,
            "source": "request" if h in given else "catalog",
        }
        for h, c in zip(req.hardware, chips, strict=True)
    }
    return body
