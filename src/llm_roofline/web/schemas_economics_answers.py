"""The JSON the economics view's routes answer: `/api/pricing`, `/api/cost-vs-context` and
`/api/cache-tiers` (see `schemas_answers.py` for the rules: keys in the order returned,
`| None` where a figure can be null)."""

from __future__ import annotations

from llm_roofline.web.schemas_answers import Answer, DeploymentFields

__all__ = ["CacheTiersAnswer", "CostVsContextAnswer", "PricingAnswer"]


class CostFloor(Answer):
    """The deployment's cost floor at the context: input (a prefill of the context) and
    output (a decode step at the largest batch that fits), $ per million tokens."""

    usd_per_million_input_tokens: float | None
    usd_per_million_output_tokens: float | None
    batch: float
    kv_bytes_per_token: float
    engine: str


class CatalogKvRow(Answer):
    """A catalog model's real KV bytes per token (bf16) against the figure the price step
    implies for its own active parameters, and real ÷ implied."""

    model: str
    active_params: float
    kv_bytes_per_token: float
    implied_kv_bytes_per_token: float
    ratio: float


class PriceStep(Answer):
    """What a long-context price step says about the KV bytes per token."""

    long_context_threshold: float
    flops_per_byte: float
    flops_per_byte_source: str
    active_params: float
    active_params_source: str
    model_active_params: float | None
    active_params_note: str | None
    implied_kv_bytes_per_token: float
    long_input_price: float | None
    long_output_price: float | None
    long_output_to_input: float | None
    catalog_vs_price_step: list[CatalogKvRow]


class TierAtHit(Answer):
    """Bringing one cached prompt back from a tier: the wait, its $ per million tokens and
    whether the cache hit's price covers it."""

    name: str
    fetch_s: float
    usd_per_million_tokens: float
    covered: bool


class CacheHit(Answer):
    """A cache hit's price beside this deployment's cost of bringing the prompt back from each
    tier (by tier id) and of recomputing it."""

    price: float
    to_input: float
    context_len: int
    recompute_usd_per_million_tokens: float
    recompute_covered: bool
    tiers: dict[str, TierAtHit]


class PricingAnswer(Answer):
    """`/api/pricing`: the prices read backwards, the cost floor, the price step (null without
    `long_context_threshold`) and the cache hit (null without `cache_hit_price`)."""

    deployment: DeploymentFields
    split: str
    engine: str
    context_len: int
    input_price: float
    output_price: float
    output_to_input: float
    decode_to_prefill_mfu: float
    cost_floor: CostFloor
    price_step: PriceStep | None
    cache_hit: CacheHit | None


class CostVsContextAnswer(Answer):
    """`/api/cost-vs-context`: $ per million output tokens against context at the largest
    batch that fits (null where none does) and at batch 1, the model's trained maximum
    context and the smallest context where nothing fits."""

    deployment: DeploymentFields
    split: str
    engine: str
    context: list[float]
    batch: list[float]
    usd_per_million_output_tokens: list[float | None]
    usd_per_million_output_tokens_batch1: list[float | None]
    max_context: int | None
    no_fit_from: float | None


class TierCosts(Answer):
    """Holding one sequence's cache in a tier and bringing it back: the devices it spans, its
    bandwidth, the time to drain it, the fetch time and $ at each hold time."""

    name: str
    devices: int
    bandwidth: float
    drain_time_s: float
    fetch_s: float
    usd: list[float]
    usd_per_million_tokens: list[float]


class CheapestFrom(Answer):
    """From this hold time on, the cheapest choice is `tier` ("recompute" included)."""

    hold_s: float
    tier: str


class CacheTiersAnswer(Answer):
    """`/api/cache-tiers`: one sequence's KV cache, whether it fits (`warning` when not),
    recomputing it, each tier's costs (by tier id), the cheapest at each hold time and where
    the cheapest changes."""

    deployment: DeploymentFields
    split: str
    engine: str
    kv_bytes: float
    chips: int
    weights_bytes_per_chip: float
    kv_bytes_per_chip: float
    capacity_bytes_per_chip: float
    fits: bool
    warning: str | None
    recompute_usd: float
    recompute_s: float
    hold_s: list[float]
    tiers: dict[str, TierCosts]
    cheapest: list[str]
    context_len: int
    recompute_usd_per_million_tokens: float
    cheapest_from: list[CheapestFrom]
