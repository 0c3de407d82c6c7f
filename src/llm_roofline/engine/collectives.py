"""The collectives a split runs in one pass, and their time.

Costed as latency + bytes / link bandwidth on the link the group crosses: the scale-up link
(NVLink, ICI, Infinity Fabric) when the group fits in one scale-up domain, the scale-out
network otherwise.

- all-reduce over n: ring `2(n−1)·α + 2(n−1)/n · M / bw` or tree `2⌈log2 n⌉·α + 2M / bw`; the
  cheaper is taken (NCCL picks per message size).
- all-to-all: `α + bytes sent per chip / bw` (one round over a switched or direct network),
  the bytes of the busiest chip: an EP dispatch sends the tokens of the busiest dp group,
  split over its tp ranks (`comm_eval`), as attention's collectives carry them.
- point-to-point (pipeline hop): `α + bytes / bw`.
- KV hand-off (disaggregated serving, `kv_transfer_time`): a prompt's KV cache from a prefill
  instance to a decode instance, `α + bytes / (bw · min(sending chips, receiving chips))`,
  counting on each side the chips that hold a part of one sequence's KV (pp stages × the TP
  ranks splitting its heads: `Parallelism.sequence_kv_chips`), each sending or receiving its
  part in parallel, over the scale-up link when both pools sit in one scale-up domain, the
  scale-out network otherwise.

TP costs one all-reduce per layer for a parallel attention+FFN block and two for a serial one;
a MoE layer's FFN reduces over the chips that split each expert. EP costs an all-to-all
dispatch and one combine per MoE layer. PP costs one hop per stage. On torus machines (TPU)
the tensor split follows ESTI (Pope et al. 2022): 1D weight-stationary, 2D weight-stationary
or weight-gathered, the cheapest for the pass (`_torus`). The split itself, the checks and
the schedule's choices are in `parallel.py`.

`comm_plan` resolves what depends on the model, chip, split and `CommModel` alone (the links,
their latency, the per-layer counts); `comm_eval` evaluates it for a pass's tokens, on Python
floats or arrays (`backend.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.backend import ARRAY, Backend, Num
from llm_roofline.engine.links import (
    ACT_BYTES,
    AllReduce,
    allreduce_eval,
    allreduce_parts,
    allreduce_plan,
    allreduce_time,
    alltoall_eval,
    alltoall_time,
    kv_transfer_time,
    link,
    network_link,
)
from llm_roofline.hardware.chip import Chip
from llm_roofline.model.weights_read import experts_touched

if TYPE_CHECKING:
    from llm_roofline.engine.parallel import CommModel, Parallelism
    from llm_roofline.model.spec import ModelSpec

__all__ = [
    "ACT_BYTES",
    "CommPlan",
    "allreduce_parts",
    "allreduce_time",
    "alltoall_time",
    "comm_eval",
    "comm_plan",
    "comm_terms",
    "comm_time",
    "kv_transfer_time",
    "link",
    "network_link",
]

# ---- the plan of one split -------------------------------------------------------------------


@dataclass(frozen=True)
class _Torus:
    """ESTI's per-layer communication on a torus of n chips, one collective per entry of the
    inner widths (the FFN's F, and for a serial block the attention output's H·d_v): the
    latency `lat`, 1D's 2c(n−1)/n, 2D's Σ√(D·w/n), weight-gathered's time (tokens-free)."""

    layout: str
    layers: float  # L / pp
    lat: float
    one_d: float
    width: float
    gathered: float
    d_model: int
    bw: float


def _torus_plan(
    layout: str, D: int, widths: tuple[int, ...], n: int, layer_w: float, bw: float, alpha: float
) -> tuple[float, float, float, float]:
    c = len(widths)
    lat = c * (2 * math.ceil(math.log2(n)) * alpha if n > 1 else 0.0)
    width = sum(math.sqrt(D * w / n) for w in widths)
    return lat, c * 2 * (n - 1) / n, width, lat + (n - 1) / n * layer_w / bw


def _torus(xp: Backend, p: _Torus, tokens: Num) -> tuple[Num, Num]:
    """(time, latency part) of one layer's collectives on the torus for `tokens` tokens."""
    one_d = p.lat + p.one_d * tokens * p.d_model * ACT_BYTES / p.bw
    two_d = p.lat + 4 * tokens * p.width * ACT_BYTES / p.bw
    gathered = xp.full_like(tokens, p.gathered)
    if p.layout == "auto":
        t = xp.minimum(xp.minimum(one_d, two_d), gathered)
    else:
        t = {"1d": one_d, "2d": two_d, "wg": gathered}[p.layout]
    return t, xp.full_like(tokens, p.lat)


