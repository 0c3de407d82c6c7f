"""API routes of the page's economics view: prices read backwards, cost vs context, cache tiers.
Each builds the request's deployment (`deployment.deployment_of`) and asks the library functions
that `llm-roofline pricing` and `cache-tiers` call (`economics.py`); none computes a figure
itself beyond a change of unit ($ per sequence of S tokens to $ per million tokens) and the
ratio of two prices the request gives, as the command line prints it. Besides, they compare
(whether a cache hit's price covers a cost) and pick (where the cheapest tier changes, as the
command line's "cheapest:" line): no formula."""

from __future__ import annotations

from typing import Any

import numpy as np
from fastapi import APIRouter

from llm_roofline._core.units import day, mega, sig
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.economics.pricing import (
    cache_costs,
    catalog_kv_vs_price_step,
    cost_floor,
    cost_vs_context,
    decode_to_prefill_mfu,
    kv_bytes_from_price_step,
    price_step_active_params,
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


def _price_step(req: PricingRequest, dep: Deployment, step: float) -> dict[str, Any]:
    """What a long-context price step at `step` tokens says about the KV bytes per token, as
    `pricing --long-context-threshold` reads it, with the catalog's models beside it."""
    if req.ratio is not None:
        ratio, why = req.ratio, "given"
    else:
        ratio, why = dep.chip.ops_per_byte, f"{dep.chip.id} bf16 FLOP/s ÷ bytes/s"
    act = price_step_active_params(req.active_params, dep.model)
    n_active = act["active_params"]
    note = None
    if act["agrees"] is False:
        note = (
            f"active_params {sig(n_active)} differs from the model's "
            f"{sig(act['model_active_params'])} parameters multiplied per token: using "
            "active_params"
        )
    long_ratio = None
    if req.long_output_price is not None and req.long_input_price is not None:
        long_ratio = req.long_output_price / req.long_input_price
    return {
        "long_context_threshold": step,
        "flops_per_byte": ratio,
        "flops_per_byte_source": why,
        "active_params": n_active,
        "active_params_source": act["source"],
        "model_active_params": act["model_active_params"],
        "active_params_note": note,
        "implied_kv_bytes_per_token": kv_bytes_from_price_step(step, n_active, ratio),
        "long_input_price": req.long_input_price,
        "long_output_price": req.long_output_price,
        "long_output_to_input": long_ratio,
        "catalog_vs_price_step": catalog_kv_vs_price_step(step, ratio, kv_dtype="bf16"),
    }


def _per_million(context_len: int) -> float:
    """$ per sequence of `context_len` tokens -> $ per million tokens (a change of unit)."""
    return mega / context_len


def _cache_hit(req: PricingRequest, dep: Deployment, hit: float) -> dict[str, Any]:
    """A cache hit's price beside what this deployment pays to bring one cached prompt of
    `context_len` tokens back from each tier (held for no time) and to recompute it, each in
    $ per million tokens (`cache_costs` at a hold time of 0), and whether the hit's price
    covers each (`covered`)."""
    res = cache_costs(dep, context_len=req.context_len, hold_s=[0.0])
    per_m = _per_million(req.context_len)
    recompute = res["recompute_usd"] * per_m
    tiers = {
        tid: {
            "name": t["name"],
            "fetch_s": t["fetch_s"],
            "usd_per_million_tokens": float(t["usd"][0]) * per_m,
        }
        for tid, t in res["tiers"].items()
    }
    for t in tiers.values():
        t["covered"] = t["usd_per_million_tokens"] <= hit  # the hit's price pays for it
    return {
        "price": hit,
        "to_input": hit / req.input_price,
        "context_len": req.context_len,
        "recompute_usd_per_million_tokens": recompute,
        "recompute_covered": recompute <= hit,
        "tiers": tiers,
    }


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
    body: dict[str, Any] = {
        **_about(dep),
        "context_len": req.context_len,
        "input_price": req.input_price,
        "output_price": req.output_price,
        "output_to_input": req.output_price / req.input_price,
        "decode_to_prefill_mfu": decode_to_prefill_mfu(req.input_price, req.output_price),
        "cost_floor": cost_floor(dep, context_len=req.context_len),
        "price_step": None,
        "cache_hit": None,
    }
    if req.long_context_threshold is not None:
        body["price_step"] = _price_step(req, dep, req.long_context_threshold)
    if req.cache_hit_price is not None:
        body["cache_hit"] = _cache_hit(req, dep, req.cache_hit_price)
    out: dict[str, Any] = json_body(body)
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
    none_fit = curve["context"][curve["batch"] < 1]
    out: dict[str, Any] = json_body(
        {
            **_about(dep),
            **curve,
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
    hold = req.hold_s or _default_holds()
    res = cache_costs(dep, context_len=req.context_len, hold_s=hold)
    per_m = _per_million(req.context_len)
    for t in res["tiers"].values():
        t["usd_per_million_tokens"] = t["usd"] * per_m
    picks = [
        {"hold_s": h, "tier": c}
        for i, (h, c) in enumerate(zip(res["hold_s"], res["cheapest"], strict=True))
        if i == 0 or c != res["cheapest"][i - 1]
    ]
    out: dict[str, Any] = json_body(
        {
            **_about(dep),
            **res,
            "context_len": req.context_len,
            "recompute_usd_per_million_tokens": res["recompute_usd"] * per_m,
            "cheapest_from": picks,
        }
    )
    return out
