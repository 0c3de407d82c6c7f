"""Splitting a model over chips, and the communication each split costs.

Degrees (per model replica of `chips` chips):

- PP pipeline stages, each of chips/pp chips holding L/pp layers; a sequence's token crosses
  every stage in turn, so with micro-batches of b = B/pp in flight the time per output token
  is pp stage times, and throughput is B per that time.
- TP tensor parallel: attention heads and dense matrices split over tp chips.
- DP data (attention-data) parallel: dp = (chips/pp)/tp groups, each holding its own sequences
  (and their KV cache) and a copy of the non-expert weights.
- EP expert parallel: a stage's routed experts spread over ep chips; each expert's matrices are
  split over the remaining (chips/pp)/ep chips.

Collectives are costed as latency + bytes / link bandwidth on the link the group crosses: the
scale-up link (NVLink, ICI, Infinity Fabric) when the group fits in one scale-up domain, the
scale-out network otherwise.

- all-reduce over n: ring `2(n−1)·α + 2(n−1)/n · M / bw` or tree `2⌈log2 n⌉·α + 2M / bw`; the
  cheaper is taken (NCCL picks per message size).
- all-to-all: `α + bytes sent per chip / bw` (one round over a switched or direct network).
- point-to-point (pipeline hop): `α + bytes / bw`.

TP costs one all-reduce per layer for a parallel attention+FFN block and two for a serial one.
EP costs an all-to-all dispatch and one combine per MoE layer. PP costs one hop per stage.
On torus machines (TPU) the tensor split follows ESTI (Pope et al. 2022): 1D weight-stationary
(a ring all-reduce), 2D weight-stationary (`4·tokens·sqrt(D·F/n)` elements per collective;
`8·B·T·D / √n` when F = 4D) or weight-gathered (each layer's weights all-gathered, no activation
traffic), the cheapest for the pass: weight-stationary for decode, weight-gathered once enough
tokens share each gathered weight (ESTI §3.2.3). A serial block has two collectives per layer
there too (after attention, width H·d_v, and after the FFN, width F), a parallel block one.

Whether communication is hidden is the schedule's business (`CommModel.overlap`): with one
micro-batch each layer's collective feeds the next layer and adds to the step; with two, one
micro-batch's collectives run under the other's work, but each micro-batch reads the weights
again and pays its collectives' latency again (`roofline.py` costs both and takes the better).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .errors import InputError
from .hardware import Chip
from .model import ModelSpec, experts_touched

__all__ = [
    "ACT_BYTES",
    "COMM_OVERLAP",
    "LAYOUTS",
    "CommModel",
    "Parallelism",
    "allreduce_parts",
    "allreduce_time",
    "alltoall_time",
    "comm_terms",
    "comm_time",
    "link",
]

FloatArray = NDArray[np.float64]
ACT_BYTES = 2.0  # activations travel in 16 bits
LAYOUTS = ("auto", "1d", "2d", "wg")
COMM_OVERLAP = ("auto", "none", "two-batch")


def _degree(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {value!r}", field=name)
    return int(value)


@dataclass(frozen=True)
class Parallelism:
    """Degrees of parallelism over `chips` chips: tp · dp · pp = chips."""

    chips: int
    tp: int
    pp: int = 1
    ep: int = 1
    kv_batch_shard: bool = False  # split the KV cache over the TP group by sequence (ESTI)

    def __post_init__(self) -> None:
        for name in ("chips", "tp", "pp", "ep"):
            _degree(getattr(self, name), name)

    @classmethod
    def of(
        cls,
        chips: int,
        tp: int | None = None,
        pp: int | None = None,
        ep: int | None = None,
        *,
        kv_batch_shard: bool = False,
    ) -> Parallelism:
        """Defaults: tp = chips / pp (the scenario contract's tp = chips), pp = 1, ep = 1."""
        n = _degree(chips, "chips")
        p = _degree(1 if pp is None else pp, "pp")
        t = _degree(tp if tp is not None else max(n // p, 1), "tp")
        return cls(n, t, p, _degree(1 if ep is None else ep, "ep"), bool(kv_batch_shard))

    @property
    def stage_chips(self) -> int:
        return self.chips // self.pp

    @property
    def dp(self) -> int:
        return self.stage_chips // self.tp

    @property
    def expert_tp(self) -> int:
        """Chips that split each expert's matrices: (chips / pp) / ep."""
        return self.stage_chips // self.ep

    def check(self, spec: ModelSpec) -> Parallelism:
        """Raise InputError naming the degree that cannot split this model on these chips."""
        if self.chips % (self.tp * self.pp):
            raise InputError(
                f"tp × pp = {self.tp} × {self.pp} does not divide chips = {self.chips}",
                field="tp",
            )
        if self.stage_chips % self.ep:
            raise InputError(
                f"ep = {self.ep} does not divide the {self.stage_chips} chips of a pipeline "
                f"stage (chips / pp)",
                field="ep",
            )
        H = spec.attention.n_heads
        if H % self.tp:
            fits = [
                t
                for t in range(1, self.stage_chips + 1)
                if H % t == 0 and self.stage_chips % t == 0
            ]
            raise InputError(
                f"tp = {self.tp} does not divide the {H} query heads of {spec.name}; "
                f"tp that divide both the heads and the {self.stage_chips} chips of a stage: "
                f"{', '.join(map(str, fits))}",
                field="tp",
            )
        K = spec.attention.n_kv_heads if spec.attention.kind != "mla" else 1
        if spec.attention.kind != "mla" and K > self.tp and K % self.tp:
            raise InputError(
                f"tp = {self.tp} does not divide the {K} KV heads of {spec.name}", field="tp"
            )
        if spec.attention.kind != "mla" and self.tp > K and self.tp % K:
            raise InputError(
                f"tp = {self.tp} is not a multiple of the {K} KV heads of {spec.name} "
                f"(each KV head is copied to tp / K chips)",
                field="tp",
            )
        if self.pp > spec.n_layers:
            raise InputError(
                f"pp = {self.pp} exceeds the {spec.n_layers} layers of {spec.name}", field="pp"
            )
        experts = max((g.ffn.n_experts for g in spec.groups), default=0)
        if self.ep > 1 and not experts:
            raise InputError(f"ep = {self.ep} but {spec.name} has no experts", field="ep")
        if experts and self.ep > experts:
            raise InputError(
                f"ep = {self.ep} exceeds the {experts} experts of {spec.name}", field="ep"
            )
        # ep need not divide the experts: engines place ceil(E / ep) per chip (memory counts
        # the fullest chip) or add redundant copies (DeepSeek's 256 experts on 72 GPUs).
        return self

    def kv_shards(self, spec: ModelSpec) -> int:
        """How many ways a TP group splits its sequences' KV cache: by KV head, min(tp, K)
        (1 for MLA: one shared latent per token, copied to every TP rank); or, with
        `kv_batch_shard`, by sequence over all tp chips (ESTI's multiquery layout, at the cost
        of an all-to-all of queries and outputs per layer)."""
        if self.kv_batch_shard:
            return self.tp
        if spec.attention.kind == "mla":
            return 1
        return min(self.tp, spec.attention.n_kv_heads)


@dataclass(frozen=True)
class CommModel:
    """How collectives are costed (the `ideal` engine's defaults are lower bounds).

    `scale_up_latency_s` / `scale_out_latency_s`: α, the fixed time of one step of a
    collective on each kind of link (1 µs over NVLink/ICI and 5 µs over the network are at the
    low end of what NCCL and published all-reduce timings show for small messages).
    `allreduce_latency_s` replaces the latency part of every all-reduce when a source gives one
    (Epoch AI's `2 µs·(√n − 1) + 6 µs`). `allreduces_per_layer` replaces the 1 (parallel
    block) / 2 (serial block) count. `layout` chooses the ESTI layout on torus machines.

    `overlap`, the schedule that decides whether communication is hidden:

    - "none": one micro-batch; each layer's collectives feed the next layer, so they add to
      the step (Epoch's and kipply's examples count it so);
    - "two-batch": two micro-batches (DeepSeek's and SGLang's two-batch overlap): one's
      collectives run under the other's work, the step is max(work, communication), but each
      micro-batch reads the weights again (they do not fit on chip) and pays its collectives'
      latency again; needs at least 2 sequences (decode) or tokens (prefill) in the busiest
      data-parallel group, else it falls back to one micro-batch;
    - "auto" (the default): the better of the two, element by element, so the `ideal` engine
      is the fastest schedule it can name, and never a free lunch.
    """

    scale_up_latency_s: float = 1e-6
    scale_out_latency_s: float = 5e-6
    allreduce_latency_s: float | None = None
    allreduces_per_layer: int | None = None
    overlap: str = "auto"
    layout: str = "auto"
    dispatch_bytes: float = 1.0  # MoE dispatch in FP8 (DeepEP); the combine returns 16 bits

    def __post_init__(self) -> None:
        for name in ("scale_up_latency_s", "scale_out_latency_s", "allreduce_latency_s"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise InputError(f"{name} must be zero or positive, got {v!r}", field=name)
        n = self.allreduces_per_layer
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise InputError(
                f"allreduces_per_layer must be a positive integer, got {n!r}",
                field="allreduces_per_layer",
            )
        if self.overlap not in COMM_OVERLAP:
            raise InputError(
                f"comm overlap must be one of {', '.join(COMM_OVERLAP)}, got {self.overlap!r}",
                field="comm_overlap",
            )
        if self.layout not in LAYOUTS:
            raise InputError(
                f"layout must be one of {', '.join(LAYOUTS)}, got {self.layout!r}",
                field="layout",
            )


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


def allreduce_parts(
    n: int, msg_bytes: FloatArray | float, bw: float, alpha: float, latency: float | None = None
) -> tuple[FloatArray, FloatArray]:
    """All-reduce of `msg_bytes` over n chips, the cheaper of ring and tree: (time, the
    latency part of that time)."""
    m = np.asarray(msg_bytes, dtype=np.float64)
    if n <= 1:
        return np.zeros_like(m), np.zeros_like(m)
    ring_lat = 2 * (n - 1) * alpha if latency is None else latency
    tree_lat = 2 * math.ceil(math.log2(n)) * alpha if latency is None else latency
    ring = ring_lat + 2 * (n - 1) / n * m / bw
    tree = tree_lat + 2 * m / bw
    t = np.asarray(np.minimum(ring, tree), dtype=np.float64)
    lat = np.asarray(np.where(ring < tree, ring_lat, tree_lat) + 0.0 * m, dtype=np.float64)
    return t, lat


def allreduce_time(
    n: int, msg_bytes: FloatArray | float, bw: float, alpha: float, latency: float | None = None
) -> FloatArray:
    """All-reduce of `msg_bytes` over n chips: the cheaper of ring and tree."""
    return allreduce_parts(n, msg_bytes, bw, alpha, latency)[0]


def alltoall_time(n: int, sent_bytes: FloatArray | float, bw: float, alpha: float) -> FloatArray:
    """All-to-all over n chips where each chip sends `sent_bytes` to the others."""
    s = np.asarray(sent_bytes, dtype=np.float64)
    if n <= 1:
        return np.zeros_like(s)
    return np.asarray(alpha + s / bw, dtype=np.float64)


def _torus_layer_comm(
    layout: str,
    tokens: FloatArray,
    D: int,
    widths: tuple[int, ...],
    n: int,
    layer_weight_bytes: float,
    bw: float,
    alpha: float,
) -> tuple[FloatArray, FloatArray]:
    """ESTI's per-layer communication on a torus of n chips (activations in 16 bits): one
    collective per entry of `widths` (the inner width each collective reduces over: the FFN's
    F, and for a serial block also the attention output's H·d_v). Returns (time, latency part).
    """
    c = len(widths)
    lat = c * (2 * math.ceil(math.log2(n)) * alpha if n > 1 else 0.0)
    one_d = lat + c * 2 * (n - 1) / n * tokens * D * ACT_BYTES / bw
    width = sum(math.sqrt(D * w / n) for w in widths)
    two_d = lat + 4 * tokens * width * ACT_BYTES / bw
    gathered = np.full_like(tokens, lat + (n - 1) / n * layer_weight_bytes / bw)
    options = {"1d": one_d, "2d": two_d, "wg": gathered}
    if layout == "auto":
        t = np.minimum(np.minimum(one_d, two_d), gathered)
    else:
        t = options[layout]
    return np.asarray(t, dtype=np.float64), np.full_like(tokens, lat)


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
    total = np.zeros_like(t)
    lat = np.zeros_like(t)
    D = spec.d_model
    per_group = t / par.dp if group_tokens is None else np.asarray(group_tokens, np.float64)
    n_ar = comm.allreduces_per_layer
    if n_ar is None:
        n_ar = 1 if spec.parallel_block else 2
    if par.tp > 1 and chip.kind == "tpu":
        bw, alpha = link(chip, par.tp, comm)
        widest = max(g.ffn.d_ff for g in spec.groups)
        if comm.allreduces_per_layer is None and not spec.parallel_block:
            a = spec.attention
            widths: tuple[int, ...] = (a.n_heads * a.v_head_dim, widest)
        else:
            widths = (widest,) * n_ar
        layer_w = (spec.params_text - spec.params_routed) / spec.n_layers * weight_bytes
        per_layer, per_lat = _torus_layer_comm(
            comm.layout, per_group, D, widths, par.tp, layer_w, bw, alpha
        )
        total = total + spec.n_layers / par.pp * per_layer
        lat = lat + spec.n_layers / par.pp * per_lat
    elif par.tp > 1 or par.expert_tp > par.tp:
        latency = comm.allreduce_latency_s
        attn_ar = attn_lat = np.zeros_like(t)
        if par.tp > 1:
            bw, alpha = link(chip, par.tp, comm)
            attn_ar, attn_lat = allreduce_parts(
                par.tp, per_group * D * ACT_BYTES, bw, alpha, latency
            )
        for g in spec.groups:
            layers = g.count / par.pp
            if g.ffn.is_moe and par.expert_tp > par.tp:
                bw_e, alpha_e = link(chip, par.expert_tp, comm)
                # distinct tokens reaching one expert group: a token whose k experts share a
                # group is summed there first, so it crosses once: t · (1 − (1 − 1/ep)^k)
                routed = t * experts_touched(par.ep, 1, g.ffn.top_k) / par.ep
                ffn_ar, ffn_lat = allreduce_parts(
                    par.expert_tp, routed * D * ACT_BYTES, bw_e, alpha_e, latency
                )
                total = total + layers * ((n_ar - 1) * attn_ar + ffn_ar)
                lat = lat + layers * ((n_ar - 1) * attn_lat + ffn_lat)
            else:
                total = total + layers * n_ar * attn_ar
                lat = lat + layers * n_ar * attn_lat
    if par.kv_batch_shard and par.tp > 1:
        # queries to the chip holding each sequence's KV, and attention outputs back
        bw, alpha = link(chip, par.tp, comm)
        a = spec.attention
        per_chip = per_group / par.tp * a.n_heads * (a.head_dim + a.v_head_dim) * ACT_BYTES
        sent = per_chip * (par.tp - 1) / par.tp
        total = total + spec.n_layers / par.pp * alltoall_time(par.tp, sent, bw, alpha)
        lat = lat + spec.n_layers / par.pp * alpha
    if par.ep > 1:
        t_ep, lat_ep = _expert_alltoall(spec, chip, par, t, comm)
        total, lat = total + t_ep, lat + lat_ep
    if par.pp > 1:
        bw, alpha = link(chip, par.chips, comm)  # a hop leaves the stage
        total = total + alpha + t / par.stage_chips * D * ACT_BYTES / bw
        lat = lat + alpha
    return total, lat


def _expert_alltoall(
    spec: ModelSpec, chip: Chip, par: Parallelism, t: FloatArray, comm: CommModel
) -> tuple[FloatArray, FloatArray]:
    """EP dispatch (`dispatch_bytes` per value) and combine (16 bits) of every MoE layer:
    (time, latency part).

    Each token's hidden state goes once to every other expert group its k experts fall in:
    ep · (1 − (1 − 1/ep)^k) groups expected (`experts_touched(ep, 1, k)`), (ep − 1)/ep of
    them remote. When the stage spans several scale-up domains the exchange is hierarchical,
    as DeepEP's is: a token crosses the network once per other domain it needs (d domains:
    d · (1 − (1 − 1/d)^k) · (d − 1)/d), and is forwarded inside a domain over the scale-up link.
    """
    D = spec.d_model
    total = np.zeros_like(t)
    lat = np.zeros_like(t)
    per_chip = t / par.stage_chips
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
        values = per_chip * hit * D
        for nbytes in (comm.dispatch_bytes, ACT_BYTES):  # dispatch, then combine
            total = total + g.count / par.pp * alltoall_time(par.ep, values * nbytes, bw, alpha)
            lat = lat + g.count / par.pp * (alpha if par.ep > 1 else 0.0)
    return total, lat
