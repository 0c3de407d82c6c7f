"""The ideal passes a serving scenario needs, before any engine is applied (`ServingTerms`):
continuous batching's mixed steps (the steady one and the one that carries a new prompt),
or a batch's prefill and decode steps; the memory each scenario holds at its longest context,
and its warnings. `modes.py` composes the contract's figures from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.units import GB, GiB
from llm_roofline.engine.memory import memory_use
from llm_roofline.engine.options import PassOptions, memory_options
from llm_roofline.engine.roofline import StepTime, decode_step, mixed_step, prefill
from llm_roofline.hardware.chip import System
from llm_roofline.model.spec import ModelSpec
from llm_roofline.serving.spans import Spans

__all__ = ["NO_FIT", "PREFILL_CHUNK", "ServingTerms", "scenario_passes"]

PREFILL_CHUNK = 8192  # tokens per prefill pass when sizing activation memory (vLLM's default)
NO_FIT = "does not fit: "  # how a warning that the scenario overflows memory begins


@dataclass(frozen=True)
class ServingTerms:
    """The ideal passes of scenarios of one mode, before any engine is applied.

    `step` is the representative decode pass over the points of `spans` (each scenario's mean
    over its own points: the decode step; the static batch's steps at each context;
    continuous batching's mixed step); `prefill` each scenario's prefill (decode and static
    modes); `first` continuous batching's step that carries a whole new prompt (its TTFT)
    besides the steady load, over the same points. `serving_terms` gives one scenario.
    """

    mode: str
    batch: FloatArray
    input_len: FloatArray
    output_len: FloatArray
    system: System
    step: StepTime
    prefill: StepTime | None
    first: StepTime | None
    spans: Spans
    memory_per_chip_bytes: FloatArray
    fits: NDArray[np.bool_]
    warnings: tuple[tuple[str, ...], ...]


_Passes = tuple[StepTime, StepTime | None, StepTime | None, Spans, FloatArray, NDArray[np.bool_]]


def _continuous(
    spec: ModelSpec, system: System, B: FloatArray, I: FloatArray, O: FloatArray, kw: PassOptions
) -> _Passes:
    """Continuous batching: one mixed step for every distinct scenario, each over its own
    contexts I .. I+O-1 (points shared between scenarios: what depends on the context depends
    on it alone), and the step that carries a new request's first token."""
    keys, inverse = np.unique(np.stack([B, I, O], axis=1), axis=0, return_inverse=True)
    kb, ki, ko = keys[:, 0], keys[:, 1], keys[:, 2]
    held_at = Spans.of(np.ones_like(kb), ki, ko)
    load: dict[str, Any] = {
        "decode_batch": kb,
        "decode_contexts": held_at.context,
        "prefill_len": ki,
        "context_mean": held_at.mean,
    }
    step = mixed_step(spec, system, prefill_seqs=kb / ko, **load, **kw)
    # the first token: a step that carries a new request's whole prompt (in one dp
    # group) besides the steady load, never fewer prompts than a steady step carries
    first = mixed_step(
        spec, system, prefill_seqs=np.maximum(1.0, kb / ko), whole_prefill=True, **load, **kw
    )
    spans = Spans.single(keys[:, 0], keys[:, 1], inverse.ravel())  # row -> its scenario
    # in flight: B sequences spread over contexts I .. I+O-1 (their mean KV)
    held = Spans.of(B, I, O)
    mem_kw = memory_options(kw)
    mem = memory_use(spec, system, batch=held.batch, context_len=held.context, **mem_kw)
    memory = held.mean(mem.total)
    return step, None, first, spans, memory, np.asarray(memory <= mem.capacity, dtype=bool)


def _batched(
    spec: ModelSpec,
    system: System,
    B: FloatArray,
    I: FloatArray,
    O: FloatArray,
    mode: str,
    kw: PassOptions,
) -> _Passes:
    """Decode and static batching: the batch's prefill, then its decode steps."""
    pre = prefill(spec, system, batch=B, prompt_len=I, **kw)
    # static: the O − 1 steps after the prefill's token, contexts I+1 .. I+O-1
    steps = (mode == "static") & (O > 1)
    spans = Spans.of(B, np.where(steps, I + 1, I), np.where(steps, O - 1, 1))
    step = decode_step(spec, system, batch=spans.batch, context_len=spans.context, **kw)
    # memory at the longest context the request reaches (decode prices O − 1 more);
    # activations: engines prefill in chunks of a few thousand tokens per pass
    chunk = np.maximum(1.0, np.minimum(I, PREFILL_CHUNK / B))
    mem_kw = memory_options(kw)
    mem = memory_use(spec, system, batch=B, context_len=I + O, tokens_per_seq=chunk, **mem_kw)
    memory = np.broadcast_to(mem.total, B.shape)
    fits = np.broadcast_to(np.asarray(mem.fits, dtype=bool), B.shape)
    return step, pre, None, spans, memory, fits


def _warnings(
    spec: ModelSpec, system: System, I: FloatArray, O: FloatArray, memory: FloatArray, fits: Any
) -> tuple[tuple[str, ...], ...]:
    """Each scenario's warnings: past the trained context, or not fitting in memory."""
    beyond = (I + O > spec.max_context) if spec.max_context else np.zeros(I.shape, dtype=bool)
    warnings: list[tuple[str, ...]] = [()] * I.size
    for r in np.flatnonzero(beyond | ~fits):
        w = []
        if beyond[r]:
            w.append(
                f"input_len + output_len = {int(I[r] + O[r]):,} is beyond the model's trained "
                f"maximum context ({spec.max_context:,})"
            )
        if not fits[r]:
            w.append(
                f"{NO_FIT}{memory[r] / GB:,.1f} GB per chip needed, "
                f"{system.chip.memory_bytes / GB:,.1f} GB "
                f"({system.chip.memory_bytes / GiB:,.1f} GiB) per chip available"
            )
        warnings[r] = tuple(w)
    return tuple(warnings)


def scenario_passes(
    spec: ModelSpec,
    system: System,
    B: FloatArray,
    I: FloatArray,
    O: FloatArray,
    mode: str,
    kw: PassOptions,
) -> ServingTerms:
    """The passes of scenarios of one mode (one element a scenario, each already checked)."""
    if mode == "continuous":
        step, pre, first, spans, memory, fits = _continuous(spec, system, B, I, O, kw)
    else:
        step, pre, first, spans, memory, fits = _batched(spec, system, B, I, O, mode, kw)
    warnings = _warnings(spec, system, I, O, memory, fits)
    return ServingTerms(mode, B, I, O, system, step, pre, first, spans, memory, fits, warnings)
