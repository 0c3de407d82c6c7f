"""The lecture's closed forms: the latency floor, the balance batch B* and the balanced context.

Latency floor = the weights one token needs, read once at full bandwidth (`params_read(1)`;
for a dense model all weights, for MoE the experts one token touches). B* = (FLOP/s / BW) ·
(bytes per weight / 2) · (N_total / N_active), N_total the weights a step reads at full expert
coverage (`params_read_all_experts`), N_active the parameters multiplied per token. The
balanced context is where one sequence's KV fetch equals its matmul time. See docs/design.md,
"Memory, cost, energy".
"""

from __future__ import annotations

from llm_roofline._core import checks
from llm_roofline._core.dtypes import get_dtype
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.hardware.chip import Chip, System
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec

__all__ = [
    "as_system",
    "balance_batch",
    "balance_batch_formula",
    "balanced_context",
    "balanced_context_formula",
    "latency_floor",
]


def as_system(hardware: str | Chip | System, chips: int = 1) -> System:
    """A System from a catalog id, a Chip and a chip count, or a System (returned as is)."""
    if isinstance(hardware, System):
        return hardware
    return System(get_hardware(hardware), chips)


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
    checks.positives(
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


def balanced_context_formula(
    flops: float, bw: float, n_active: float, kv_bytes_per_token: float
) -> float:
    """The context S at which one sequence's KV fetch equals its matmul time:
    S · kv_bytes / BW = 2 · N_active / FLOP/s, so S = 2 · N_active · BW / (FLOP/s · kv_bytes).

    Read backwards it is the lecture's price-step argument: a long-context surcharge at S
    implies kv_bytes = (BW / FLOP/s) · 2 · N_active / S.
    """
    checks.positives(flops=flops, bw=bw, n_active=n_active, kv_bytes_per_token=kv_bytes_per_token)
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
