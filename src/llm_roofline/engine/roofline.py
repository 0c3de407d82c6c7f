"""The roofline's entry points: a decode step, a prefill, and a mixed step on n chips.

Every function broadcasts: give `batch` and `context_len` as numpy arrays (e.g. shapes (n, 1)
and (1, m)) and get every term back on the broadcast grid, one call for a whole sweep. Plain
Python numbers take the scalar path through the same formula code (`backend.py`), in
microseconds; what depends only on the model, system, data types and split is resolved once
and cached (`pass_terms.Plan`).

Where the rest is (docs/design.md has the equations and every choice they leave open):

    step_time.py        StepTime; the overlap modes (full, per-op, none) and `combine`
    microbatch.py       a pass's load over the split; one or two micro-batches
    pass_terms.py       the terms of one pass: matmuls, attention, weights, KV, communication
    weights_read.py     the weights a pass reads: dense weights, MoE experts touched
    kv_cache.py         KV elements a sequence reads and holds
    attention_flops.py  attention FLOPs of decode and causal prefill
    collectives.py      the split's collectives (parallel.py: the split and CommModel)
    balance.py          latency floor, B*, the balanced context

Without a `Parallelism` the model spreads evenly over the chips with no communication (the
bound any split respects); with one, each term is the busiest chip's and communication is
costed under `CommModel.overlap` (by default the faster of one and two micro-batches).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeGuard, Unpack

import numpy as np
from numpy.typing import ArrayLike

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.backend import ARRAY, SCALAR, Backend, Num
from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError
from llm_roofline.engine.balance import (
    as_system,
    balance_batch,
    balance_batch_formula,
    balanced_context,
    balanced_context_formula,
    latency_floor,
)
from llm_roofline.engine.microbatch import run_pass
from llm_roofline.engine.options import PassOptions, check_options
from llm_roofline.engine.parallel import CommModel, Parallelism
from llm_roofline.engine.pass_terms import Plan, Resolved, make_plan, per_sequence
from llm_roofline.engine.step_time import (
    BOUND_NAMES,
    MAX_SIZE,
    OVERLAP_MODES,
    StepTime,
    check_overlap,
    combine_terms,
    nonneg_array,
    positive_array,
)
from llm_roofline.engine.step_time import grid as broadcast_grid
from llm_roofline.hardware.chip import Chip, System
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec

__all__ = [
    "BOUND_NAMES",
    "MAX_SIZE",
    "OVERLAP_MODES",
    "StepTime",
    "as_system",
    "balance_batch",
    "balance_batch_formula",
    "balanced_context",
    "balanced_context_formula",
    "broadcast_grid",
    "combine_terms",
    "decode_step",
    "latency_floor",
    "mixed_step",
    "positive_array",
    "prefill",
]

# ---- the plans of the (model, system, types, split) a caller has used ------------------------

_PLANS: dict[tuple[object, ...], Plan] = {}
_PLANS_MAX = 512


def _key(model: object, hardware: object, chips: object, o: PassOptions) -> tuple[object, ...]:
    """A call's plan in the cache: strings (catalog ids, types) by value, objects by identity
    (the plan keeps them alive, so an id names one object while the entry lives). The chip
    count with its type: 2.0 and True equal 2 and 1 as keys, and must meet the check."""
    return (
        model if model.__class__ is str else id(model),
        hardware if hardware.__class__ is str else id(hardware),
        chips if chips.__class__ is int else (chips.__class__, chips),
        o.get("weight_dtype", "bf16"),
        o.get("kv_dtype", "bf16"),
        o.get("compute_dtype"),
        o.get("overlap", "full"),
        id(o.get("parallel")),
        id(o.get("comm")),
    )


def _lookup(key: tuple[object, ...]) -> Plan | None:
    try:
        return _PLANS.get(key)
    except TypeError:  # an unhashable argument (the checks will name it): no cache
        return None


def _cacheable(x: object) -> bool:
    """Not a file path (its contents may change between calls): a catalog id or an object."""
    if isinstance(x, str):
        return not ("/" in x or "\\" in x or x.lower().endswith((".json", ".toml")))
    return isinstance(x, (ModelSpec, Chip, System))


def _resolve(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int,
    weight_dtype: str,
    kv_dtype: str,
    compute_dtype: str | None,
) -> Resolved:
    """The model, the system, bytes per weight and per KV element, and the system's FLOP/s
    for the weight matmuls and for attention (each in its compute type)."""
    spec = get_model(model)
    system = as_system(hardware, chips)
    w_bytes = get_dtype(weight_dtype).bytes
    kv = get_dtype(kv_dtype)
    chip = system.chip
    cdt = compute_dtype or chip.compute_dtype_for(get_dtype(weight_dtype).name)
    attn_dt = compute_dtype or chip.compute_dtype_for(kv.name)
    return Resolved(spec, system, w_bytes, kv.bytes, system.flops(cdt), system.flops(attn_dt))


def _plan(
    key: tuple[object, ...],
    resolved: Resolved,
    overlap: str,
    parallel: Parallelism | None,
    comm: CommModel | None,
    keep: tuple[object, ...],
) -> Plan:
    """Check the overlap mode and the split (after the per-point inputs, as ever), build the
    plan and cache it under `key`."""
    mode = check_overlap(overlap)
    par = None if parallel is None else parallel.check(resolved.spec)
    plan = make_plan(resolved, par, comm, mode, keep)
    if _cacheable(keep[0]) and _cacheable(keep[1]):
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _planner(
    where: str,
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int,
    options: PassOptions,
) -> Callable[[], Plan]:
    """The call's plan, in two steps so that errors keep their order: the options, model,
    hardware and types are checked now (unless cached), the overlap and the split when the
    returned function is called, after the entry point (`where`) has checked its per-point
    inputs."""
    check_options(options, where)
    key = _key(model, hardware, chips, options)
    plan = _lookup(key)
    if plan is not None:
        return lambda: plan
    w, kv = options.get("weight_dtype", "bf16"), options.get("kv_dtype", "bf16")
    resolved = _resolve(model, hardware, chips, w, kv, options.get("compute_dtype"))
    parallel, comm = options.get("parallel"), options.get("comm")
    keep = (model, hardware, parallel, comm)
    overlap = options.get("overlap", "full")
    return lambda: _plan(key, resolved, overlap, parallel, comm, keep)


def _size(v: object) -> TypeGuard[float]:
    """A plain Python number `positive_array` accepts: in (0, MAX_SIZE] (NaN and inf fail)."""
    return isinstance(v, (int, float)) and 0 < v <= MAX_SIZE


def _length(v: object) -> TypeGuard[float]:
    """A plain Python number `nonneg_array` accepts: finite and >= 0."""
    return isinstance(v, (int, float)) and 0 <= v < math.inf


# ---- the passes ------------------------------------------------------------------------------


def decode_step(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    batch: ArrayLike = 1,
    context_len: ArrayLike = 1,
    **options: Unpack[PassOptions],
) -> StepTime:
    """One decode step: `batch` sequences each holding `context_len` tokens of KV cache.

    Without `parallel` the model spreads evenly over the chips with no communication (the
    bound any split must respect). With it, each term is that of the busiest chip of a
    pipeline stage, communication is costed (`collectives.py`) under the schedule of
    `comm.overlap`, and with pp stages the step is pp stage times for micro-batches of
    batch / pp.

    >>> s = decode_step("llama-3.1-8b", "h100-sxm", batch=[1, 64], context_len=4096)
    >>> s.t_step.shape
    (2,)
    """
    plan_of = _planner("decode_step", model, hardware, chips, options)
    xp: Backend
    B: Num
    S: Num
    if _size(batch) and _size(context_len):
        xp, B, S = SCALAR, float(batch), float(context_len)
    else:
        xp, B, S = ARRAY, positive_array(batch, "batch"), positive_array(context_len, "context_len")
        broadcast_grid(B, S, names=("batch", "context_len"))
    plan = plan_of()
    return run_pass(
        xp,
        plan,
        decode_seqs=xp.ceil(B / plan.par.pp) if plan.split else B,
        decode_context=S,
        in_flight=B,
        tokens_per_pass=1.0,
    )


def prefill(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    batch: ArrayLike = 1,
    prompt_len: ArrayLike = 1,
    *,
    cached_len: ArrayLike = 0,
    all_logits: bool = False,
    **options: Unpack[PassOptions],
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
    plan_of = _planner("prefill", model, hardware, chips, options)
    xp: Backend
    B: Num
    T: Num
    S0: Num
    if _length(cached_len) and _size(batch) and _size(prompt_len):
        xp, B, T, S0 = SCALAR, float(batch), float(prompt_len), float(cached_len)
    else:
        xp, B, T = ARRAY, positive_array(batch, "batch"), positive_array(prompt_len, "prompt_len")
        S0 = nonneg_array(cached_len, "cached_len")
        broadcast_grid(B, T, S0, names=("batch", "prompt_len", "cached_len"))
    plan = plan_of()
    return run_pass(
        xp,
        plan,
        prefill_seqs=B,
        prefill_len=T,
        cached_len=S0,
        pipeline_fill=False,
        all_logits=all_logits,
        in_flight=B,
        tokens_per_pass=T,
    )


# size: a pass's four loads (decode batch and contexts, prompts and their length) and two ways
# to read them (whole prompts; many passes at once), beside the model, chips and options
def mixed_step(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    decode_batch: ArrayLike,
    decode_contexts: ArrayLike,
    prefill_seqs: ArrayLike,
    prefill_len: ArrayLike,
    whole_prefill: bool = False,
    context_mean: Callable[[FloatArray], FloatArray] | None = None,
    prefill_cached: ArrayLike = 0.0,
    whole_decode: bool = False,
    prefill_busiest: ArrayLike | None = None,
    decode_busiest: ArrayLike | None = None,
    **options: Unpack[PassOptions],
) -> StepTime:
    """One pass that decodes a token for each of `decode_batch` sequences and prefills
    `prefill_seqs` prompts of `prefill_len` tokens (chunked prefill riding on a decode step).

    The decode sequences' contexts are spread over `decode_contexts`: the pass holds the mean
    of each term over them (`pass_terms.per_sequence`). One weight fetch serves every token
    of the pass. Returns a StepTime whose `tokens_per_pass` counts the decode tokens (the
    pass's output); its prefill share of the compute is in `t_matmul_prefill` and
    `t_attn_prefill`.

    Many such passes in one call: `context_mean` maps values at the points `decode_contexts`
    to each pass's mean over its own contexts (e.g. `spans.Spans.mean`); `decode_batch`,
    `prefill_seqs` and `prefill_len` then hold one value per pass (or one for all), and the
    StepTime one element per pass. Without it the pass is one, scalar, over all the contexts.

    `prefill_cached`: each prompt's tokens already prefilled (`prefill`'s `cached_len`).
    `whole_decode`: pp micro-batches of ceil(decode_batch / pp) decode sequences (as
    `decode_step`), ceil of that over dp in the busiest group (or `decode_busiest`, given);
    decode_batch may be 0. `prefill_busiest`: the prompts the busiest group holds (a prompt
    runs on one). Prompts spread evenly over the micro-batches (pp sub-chunks).
    """
    plan_of = _planner("mixed_step", model, hardware, chips, options)
    S = positive_array(decode_contexts, "decode_contexts")
    B, P, T = _mixed_sizes(decode_batch, prefill_seqs, prefill_len, context_mean, whole_decode)
    S0 = nonneg_array(prefill_cached, "prefill_cached")
    given = (_maybe(decode_busiest, "decode_busiest"), _maybe(prefill_busiest, "prefill_busiest"))
    context_mean = context_mean or (lambda v: np.asarray(np.mean(v)))  # one pass, all of them
    plan = plan_of()
    a, k = (np.broadcast_to(v, S.shape) for v in per_sequence(ARRAY, plan, S))
    means = (context_mean(a), context_mean(k))
    pp = plan.par.pp
    nd = np.ceil(B / pp) if whole_decode else B / pp
    return run_pass(
        ARRAY,
        plan,
        decode_seqs=nd,
        prefill_seqs=P / pp,
        prefill_len=T,
        cached_len=S0,
        whole_sequences=False,
        whole_prefill=whole_prefill,
        in_flight=B,
        tokens_per_pass=1.0,
        per_seq=means,
        groups=_busiest_group(plan, nd, P, given, whole_decode, whole_prefill),
    )


def _maybe(v: ArrayLike | None, name: str) -> Num | None:
    return None if v is None else nonneg_array(v, name)


def _busiest_group(
    plan: Plan, nd: Num, P: Num, given: tuple[Num | None, ...], whole: bool, whole_prefill: bool
) -> tuple[Num, Num] | None:
    """The busiest dp group's decode sequences and prompts per micro-batch (or None)."""
    d, p = given
    if not whole and d is None and p is None:
        return None
    dp, pp = plan.dp, plan.par.pp
    if d is None:
        d = np.ceil(nd / dp) if whole else nd / dp
    if p is None:  # an even share, or (whole_prefill) one whole prompt at least
        p = np.where(P > 0, np.maximum(P / dp, 1.0), 0.0) if whole_prefill else P / dp
    return d, p / pp


def _mixed_sizes(
    decode_batch: ArrayLike,
    prefill_seqs: ArrayLike,
    prefill_len: ArrayLike,
    many: object,
    zero: bool,
) -> tuple[Num, Num, Num]:
    """A mixed pass's decode batch, prompts and prompt length, checked: one number each for
    one pass, or arrays of one value per pass (`many` not None); the decode batch may be 0
    (`zero`)."""
    size = nonneg_array if zero else positive_array
    if many is not None:
        return (
            size(decode_batch, "decode_batch"),
            nonneg_array(prefill_seqs, "prefill_seqs"),
            positive_array(prefill_len, "prefill_len"),
        )
    if np.size(decode_batch) != 1:
        raise InputError(
            "decode_batch must be one number unless context_mean is given (many passes)",
            field="decode_batch",
        )
    return (
        float(size(decode_batch, "decode_batch")),
        float(nonneg_array(prefill_seqs, "prefill_seqs")),
        float(positive_array(prefill_len, "prefill_len")),
    )
