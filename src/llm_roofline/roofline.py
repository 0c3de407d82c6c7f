"""The roofline: time of a decode step and of a prefill on a whole system of n chips.

Every function broadcasts: give `batch` and `context_len` as numpy arrays (e.g. shapes (n, 1)
and (1, m)) and get every term back on the broadcast grid, one call for a whole sweep.

Decode step (DESIGN.md, "core equations"), all terms lower bounds:

    t_matmul  = 2 · N_multiplied · B / (n · FLOP/s of the weight type)
    t_attn    = B · Σ_layers c_attn · min(S, W) / (n · FLOP/s of the KV type)   c_attn = 4·H·d_h
    t_weights = bytes of weights read this step / (n · BW)          MoE: experts touched by B tokens
    t_kv      = B · KV bytes of a sequence at context S / (n · BW)   windows honoured
    t_comm    = the split's collectives (`parallel.py`); 0 without a split

    overlap "full"   : max(t_matmul + t_attn, t_weights + t_kv) [+ t_comm]   (the lecture's)
    overlap "per-op" : max(t_matmul, t_weights) + max(t_attn, t_kv) [+ t_comm]
    overlap "none"   : t_matmul + t_attn + t_weights + t_kv [+ t_comm]

"full" is the default because it is the lowest of the three: the `ideal` engine is a lower
bound, and any real schedule is at least as slow. Communication is added with one
micro-batch, or hidden with two (`max(work, t_comm)`, the weights read twice and each
collective's latency paid twice): `CommModel.overlap` chooses, by default the faster.

Attention (QK^T and PV) multiplies the cached keys and values: it runs at the rate of the KV
type when the chip multiplies in it natively (an fp8 cache: fp8), else of the chip's 16-bit
type; the weight matmuls at the rate of the weight type (`Chip.compute_dtype_for`).
`compute_dtype=` overrides both.

Without a `Parallelism` the model spreads evenly over the n chips (the system's summed
FLOP/s and bandwidth, no communication); with one, the terms are those of the busiest chip.
Both run through the same term functions, so one chip with tp = pp = ep = 1 gives the same
figures either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .catalog import get_hardware, get_model
from .dtypes import get_dtype
from .errors import InputError
from .hardware import Chip, System
from .model import ModelSpec
from .parallel import CommModel, Parallelism, comm_terms

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


def _zero() -> FloatArray:
    return np.zeros(())


def _one() -> FloatArray:
    return np.ones(())


@dataclass(frozen=True)
class StepTime:
    """The terms of one pass (a decode step or a prefill) and its time, in seconds.

    Arrays share the broadcast shape of the inputs. `bound` holds indices into BOUND_NAMES.

    The terms are those of the schedule the pass runs (`micro_batches`: 1, or 2 where two
    micro-batches hide the communication; then `t_weights` counts both weight reads and
    `t_comm` both micro-batches' collectives). `single` holds the one-micro-batch terms when
    any element chose two (a calibrated profile, which keeps communication on the critical
    path, recombines those). `t_comm_latency` is the latency part of `t_comm`;
    `t_matmul_prefill` and `t_attn_prefill` the part of `t_matmul` and `t_attn` spent on
    prompt tokens (a mixed step's prefill share; all of a prefill's).
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
    micro_batches: FloatArray = field(default_factory=_one)
    t_comm_latency: FloatArray = field(default_factory=_zero)
    t_matmul_prefill: FloatArray = field(default_factory=_zero)
    t_attn_prefill: FloatArray = field(default_factory=_zero)
    single: StepTime | None = None

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

    @property
    def one_batch(self) -> StepTime:
        """The pass with one micro-batch (communication on the critical path)."""
        return self if self.single is None else self.single


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
    comm_hidden: ArrayLike = False,
) -> tuple[FloatArray, NDArray[np.int8]]:
    """The pass time under `overlap`, with communication added, or hidden (max) where
    `comm_hidden` (two micro-batches); and the bound."""
    t_compute = t_matmul + t_attn
    t_memory = t_weights + t_kv
    if overlap == "full":
        t = np.maximum(t_compute, t_memory)
    elif overlap == "per-op":
        t = np.maximum(t_matmul, t_weights) + np.maximum(t_attn, t_kv)
    else:
        t = t_compute + t_memory
    t = np.where(comm_hidden, np.maximum(t, t_comm), t + t_comm)
    if not np.all(np.isfinite(t)):
        raise InputError(
            "the inputs are too large: a step time overflows (batch or context beyond any "
            "real deployment)",
            field="batch",
        )
    bound = np.where(t_compute >= t_memory, 0, 1).astype(np.int8)
    bound = np.where((t_comm > t_compute) & (t_comm > t_memory), np.int8(2), bound)
    return np.asarray(t, dtype=np.float64), bound


