"""The serving modes are built from the engine's passes exactly as docs/cli.md says."""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline.engine.roofline import mixed_step
from llm_roofline.serving.modes import serve

from ..conftest import make_chip


def test_static_is_prefill_then_growing_decode(small_model: lr.ModelSpec) -> None:
    chip = make_chip()
    B, I, O = 8, 100, 5
    r = serve(small_model, chip, batch=B, input_len=I, output_len=O, mode="static")
    pre = lr.prefill(small_model, chip, batch=B, prompt_len=I)
    steps = [
        float(lr.decode_step(small_model, chip, batch=B, context_len=I + j).t_step)
        for j in range(1, O)
    ]  # contexts 101 .. 104: O − 1 = 4 steps after the prefill
    assert r.ttft_s == pytest.approx(float(pre.t_step))
    assert r.request_latency_s == pytest.approx(float(pre.t_step) + sum(steps))
    assert r.tpot_s == pytest.approx(sum(steps) / 4)
    assert r.output_tokens_per_s == pytest.approx(B * O / r.request_latency_s)
    # $0.001 per second (make_chip), B·O tokens
    assert r.usd_per_million_output_tokens == pytest.approx(
        0.001 * r.request_latency_s / (B * O) * 1e6
    )


def test_decode_mode_prices_every_token_at_one_step(small_model: lr.ModelSpec) -> None:
    chip = make_chip()
    r = serve(small_model, chip, batch=4, input_len=300, output_len=10, mode="decode")
    step = float(lr.decode_step(small_model, chip, batch=4, context_len=300).t_step)
    assert r.tpot_s == pytest.approx(step)
    assert r.request_latency_s == pytest.approx(r.ttft_s + 9 * step)
    assert r.output_tokens_per_s == pytest.approx(4 / step)


def test_continuous_step_by_hand(small_model: lr.ModelSpec) -> None:
    # 1e15 FLOP/s, 1e12 B/s. B = 10 in flight, I = 100, O = 10: one new request per step
    # (B/O = 1) prefills 100 tokens. Tokens in the pass: 10 + 100 = 110.
    chip = make_chip()
    r = serve(small_model, chip, batch=10, input_len=100, output_len=10, mode="continuous")
    # multiplied per token 61,841,408 (test_hand_checked), of which the LM head 1,024,000 runs
    # for the 10 decode tokens and the prompt's last token only
    t_matmul = 2 * (60_817_408 * 110 + 1_024_000 * 11) / 1e15
    # decode attention: 10 seqs × mean context (100..109 → 104.5) × 4 layers × 4,096 FLOP
    # prefill attention: 1 prompt × Σ_{j=1..100} j = 5,050 pairs × 4 layers × 4,096 FLOP
    t_attn = (10 * 104.5 * 4 * 4096 + 5050 * 4 * 4096) / 1e15
    # weights: stored 62,874,624 − embedding 1,024,000 + 110 gathered rows × 1,024, in bf16
    t_weights = (62_874_624 - 1_024_000 + 110 * 1024) * 2 / 1e12
    # KV: 10 × 104.5 tokens read + 100 tokens written, 2,048 elements each, bf16
    t_kv = (10 * 104.5 + 100) * 2048 * 2 / 1e12
    t = max(t_matmul + t_attn, t_weights + t_kv)
    assert r.tpot_s == pytest.approx(t)
    assert r.ttft_s == pytest.approx(t)  # O / B = 1 step to prefill a prompt
    assert r.request_latency_s == pytest.approx(t + 9 * t)
    assert r.output_tokens_per_s == pytest.approx(10 / t)


def test_continuous_ttft_is_one_step_carrying_the_whole_prompt(
    small_model: lr.ModelSpec,
) -> None:
    chip = make_chip()
    r = serve(small_model, chip, batch=2, input_len=1000, output_len=50, mode="continuous")
    first = mixed_step(
        small_model,
        chip,
        decode_batch=2,
        decode_contexts=1000 + np.arange(50),
        prefill_seqs=1,
        prefill_len=1000,
    )
    assert r.ttft_s == pytest.approx(float(first.t_step))
    # the average step carries 2 · 1000 / 50 = 40 prompt tokens, the first one all 1000
    assert r.ttft_s > r.tpot_s


def test_bad_mode_and_sizes() -> None:
    with pytest.raises(lr.InputError, match="mode"):
        serve("llama-3.1-8b", "h100-sxm", batch=1, input_len=1, output_len=1, mode="burst")
    # output_len = 0 is a decode-mode scenario (a prompt scored); static and continuous
    # generate at least one token (test_physics_fixes covers decode with 0)
    for mode in ("static", "continuous"):
        with pytest.raises(lr.InputError, match="output_len"):
            serve("llama-3.1-8b", "h100-sxm", batch=1, input_len=1, output_len=0, mode=mode)
    with pytest.raises(lr.InputError, match="output_len"):
        serve("llama-3.1-8b", "h100-sxm", batch=1, input_len=1, output_len=-1)
    with pytest.raises(lr.InputError, match="batch"):
        serve(
            "llama-3.1-8b",
            "h100-sxm",
            batch=np.float64(2.5),
            input_len=1,  # type: ignore[arg-type]
            output_len=1,
        )


def test_does_not_fit_is_a_warning_with_numbers() -> None:
    r = serve("llama-3.1-405b", "h100-sxm", 1, batch=1, input_len=100, output_len=10)
    assert not r.fits and any("does not fit" in w and "GB per chip" in w for w in r.warnings)
    assert r.tpot_s > 0  # times are computed anyway


def test_long_generations_are_sampled_accurately() -> None:
    # 100,000 output tokens: the mean step over 4,096 sampled contexts against all 99,999
    O = 100_000
    r = serve("gpt-oss-120b", "h100-sxm", 1, batch=32, input_len=1000, output_len=O, mode="static")
    every = lr.decode_step(
        "gpt-oss-120b", "h100-sxm", batch=32, context_len=1001 + np.arange(O - 1)
    )
    assert r.request_latency_s - r.ttft_s == pytest.approx(float(np.sum(every.t_step)), rel=1e-4)
