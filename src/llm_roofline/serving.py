"""Serving a request: the three modes of the scenario contract, from the engine's passes.

Every mode reports time per output token (TPOT), time to first token (TTFT), request latency,
output throughput, and the terms of its representative decode step. All `ideal`: each figure is
a lower bound (no scheduling overhead, no queueing).

- `decode`: one decode step of `batch` sequences each holding `input_len` tokens of KV. TTFT is
  the prefill of the batch's prompts; the request's remaining `output_len − 1` tokens are priced
  at that same step. `output_len` may be 0 (a prompt scored, nothing generated): the request
  latency is the TTFT. Memory is checked at the longest context the request reaches,
  `input_len + output_len`.
- `static`: a fixed batch. One prefill pass over `batch × input_len` tokens yields each
  sequence's first token (TTFT); then `output_len − 1` decode steps with the context growing from
  `input_len + 1` to `input_len + output_len − 1`. The batch finishes together.
- `continuous`: steady state with `batch` requests in flight at uniformly spread points of their
  lives. Each step decodes one token for every request in flight (mean KV over contexts
  `input_len .. input_len + output_len − 1`), and carries the prefill of the requests that
  replace the ones finishing: `batch / output_len` new requests per step, `batch · input_len /
  output_len` prompt tokens, chunked into the step (one weight fetch serves both). TTFT is one
  step that carries a new request's whole prompt (in one data-parallel group) besides the
  steady load: the decodes of the `batch` in flight and `max(1, batch / output_len)` prompts.
  It is never below the steady step (TPOT), since it carries at least the steady step's
  prompts, and it is a lower bound: no queueing, and a scheduler that spreads a prompt over
  several steps (a token budget smaller than the prompt) only takes longer. (Spreading the
  prompt evenly, `output_len / batch` steps, is not a bound: with one request in flight it
  would charge the whole of the previous request's decode to the next one's first token.)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from .calibrate import Profile, get_profile, pass_time
from .catalog import get_model
from .dtypes import get_dtype
from .errors import InputError
from .hardware import Chip, System
from .memory import memory_use
from .model import ModelSpec
from .parallel import CommModel, Parallelism
from .roofline import (
    BOUND_NAMES,
    MAX_SIZE,
    StepTime,
    as_system,
    decode_step,
    mixed_step,
    prefill,
)

__all__ = [
    "MODES",
    "ServingResult",
    "ServingTerms",
    "SpeculativeResult",
    "compose",
    "replicated",
    "serve",
    "serving_terms",
    "speculative_decode",
    "tokens_per_verification",
]

MODES = ("decode", "static", "continuous")
PREFILL_CHUNK = 8192  # tokens per prefill pass when sizing activation memory (vLLM's default)


@dataclass(frozen=True)
class ServingResult:
    """The output columns of the scenario contract for one scenario (SI units)."""

    tpot_s: float
    ttft_s: float
    request_latency_s: float
    output_tokens_per_s: float
    output_tokens_per_s_per_chip: float
    fits: bool
    bound: str
    t_compute_s: float
    t_weights_s: float
    t_kv_s: float
    t_comm_s: float
    usd_per_million_output_tokens: float | None
    memory_per_chip_bytes: float
    queue_delay_bound_s: float = 0.0
    warnings: tuple[str, ...] = ()
    # a calibrated prediction's range, as multipliers of its times (None for `ideal`)
    time_range: tuple[float, float] | None = None
    # the ideal engine's figures of the same scenario: a range never passes the lower bound
    ideal: ServingResult | None = None

    def as_dict(self) -> dict[str, float | bool | str | None]:
        d = dict(self.__dict__)
        d["warnings"] = "; ".join(self.warnings)
        rng = d.pop("time_range")
        ideal = d.pop("ideal")
        if rng is not None:  # times scale with the range, throughputs inversely
            lo, hi = rng
            for k in ("tpot_s", "ttft_s", "request_latency_s"):
                bound = 0.0 if ideal is None else getattr(ideal, k)
                d[f"{k}_low"], d[f"{k}_high"] = max(d[k] * lo, bound), max(d[k] * hi, bound)
            for k in ("output_tokens_per_s", "output_tokens_per_s_per_chip"):
                top = float("inf") if ideal is None else getattr(ideal, k)
                d[f"{k}_low"], d[f"{k}_high"] = min(d[k] / hi, top), min(d[k] / lo, top)
        return d


MAX_STEPS_SAMPLED = 4096  # longer generations are integrated from this many sampled contexts


def _positive_int(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {value!r}", field=name)
    if value > MAX_SIZE:
        raise InputError(f"{name} must be at most {MAX_SIZE:.0e}, got {value!r}", field=name)
    return int(value)


def _contexts(first: int, count: int) -> np.ndarray:
    """The contexts first, first+1, ..., first+count−1; for very long generations an even
    sample of them (the mean over the sample stands for the mean over all)."""
    if count <= MAX_STEPS_SAMPLED:
        return first + np.arange(count, dtype=np.float64)
    return np.linspace(first, first + count - 1, MAX_STEPS_SAMPLED)


def _terms(step: StepTime) -> tuple[float, float, float, float]:
    """Mean over the steps of a request: compute, weights, KV, communication."""
    return (
        float(np.mean(step.t_compute)),
        float(np.mean(step.t_weights)),
        float(np.mean(step.t_kv)),
        float(np.mean(step.t_comm)),
    )


def _bound(t_compute: float, t_memory: float, t_comm: float) -> str:
    if t_comm > t_compute and t_comm > t_memory:
        return BOUND_NAMES[2]
    return BOUND_NAMES[0] if t_compute >= t_memory else BOUND_NAMES[1]


@dataclass(frozen=True)
class ServingTerms:
    """The ideal passes a scenario needs, before any profile is applied.

    `step` is the representative decode pass (the decode step, the static batch's steps at
    each context, or continuous batching's mixed step); `prefill` the batch's prefill (decode
    and static modes); `first` continuous batching's step that carries a whole new prompt
    (its TTFT) besides the steady load.
    """

    mode: str
    batch: int
    input_len: int
    output_len: int
    system: System
    step: StepTime
    prefill: StepTime | None
    first: StepTime | None
    memory_per_chip_bytes: float
    fits: bool
    warnings: tuple[str, ...]


def _nonneg_int(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InputError(f"{name} must be zero or a positive integer, got {value!r}", field=name)
    if value > MAX_SIZE:
        raise InputError(f"{name} must be at most {MAX_SIZE:.0e}, got {value!r}", field=name)
    return int(value)


def serving_terms(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    batch: int,
    input_len: int,
    output_len: int,
    mode: str = "decode",
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    overlap: str = "full",
    parallel: Parallelism | None = None,
    comm: CommModel | None = None,
) -> ServingTerms:
    """Compute the ideal passes of one scenario (see `serve`)."""
    spec = get_model(model)
    system = as_system(hardware, chips)
    B = _positive_int(batch, "batch")
    I = _positive_int(input_len, "input_len")
    if mode not in MODES:
        raise InputError(f"mode must be one of {', '.join(MODES)}, got {mode!r}", field="mode")
    if mode == "decode":  # a prompt scored, nothing generated: one step, latency = TTFT
        O = _nonneg_int(output_len, "output_len")
    else:
        O = _positive_int(output_len, "output_len")
    if I + O > MAX_SIZE:
        raise InputError(
            f"input_len + output_len must be at most {MAX_SIZE:.0e}, got {I + O:,}",
            field="output_len",
        )
    get_dtype(weight_dtype), get_dtype(kv_dtype)  # fail early on unknown types
    kw: dict[str, Any] = {
        "weight_dtype": weight_dtype,
        "kv_dtype": kv_dtype,
        "overlap": overlap,
        "parallel": parallel,
        "comm": comm,
    }
    mem_kw: dict[str, Any] = {
        "weight_dtype": weight_dtype,
        "kv_dtype": kv_dtype,
        "parallel": parallel,
    }
    pre = first = None
    if mode == "continuous":
        contexts = _contexts(I, O)
        step = mixed_step(
            spec,
            system,
            decode_batch=B,
            decode_contexts=contexts,
            prefill_seqs=B / O,
            prefill_len=I,
            **kw,
        )
        # the first token: a step that carries a new request's whole prompt (in one dp
        # group) besides the steady load, never fewer prompts than a steady step carries
        first = mixed_step(
            spec,
            system,
            decode_batch=B,
            decode_contexts=contexts,
            prefill_seqs=max(1.0, B / O),
            prefill_len=I,
            whole_prefill=True,
            **kw,
        )
        # in flight: B sequences spread over contexts I .. I+O-1 (their mean KV)
        mem = memory_use(spec, system, batch=B, context_len=contexts, **mem_kw)
        memory = float(np.mean(mem.total))
        fits = memory <= mem.capacity
    else:
        pre = prefill(spec, system, batch=B, prompt_len=I, **kw)
        if mode == "decode" or O <= 1:
            contexts = np.array([float(I)])
        else:  # static: the O - 1 steps after the prefill's token, contexts I+1 .. I+O-1
            contexts = _contexts(I + 1, O - 1)
        step = decode_step(spec, system, batch=B, context_len=contexts, **kw)
        peak = I + O  # the longest context the request reaches (decode prices O − 1 more)
        # activations: engines prefill in chunks of a few thousand tokens per pass
        chunk = max(1.0, min(float(I), PREFILL_CHUNK / B))
        mem = memory_use(spec, system, batch=B, context_len=peak, tokens_per_seq=chunk, **mem_kw)
        memory = float(mem.total.flat[0])
        fits = bool(mem.fits.flat[0])
    warnings = []
    if spec.max_context and I + O > spec.max_context:
        warnings.append(
            f"input_len + output_len = {I + O:,} is beyond the model's trained maximum "
            f"context ({spec.max_context:,})"
        )
    if not fits:
        warnings.append(
            f"does not fit: {memory / 1e9:,.1f} GB per chip needed, "
            f"{system.chip.memory_bytes / 1e9:,.1f} GB per chip available"
        )
    return ServingTerms(
        mode, B, I, O, system, step, pre, first, memory, bool(fits), tuple(warnings)
    )


def compose(terms: ServingTerms, profile: Profile | None = None) -> ServingResult:
    """The scenario's figures from its passes, each timed under `profile` (None: ideal)."""
    B, O, system = terms.batch, terms.output_len, terms.system
    step_t = pass_time(terms.step, profile)
    priced = system.price_usd_per_s > 0
    if terms.mode == "continuous":
        assert terms.first is not None
        t = float(np.mean(step_t))
        tpot, ttft = t, float(np.mean(pass_time(terms.first, profile)))
        latency = ttft + (O - 1) * t
        tokens_per_s = B / t
        queue = t  # the train schedule: a step departs every period; wait at most one
        usd_token = system.price_usd_per_s * t / B if priced else None
    else:
        assert terms.prefill is not None
        ttft = float(pass_time(terms.prefill, profile, prefill=True).flat[0])
        if terms.mode == "decode" or O <= 1:
            tpot = float(step_t.flat[0])
        else:
            tpot = float(np.mean(step_t))
        latency = ttft + max(O - 1, 0) * tpot
        if terms.mode == "decode":
            queue = tpot
            tokens_per_s = B / tpot
            usd_token = system.price_usd_per_s * tpot / B if priced else None
        else:
            queue = latency  # a request that just missed the batch waits for it to finish
            tokens_per_s = B * O / latency
            usd_token = system.price_usd_per_s * latency / (B * O) if priced else None
    t_compute, t_weights, t_kv, t_comm = _terms(terms.step)
    return ServingResult(
        tpot_s=tpot,
        ttft_s=ttft,
        request_latency_s=latency,
        output_tokens_per_s=tokens_per_s,
        output_tokens_per_s_per_chip=tokens_per_s / system.n_chips,
        fits=terms.fits,
        bound=_bound(t_compute, t_weights + t_kv, t_comm),
        t_compute_s=t_compute,
        t_weights_s=t_weights,
        t_kv_s=t_kv,
        t_comm_s=t_comm,
        usd_per_million_output_tokens=None if usd_token is None else usd_token * 1e6,
        memory_per_chip_bytes=terms.memory_per_chip_bytes,
        queue_delay_bound_s=queue,
        warnings=terms.warnings,
        time_range=None if profile is None else (profile.low, profile.high),
    )


def serve(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    batch: int,
    input_len: int,
    output_len: int,
    mode: str = "decode",
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    overlap: str = "full",
    parallel: Parallelism | None = None,
    comm: CommModel | None = None,
    profile: Profile | str | None = None,
) -> ServingResult:
    """Predict one scenario of the contract (`mode` decode, static or continuous).

    `parallel` (tp, pp, ep over the chips) adds the communication of that split and its
    memory per chip; without it the model spreads evenly with no communication. `profile`
    (a name from data/profiles.toml or a Profile) gives a calibrated prediction instead of the
    ideal lower bound.
    """
    terms = serving_terms(
        model,
        hardware,
        chips,
        batch=batch,
        input_len=input_len,
        output_len=output_len,
        mode=mode,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        overlap=overlap,
        parallel=parallel,
        comm=comm,
    )
    prof = profile if isinstance(profile, Profile) else get_profile(profile)
    if prof is None:
        return compose(terms, None)
    return dataclasses.replace(compose(terms, prof), ideal=compose(terms, None))


def replicated(res: ServingResult, *, batch: int, per_replica: int, replicas: int) -> ServingResult:
    """One instance's serving figures restated for `replicas` instances serving `batch`
    sequences, ⌈batch / replicas⌉ on the busiest: times are the busiest instance's; tokens/s
    count every sequence (exactly replicas × one instance's when the batch divides evenly);
    $ per token pays for every chip."""
    if replicas == 1:
        return res
    share = batch / per_replica  # sequences served per instance-worth of time
    usd = res.usd_per_million_output_tokens
    total = res.output_tokens_per_s * share
    ideal = res.ideal
    if ideal is not None:
        ideal = replicated(ideal, batch=batch, per_replica=per_replica, replicas=replicas)
    return dataclasses.replace(
        res,
        ideal=ideal,
        output_tokens_per_s=total,
        output_tokens_per_s_per_chip=res.output_tokens_per_s_per_chip * share / replicas,
        usd_per_million_output_tokens=None if usd is None else usd * replicas / share,
    )


def tokens_per_verification(gamma: int, acceptance: float) -> float:
    """Expected tokens one verification pass yields with `gamma` drafted tokens each accepted
    with probability α (independently): (1 − α^(γ+1)) / (1 − α); γ + 1 when α = 1.

    Epoch AI, "Inference economics of language models" (arXiv 2506.04645), after Leviathan et
    al. 2023.
    """
    if isinstance(gamma, bool) or not isinstance(gamma, (int, np.integer)) or gamma < 1:
        raise InputError(f"gamma must be a positive integer, got {gamma!r}", field="gamma")
    a = float(acceptance)
    if not 0.0 <= a <= 1.0:
        raise InputError(f"acceptance must be in [0, 1], got {acceptance!r}", field="acceptance")
    if a == 1.0:
        return float(gamma + 1)
    return (1.0 - a ** (gamma + 1)) / (1.0 - a)


@dataclass(frozen=True)
class SpeculativeResult:
    """Speculative decoding (or multi-token prediction) at one batch and context, seconds."""

    gamma: int
    acceptance: float
    tokens_per_verification: float
    t_verify_s: float  # one pass of gamma + 1 tokens per sequence through the target model
    t_draft_s: float  # gamma draft steps (a draft model, or MTP heads)
    tpot_s: float  # (verify + draft) / tokens per verification
    tpot_plain_s: float  # the same batch without speculation
    speedup: float


def _mtp_head(spec: ModelSpec) -> ModelSpec:
    """A multi-token-prediction module: one more layer like the model's last, and the shared
    embedding and LM head (DeepSeek-V3's MTP module; its small projection is left out)."""
    last = spec.groups[-1]
    return dataclasses.replace(
        spec,
        name=f"{spec.name} MTP module",
        groups=(dataclasses.replace(last, count=1),),
        params_vision=0,
    )


def speculative_decode(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    batch: int,
    context_len: int,
    gamma: int,
    acceptance: float,
    draft: str | ModelSpec | None = "mtp",
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    overlap: str = "full",
    parallel: Parallelism | None = None,
    comm: CommModel | None = None,
) -> SpeculativeResult:
    """Time per output token with `gamma` drafted tokens accepted with probability α.

    The target model verifies all gamma + 1 positions of every sequence in one pass (a prefill
    of gamma + 1 tokens after the context, logits at every position); the draft costs gamma
    decode steps of `draft`: "mtp" (one extra layer of the target and its LM head), a catalog
    model or ModelSpec (a separate draft model on the same chips), or None (free, an upper
    bound on the gain).
    """
    spec = get_model(model)
    system = as_system(hardware, chips)
    E = tokens_per_verification(gamma, acceptance)
    B = _positive_int(batch, "batch")
    S = _positive_int(context_len, "context_len")
    kw: dict[str, Any] = {
        "weight_dtype": weight_dtype,
        "kv_dtype": kv_dtype,
        "overlap": overlap,
        "parallel": parallel,
        "comm": comm,
    }
    pp = parallel.pp if parallel is not None else 1
    # verification rides the decode pipeline: micro-batches of B / pp cross pp stages
    verify = prefill(
        spec,
        system,
        batch=-(-B // pp),
        prompt_len=gamma + 1,
        cached_len=S,
        all_logits=True,
        **kw,
    )
    plain = decode_step(spec, system, batch=B, context_len=S, **kw)
    if draft is None:
        t_draft = 0.0
    else:
        d = _mtp_head(spec) if draft == "mtp" else get_model(draft)
        dkw = dict(kw, parallel=None) if d is not spec else kw
        steps = decode_step(d, system, batch=B, context_len=S + np.arange(gamma), **dkw)
        t_draft = float(np.sum(steps.t_step))
    t_verify = float(verify.t_step[()]) * pp
    tpot = (t_verify + t_draft) / E
    t_plain = float(plain.t_step[()])
    return SpeculativeResult(
        gamma=int(gamma),
        acceptance=float(acceptance),
        tokens_per_verification=E,
        t_verify_s=t_verify,
        t_draft_s=t_draft,
        tpot_s=tpot,
        tpot_plain_s=t_plain,
        speedup=t_plain / tpot,
    )
