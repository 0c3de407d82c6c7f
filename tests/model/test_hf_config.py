"""Reading config.json: aliases, attention kinds, MoE, windows, embeddings, and bad input."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import llm_roofline as lr
from llm_roofline import ConfigError, spec_from_config
from llm_roofline._core.errors import UnknownModelTypeWarning
from llm_roofline.model.hf.config import KNOWN_MODEL_TYPES, load_config

from ..conftest import llama_like, run_cli


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
    from llm_roofline.model.hf.architectures import ARCH, Arch
    from llm_roofline.model.hf.layers import WindowRule

    entry = Arch(
        windows=WindowRule(global_every=2),
        sinks=True,
        mlp_bias_always=True,
        router_bias=True,
        implicit_shared_expert=True,
    )
    monkeypatch.setitem(ARCH, "toy", entry)
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


def _read_recording(cfg: dict[str, object]) -> tuple[lr.ModelSpec, list[str]]:
    """The spec a config reads as, and the library warnings reading it gave (each one)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = spec_from_config(cfg)
    return spec, [str(w.message) for w in caught if issubclass(w.category, UnknownModelTypeWarning)]


def test_unknown_model_type_with_standard_fields_is_read_with_one_warning() -> None:
    # The same fields under a type the table does not know read as the Llama layout: the same
    # parameters as model_type "llama" (4 layers x (q, o 1024 x 1024; k, v 1024 x 256; MLP
    # 3 x 1024 x 4096; two norms 1024) + embedding and head 2 x 1000 x 1024 + final norm 1024)
    known = spec_from_config(llama_like())
    spec, notes = _read_recording(llama_like(model_type="martian"))
    by_hand = 4 * (2 * 1024 * 1024 + 2 * 1024 * 256 + 3 * 1024 * 4096 + 2 * 1024)
    by_hand += 2 * 1000 * 1024 + 1024
    assert spec.params_stored == known.params_stored == by_hand
    assert spec.model_type == "martian"
    assert len(notes) == 1
    note = notes[0]
    assert f"model_type 'martian' is not one of the {len(KNOWN_MODEL_TYPES)} known" in note
    # it names the fields it relied on, and only fields the config has
    for field in ("hidden_size", "num_hidden_layers", "num_attention_heads",
                  "num_key_value_heads", "intermediate_size", "vocab_size"):  # fmt: skip
        assert field in note, field
    assert "head_dim" not in note and "sliding_window" not in note
    assert "\n" not in note


def test_known_model_type_gives_no_warning() -> None:
    _, notes = _read_recording(llama_like())
    assert notes == []


def test_misspelt_model_type_names_the_closest_known() -> None:
    _, notes = _read_recording(llama_like(model_type="llamma"))
    assert len(notes) == 1 and "closest: llama" in notes[0]


@pytest.mark.parametrize("field", ["num_hidden_layers", "hidden_size", "intermediate_size"])
def test_unknown_model_type_lacking_a_needed_field_is_refused(field: str) -> None:
    cfg = llama_like(model_type="martian")
    del cfg[field]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ConfigError) as exc:
            spec_from_config(cfg)
    assert exc.value.field == field and f"missing field {field!r}" in str(exc.value)
    assert not [w for w in caught if issubclass(w.category, UnknownModelTypeWarning)]


OLMO2 = Path(__file__).parents[1] / "data" / "configs" / "olmo2-7b.json"


def test_olmo2_config_reads_with_a_warning_and_the_published_count() -> None:
    # allenai/OLMo-2-1124-7B's config.json (source in tests/data/configs/README.md); model_type
    # "olmo2" is not in the table. By hand from its fields (MHA: 32 KV heads of 128):
    # per layer attention 4 x 4096 x 4096 = 67,108,864; MLP 3 x 4096 x 11008 = 135,266,304;
    # two RMSNorm weights 8,192 -> 202,383,360; x 32 layers = 6,476,267,520; untied embedding
    # and LM head 2 x 100,352 x 4096 = 822,083,584; final norm 4,096: 7,298,355,200.
    spec, notes = _read_recording(load_config(OLMO2))
    assert spec.params_stored == 7_298_355_200
    assert len(notes) == 1 and "model_type 'olmo2'" in notes[0]
    # Published: the checkpoint's six float32 shards (torch_dtype "float32") are 4.95 + 4.99 +
    # 4.92 + 4.86 + 4.86 + 4.61 = 29.19 GB (https://huggingface.co/allenai/OLMo-2-1124-7B/tree/
    # 7df9a82518afdecae4e8c026b27adccc8c1f0032), 29.19e9 / 4 B = 7.2975e9 parameters; Hugging
    # Face shows it as "7.3B params". Each shard size is rounded to 0.01 GB, so the sum is
    # known to +-0.03 GB (+-0.1%); the reading leaves out OLMo 2's q/k RMSNorm weights (2 x
    # 4096 x 32 = 262,144, 0.004%). Tolerance 0.2%: twice the rounding.
    assert spec.params_stored == pytest.approx(29.19e9 / 4, rel=2e-3)
    assert round(spec.params_stored / 1e9, 1) == 7.3
    # 32 layers x 2 x 32 KV heads x 128 = 262,144 KV elements per token (MHA)
    assert spec.kv_elements_per_token == 262_144 and spec.max_context == 4096


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


def test_cli_prints_the_warning_as_one_line(tmp_path: Path) -> None:
    run = run_cli("report", "--model", str(OLMO2), "--hardware", "h100-sxm", "--json")
    assert run.code == 0, run.err
    assert len(run.err_lines) == 1, run.err
    assert run.err_lines[0].startswith("llm-roofline: warning: model_type 'olmo2' is not one")
    assert run.json()["model"] == "olmo2-7b"
    # lacking a field the roofline needs: refused, one line naming it, no warning
    cfg = json.loads(OLMO2.read_text(encoding="utf-8"))
    del cfg["num_hidden_layers"]
    bad = tmp_path / "no-layers.json"
    bad.write_text(json.dumps(cfg), encoding="utf-8")
    run = run_cli("report", "--model", str(bad), "--hardware", "h100-sxm")
    assert run.code == 2 and run.out == ""
    assert run.err_lines == [
        f"llm-roofline: error: {bad}: missing field 'num_hidden_layers' (number of layers; "
        "also accepted: n_layer, num_layers, n_layers)"
    ]


def test_catalog_md_quotes_the_current_warning() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "catalog.md").read_text("utf-8")
    _, notes = _read_recording(load_config(OLMO2))
    assert f"\nllm-roofline: warning: {notes[0]}\n" in doc
    assert f"The table knows {len(KNOWN_MODEL_TYPES)} `model_type`s" in doc
