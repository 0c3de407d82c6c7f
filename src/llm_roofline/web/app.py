"""FastAPI application: the API (`/api/...`, OpenAPI at `/openapi.json`) and the page (`/`).

Errors: a library error (unknown id, bad config, impossible split) is a 400 whose body names
the field: `{"detail": "...", "field": "..."}`; a malformed request is FastAPI's 422 with the
field's location; a body over 1 MB is a 413. Never a 500 on bad input.
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Literal

import numpy as np
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from .. import __version__
from ..catalog import get_hardware, list_hardware, list_models, model_entry
from ..cost import pareto_frontier
from ..curves import batch_axis, cost_vs_batch, latency_cost_grid, step_vs_batch, step_vs_context
from ..deployment import Deployment, deployment
from ..errors import ConfigError, LlmRooflineError, UnknownIdError
from ..hardware import Chip
from ..hf_config import spec_from_config
from ..model import ModelSpec
from ..report import decode_report, fit_message
from ..roofline import balanced_context
from ..scenarios import OUTPUT_COLUMNS, RANGE_COLUMNS, scenario_inputs

MAX_BODY = 1_000_000  # bytes
POINTS = 200

Overlap = Literal["full", "per-op", "none"]


class SystemQuery(BaseModel):
    """A deployment: a catalog model (or an uploaded config.json) on catalog hardware (or a
    chip record of your own, the catalog's schema), its chips, split, data types and engine.
    Split degrees left out are chosen by the deployment rule (the response says which)."""

    model_config = ConfigDict(extra="forbid")
    model: str | None = Field(None, description="catalog model id", examples=["llama-3.1-8b"])
    config: dict[str, Any] | None = Field(None, description="an uploaded config.json")
    hardware: str = Field(
        "h100-sxm", description="catalog hardware id (ignored with `chip`)", examples=["h100-sxm"]
    )
    chip: dict[str, Any] | None = Field(
        None,
        description="a chip record of your own in the catalog's schema (unit-suffixed keys: "
        "bf16_dense_tflops, memory_capacity_gb, memory_bandwidth_tb_per_s, ...)",
    )
    chips: StrictInt = Field(1, ge=1, le=4096)
    tp: StrictInt | None = Field(None, ge=1, le=4096)
    pp: StrictInt | None = Field(None, ge=1, le=4096)
    ep: StrictInt | None = Field(None, ge=1, le=4096)
    replicas: StrictInt | None = Field(None, ge=1, le=4096)
    pad_heads: bool = False
    weight_dtype: str = Field("bf16", examples=["bf16"])
    kv_dtype: str = Field("bf16", examples=["bf16"])
    engine: str = Field("calibrated", description="ideal, calibrated or a profile name")
    price_usd_per_hour: float | None = Field(None, gt=0, le=1000)
    overlap: Overlap = "full"


class ReportRequest(SystemQuery):
    context_len: StrictInt = Field(4096, ge=1, le=10_000_000)
    batch: StrictInt = Field(1, ge=1, le=10_000_000)


class PredictRequest(SystemQuery):
    batch: StrictInt = Field(..., ge=1, le=10_000_000)
    input_len: StrictInt = Field(..., ge=1, le=10_000_000)
    output_len: StrictInt = Field(..., ge=0, le=10_000_000)
    mode: Literal["decode", "static", "continuous"] = "decode"


class SweepRequest(SystemQuery):
    batches: list[StrictInt] = Field(..., min_length=1, max_length=64)
    contexts: list[StrictInt] = Field(..., min_length=1, max_length=64)


class OptimizeRequest(SystemQuery):
    max_chips: StrictInt = Field(8, ge=1, le=512)
    context_len: StrictInt = Field(4096, ge=1, le=10_000_000)
    tpot_ms: float | None = Field(None, gt=0)
    ttft_ms: float | None = Field(None, gt=0)


def _spec(req: SystemQuery) -> ModelSpec:
    if req.config is not None:
        return spec_from_config(req.config, name=req.model or "uploaded config", source="upload")
    if req.model is None:
        raise ConfigError("give a catalog model id or an uploaded config.json", field="model")
    return model_entry(req.model).spec  # catalog ids only: the server reads no files


def _check_dtypes(req: SystemQuery) -> None:
    from ..dtypes import get_dtype
    from ..errors import UnknownIdError

    for name in ("weight_dtype", "kv_dtype"):
        try:
            get_dtype(getattr(req, name))
        except UnknownIdError as exc:
            raise ConfigError(str(exc), field=name) from None


def _chip(req: SystemQuery) -> Chip:
    if req.chip is None:
        return get_hardware(req.hardware, files=False)  # catalog ids only: no server files
    rec = dict(req.chip)
    chip_id = str(rec.pop("id", None) or "my-chip")
    return Chip.from_record(chip_id, rec)


def _deployment(req: SystemQuery) -> Deployment:
    """The request's deployment (every endpoint builds it the same way)."""
    _check_dtypes(req)
    try:
        return deployment(
            _spec(req),
            _chip(req),
            req.chips,
            tp=req.tp,
            pp=req.pp,
            ep=req.ep,
            replicas=req.replicas,
            pad_heads=req.pad_heads,
            weight_dtype=req.weight_dtype,
            kv_dtype=req.kv_dtype,
            overlap=req.overlap,
            engine=req.engine,
            price_usd_per_hour=req.price_usd_per_hour,
            model_id=req.model or "uploaded config",
        )
    except UnknownIdError as exc:
        raise ConfigError(str(exc), field="engine" if exc.kind == "engine" else exc.kind) from None


def _f(a: Any) -> list[float | None]:
    """Numbers for JSON (NaN, e.g. a cost without a price, becomes null)."""
    return [float(x) if np.isfinite(x) else None for x in np.asarray(a, dtype=np.float64).ravel()]


def _one(a: Any) -> float | None:
    return _f(a)[0]


def _curve(c: dict[str, Any], axis: str) -> dict[str, Any]:
    keys = (
        "t_compute_s",
        "t_weights_s",
        "t_kv_s",
        "t_comm_s",
        "t_memory_s",
        "t_ideal_s",
        "t_step_s",
        "t_step_low_s",
        "t_step_high_s",
    )
    out: dict[str, Any] = {axis: _f(c[axis]), **{k: _f(c[k]) for k in keys}}
    out["fits"] = [bool(x) for x in np.asarray(c["fits"]).ravel()]
    return out


def _record(hw_id: str) -> dict[str, Any]:
    """A catalog record's figures in the catalog's schema (what the chip editor starts from)."""
    from ..catalog import hardware_records

    rec = hardware_records()[hw_id]
    keep = (int, float, str)
    return {
        k: v
        for k, v in rec.items()
        if not k.startswith("_") and isinstance(v, keep) and not isinstance(v, bool)
    }


def _regime(bound: str, t_c: float, t_w: float, t_kv: float, fits: bool) -> str:
    """One line for a reader, from the engine's terms (no arithmetic beyond ordering)."""
    if not fits:
        return "This batch does not fit in memory: fewer sequences, more chips or smaller types."
    if bound == "compute":
        return (
            "Compute-bound: the chips' FLOP/s set the step; a bigger batch costs time but "
            "not money per token."
        )
    if t_w >= t_kv:
        return (
            "Memory-bound on the weights: the step barely grows with batch, so batching "
            "more is almost free and lowers the cost per token."
        )
    return (
        "Memory-bound on the KV cache: every sequence's context is read each step; "
        "shorter contexts or a smaller KV type help, batching does not."
    )


def create_app() -> FastAPI:
    app = FastAPI(
        title="llm-roofline",
        version=__version__,
        description="How fast can this model run on that hardware, and what does a token cost?",
    )

    @app.middleware("http")
    async def limit_body(request: Request, call_next: Any) -> Response:
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            return JSONResponse(
                {"detail": f"request body over {MAX_BODY:,} bytes", "field": "body"},
                status_code=413,
            )
        response: Response = await call_next(request)
        return response

    @app.exception_handler(LlmRooflineError)
    async def library_error(request: Request, exc: LlmRooflineError) -> JSONResponse:
        field = getattr(exc, "field", None) or getattr(exc, "kind", None) or "body"
        return JSONResponse({"detail": str(exc), "field": field}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI echoes the bad input back; NaN or Infinity there cannot be written as JSON
        detail = [{k: v for k, v in e.items() if k in ("loc", "msg", "type")} for e in exc.errors()]
        field = next((str(e["loc"][-1]) for e in detail if e.get("loc")), "body")
        return JSONResponse({"detail": detail, "field": field}, status_code=422)

    static = resources.files("llm_roofline").joinpath("web/static")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(str(static.joinpath("index.html")))

    @app.get("/static/{name}", include_in_schema=False)
    async def asset(name: str) -> Response:
        if name not in ("app.js", "style.css"):
            return JSONResponse({"detail": "no such asset", "field": "name"}, status_code=404)
        media = "text/javascript" if name.endswith(".js") else "text/css"
        return FileResponse(str(static.joinpath(name)), media_type=media)

    @app.get("/api/models")
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

    @app.get("/api/hardware")
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
                    "price_usd_per_hour": c.price_usd_per_s * 3600 or None,
                    "estimated": list(c.estimated),
                    "record": _record(hid),
                }
            )
        return out

    @app.get("/api/engines")
    def engines() -> list[dict[str, Any]]:
        """The engines a deployment can name: `ideal` (the lower bound), `calibrated` (the
        realistic default) and the fitted profiles, each with its range and what it was fitted
        on."""
        from ..calibrate import get_profile, list_profiles

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

    @app.post("/api/report")
    def report(req: ReportRequest) -> dict[str, Any]:
        """Headline figures and the curves the page draws (each about 200 points): the ideal
        bound and the engine's estimate with its range, for one deployment."""
        dep = _deployment(req)
        S = req.context_len
        rep = decode_report(dep, context_len=S)
        B, _ = batch_axis(dep, S, POINTS)
        B = np.unique(np.append(B, req.batch))  # the chosen batch is always on the axis
        sb = step_vs_batch(dep, S, B)
        here = step_vs_batch(dep, S, [req.batch])
        spec = dep.model
        contexts = np.unique(np.geomspace(64, max(spec.max_context or 0, 131072), POINTS).round())
        sc = step_vs_context(dep, req.batch, contexts)
        fits = bool(dep.memory(req.batch, S).fits.flat[0])
        mem = dep.memory(req.batch, S)
        bound = str(here["bound"][0])
        ranged = dep.profile is not None
        at = {k: _one(v) for k, v in here.items() if k not in ("bound", "fits", "batch")}
        if not ranged:
            at["t_step_low_s"] = at["t_step_high_s"] = None
        if not dep.chip.price_usd_per_s > 0:
            at["usd_per_million_tokens"] = None
        out: dict[str, Any] = {
            "model": spec.name,
            "hardware": dep.chip.id,
            "chips": dep.chips,
            "deployment": dep.as_dict(),
            "split": dep.split_text(),
            "engine": dep.engine,
            "latency_floor_s": rep.latency_floor_s,
            "balance_batch": rep.balance_batch,
            "balanced_context": balanced_context(
                spec, dep.chip, kv_dtype=dep.kv_dtype, weight_dtype=dep.weight_dtype
            ),
            "drain_time_s": rep.drain_time_s,
            "max_batch": rep.max_batch,
            "at_batch": {
                "batch": req.batch,
                "context_len": S,
                **at,
                "bound": bound,
                "fits": fits,
                "fit_message": fit_message(dep, S, req.batch),
                "memory_per_chip_bytes": float(mem.total.flat[0]),
                "memory_capacity_bytes": float(mem.capacity),
                "regime": _regime(
                    bound,
                    float(here["t_compute_s"][0]),
                    float(here["t_weights_s"][0]),
                    float(here["t_kv_s"][0]),
                    fits,
                ),
            },
            "step_vs_batch": _curve(sb, "batch"),
            "step_vs_context": _curve(sc, "context_len"),
            "cost_vs_batch": None,
            "frontier": None,
        }
        if dep.chip.price_usd_per_s > 0:
            c = cost_vs_batch(dep, S, B)
            out["cost_vs_batch"] = {
                "batch": _f(B),
                **{f"{k}_usd_per_million": _f(v * 1e6) for k, v in c.items() if k != "batch"},
            }
            g = latency_cost_grid(dep, S)
            if g["chips"].size:
                front = pareto_frontier(g["latency_s"], g["usd_per_token"])
                out["frontier"] = {
                    "latency_s": _f(g["latency_s"]),
                    "usd_per_million": _f(g["usd_per_token"] * 1e6),
                    "chips": _f(g["chips"]),
                    "batch": _f(g["batch"]),
                    "frontier": [int(i) for i in front],
                }
        return out

    @app.post("/api/predict")
    def predict(req: PredictRequest) -> dict[str, Any]:
        """One scenario of the contract (the same columns as `llm-roofline predict --json`)."""
        dep = _deployment(req)
        res = dep.serve(
            batch=req.batch, input_len=req.input_len, output_len=req.output_len, mode=req.mode
        )
        out = res.as_dict()
        record = {**scenario_inputs(dep, req.batch, req.input_len, req.output_len, req.mode)}
        record.update({c: out[c] for c in OUTPUT_COLUMNS})
        record.update({c: out.get(c) for c in RANGE_COLUMNS})
        record["pad_heads"] = dep.pad_heads  # JSON: a bool, as in `deployment`
        record["split"] = dep.split_text()
        record["warning"] = "; ".join(res.warnings)
        return record

    @app.post("/api/sweep")
    def sweep(req: SweepRequest) -> dict[str, Any]:
        from ..report import sweep as run_sweep

        return {"rows": run_sweep(_deployment(req), req.batches, req.contexts)}

    @app.post("/api/optimize")
    def optimize(req: OptimizeRequest) -> dict[str, Any]:
        from ..optimize import search

        res = search(
            _deployment(req),
            req.max_chips,
            context_len=req.context_len,
            tpot_s=req.tpot_ms / 1e3 if req.tpot_ms else None,
            ttft_s=req.ttft_ms / 1e3 if req.ttft_ms else None,
        )
        return {
            "engine": res.engine,
            "frontier": [res.row(int(i)) for i in res.frontier],
            "best": res.row(res.best) if res.best is not None else None,
            "configs_tried": res.configs_tried,
        }

    return app
