"""The lecture's closed forms: the latency floor, the balance batch B* and the balanced context.

Latency floor = the weights one token needs, read once at full bandwidth (`params_read(1)`;
for a dense model all weights, for MoE the experts one token touches). B* = (FLOP/s / BW) ·
(bytes per weight / 2) · (N_total / N_active), N_total the weights a step reads at full expert
coverage (`params_read_all_experts`), N_active the parameters multiplied per token. The
balanced context is where one sequence's KV fetch equals its matmul time. See docs/design.md,
"Memory, cost, energy".
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .catalog import get_hardware, get_model
from .dtypes import get_dtype
from .errors import InputError
from .hardware import Chip, System
from .model import ModelSpec

if TYPE_CHECKING:
    from .deployment import Deployment

__all__ = [
    "as_system",
    "balance_batch",
    "balance_batch_formula",
    "balanced_context",
    "balanced_context_formula",
    "deployment_balance_batch",
    "latency_floor",
]


def as_system(hardware: str | Chip | System, chips: int = 1) -> System:
    """A System from a catalog id, a Chip and a chip count, or a System (returned as is)."""
    if isinstance(hardware, System):
        return hardware
    return System(get_hardware(hardware), chips)


def _positive(**values: float) -> None:
    for name, v in values.items():
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise InputError(f"{name} must be positive, got {v!r}", field=name)


def latency_floor(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    weight_dtype: str = "bf16",
) -> float:
    """The fastest a decode step can be: the weights one token needs, read once at full
    bandwidth (for a dense model all weights; for MoE the experts one token touches)."""
    spec = get_model(model)
    system = as_system(hardware, chips)
    return float(spec.params_read(1.0)) * get_dtype(weight_dtype).bytes / system.memory_bw


def balance_batch_formula(
    ops_per_byte: float, bytes_per_weight: float, n_total: float, n_active: float
) -> float:
    """B* = (FLOP/s / BW) · (bytes per weight / 2) · (N_total / N_active).

    The batch at which matmul time 2·N_active·B / FLOP/s equals the time to fetch all
    N_total weights (KV ignored): the lecture's balance point.
    """
    _positive(
        ops_per_byte=ops_per_byte,
        bytes_per_weight=bytes_per_weight,
        n_total=n_total,
        n_active=n_active,
    )
    return ops_per_byte * (bytes_per_weight / 2.0) * (n_total / n_active)


def balance_batch(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    *,
    weight_dtype: str = "bf16",
    compute_dtype: str | None = None,
) -> float:
    """B* for a catalog model on a chip: N_total = the weights a step reads when it touches
    every expert (`params_read_all_experts`: an untied input embedding only gathers rows, so
    it is left out, as the weight term leaves it out), N_active = parameters multiplied per
    token. For a dense model this is the batch where the engine's matmul time equals its
    weight time (to the gathered rows). The chip count cancels; KV traffic pushes the real
    balance higher."""
    spec = get_model(model)
    chip = as_system(hardware).chip
    cdt = compute_dtype or chip.compute_dtype_for(get_dtype(weight_dtype).name)
    return balance_batch_formula(
        chip.flops(cdt) / chip.memory_bw,
        get_dtype(weight_dtype).bytes,
        spec.params_read_all_experts,
        spec.params_multiplied,
    )


def deployment_balance_batch(dep: Deployment) -> float:
    """B* of a deployment: the batch (all replicas and data-parallel groups together) at which
    the busiest chip's matmul time equals its weight-fetch time, one micro-batch, KV left out.

    On one chip, or a dense model split by tp alone, this is `balance_batch` (the chip count
    cancels). A split moves it: pp stages each read their weights once per micro-batch of
    B / pp, so B* grows pp-fold; replicas and data-parallel groups each need their own B*;
    expert parallelism leaves each chip a share of the experts but all of the attention, so
    a chip's weights are not N_total / chips. Rather than a closed form per split, the
    engine's own terms are solved: matmul time grows in proportion to B, weight fetch never
    falls as B grows (MoE: more experts touched) and is bounded by all the weights, so the
    terms cross once; a grid brackets the crossing and finer grids close in on it.
    """

    def gap(batch: np.ndarray) -> np.ndarray:
        s = dep.decode(batch, 1)
        one = s.single or s  # one micro-batch: weights read once per step
        return np.asarray(one.t_matmul - one.t_weights, dtype=np.float64)

    grid = np.geomspace(1.0, 1e12, 121)  # 10 points a decade
    g = gap(grid)
    if g[0] >= 0:
        return 1.0
    above = np.nonzero(g >= 0)[0]
    if not above.size:  # weights unbounded by the batch: cannot happen for a real model
        raise InputError("no batch balances compute and weight fetch on this deployment")
    lo, hi = float(grid[above[0] - 1]), float(grid[above[0]])
    for _ in range(4):  # each round narrows the bracket 64-fold: 26% -> 2e-8 of B*
        fine = np.linspace(lo, hi, 65)
        first = int(np.argmax(gap(fine) >= 0))  # fine[-1] = hi is always at or past it
        lo, hi = float(fine[max(first - 1, 0)]), float(fine[first])
    return hi


def balanced_context_formula(
    flops: float, bw: float, n_active: float, kv_bytes_per_token: float
) -> float:
    """The context S at which one sequence's KV fetch equals its matmul time:
    S · kv_bytes / BW = 2 · N_active / FLOP/s, so S = 2 · N_active · BW / (FLOP/s · kv_bytes).

    Read backwards it is the lecture's price-step argument: a long-context surcharge at S
    implies kv_bytes = (BW / FLOP/s) · 2 · N_active / S.
    """
    _positive(flops=flops, bw=bw, n_active=n_active, kv_bytes_per_token=kv_bytes_per_token)
    return 2.0 * n_active * bw / (flops * kv_bytes_per_token)


def balanced_context(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    *,
    kv_dtype: str = "bf16",
    weight_dtype: str = "bf16",
    compute_dtype: str | None = None,
) -> float:
    """`balanced_context_formula` for a catalog model on a chip (batch cancels; windows
    ignored: the KV of every layer counted as if global)."""
    spec = get_model(model)
    chip = as_system(hardware).chip
    cdt = compute_dtype or chip.compute_dtype_for(get_dtype(weight_dtype).name)
    kv = spec.kv_bytes_per_token(get_dtype(kv_dtype).bytes)
    return balanced_context_formula(chip.flops(cdt), chip.memory_bw, spec.params_multiplied, kv)