# ---- the terms of one pass -----------------------------------------------------------------

Terms = dict[str, FloatArray]
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
class _Load:
    """What one pipeline stage's pass carries: `nd` decode sequences at context `S` and `npf`
    prompts of `T` tokens after `S0` cached, over the stage; `nd_g`, `npf_g` of them in the
    busiest data-parallel group."""

    nd: FloatArray
    S: FloatArray
    npf: FloatArray
    T: FloatArray
    S0: FloatArray
    nd_g: FloatArray
    npf_g: FloatArray
    all_logits: bool

    @property
    def tokens(self) -> FloatArray:
        return self.nd + self.npf * self.T

    @property
    def tokens_g(self) -> FloatArray:
        return self.nd_g + self.npf_g * self.T


def _compute_terms(
    spec: ModelSpec, par: Parallelism, flops: float, flops_attn: float, ld: _Load
) -> Terms:
    """Matmuls and attention of the busiest chip: dense matmuls split over tp for a dp group's
    tokens, experts over the stage's chips; attention over tp (heads split). The LM head runs
    for one token per prompt (only the last one's logits are sampled) unless `all_logits`."""
    pp, tp, cs = par.pp, par.tp, par.stage_chips
    D = spec.d_model
    routed = sum(
        g.count * g.ffn.top_k * g.ffn.expert_params(D) for g in spec.groups if g.ffn.is_moe
    )
    head = spec.lm_head_params
    body = spec.params_multiplied - routed - head
    zero = np.zeros(())
    t_matmul_dec = t_attn_dec = t_matmul_prefill = t_attn_prefill = zero
    if np.any(ld.nd):  # decode tokens (skipped when there are none: a prefill pass)
        f_dec = 2.0 * (body + head) * ld.nd_g / (pp * tp) + 2.0 * routed / pp * ld.nd / cs
        a_dec = ld.nd_g * spec.decode_attention_flops(ld.S) / (pp * tp)
        t_matmul_dec, t_attn_dec = f_dec / flops, a_dec / flops_attn
    if np.any(ld.npf):  # prompt tokens (none in a decode step)
        pre_tokens_g = ld.npf_g * ld.T
        pre_logits = pre_tokens_g if ld.all_logits else ld.npf_g
        f_pre = 2.0 * (body * pre_tokens_g + head * pre_logits) / (pp * tp)
        f_pre = f_pre + 2.0 * routed / pp * (ld.npf * ld.T) / cs
        a_pre = ld.npf_g * spec.prefill_attention_flops(ld.T, ld.S0) / (pp * tp)
        t_matmul_prefill, t_attn_prefill = f_pre / flops, a_pre / flops_attn
    return {
        "t_matmul": t_matmul_dec + t_matmul_prefill,
        "t_attn": t_attn_dec + t_attn_prefill,
        "t_matmul_prefill": t_matmul_prefill,
        "t_attn_prefill": t_attn_prefill,
    }


def _weights_term(
    spec: ModelSpec,
    par: Parallelism,
    w_bytes: float,
    bw: float,
    tokens: FloatArray,
    tokens_g: FloatArray,
) -> FloatArray:
    """Weights the busiest chip reads (`ModelSpec.params_read_per_chip`) over its bandwidth."""
    n = spec.params_read_per_chip(
        tokens, tokens_g, tp=par.tp, pp=par.pp, ep=par.ep, expert_tp=par.expert_tp
    )
    return np.asarray(n * w_bytes / bw, dtype=np.float64)


def _kv_term(
    spec: ModelSpec, par: Parallelism, kv_bytes: float, bw: float, ld: _Load, share: bool
) -> FloatArray:
    """KV traffic of the busiest chip: decode reads each cache; a prefill reads its cached
    part and writes its new tokens. Over the pp stages' layers and min(tp, K) heads, or whole
    sequences per chip with `kv_batch_shard` (the fullest holds the ceiling when `share`)."""
    zero = np.zeros(())
    per_seq_d = spec.kv_elements_read(ld.S) if np.any(ld.nd) else zero
    per_seq_p = zero
    if np.any(ld.npf):
        per_seq_p = spec.kv_elements_per_sequence(ld.S0) + ld.T * spec.kv_elements_per_token
    if par.kv_batch_shard and par.tp > 1:
        up = np.ceil if share else (lambda x: x)
        kv = up(ld.nd_g / par.tp) * per_seq_d + up(ld.npf_g / par.tp) * per_seq_p
    else:
        kv = (ld.nd_g * per_seq_d + ld.npf_g * per_seq_p) / par.kv_shards(spec)
    return np.asarray(kv / par.pp * kv_bytes / bw, dtype=np.float64)


