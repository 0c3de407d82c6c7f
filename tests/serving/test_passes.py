"""`serving.passes`: the ideal passes of serving scenarios and the memory each holds, worked
by hand on the small Llama-style model of tests/conftest.py (tests/engine/test_hand_checked.py
has its counts: weights 125,749,248 bytes in bf16, KV 4,096 bytes a token, activations
(3 · 1024 + 2 · 4096) · 2 = 22,528 bytes a token plus V 1,000 · 4 = 4,000 bytes of logits a
sequence) on a round chip: 1e15 FLOP/s, 1e12 B/s, 0.5 GB."""

from __future__ import annotations

import numpy as np
import pytest

from llm_roofline import spec_from_config
from llm_roofline.engine.roofline import as_system
from llm_roofline.model.spec import ModelSpec
from llm_roofline.serving.passes import NO_FIT, PREFILL_CHUNK, ServingTerms, scenario_passes
from tests.conftest import llama_like, make_chip

WEIGHTS = 125_749_248


def _passes(mode: str, *rows: tuple[float, float, float]) -> ServingTerms:
    spec: ModelSpec = spec_from_config(llama_like(), name="small")
    B, I, O = (np.array(col, dtype=np.float64) for col in zip(*rows, strict=True))
    return scenario_passes(spec, as_system(make_chip(mem=0.5e9), 1), B, I, O, mode, {})


def test_decode_mode_is_one_step_at_the_prompt_and_its_prefill() -> None:
    t = _passes("decode", (10, 1000, 5))
    # the decode step of 10 at 1,000 (test_hand_checked): weights (61,850,624 + 10 rows ·
    # 1,024) · 2 + KV 10 · 1,000 · 4,096, memory-bound: 1.64681728e-4 s
    assert t.spans.mean(t.step.t_step) == pytest.approx([1.64681728e-4])
    # the prefill of 10 prompts of 1,000: 2 · (60,817,408 · 10,000 + LM head 1,024,000 · 10)
    assert t.prefill is not None and t.first is None
    assert t.prefill.t_matmul == pytest.approx([2 * (60_817_408 * 10_000 + 1_024_000 * 10) / 1e15])


def test_static_batches_step_through_each_context_after_the_prompt() -> None:
    t = _passes("static", (2, 100, 4), (2, 100, 1))
    s = t.spans
    # O = 4: the prefill gives the first token, then contexts 101, 102, 103
    assert s.context[s.start[0] : s.start[0] + s.size[0]].tolist() == [101, 102, 103]
    # O = 1: one point, at the prompt
    assert s.size[1] == 1 and s.context[s.start[1]] == 100


def test_memory_at_the_longest_context_with_prefill_in_chunks() -> None:
    t = _passes("decode", (2, 100, 28), (64, 1000, 24))
    # B 2, I 100: a chunk is min(100, 8,192 / 2) = 100 tokens a sequence
    #   KV 2 · 128 · 4,096 = 1,048,576; activations 2 · 100 · 22,528 + 2 · 4,000 = 4,513,600
    # B 64, I 1,000: a chunk is 8,192 / 64 = 128 tokens a sequence (vLLM's 8,192 a pass)
    #   KV 64 · 1,024 · 4,096 = 268,435,456; activations 64 · 128 · 22,528 + 64 · 4,000
    #   = 184,805,376
    assert PREFILL_CHUNK == 8192
    assert t.memory_per_chip_bytes.tolist() == [
        WEIGHTS + 1_048_576 + 4_513_600,
        WEIGHTS + 268_435_456 + 184_805_376,  # 578,990,080 bytes: more than the 0.5 GB chip
    ]
    assert t.fits.tolist() == [True, False]
    # 578,990,080 bytes = 0.6 GB; the chip's 5e8 bytes = 0.5 GB = 0.466 GiB
    assert t.warnings == (
        (),
        (f"{NO_FIT}0.6 GB per chip needed, 0.5 GB (0.5 GiB) per chip available",),
    )


def test_continuous_batching_holds_the_mean_context_and_shares_points() -> None:
    t = _passes("continuous", (4, 100, 8), (4, 100, 8), (8, 100, 8))
    assert t.first is not None and t.prefill is None
    # the two equal scenarios are one point; the third its own
    assert t.spans.start[0] == t.spans.start[1] != t.spans.start[2]
    # in flight: sequences spread over contexts 100 .. 107, mean 103.5 tokens of KV each,
    # one token a sequence in the step: 4 · 103.5 · 4,096 + 4 · (22,528 + 4,000)
    assert t.memory_per_chip_bytes.tolist() == pytest.approx(
        [WEIGHTS + 1_695_744 + 106_112] * 2 + [WEIGHTS + 3_391_488 + 212_224]
    )


def test_past_the_trained_context_is_a_warning() -> None:
    # llama_like's max_position_embeddings is 8,192; 8,000 + 500 = 8,500 is past it
    t = _passes("decode", (1, 8000, 500), (1, 8000, 192))
    assert t.warnings[0] == (
        "input_len + output_len = 8,500 is beyond the model's trained maximum context (8,192)",
    )
    assert t.warnings[1] == ()  # 8,192 exactly: within
    assert np.all(t.fits)
