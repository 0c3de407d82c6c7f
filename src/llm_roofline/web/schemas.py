"""The JSON bodies the API accepts (pydantic models; the OpenAPI schema at `/openapi.json` is
generated from them). Every bound here is a limit on what one request may ask for, so that a
request can neither crash the server nor keep it busy for minutes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

__all__ = [
    "OptimizeRequest",
    "Overlap",
    "PredictRequest",
    "ReportRequest",
    "SweepRequest",
    "SystemQuery",
]

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
    engine: str = Field(
        "calibrated",
        description="ideal, calibrated, or an engine family (vllm, trtllm, sglang, llamacpp, ...)",
    )
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
