"""Reading config.json: aliases, attention kinds, MoE, windows, embeddings, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import llm_roofline as lr
from llm_roofline import ConfigError, spec_from_config

from .conftest import llama_like


def test_explicit_head_dim_is_used_not_derived() -> None:
    # Qwen3-32B style: 64 heads × head_dim 128 = 8192 ≠ hidden 5120; the config wins.
    spec = spec_from_config(llama_like(head_dim=256))
    assert spec.attention.head_dim == 256
    # q: 1024 · 8·256; k, v: 1024 · 2·256 each; o: 8·256 · 1024
    assert spec.attention.params(1024) == 1024 * 2048 * 2 + 2 * 1024 * 512


def test_mha_mqa_gqa_kinds_and_kv() -> None:
    mha = spec_from_config(llama_like(num_key_value_heads=8))
    mqa = spec_from_config(llama_like(num_key_value_heads=1))
    gqa = spec_from_config(llama_like())
    assert (mha.attention.kind, mqa.attention.kind, gqa.attention.kind) == ("mha", "mqa", "gqa")
    # per token per layer: 2 · K · d_h with d_h = 128
    assert mha.kv_elements_per_token == 4 * 2 * 8 * 128
    assert mqa.kv_elements_per_token == 4 * 2 * 1 * 128
    assert gqa.kv_elements_per_token == 4 * 2 * 2 * 128


def test_missing_kv_heads_means_mha() -> None:
    cfg = llama_like()
    del cfg["num_key_value_heads"]
    assert spec_from_config(cfg).attention.kind == "mha"


def test_gptj_aliases_plain_mlp_parallel_block() -> None:
    # GPT-J field names: n_embd, n_layer, n_head, n_inner null -> 4·D, plain (2-matrix) MLP
    cfg = {
        "model_type": "gptj",
        "n_embd": 256,
        "n_layer": 2,
        "n_head": 4,
        "n_inner": None,
        "vocab_size": 100,
        "n_positions": 2048,
        "tie_word_embeddings": False,
    }
    spec = spec_from_config(cfg)
    assert spec.d_model == 256 and spec.n_layers == 2 and spec.max_context == 2048
    assert spec.parallel_block
    # layer: attention 4·256² (no bias) + MLP 2·256·1024 + biases (1024 + 256) + LayerNorm 2·256
    layer = 4 * 256**2 + 2 * 256 * 1024 + 1024 + 256 + 512
    # embeddings 100·256, LM head 100·256 + bias 100, final LayerNorm 512
    assert spec.params_stored == 2 * layer + 100 * 256 * 2 + 100 + 512


def test_tied_embeddings_stored_once() -> None:
    tied = spec_from_config(llama_like(tie_word_embeddings=True))
    untied = spec_from_config(llama_like(tie_word_embeddings=False))
    assert untied.params_stored - tied.params_stored == 1000 * 1024
    # the LM head is multiplied either way
    assert tied.params_multiplied == untied.params_multiplied


def test_mla_counts_and_latent_cache() -> None:
    # DeepSeek-V3 attention dims on a 1-layer toy (D = 7168, H = 128)
    cfg = {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "num_hidden_layers": 1,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "intermediate_size": 18432,
        "vocab_size": 1000,
        "q_lora_rank": 1536,
        "kv_lora_rank": 512,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
    }
    spec = spec_from_config(cfg)
    a = spec.attention
    assert a.kind == "mla"
    # q: 7168·1536 + 1536 (norm) + 1536·128·192; kv_a: 7168·576 + 512 (norm);
    # kv_b: 512·128·(128+128); o: 128·128·7168
    expect = 7168 * 1536 + 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 + 512 * 128 * 256
    expect += 128 * 128 * 7168
    assert a.params(7168) == expect
    # cache: latent 512 + shared rope key 64 per token per layer (DeepSeek-V2 paper, §2.1)
    assert spec.kv_elements_per_token == 576


def test_moe_dense_first_layers_and_shared_expert() -> None:
    cfg = llama_like(
        model_type="deepseek_v3",
        num_hidden_layers=4,
        n_routed_experts=8,
        num_experts_per_tok=2,
        n_shared_experts=1,
        moe_intermediate_size=256,
        first_k_dense_replace=1,
    )
    spec = spec_from_config(cfg)
    moe_layers = [g for g in spec.groups if g.ffn.is_moe]
    dense_layers = [g for g in spec.groups if not g.ffn.is_moe]
    assert sum(g.count for g in moe_layers) == 3
    assert sum(g.count for g in dense_layers) == 1
    f = moe_layers[0].ffn
    # router 1024·8; shared expert 3·1024·256; each routed expert 3·1024·256
    assert f.params_stored(1024) == 1024 * 8 + 3 * 1024 * 256 + 8 * 3 * 1024 * 256
    assert f.params_multiplied(1024) == 1024 * 8 + 3 * 1024 * 256 + 2 * 3 * 1024 * 256


def test_experts_touched_epoch_ai_mixtral() -> None:
    # Epoch AI, "Inference economics of language models" (arXiv 2506.04645): Mixtral 8x22B,
    # k/E = 2/8: fraction of experts touched 0.25, 0.4375, 0.684, 0.900, 0.990 at B = 1..16.
    frac = lr.experts_touched(8, 2, [1, 2, 4, 8, 16]) / 8
    assert frac == pytest.approx([0.25, 0.4375, 0.684, 0.900, 0.990], abs=0.0006)


def test_layer_types_mix_gpt_oss_style() -> None:
    types = ["sliding_attention", "full_attention"] * 2
    spec = spec_from_config(llama_like(layer_types=types, sliding_window=128))
    windows = sorted((g.window or 0, g.count) for g in spec.groups)
    assert windows == [(0, 2), (128, 2)]
    # at context 1000: 2 full layers hold 1000 tokens, 2 sliding layers hold 128
    per_layer = 2 * 2 * 128
    assert spec.kv_elements_per_sequence(1000) == per_layer * (2 * 1000 + 2 * 128)


def test_gemma2_alternates_and_gemma3_pattern() -> None:
    g2 = spec_from_config(llama_like(model_type="gemma2", num_hidden_layers=6, sliding_window=4096))
    assert {g.window: g.count for g in g2.groups} == {4096: 3, None: 3}
    g3 = spec_from_config(
        llama_like(
            model_type="gemma3_text",
            num_hidden_layers=12,
            sliding_window=1024,
            sliding_window_pattern=6,
        )
    )
    assert {g.window: g.count for g in g3.groups} == {1024: 10, None: 2}


def test_use_sliding_window_false_is_honoured() -> None:
    # Qwen2.5 configs carry sliding_window but switch it off
    spec = spec_from_config(
        llama_like(model_type="qwen2", sliding_window=4096, use_sliding_window=False)
    )
    assert all(g.window is None for g in spec.groups)


def test_text_config_is_unwrapped() -> None:
    inner = llama_like(model_type="gemma3_text")
    spec = spec_from_config({"model_type": "gemma3", "text_config": inner, "vision_config": {}})
    assert spec.model_type == "gemma3_text" and spec.d_model == 1024


def test_falcon_layouts_follow_new_decoder_architecture() -> None:
    # Falcon 7B layout: multi_query decides K (a num_kv_heads is not read), one shared LayerNorm
    # in the parallel block; the 40B/180B layout: grouped KV heads, ln_attn and ln_mlp
    base = llama_like(model_type="falcon", num_kv_heads=2, parallel_attn=True)
    old = spec_from_config({**base, "multi_query": True})
    new = spec_from_config({**base, "new_decoder_architecture": True})
    assert (old.attention.kind, new.attention.kind) == ("mqa", "gqa")
    # LayerNorm with bias: 2·D per norm
    assert (old.norm_params_per_layer, new.norm_params_per_layer) == (2 * 1024, 4 * 1024)


def test_arch_table_entries_drive_every_part(monkeypatch: pytest.MonkeyPatch) -> None:
    # what differs between architectures is data on the table: an entry with Gemma 2's windows,
    # gpt-oss's sinks and biases and Llama 4's implicit shared expert reads them all
    from llm_roofline import hf_config
    from llm_roofline.hf_layers import WindowRule

    entry = hf_config._Arch(
        windows=WindowRule(global_every=2),
        sinks=True,
        mlp_bias_always=True,
        router_bias=True,
        implicit_shared_expert=True,
    )
    monkeypatch.setitem(hf_config._ARCH, "toy", entry)
    cfg = llama_like(
        model_type="toy",
        sliding_window=64,
        num_local_experts=4,
        num_experts_per_tok=1,
        moe_intermediate_size=512,
    )
    spec = spec_from_config(cfg)
    assert {g.window: g.count for g in spec.groups} == {64: 2, None: 2}
    assert spec.attention.sinks
    ffn = spec.groups[0].ffn
    assert ffn.bias and ffn.router_bias and ffn.d_shared == 512


# ---- bad input -------------------------------------------------------------------------


def test_not_json(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    p.write_text("{ not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        lr.get_model(str(p))


def test_truncated_json(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    p.write_text(json.dumps(llama_like())[:-20])
    with pytest.raises(ConfigError, match="not valid JSON"):
        lr.get_model(str(p))


def test_json_not_an_object(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    p.write_text("[1, 2, 3]")
    with pytest.raises(ConfigError, match="JSON object"):
        lr.get_model(str(p))


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="no such file"):
        lr.get_model("/nonexistent/config.json")


@pytest.mark.parametrize(
    ("field", "aliases_word"),
    [
        ("hidden_size", "hidden_size"),
        ("num_hidden_layers", "num_hidden_layers"),
        ("num_attention_heads", "num_attention_heads"),
        ("vocab_size", "vocab_size"),
        ("intermediate_size", "intermediate_size"),
    ],
)
def test_missing_field_is_named(field: str, aliases_word: str) -> None:
    cfg = llama_like()
    del cfg[field]
    with pytest.raises(ConfigError) as exc:
        spec_from_config(cfg)
    assert exc.value.field == field
    assert aliases_word in str(exc.value)


def test_unknown_model_type_lists_known() -> None:
    with pytest.raises(ConfigError, match=r"unknown model_type 'martian'.*llama"):
        spec_from_config(llama_like(model_type="martian"))


def test_missing_model_type() -> None:
    cfg = llama_like()
    del cfg["model_type"]
    with pytest.raises(ConfigError, match="model_type"):
        spec_from_config(cfg)


@pytest.mark.parametrize("bad", [0, -4, 3.5, "big", True, float("nan"), float("inf")])
def test_non_positive_or_non_integer_fields(bad: object) -> None:
    with pytest.raises(ConfigError, match="hidden_size"):
        spec_from_config(llama_like(hidden_size=bad))


def test_contradictory_heads() -> None:
    with pytest.raises(ConfigError, match="not a multiple"):
        spec_from_config(llama_like(num_attention_heads=8, num_key_value_heads=3))


def test_top_k_larger_than_experts() -> None:
    cfg = llama_like(model_type="mixtral", num_local_experts=4, num_experts_per_tok=8)
    with pytest.raises(ConfigError, match="exceeds"):
        spec_from_config(cfg)


def test_layer_types_length_mismatch() -> None:
    with pytest.raises(ConfigError, match="layer_types"):
        spec_from_config(llama_like(layer_types=["full_attention"], sliding_window=8))


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
