"""What a deployment's tokens cost under its engine: the cost floor of input and output tokens
at one context (`llm-roofline pricing`), the same against context, and the prefill that both
this and the cache tiers (`cache_tiers`) price a prompt by."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from llm_roofline._core import checks
from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError
from llm_roofline._core.records import JsonRecord
from llm_roofline._core.units import mega
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.deploy.fit_advice import fit_message, no_fit_reason
from llm_roofline.engine.cost import require_price, usd_per_token_from

__all__ = ["ContextCosts", "CostFloor", "check_context", "cost_floor", "cost_vs_context"]
__all__ += ["deployment_price", "prefill_time"]


@dataclass(frozen=True, eq=False)
class CostFloor(JsonRecord):
    """A deployment's cost per million input and output tokens at one context, under its
    engine, and the batch (the largest that fits) the output is priced at."""

    usd_per_million_input_tokens: float
    usd_per_million_output_tokens: float
    batch: float
    kv_bytes_per_token: float
    engine: str


@dataclass(frozen=True, eq=False)
class ContextCosts(JsonRecord):
    """$ per million output tokens against context: at the largest batch that fits at each
    (`batch`; inf where none does) and at batch 1."""

    context: FloatArray
    batch: FloatArray
    usd_per_million_output_tokens: FloatArray
    usd_per_million_output_tokens_batch1: FloatArray
    engine: str


def deployment_price(dep: Deployment) -> float:
    """USD per second of the whole deployment, or an error naming the missing price."""
    require_price(dep.chip)
    return dep.system.price_usd_per_s


def check_context(context_len: int) -> int:
    """`context_len` as an int, or an error when it is not a positive integer."""
    return checks.positive_int(context_len, "context_len")


def prefill_time(dep: Deployment, context_len: int) -> tuple[float, int]:
    """Seconds to prefill `context_len` tokens of one prompt on every independent group of the
    deployment at once (replicas × data-parallel groups: no chip idles), under its engine, and
    how many prompts that is. A prompt's share of the deployment's price is price × t / n."""
    n = dep.groups
    t, _, _ = dep.time(dep.prefill(n, context_len), is_prefill=True)
    return float(np.asarray(t).flat[0]), n


def cost_floor(dep: Deployment, *, context_len: int = 4096) -> CostFloor:
    """Cost per million input and output tokens of a deployment at `context_len`, under its
    engine (`ideal`: the floor; a calibrated profile: the realistic estimate).

    Input: a prefill of the whole context on every independent group of chips (replicas ×
    data-parallel groups, so that none idles; compute-bound: a floor any batch shares).
    Output: a decode step at the largest batch that fits with that context.
    """
    S = check_context(context_len)
    t_pre, prompts = prefill_time(dep, S)
    fit = int(dep.max_batch(S))
    if fit < 1:
        why = no_fit_reason(fit_message(dep, S), S, fit)
        raise InputError(
            f"{dep.spec.name} does not fit on {dep.chips} × {dep.chip.id} ({dep.split_text()}) "
            f"at context {S:,}, so there is no batch to price: {why}",
            field="chips",
        )
    dec = dep.decode(fit, S)
    price = deployment_price(dep)
    t_dec, _, _ = dep.time(dec)
    return CostFloor(
        usd_per_million_input_tokens=float(usd_per_token_from(price, t_pre, prompts * S, mega)),
        usd_per_million_output_tokens=float(usd_per_token_from(price, t_dec.flat[0], fit, mega)),
        batch=float(fit),
        kv_bytes_per_token=dep.model.kv_bytes_per_token(get_dtype(dep.kv_dtype).bytes),
        engine=dep.engine,
    )


def cost_vs_context(dep: Deployment, contexts: ArrayLike) -> ContextCosts:
    """$ per million output tokens against context under the deployment's engine, at the
    largest batch that fits at each context (inf where not even one sequence fits), and at
    batch 1.

    Long context costs more twice over: every step reads more KV per sequence, and fewer
    sequences fit beside the weights, so the weight fetch is shared among fewer tokens.
    """
    S = np.asarray(contexts, dtype=np.float64)
    if S.ndim != 1 or S.size == 0 or not np.all(np.isfinite(S)) or np.any(S < 1):
        raise InputError("contexts must be a non-empty list of positive numbers", field="contexts")
    price = deployment_price(dep)
    fit = np.floor(np.asarray(dep.max_batch(S), dtype=np.float64))
    B = np.maximum(fit, 1.0)
    best = usd_per_token_from(price, dep.time(dep.decode(B, S))[0], B, mega)
    one = usd_per_token_from(price, dep.time(dep.decode(1, S))[0], 1, mega)
    return ContextCosts(
        context=S,
        batch=fit,
        usd_per_million_output_tokens=np.where(fit >= 1, best, np.inf),
        usd_per_million_output_tokens_batch1=np.asarray(one, dtype=np.float64),
        engine=dep.engine,
    )
