"""The JSON API's routes (`/api/...`) for the catalogs and the names a deployment takes; the
other views' routes are in `routes_deployment.py` (report, predict, sweep, optimize),
`routes_simulate.py`, `routes_plan.py`, `routes_economics.py` and `routes_whatif.py`; the
page's own routes are in `page.py`. None computes a figure itself. The functions' names are
part of the OpenAPI contract (each operationId is derived from one)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from llm_roofline._core.dtypes import list_dtypes
from llm_roofline._core.units import hour
from llm_roofline.engine.roofline import OVERLAP_MODES
from llm_roofline.hardware.catalog import get_hardware, hardware_records, list_hardware
from llm_roofline.model.checkpoints import list_models, model_entry
from llm_roofline.web.schemas_answers import EngineRow, HardwareRow, ModelRow, Options

__all__ = ["api"]

api = APIRouter(prefix="/api")


@api.get("/models", response_model=list[ModelRow], response_model_exclude_unset=True)
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


@api.get("/hardware", response_model=list[HardwareRow], response_model_exclude_unset=True)
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


@api.get("/options", response_model=Options, response_model_exclude_unset=True)
def options() -> dict[str, list[str]]:
    """The names a deployment's fields take besides the catalogs: data types (`weight_dtype`,
    `kv_dtype`) and overlap modes (`overlap`)."""
    return {"dtypes": [d.name for d in list_dtypes()], "overlap": list(OVERLAP_MODES)}


@api.get("/engines", response_model=list[EngineRow], response_model_exclude_unset=True)
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