def _halves(x: FloatArray, whole: bool) -> tuple[FloatArray, FloatArray]:
    """Two micro-batches of x tokens: whole tokens (the larger half first), or even halves."""
    if not whole:
        return x / 2.0, x / 2.0
    a = np.ceil(x / 2.0)
    return a, x - a


def _pass_terms(
    spec: ModelSpec,
    chip: Chip,
    par: Parallelism,
    comm: CommModel | None,
    flops: float,
    flops_attn: float,
    bw: float,
    w_bytes: float,
    kv_bytes: float,
    ld: _Load,
    *,
    whole: bool,
    share_kv: bool,
) -> tuple[Terms, Terms | None, NDArray[np.bool_]]:
    """The busiest chip's terms for one stage pass with one micro-batch; with two (None when
    communication is not costed or the schedule is "none"); and where two are possible (the
    busiest dp group has at least 2 tokens to split)."""
    one = _compute_terms(spec, par, flops, flops_attn, ld)
    tokens, tokens_g = ld.tokens, ld.tokens_g
    one["t_weights"] = _weights_term(spec, par, w_bytes, bw, tokens, tokens_g)
    one["t_kv"] = _kv_term(spec, par, kv_bytes, bw, ld, share_kv)
    if comm is None:
        zero = np.zeros(())
        one["t_comm"], one["t_comm_latency"] = zero, zero
        return one, None, np.zeros((), dtype=bool)
    one["t_comm"], one["t_comm_latency"] = comm_terms(
        spec, chip, par, tokens, comm, w_bytes, group_tokens=tokens_g
    )
    possible = np.asarray(tokens_g >= 2.0)
    if comm.overlap == "none" or not np.any(possible):
        return one, None, np.zeros((), dtype=bool)
    two = dict(one)
    (a, b), (a_g, b_g) = _halves(tokens, whole), _halves(tokens_g, whole)
    two["t_weights"] = _weights_term(spec, par, w_bytes, bw, a, a_g) + _weights_term(
        spec, par, w_bytes, bw, b, b_g
    )
    c_a, l_a = comm_terms(spec, chip, par, a, comm, w_bytes, group_tokens=a_g)
    c_b, l_b = comm_terms(spec, chip, par, b, comm, w_bytes, group_tokens=b_g)
    two["t_comm"], two["t_comm_latency"] = c_a + c_b, l_a + l_b
    return one, two, possible


def _schedule(
    one: Terms,
    two: Terms | None,
    possible: NDArray[np.bool_],
    mode: str,
    comm_mode: str,
    *,
    stages: int,
    batch: FloatArray,
    tokens_per_pass: FloatArray,
    system: System,
) -> StepTime:
    """Broadcast the terms (times `stages`), pick the schedule element by element and build
    the StepTime: one micro-batch, or two where allowed and ("auto") faster."""
    sets = [one] if two is None else [one, two]
    shape = np.broadcast_shapes(
        np.shape(batch), np.shape(possible), *(np.shape(t[k]) for t in sets for k in TERMS)
    )

    def fit(x: ArrayLike) -> FloatArray:
        a = np.asarray(x, dtype=np.float64)
        return a if a.shape == shape else np.broadcast_to(a, shape)

    def grid(t: Terms) -> Terms:
        return {k: fit(t[k] * stages if stages != 1 else t[k]) for k in TERMS}

    g1 = grid(one)
    t1, b1 = _combine(g1["t_matmul"], g1["t_attn"], g1["t_weights"], g1["t_kv"], g1["t_comm"], mode)
    # read-only views: batch and tokens_per_pass may be the caller's own arrays
    B = np.broadcast_to(np.asarray(batch, dtype=np.float64), shape)
    tpp = np.broadcast_to(np.asarray(tokens_per_pass, dtype=np.float64), shape)

    def make(
        g: Terms, t: FloatArray, b: NDArray[np.int8], mb: FloatArray, single: StepTime | None
    ) -> StepTime:
        return StepTime(
            t_matmul=g["t_matmul"],
            t_attn=g["t_attn"],
            t_weights=g["t_weights"],
            t_kv=g["t_kv"],
            t_comm=g["t_comm"],
            t_step=t,
            bound=b,
            batch=B,
            tokens_per_pass=tpp,
            overlap=mode,
            system=system,
            comm_overlap=comm_mode,
            micro_batches=mb,
            t_comm_latency=g["t_comm_latency"],
            t_matmul_prefill=g["t_matmul_prefill"],
            t_attn_prefill=g["t_attn_prefill"],
            single=single,
        )

    single = make(g1, t1, b1, np.ones(shape), None)
    if two is None:
        return single
    g2 = grid(two)
    t2, b2 = _combine(
        g2["t_matmul"],
        g2["t_attn"],
        g2["t_weights"],
        g2["t_kv"],
        g2["t_comm"],
        mode,
        comm_hidden=True,
    )
    ok = np.broadcast_to(possible, shape)
    use = ok if comm_mode == "two-batch" else ok & (t2 < t1)
    if not np.any(use):
        return single
    g = {k: np.where(use, g2[k], g1[k]) for k in TERMS}
    return make(
        g,
        np.where(use, t2, t1),
        np.where(use, b2, b1).astype(np.int8),
        np.where(use, 2.0, 1.0),
        single,
    )


