"""What each architecture does that its config.json does not say, as data: one `Arch` row a
`model_type` (gated MLP? attention and MLP side by side? biases, norms, which layers slide), and
the Llama-style layout read for a `model_type` the table does not know (`GENERIC`). A new
architecture is a new row of `ARCH`."""

from __future__ import annotations

from dataclasses import dataclass

from llm_roofline.model.hf.layers import WindowRule

__all__ = ["ARCH", "EVERY_LAYER_SLIDES", "GENERIC", "GENERIC_TEXT", "KNOWN_MODEL_TYPES", "Arch"]


EVERY_LAYER_SLIDES = WindowRule()  # when sliding_window is set and use_sliding_window is not off


@dataclass(frozen=True)
class Arch:
    """What an architecture does that its config.json does not say."""

    # --- the block ---
    gated: bool = True  # SwiGLU / GeGLU: 3 matrices
    parallel: bool = False  # attention and MLP read the same input (one all-reduce per layer)
    tie_default: bool = False  # tie_word_embeddings when the config is silent
    norms_per_layer: int = 2  # RMSNorm/LayerNorm weight vectors of size D per layer
    norm_bias: bool = False  # LayerNorm (weight and bias) instead of RMSNorm
    lm_head_bias: bool = False
    # a config flag that, when true, selects a newer layout of the same model_type (Falcon's
    # new_decoder_architecture: 40B and 180B, grouped KV heads, ln_attn and ln_mlp); without it
    # the KV heads follow multi_query (1 or H) and a parallel block has `old_parallel_norms`
    new_layout_flag: str = ""
    old_parallel_norms: int = 0  # Falcon 7B: one LayerNorm shared by attention and MLP
    # --- attention ---
    qkv_bias: bool = False  # default when the config has no attention_bias field
    o_bias: bool = False  # bias on the attention output projection, likewise
    qk_norm: bool = False
    sinks: bool = False  # gpt-oss: one learned logit per head
    # --- feed-forward ---
    mlp_bias: bool = False  # default when the config has no mlp_bias (or bias) field
    mlp_bias_always: bool = False  # gpt-oss: experts carry biases (gate_up and down), any config
    router_bias: bool = False  # gpt-oss
    implicit_shared_expert: bool = False  # Llama 4: one shared expert of the expert width
    # --- which layers slide or attend in chunks, when the config has no layer_types ---
    windows: WindowRule = EVERY_LAYER_SLIDES


_GEMMA2 = Arch(tie_default=True, norms_per_layer=4, windows=WindowRule(global_every=2))
_GEMMA3 = Arch(
    tie_default=True,
    norms_per_layer=4,
    qk_norm=True,
    windows=WindowRule(global_every=6, global_every_field="sliding_window_pattern"),
)
_LLAMA4 = Arch(implicit_shared_expert=True, windows=WindowRule(nope_every=4))

ARCH: dict[str, Arch] = {
    "llama": Arch(),
    "mistral": Arch(),
    "mixtral": Arch(),
    "llama4": _LLAMA4,
    "llama4_text": _LLAMA4,
    "qwen2": Arch(qkv_bias=True),  # Qwen2's q/k/v projections carry a bias, o does not
    "qwen2_moe": Arch(qkv_bias=True),
    "qwen3": Arch(qk_norm=True),
    "qwen3_moe": Arch(qk_norm=True),
    "deepseek_v2": Arch(),
    "deepseek_v3": Arch(),
    "deepseek_v32": Arch(),  # DeepSeek-V3.2: V3 with sparse attention (index_* fields)
    "kimi_k2": Arch(),
    "gemma": Arch(tie_default=True),
    "gemma2": _GEMMA2,
    "gemma3": _GEMMA3,
    "gemma3_text": _GEMMA3,
    "gpt_oss": Arch(sinks=True, mlp_bias_always=True, router_bias=True),
    "palm": Arch(parallel=True, tie_default=True, norms_per_layer=1),
    "phi3": Arch(),
    "gptj": Arch(
        gated=False,
        parallel=True,
        mlp_bias=True,
        lm_head_bias=True,
        norms_per_layer=1,
        norm_bias=True,
    ),
    "falcon": Arch(
        gated=False,
        tie_default=True,
        norm_bias=True,
        new_layout_flag="new_decoder_architecture",
        old_parallel_norms=1,
    ),
    # GPT-NeoX: biases on q/k/v and the output projection; use_parallel_residual defaults true
    "gpt_neox": Arch(
        gated=False, parallel=True, qkv_bias=True, o_bias=True, mlp_bias=True, norm_bias=True
    ),
}

KNOWN_MODEL_TYPES = tuple(sorted(ARCH))

# An unknown model_type: the layout most decoders since Llama share (what `Arch()` says).
GENERIC = Arch()
GENERIC_TEXT = (
    "a Llama-style decoder (gated MLP, RMSNorm, no biases unless the config sets attention_bias"
    " or mlp_bias, untied embeddings unless tie_word_embeddings)"
)
