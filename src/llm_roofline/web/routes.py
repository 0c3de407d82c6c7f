"""Every route of the server, at module level: the page (`/` and its two assets) and the JSON
API (`/api/...`). Each API route builds the request's deployment (`deployment.deployment_of`)
and asks the library; none computes a figure itself. The functions' names are part of the
OpenAPI contract (each operationId is derived from one)."""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response

from ..catalog import get_hardware, hardware_records, list_hardware, list_models, model_entry
from ..scenarios import OUTPUT_COLUMNS, RANGE_COLUMNS, scenario_inputs
from ..units import hour, ms
from .deployment import deployment_of
from .report import report_body
from .schemas import OptimizeRequest, PredictRequest, ReportRequest, SweepRequest

__all__ = ["api", "page"]

page = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api")

_STATIC = resources.files("llm_roofline").joinpath("web/static")
_ASSETS = {"app.js": "text/javascript", "style.css": "text/css"}


@page.get("/")
async def index() -> FileResponse:
    return FileResponse(str(_STATIC.joinpath("index.html")))


@page.get("/static/{name}")
async def asset(name: str) -> Response:
    if name not in _ASSETS:
        return JSONResponse({"detail": "no such asset", "field": "name"}, status_code=404)
    return FileResponse(str(_STATIC.joinpath(name)), media_type=_ASSETS[name])


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


@api.get("/engines")
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


@api.post("/sweep")
def sweep(req: SweepRequest) -> dict[str, Any]:
    from ..report import sweep as run_sweep

    return {"rows": run_sweep(deployment_of(req), req.batches, req.contexts)}


@api.post("/optimize")
def optimize(req: OptimizeRequest) -> dict[str, Any]:
    from ..optimize import search

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
