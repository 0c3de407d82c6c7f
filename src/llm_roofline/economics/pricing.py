"""The lecture's economics (§5–6): reading API prices backwards (each figure on its own, and
all of them at once for one deployment: `read_prices`, the web's pricing view), the balance of
training, RL and inference, and (re-exported from their own modules) what a deployment's tokens
cost (`token_costs`) and where to keep a KV cache (`cache_tiers`).

FLOP convention: datasheet FLOP/s (2 per multiply-add). The lecture's hardware ratio of "300"
counts multiply-adds per byte: 600 FLOP per byte here.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from llm_roofline._core.checks import positive_number
from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError
from llm_roofline._core.units import day, sig
from llm_roofline.economics.cache_tiers import CacheHit, Tier, cache_costs, cache_hit, load_tiers
from llm_roofline.economics.token_costs import (
    CostFloor,
    cost_floor,
    cost_vs_context,
    prefill_time,
)
from llm_roofline.model.checkpoints import get_model, list_models
from llm_roofline.model.spec import ModelSpec

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment
    from llm_roofline.hardware.chip import Chip

__all__ = [
    "BalanceResult",
    "PriceQuestion",
    "PriceReading",
    "PriceStep",
    "Tier",
    "balance",
    "cache_costs",
    "cache_hit",
    "catalog_kv_vs_price_step",
    "cost_floor",
    "cost_vs_context",
    "decode_to_prefill_mfu",
    "kv_bytes_from_price_step",
    "load_tiers",
    "prefill_time",
    "price_step_active_params",
    "read_price_step",
    "read_prices",
]


# ---- reading prices backwards -------------------------------------------------------------


def decode_to_prefill_mfu(input_price: float, output_price: float) -> float:
    """Decode MFU ÷ prefill MFU implied by prices that track cost.

    A token costs 2·N_active FLOPs whether it is read (prefill) or written (decode); if prices
    follow cost, output/input = time per output token / time per input token = prefill MFU /
    decode MFU. Output priced 5× input: decode runs at a fifth of prefill's utilisation,
    memory-bound with t_mem ≈ 5·t_compute (the lecture).
    """
    return positive_number(input_price, "input_price") / positive_number(
        output_price, "output_price"
    )


def kv_bytes_from_price_step(
    threshold_tokens: float, active_params: float, flops_per_byte: float
) -> float:
    """KV bytes per token implied by a long-context price step at `threshold_tokens`.

    Take the step as the context where one sequence's KV fetch equals its matmuls:
    S · kv / BW = 2 · N_active / FLOP/s, so kv = 2 · N_active / (FLOP/s ÷ BW · S). The
    lecture: 100B active, ratio 300 multiply-adds per byte (600 FLOP/B), 200k tokens:
    2 · 100e9 / (600 · 200e3) ≈ 1,667 bytes per token.
    """
    S = positive_number(threshold_tokens, "threshold_tokens")
    N = positive_number(active_params, "active_params")
    r = positive_number(flops_per_byte, "flops_per_byte")
    return 2.0 * N / (r * S)


ACTIVE_PARAMS_AGREE = 0.01  # a given N_active within 1% of the model's own agrees with it


def price_step_active_params(
    active_params: float | None, model: str | ModelSpec | None
) -> dict[str, Any]:
    """The active parameters to read a price step with: `active_params` when given, else the
    model's parameters multiplied per token (`ModelSpec.params_multiplied`).

    Returns {"active_params", "source" ("given" or "model"), "model_active_params" (None
    without a model), "agrees" (None unless both are given: whether they agree within 1%)}.
    Both given and disagreeing: the given figure is used, and `agrees` is False so the caller
    can say so.
    """
    model_n = float(get_model(model).params_multiplied) if model is not None else None
    if active_params is None:
        if model_n is None:
            raise InputError(
                "a price step needs active_params (the model's active parameters) or a model",
                field="active_params",
            )
        return {
            "active_params": model_n,
            "source": "model",
            "model_active_params": model_n,
            "agrees": None,
        }
    n = positive_number(active_params, "active_params")
    agrees = None if model_n is None else math.isclose(n, model_n, rel_tol=ACTIVE_PARAMS_AGREE)
    return {"active_params": n, "source": "given", "model_active_params": model_n, "agrees": agrees}


def catalog_kv_vs_price_step(
    threshold_tokens: float, flops_per_byte: float, *, kv_dtype: str = "bf16"
) -> list[dict[str, Any]]:
    """Each catalog model's real KV bytes per token against the figure a price step at
    `threshold_tokens` implies for a model with that model's own active parameters.

    Per model: {"model", "active_params" (N_active = params_multiplied),
    "kv_bytes_per_token" (every layer full, `kv_dtype` cache), "implied_kv_bytes_per_token"
    (2 · N_active / (flops_per_byte · threshold), `kv_bytes_from_price_step`), "ratio" (real ÷
    implied: how many times more KV than a model of that size priced with that step could
    hold)}. Sorted by model id.
    """
    S = positive_number(threshold_tokens, "threshold_tokens")
    r = positive_number(flops_per_byte, "flops_per_byte")
    kvb = get_dtype(kv_dtype).bytes
    rows = []
    for mid in list_models():
        spec = get_model(mid)
        n = float(spec.params_multiplied)
        real = float(spec.kv_bytes_per_token(kvb))
        implied = kv_bytes_from_price_step(S, n, r)
        rows.append(
            {
                "model": mid,
                "active_params": n,
                "kv_bytes_per_token": real,
                "implied_kv_bytes_per_token": implied,
                "ratio": real / implied,
            }
        )
    return rows


# ---- one deployment's prices read backwards, all at once ----------------------------------


@dataclass(frozen=True)
class PriceQuestion:
    """API prices to read against a deployment ($ per million tokens): input and output; a
    cache hit's (optional); a long-context step (optional: where, the prices above it, the
    priced model's active parameters and the FLOP/s ÷ bytes/s to read it with, by default the
    deployment's model's and chip's); `context_len`, the context the cost floor is priced at."""

    input_price: float
    output_price: float
    context_len: int = 4096
    cache_hit_price: float | None = None
    long_context_threshold: float | None = None
    long_input_price: float | None = None
    long_output_price: float | None = None
    active_params: float | None = None
    ratio: float | None = None


