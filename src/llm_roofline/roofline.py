"""The roofline: time of a decode step and of a prefill on a whole system of n chips.

Every function broadcasts: give `batch` and `context_len` as numpy arrays (e.g. shapes (n, 1)
and (1, m)) and get every term back on the broadcast grid, one call for a whole sweep.

Decode step (DESIGN.md, "core equations"), all terms lower bounds:

    t_matmul  = 2 · N_multiplied · B / (n · FLOP/s)
    t_attn    = B · Σ_layers c_attn · min(S, W) / (n · FLOP/s)    c_attn = 4·H·d_h (MLA: own)
    t_weights = bytes of weights read this step / (n · BW)          MoE: experts touched by B tokens
    t_kv      = B · KV bytes of a sequence at context S / (n · BW)   windows honoured
    t_comm    = 0 until parallelism is modelled

    overlap "full"   : max(t_matmul + t_attn, t_weights + t_kv) + t_comm   (the lecture's; default)
    overlap "per-op" : max(t_matmul, t_weights) + max(t_attn, t_kv) + t_comm
    overlap "none"   : t_matmul + t_attn + t_weights + t_kv + t_comm

"full" is the default because it is the lowest of the three: the `ideal` engine is a lower
bound, and any real schedule is at least as slow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .catalog import get_hardware, get_model
from .dtypes import get_dtype
from .errors import InputError
from .hardware import Chip, System
from .model import ModelSpec, experts_touched
from .parallel import CommModel, Parallelism, comm_time

__all__ = [
    "BOUND_NAMES",
    "OVERLAP_MODES",
    "StepTime",
    "as_system",
    "balance_batch",
    "balance_batch_formula",
    "balanced_context",
    "balanced_context_formula",
    "decode_step",
    "latency_floor",
    "mixed_step",
    "positive_array",
    "prefill",
]

FloatArray = NDArray[np.float64]

OVERLAP_MODES = ("full", "per-op", "none")
MAX_SIZE = 1e12  # no batch, context or token count of a real deployment comes near this
BOUND_NAMES = ("compute", "memory", "communication")


def positive_array(value: ArrayLike, name: str) -> FloatArray:
    """`value` as a float array, every element finite and > 0, else an InputError naming it."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a positive number, got {value!r}", field=name) from None
    if a.size == 0:
        raise InputError(f"{name} is empty", field=name)
    if not (np.all(np.isfinite(a)) and np.all(a > 0)):
        bad = a[~(np.isfinite(a) & (a > 0))].flat[0]
        raise InputError(f"{name} must be positive and finite, got {bad!r}", field=name)
    if np.any(a > MAX_SIZE):
        raise InputError(
            f"{name} must be at most {MAX_SIZE:.0e}, got {float(a.max()):.3g}", field=name
        )
    return a


def as_system(hardware: str | Chip | System, chips: int = 1) -> System:
    """A System from a catalog id, a Chip and a chip count, or a System (returned as is)."""
    if isinstance(hardware, System):
        return hardware
    return System(get_hardware(hardware), chips)


def _overlap(mode: str) -> str:
    if mode not in OVERLAP_MODES:
        raise InputError(
            f"overlap must be one of {', '.join(OVERLAP_MODES)}, got {mode!r}", field="overlap"
        )
    return mode


@dataclass(frozen=True)
class StepTime:
    """The terms of one pass (a decode step or a prefill) and its time, in seconds.

    Arrays share the broadcast shape of the inputs. `bound` holds indices into BOUND_NAMES.
    """

    t_matmul: FloatArray
    t_attn: FloatArray
    t_weights: FloatArray
    t_kv: FloatArray
    t_comm: FloatArray
    t_step: FloatArray
    bound: NDArray[np.int8]
    batch: FloatArray
    tokens_per_pass: FloatArray  # per sequence: 1 in decode, T in prefill
    overlap: str
    system: System
    comm_overlap: str = "none"

    @property
    def t_compute(self) -> FloatArray:
        return self.t_matmul + self.t_attn

    @property
    def t_memory(self) -> FloatArray:
        return self.t_weights + self.t_kv

    @property
    def bound_names(self) -> NDArray[np.str_]:
        return np.asarray(BOUND_NAMES)[self.bound]

    @property
    def tokens(self) -> FloatArray:
        """Tokens produced (decode) or processed (prefill) by the pass, all sequences."""
        return self.batch * self.tokens_per_pass

    @property
    def tokens_per_s(self) -> FloatArray:
        return self.tokens / self.t_step


