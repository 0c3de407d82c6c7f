"""Memory per chip: weights, KV cache, activations, against capacity.

Without a split the weights and the KV cache spread evenly over the n chips; with one
(`Parallelism`), the fullest chip of the busiest data-parallel group is counted: a sequence's
KV cache lives whole in one group, so the busiest holds ⌈B / dp⌉ sequences, and `memory_use`'s
`fits` agrees with `max_batch` (B fits exactly when B <= max_batch). A configuration that does
not fit is reported with its numbers, never silently.

The KV cache is what a sequence at context S must have room for (`ModelSpec.kv_elements_stored`):
all S tokens in a global layer, min(S, W) in a sliding-window or chunked layer. A chunked
layer's step reads only the S mod W tokens of the current chunk, but the sequence will fill
its chunk, so memory holds the whole of it: the largest batch never grows with S.

Activations of a pass, per token in flight (flash attention: no S×S score matrix is stored):
the residual stream, the normed input and the attention output (3·D), plus the widest
intermediate of the feed-forward block (its gate and up halves: 2·F_active); and the logits of
the last position of each sequence in fp32 (4·V bytes). Activations are held in 16 bits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.engine.roofline import as_system, broadcast_grid, positive_array
from llm_roofline.hardware.chip import Chip, System
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec

__all__ = [
    "MemoryUse",
    "activation_bytes",
    "busiest_group",
    "claimed_kv_bytes",
    "held_bytes",
    "max_batch",
    "memory_use",
    "weights_per_chip",
]

ACT_BYTES = 2.0  # activations in bf16
LOGIT_BYTES = 4.0  # logits in fp32


def activation_bytes(
    spec: ModelSpec, batch: ArrayLike, tokens_per_seq: ArrayLike = 1
) -> FloatArray:
    """Transient activation bytes of one pass over batch × tokens_per_seq tokens."""
    B = np.asarray(batch, dtype=np.float64)
    T = np.asarray(tokens_per_seq, dtype=np.float64)
    per_token = (3 * spec.d_model + 2 * spec.max_d_ff_active) * ACT_BYTES
    return np.asarray(B * T * per_token + B * spec.vocab_size * LOGIT_BYTES, dtype=np.float64)


@dataclass(frozen=True)
class MemoryUse:
    """Bytes per chip, arrays on the broadcast grid of batch and context."""

    weights: FloatArray
    kv: FloatArray
    activations: FloatArray
    capacity: float  # usable bytes per chip

    @property
    def total(self) -> FloatArray:
        return self.weights + self.kv + self.activations

    @property
    def fits(self) -> NDArray[np.bool_]:
        return np.asarray(self.total <= self.capacity)

    @property
    def headroom(self) -> FloatArray:
        """Bytes left per chip (negative: short by that much)."""
        return self.capacity - self.total


def _reserve(reserve_fraction: float) -> float:
    ok = isinstance(reserve_fraction, (int, float)) and not isinstance(reserve_fraction, bool)
    if not ok or not 0.0 <= reserve_fraction < 1.0:
        raise InputError(
            f"reserve_fraction must be in [0, 1), got {reserve_fraction!r}",
            field="reserve_fraction",
        )
    return reserve_fraction


# size: the public call's keywords: the model, the chips and their split, the point, the types
def memory_use(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    batch: ArrayLike = 1,
    context_len: ArrayLike = 1,
    *,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    tokens_per_seq: ArrayLike = 1,
    reserve_fraction: float = 0.0,
    parallel: Parallelism | None = None,
) -> MemoryUse:
    """Memory per chip for `batch` sequences holding `context_len` tokens of KV each.

    `reserve_fraction` keeps part of each chip's memory free (engines reserve some for their
    runtime: vLLM uses 90% of the card by default, i.e. 0.1). With `parallel`, the fullest
    chip: weights split over pp · tp (experts over the stage's chips, ceil(E / ep) experts on
    the fullest), KV over the pp stages' layers and min(tp, KV heads), and the sequences of
    the busiest data-parallel group (`busiest_group`: ⌈batch / dp⌉ whole sequences, so that
    `fits` holds exactly when batch <= `max_batch`).
    """
    spec = get_model(model)
    system = as_system(hardware, chips)
    B = positive_array(batch, "batch")
    S = positive_array(context_len, "context_len")
    T = positive_array(tokens_per_seq, "tokens_per_seq")
    broadcast_grid(B, S, T, names=("batch", "context_len", "tokens_per_seq"))
    wb, kvb = get_dtype(weight_dtype).bytes, get_dtype(kv_dtype).bytes
    if parallel is None:
        n = system.n_chips
        weights, kv = held_bytes(spec, wb, kvb, S, seqs=B, chips=n)
        act = activation_bytes(spec, B, T) / n
    else:
        par = _matching(parallel, system).check(spec)
        group = busiest_group(B, par.dp)
        weights, kv = held_bytes(spec, wb, kvb, S, seqs=group, par=par)
        act = activation_bytes(spec, group / par.pp, T)
    shape = np.broadcast_shapes(np.shape(kv), np.shape(act))
    return MemoryUse(
        weights=np.full(shape, weights),
        kv=np.broadcast_to(kv, shape),
        activations=np.broadcast_to(act, shape),
        capacity=system.chip.memory_bytes * (1.0 - _reserve(reserve_fraction)),
    )


def held_bytes(
    spec: ModelSpec,
    weight_bytes: float,
    kv_bytes: float,
    context_len: ArrayLike,
    *,
    seqs: ArrayLike = 1.0,
    chips: int = 1,
    par: Parallelism | None = None,
) -> tuple[float, FloatArray]:
    """(weight bytes, KV bytes of `seqs` sequences at `context_len`) on one chip: spread
    evenly over `chips` chips without a split (the whole model at chips = 1), or on the split's
    fullest chip: `weights_per_chip`, and the KV over the pp stages' layers and the KV shards
    (`Parallelism.kv_shards`). The one copy of weights + KV that `memory_use`, `max_batch` and
    the fit advice count by."""
    kv = np.asarray(seqs, dtype=np.float64) * spec.kv_elements_stored(context_len) * kv_bytes
    if par is None:
        return spec.params_stored * weight_bytes / chips, kv / chips
    return weights_per_chip(spec, par) * weight_bytes, kv / (par.pp * par.kv_shards(spec))


def busiest_group(batch: FloatArray, dp: int) -> FloatArray:
    """Sequences on the busiest of `dp` data-parallel groups: a sequence's KV cache lives
    whole in one group, so ⌈batch / dp⌉ (64 over dp 5: 13, not 12.8). With dp = 1 the batch
    as given (a fractional batch, as the lecture's formulas use, is kept)."""
    if dp == 1:
        return batch
    return np.asarray(np.ceil(batch / dp), dtype=np.float64)


def _matching(par: Parallelism, system: System) -> Parallelism:
    if par.chips != system.n_chips:
        raise InputError(
            f"the parallel split is for {par.chips} chips, the system has {system.n_chips}",
            field="chips",
        )
    return par


def claimed_kv_bytes(
    memory: float, weights: float, activations: float, share: float, *, of_free: bool
) -> float:
    """The bytes a serving engine gives the KV cache on one chip of `memory` bytes holding
    `weights` and `activations`: `share` of the whole memory less the two (vLLM's
    gpu_memory_utilization, SGLang's mem_fraction_static), or, `of_free`, `share` of what
    the two leave (TensorRT-LLM's free_gpu_memory_fraction, LMDeploy's
    cache_max_entry_count); never below 0.

    >>> claimed_kv_bytes(80e9, 70e9, 2e9, 0.9, of_free=False) / 1e9  # 72 - 70 - 2
    0.0
    >>> round(claimed_kv_bytes(80e9, 60e9, 2e9, 0.9, of_free=True) / 1e9, 6)  # 0.9 x 18
    16.2
    """
    if of_free:
        return max(share * (memory - weights - activations), 0.0)
    return max(share * memory - weights - activations, 0.0)


def weights_per_chip(spec: ModelSpec, par: Parallelism) -> float:
    """Parameters on the fullest chip: non-expert weights (and any vision tower) split over
    pp · tp, and ceil(E / ep) experts of each MoE layer split over (chips / pp) / ep chips."""
    n = (spec.params_stored - spec.params_routed) / (par.pp * par.tp)
    for g in spec.groups:
        if g.ffn.is_moe:
            local = math.ceil(g.ffn.n_experts / par.ep)
            n += g.count / par.pp * local * g.ffn.expert_params(spec.d_model) / par.expert_tp
    return n


def max_batch(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    context_len: ArrayLike = 1,
    *,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    reserve_fraction: float = 0.0,
    parallel: Parallelism | None = None,
) -> NDArray[np.int64]:
    """The largest batch whose weights, KV cache and activations fit at `context_len`.

    0 when the weights alone (plus one sequence) do not fit. With `parallel`, on the fullest
    chip (sequences spread over the dp groups: the batch is dp times one group's).
    """
    spec = get_model(model)
    system = as_system(hardware, chips)
    S = positive_array(context_len, "context_len")
    wb, kvb = get_dtype(weight_dtype).bytes, get_dtype(kv_dtype).bytes
    reserve = 1.0 - _reserve(reserve_fraction)
    if parallel is None:
        weights, kv_per_seq = held_bytes(spec, wb, kvb, S)  # the whole model, one sequence
        free = system.memory_bytes * reserve - weights
        b = np.floor(np.maximum(free, 0.0) / (kv_per_seq + activation_bytes(spec, 1.0, 1.0)))
    else:
        par = _matching(parallel, system).check(spec)
        weights, kv_per_seq = held_bytes(spec, wb, kvb, S, par=par)
        free = system.chip.memory_bytes * reserve - weights
        per_group_seq = kv_per_seq + activation_bytes(spec, 1.0, 1.0) / par.pp
        b = par.dp * np.floor(np.maximum(free, 0.0) / per_group_seq)
    return np.asarray(b, dtype=np.int64)