@dataclass(frozen=True)
class PriceStep:
    """What a long-context price step says about the KV bytes per token (see
    `kv_bytes_from_price_step`), with the catalog's models beside it."""

    long_context_threshold: float
    flops_per_byte: float
    flops_per_byte_source: str  # "given" or the chip's ratio, named
    active_params: float
    active_params_source: str  # "given" or "model"
    model_active_params: float | None
    active_params_note: str | None  # given and the model's disagree: which is used
    implied_kv_bytes_per_token: float
    long_input_price: float | None
    long_output_price: float | None
    long_output_to_input: float | None
    catalog_vs_price_step: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PriceReading:
    """`read_prices`' answer: the question's prices and their ratio, decode's utilisation
    against prefill's that the ratio implies, the deployment's cost floor, and the price step
    and cache hit read (None when not asked)."""

    context_len: int
    input_price: float
    output_price: float
    output_to_input: float
    decode_to_prefill_mfu: float
    cost_floor: CostFloor
    price_step: PriceStep | None
    cache_hit: CacheHit | None

    def as_dict(self) -> dict[str, Any]:
        """The reading as the web's pricing view returns it (after the deployment)."""
        return {
            "context_len": self.context_len,
            "input_price": self.input_price,
            "output_price": self.output_price,
            "output_to_input": self.output_to_input,
            "decode_to_prefill_mfu": self.decode_to_prefill_mfu,
            "cost_floor": self.cost_floor.as_dict(),
            "price_step": None if self.price_step is None else self.price_step.as_dict(),
            "cache_hit": None if self.cache_hit is None else self.cache_hit.as_dict(),
        }


def read_price_step(
    step: float,
    *,
    ratio: float | None,
    chip: Chip | None,
    active_params: float | None,
    model: str | ModelSpec | None,
    long_input_price: float | None = None,
    long_output_price: float | None = None,
) -> PriceStep:
    """A price step at `step` tokens read with `ratio` (FLOP/s ÷ bytes/s; None: `chip`'s own in
    bf16) and `active_params` (None: `model`'s parameters multiplied per token; both given and
    disagreeing: `active_params`, with a note), the catalog's models beside it
    (`llm-roofline pricing --long-context-threshold`, the web's pricing view)."""
    if ratio is not None:
        why = "given"
    elif chip is not None:
        ratio, why = chip.ops_per_byte, f"{chip.id} bf16 FLOP/s ÷ bytes/s"
    else:
        raise InputError("a price step needs a ratio or a chip", field="ratio")
    act = price_step_active_params(active_params, model)
    n_active = act["active_params"]
    note = None
    if act["agrees"] is False:
        note = (
            f"active_params {sig(n_active)} differs from the model's "
            f"{sig(act['model_active_params'])} parameters multiplied per token: using "
            "active_params"
        )
    long_ratio = None
    if long_output_price is not None and long_input_price is not None:
        long_ratio = long_output_price / long_input_price
    return PriceStep(
        long_context_threshold=step,
        flops_per_byte=ratio,
        flops_per_byte_source=why,
        active_params=n_active,
        active_params_source=act["source"],
        model_active_params=act["model_active_params"],
        active_params_note=note,
        implied_kv_bytes_per_token=kv_bytes_from_price_step(step, n_active, ratio),
        long_input_price=long_input_price,
        long_output_price=long_output_price,
        long_output_to_input=long_ratio,
        catalog_vs_price_step=catalog_kv_vs_price_step(step, ratio, kv_dtype="bf16"),
    )