@dataclass(frozen=True)
class CommPlan:
    """The collectives of one split, resolved (`comm_plan`); `comm_eval` times them."""

    dp: int
    pp: int
    stage_chips: int
    d_model: int
    torus: _Torus | None  # tp > 1 on a torus machine
    tp_allreduce: AllReduce | None  # after attention (and a dense FFN) over tp, else
    # per layer group: (layers / pp, all-reduces per layer, the expert group's all-reduce
    # when the chips splitting each expert span more than the TP group, the share of tokens
    # reaching one expert group)
    groups: tuple[tuple[float, int, AllReduce | None, float], ...]
    kv_shard: tuple[float, int, int, int, float, float] | None  # L / pp, tp, H, d_qk + d_v, bw, α
    experts: tuple[tuple[float, float, float, float], ...]  # per MoE group: L/pp, hit, bw, α
    ep: int
    dispatch_bytes: float
    hop: tuple[float, float] | None  # pipeline hop: (bw, α)


def _tensor_torus(
    spec: ModelSpec, chip: Chip, par: Parallelism, comm: CommModel, weight_bytes: float, n_ar: int
) -> _Torus:
    """A TPU's tensor split on its torus (ESTI's layouts): the widths each layer reduces, the
    weights a layer holds, and the cheapest layout's plan."""
    D = spec.d_model
    bw, alpha = link(chip, par.tp, comm)
    widest = max(g.ffn.d_ff for g in spec.groups)
    if comm.allreduces_per_layer is None and not spec.parallel_block:
        a = spec.attention
        widths: tuple[int, ...] = (a.n_heads * a.v_head_dim, widest)
    else:
        widths = (widest,) * n_ar
    layer_w = (spec.params_text - spec.params_routed) / spec.n_layers * weight_bytes
    lat, one_d, width, gathered = _torus_plan(comm.layout, D, widths, par.tp, layer_w, bw, alpha)
    layers = spec.n_layers / par.pp
    return _Torus(comm.layout, layers, lat, one_d, width, gathered, D, bw)


def comm_plan(
    spec: ModelSpec, chip: Chip, par: Parallelism, comm: CommModel, weight_bytes: float
) -> CommPlan:
    """Resolve the links and counts of `comm_terms` for one split (raises InputError when a
    group needs a link the chip does not have)."""
    D = spec.d_model
    n_ar = comm.allreduces_per_layer
    if n_ar is None:
        n_ar = 1 if spec.parallel_block else 2
    torus = tp_ar = None
    groups: list[tuple[float, int, AllReduce | None, float]] = []
    if par.tp > 1 and chip.kind == "tpu":
        torus = _tensor_torus(spec, chip, par, comm, weight_bytes, n_ar)
    elif par.tp > 1 or par.expert_tp > par.tp:
        latency = comm.allreduce_latency_s
        if par.tp > 1:
            bw, alpha = link(chip, par.tp, comm)
            tp_ar = allreduce_plan(par.tp, bw, alpha, latency)
        for g in spec.groups:
            ffn = None
            share = 0.0
            if g.ffn.is_moe and par.expert_tp > par.tp:
                bw_e, alpha_e = link(chip, par.expert_tp, comm)
                ffn = allreduce_plan(par.expert_tp, bw_e, alpha_e, latency)
                # distinct tokens reaching one expert group: a token whose k experts share a
                # group is summed there first, so it crosses once: t · (1 − (1 − 1/ep)^k)
                share = float(experts_touched(par.ep, 1, g.ffn.top_k))
            groups.append((g.count / par.pp, n_ar, ffn, share))
    kv_shard = None
    if par.kv_batch_shard and par.tp > 1:
        # queries to the chip holding each sequence's KV, and attention outputs back
        bw, alpha = link(chip, par.tp, comm)
        a = spec.attention
        d_qkv = a.head_dim + a.v_head_dim
        kv_shard = (spec.n_layers / par.pp, par.tp, a.n_heads, d_qkv, bw, alpha)
    experts = _experts_plan(spec, chip, par, comm) if par.ep > 1 else ()
    hop = link(chip, par.chips, comm) if par.pp > 1 else None  # a hop leaves the stage
    return CommPlan(
        par.dp,
        par.pp,
        par.stage_chips,
        D,
        torus,
        tp_ar,
        tuple(groups),
        kv_shard,
        experts,
        par.ep,
        comm.dispatch_bytes,
        hop,
    )


def _experts_plan(
    spec: ModelSpec, chip: Chip, par: Parallelism, comm: CommModel
) -> tuple[tuple[float, float, float, float], ...]:
    """EP's all-to-all per MoE layer group: (layers / pp, groups a token's hidden state is
    sent to, bw, α).

    Each token's hidden state goes once to every other expert group its k experts fall in:
    ep · (1 − (1 − 1/ep)^k) groups expected (`experts_touched(ep, 1, k)`), (ep − 1)/ep of
    them remote. When the stage spans several scale-up domains the exchange is hierarchical,
    as DeepEP's is: a token crosses the network once per other domain it needs (d domains:
    d · (1 − (1 − 1/d)^k) · (d − 1)/d), and is forwarded inside a domain over the scale-up link.
    """
    out = []
    domains = math.ceil(par.stage_chips / chip.scale_up_domain)
    for g in spec.groups:
        if not g.ffn.is_moe:
            continue
        k = g.ffn.top_k
        if domains <= 1:
            bw, alpha = link(chip, par.stage_chips, comm)
            hit = float(experts_touched(par.ep, 1, k)) * (par.ep - 1) / par.ep
        else:
            bw, alpha = network_link(chip, comm)
            hit = float(experts_touched(domains, 1, k)) * (domains - 1) / domains
        out.append((g.count / par.pp, hit, bw, alpha))
    return tuple(out)