def _grid(*arrays: FloatArray, names: tuple[str, ...]) -> tuple[int, ...]:
    """The broadcast shape of the inputs, or an InputError naming them."""
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for n, a in zip(names, arrays, strict=True))
        raise InputError(f"shapes do not broadcast: {shapes}", field=names[0]) from None


def _nonneg_array(value: ArrayLike, name: str) -> FloatArray:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be zero or positive, got {value!r}", field=name) from None
    if a.size == 0 or not (np.all(np.isfinite(a)) and np.all(a >= 0)):
        raise InputError(f"{name} must be zero or positive and finite, got {value!r}", field=name)
    return a


def _combine(
    t_matmul: FloatArray,
    t_attn: FloatArray,
    t_weights: FloatArray,
    t_kv: FloatArray,
    t_comm: FloatArray,
    overlap: str,
    comm_overlap: str = "none",
) -> tuple[FloatArray, NDArray[np.int8]]:
    t_compute = t_matmul + t_attn
    t_memory = t_weights + t_kv
    if overlap == "full":
        t = np.maximum(t_compute, t_memory)
    elif overlap == "per-op":
        t = np.maximum(t_matmul, t_weights) + np.maximum(t_attn, t_kv)
    else:
        t = t_compute + t_memory
    t = np.maximum(t, t_comm) if comm_overlap == "full" else t + t_comm
    if not np.all(np.isfinite(t)):
        raise InputError(
            "the inputs are too large: a step time overflows (batch or context beyond any "
            "real deployment)",
            field="batch",
        )
    bound = np.where(t_compute >= t_memory, 0, 1).astype(np.int8)
    bound = np.where((t_comm > t_compute) & (t_comm > t_memory), np.int8(2), bound)
    return np.asarray(t, dtype=np.float64), bound


def _step(
    system: System,
    mode: str,
    B: FloatArray,
    T: FloatArray,
    t_matmul: FloatArray,
    t_attn: FloatArray,
    t_weights: FloatArray,
    t_kv: FloatArray,
) -> StepTime:
    """Broadcast the four terms to one grid, add communication (none yet) and combine."""
    shape = np.broadcast_shapes(t_matmul.shape, t_attn.shape, t_weights.shape, t_kv.shape)
    t_matmul, t_attn, t_weights, t_kv = (
        np.broadcast_to(x, shape) for x in (t_matmul, t_attn, t_weights, t_kv)
    )
    t_comm = np.zeros(shape)
    t_step, bound = _combine(t_matmul, t_attn, t_weights, t_kv, t_comm, mode)
    return StepTime(
        t_matmul=t_matmul,
        t_attn=t_attn,
        t_weights=t_weights,
        t_kv=t_kv,
        t_comm=t_comm,
        t_step=t_step,
        bound=bound,
        batch=np.broadcast_to(B, shape),
        tokens_per_pass=np.broadcast_to(T, shape).astype(np.float64),
        overlap=mode,
        system=system,
    )