def _price_step(dep: Deployment, q: PriceQuestion, step: float) -> PriceStep:
    """The question's price step, read with the deployment's chip and model by default."""
    return read_price_step(
        step,
        ratio=q.ratio,
        chip=dep.chip,
        active_params=q.active_params,
        model=dep.model,
        long_input_price=q.long_input_price,
        long_output_price=q.long_output_price,
    )


def read_prices(dep: Deployment, q: PriceQuestion) -> PriceReading:
    """API prices read backwards against one deployment (`llm-roofline pricing`'s figures, the
    web's pricing view): the output/input ratio as decode's utilisation against prefill's,
    the deployment's cost floor at `q.context_len` (`cost_floor`), what a long-context price
    step implies for the KV bytes per token (None without `q.long_context_threshold`), and a
    cache hit's price beside this deployment's cost of bringing a prompt back from each tier
    (`cache_hit`; None without `q.cache_hit_price`)."""
    mfu = decode_to_prefill_mfu(q.input_price, q.output_price)
    floor = cost_floor(dep, context_len=q.context_len)
    step = q.long_context_threshold
    hit = q.cache_hit_price
    return PriceReading(
        context_len=q.context_len,
        input_price=q.input_price,
        output_price=q.output_price,
        output_to_input=q.output_price / q.input_price,
        decode_to_prefill_mfu=mfu,
        cost_floor=floor,
        price_step=None if step is None else _price_step(dep, q, step),
        cache_hit=None
        if hit is None
        else cache_hit(dep, context_len=q.context_len, price=hit, input_price=q.input_price),
    )


# ---- training, RL and inference in balance -----------------------------------------------


@dataclass(frozen=True)
class BalanceResult:
    inference_tokens: float
    pretrain_tokens: float
    rl_tokens: float
    chinchilla_tokens: float
    overtraining: float  # pretrain tokens / Chinchilla's 20 per parameter


def balance(
    tokens_per_s: float,
    days: float,
    active_params: float,
    *,
    pretrain_mfu: float = 0.4,
    inference_mfu: float | None = None,
    rl_flops_per_token: float = 3.0,
    rl_mfu: float | None = None,
) -> BalanceResult:
    """Token budgets at which pre-training, RL and inference cost the same (the lecture §5).

    Minimising a sum of costs lands near where they are equal: pre-training costs
    6·N·D_pt / MFU_pt, RL (2..6)·N·D_rl / MFU_rl, inference 2·N·D_inf / MFU_inf with
    D_inf = tokens/s × duration. With decode MFU about a third of training's and RL at
    inference's utilisation and 3·N FLOPs per token (the defaults), D_pt ≈ D_inf ≈ 1.5·D_rl,
    the lecture's balance; Chinchilla's compute-optimal budget is 20 tokens per parameter.
    """
    rate = positive_number(tokens_per_s, "tokens_per_s")
    seconds = positive_number(days, "days") * day
    N = positive_number(active_params, "active_params")
    mfu_pt = positive_number(pretrain_mfu, "pretrain_mfu")
    mfu_inf = positive_number(
        inference_mfu if inference_mfu is not None else mfu_pt / 3, "inference_mfu"
    )
    mfu_rl = positive_number(rl_mfu if rl_mfu is not None else mfu_inf, "rl_mfu")
    k_rl = positive_number(rl_flops_per_token, "rl_flops_per_token")
    d_inf = rate * seconds
    cost = 2.0 * N * d_inf / mfu_inf  # in FLOP-at-peak units; N cancels below
    d_pt = cost * mfu_pt / (6.0 * N)
    d_rl = cost * mfu_rl / (k_rl * N)
    chinchilla = 20.0 * N
    return BalanceResult(d_inf, d_pt, d_rl, chinchilla, d_pt / chinchilla)
