"""Parameters of a multimodal checkpoint's vision tower and projector, from `vision_config`.

The tower is stored but not read in text decode, so it counts toward memory only (docs/design.md,
docs/catalog.md). Two towers are counted, one function each in `_TOWERS` keyed by the vision
config's `model_type`: Llama 4's and SigLIP (Gemma 3). Any other is reported as not counted
rather than guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from llm_roofline._core.errors import ConfigError
from llm_roofline.model.hf.fields import int_field, opt_int

__all__ = ["vision_params"]


@dataclass(frozen=True)
class _ViT:
    """The figures every tower shares: width d, MLP width f, layers, patches, channels."""

    d: int
    f: int
    layers: int
    patch: int
    patches: int
    channels: int

    @property
    def block(self) -> int:
        """A ViT block: q, k, v, o with biases, a 2-matrix MLP with biases, two LayerNorms."""
        d, f = self.d, self.f
        return 4 * (d * d + d) + 2 * d * f + f + d + 2 * 2 * d


def _llama4(v: Mapping[str, Any], t: _ViT, text_D: int, src: str) -> int:
    """Llama 4: unfold-linear patch embedding (no bias), class token, positions for patches + 1,
    pre/post LayerNorms; pixel-shuffle MLP (hidden / ratio² -> projector input -> projector
    output, no biases); projector to the text width (no bias)."""
    ratio = v.get("pixel_shuffle_ratio", 0.5)
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
        raise ConfigError(
            f"field 'pixel_shuffle_ratio' must be in (0, 1], got {ratio!r}",
            "pixel_shuffle_ratio",
            src,
        )
    p_in = int_field(v, ("projector_input_dim",), "projector input", src)
    p_out = int_field(v, ("projector_output_dim",), "projector output", src)
    v_out = int_field(v, ("vision_output_dim",), "vision output", src)
    d = t.d
    n = t.channels * t.patch * t.patch * d + d + (t.patches + 1) * d + 2 * 2 * d
    n += t.layers * t.block
    n += round(d / ratio**2) * p_in + p_in * p_out
    return n + v_out * text_D


def _siglip(v: Mapping[str, Any], t: _ViT, text_D: int, src: str) -> int:
    """SigLIP (Gemma 3): conv patch embedding with bias, learned positions, post LayerNorm;
    Gemma 3's projector: a d × D matrix and an RMSNorm of d."""
    d = t.d
    n = t.channels * t.patch * t.patch * d + d + t.patches * d + t.layers * t.block + 2 * d
    return n + d * text_D + d


_TOWERS: dict[str, Callable[[Mapping[str, Any], _ViT, int, str], int]] = {
    "llama4_vision_model": _llama4,
    "siglip_vision_model": _siglip,
}


def vision_params(cfg: Mapping[str, Any], text_D: int, src: str) -> tuple[int, str]:
    """(parameters, note): the vision tower's count, or 0 and a note when it is not counted."""
    v = cfg.get("vision_config")
    if not isinstance(v, dict) or not v:
        return 0, ""
    vt = str(v.get("model_type", ""))
    d = int_field(v, ("hidden_size",), "vision hidden size", src)
    f = int_field(v, ("intermediate_size",), "vision MLP width", src)
    layers = int_field(v, ("num_hidden_layers",), "vision layers", src)
    patch = int_field(v, ("patch_size",), "vision patch size", src)
    image = int_field(v, ("image_size",), "vision image size", src)
    channels = opt_int(v, ("num_channels",), src) or 3
    tower = _ViT(d, f, layers, patch, (image // patch) ** 2, channels)
    count = _TOWERS.get(vt)
    if count is None:
        return 0, f"vision tower of type {vt!r} not counted"
    return count(v, tower, text_D, src), ""