def _sharded(
    spec: ModelSpec,
    system: System,
    par: Parallelism,
    comm: CommModel,
    mode: str,
    w_bytes: float,
    kv_bytes: float,
    flops_total: float,
    *,
    decode_seqs: ArrayLike = 0.0,
    decode_context: ArrayLike = 1.0,
    prefill_seqs: ArrayLike = 0.0,
    prefill_len: ArrayLike = 1.0,
    cached_len: ArrayLike = 0.0,
    pipeline_fill: bool = True,
    all_logits: bool = False,
    whole_sequences: bool = True,
    whole_prefill: bool = False,
    in_flight: ArrayLike | None = None,
) -> StepTime:
    """The terms of the busiest chip of one pipeline stage, times pp.

    With `whole_sequences`, a dp group holds a whole number of sequences: the busiest holds
    ceil(seqs / dp) (one request's prefill runs on one group however many there are). Averaged
    loads (continuous batching) pass fractions and `whole_sequences=False`.

    One stage pass carries `decode_seqs` sequences decoding one token each at `decode_context`
    and `prefill_seqs` prompts of `prefill_len` tokens after `cached_len` cached. The stage's
    chips share the work: dense matmuls and heads over tp (each dp group its own sequences),
    experts over all the stage's chips, KV over dp groups and min(tp, K) heads.
    """
    if par.chips != system.n_chips:
        raise InputError(
            f"the parallel split is for {par.chips} chips, the system has {system.n_chips}",
            field="chips",
        )
    chip = system.chip
    flops = flops_total / system.n_chips  # one chip
    bw = chip.memory_bw
    pp, tp, dp, cs = par.pp, par.tp, par.dp, par.stage_chips
    D = spec.d_model
    nd = np.asarray(decode_seqs, dtype=np.float64)
    S = np.asarray(decode_context, dtype=np.float64)
    npf = np.asarray(prefill_seqs, dtype=np.float64)
    T = np.asarray(prefill_len, dtype=np.float64)
    S0 = np.asarray(cached_len, dtype=np.float64)
    tokens = nd + npf * T
    seqs = nd + npf
    share = np.ceil if whole_sequences else (lambda x: x)
    share_p = np.ceil if (whole_sequences or whole_prefill) else (lambda x: x)
    nd_g, npf_g = share(nd / dp), share_p(npf / dp)  # the busiest dp group's sequences
    tokens_g = nd_g + npf_g * T
    moe = [g for g in spec.groups if g.ffn.is_moe]
    routed_mult = sum(g.count * g.ffn.top_k * g.ffn.expert_params(D) for g in moe)
    dense_mult = spec.params_multiplied - routed_mult
    # compute: dense matmuls split over tp for a dp group's tokens; experts over the stage
    # (the LM head runs for one token per sequence: prefill needs only the last one's logits)
    body = dense_mult - spec.lm_head_params
    logit_tokens = tokens_g if all_logits else nd_g + npf_g
    f = 2.0 * (body * tokens_g + spec.lm_head_params * logit_tokens) / (pp * tp)
    f = f + 2.0 * routed_mult / pp * tokens / cs
    t_matmul = f / flops
    attn = nd_g * spec.decode_attention_flops(S)
    attn = attn + npf_g * spec.prefill_attention_flops(T, S0)
    t_attn = attn / (pp * tp) / flops
    # weights read: non-expert weights split over pp·tp; each chip's share of touched experts
    dense_read: FloatArray = np.full_like(tokens_g, float(spec.params_text - spec.params_routed))
    if not spec.tie_embeddings:  # the group gathers its own tokens' embedding rows
        dense_read = dense_read - spec.embedding_params + np.minimum(tokens_g, spec.vocab_size) * D
    read: FloatArray = dense_read / (pp * tp)
    for g in moe:
        touched = experts_touched(g.ffn.n_experts, g.ffn.top_k, tokens)
        # the fullest chip holds ceil(E / ep) experts, touched in the same proportion
        local = math.ceil(g.ffn.n_experts / par.ep) / g.ffn.n_experts
        read = read + g.count / pp * touched * local * g.ffn.expert_params(D) / par.expert_tp
    t_weights = np.asarray(read * w_bytes / bw, dtype=np.float64)
    # KV: decode reads each cache; prefill reads its cached part and writes its new tokens
    per_seq_d = spec.kv_elements_read(S)
    per_seq_p = spec.kv_elements_per_sequence(S0) + T * spec.kv_elements_per_token
    if par.kv_batch_shard and tp > 1:  # whole sequences per chip: the fullest holds ceil
        kv = share(nd_g / tp) * per_seq_d + share_p(npf_g / tp) * per_seq_p
    else:
        kv = (nd_g * per_seq_d + npf_g * per_seq_p) / par.kv_shards(spec)
    t_kv = kv / pp * kv_bytes / bw
    t_comm = comm_time(spec, chip, par, tokens, comm, w_bytes, group_tokens=tokens_g)
    shape = np.broadcast_shapes(*(np.shape(x) for x in (t_matmul, t_attn, t_weights, t_kv, t_comm)))
    # decode: a token crosses the pp stages one after another (pp stage times). A prefill can
    # be pipelined in chunks so that the stages work at once: its bound is one stage's time.
    stages = pp if pipeline_fill else 1
    terms = [
        np.broadcast_to(np.asarray(x, dtype=np.float64) * stages, shape)
        for x in (t_matmul, t_attn, t_weights, t_kv, t_comm)
    ]
    t_step, bound = _combine(
        terms[0], terms[1], terms[2], terms[3], terms[4], mode, comm_overlap=comm.overlap
    )
    return StepTime(
        t_matmul=terms[0],
        t_attn=terms[1],
        t_weights=terms[2],
        t_kv=terms[3],
        t_comm=terms[4],
        t_step=t_step,
        bound=bound,
        batch=np.broadcast_to(
            np.asarray(
                in_flight if in_flight is not None else seqs * (pp if pipeline_fill else 1),
                dtype=np.float64,
            ),
            shape,
        ),
        tokens_per_pass=np.broadcast_to(tokens / np.maximum(seqs, 1e-300), shape),
        overlap=mode,
        system=system,
        comm_overlap=comm.overlap,
    )


