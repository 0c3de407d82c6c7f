"""The model catalog: every id of docs/catalog.md, each from its config.json with provenance, and
total parameters within 1% of the published count (one test per model, source beside it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import llm_roofline as lr
from llm_roofline.model.checkpoints import model_entry

# docs/catalog.md, "Ids other programs rely on": every model id the catalog must hold.
REQUIRED = """llama-2-7b llama-2-13b llama-2-70b llama-3-8b llama-3-70b llama-3.1-8b llama-3.1-70b
llama-3.1-405b llama-3.3-70b llama-4-scout llama-4-maverick mistral-7b mixtral-8x7b mixtral-8x22b
qwen2.5-7b qwen2.5-14b qwen2.5-32b qwen2.5-72b qwen3-8b qwen3-32b qwen3-30b-a3b qwen3-235b-a22b
deepseek-v3 deepseek-r1 kimi-k2 gpt-oss-20b gpt-oss-120b gemma-3-27b gpt-j-6b falcon-180b
palm-8b palm-62b palm-540b""".split()

# (id, published total parameters, where it is published). Rounded names ("70B") are used only
# where they are within 1% of the released weights; otherwise the exact count is cited.
PUBLISHED = [
    (
        "llama-2-7b",
        6_738_415_616,
        "PEFT count of meta-llama/Llama-2-7b, search-index file 52368470944",
    ),
    ("llama-2-13b", 13e9, "Llama 2 paper, arXiv 2307.09288, Table 1"),
    ("llama-2-70b", 68_976_648_192, "PEFT count of Llama-2-70B, search-index file 43463250292"),
    ("llama-3-8b", 8e9, "github.com/meta-llama/llama3 MODEL_CARD.md"),
    ("llama-3-70b", 70e9, "github.com/meta-llama/llama3 MODEL_CARD.md"),
    ("llama-3.1-8b", 8e9, "Llama 3 Herd of Models, arXiv 2407.21783, Table 3"),
    ("llama-3.1-70b", 70e9, "Llama 3 Herd of Models, arXiv 2407.21783, Table 3"),
    ("llama-3.1-405b", 405e9, "Llama 3 Herd of Models, arXiv 2407.21783, abstract"),
    ("llama-3.3-70b", 70e9, "github.com/meta-llama/llama-models llama3_3/MODEL_CARD.md"),
    ("mistral-7b", 7.3e9, "mistral.ai/news/announcing-mistral-7b ('a 7.3B parameter model')"),
    ("mixtral-8x7b", 46.7e9, "mistral.ai/news/mixtral-of-experts (46.7B total)"),
    ("mixtral-8x22b", 141e9, "mistral.ai/news/mixtral-8x22b (141B total, 39B active)"),
    ("llama-4-scout", 109e9, "Meta Llama 4 model card: 109B total (vision encoder included)"),
    ("llama-4-maverick", 400e9, "Meta Llama 4 model card: 400B total (vision encoder included)"),
    ("gemma-3-27b", 27.433e9, "Gemma 3 report, arXiv 2503.19786, Table 1: 417M + 1,416M + 25,600M"),
    ("falcon-180b", 180e9, "huggingface.co/tiiuae/falcon-180B model card; arXiv 2311.16867"),
    ("qwen2.5-7b", 7.61e9, "huggingface.co/Qwen/Qwen2.5-7B model card"),
    ("qwen2.5-14b", 14.7e9, "huggingface.co/Qwen/Qwen2.5-14B model card"),
    ("qwen2.5-32b", 32.5e9, "huggingface.co/Qwen/Qwen2.5-32B model card"),
    ("qwen2.5-72b", 72.7e9, "huggingface.co/Qwen/Qwen2.5-72B model card"),
    ("qwen3-8b", 8.2e9, "huggingface.co/Qwen/Qwen3-8B model card"),
    ("qwen3-32b", 32.8e9, "huggingface.co/Qwen/Qwen3-32B model card"),
    ("qwen3-30b-a3b", 30.5e9, "huggingface.co/Qwen/Qwen3-30B-A3B model card"),
    ("qwen3-235b-a22b", 235e9, "huggingface.co/Qwen/Qwen3-235B-A22B model card"),
    ("deepseek-v3", 671e9, "DeepSeek-V3 Technical Report, arXiv 2412.19437 (MTP module excluded)"),
    ("deepseek-r1", 671e9, "huggingface.co/deepseek-ai/DeepSeek-R1 model card"),
    (
        "kimi-k2",
        1_026_408_235_864,
        "weight report of Kimi-K2-Instruct, search-index file 69468411049",
    ),
    ("gpt-oss-20b", 20.91e9, "gpt-oss model card, arXiv 2508.10925, Table 1"),
    ("gpt-oss-120b", 116.83e9, "gpt-oss model card, arXiv 2508.10925, Table 1"),
    ("gpt-j-6b", 6_053_381_344, "github.com/kingoflolz/mesh-transformer-jax README, Model Details"),
    ("palm-8b", 8.63e9, "PaLM, arXiv 2204.02311, Table 1"),
    ("palm-62b", 62.50e9, "PaLM, arXiv 2204.02311, Table 1"),
    ("palm-540b", 540.35e9, "PaLM, arXiv 2204.02311, Table 1"),
]

PUBLISHED_IDS = [p[0] for p in PUBLISHED]


def test_every_required_id_present() -> None:
    missing = sorted(set(REQUIRED) - set(lr.list_models()))
    assert not missing, f"missing model ids: {missing}"


def test_every_required_id_has_a_published_count_here() -> None:
    missing = sorted(set(REQUIRED) & set(lr.list_models()) - set(PUBLISHED_IDS))
    assert not missing, f"catalog models without a published count in this test: {missing}"


@pytest.mark.parametrize(("model_id", "published", "source"), PUBLISHED, ids=PUBLISHED_IDS)
def test_total_parameters_within_one_percent(model_id: str, published: float, source: str) -> None:
    spec = lr.get_model(model_id)
    assert spec.params_stored == pytest.approx(published, rel=0.01), source


@pytest.mark.parametrize(("model_id", "published", "source"), PUBLISHED, ids=PUBLISHED_IDS)
def test_catalog_provenance_matches(model_id: str, published: float, source: str) -> None:
    meta = model_entry(model_id).meta
    assert meta["published_params_total"] == pytest.approx(published, rel=1e-9)
    for key in ("config_source", "config_origin", "published_params_source"):
        assert str(meta.get(key, "")).strip(), f"{model_id}: {key} missing"


def test_kimi_k2_rounded_headline_is_within_its_rounding() -> None:
    # The report abstract (arXiv 2507.20534) says "1 trillion total parameters": our count from
    # the config (1.0264e12) is that figure to its one significant digit.
    assert lr.get_model("kimi-k2").params_stored == pytest.approx(1e12, rel=0.05)


def test_deepseek_v3_active_parameters() -> None:
    # DeepSeek-V3 report: 37B activated per token, of which 0.9B is the output head and the
    # input embedding (0.9B) is a lookup; multiplied per token = 36.6B (tt-metal reference doc:
    # "Activation parameters: 36.6B (including 0.9B for the output Head)").
    spec = lr.get_model("deepseek-v3")
    assert spec.params_multiplied == pytest.approx(36.6e9, rel=0.01)


def test_gpt_oss_active_parameters() -> None:
    # gpt-oss model card (arXiv 2508.10925) Table 1: active per token 5.13B (120b), 3.61B (20b)
    assert lr.get_model("gpt-oss-120b").params_multiplied == pytest.approx(5.13e9, rel=0.01)
    assert lr.get_model("gpt-oss-20b").params_multiplied == pytest.approx(3.61e9, rel=0.01)


def test_llama4_vision_tower_by_hand() -> None:
    # Llama 4 vision_config: d 1408, MLP 5632, 34 layers, patch 14, image 336, 3 channels,
    # pixel-shuffle ratio 0.5, projector 4096 -> 4096, vision output 4096, text D 5120.
    d, f = 1408, 5632
    patch_embed = 3 * 14 * 14 * d  # unfold + linear, no bias: 827,904
    class_and_pos = d + ((336 // 14) ** 2 + 1) * d  # 1,408 + 577 · 1,408
    norms = 2 * 2 * d  # pre and post LayerNorm
    block = 4 * (d * d + d) + 2 * d * f + f + d + 2 * 2 * d  # attention, MLP, 2 LayerNorms
    adapter = (d * 4) * 4096 + 4096 * 4096  # pixel shuffle 2x2 -> 4·d, then 4096 -> 4096
    projector = 4096 * 5120
    expect = patch_embed + class_and_pos + norms + 34 * block + adapter + projector
    assert expect == 871_932_416
    assert lr.get_model("llama-4-scout").params_vision == expect


def test_gemma3_siglip_encoder_matches_report() -> None:
    # Gemma 3 report Table 1: vision encoder 417M. SigLIP So400m at 896 px: the encoder without
    # Gemma's 1152 x 5376 projector (6,193,152) and its norm (1,152).
    spec = lr.get_model("gemma-3-27b")
    encoder = spec.params_vision - 1152 * 5376 - 1152
    assert encoder == pytest.approx(417e6, rel=0.005)
    # text only: embedding 1,416M + non-embedding 25,600M = 27,016M (same table)
    assert spec.params_text == pytest.approx(27.016e9, rel=0.001)


def test_vision_tower_is_stored_but_not_read_in_decode() -> None:
    spec = lr.get_model("gemma-3-27b")
    assert spec.params_stored == spec.params_text + spec.params_vision
    assert float(spec.params_read(1)) == spec.params_text  # tied embedding: read whole as head


def test_mixtral_active_parameters() -> None:
    # mistral.ai: Mixtral 8x7B uses 12.9B parameters per token, counting the input embedding
    # (a lookup, which we do not multiply): multiplied + embedding = 12.88B
    spec = lr.get_model("mixtral-8x7b")
    assert spec.params_multiplied + spec.embedding_params == pytest.approx(12.9e9, rel=0.01)


# ---- KV bytes per token, one per attention kind, by hand ----------------------------------


def test_kv_bytes_gqa_llama_3_1_70b() -> None:
    # 2 · K 8 · d_h 128 · L 80 · 2 bytes = 327,680
    assert lr.get_model("llama-3.1-70b").kv_bytes_per_token(2.0) == 327_680


def test_kv_bytes_mha_llama_2_7b() -> None:
    # 2 · 32 heads · 128 · 32 layers · 2 bytes = 524,288
    assert lr.get_model("llama-2-7b").kv_bytes_per_token(2.0) == 524_288


def test_kv_bytes_mqa_palm_540b() -> None:
    # multiquery: 2 · 1 · 256 · 118 layers = 60,416 elements
    assert lr.get_model("palm-540b").kv_elements_per_token == 60_416


def test_kv_bytes_mla_deepseek_v3() -> None:
    # latent 512 + rope key 64 per layer (DeepSeek-V2 paper §2.1.2), 61 layers, bf16:
    # (512 + 64) · 61 · 2 = 70,272 bytes
    assert lr.get_model("deepseek-v3").kv_bytes_per_token(2.0) == 70_272


def test_kv_sliding_mix_gpt_oss_120b() -> None:
    # 36 layers alternate sliding (W = 128) and full; K 8, d_h 64: 1,024 elements per layer-token.
    # At context 4096: 18 · 4096 + 18 · 128 layer-tokens.
    spec = lr.get_model("gpt-oss-120b")
    assert float(spec.kv_elements_per_sequence(4096)) == 1_024 * (18 * 4096 + 18 * 128)


def test_unknown_model_names_closest() -> None:
    with pytest.raises(lr.UnknownIdError) as exc:
        lr.get_model("llama-3.1-7b")
    assert "llama-3.1-70b" in exc.value.closest or "llama-3.1-8b" in exc.value.closest


def test_model_ids_case_insensitive_and_paths(tmp_path: Path) -> None:
    assert lr.get_model("Llama-3.1-8B").n_layers == 32
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(model_entry("llama-3.1-8b").config))
    assert lr.get_model(str(cfg)).params_stored == lr.get_model("llama-3.1-8b").params_stored


# ---- provenance ----------------------------------------------------------------------------

PROVENANCE = {
    "verbatim": "the published config.json, as copied in a cited public file",
    "verbatim-edited": "the published file with keys another tool added removed (said in the TOML)",
    "paper": "no config.json exists; fields from the paper's table (PaLM)",
    "assembled": "no verbatim copy reachable; every field quoted from a cited source",
}


def _flat_keys(cfg: dict[str, object], prefix: str = "") -> list[str]:
    keys = []
    for k, v in cfg.items():
        if isinstance(v, dict) and k in ("text_config", "vision_config"):
            keys += _flat_keys(v, f"{k}.")
        else:
            keys.append(prefix + k)
    return keys


@pytest.mark.parametrize("model_id", REQUIRED)
def test_every_config_states_its_provenance(model_id: str) -> None:
    entry = model_entry(model_id)
    prov = entry.meta.get("config_provenance")
    assert prov in PROVENANCE, f"{model_id}: config_provenance {prov!r}"
    if prov == "assembled":
        sources = entry.meta.get("config_field_sources", {})
        missing = [k for k in _flat_keys(entry.config) if not str(sources.get(k, "")).strip()]
        assert not missing, f"{model_id}: fields without a source: {missing}"


def _documented_ids(kind: str) -> list[str]:
    """The ids docs/catalog.md promises under "Ids other programs rely on" (`- Models: …`)."""
    text = (Path(__file__).parents[2] / "docs" / "catalog.md").read_text(encoding="utf-8")
    para = text.split(f"- {kind}: ", 1)[1].split("\n- ", 1)[0].split("\n\n", 1)[0]
    return [x.strip() for x in para.replace("\n", " ").rstrip(". ").split(",")]


def test_the_documented_ids_are_the_required_ones() -> None:
    from ..hardware.test_catalog import REQUIRED as REQUIRED_HARDWARE

    assert _documented_ids("Models") == REQUIRED
    assert _documented_ids("Hardware") == REQUIRED_HARDWARE
