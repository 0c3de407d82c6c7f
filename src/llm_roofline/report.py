"""Tables of the lecture's numbers for one model on one system (no formulas here: every figure
comes from the engine)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .catalog import get_model
from .cost import usd_per_million_tokens
from .dtypes import get_dtype
from .hardware import Chip, System
from .memory import max_batch, memory_use, weights_per_chip
from .model import ModelSpec
from .parallel import Parallelism
from .roofline import as_system, balance_batch, decode_step, latency_floor

__all__ = ["SWEEP_COLUMNS", "DecodeReport", "decode_report", "sweep"]


@dataclass(frozen=True)
class DecodeReport:
    """Headline figures and a batch table for one model, system, context and data types."""

    model: str
    hardware: str
    chips: int
    context_len: int
    weight_dtype: str
    kv_dtype: str
    overlap: str
    latency_floor_s: float
    all_weights_time_s: float
    balance_batch: float
    drain_time_s: float
    max_batch: int
    weights_per_chip_bytes: float
    capacity_per_chip_bytes: float
    max_context: int | None
    beyond_max_context: bool
    rows: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _batches(largest: int) -> list[int]:
    """1, 2, 4, ... up to the largest batch that fits, and that batch itself."""
    out = [1]
    while out[-1] * 2 <= largest:
        out.append(out[-1] * 2)
    if largest > out[-1]:
        out.append(largest)
    return out


def decode_report(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    context_len: int = 4096,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    overlap: str = "full",
    parallel: Parallelism | None = None,
) -> DecodeReport:
    """The lecture's first-section numbers: latency floor, B*, drain time, the largest batch
    that fits, and a table over batch of each term of the step (with `parallel`, for that
    split, its communication included)."""
    spec = get_model(model)
    system = as_system(hardware, chips)
    fit = int(
        max_batch(
            spec,
            system,
            context_len=context_len,
            weight_dtype=weight_dtype,
            kv_dtype=kv_dtype,
            parallel=parallel,
        )
    )
    batches = np.asarray(_batches(max(fit, 1)), dtype=np.float64)
    step = decode_step(
        spec,
        system,
        batch=batches,
        context_len=context_len,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        overlap=overlap,
        parallel=parallel,
    )
    price_known = system.chip.price_usd_per_s > 0
    usd = usd_per_million_tokens(step) if price_known else np.full(batches.shape, np.nan)
    rows = [
        {
            "batch": int(b),
            "t_compute_s": float(step.t_compute[i]),
            "t_weights_s": float(step.t_weights[i]),
            "t_kv_s": float(step.t_kv[i]),
            "t_comm_s": float(step.t_comm[i]),
            "t_step_s": float(step.t_step[i]),
            "bound": str(step.bound_names[i]),
            "tokens_per_s": float(step.tokens_per_s[i]),
            "usd_per_million_tokens": float(usd[i]) if price_known else None,
            "fits": bool(b <= fit),
        }
        for i, b in enumerate(batches)
    ]
    return DecodeReport(
        model=spec.name,
        hardware=system.chip.id,
        chips=system.n_chips,
        context_len=int(context_len),
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        overlap=overlap,
        latency_floor_s=(
            latency_floor(spec, system, weight_dtype=weight_dtype)
            if parallel is None
            else float(
                decode_step(
                    spec,
                    system,
                    batch=1,
                    context_len=1,
                    weight_dtype=weight_dtype,
                    parallel=parallel,
                ).t_weights
            )
        ),
        all_weights_time_s=(
            spec.params_text * get_dtype(weight_dtype).bytes / system.memory_bw
            if parallel is None
            else weights_per_chip(spec, parallel)
            * get_dtype(weight_dtype).bytes
            * parallel.pp
            / system.chip.memory_bw
        ),
        balance_batch=balance_batch(spec, system, weight_dtype=weight_dtype),
        drain_time_s=system.chip.drain_time_s,
        max_batch=fit,
        weights_per_chip_bytes=spec.params_stored * get_dtype(weight_dtype).bytes / system.n_chips,
        capacity_per_chip_bytes=system.chip.memory_bytes,
        max_context=spec.max_context,
        beyond_max_context=bool(spec.max_context and context_len > spec.max_context),
        rows=rows,
    )


SWEEP_COLUMNS = (
    "model",
    "hardware",
    "chips",
    "batch",
    "context_len",
    "weight_dtype",
    "kv_dtype",
    "overlap",
    "t_matmul_s",
    "t_attn_s",
    "t_weights_s",
    "t_kv_s",
    "t_comm_s",
    "t_step_s",
    "bound",
    "tokens_per_s",
    "usd_per_million_tokens",
    "memory_per_chip_bytes",
    "fits",
)


def sweep(
    model: str | ModelSpec,
    hardware: str | Chip,
    batches: Sequence[int],
    contexts: Sequence[int],
    chips: Sequence[int],
    *,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    overlap: str = "full",
) -> list[dict[str, Any]]:
    """Decode steps over the grid chips × batch × context, one row per point."""
    spec = get_model(model)
    chip = as_system(hardware).chip
    B = np.asarray(batches, dtype=np.float64)[:, None]
    S = np.asarray(contexts, dtype=np.float64)[None, :]
    rows: list[dict[str, Any]] = []
    for n in chips:
        system = System(chip, int(n))
        step = decode_step(
            spec,
            system,
            batch=B,
            context_len=S,
            weight_dtype=weight_dtype,
            kv_dtype=kv_dtype,
            overlap=overlap,
        )
        mem = memory_use(
            spec, system, batch=B, context_len=S, weight_dtype=weight_dtype, kv_dtype=kv_dtype
        )
        priced = chip.price_usd_per_s > 0
        usd = usd_per_million_tokens(step) if priced else None
        names = step.bound_names
        total, fits = mem.total, mem.fits
        for i in range(B.shape[0]):
            for j in range(S.shape[1]):
                rows.append(
                    {
                        "model": model if isinstance(model, str) else spec.name,
                        "hardware": chip.id,
                        "chips": int(n),
                        "batch": int(B[i, 0]),
                        "context_len": int(S[0, j]),
                        "weight_dtype": weight_dtype,
                        "kv_dtype": kv_dtype,
                        "overlap": overlap,
                        "t_matmul_s": float(step.t_matmul[i, j]),
                        "t_attn_s": float(step.t_attn[i, j]),
                        "t_weights_s": float(step.t_weights[i, j]),
                        "t_kv_s": float(step.t_kv[i, j]),
                        "t_comm_s": float(step.t_comm[i, j]),
                        "t_step_s": float(step.t_step[i, j]),
                        "bound": str(names[i, j]),
                        "tokens_per_s": float(step.tokens_per_s[i, j]),
                        "usd_per_million_tokens": None if usd is None else float(usd[i, j]),
                        "memory_per_chip_bytes": float(total[i, j]),
                        "fits": bool(fits[i, j]),
                    }
                )
    return rows
