"""Malformed configs, chunked attention, MLA prefill and library inputs: no traceback, no
silent wrong answer."""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline import ConfigError, InputError, System, spec_from_config
from llm_roofline.model import causal_pairs

from .conftest import llama_like, make_chip


@pytest.mark.parametrize(
    ("over", "field"),
    [
        (
            {"model_type": "gemma3_text", "sliding_window": 8, "sliding_window_pattern": 0},
            "sliding_window_pattern",
        ),
        (
            {"model_type": "llama4_text", "attention_chunk_size": 8, "no_rope_layer_interval": 0},
            "no_rope_layer_interval",
        ),
        (
            {
                "model_type": "qwen3_moe",
                "num_experts": 8,
                "num_experts_per_tok": 2,
                "moe_intermediate_size": 64,
                "mlp_only_layers": 5,
            },
            "mlp_only_layers",
        ),
        (
            {
                "model_type": "deepseek_v3",
                "n_routed_experts": 8,
                "num_experts_per_tok": 2,
                "moe_intermediate_size": 64,
                "n_shared_experts": "two",
            },
            "n_shared_experts",
        ),
        (
            {
                "model_type": "deepseek_v3",
                "n_routed_experts": 8,
                "num_experts_per_tok": 2,
                "moe_intermediate_size": 64,
                "n_shared_experts": -1,
            },
            "n_shared_experts",
        ),
        (
            {
                "model_type": "llama4_text",
                "num_local_experts": 4,
                "num_experts_per_tok": 1,
                "moe_layers": ["a"],
            },
            "moe_layers",
        ),
        ({"tie_word_embeddings": "false"}, "tie_word_embeddings"),
        ({"attention_bias": "false"}, "attention_bias"),
        ({"layer_types": "full_attention"}, "layer_types"),
        ({"num_key_value_heads": 2.5}, "num_key_value_heads"),
    ],
)
def test_malformed_fields_are_config_errors(over: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as exc:
        spec_from_config(llama_like(**over))
    assert exc.value.field == field


def test_zero_experts_means_dense() -> None:
    spec = spec_from_config(llama_like(num_experts=0))
    assert not spec.is_moe


def test_chunked_attention_reads_only_the_current_chunk() -> None:
    # Llama 4 style: chunks of 8 tokens on RoPE layers, every 4th layer (NoPE) global.
    spec = spec_from_config(llama_like(model_type="llama4_text", attention_chunk_size=8))
    chunked = [g for g in spec.groups if g.chunked]
    assert sum(g.count for g in chunked) == 3 and all(g.window == 8 for g in chunked)
    per_layer = 2 * 2 * 128  # K 2 heads of 128, keys and values
    # at context 21 a chunked layer holds the 21 mod 8 = 5 tokens of its chunk; global holds 21
    assert float(spec.kv_elements_per_sequence(21)) == per_layer * (3 * 5 + 1 * 21)
    # a new chunk starts empty: context 24 -> 0 tokens in chunked layers
    assert float(spec.kv_elements_per_sequence(24)) == per_layer * (3 * 0 + 1 * 24)


def test_causal_pairs_chunked_by_brute_force() -> None:
    for w in (1, 3, 8):
        for s0 in (0, 2, 7, 8, 13):
            for t in (1, 5, 9, 20):
                brute = sum(((j - 1) % w) + 1 for j in range(s0 + 1, s0 + t + 1))
                assert causal_pairs(t, s0, w, chunked=True) == brute


def test_causal_pairs_sliding_by_brute_force() -> None:
    for w in (1, 3, 8):
        for s0 in (0, 2, 7, 13):
            for t in (1, 5, 20):
                brute = sum(min(j, w) for j in range(s0 + 1, s0 + t + 1))
                assert causal_pairs(t, s0, w) == brute


def test_mla_prefill_of_one_token_costs_what_a_decode_step_costs() -> None:
    # one new token after 4096 cached: the cheapest form is the decode (absorbed) one
    p = lr.prefill("deepseek-v3", "h100-sxm", batch=1, prompt_len=1, cached_len=4096)
    d = lr.decode_step("deepseek-v3", "h100-sxm", batch=1, context_len=4096)
    assert float(p.t_attn) == pytest.approx(float(d.t_attn), rel=0.001)


def test_shapes_that_do_not_broadcast() -> None:
    with pytest.raises(InputError, match="do not broadcast"):
        lr.decode_step("llama-3.1-8b", "h100-sxm", batch=[1, 2, 3], context_len=[10, 20])


@pytest.mark.parametrize("bad", ["x", [], float("nan"), -1])
def test_cached_len_validated(bad: object) -> None:
    with pytest.raises(InputError, match="cached_len"):
        lr.prefill("llama-3.1-8b", "h100-sxm", prompt_len=10, cached_len=bad)


@pytest.mark.parametrize("bad", [-5, float("nan"), 0])
def test_tokens_per_seq_validated(bad: float) -> None:
    with pytest.raises(InputError, match="tokens_per_seq"):
        lr.memory_use("llama-3.1-8b", "h100-sxm", tokens_per_seq=bad)


def test_reserve_fraction_must_be_a_number() -> None:
    with pytest.raises(InputError, match="reserve_fraction"):
        lr.max_batch("llama-3.1-8b", "h100-sxm", reserve_fraction="0.1")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [float("inf"), True, 0, -2.0, float("nan")])
def test_with_price_validated(bad: float) -> None:
    with pytest.raises(InputError, match="price"):
        lr.get_hardware("h100-sxm").with_price(bad)


def test_numpy_integer_chip_counts_are_fine() -> None:
    assert System(lr.get_hardware("h100-sxm"), np.int64(8)).n_chips == 8  # type: ignore[arg-type]


def test_degenerate_formula_inputs() -> None:
    with pytest.raises(InputError):
        lr.experts_touched(0, 1, 4)
    with pytest.raises(InputError, match="n_active"):
        lr.balance_batch_formula(300, 2, 8, 0)
    with pytest.raises(InputError, match="kv_bytes_per_token"):
        lr.balanced_context_formula(1e15, 1e12, 1e9, 0)


def test_overflowing_inputs_are_refused_not_infinite() -> None:
    with pytest.raises(InputError, match="at most"):
        lr.decode_step("llama-3.1-8b", make_chip(), batch=1e300, context_len=1e300)
