"""API routes of the page's economics view: prices read backwards, cost vs context, cache tiers.
Each builds the request's deployment (`request_deployment.deployment_of`) and the question, and
asks one library function (`economics.pricing.read_prices`, `economics.token_costs.
cost_vs_context`, `economics.cache_tiers.cache_costs`, as `llm-roofline pricing` and
`cache-tiers` do); none computes a figure itself (cost vs context only picks the smallest
context where nothing fits)."""

from __future__ import annotations

from typing import Any

import numpy as np
from fastapi import APIRouter

from llm_roofline._core.units import day
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.economics.pricing import (
    PriceQuestion,
    cache_costs,
    cost_vs_context,
    read_prices,
)
from llm_roofline.web.json_values import json_body
from llm_roofline.web.request_deployment import deployment_of
from llm_roofline.web.schemas_economics import (
    CacheTiersRequest,
    CostVsContextRequest,
    PricingRequest,
)
from llm_roofline.web.schemas_economics_answers import (
    CacheTiersAnswer,
    CostVsContextAnswer,
    PricingAnswer,
)

__all__ = ["api_economics"]

api_economics = APIRouter(prefix="/api")


# the command line's default grids (`pricing --out`'s contexts, `cache-tiers`'s hold times)
def _default_contexts() -> list[float]:
    return [float(s) for s in np.unique(np.geomspace(256, 1_048_576, 60).round())]


def _default_holds() -> list[float]:
    return [float(h) for h in np.geomspace(1, 30 * day, 60)]


def _about(dep: Deployment) -> dict[str, Any]:
    return {"deployment": dep.as_dict(), "split": dep.split_text(), "engine": dep.engine}


@api_economics.post("/pricing", response_model=PricingAnswer, response_model_exclude_unset=True)
def pricing(req: PricingRequest) -> dict[str, Any]:
    """API prices read backwards (`llm-roofline pricing --json`'s figures): the output/input
    ratio as decode's utilisation against prefill's, the deployment's cost floor at
    `context_len` (input: a prefill of the context; output: a decode step at the largest batch
    that fits), what a long-context price step implies for the KV bytes per token
    (`price_step`, null without `long_context_threshold`), and a cache hit's price beside this
    deployment's cost of bringing a prompt back from each tier (`cache_hit`, null without
    `cache_hit_price`)."""
    dep = deployment_of(req)
    question = PriceQuestion(
        input_price=req.input_price,
        output_price=req.output_price,
        context_len=req.context_len,
        cache_hit_price=req.cache_hit_price,
        long_context_threshold=req.long_context_threshold,
        long_input_price=req.long_input_price,
        long_output_price=req.long_output_price,
        active_params=req.active_params,
        ratio=req.ratio,
    )
    out: dict[str, Any] = json_body({**_about(dep), **read_prices(dep, question).as_dict()})
    return out


@api_economics.post(
    "/cost-vs-context", response_model=CostVsContextAnswer, response_model_exclude_unset=True
)
def cost_against_context(req: CostVsContextRequest) -> dict[str, Any]:
    """$ per million output tokens against context (`economics.cost_vs_context`) at the largest
    batch that fits at each context (null where not even one sequence fits; `no_fit_from` is the
    smallest such context, whatever the order the contexts were given in) and at batch 1, with
    the model's trained maximum context."""
    dep = deployment_of(req)
    contexts = req.contexts or _default_contexts()
    curve = cost_vs_context(dep, contexts)
    none_fit = curve.context[curve.batch < 1]
    out: dict[str, Any] = json_body(
        {
            **_about(dep),
            **curve.as_dict(),
            "max_context": dep.model.max_context,
            "no_fit_from": float(np.min(none_fit)) if none_fit.size else None,
        }
    )
    return out


@api_economics.post(
    "/cache-tiers", response_model=CacheTiersAnswer, response_model_exclude_unset=True
)
def cache_tiers(req: CacheTiersRequest) -> dict[str, Any]:
    """Where to keep one sequence's KV cache (`llm-roofline cache-tiers --json`'s figures): for
    each tier the dollars to hold it for each of `hold_s` and bring it back (`usd`, and
    `usd_per_million_tokens` for a cache of `context_len` tokens), against recomputing it, the
    cheapest choice at each hold time and where the cheapest changes (`cheapest_from`)."""
    dep = deployment_of(req)
    res = cache_costs(dep, context_len=req.context_len, hold_s=req.hold_s or _default_holds())
    out: dict[str, Any] = json_body({**_about(dep), **res.rates_dict()})
    return out
