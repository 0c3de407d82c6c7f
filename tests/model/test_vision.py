"""Parameters of a vision tower and projector (`model/hf/vision.py`): two tiny towers counted
by hand, Gemma 3's against its technical report, and the towers not counted."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from llm_roofline._core.errors import ConfigError
from llm_roofline.model.hf.vision import vision_params

# width 4, MLP 8, 1 layer, patches of 2 over a 4×4 image: (4 / 2)² = 4 patches, 3 channels.
# A block: q, k, v, o with biases 4 · (16 + 4) = 80; MLP 2 · 4 · 8 + 8 + 4 = 76; two
# LayerNorms 2 · 2 · 4 = 16: 172
TINY: dict[str, Any] = {
    "hidden_size": 4,
    "intermediate_size": 8,
    "num_hidden_layers": 1,
    "patch_size": 2,
    "image_size": 4,
}
TEXT_D = 10


def test_siglip_by_hand() -> None:
    # patch embedding 3 · 2 · 2 · 4 + bias 4 = 52; positions 4 · 4 = 16; block 172; post
    # LayerNorm 8: 248; Gemma 3's projector 4 × 10 and its RMSNorm of 4: 44. Total 292
    cfg = {"vision_config": {**TINY, "model_type": "siglip_vision_model"}}
    assert vision_params(cfg, TEXT_D, "x") == (292, "")


def test_llama4_by_hand() -> None:
    # patch embedding 48 (no bias); class token 4; positions (4 + 1) · 4 = 20; pre/post
    # LayerNorms 16: 88; block 172: 260. Pixel shuffle at ratio 0.5: 4 / 0.25 = 16 in, × 6
    # projector input = 96; 6 × 5 = 30: 386. Projector to the text width: 7 × 10 = 70. 456
    v = {
        **TINY,
        "model_type": "llama4_vision_model",
        "projector_input_dim": 6,
        "projector_output_dim": 5,
        "vision_output_dim": 7,
    }
    assert vision_params({"vision_config": v}, TEXT_D, "x") == (456, "")
    with pytest.raises(ConfigError) as e:
        vision_params({"vision_config": {**v, "pixel_shuffle_ratio": 2}}, TEXT_D, "x.json")
    assert str(e.value) == "x.json: field 'pixel_shuffle_ratio' must be in (0, 1], got 2"
    assert e.value.field == "pixel_shuffle_ratio"


def test_gemma3_tower_matches_the_technical_report() -> None:
    # Gemma 3 Technical Report (arXiv 2503.19786), Table 1: vision encoder 417M. Our count
    # includes the projector (1,152 × 5,376 + RMSNorm 1,152), which the report's 417M leaves
    # out: without it, SigLIP at 896 px is 417M to 0.1%
    config = resources.files("llm_roofline").joinpath("data", "models", "gemma-3-27b.config.json")
    cfg = json.loads(config.read_text())
    n, note = vision_params(cfg, 5376, "gemma")
    assert note == ""
    assert n - (1152 * 5376 + 1152) == pytest.approx(417e6, rel=1e-3)


def test_towers_not_counted_are_said_so() -> None:
    assert vision_params({}, TEXT_D, "x") == (0, "")
    assert vision_params({"vision_config": {}}, TEXT_D, "x") == (0, "")
    clip = {"vision_config": {**TINY, "model_type": "clip_vision_model"}}
    assert vision_params(clip, TEXT_D, "x") == (
        0,
        "vision tower of type 'clip_vision_model' not counted",
    )
    with pytest.raises(ConfigError, match=r"missing field 'patch_size'") as e:
        vision_params({"vision_config": {**TINY, "patch_size": None}}, TEXT_D, "x")
    assert e.value.field == "patch_size"
