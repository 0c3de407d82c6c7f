"""The JSON bodies of the economics view's routes (`routes_economics.py`): each is a deployment
(`schemas.SystemQuery`'s fields) with the question's own inputs, as `llm-roofline pricing` and
`llm-roofline cache-tiers` take them. Every bound is a limit on what one request may ask for;
NaN and Infinity are refused (neither can be written as JSON)."""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field, StrictInt, field_validator

from llm_roofline.web.schemas import MAX_CONTEXT, SystemQuery

__all__ = ["CacheTiersRequest", "CostVsContextRequest", "PricingRequest"]

POINTS = 200  # the most contexts or hold times one request may ask for


def _price(default: Any = None, **kw: Any) -> Any:
    """A price in USD per million tokens: from a billionth of a dollar (no price is closer to
    zero; a ratio of two stays finite) to a million."""
    return Field(default, ge=1e-9, le=1e6, allow_inf_nan=False, **kw)


class PricingRequest(SystemQuery):
    """API prices read backwards (`llm-roofline pricing`): what the output/input ratio says
    about decode's utilisation, the deployment's cost floor at `context_len` beside them, what
    a long-context price step implies for the KV bytes per token, and what a cache hit's price
    leaves for bringing a cached prompt back."""

    context_len: StrictInt = Field(
        4096, ge=1, le=MAX_CONTEXT, description="tokens: the context the cost floor is priced at"
    )
    input_price: float = _price(..., description="$ per million input tokens")
    output_price: float = _price(..., description="$ per million output tokens")
    cache_hit_price: float | None = _price(
        description="$ per million input tokens read from the provider's prompt cache"
    )
    long_context_threshold: float | None = Field(
        None, ge=1, le=1e9, allow_inf_nan=False, description="tokens: where the price steps up"
    )
    long_input_price: float | None = _price(description="$ per million input tokens above it")
    long_output_price: float | None = _price(description="$ per million output tokens above it")
    active_params: float | None = Field(
        None,
        ge=1,
        le=1e15,
        allow_inf_nan=False,
        description="the priced model's active parameters (default: the deployment's model's)",
    )
    ratio: float | None = Field(
        None,
        ge=1e-6,
        le=1e6,
        allow_inf_nan=False,
        description="FLOP/s ÷ bytes/s the price step is read with (default: the chip's, bf16)",
    )


def _each(
    values: list[float] | None, lo: float, hi: float, what: str, *, whole: bool = False
) -> list[float] | None:
    """Every item finite and within [lo, hi] (with `whole`, a whole number: 4096 or 4096.0);
    checked on the whole list, so that an error names the list (the app names a 422 by the
    last part of its location)."""
    if values is not None:
        for i, v in enumerate(values):
            if not (math.isfinite(v) and lo <= v <= hi):
                raise ValueError(f"item {i} is {v!r}: {what} must be from {lo:g} to {hi:g}")
            if whole and v != math.floor(v):
                raise ValueError(f"item {i} is {v!r}: {what} must be whole numbers of tokens")
    return values


class CostVsContextRequest(SystemQuery):
    """$ per million output tokens against context (`pricing --out`'s figure)."""

    contexts: list[float] | None = Field(
        None,
        min_length=1,
        max_length=POINTS,
        description="tokens, whole numbers (default: 60 points from 256 to 1,048,576, as the "
        "command line)",
    )

    @field_validator("contexts")
    @classmethod
    def _contexts(cls, v: list[float] | None) -> list[float] | None:
        return _each(v, 1, 1e9, "contexts (tokens)", whole=True)


class CacheTiersRequest(SystemQuery):
    """Where to keep one sequence's KV cache, by hold time (`llm-roofline cache-tiers`)."""

    context_len: StrictInt = Field(..., ge=1, le=MAX_CONTEXT, description="tokens of one sequence")
    hold_s: list[float] | None = Field(
        None,
        min_length=1,
        max_length=POINTS,
        description="seconds (default: 60 points from 1 s to 30 days, as the command line)",
    )

    @field_validator("hold_s")
    @classmethod
    def _holds(cls, v: list[float] | None) -> list[float] | None:
        return _each(v, 0, 1e10, "hold times (s)")
