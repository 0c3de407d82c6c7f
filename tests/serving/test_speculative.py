"""Speculative decoding and multi-token prediction: tokens per verification by hand, the
accounting of a verification pass and its drafts, and the queueing bound of a serving mode."""

from __future__ import annotations

import pytest

import llm_roofline as lr
from llm_roofline.serving.modes import serve, speculative_decode, tokens_per_verification


def test_tokens_per_verification_by_hand() -> None:
    # (1 − α^(γ+1)) / (1 − α): γ = 3, α = 0.8 -> (1 − 0.4096) / 0.2 = 2.952 (Epoch AI 2025)
    assert tokens_per_verification(3, 0.8) == pytest.approx(2.952)
    assert tokens_per_verification(1, 0.5) == pytest.approx(1.5)
    assert tokens_per_verification(4, 1.0) == 5.0
    assert tokens_per_verification(4, 0.0) == 1.0
    with pytest.raises(lr.InputError, match="acceptance"):
        tokens_per_verification(3, 1.2)
    with pytest.raises(lr.InputError, match="gamma"):
        tokens_per_verification(0, 0.5)


def test_speculative_decode_accounting() -> None:
    kw = {"batch": 8, "context_len": 4096, "gamma": 3, "acceptance": 0.8}
    free = speculative_decode("llama-3.1-70b", "h100-sxm", 8, draft=None, **kw)
    # memory-bound at batch 8: verifying 4 tokens per sequence costs about one decode step,
    # so with a free draft the time per token falls by about the tokens per verification
    assert free.speedup == pytest.approx(2.952, rel=0.02)
    assert free.tpot_s == pytest.approx(free.t_verify_s / 2.952)
    mtp = speculative_decode("llama-3.1-70b", "h100-sxm", 8, draft="mtp", **kw)
    small = speculative_decode("llama-3.1-70b", "h100-sxm", 8, draft="llama-3.1-8b", **kw)
    assert free.tpot_s < mtp.tpot_s < small.tpot_s < small.tpot_plain_s
    # the verification pass scores every drafted position: its LM head runs 4 times per sequence
    v = lr.prefill(
        "llama-3.1-70b", "h100-sxm", 8, batch=8, prompt_len=4, cached_len=4096, all_logits=True
    )
    assert free.t_verify_s == pytest.approx(float(v.t_step))


def test_speculation_at_large_batch_gains_little() -> None:
    # compute-bound: each verification multiplies gamma + 1 tokens per sequence
    r = speculative_decode(
        "llama-3.1-8b",
        "h100-sxm",
        1,
        batch=1024,
        context_len=512,
        gamma=4,
        acceptance=0.7,
        draft=None,
    )
    assert r.speedup < 1.5


def test_queue_delay_bound_is_one_step_in_continuous_batching() -> None:
    r = serve(
        "llama-3.1-8b", "h100-sxm", batch=64, input_len=1024, output_len=256, mode="continuous"
    )
    assert r.queue_delay_bound_s == pytest.approx(r.tpot_s)
    s = serve("llama-3.1-8b", "h100-sxm", batch=64, input_len=1024, output_len=256, mode="static")
    assert s.queue_delay_bound_s == pytest.approx(s.request_latency_s)
