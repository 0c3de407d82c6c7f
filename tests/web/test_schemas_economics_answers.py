"""web/schemas_economics_answers.py: the answer models of `/api/pricing`, `/api/cost-vs-context`
and `/api/cache-tiers` accept what the routes serve and refuse a value of the wrong type,
naming its place."""

from __future__ import annotations

from llm_roofline.web.schemas_economics_answers import (
    CacheTiersAnswer,
    CostVsContextAnswer,
    PricingAnswer,
)

from .answer_models import post_ok, refused_at

D70 = {"model": "llama-3.1-70b", "hardware": "h100-sxm", "chips": 8, "engine": "ideal"}


def test_a_pricing_answer() -> None:
    served = post_ok("/api/pricing", {**D70, "input_price": 3.0, "output_price": 15.0})
    answer = PricingAnswer.model_validate(served)
    assert answer.output_to_input == 15.0 / 3.0  # $15 against $3 per million
    assert answer.price_step is None and answer.cache_hit is None  # neither asked for
    bad = {**served, "cost_floor": {**served["cost_floor"], "engine": 7}}
    assert refused_at(PricingAnswer, bad) == ("cost_floor", "engine")


def test_a_cost_vs_context_answer() -> None:
    body = {**D70, "chips": 2, "contexts": [1024, 1_000_000]}
    served = post_ok("/api/cost-vs-context", body)
    answer = CostVsContextAnswer.model_validate(served)
    assert answer.context == [1024.0, 1_000_000.0]
    # Llama 3.1 70B's trained context: max_position_embeddings 131,072 (its config.json)
    assert answer.max_context == 131_072
    bad = {**served, "context": ["long"]}
    assert refused_at(CostVsContextAnswer, bad) == ("context", 0)


def test_a_cache_tiers_answer() -> None:
    body = {**D70, "chips": 2, "context_len": 1_000_000, "hold_s": [0, 10]}
    served = post_ok("/api/cache-tiers", body)
    answer = CacheTiersAnswer.model_validate(served)
    # Llama 3.1 70B (config.json: 80 layers, 8 KV heads of 128) at bf16: 80 × 2 × 8 × 128 × 2
    # = 327,680 bytes per token; a million tokens: 3.2768e11 bytes
    assert answer.kv_bytes == 80 * 2 * 8 * 128 * 2 * 1_000_000
    assert answer.hold_s == [0.0, 10.0]
    assert all(len(t.usd) == 2 for t in answer.tiers.values())  # one cost per hold time
    assert refused_at(CacheTiersAnswer, {**served, "fits": "perhaps"}) == ("fits",)
