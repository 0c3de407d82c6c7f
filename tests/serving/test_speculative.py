"""Speculative decoding and multi-token prediction: tokens per verification by hand, the
accounting of a verification pass and its drafts, and the queueing bound of a serving mode."""

from __future__ import annotations

import pytest

import llm_roofline as lr
from llm_roofline import spec_from_config
from llm_roofline.serving.modes import serve
from llm_roofline.serving.speculative import speculative_decode, tokens_per_verification
from tests.conftest import llama_like, make_chip


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


def test_multi_token_prediction_by_hand() -> None:
    """One sequence of the small model of tests/conftest.py at context 1,000 on a 1e15 FLOP/s,
    1e12 B/s chip: every pass is memory-bound (its FLOPs take under 1e-6 s), so each time is
    bytes / 1e12. Weights read: stored less the untied input embedding plus a gathered row of
    1,024 per token; KV 4,096 bytes a token (2 · 2 heads · 128 · 4 layers · 2 bytes)."""
    spec = spec_from_config(llama_like(), name="small")
    r = speculative_decode(
        spec, make_chip(), 1, batch=1, context_len=1000, gamma=2, acceptance=0.5, draft="mtp"
    )
    # (1 − 0.5³) / (1 − 0.5) = 1.75 tokens a verification
    assert r.tokens_per_verification == 1.75
    # plain decode: (61,850,624 + 1,024) · 2 + 1,000 · 4,096 = 127,799,296 bytes
    assert r.tpot_plain_s == pytest.approx(127_799_296 / 1e12)
    # verification, 3 tokens after 1,000 cached: (61,850,624 + 3 · 1,024) · 2 weights
    # + 1,003 tokens of KV (1,000 read, 3 written) · 4,096 = 127,815,680 bytes
    assert r.t_verify_s == pytest.approx(127_815_680 / 1e12)
    # the MTP module: one layer (15,206,400), the LM head (1,024,000), the final norm (1,024)
    # and one gathered embedding row (1,024): 16,232,448 · 2 = 32,464,896 bytes a step, and
    # one layer's KV (1,024 bytes a token) at contexts 1,000 and 1,001
    t_draft = (2 * 32_464_896 + 1024 * (1000 + 1001)) / 1e12
    assert r.t_draft_s == pytest.approx(t_draft)
    assert r.tpot_s == pytest.approx((127_815_680 / 1e12 + t_draft) / 1.75)
    assert r.speedup == pytest.approx(r.tpot_plain_s / r.tpot_s)


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
