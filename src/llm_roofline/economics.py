"""The lecture's economics (§5–6): reading API prices backwards, the balance of training, RL
and inference, and where to keep a KV cache.

FLOP convention: datasheet FLOP/s (2 per multiply-add). The lecture's hardware ratio of "300"
counts multiply-adds per byte: 600 FLOP per byte here.
"""

from __future__ import annotations

import functools
import math
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .catalog import get_model
from .cost import usd_per_token
from .dtypes import get_dtype
from .errors import ConfigError, InputError
from .hardware import Chip, System
from .memory import max_batch
from .model import ModelSpec
from .roofline import as_system, decode_step, prefill

__all__ = [
    "BalanceResult",
    "Tier",
    "balance",
    "cache_costs",
    "cost_floor",
    "decode_to_prefill_mfu",
    "kv_bytes_from_price_step",
    "load_tiers",
]

FloatArray = NDArray[np.float64]


def _positive(v: float, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise InputError(f"{name} must be a positive number, got {v!r}", field=name)
    return float(v)


# ---- reading prices backwards -------------------------------------------------------------


def decode_to_prefill_mfu(input_price: float, output_price: float) -> float:
    """Decode MFU ÷ prefill MFU implied by prices that track cost.

    A token costs 2·N_active FLOPs whether it is read (prefill) or written (decode); if prices
    follow cost, output/input = time per output token / time per input token = prefill MFU /
    decode MFU. Output priced 5× input: decode runs at a fifth of prefill's utilisation,
    memory-bound with t_mem ≈ 5·t_compute (the lecture).
    """
    return _positive(input_price, "input_price") / _positive(output_price, "output_price")


def kv_bytes_from_price_step(
    threshold_tokens: float, active_params: float, flops_per_byte: float
) -> float:
    """KV bytes per token implied by a long-context price step at `threshold_tokens`.

    Take the step as the context where one sequence's KV fetch equals its matmuls:
    S · kv / BW = 2 · N_active / FLOP/s, so kv = 2 · N_active / (FLOP/s ÷ BW · S). The
    lecture: 100B active, ratio 300 multiply-adds per byte (600 FLOP/B), 200k tokens:
    2 · 100e9 / (600 · 200e3) ≈ 1,667 bytes per token.
    """
    S = _positive(threshold_tokens, "threshold_tokens")
    N = _positive(active_params, "active_params")
    r = _positive(flops_per_byte, "flops_per_byte")
    return 2.0 * N / (r * S)


def cost_floor(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    context_len: int = 4096,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
) -> dict[str, float]:
    """The ideal cost per million input and output tokens at `context_len`.

    Input: one prefill of the whole context (compute-bound: a floor any batch shares).
    Output: a decode step at the largest batch that fits with that context.
    """
    spec = get_model(model)
    system = as_system(hardware, chips)
    kw: dict[str, Any] = {"weight_dtype": weight_dtype, "kv_dtype": kv_dtype}
    pre = prefill(spec, system, batch=1, prompt_len=context_len, **kw)
    fit = int(max_batch(spec, system, context_len=context_len, **kw))
    if fit < 1:
        raise InputError(
            f"{spec.name} does not fit on {system.n_chips} × {system.chip.id} at context "
            f"{context_len:,}: no batch to price",
            field="chips",
        )
    dec = decode_step(spec, system, batch=fit, context_len=context_len, **kw)
    return {
        "usd_per_million_input_tokens": float(usd_per_token(pre)) * 1e6,
        "usd_per_million_output_tokens": float(usd_per_token(dec)) * 1e6,
        "batch": float(fit),
        "kv_bytes_per_token": spec.kv_bytes_per_token(get_dtype(kv_dtype).bytes),
    }


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
    rate = _positive(tokens_per_s, "tokens_per_s")
    seconds = _positive(days, "days") * 86400.0
    N = _positive(active_params, "active_params")
    mfu_pt = _positive(pretrain_mfu, "pretrain_mfu")
    mfu_inf = _positive(inference_mfu if inference_mfu is not None else mfu_pt / 3, "inference_mfu")
    mfu_rl = _positive(rl_mfu if rl_mfu is not None else mfu_inf, "rl_mfu")
    k_rl = _positive(rl_flops_per_token, "rl_flops_per_token")
    d_inf = rate * seconds
    cost = 2.0 * N * d_inf / mfu_inf  # in FLOP-at-peak units; N cancels below
    d_pt = cost * mfu_pt / (6.0 * N)
    d_rl = cost * mfu_rl / (k_rl * N)
    chinchilla = 20.0 * N
    return BalanceResult(d_inf, d_pt, d_rl, chinchilla, d_pt / chinchilla)


# ---- where to keep a KV cache ---------------------------------------------------------------


@dataclass(frozen=True)
class Tier:
    """A memory tier as one device: capacity, read bandwidth, and its cost per second."""

    id: str
    name: str
    capacity_bytes: float
    bandwidth: float  # bytes/s
    usd_per_s: float
    sources: dict[str, str]
    notes: str = ""

    @property
    def drain_time_s(self) -> float:
        return self.capacity_bytes / self.bandwidth


@functools.cache
def _tier_records() -> dict[str, dict[str, Any]]:
    path = resources.files("llm_roofline").joinpath("data/tiers.toml")
    return dict(tomllib.loads(path.read_text(encoding="utf-8")))


def load_tiers(hardware: str | Chip) -> list[Tier]:
    """HBM (the chip's own memory and rental price) and the device tiers of data/tiers.toml."""
    chip = hardware if isinstance(hardware, Chip) else as_system(hardware).chip
    if not chip.price_usd_per_s > 0:
        raise InputError(f"{chip.id} has no price in the catalog", field="price_usd_per_hour")
    tiers = [
        Tier(
            "hbm",
            f"{chip.name} HBM",
            chip.memory_bytes,
            chip.memory_bw,
            chip.price_usd_per_s,
            dict(chip.sources),
            "the accelerator's own memory",
        )
    ]
    for tid, rec in _tier_records().items():
        if tid in ("hbm", "prices") or not isinstance(rec, dict):
            continue
        try:
            years = float(rec.get("amortise_years", 3))
            tiers.append(
                Tier(
                    id=tid,
                    name=str(rec["name"]),
                    capacity_bytes=float(rec["capacity_gb"]) * 1e9,
                    bandwidth=float(rec["bandwidth_gb_per_s"]) * 1e9,
                    usd_per_s=float(rec["price_usd"]) / (years * 365 * 86400),
                    sources=dict(rec.get("sources", {})),
                    notes=str(rec.get("notes", "")),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"tier {tid!r} is malformed: {exc}", field=tid) from None
    return tiers


def cache_costs(
    model: str | ModelSpec,
    hardware: str | Chip,
    chips: int = 1,
    *,
    context_len: int,
    hold_s: ArrayLike,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
) -> dict[str, Any]:
    """Dollars to keep one sequence's KV cache for `hold_s` seconds in each tier and bring it
    back, against recomputing it with a prefill.

    Holding: (cache bytes / tier capacity) × the tier's cost per second × hold time.
    Bringing it back: the accelerators wait for bytes / tier bandwidth, priced at the chips'
    rate. Recomputing: the prefill of `context_len` tokens (ideal, batch 1).
    """
    spec = get_model(model)
    system = as_system(hardware, chips)
    if context_len < 1:
        raise InputError("context_len must be positive", field="context_len")
    hold = np.asarray(hold_s, dtype=np.float64)
    if not (np.all(np.isfinite(hold)) and np.all(hold >= 0)):
        raise InputError("hold times must be zero or positive", field="hold_s")
    nbytes = float(spec.kv_elements_per_sequence(context_len)) * get_dtype(kv_dtype).bytes
    pre = prefill(
        spec, system, batch=1, prompt_len=context_len, weight_dtype=weight_dtype, kv_dtype=kv_dtype
    )
    recompute = float(pre.t_step) * system.price_usd_per_s
    tiers = load_tiers(system.chip)
    out: dict[str, Any] = {
        "kv_bytes": nbytes,
        "recompute_usd": recompute,
        "recompute_s": float(pre.t_step),
        "hold_s": hold,
        "tiers": {},
    }
    for t in tiers:
        holding = nbytes / t.capacity_bytes * t.usd_per_s * hold
        fetch_s = nbytes / t.bandwidth
        out["tiers"][t.id] = {
            "name": t.name,
            "drain_time_s": t.drain_time_s,
            "fetch_s": fetch_s,
            "usd": holding + fetch_s * system.price_usd_per_s,
        }
    costs = np.stack([v["usd"] for v in out["tiers"].values()] + [np.full_like(hold, recompute)])
    names = [*out["tiers"], "recompute"]
    out["cheapest"] = [names[i] for i in np.argmin(costs, axis=0)]
    return out


# ---- cost against context -------------------------------------------------------------------


def cost_vs_context(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    contexts: ArrayLike,
    chips: int = 1,
    *,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
) -> dict[str, FloatArray]:
    """Ideal $ per million output tokens against context, at the largest batch that fits at
    each context (0 where not even one sequence fits), and at batch 1.

    Long context costs more twice over: every step reads more KV per sequence, and fewer
    sequences fit beside the weights, so the weight fetch is shared among fewer tokens.
    """
    spec = get_model(model)
    system = as_system(hardware, chips)
    S = np.asarray(contexts, dtype=np.float64)
    if S.ndim != 1 or S.size == 0 or not np.all(np.isfinite(S)) or np.any(S < 1):
        raise InputError("contexts must be a non-empty list of positive numbers", field="contexts")
    kw: dict[str, Any] = {"weight_dtype": weight_dtype, "kv_dtype": kv_dtype}
    fit = np.floor(np.asarray(max_batch(spec, system, context_len=S, **kw), dtype=np.float64))
    B = np.maximum(fit, 1.0)
    best = usd_per_token(decode_step(spec, system, batch=B, context_len=S, **kw)) * 1e6
    one = usd_per_token(decode_step(spec, system, batch=1, context_len=S, **kw)) * 1e6
    return {
        "context": S,
        "batch": fit,
        "usd_per_million_output_tokens": np.where(fit >= 1, best, np.inf),
        "usd_per_million_output_tokens_batch1": np.asarray(one, dtype=np.float64),
    }
