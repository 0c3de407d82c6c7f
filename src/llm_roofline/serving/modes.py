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

A scenario's passes (`serving_terms`) and the figures composed from them (`compose`) are kept
apart, so that fitting a profile recomputes no pass. Many scenarios of one mode on one system
are one engine call per pass (`serve_many`: batch and lengths as arrays; a static batch's
decode contexts laid out once for all rows, `spans.Spans`; continuous batching's mixed steps,
one per distinct scenario, in one `roofline.mixed_step` call over the scenarios' contexts).

An engine other than the ideal comes in as a `Timing` (`calibrate.Profile` is one): the time of
a pass and the range of its predictions. This module does not know how profiles are made.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Unpack

import numpy as np
from numpy.typing import ArrayLike, NDArray

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.backend import ARRAY
from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError
from llm_roofline._core.units import mega
from llm_roofline.engine.cost import usd_per_token_from
from llm_roofline.engine.options import PassOptions, check_options
from llm_roofline.engine.roofline import (
    MAX_SIZE,
    StepTime,
    as_system,
)
from llm_roofline.engine.step_time import bound_index
from llm_roofline.hardware.chip import Chip, System
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec
from llm_roofline.serving.contract import MODES
from llm_roofline.serving.passes import ServingTerms, scenario_passes
from llm_roofline.serving.results import ServingColumns, ServingResult, Timing, join, replicated
from llm_roofline.serving.spans import MAX_STEPS_SAMPLED, size
from llm_roofline.serving.speculative import (
    SpeculativeResult,
    speculative_decode,
    tokens_per_verification,
)

__all__ = [
    "MODES",
    "ServingColumns",
    "ServingResult",
    "SpeculativeResult",
    "Timing",
    "compose",
    "replicated",
    "serve",
    "serve_many",
    "serving_terms",
    "speculative_decode",
    "tokens_per_verification",
    "valid_rows",
]

POINTS_PER_CALL = 1 << 19  # decode contexts per engine call in `serve_many`: bounds its memory


def _check(batch: int, input_len: int, output_len: int, mode: str) -> tuple[int, int, int]:
    B, I = size(batch, "batch"), size(input_len, "input_len")
    if mode not in MODES:
        raise InputError(f"mode must be one of {', '.join(MODES)}, got {mode!r}", field="mode")
    # decode: a prompt scored, nothing generated (one step, latency = TTFT) is allowed
    O = size(output_len, "output_len", zero=mode == "decode")
    if I + O > MAX_SIZE:
        raise InputError(
            f"input_len + output_len must be at most {MAX_SIZE:.0e}, got {I + O:,}",
            field="output_len",
        )
    return B, I, O


def valid_rows(
    batch: ArrayLike, input_len: ArrayLike, output_len: ArrayLike, mode: str
) -> NDArray[np.bool_]:
    """Which scenarios pass the checks of `serving_terms` (the others raise there)."""
    B, I, O = (np.asarray(x, dtype=np.float64) for x in (batch, input_len, output_len))
    whole = (B == np.floor(B)) & (I == np.floor(I)) & (O == np.floor(O))
    least = 0 if mode == "decode" else 1
    ok = whole & (B >= 1) & (B <= MAX_SIZE) & (I >= 1) & (O >= least) & (I + O <= MAX_SIZE)
    return np.asarray(ok & (mode in MODES), dtype=bool)


def serving_terms(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    batch: int,
    input_len: int,
    output_len: int,
    mode: str = "decode",
    **options: Unpack[PassOptions],
) -> ServingTerms:
    """Compute the ideal passes of one scenario (see `serve`)."""
    check_options(options, "serving_terms")
    spec = get_model(model)
    system = as_system(hardware, chips)
    B, I, O = _check(batch, input_len, output_len, mode)
    get_dtype(options.get("weight_dtype", "bf16"))  # fail early on unknown types
    get_dtype(options.get("kv_dtype", "bf16"))
    B_, I_, O_ = (np.array([float(x)]) for x in (B, I, O))
    return scenario_passes(spec, system, B_, I_, O_, mode, options)


def request_figures(
    static: ArrayLike, batch: FloatArray, output_len: FloatArray, ttft: FloatArray, tpot: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """A request's latency, the period between batches' outputs and the tokens each gives, from
    its first-token time and time per output token (`static`: the batch finishes together, so
    a request that just missed it waits for it to finish; else a token per step for each of
    the batch: a request waits at most one step)."""
    latency = ttft + np.maximum(output_len - 1, 0) * tpot
    period = np.where(static, latency, tpot)
    tokens = np.where(static, batch * output_len, batch)
    return latency, period, tokens


def _compose(terms: ServingTerms, timing: Timing | None) -> ServingColumns:
    """The figures of each scenario from its passes, each timed under `timing` (None: ideal)."""

    def time(step: StepTime, *, prefill: bool = False, first_token: bool = False) -> FloatArray:
        if timing is None:
            return step.t_step
        return timing.pass_time(step, prefill=prefill, first_token=first_token)

    B, O, system, spans = terms.batch, terms.output_len, terms.system, terms.spans
    tpot = spans.mean(time(terms.step))
    if terms.first is not None:
        ttft = spans.mean(time(terms.first, first_token=True))
    else:
        assert terms.prefill is not None
        ttft = time(terms.prefill, prefill=True)
    latency, period, tokens = request_figures(terms.mode == "static", B, O, ttft, tpot)
    tokens_per_s = tokens / period
    price = system.price_usd_per_s
    s = terms.step
    t_compute, t_weights = spans.mean(s.t_compute), spans.mean(s.t_weights)
    t_kv, t_comm = spans.mean(s.t_kv), spans.mean(s.t_comm)
    t_memory = t_weights + t_kv
    bound = np.asarray(bound_index(ARRAY, t_compute, t_memory, t_comm)).astype(np.int8)
    return ServingColumns(
        tpot_s=tpot,
        ttft_s=ttft,
        request_latency_s=latency,
        output_tokens_per_s=tokens_per_s,
        output_tokens_per_s_per_chip=tokens_per_s / system.n_chips,
        fits=terms.fits,
        bound=bound,
        t_compute_s=t_compute,
        t_weights_s=t_weights,
        t_kv_s=t_kv,
        t_comm_s=t_comm,
        usd_per_million_output_tokens=usd_per_token_from(price, period, tokens, mega)
        if price > 0
        else None,
        memory_per_chip_bytes=terms.memory_per_chip_bytes,
        queue_delay_bound_s=period,
        warnings=terms.warnings,
        time_range=None if timing is None else (timing.low, timing.high),
    )


def compose(terms: ServingTerms, profile: Timing | None = None) -> ServingResult:
    """The figures of one scenario (`serving_terms`) from its passes, each timed under
    `profile` (None: ideal)."""
    return _compose(terms, profile).row(0)


def _served(terms: ServingTerms, profile: Timing | None) -> ServingColumns:
    if profile is None:
        return _compose(terms, None)
    return dataclasses.replace(_compose(terms, profile), ideal=_compose(terms, None))


def serve(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    batch: int,
    input_len: int,
    output_len: int,
    mode: str = "decode",
    profile: Timing | None = None,
    **options: Unpack[PassOptions],
) -> ServingResult:
    """Predict one scenario of the contract (`mode` decode, static or continuous).

    `parallel` (tp, pp, ep over the chips) adds the communication of that split and its
    memory per chip; without it the model spreads evenly with no communication. `profile`
    (a `Timing`, e.g. `calibrate.get_profile("vllm")`) gives a calibrated prediction, with the
    ideal one beside it, instead of the ideal lower bound.
    """
    terms = serving_terms(
        model,
        hardware,
        chips,
        batch=batch,
        input_len=input_len,
        output_len=output_len,
        mode=mode,
        **options,
    )
    return _served(terms, profile).row(0)


def serve_many(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    batch: ArrayLike,
    input_len: ArrayLike,
    output_len: ArrayLike,
    mode: str = "decode",
    profile: Timing | None = None,
    **kw: Unpack[PassOptions],
) -> ServingColumns:
    """`serve` for many scenarios of one mode at once: `batch`, `input_len` and `output_len`
    are arrays of one element per scenario, and each pass is one engine call over all of them
    (`kw`: the pass options, as for `serve`). The figures are
    those `serve` gives scenario by scenario. A scenario `serve` would refuse raises its error.
    """
    spec, system = get_model(model), as_system(hardware, chips)
    B, I, O = (np.asarray(x, dtype=np.float64).ravel() for x in (batch, input_len, output_len))
    if B.size == 0 or not B.shape == I.shape == O.shape:
        raise InputError(
            "batch, input_len and output_len must be arrays of one size", field="batch"
        )
    ok = valid_rows(B, I, O, mode)
    if not np.all(ok):  # the first refused scenario's own error
        b, i, o = (float(x[np.flatnonzero(~ok)[0]]) for x in (B, I, O))
        whole = [int(v) if v.is_integer() else v for v in (b, i, o)]
        _check(whole[0], whole[1], whole[2], mode)  # type: ignore[arg-type]
    check_options(kw, "serve_many")
    get_dtype(kw.get("weight_dtype", "bf16")), get_dtype(kw.get("kv_dtype", "bf16"))
    # rows in (batch, input_len) order, cut so that no call holds many more than
    # POINTS_PER_CALL decode contexts: neighbours share their points, memory stays bounded
    order = np.lexsort((I, B))
    points = np.minimum(O if mode != "decode" else np.ones_like(O), MAX_STEPS_SAMPLED)[order]
    call = (np.cumsum(points) - 1) // POINTS_PER_CALL
    edges = [0, *(np.flatnonzero(np.diff(call)) + 1), B.size]
    parts = []
    for a, z in itertools.pairwise(edges):
        rows = order[a:z]
        parts.append(
            _served(scenario_passes(spec, system, B[rows], I[rows], O[rows], mode, kw), profile)
        )
    return join(parts, np.argsort(order, kind="stable"))
