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
from ..catalog import get_hardware, get_model, list_hardware, list_models, model_entry
from ..cost import cost_terms, pareto_frontier, usd_per_token
from ..errors import ConfigError, LlmRooflineError
from ..hardware import Chip, System
from ..hf_config import spec_from_config
from ..memory import max_batch, memory_use
from ..model import ModelSpec
from ..roofline import balance_batch, balanced_context, decode_step, latency_floor

MAX_BODY = 1_000_000  # bytes
POINTS = 200

Overlap = Literal["full", "per-op", "none"]


class SystemQuery(BaseModel):
    """What to model: a catalog model (or an uploaded config.json) on catalog hardware."""

    model_config = ConfigDict(extra="forbid")
    model: str | None = Field(None, description="catalog model id", examples=["llama-3.1-8b"])
    config: dict[str, Any] | None = Field(None, description="an uploaded config.json")
    hardware: str = Field(..., description="catalog hardware id", examples=["h100-sxm"])
    chips: StrictInt = Field(1, ge=1, le=4096)
    weight_dtype: str = Field("bf16", examples=["bf16"])
    kv_dtype: str = Field("bf16", examples=["bf16"])
    price_usd_per_hour: float | None = Field(None, gt=0, le=1000)


class ReportRequest(SystemQuery):
    context_len: StrictInt = Field(4096, ge=1, le=10_000_000)
    batch: StrictInt = Field(1, ge=1, le=10_000_000)
    overlap: Overlap = "full"


class PredictRequest(SystemQuery):
    batch: StrictInt = Field(..., ge=1, le=10_000_000)
    input_len: StrictInt = Field(..., ge=1, le=10_000_000)
    output_len: StrictInt = Field(..., ge=1, le=10_000_000)
    mode: Literal["decode", "static", "continuous"] = "decode"
    tp: int | None = Field(None, ge=1)
    pp: int | None = Field(None, ge=1)
    ep: int | None = Field(None, ge=1)
    engine: str = "ideal"


class SweepRequest(SystemQuery):
    batches: list[StrictInt] = Field(..., min_length=1, max_length=64)
    contexts: list[StrictInt] = Field(..., min_length=1, max_length=64)
    overlap: Overlap = "full"


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
    return get_model(req.model)


def _check_dtypes(req: SystemQuery) -> None:
    from ..dtypes import get_dtype
    from ..errors import UnknownIdError

    for name in ("weight_dtype", "kv_dtype"):
        try:
            get_dtype(getattr(req, name))
        except UnknownIdError as exc:
            raise ConfigError(str(exc), field=name) from None


def _chip(req: SystemQuery) -> Chip:
    _check_dtypes(req)
    chip = get_hardware(req.hardware)
    return chip.with_price(req.price_usd_per_hour) if req.price_usd_per_hour else chip