def _pass(
    spec: ModelSpec,
    system: System,
    par: Parallelism | None,
    comm: CommModel | None,
    mode: str,
    w_bytes: float,
    kv_bytes: float,
    flops_total: float,
    flops_attn_total: float,
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
    tokens_per_pass: ArrayLike | None = None,
    average: bool = False,
) -> StepTime:
    """The terms of the busiest chip of one pipeline stage, times pp (decode), and its time.

    Without `par` the model spreads evenly over the system's chips: one "chip" with the
    system's summed FLOP/s and bandwidth, no split, no communication.

    With `whole_sequences`, a dp group holds a whole number of sequences: the busiest holds
    ceil(seqs / dp) (one request's prefill runs on one group however many there are). Averaged
    loads (continuous batching) pass fractions and `whole_sequences=False`; `whole_prefill`
    then gives the busiest group at least one whole prompt (a new request's first step).

    One stage pass carries `decode_seqs` sequences decoding one token each at `decode_context`
    and `prefill_seqs` prompts of `prefill_len` tokens after `cached_len` cached. `average`:
    the decode contexts are a spread, and the pass takes the mean of each term over them.
    """
    if par is None:
        par = Parallelism(1, 1)
        chip_flops, chip_attn, bw = flops_total, flops_attn_total, system.memory_bw
        whole_sequences = False
        costed: CommModel | None = None
    else:
        if par.chips != system.n_chips:
            raise InputError(
                f"the parallel split is for {par.chips} chips, the system has {system.n_chips}",
                field="chips",
            )
        n = system.n_chips
        chip_flops, chip_attn, bw = flops_total / n, flops_attn_total / n, system.chip.memory_bw
        costed = comm or CommModel()
    nd = np.asarray(decode_seqs, dtype=np.float64)
    npf = np.asarray(prefill_seqs, dtype=np.float64)
    T = np.asarray(prefill_len, dtype=np.float64)

    def share(x: FloatArray) -> FloatArray:
        return np.ceil(x) if whole_sequences else x

    def share_p(x: FloatArray) -> FloatArray:
        if whole_sequences:
            return np.ceil(x)
        if whole_prefill:  # averaged load, but the busiest group holds one whole prompt at least
            return np.where(x > 0, np.maximum(x, 1.0), 0.0)
        return x

    ld = _Load(
        nd=nd,
        S=np.asarray(decode_context, dtype=np.float64),
        npf=npf,
        T=T,
        S0=np.asarray(cached_len, dtype=np.float64),
        nd_g=share(nd / par.dp),
        npf_g=share_p(npf / par.dp),
        all_logits=all_logits,
    )
    one, two, possible = _pass_terms(
        spec,
        system.chip,
        par,
        costed,
        chip_flops,
        chip_attn,
        bw,
        w_bytes,
        kv_bytes,
        ld,
        whole=whole_sequences,
        share_kv=whole_sequences,
    )
    if average:  # the mean of each term over the spread of decode contexts
        one = {k: np.asarray(np.mean(v)) for k, v in one.items()}
        if two is not None:
            two = {k: np.asarray(np.mean(v)) for k, v in two.items()}
        possible = np.asarray(np.all(possible))
    seqs = nd + npf
    stages = par.pp if pipeline_fill else 1
    if in_flight is None:
        in_flight = seqs * stages
    if tokens_per_pass is None:
        tokens_per_pass = ld.tokens / np.maximum(seqs, 1e-300)
    return _schedule(
        one,
        two,
        possible,
        mode,
        "none" if costed is None else costed.overlap,
        stages=stages,
        batch=np.asarray(in_flight, dtype=np.float64),
        tokens_per_pass=np.asarray(tokens_per_pass, dtype=np.float64),
        system=system,
    )


