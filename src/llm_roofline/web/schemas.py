"""The JSON bodies the API accepts (pydantic models; the OpenAPI schema at `/openapi.json` is
generated from them). Every bound here is a limit on what one request may ask for, so that a
request can neither crash the server nor keep it busy for minutes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

__all__ = [
    "OptimizeRequest",
    "Overlap",
    "PlanRequest",
    "PredictRequest",
    "ReportRequest",
    "SimulateRequest",
    "SweepRequest",
    "SystemQuery",
]

# the longest context or prompt a request may name: 16M (16,777,216 tokens), above the longest
# shipped (Llama 4 Scout's 10M = 10,485,760, max_position_embeddings), so "10M" typed on the
# page or a CLI-style size in a link is accepted, not refused for a decimal 10,000,000
MAX_CONTEXT = 2**24

Overlap = Literal["full", "per-op", "none"]
LengthDist = Literal[  # lengths.LENGTH_DISTS
    "fixed", "normal", "lognormal", "sharegpt-like", "random", "sharegpt"
]
Arrival = Literal["poisson", "gamma"]  # workload.ARRIVALS
Router = Literal["round-robin", "least-loaded"]  # simulate.ROUTERS
ServingEngineName = Literal["vllm", "sglang", "tensorrt-llm", "lmdeploy", "roofline"]  # ENGINES
Schedule = Literal["decode-first", "prefill-first"]  # serving_engines.SCHEDULES


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
    price_usd_per_hour: float | None = Field(
        None,
        ge=0,
        le=1000,
        allow_inf_nan=False,
        description="$ per chip-hour, over the catalog's; 0 is hardware you own (no $ per token)",
    )
    overlap: Overlap = "full"


class ReportRequest(SystemQuery):
    context_len: StrictInt = Field(4096, ge=1, le=MAX_CONTEXT)
    batch: StrictInt = Field(1, ge=1, le=10_000_000)


class PredictRequest(SystemQuery):
    batch: StrictInt = Field(..., ge=1, le=10_000_000)
    input_len: StrictInt = Field(..., ge=1, le=MAX_CONTEXT)
    output_len: StrictInt = Field(..., ge=0, le=10_000_000)
    mode: Literal["decode", "static", "continuous"] = "decode"


class SweepRequest(SystemQuery):
    batches: list[StrictInt] = Field(..., min_length=1, max_length=64)
    contexts: list[StrictInt] = Field(..., min_length=1, max_length=64)


class OptimizeRequest(SystemQuery):
    max_chips: StrictInt = Field(8, ge=1, le=512)
    context_len: StrictInt = Field(4096, ge=1, le=MAX_CONTEXT)
    tpot_ms: float | None = Field(None, gt=0)
    ttft_ms: float | None = Field(None, gt=0)


def _positive(default: Any = None, *, le: float | None = None, **kw: Any) -> Any:
    """A positive finite number (NaN and Infinity refused: neither can be written as JSON)."""
    return Field(default, gt=0, le=le, allow_inf_nan=False, **kw)


def _cost_ms(description: str) -> Any:
    """A serving engine's fixed cost in ms, 0 to 60,000 (none: the engine's fitted one)."""
    return Field(None, ge=0, le=60_000, allow_inf_nan=False, description=description)


class SimulateRequest(SystemQuery):
    """A traffic served on the deployment, as `llm-roofline simulate`: an open loop at `rate`
    requests/s or a closed loop of `concurrency` clients (exactly one), lengths, the server's
    limits, SLO targets for goodput, and `disagg` "P:D" for P prefill and D decode instances
    (each one instance of the deployment; a prefill instance of its own chips and split with
    `prefill_chips`, `prefill_tp`, `prefill_pp`, `prefill_ep`, as `simulate --prefill-...`)."""

    rate: float | None = _positive(le=1e6, description="requests/s (open loop)")
    concurrency: StrictInt | None = Field(
        None, ge=1, le=100_000, description="clients (closed loop)"
    )
    requests: StrictInt = Field(1000, ge=1, le=20_000)
    input_len: StrictInt = Field(..., ge=1, le=MAX_CONTEXT, description="mean prompt tokens")
    output_len: StrictInt = Field(..., ge=1, le=10_000_000, description="mean output tokens")
    length_dist: LengthDist = "fixed"
    input_spread: float | None = _positive(le=1e7, description="standard deviation, tokens")
    output_spread: float | None = _positive(le=1e7, description="standard deviation, tokens")
    range_ratio: float | None = Field(
        None, ge=0, le=1, description="random lengths: uniform within mean × (1 ± r)"
    )
    arrival: Arrival = "poisson"
    burstiness: float = _positive(1.0, le=1000, description="gamma gaps' squared CV")
    seed: StrictInt = Field(0, ge=0, le=2**32 - 1)
    serving_engine: ServingEngineName = Field(
        "vllm",
        description="the engine whose documented defaults serve (sim/serving_engines.py); "
        "the fields below override one setting each (null: the engine's)",
    )
    max_seqs: StrictInt | None = Field(
        None, ge=1, le=4096, description="sequences in flight (default: the engine's)"
    )
    max_batched_tokens: StrictInt | None = Field(
        None, ge=1, le=1_000_000, description="tokens/step (default: the engine's)"
    )
    memory_share: float | None = _positive(le=1, description="share of memory the engine claims")
    request_overhead_ms: float | None = _cost_ms("fixed cost a request, ms")
    step_overhead_ms: float | None = _cost_ms("fixed CPU cost a step, ms")
    frontend_ms: float | None = _cost_ms(
        "a request's time in the front-end process, one request at a time, ms"
    )
    schedule: Schedule | None = None
    chunked_prefill: bool | None = None
    scheduler_steps: StrictInt | None = Field(None, ge=1, le=64, description="multi-step")
    prefix_caching: bool | None = None
    reserve_output: bool | None = None
    prefix_hit_rate: float | None = Field(
        None, ge=0, lt=1, allow_inf_nan=False, description="share of a prompt cached"
    )
    router: Router = "round-robin"
    slo_ttft_ms: float | None = _positive(description="goodput: TTFT target, ms")
    slo_tpot_ms: float | None = _positive(description="goodput: TPOT target, ms")
    disagg: str | None = Field(
        None,
        max_length=32,
        description="P:D prefill and decode instances: a decode instance is one instance of "
        "the deployment; a prefill instance is too, unless the prefill_ fields shape it",
        examples=["1:3"],
    )
    prefill_chips: StrictInt | None = Field(
        None,
        ge=1,
        le=4096,
        description="with disagg: chips of one prefill instance (null: a decode instance's)",
    )
    prefill_tp: StrictInt | None = Field(
        None, ge=1, le=4096, description="with disagg: a prefill instance's tp (null: chosen)"
    )
    prefill_pp: StrictInt | None = Field(
        None, ge=1, le=4096, description="with disagg: a prefill instance's pp (null: chosen)"
    )
    prefill_ep: StrictInt | None = Field(
        None, ge=1, le=4096, description="with disagg: a prefill instance's ep (null: chosen)"
    )


class PlanRequest(BaseModel):
    """The cheapest fleet serving a traffic within its SLOs (`llm-roofline plan`): a catalog
    model (or an uploaded config.json), the catalog hardware to choose from, a Poisson rate
    with its lengths, and the targets (TTFT p90, TPOT p99)."""

    model_config = ConfigDict(extra="forbid")
    model: str | None = Field(None, description="catalog model id", examples=["llama-3.1-8b"])
    config: dict[str, Any] | None = Field(None, description="an uploaded config.json")
    hardware: list[str] = Field(
        ...,
        min_length=1,
        max_length=6,
        description="catalog hardware ids to choose from (each with a price), e.g. "
        '["h100-sxm", "mi300x"]',
    )
    prices: dict[str, float] | None = Field(
        None,
        max_length=6,
        description="$ per chip-hour for some of `hardware`, over the catalog's: "
        '{"h100-sxm": 2.0}',
    )
    rate: float = _positive(..., le=1e6, description="requests/s (Poisson)")
    input_len: StrictInt = Field(..., ge=1, le=MAX_CONTEXT, description="mean prompt tokens")
    output_len: StrictInt = Field(..., ge=1, le=10_000_000, description="mean output tokens")
    ttft_p90_ms: float = _positive(..., description="target: 90th percentile TTFT, ms")
    tpot_p99_ms: float = _positive(..., description="target: 99th percentile TPOT, ms")
    max_chips: StrictInt = Field(64, ge=1, le=1024, description="most chips the fleet may use")
    disagg: Literal["auto", "yes", "no"] = "auto"  # plan.DISAGG_CHOICES
    engine: str = Field("calibrated", description="ideal, calibrated, or an engine family")
    weight_dtype: str = Field("bf16", examples=["bf16"])
    kv_dtype: str = Field("bf16", examples=["bf16"])
    length_dist: LengthDist = "fixed"
    requests: StrictInt = Field(
        2000, ge=100, le=5000, description="requests per simulation (on each of three draws)"
    )
    seed: StrictInt = Field(0, ge=0, le=2**32 - 1)
    max_seqs: StrictInt = Field(256, ge=1, le=4096, description="sequences per instance")
    max_batched_tokens: StrictInt = Field(8192, ge=1, le=1_000_000, description="tokens/step")
    serving_engine: ServingEngineName = Field(
        "vllm", description="the engine whose documented defaults serve each simulation"
    )