def _resolve(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int,
    weight_dtype: str,
    kv_dtype: str,
    compute_dtype: str | None,
) -> tuple[ModelSpec, System, float, float, float]:
    spec = get_model(model)
    system = as_system(hardware, chips)
    w_bytes = get_dtype(weight_dtype).bytes
    kv_bytes = get_dtype(kv_dtype).bytes
    cdt = compute_dtype or system.chip.compute_dtype_for(get_dtype(weight_dtype).name)
    flops = system.flops(cdt)
    return spec, system, w_bytes, kv_bytes, flops


def decode_step(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    batch: ArrayLike = 1,
    context_len: ArrayLike = 1,
    *,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    compute_dtype: str | None = None,
    overlap: str = "full",
    parallel: Parallelism | None = None,
    comm: CommModel | None = None,
) -> StepTime:
    """One decode step: `batch` sequences each holding `context_len` tokens of KV cache.

    Without `parallel` the model spreads evenly over the chips with no communication (the
    bound any split must respect). With it, each term is that of the busiest chip of a
    pipeline stage, communication is costed (`parallel.py`), and with pp stages the step is
    pp stage times for micro-batches of batch / pp.

    >>> s = decode_step("llama-3.1-8b", "h100-sxm", batch=[1, 64], context_len=4096)
    >>> s.t_step.shape
    (2,)
    """
    spec, system, w_bytes, kv_bytes, flops = _resolve(
        model, hardware, chips, weight_dtype, kv_dtype, compute_dtype
    )
    B = positive_array(batch, "batch")
    S = positive_array(context_len, "context_len")
    _grid(B, S, names=("batch", "context_len"))
    mode = _overlap(overlap)
    if parallel is not None:
        return _sharded(
            spec,
            system,
            parallel.check(spec),
            comm or CommModel(),
            mode,
            w_bytes,
            kv_bytes,
            flops,
            decode_seqs=np.ceil(B / parallel.pp),
            decode_context=S,
            in_flight=B,
        )
    bw = system.memory_bw

    t_matmul = 2.0 * spec.params_multiplied * B / flops  # 2 FLOP per multiply-add
    t_attn = B * spec.decode_attention_flops(S) / flops
    t_weights = spec.params_read(B) * w_bytes / bw  # MoE: experts touched by B tokens
    t_kv = B * spec.kv_elements_read(S) * kv_bytes / bw
    return _step(system, mode, B, np.ones(()), t_matmul, t_attn, t_weights, t_kv)


