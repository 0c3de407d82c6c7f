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

from .catalog import get_model, list_models
from .deployment import Deployment
from .dtypes import get_dtype
from .errors import ConfigError, InputError
from .hardware import Chip
from .model import ModelSpec
from .roofline import as_system

__all__ = [
    "BalanceResult",
    "Tier",
    "balance",
    "cache_costs",
    "catalog_kv_vs_price_step",
    "cost_floor",
    "decode_to_prefill_mfu",
    "kv_bytes_from_price_step",
    "load_tiers",
    "prefill_time",
    "price_step_active_params",
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
    n = _positive(active_params, "active_params")
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
    S = _positive(threshold_tokens, "threshold_tokens")
    r = _positive(flops_per_byte, "flops_per_byte")
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


def cost_floor(dep: Deployment, *, context_len: int = 4096) -> dict[str, Any]:
    """Cost per million input and output tokens of a deployment at `context_len`, under its
    engine (`ideal`: the floor; a calibrated profile: the realistic estimate).

    Input: a prefill of the whole context on every independent group of chips (replicas ×
    data-parallel groups, so that none idles; compute-bound: a floor any batch shares).
    Output: a decode step at the largest batch that fits with that context.
    """
    S = _context(context_len)
    t_pre, prompts = prefill_time(dep, S)
    fit = int(dep.max_batch(S))
    if fit < 1:
        raise InputError(
            f"{dep.spec.name} does not fit on {dep.chips} × {dep.chip.id} ({dep.split_text()}) "
            f"at context {S:,}: no batch to price",
            field="chips",
        )
    dec = dep.decode(fit, S)
    price = _price(dep)
    t_dec, _, _ = dep.time(dec)
    return {
        "usd_per_million_input_tokens": price * t_pre / (prompts * S) * 1e6,
        "usd_per_million_output_tokens": float(price * t_dec.flat[0] / fit) * 1e6,
        "batch": float(fit),
        "kv_bytes_per_token": dep.model.kv_bytes_per_token(get_dtype(dep.kv_dtype).bytes),
        "engine": dep.engine,
    }


def prefill_time(dep: Deployment, context_len: int) -> tuple[float, int]:
    """Seconds to prefill `context_len` tokens of one prompt on every independent group of the
    deployment at once (replicas × data-parallel groups: no chip idles), under its engine, and
    how many prompts that is. A prompt's share of the deployment's price is price × t / n."""
    n = dep.groups
    t, _, _ = dep.time(dep.prefill(n, context_len), is_prefill=True)
    return float(np.asarray(t).flat[0]), n


def _price(dep: Deployment) -> float:
    """USD per second of the whole deployment, or an error naming the missing price."""
    if not dep.chip.price_usd_per_s > 0:
        raise InputError(
            f"{dep.chip.id} has no price in the catalog; give one (USD per chip-hour)",
            field="price_usd_per_hour",
        )
    return dep.system.price_usd_per_s


def _context(context_len: int) -> int:
    ok = isinstance(context_len, (int, np.integer)) and not isinstance(context_len, bool)
    if not ok or context_len < 1:
        raise InputError(
            f"context_len must be a positive integer, got {context_len!r}", field="context_len"
        )
    return int(context_len)


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


def cache_costs(dep: Deployment, *, context_len: int, hold_s: ArrayLike) -> dict[str, Any]:
    """Dollars to keep one sequence's KV cache for `hold_s` seconds in each tier and bring it
    back, against recomputing it with a prefill (timed under the deployment's engine).

    One sequence lives on one instance (a replica) of n = chips / replicas chips.
    Holding: (cache bytes / tier capacity) × the tier's cost per second × hold time.
    Bringing it back: the instance's n chips wait for bytes / tier bandwidth, priced at the n
    chips' rate. Recomputing: one prompt's share of a prefill of `context_len` tokens on every
    independent group (`prefill_time`; the same figure as `cost_floor`'s input cost).

    HBM on n chips: the instance holds its KV cache spread over its chips (tensor parallelism
    shards each sequence's K and V by head), so one sequence's cache takes bytes / n on each
    chip and comes back over all n chips at once: bytes / (n · HBM bandwidth) seconds, charged
    at n chips' price, which is the same dollars as one chip reading all of it. Holding it
    takes bytes / (n · capacity) of n chips' price: again one chip's share. Each other tier is
    one device (a DIMM, a drive, a disk) that the whole instance waits on. Each tier's
    `devices` and `bandwidth` say which was used.

    Fit: the weights and this one sequence's KV cache, per chip (the deployment's split),
    against a chip's memory. When they do not fit, `fits` is False and `warning` says by how
    much (otherwise None); the costs are computed all the same.
    """
    spec = dep.model
    S = _context(context_len)
    hold = np.asarray(hold_s, dtype=np.float64)
    if not (np.all(np.isfinite(hold)) and np.all(hold >= 0)):
        raise InputError("hold times must be zero or positive", field="hold_s")
    n = dep.instance_chips
    nbytes = float(spec.kv_elements_per_sequence(S)) * get_dtype(dep.kv_dtype).bytes
    mem = dep.memory(1, S)
    weights_pc, kv_pc = float(mem.weights.flat[0]), float(mem.kv.flat[0])
    fits = weights_pc + kv_pc <= mem.capacity
    warning = None
    if not fits:
        warning = (
            f"{spec.name} does not fit on {dep.chips} × {dep.chip.id} ({dep.split_text()}): "
            f"weights {weights_pc / 1e9:,.1f} GB + KV cache {kv_pc / 1e9:,.1f} GB = "
            f"{(weights_pc + kv_pc) / 1e9:,.1f} GB per chip, {mem.capacity / 1e9:,.1f} GB "
            f"per chip available (costs computed as if it did)"
        )
    price = _price(dep) / dep.replicas  # one instance's chips
    t_pre, prompts = prefill_time(dep, S)
    recompute = _price(dep) * t_pre / prompts  # one prompt's share, as pricing's input cost
    system = dep.instance
    tiers = load_tiers(system.chip)
    out: dict[str, Any] = {
        "engine": dep.engine,
        "kv_bytes": nbytes,
        "chips": n,
        "weights_bytes_per_chip": weights_pc,
        "kv_bytes_per_chip": kv_pc,
        "capacity_bytes_per_chip": float(mem.capacity),
        "fits": bool(fits),
        "warning": warning,
        "recompute_usd": recompute,
        "recompute_s": t_pre,
        "hold_s": hold,
        "tiers": {},
    }
    for t in tiers:
        devices = n if t.id == "hbm" else 1
        capacity, bandwidth = devices * t.capacity_bytes, devices * t.bandwidth
        holding = nbytes / capacity * (devices * t.usd_per_s) * hold
        fetch_s = nbytes / bandwidth
        out["tiers"][t.id] = {
            "name": t.name,
            "devices": devices,
            "bandwidth": bandwidth,
            "drain_time_s": t.drain_time_s,
            "fetch_s": fetch_s,
            "usd": holding + fetch_s * price,
        }
    costs = np.stack([v["usd"] for v in out["tiers"].values()] + [np.full_like(hold, recompute)])
    names = [*out["tiers"], "recompute"]
    out["cheapest"] = [names[i] for i in np.argmin(costs, axis=0)]
    return out


# ---- cost against context -------------------------------------------------------------------


def cost_vs_context(dep: Deployment, contexts: ArrayLike) -> dict[str, Any]:
    """$ per million output tokens against context under the deployment's engine, at the
    largest batch that fits at each context (inf where not even one sequence fits), and at
    batch 1.

    Long context costs more twice over: every step reads more KV per sequence, and fewer
    sequences fit beside the weights, so the weight fetch is shared among fewer tokens.
    """
    S = np.asarray(contexts, dtype=np.float64)
    if S.ndim != 1 or S.size == 0 or not np.all(np.isfinite(S)) or np.any(S < 1):
        raise InputError("contexts must be a non-empty list of positive numbers", field="contexts")
    price = _price(dep)
    fit = np.floor(np.asarray(dep.max_batch(S), dtype=np.float64))
    B = np.maximum(fit, 1.0)
    best = price * dep.time(dep.decode(B, S))[0] / B * 1e6
    one = price * dep.time(dep.decode(1, S))[0] * 1e6
    return {
        "context": S,
        "batch": fit,
        "usd_per_million_output_tokens": np.where(fit >= 1, best, np.inf),
        "usd_per_million_output_tokens_batch1": np.asarray(one, dtype=np.float64),
        "engine": dep.engine,
    }
