"""The terms of one pass on the busiest chip: matmuls, attention, weights, KV, communication.

    t_matmul  = 2 · N_multiplied · B / (n · FLOP/s of the weight type)
    t_attn    = B · Σ_layers c_attn · min(S, W) / (n · FLOP/s of the KV type)   c_attn = 4·H·d_h
    t_weights = bytes of weights read this step / (n · BW)      MoE: experts touched by B tokens
    t_kv      = B · KV bytes of a sequence at context S / (n · BW)   windows honoured
    t_comm    = the split's collectives (`collectives.py`); 0 without a split

all lower bounds. Attention (QK^T and PV) multiplies the cached keys and values: it runs at the
rate of the KV type when the chip multiplies in it natively (an fp8 cache: fp8), else of the
chip's 16-bit type; the weight matmuls at the rate of the weight type
(`Chip.compute_dtype_for`; `compute_dtype=` overrides both).

Without a `Parallelism` the model spreads evenly over the n chips (one "chip" with the
system's summed FLOP/s and bandwidth, no communication); with one, the terms are those of the
busiest chip. Both run through the same functions, so one chip with tp = pp = ep = 1 gives the
same figures either way.

`Plan` holds what a pass's terms need besides its tokens, fixed by the model, the system, the
data types and the split (built once per combination, `roofline.py` caches it); the functions
below evaluate the terms for a `Load`, on Python floats or arrays (`backend.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from llm_roofline._core.backend import Backend, Num
from llm_roofline._core.errors import InputError
from llm_roofline.engine.collectives import CommPlan, comm_eval, comm_plan
from llm_roofline.engine.parallel import CommModel, Parallelism
from llm_roofline.engine.step_time import Overlap
from llm_roofline.hardware.chip import System
from llm_roofline.model.attention_flops import (
    AttentionFlops,
    attention_flops_plan,
    decode_attention,
    prefill_attention,
)
from llm_roofline.model.kv_cache import KVCache, kv_cache_plan, kv_per_sequence, kv_read
from llm_roofline.model.spec import ModelSpec
from llm_roofline.model.weights_read import WeightsRead, weights_read, weights_read_plan

__all__ = ["TERMS", "Load", "Plan", "Resolved", "Terms", "make_plan", "pass_terms"]

Terms = dict[str, Any]  # term name -> a float or an array
TERMS = (
    "t_matmul",
    "t_attn",
    "t_weights",
    "t_kv",
    "t_comm",
    "t_comm_latency",
    "t_matmul_prefill",
    "t_attn_prefill",
)


@dataclass(frozen=True)
class Plan:
    """A pass's fixed part: the model, system and split; FLOP/s of the weight matmuls and of
    attention, and bandwidth, of the busiest chip (of the whole system without a split); bytes
    per weight and per KV element; and each term's constants.

    Matmuls: `dense2` = 2·(N_multiplied − routed), `body` (of it, without the LM head), `head`
    (the LM head), `routed2` = 2·(routed experts' multiplied parameters) / pp; the dense part
    splits over `ptp` = pp · tp chips, the experts over the stage's `stage_chips`.
    """

    spec: ModelSpec
    system: System
    par: Parallelism
    split: bool  # a Parallelism was given (else the even spread)
    comm: CommModel | None  # costed communication (None without a split)
    mode: Overlap
    flops: float
    flops_attn: float
    bw: float
    w_bytes: float
    kv_bytes: float
    dense2: float
    body: int
    head: int
    routed2: float
    ptp: int
    stage_chips: int
    dp: int
    attention: AttentionFlops
    weights: WeightsRead
    kv: KVCache
    kv_per_token: int
    kv_shards: int
    kv_by_sequence: bool  # kv_batch_shard over tp > 1: whole sequences per chip
    collectives: CommPlan | None
    keep: tuple[object, ...] = ()  # the caller's objects a cache key names by id, kept alive


class Resolved(NamedTuple):
    """What a pass's plan starts from, resolved from ids once: the model, the system, bytes per
    weight and per KV element, and the system's FLOP/s for the weight matmuls and for attention
    (each in its compute type)."""

    spec: ModelSpec
    system: System
    w_bytes: float
    kv_bytes: float
    flops: float
    flops_attn: float


def _per_chip(
    r: Resolved, par: Parallelism | None, comm: CommModel | None
) -> tuple[Parallelism, float, float, float, CommModel | None]:
    """The split (one even "chip" without one), the FLOP/s and bandwidth of the chip a term is
    timed on, and the collectives' model (None without a split: no communication)."""
    if par is None:
        return Parallelism(1, 1), r.flops, r.flops_attn, r.system.memory_bw, None
    n = r.system.n_chips
    if par.chips != n:
        raise InputError(
            f"the parallel split is for {par.chips} chips, the system has {n}", field="chips"
        )
    return par, r.flops / n, r.flops_attn / n, r.system.chip.memory_bw, comm or CommModel()


def make_plan(
    r: Resolved,
    par: Parallelism | None,
    comm: CommModel | None,
    mode: Overlap,
    keep: tuple[object, ...] = (),
) -> Plan:
    """The `Plan` of a pass; InputError when the split is for another chip count, or a
    collective needs a link the chip lacks. `par` must be checked (`Parallelism.check`)."""
    split = par is not None
    spec, system, w_bytes, kv_bytes = r.spec, r.system, r.w_bytes, r.kv_bytes
    par, flops, flops_attn, bw, costed = _per_chip(r, par, comm)
    D = spec.d_model
    routed = sum(
        g.count * g.ffn.top_k * g.ffn.expert_params(D) for g in spec.groups if g.ffn.is_moe
    )
    head = spec.lm_head_params
    body = spec.params_multiplied - routed - head
    weights = weights_read_plan(spec, tp=par.tp, pp=par.pp, ep=par.ep, expert_tp=par.expert_tp)
    collectives = None
    if costed is not None:
        collectives = comm_plan(spec, system.chip, par, costed, w_bytes)
    return Plan(
        spec=spec,
        system=system,
        par=par,
        split=split,
        comm=costed,
        mode=mode,
        flops=flops,
        flops_attn=flops_attn,
        bw=bw,
        w_bytes=w_bytes,
        kv_bytes=kv_bytes,
        dense2=2.0 * (body + head),
        body=body,
        head=head,
        routed2=2.0 * routed / par.pp,
        ptp=par.pp * par.tp,
        stage_chips=par.stage_chips,
        dp=par.dp,
        attention=attention_flops_plan(spec),
        weights=weights,
        kv=kv_cache_plan(spec),
        kv_per_token=spec.kv_elements_per_token,
        kv_shards=par.kv_shards(spec),
        kv_by_sequence=par.kv_batch_shard and par.tp > 1,
        collectives=collectives,
        keep=keep,
    )


class Load:
    """What one pipeline stage's pass carries: `nd` decode sequences at context `S` and `npf`
    prompts of `T` tokens after `S0` cached, over the stage; `nd_g`, `npf_g` of them in the
    busiest data-parallel group. `all_logits`: the LM head runs for every prompt token.

    `per_seq`, when given, replaces S: a decode sequence's attention FLOPs and KV elements
    read (`per_sequence`), e.g. their means over a spread of contexts."""

    __slots__ = ("S", "S0", "T", "all_logits", "nd", "nd_g", "npf", "npf_g", "per_seq")

    # size: built for every pass on the hot path: its nine loads as plain arguments (__slots__)
    def __init__(
        self,
        nd: Num,
        S: Num,
        npf: Num,
        T: Num,
        S0: Num,
        nd_g: Num,
        npf_g: Num,
        all_logits: bool,
        per_seq: tuple[Num, Num] | None = None,
    ) -> None:
        self.nd, self.S, self.npf, self.T, self.S0 = nd, S, npf, T, S0
        self.nd_g, self.npf_g, self.all_logits = nd_g, npf_g, all_logits
        self.per_seq = per_seq

    def decode_per_sequence(self, xp: Backend, p: Plan) -> tuple[Num, Num]:
        if self.per_seq is None:  # computed once for the compute and the KV term
            self.per_seq = per_sequence(xp, p, self.S)
        return self.per_seq

    @property
    def tokens(self) -> Num:
        return self.nd + self.npf * self.T

    @property
    def tokens_g(self) -> Num:
        return self.nd_g + self.npf_g * self.T


def per_sequence(xp: Backend, p: Plan, S: Num) -> tuple[Num, Num]:
    """One decode sequence at context S: its attention FLOPs and the KV elements it reads.
    The only places a decode step depends on the context, and every term is linear in them:
    so the mean of a term over a spread of contexts is the term at their means (continuous
    batching averages a step over the contexts its sequences hold)."""
    return decode_attention(xp, p.attention, S), kv_read(xp, p.kv, S)


def compute_terms(xp: Backend, p: Plan, ld: Load) -> Terms:
    """Matmuls and attention of the busiest chip: dense matmuls split over tp for a dp group's
    tokens, experts over the stage's chips; attention over tp (heads split). The LM head runs
    for one token per prompt (only the last one's logits are sampled) unless `all_logits`."""
    t_matmul_dec: Num = 0.0
    t_attn_dec: Num = 0.0
    t_matmul_prefill: Num = 0.0
    t_attn_prefill: Num = 0.0
    if xp.any(ld.nd):  # decode tokens (skipped when there are none: a prefill pass)
        f_dec = p.dense2 * ld.nd_g / p.ptp + p.routed2 * ld.nd / p.stage_chips
        a_dec = ld.nd_g * ld.decode_per_sequence(xp, p)[0] / p.ptp
        t_matmul_dec, t_attn_dec = f_dec / p.flops, a_dec / p.flops_attn
    if xp.any(ld.npf):  # prompt tokens (none in a decode step)
        pre_tokens_g = ld.npf_g * ld.T
        pre_logits = pre_tokens_g if ld.all_logits else ld.npf_g
        f_pre = 2.0 * (p.body * pre_tokens_g + p.head * pre_logits) / p.ptp
        f_pre = f_pre + p.routed2 * (ld.npf * ld.T) / p.stage_chips
        a_pre = ld.npf_g * prefill_attention(xp, p.attention, ld.T, ld.S0) / p.ptp
        t_matmul_prefill, t_attn_prefill = f_pre / p.flops, a_pre / p.flops_attn
    return {
        "t_matmul": t_matmul_dec + t_matmul_prefill,
        "t_attn": t_attn_dec + t_attn_prefill,
        "t_matmul_prefill": t_matmul_prefill,
        "t_attn_prefill": t_attn_prefill,
    }


def weights_term(xp: Backend, p: Plan, tokens: Num, tokens_g: Num) -> Num:
    """Weights the busiest chip reads (`weights_read.py`) over its bandwidth."""
    return weights_read(xp, p.weights, tokens, tokens_g) * p.w_bytes / p.bw


def kv_term(xp: Backend, p: Plan, ld: Load, share: bool) -> Num:
    """KV traffic of the busiest chip: decode reads each cache; a prefill reads its cached
    part and writes its new tokens. Over the pp stages' layers and min(tp, K) heads, or whole
    sequences per chip with `kv_batch_shard` (the fullest holds the ceiling when `share`)."""
    per_seq_d = ld.decode_per_sequence(xp, p)[1] if xp.any(ld.nd) else 0.0
    per_seq_p: Num = 0.0
    if xp.any(ld.npf):
        per_seq_p = kv_per_sequence(xp, p.kv, ld.S0) + ld.T * p.kv_per_token
    if p.kv_by_sequence:
        tp = p.par.tp
        d, pf = ld.nd_g / tp, ld.npf_g / tp
        if share:
            d, pf = xp.ceil(d), xp.ceil(pf)
        kv = d * per_seq_d + pf * per_seq_p
    else:
        kv = (ld.nd_g * per_seq_d + ld.npf_g * per_seq_p) / p.kv_shards
    return kv / p.par.pp * p.kv_bytes / p.bw


def _halves(xp: Backend, x: Num, whole: bool) -> tuple[Num, Num]:
    """Two micro-batches of x tokens: whole tokens (the larger half first), or even halves."""
    if not whole:
        return x / 2.0, x / 2.0
    a = xp.ceil(x / 2.0)
    return a, x - a


def pass_terms(
    xp: Backend, p: Plan, ld: Load, *, whole: bool, share_kv: bool
) -> tuple[Terms, Terms | None, Any]:
    """The busiest chip's terms for one stage pass with one micro-batch; with two (None when
    communication is not costed or the schedule is "none"); and where two are possible (the
    busiest dp group has at least 2 tokens to split)."""
    one = compute_terms(xp, p, ld)
    tokens, tokens_g = ld.tokens, ld.tokens_g
    one["t_weights"] = weights_term(xp, p, tokens, tokens_g)
    one["t_kv"] = kv_term(xp, p, ld, share_kv)
    if p.comm is None or p.collectives is None:
        one["t_comm"] = one["t_comm_latency"] = 0.0
        return one, None, False
    one["t_comm"], one["t_comm_latency"] = comm_eval(xp, p.collectives, tokens, tokens_g)
    possible = tokens_g >= 2.0
    if p.comm.overlap == "none" or not xp.any(possible):
        return one, None, False
    two = dict(one)
    (a, b), (a_g, b_g) = _halves(xp, tokens, whole), _halves(xp, tokens_g, whole)
    two["t_weights"] = weights_term(xp, p, a, a_g) + weights_term(xp, p, b, b_g)
    c_a, l_a = comm_eval(xp, p.collectives, a, a_g)
    c_b, l_b = comm_eval(xp, p.collectives, b, b_g)
    two["t_comm"], two["t_comm_latency"] = c_a + c_b, l_a + l_b
    return one, two, possible
