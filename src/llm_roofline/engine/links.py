"""One link and one collective, timed as latency + bytes / link bandwidth: which link a group
of chips crosses (`link`: the scale-up link when the group fits in one scale-up domain, the
scale-out network otherwise), a ring or tree all-reduce, an all-to-all, and a KV hand-off
between a prefill and a decode instance. The formulas are listed in `collectives.py`, which
times a split's collectives in one pass with them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.backend import ARRAY, Backend, Num
from llm_roofline._core.errors import InputError
from llm_roofline.hardware.chip import Chip

if TYPE_CHECKING:
    from llm_roofline.engine.parallel import CommModel
    from llm_roofline.model.spec import ModelSpec

__all__ = [
    "ACT_BYTES",
    "AllReduce",
    "allreduce_eval",
    "allreduce_parts",
    "allreduce_plan",
    "allreduce_time",
    "alltoall_eval",
    "alltoall_time",
    "kv_transfer_time",
    "link",
    "network_link",
]

ACT_BYTES = 2.0  # activations travel in 16 bits


def link(chip: Chip, group: int, comm: CommModel) -> tuple[float, float]:
    """(bandwidth bytes/s per chip per direction, latency α) of the link a group of `group`
    chips crosses: scale-up inside one domain, scale-out beyond it."""
    if group <= chip.scale_up_domain and chip.scale_up_bw > 0:
        return chip.scale_up_bw, comm.scale_up_latency_s
    if chip.scale_out_bw > 0:
        return network_link(chip, comm)
    raise InputError(
        f"a group of {group} chips leaves the {chip.scale_up_domain}-chip scale-up domain of "
        f"{chip.id}, and the catalog has no scale-out bandwidth for it",
        field="chips",
    )


def network_link(chip: Chip, comm: CommModel) -> tuple[float, float]:
    """The scale-out link (bandwidth per chip per direction, latency α)."""
    if chip.scale_out_bw > 0:
        return chip.scale_out_bw, comm.scale_out_latency_s
    raise InputError(f"the catalog has no scale-out bandwidth for {chip.id}", field="chips")


def kv_transfer_time(
    spec: ModelSpec,
    kv_bytes: float,
    chip: Chip,
    *,
    senders: int,
    receivers: int,
    fleet: int,
    comm: CommModel,
    tokens: FloatArray | float,
) -> FloatArray:
    """Seconds to move the KV cache of a prompt of `tokens` tokens (`kv_bytes` per element)
    from a prefill instance to a decode instance, whose `senders` and `receivers` chips hold
    parts of a sequence's KV, the two pools together `fleet` chips (module docstring)."""
    total = spec.kv_elements_stored(tokens) * kv_bytes
    bw, alpha = link(chip, fleet, comm)
    return np.asarray(alpha + total / (bw * min(senders, receivers)), dtype=np.float64)


# ---- all-reduce, all-to-all ------------------------------------------------------------------


@dataclass(frozen=True)
class AllReduce:
    """An all-reduce over n > 1 chips: ring and tree latency, the ring's 2(n−1)/n, bandwidth."""

    ring_lat: float
    tree_lat: float
    ring_share: float
    bw: float


def allreduce_plan(n: int, bw: float, alpha: float, latency: float | None) -> AllReduce:
    ring_lat = 2 * (n - 1) * alpha if latency is None else latency
    tree_lat = 2 * math.ceil(math.log2(n)) * alpha if latency is None else latency
    return AllReduce(ring_lat, tree_lat, 2 * (n - 1) / n, bw)


def allreduce_eval(xp: Backend, ar: AllReduce, m: Num) -> tuple[Num, Num]:
    """(time, latency part) of an all-reduce of `m` bytes: the cheaper of ring and tree."""
    ring = ar.ring_lat + ar.ring_share * m / ar.bw
    tree = ar.tree_lat + 2 * m / ar.bw
    return xp.minimum(ring, tree), xp.where(ring < tree, ar.ring_lat, ar.tree_lat)


def allreduce_parts(
    n: int, msg_bytes: FloatArray | float, bw: float, alpha: float, latency: float | None = None
) -> tuple[FloatArray, FloatArray]:
    """All-reduce of `msg_bytes` over n chips, the cheaper of ring and tree: (time, the
    latency part of that time)."""
    m = np.asarray(msg_bytes, dtype=np.float64)
    if n <= 1:
        return np.zeros_like(m), np.zeros_like(m)
    t, lat = allreduce_eval(ARRAY, allreduce_plan(n, bw, alpha, latency), m)
    return np.asarray(t, dtype=np.float64), np.asarray(lat + 0.0 * m, dtype=np.float64)


def allreduce_time(
    n: int, msg_bytes: FloatArray | float, bw: float, alpha: float, latency: float | None = None
) -> FloatArray:
    """All-reduce of `msg_bytes` over n chips: the cheaper of ring and tree."""
    return allreduce_parts(n, msg_bytes, bw, alpha, latency)[0]


def alltoall_eval(alpha: float, sent: Num, bw: float) -> Num:
    return alpha + sent / bw


def alltoall_time(n: int, sent_bytes: FloatArray | float, bw: float, alpha: float) -> FloatArray:
    """All-to-all over n chips where each chip sends `sent_bytes` to the others."""
    s = np.asarray(sent_bytes, dtype=np.float64)
    if n <= 1:
        return np.zeros_like(s)
    return np.asarray(alltoall_eval(alpha, s, bw), dtype=np.float64)