def prefill(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    batch: ArrayLike = 1,
    prompt_len: ArrayLike = 1,
    *,
    cached_len: ArrayLike = 0,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    compute_dtype: str | None = None,
    overlap: str = "full",
    parallel: Parallelism | None = None,
    comm: CommModel | None = None,
    all_logits: bool = False,
) -> StepTime:
    """One prefill pass: `batch` sequences of `prompt_len` new tokens after `cached_len` cached.

    `all_logits`: run the LM head for every new token (speculative verification scores every
    drafted position), not only each sequence's last.

    With `parallel` and pp stages, the prompt is taken as pipelined in chunks, so the stages
    work at once: the bound is one stage's time for the whole batch.

    Compute: 2·N_multiplied per token (the LM head only for each sequence's last token, the one
    whose logits are sampled) plus causal attention (token j sees the keys its span allows).
    Memory: weights once (MoE: experts touched by all B·T tokens), the cached KV read once,
    and the new tokens' KV written once.
    """
    spec, system, w_bytes, kv_bytes, flops = _resolve(
        model, hardware, chips, weight_dtype, kv_dtype, compute_dtype
    )
    B = positive_array(batch, "batch")
    T = positive_array(prompt_len, "prompt_len")
    S0 = _nonneg_array(cached_len, "cached_len")
    _grid(B, T, S0, names=("batch", "prompt_len", "cached_len"))
    mode = _overlap(overlap)
    if parallel is not None:
        return _sharded(
            spec,
            system,
            parallel.check(spec),
            comm or CommModel(),
            mode,
            w_bytes,
            kv_bytes,
            flops,
            prefill_seqs=B,
            prefill_len=T,
            cached_len=S0,
            pipeline_fill=False,
        )
    bw = system.memory_bw

    tokens = B * T
    # every token passes the layers; only each sequence's last token needs the LM head
    body = spec.params_multiplied - spec.lm_head_params
    logit_tokens = tokens if all_logits else B
    t_matmul = 2.0 * (body * tokens + spec.lm_head_params * logit_tokens) / flops
    t_attn = B * spec.prefill_attention_flops(T, S0) / flops
    t_weights = spec.params_read(tokens) * w_bytes / bw
    kv_elems = spec.kv_elements_per_sequence(S0)  # read the cache once
    kv_elems = kv_elems + T * spec.kv_elements_per_token  # write every new token
    t_kv = B * kv_elems * kv_bytes / bw
    return _step(system, mode, B, T, t_matmul, t_attn, t_weights, t_kv)


