"""The search over chips × split × batch (`optimize`)."""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline.deploy.deployment import deployment
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.planning.optimize import search


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
