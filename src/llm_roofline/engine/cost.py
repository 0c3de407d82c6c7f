"""Cost and energy per token from a pass's time.

    $ per token      = n · price per chip-second · t_step / tokens
    joules per token = n · power per chip · t_step / tokens

`tokens` is what the pass yields: B in a decode step, B·T in a prefill. Compute and KV cost are
paid per sequence (flat floors); the weight fetch is shared by the batch (a hyperbola in B).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from llm_roofline._core import units
from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.errors import InputError
from llm_roofline.engine.roofline import StepTime

__all__ = [
    "cost_terms",
    "joules_per_token",
    "pareto_frontier",
    "usd_per_million_tokens",
    "usd_per_token",
]


def usd_per_token(step: StepTime) -> FloatArray:
    """Dollars per token at the chips' catalog rental price."""
    chip = step.system.chip
    if not chip.price_usd_per_s > 0:
        raise InputError(
            f"{chip.id} has no price (none in the catalog, or 0: hardware you own), so no $ "
            "per token; give one (USD per chip-hour)",
            field="price_usd_per_hour",
        )
    return np.asarray(step.system.price_usd_per_s * step.t_step / step.tokens, dtype=np.float64)


def usd_per_million_tokens(step: StepTime) -> FloatArray:
    return usd_per_token(step) * units.mega


def joules_per_token(step: StepTime) -> FloatArray:
    """Energy per token at the chips' rated power (an upper estimate of the chips' draw)."""
    chip = step.system.chip
    if not chip.power_w > 0:
        raise InputError(f"{chip.id} has no power figure in the catalog", field="power_w")
    return np.asarray(step.system.power_w * step.t_step / step.tokens, dtype=np.float64)


def cost_terms(step: StepTime) -> dict[str, FloatArray]:
    """Dollars per token that each term of the step would cost on its own.

    compute/B and KV/B are flat floors in batch; weights/B is the hyperbola the batch
    amortises; `step` is the cost of the step time itself (the largest, or their sum).
    """
    usd_per_token(step)  # raises if the chip has no price
    scale = step.system.price_usd_per_s / step.tokens
    return {
        "compute": np.asarray(step.t_compute * scale),
        "weights": np.asarray(step.t_weights * scale),
        "kv": np.asarray(step.t_kv * scale),
        "communication": np.asarray(step.t_comm * scale),
        "step": np.asarray(step.t_step * scale),
    }


def pareto_frontier(latency: ArrayLike, cost: ArrayLike) -> NDArray[np.int64]:
    """Indices of the points no other point beats on both latency and cost, by latency.

    A configuration is on the frontier when every faster one costs more.
    """
    lat = np.asarray(latency, dtype=np.float64).ravel()
    usd = np.asarray(cost, dtype=np.float64).ravel()
    order = np.lexsort((usd, lat))
    best = np.inf
    keep = []
    for i in order:
        if usd[i] < best:
            keep.append(i)
            best = usd[i]
    return np.asarray(keep, dtype=np.int64)
