"""The JSON bodies of the what-if routes (`routes_whatif.py`): each is a deployment
(`schemas.SystemQuery`) with the batch and context it runs at and the question's own inputs.
The bounds are limits on the work one request may ask for."""

from __future__ import annotations

from pydantic import Field, StrictInt

from llm_roofline.web.schemas import MAX_CONTEXT, SystemQuery
from llm_roofline.whatif.limits import MAX_CHIPS, MAX_STEP, MIN_STEP

__all__ = ["FastModeRequest", "SensitivityRequest"]


class SensitivityRequest(SystemQuery):
    """What matters most (`llm-roofline sensitivity`): each chip figure raised by `step_pct`."""

    context_len: StrictInt = Field(4096, ge=1, le=MAX_CONTEXT, description="tokens of context")
    batch: StrictInt = Field(1, ge=1, le=10_000_000, description="sequences decoding at once")
    tpot_ms: float | None = Field(
        None,
        gt=0,
        le=1e6,
        allow_inf_nan=False,
        description="a target time per output token, ms: adds the policy 'largest batch within "
        "it' and bounds the catalog's search",
    )
    step_pct: float = Field(
        10.0,
        ge=MIN_STEP * 100,
        le=MAX_STEP * 100,
        allow_inf_nan=False,
        description="how much each figure is raised, % (from 0.1: below it a step time's change "
        "is lost in rounding)",
    )
    across_catalog: bool = Field(
        False, description="also rank every catalog chip by its cheapest $ per token"
    )
    max_chips: StrictInt = Field(
        8,
        ge=1,
        le=128,
        description="the most chips each catalog chip may use (the page's limit: 128)",
    )


class FastModeRequest(SystemQuery):
    """Fast modes (`llm-roofline fast-mode`): tokens/s per user ×`speedup` from the base
    `batch`, and what each way of getting it costs."""

    context_len: StrictInt = Field(4096, ge=1, le=MAX_CONTEXT, description="tokens of context")
    batch: StrictInt = Field(
        1, ge=1, le=10_000_000, description="the base batch: sequences decoding at once"
    )
    speedup: float = Field(
        2.5, ge=1, le=1000, allow_inf_nan=False, description="the factor on tokens/s per user"
    )
    gamma: StrictInt = Field(1, ge=1, le=16, description="speculation: tokens drafted")
    acceptance: float = Field(
        0.85,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="speculation: the probability each drafted token is accepted",
    )
    draft: str = Field(
        "auto",
        min_length=1,
        max_length=100,
        description="speculation's draft: auto (the model's own multi-token-prediction layer "
        "when its config has one, else speculation is not tried), mtp (as if it had one), none "
        "(free), or a catalog model id",
    )
    max_chips: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_CHIPS,
        description="the most chips 'more chips' tries (default: twice the chips, at least the "
        "chip's scale-up domain; at most 1,024)",
    )
