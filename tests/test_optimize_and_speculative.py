"""The search over chips × split × batch, speculative decoding, and the queueing bound."""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline.deploy.deployment import deployment
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.planning.optimize import search
from llm_roofline.serving.modes import serve, speculative_decode, tokens_per_verification


def test_search_finds_the_cheapest_config_meeting_the_targets() -> None:
    dep = deployment("llama-3.1-70b", "h100-sxm", weight_dtype="fp8", engine="ideal")
    r = search(dep, 16, tpot_s=0.02, ttft_s=1.0)
    assert r.best is not None
    pts = r.points
    ok = (pts["tpot_s"] <= 0.02) & (pts["ttft_s"] <= 1.0)
    assert pts["usd_per_million_tokens"][r.best] == pytest.approx(
        float(np.min(pts["usd_per_million_tokens"][ok]))
    )
    best = r.row(r.best)
    # the best point is a real, valid split, and its numbers are what the (ideal) engine gives
    par = Parallelism.of(best["chips"], best["tp"], best["pp"], best["ep"])
    step = lr.decode_step(
        "llama-3.1-70b",
        "h100-sxm",
        best["chips"],
        batch=best["batch"],
        context_len=4096,
        weight_dtype="fp8",
        parallel=par,
    )
    assert float(step.t_step) == pytest.approx(best["tpot_s"])


def test_frontier_is_monotone() -> None:
    r = search(deployment("qwen3-30b-a3b", "h100-sxm"), 8)
    f = r.frontier
    tpot = r.points["tpot_s"][f]
    usd = r.points["usd_per_million_tokens"][f]
    assert np.all(np.diff(tpot) >= 0) and np.all(np.diff(usd) < 0)
    # nothing off the frontier is both faster and cheaper than a frontier point
    for k in f:
        faster = r.points["tpot_s"] < r.points["tpot_s"][k]
        cheaper = r.points["usd_per_million_tokens"] < r.points["usd_per_million_tokens"][k]
        assert not np.any(faster & cheaper)


def test_search_prefers_expert_parallel_attention_dp_for_deepseek() -> None:
    # The lecture: experts spread over the scale-up domain (256 experts on 64 GPUs), attention
    # data-parallel so that each GPU keeps its own sequences' latent KV cache
    r = search(
        deployment("deepseek-v3", "gb200", weight_dtype="fp8", engine="ideal"), 72, tpot_s=0.02
    )
    assert r.best is not None
    best = r.row(r.best)
    assert best["ep"] >= 32 and best["tp"] <= 2


def test_search_bad_input() -> None:
    with pytest.raises(lr.InputError, match="fits on no split"):
        search(deployment("llama-3.1-405b", "rtx-4090"), 2)
    with pytest.raises(lr.InputError, match="max_chips"):
        search(deployment("llama-3.1-8b", "h100-sxm"), 0)
    with pytest.raises(lr.InputError, match="no price"):
        search(deployment("llama-3.1-8b", "tpu-v7"), 4)


# ---- speculative decoding ------------------------------------------------------------------


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


# ---- the train schedule -------------------------------------------------------------------


def test_queue_delay_bound_is_one_step_in_continuous_batching() -> None:
    r = serve(
        "llama-3.1-8b", "h100-sxm", batch=64, input_len=1024, output_len=256, mode="continuous"
    )
    assert r.queue_delay_bound_s == pytest.approx(r.tpot_s)
    s = serve("llama-3.1-8b", "h100-sxm", batch=64, input_len=1024, output_len=256, mode="static")
    assert s.queue_delay_bound_s == pytest.approx(s.request_latency_s)