def mixed_step(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    decode_batch: float,
    decode_contexts: ArrayLike,
    prefill_seqs: float,
    prefill_len: float,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    compute_dtype: str | None = None,
    overlap: str = "full",
    parallel: Parallelism | None = None,
    comm: CommModel | None = None,
    whole_prefill: bool = False,
) -> StepTime:
    """One pass that decodes a token for each of `decode_batch` sequences and prefills
    `prefill_seqs` prompts of `prefill_len` tokens (chunked prefill riding on a decode step).

    The decode sequences' contexts are spread over `decode_contexts` (their mean is taken);
    one weight fetch serves every token of the pass. Returns a scalar StepTime whose
    `tokens_per_pass` counts the decode tokens (the pass's output).
    """
    spec, system, w_bytes, kv_bytes, flops = _resolve(
        model, hardware, chips, weight_dtype, kv_dtype, compute_dtype
    )
    B = float(positive_array(decode_batch, "decode_batch"))
    S = positive_array(decode_contexts, "decode_contexts")
    P = float(_nonneg_array(prefill_seqs, "prefill_seqs"))
    T = float(positive_array(prefill_len, "prefill_len"))
    mode = _overlap(overlap)
    if parallel is not None:
        # the decode sequences' KV is averaged over their contexts, so is their attention
        pp = parallel.pp
        step = _sharded(
            spec,
            system,
            parallel.check(spec),
            comm or CommModel(),
            mode,
            w_bytes,
            kv_bytes,
            flops,
            decode_seqs=B / pp,
            decode_context=S,
            prefill_seqs=P / pp,
            prefill_len=T,
            whole_sequences=False,
            whole_prefill=whole_prefill,
        )
        mean = {
            k: np.asarray(np.mean(getattr(step, k)))
            for k in ("t_matmul", "t_attn", "t_weights", "t_kv", "t_comm")
        }
        t_step, bound = _combine(
            mean["t_matmul"],
            mean["t_attn"],
            mean["t_weights"],
            mean["t_kv"],
            mean["t_comm"],
            mode,
            comm_overlap=(comm or CommModel()).overlap,
        )
        return StepTime(
            t_matmul=mean["t_matmul"],
            t_attn=mean["t_attn"],
            t_weights=mean["t_weights"],
            t_kv=mean["t_kv"],
            t_comm=mean["t_comm"],
            t_step=t_step,
            bound=bound,
            batch=np.asarray(B),
            tokens_per_pass=np.ones(()),
            overlap=mode,
            system=system,
            comm_overlap=(comm or CommModel()).overlap,
        )
    bw = system.memory_bw
    tokens = B + P * T
    body = spec.params_multiplied - spec.lm_head_params
    t_matmul = np.asarray(2.0 * (body * tokens + spec.lm_head_params * (B + P)) / flops)
    attn = B * float(np.mean(spec.decode_attention_flops(S)))
    attn += P * float(spec.prefill_attention_flops(T, 0.0))
    t_attn = np.asarray(attn / flops)
    t_weights = np.asarray(float(spec.params_read(tokens)) * w_bytes / bw)
    kv = B * float(np.mean(spec.kv_elements_read(S))) + P * T * spec.kv_elements_per_token
    t_kv = np.asarray(kv * kv_bytes / bw)
    return _step(system, mode, np.asarray(B), np.ones(()), t_matmul, t_attn, t_weights, t_kv)


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
    for name, v in (
        ("ops_per_byte", ops_per_byte),
        ("bytes_per_weight", bytes_per_weight),
        ("n_total", n_total),
        ("n_active", n_active),
    ):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise InputError(f"{name} must be positive, got {v!r}", field=name)
    return ops_per_byte * (bytes_per_weight / 2.0) * (n_total / n_active)


def balance_batch(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    *,
    weight_dtype: str = "bf16",
    compute_dtype: str | None = None,
) -> float:
    """B* for a catalog model on a chip: N_total = the language model's parameters stored,
    N_active = parameters multiplied per token. The chip count cancels; KV traffic pushes the
    real balance higher."""
    spec = get_model(model)
    chip = as_system(hardware).chip
    cdt = compute_dtype or chip.compute_dtype_for(get_dtype(weight_dtype).name)
    return balance_batch_formula(
        chip.flops(cdt) / chip.memory_bw,
        get_dtype(weight_dtype).bytes,
        spec.params_text,
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
    for name, v in (
        ("flops", flops),
        ("bw", bw),
        ("n_active", n_active),
        ("kv_bytes_per_token", kv_bytes_per_token),
    ):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise InputError(f"{name} must be positive, got {v!r}", field=name)
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