# ---- the time of a pass -----------------------------------------------------------------------


def comm_eval(
    xp: Backend, p: CommPlan, tokens: Num, group_tokens: Num | None = None
) -> tuple[Num, Num]:
    """(time, latency part) of one pipeline stage's collectives over `tokens` tokens (all of
    the stage's sequences; `group_tokens` of them in the busiest TP group, by default
    tokens / dp), one micro-batch, every collective on the critical path."""
    t = tokens
    total = xp.zeros_like(t)
    lat = xp.zeros_like(t)
    D = p.d_model
    per_group = t / p.dp if group_tokens is None else group_tokens
    if p.torus is not None:
        per_layer, per_lat = _torus(xp, p.torus, per_group)
        total = total + p.torus.layers * per_layer
        lat = lat + p.torus.layers * per_lat
    elif p.groups:  # tp > 1, or experts split over more chips than the TP group
        if p.tp_allreduce is not None:
            attn_ar, attn_lat = allreduce_eval(xp, p.tp_allreduce, per_group * D * ACT_BYTES)
        else:
            attn_ar = attn_lat = xp.zeros_like(t)
        for layers, n_ar, ffn, share in p.groups:
            if ffn is not None:
                routed = t * share / p.ep
                ffn_ar, ffn_lat = allreduce_eval(xp, ffn, routed * D * ACT_BYTES)
                total = total + layers * ((n_ar - 1) * attn_ar + ffn_ar)
                lat = lat + layers * ((n_ar - 1) * attn_lat + ffn_lat)
            else:
                total = total + layers * n_ar * attn_ar
                lat = lat + layers * n_ar * attn_lat
    if p.kv_shard is not None:
        layers, tp, H, d_qkv, bw, alpha = p.kv_shard
        per_chip = per_group / tp * H * d_qkv * ACT_BYTES
        sent = per_chip * (tp - 1) / tp
        total = total + layers * alltoall_eval(alpha, sent, bw)
        lat = lat + layers * alpha
    if p.experts:
        t_ep = xp.zeros_like(t)
        lat_ep = xp.zeros_like(t)
        # the busiest chip's tokens, as attention's: its dp group's over the group's tp ranks
        # (each dispatches its share); the stage's mean, t / stage_chips, when loads average
        per_chip = per_group * p.dp / p.stage_chips
        for layers, hit, bw, alpha in p.experts:
            values = per_chip * hit * D
            for nbytes in (p.dispatch_bytes, ACT_BYTES):  # dispatch, then combine
                t_ep = t_ep + layers * alltoall_eval(alpha, values * nbytes, bw)
                lat_ep = lat_ep + layers * alpha
        total, lat = total + t_ep, lat + lat_ep
    if p.hop is not None:
        bw, alpha = p.hop
        total = total + alpha + t / p.stage_chips * D * ACT_BYTES / bw
        lat = lat + alpha
    return total, lat


def comm_terms(
    spec: ModelSpec,
    chip: Chip,
    par: Parallelism,
    tokens: FloatArray,
    comm: CommModel,
    weight_bytes: float,
    group_tokens: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """(time, latency part of it) of `comm_time`.

    Per layer of a serial block: one all-reduce over the TP group after attention and one
    after the FFN; a parallel block shares one. A MoE layer's FFN reduces over the chips that
    split each expert, (chips / pp) / ep, which spans several dp groups when that is more than
    tp: then every token routed to an expert group is all-reduced across it.
    """
    t = np.asarray(tokens, dtype=np.float64)
    tg = None if group_tokens is None else np.asarray(group_tokens, np.float64)
    total, lat = comm_eval(ARRAY, comm_plan(spec, chip, par, comm, weight_bytes), t, tg)
    return np.asarray(total, dtype=np.float64), np.asarray(lat, dtype=np.float64)


def comm_time(
    spec: ModelSpec,
    chip: Chip,
    par: Parallelism,
    tokens: FloatArray,
    comm: CommModel,
    weight_bytes: float,
    group_tokens: FloatArray | None = None,
) -> FloatArray:
    """Communication of one pipeline stage's pass over `tokens` tokens (all of the stage's
    sequences; `group_tokens` of them in the busiest TP group, by default tokens / dp), one
    micro-batch, every collective on the critical path: TP (or a torus layout), EP and the
    pipeline hop. `comm_terms` also gives the latency part.
    """
    return comm_terms(spec, chip, par, tokens, comm, weight_bytes, group_tokens)[0]