def _f(a: Any) -> list[float]:
    return [float(x) for x in np.asarray(a, dtype=np.float64).ravel()]


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
                }
            )
        return out

    @app.post("/api/report")
    def report(req: ReportRequest) -> dict[str, Any]:
        """Headline figures and the curves the page draws (each about 200 points)."""
        spec, chip = _spec(req), _chip(req)
        system = System(chip, req.chips)
        kw: dict[str, Any] = {"weight_dtype": req.weight_dtype, "kv_dtype": req.kv_dtype}
        fit = int(max_batch(spec, system, context_len=req.context_len, **kw))
        b_star = balance_batch(spec, system, weight_dtype=req.weight_dtype)
        top = max(fit, int(2.5 * b_star), req.batch, 16)
        B = np.unique(np.linspace(1, top, POINTS).round())
        step = decode_step(
            spec, system, batch=B, context_len=req.context_len, overlap=req.overlap, **kw
        )
        priced = chip.price_usd_per_s > 0
        S = np.unique(np.geomspace(64, max(spec.max_context or 0, 131072), POINTS).round())
        ctx = decode_step(spec, system, batch=req.batch, context_len=S, overlap=req.overlap, **kw)
        here = decode_step(
            spec, system, batch=req.batch, context_len=req.context_len, overlap=req.overlap, **kw
        )
        mem = memory_use(spec, system, batch=req.batch, context_len=req.context_len, **kw)
        fits = bool(mem.fits)
        bound = str(np.atleast_1d(here.bound_names)[0])
        out: dict[str, Any] = {
            "model": spec.name,
            "hardware": chip.id,
            "chips": req.chips,
            "latency_floor_s": latency_floor(spec, system, weight_dtype=req.weight_dtype),
            "balance_batch": b_star,
            "balanced_context": balanced_context(
                spec, system, kv_dtype=req.kv_dtype, weight_dtype=req.weight_dtype
            ),
            "drain_time_s": chip.drain_time_s,
            "max_batch": fit,
            "at_batch": {
                "batch": req.batch,
                "t_step_s": float(here.t_step),
                "t_compute_s": float(here.t_compute),
                "t_weights_s": float(here.t_weights),
                "t_kv_s": float(here.t_kv),
                "bound": bound,
                "tokens_per_s": float(here.tokens_per_s),
                "usd_per_million_tokens": float(usd_per_token(here)) * 1e6 if priced else None,
                "fits": fits,
                "memory_per_chip_bytes": float(mem.total),
                "memory_capacity_bytes": float(mem.capacity),
                "regime": _regime(
                    bound, float(here.t_compute), float(here.t_weights), float(here.t_kv), fits
                ),
            },
            "step_vs_batch": {
                "batch": _f(B),
                "t_compute_s": _f(step.t_compute),
                "t_weights_s": _f(step.t_weights),
                "t_kv_s": _f(step.t_kv),
                "t_memory_s": _f(step.t_memory),
                "t_step_s": _f(step.t_step),
            },
            "step_vs_context": {
                "context_len": _f(S),
                "t_compute_s": _f(ctx.t_compute),
                "t_memory_s": _f(ctx.t_memory),
                "t_step_s": _f(ctx.t_step),
            },
            "cost_vs_batch": None,
            "frontier": None,
        }
        if priced:
            c = cost_terms(step)
            out["cost_vs_batch"] = {
                "batch": _f(B),
                **{f"{k}_usd_per_million": _f(v * 1e6) for k, v in c.items()},
            }
            lat, usd, chips_l, batch_l = [], [], [], []
            for n in [
                n
                for n in (1, 2, 4, 8, 16, 32, 64, 72, 128)
                if n <= max(8, req.chips, chip.scale_up_domain)
            ]:
                sysn = System(chip, n)
                f_n = int(max_batch(spec, sysn, context_len=req.context_len, **kw))
                if f_n < 1:
                    continue
                bs = np.asarray(
                    sorted({2**k for k in range(21) if 2**k <= f_n} | {f_n}), dtype=np.float64
                )
                s_n = decode_step(spec, sysn, batch=bs, context_len=req.context_len, **kw)
                lat += _f(s_n.t_step)
                usd += _f(usd_per_token(s_n) * 1e6)
                chips_l += [n] * bs.size
                batch_l += _f(bs)
            if lat:
                front = pareto_frontier(np.asarray(lat), np.asarray(usd))
                out["frontier"] = {
                    "latency_s": lat,
                    "usd_per_million": usd,
                    "chips": chips_l,
                    "batch": batch_l,
                    "frontier": [int(i) for i in front],
                }
        return out

    @app.post("/api/predict")
    def predict(req: PredictRequest) -> dict[str, Any]:
        from ..scenarios import predict_one

        if req.config is not None:
            raise ConfigError(
                "predict takes catalog ids; use /api/report for an upload", field="config"
            )
        row = {
            "model": req.model or "",
            "hardware": req.hardware,
            "chips": req.chips,
            "tp": req.tp,
            "pp": req.pp,
            "ep": req.ep,
            "weight_dtype": req.weight_dtype,
            "kv_dtype": req.kv_dtype,
            "batch": req.batch,
            "input_len": req.input_len,
            "output_len": req.output_len,
            "mode": req.mode,
            "engine": req.engine,
        }
        res = predict_one({k: ("" if v is None else v) for k, v in row.items()})
        if res.error:
            return JSONResponse(
                {"detail": res.error.message, "field": res.error.column},  # type: ignore[return-value]
                status_code=400,
            )
        return {**res.inputs, **res.outputs, **res.extra, "warning": res.warning}

    @app.post("/api/sweep")
    def sweep(req: SweepRequest) -> dict[str, Any]:
        from ..report import sweep as run_sweep

        if req.config is not None:
            raise ConfigError("sweep takes catalog ids", field="config")
        if req.model is None:
            raise ConfigError("give a catalog model id", field="model")
        rows = run_sweep(
            req.model,
            _chip(req),
            req.batches,
            req.contexts,
            [req.chips],
            weight_dtype=req.weight_dtype,
            kv_dtype=req.kv_dtype,
            overlap=req.overlap,
        )
        return {"rows": rows}

    @app.post("/api/optimize")
    def optimize(req: OptimizeRequest) -> dict[str, Any]:
        from ..optimize import search

        spec, chip = _spec(req), _chip(req)
        res = search(
            spec,
            chip,
            req.max_chips,
            context_len=req.context_len,
            weight_dtype=req.weight_dtype,
            kv_dtype=req.kv_dtype,
            tpot_s=req.tpot_ms / 1e3 if req.tpot_ms else None,
            ttft_s=req.ttft_ms / 1e3 if req.ttft_ms else None,
        )
        return {
            "frontier": [res.row(int(i)) for i in res.frontier],
            "best": res.row(res.best) if res.best is not None else None,
            "configs_tried": res.configs_tried,
        }

    return app
