"""Cost and energy per token from a pass's time.

    $ per token      = n · price per chip-second · t_step / tokens
    joules per token = n · power per chip · t_step / tokens

`tokens` is what the pass yields: B in a decode step, B·T in a prefill. Compute and KV cost are
paid per sequence (flat floors); the weight fetch is shared by the batch (a hyperbola in B).

`usd_per_token_from` is the one $-per-token arithmetic: any engine's time (the ideal step, a
calibrated one, a speculative step's share) goes through it; `require_price` is the one
refusal of a chip without a price, `unpriced_reason` the one account of why it has none.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from llm_roofline._core import units
from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.errors import InputError, LlmRooflineError
from llm_roofline.engine.roofline import StepTime
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.hardware.chip import Chip

__all__ = [
    "cost_terms",
    "is_priced",
    "joules_per_token",
    "pareto_frontier",
    "require_price",
    "unpriced_reason",
    "usd_per_million_tokens",
    "usd_per_token",
    "usd_per_token_from",
]


def is_priced(chip: Chip) -> bool:
    """The chip has a price: a rate above 0 (0 is hardware you own, or none in the catalog)."""
    return chip.price_usd_per_s > 0


def unpriced_reason(chip: Chip) -> str:
    """Why `chip` has no $ per token: a price of 0 given for a chip the catalog prices
    (hardware you own), or no price in the catalog."""
    try:
        listed = get_hardware(chip.id).price_usd_per_s > 0
    except LlmRooflineError:  # a chip record of one's own
        listed = False
    if listed:
        return "price 0: hardware you own, no $ per token"
    return "no price in the catalog"


def require_price(chip: Chip, consequence: str = "") -> None:
    """Refuse a chip without a price, saying why it has none and, in `consequence` (", so a
    price multiple is undefined"), what the caller cannot do without one."""
    if not is_priced(chip):
        raise InputError(
            f"{chip.id}: {unpriced_reason(chip)}{consequence}: give a price (USD per chip-hour)",
            field="price_usd_per_hour",
        )


def usd_per_token_from(
    price_usd_per_s: float, seconds: ArrayLike, tokens: ArrayLike, per: float = 1.0
) -> FloatArray:
    """Dollars per `per` tokens (1, or units.mega for $ per million) of a pass that takes
    `seconds` on chips costing `price_usd_per_s` together and yields `tokens`:
    price · t / tokens · per. NaN where the chips have no price (0)."""
    if not price_usd_per_s > 0:
        return np.full(np.broadcast_shapes(np.shape(seconds), np.shape(tokens)), np.nan)
    t, n = np.asarray(seconds, dtype=np.float64), np.asarray(tokens, dtype=np.float64)
    return np.asarray(price_usd_per_s * t / n * per, dtype=np.float64)


def usd_per_token(step: StepTime) -> FloatArray:
    """Dollars per token at the chips' catalog rental price."""
    require_price(step.system.chip)
    return usd_per_token_from(step.system.price_usd_per_s, step.t_step, step.tokens)


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
    require_price(step.system.chip)
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