def _resolve(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int,
    weight_dtype: str,
    kv_dtype: str,
    compute_dtype: str | None,
) -> tuple[ModelSpec, System, float, float, float, float]:
    """The model, the system, bytes per weight and per KV element, and the system's FLOP/s
    for the weight matmuls and for attention (each in its compute type)."""
    spec = get_model(model)
    system = as_system(hardware, chips)
    w_bytes = get_dtype(weight_dtype).bytes
    kv = get_dtype(kv_dtype)
    chip = system.chip
    cdt = compute_dtype or chip.compute_dtype_for(get_dtype(weight_dtype).name)
    attn_dt = compute_dtype or chip.compute_dtype_for(kv.name)
    return spec, system, w_bytes, kv.bytes, system.flops(cdt), system.flops(attn_dt)


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
    pipeline stage, communication is costed (`parallel.py`) under the schedule of
    `comm.overlap`, and with pp stages the step is pp stage times for micro-batches of
    batch / pp.

    >>> s = decode_step("llama-3.1-8b", "h100-sxm", batch=[1, 64], context_len=4096)
    >>> s.t_step.shape
    (2,)
    """
    spec, system, w_bytes, kv_bytes, flops, flops_attn = _resolve(
        model, hardware, chips, weight_dtype, kv_dtype, compute_dtype
    )
    B = positive_array(batch, "batch")
    S = positive_array(context_len, "context_len")
    _grid(B, S, names=("batch", "context_len"))
    mode = _overlap(overlap)
    par = None if parallel is None else parallel.check(spec)
    return _pass(
        spec,
        system,
        par,
        comm,
        mode,
        w_bytes,
        kv_bytes,
        flops,
        flops_attn,
        decode_seqs=B if par is None else np.ceil(B / par.pp),
        decode_context=S,
        in_flight=B,
        tokens_per_pass=np.ones(()),
    )


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
    spec, system, w_bytes, kv_bytes, flops, flops_attn = _resolve(
        model, hardware, chips, weight_dtype, kv_dtype, compute_dtype
    )
    B = positive_array(batch, "batch")
    T = positive_array(prompt_len, "prompt_len")
    S0 = _nonneg_array(cached_len, "cached_len")
    _grid(B, T, S0, names=("batch", "prompt_len", "cached_len"))
    mode = _overlap(overlap)
    par = None if parallel is None else parallel.check(spec)
    return _pass(
        spec,
        system,
        par,
        comm,
        mode,
        w_bytes,
        kv_bytes,
        flops,
        flops_attn,
        prefill_seqs=B,
        prefill_len=T,
        cached_len=S0,
        pipeline_fill=False,
        all_logits=all_logits,
        in_flight=B,
        tokens_per_pass=T,
    )


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
    `tokens_per_pass` counts the decode tokens (the pass's output); its prefill share of the
    compute is in `t_matmul_prefill` and `t_attn_prefill`.
    """
    spec, system, w_bytes, kv_bytes, flops, flops_attn = _resolve(
        model, hardware, chips, weight_dtype, kv_dtype, compute_dtype
    )
    B = float(positive_array(decode_batch, "decode_batch"))
    S = positive_array(decode_contexts, "decode_contexts")
    P = float(_nonneg_array(prefill_seqs, "prefill_seqs"))
    T = float(positive_array(prefill_len, "prefill_len"))
    mode = _overlap(overlap)
    par = None if parallel is None else parallel.check(spec)
    pp = 1 if par is None else par.pp
    return _pass(
        spec,
        system,
        par,
        comm,
        mode,
        w_bytes,
        kv_bytes,
        flops,
        flops_attn,
        decode_seqs=B / pp,
        decode_context=S,
        prefill_seqs=P / pp,
        prefill_len=T,
        whole_sequences=False,
        whole_prefill=whole_prefill,
        in_flight=B,
        tokens_per_pass=np.ones(()),
        average=True,
    )


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
