"""Read a Hugging Face `config.json` into a ModelSpec: plain JSON, no model code.

Field names differ between architectures (GPT-J says `n_embd`, Falcon `num_kv_heads`), so each
quantity is looked up through a short list of aliases. Facts a config does not state (is the MLP
gated? are attention and FFN side by side?) come from a per-architecture table keyed by
`model_type`, never from guessing at ratios. A config whose `model_type` is not in the table is
refused with the list of known types rather than read wrongly.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .model import FFN, Attention, LayerGroup, ModelSpec

__all__ = ["KNOWN_MODEL_TYPES", "load_config", "spec_from_config"]


@dataclass(frozen=True)
class _Arch:
    """What an architecture does that its config.json does not say."""

    gated: bool = True  # SwiGLU / GeGLU: 3 matrices
    parallel: bool = False  # attention and MLP read the same input (one all-reduce per layer)
    qkv_bias: bool = False  # default when the config has no attention_bias field
    o_bias: bool = False  # bias on the attention output projection, likewise
    mlp_bias: bool = False
    lm_head_bias: bool = False
    tie_default: bool = False  # tie_word_embeddings when the config is silent
    norms_per_layer: int = 2  # RMSNorm/LayerNorm weight vectors of size D per layer
    norm_bias: bool = False  # LayerNorm (weight and bias) instead of RMSNorm
    qk_norm: bool = False


_ARCH: dict[str, _Arch] = {
    "llama": _Arch(),
    "mistral": _Arch(),
    "mixtral": _Arch(),
    "llama4": _Arch(),
    "llama4_text": _Arch(),
    "qwen2": _Arch(qkv_bias=True),  # Qwen2's q/k/v projections carry a bias, o does not
    "qwen2_moe": _Arch(qkv_bias=True),
    "qwen3": _Arch(qk_norm=True),
    "qwen3_moe": _Arch(qk_norm=True),
    "deepseek_v2": _Arch(),
    "deepseek_v3": _Arch(),
    "deepseek_v32": _Arch(),  # DeepSeek-V3.2: V3 with sparse attention (index_* fields)
    "kimi_k2": _Arch(),
    "gemma": _Arch(tie_default=True),
    "gemma2": _Arch(tie_default=True, norms_per_layer=4),
    "gemma3": _Arch(tie_default=True, norms_per_layer=4, qk_norm=True),
    "gemma3_text": _Arch(tie_default=True, norms_per_layer=4, qk_norm=True),
    "gpt_oss": _Arch(),
    "palm": _Arch(parallel=True, tie_default=True, norms_per_layer=1),
    "phi3": _Arch(),
    "gptj": _Arch(
        gated=False,
        parallel=True,
        mlp_bias=True,
        lm_head_bias=True,
        norms_per_layer=1,
        norm_bias=True,
    ),
    "falcon": _Arch(gated=False, tie_default=True, norm_bias=True),
    # GPT-NeoX: biases on q/k/v and the output projection; use_parallel_residual defaults true
    "gpt_neox": _Arch(
        gated=False, parallel=True, qkv_bias=True, o_bias=True, mlp_bias=True, norm_bias=True
    ),
}

KNOWN_MODEL_TYPES = tuple(sorted(_ARCH))

# Aliases, first match wins.
_HIDDEN = ("hidden_size", "n_embd", "d_model", "dim")
_LAYERS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")
_HEADS = ("num_attention_heads", "n_head", "num_heads", "n_heads")
_KV_HEADS = ("num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num")
_VOCAB = ("vocab_size", "padded_vocab_size", "n_vocab")
_FF = ("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim", "d_ff")
_N_EXPERTS = ("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")
_TOP_K = ("num_experts_per_tok", "experts_per_token", "moe_topk", "top_k")
_MAX_POS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length")


def _get(cfg: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    for n in names:
        if cfg.get(n) is not None:
            return cfg[n]
    return None


def _int(cfg: Mapping[str, Any], names: tuple[str, ...], what: str, src: str) -> int:
    """A required positive integer field, looked up under its aliases."""
    v = _get(cfg, names)
    if v is None:
        raise ConfigError(
            f"missing field {names[0]!r} ({what}; also accepted: {', '.join(names[1:])})",
            field=names[0],
            source=src,
        )
    return _positive_int(v, names[0], src)


def _positive_int(v: Any, name: str, src: str, *, zero_ok: bool = False) -> int:
    """An integer field: positive (or zero when `zero_ok`), never a bool, NaN or fraction."""
    least = 0 if zero_ok else 1
    kind = "a non-negative" if zero_ok else "a positive"
    ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
    if not ok or v < least or int(v) != v:
        raise ConfigError(f"field {name!r} must be {kind} integer, got {v!r}", name, src)
    if v > _LARGEST:  # no model dimension is this big: a typo or a corrupt file
        raise ConfigError(
            f"field {name!r} = {v!r} is larger than any model has (> 2^40)", name, src
        )
    return int(v)


_LARGEST = 2**40


def _opt_int(
    cfg: Mapping[str, Any], names: tuple[str, ...], src: str, *, zero_ok: bool = False
) -> int | None:
    """An optional integer field (None when absent or null)."""
    v = _get(cfg, names)
    return None if v is None else _positive_int(v, names[0], src, zero_ok=zero_ok)


def _bool(cfg: Mapping[str, Any], name: str, default: bool, src: str) -> bool:
    """A true/false field; the strings "false" or 0 are refused rather than read as true."""
    v = cfg.get(name)
    if v is None:
        return default
    if not isinstance(v, bool):
        raise ConfigError(f"field {name!r} must be true or false, got {v!r}", name, src)
    return v


def _int_list(cfg: Mapping[str, Any], name: str, src: str) -> list[int] | None:
    """An optional list of non-negative integers (layer indices or 0/1 flags)."""
    v = cfg.get(name)
    if v is None:
        return None
    if not isinstance(v, list):
        raise ConfigError(f"field {name!r} must be a list of integers, got {v!r}", name, src)
    return [_positive_int(x, name, src, zero_ok=True) for x in v]


def load_config(path: str | Path) -> dict[str, Any]:
    """Read a config.json file as a dict, with a ConfigError for anything that is not one."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no such file: {p}", source=str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {p}: {exc}", source=str(p)) from None
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", source=str(p)
        ) from None
    if not isinstance(cfg, dict):
        raise ConfigError("a config.json must hold a JSON object", source=str(p))
    return cfg


def _text_part(cfg: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """Multimodal configs (Llama 4, Gemma 3) nest the language model in text_config."""
    top_type = str(cfg.get("model_type", ""))
    text = cfg.get("text_config")
    if isinstance(text, dict):
        merged = {k: v for k, v in cfg.items() if k != "text_config"}
        merged.update(text)
        return merged, str(text.get("model_type", top_type))
    return dict(cfg), top_type


# A layer's attention span: None (global), ("sliding", W) or ("chunked", C).
Span = tuple[str, int] | None


def _layer_windows(cfg: Mapping[str, Any], mt: str, L: int, src: str) -> list[Span]:
    """Attention span of each layer: global, a sliding window of W, or chunks of C tokens."""
    window = _opt_int(cfg, ("sliding_window",), src)
    types = cfg.get("layer_types")
    if types is not None:
        if not isinstance(types, list) or len(types) != L:
            n = len(types) if isinstance(types, list) else "no list"
            raise ConfigError(f"layer_types has {n} entries for {L} layers", "layer_types", src)
        chunk = _opt_int(cfg, ("attention_chunk_size",), src)
        out: list[Span] = []
        for t in types:
            if t == "full_attention":
                out.append(None)
            elif t == "sliding_attention" and window is not None:
                out.append(("sliding", window))
            elif t == "chunked_attention" and chunk is not None:
                out.append(("chunked", chunk))
            else:
                need = "attention_chunk_size" if t == "chunked_attention" else "sliding_window"
                raise ConfigError(
                    f"layer type {t!r} in layer_types needs {need}", "layer_types", src
                )
        return out
    if mt in ("llama4", "llama4_text"):
        # Chunked local attention on RoPE layers; the NoPE layers (every 4th by default)
        # attend globally. no_rope_layers[i] = 1 means layer i uses RoPE (so is chunked).
        chunk = _opt_int(cfg, ("attention_chunk_size",), src)
        if chunk is None:
            return [None] * L
        flags = _int_list(cfg, "no_rope_layers", src)
        if flags and len(flags) == L:
            return [("chunked", chunk) if f else None for f in flags]
        step = _opt_int(cfg, ("no_rope_layer_interval",), src) or 4
        return [None if (i + 1) % step == 0 else ("chunked", chunk) for i in range(L)]
    if window is None or not _bool(cfg, "use_sliding_window", True, src):
        return [None] * L
    if mt == "gemma2":
        return [("sliding", window) if i % 2 == 0 else None for i in range(L)]
    if mt in ("gemma3", "gemma3_text"):
        pattern = _opt_int(cfg, ("sliding_window_pattern",), src) or 6
        return [None if (i + 1) % pattern == 0 else ("sliding", window) for i in range(L)]
    return [("sliding", window)] * L  # e.g. Mistral 7B v0.1: every layer slides


def _moe_layers(cfg: Mapping[str, Any], L: int, src: str) -> list[bool]:
    """Which layers hold a mixture of experts (the rest a dense MLP)."""
    listed = _int_list(cfg, "moe_layers", src)  # Llama 4 may list them
    if listed is not None:
        return [i in set(listed) for i in range(L)]
    step = _opt_int(cfg, ("interleave_moe_layer_step",), src)  # Llama 4: every n-th layer
    if step is not None:
        return [(i + 1) % step == 0 for i in range(L)]
    first_dense = _opt_int(cfg, ("first_k_dense_replace",), src, zero_ok=True) or 0  # DeepSeek
    freq = _opt_int(cfg, ("moe_layer_freq",), src) or 1
    sparse_step = _opt_int(cfg, ("decoder_sparse_step",), src) or 1  # Qwen MoE
    mlp_only = set(_int_list(cfg, "mlp_only_layers", src) or [])
    return [
        i >= first_dense and i % freq == 0 and (i + 1) % sparse_step == 0 and i not in mlp_only
        for i in range(L)
    ]


def _vision_params(cfg: Mapping[str, Any], text_D: int, src: str) -> tuple[int, str]:
    """Parameters of a multimodal checkpoint's vision tower and projector, from vision_config.

    Counted for the two vision towers of the catalog; any other is reported as not counted.
    """
    v = cfg.get("vision_config")
    if not isinstance(v, dict) or not v:
        return 0, ""
    vt = str(v.get("model_type", ""))
    d = _int(v, ("hidden_size",), "vision hidden size", src)
    f = _int(v, ("intermediate_size",), "vision MLP width", src)
    layers = _int(v, ("num_hidden_layers",), "vision layers", src)
    patch = _int(v, ("patch_size",), "vision patch size", src)
    image = _int(v, ("image_size",), "vision image size", src)
    channels = _opt_int(v, ("num_channels",), src) or 3
    # a ViT block: q, k, v, o with biases, a 2-matrix MLP with biases, two LayerNorms
    block = 4 * (d * d + d) + 2 * d * f + f + d + 2 * 2 * d
    patches = (image // patch) ** 2
    if vt == "llama4_vision_model":
        # Llama 4: unfold-linear patch embedding (no bias), class token, positions for
        # patches + 1, pre/post LayerNorms; pixel-shuffle MLP (hidden / ratio² -> projector
        # input -> projector output, no biases); projector to the text width (no bias).
        ratio = v.get("pixel_shuffle_ratio", 0.5)
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
            raise ConfigError(
                f"field 'pixel_shuffle_ratio' must be in (0, 1], got {ratio!r}",
                "pixel_shuffle_ratio",
                src,
            )
        p_in = _int(v, ("projector_input_dim",), "projector input", src)
        p_out = _int(v, ("projector_output_dim",), "projector output", src)
        v_out = _int(v, ("vision_output_dim",), "vision output", src)
        n = channels * patch * patch * d + d + (patches + 1) * d + 2 * 2 * d
        n += layers * block
        n += round(d / ratio**2) * p_in + p_in * p_out
        n += v_out * text_D
        return n, ""
    if vt == "siglip_vision_model":
        # SigLIP (Gemma 3): conv patch embedding with bias, learned positions, post LayerNorm;
        # Gemma 3's projector: a d × D matrix and an RMSNorm of d.
        n = channels * patch * patch * d + d + patches * d + layers * block + 2 * d
        n += d * text_D + d
        return n, ""
    return 0, f"vision tower of type {vt!r} not counted"


def _sparse(cfg: Mapping[str, Any], src: str) -> tuple[int, int, int]:
    """DeepSeek sparse attention: `index_topk` tokens selected by an indexer of
    `index_n_heads` × `index_head_dim` (absent: dense attention, all zeros)."""
    topk = _opt_int(cfg, ("index_topk",), src)
    if topk is None:
        return 0, 0, 0
    heads = _int(cfg, ("index_n_heads",), "indexer heads", src)
    return topk, heads, _int(cfg, ("index_head_dim",), "indexer head dim", src)


def spec_from_config(
    cfg: Mapping[str, Any], name: str | None = None, source: str = "config.json"
) -> ModelSpec:
    """Build a ModelSpec from a parsed config.json dict.

    >>> spec = spec_from_config({"model_type": "llama", "hidden_size": 4096, ...})  # doctest: +SKIP
    """
    if not isinstance(cfg, Mapping):
        raise ConfigError("a config must be a JSON object", source=source)
    c, mt = _text_part(cfg)
    if not mt:
        raise ConfigError(
            f"missing field 'model_type' (one of: {', '.join(KNOWN_MODEL_TYPES)})",
            "model_type",
            source,
        )
    arch = _ARCH.get(mt)
    if arch is None:
        raise ConfigError(
            f"unknown model_type {mt!r}; known: {', '.join(KNOWN_MODEL_TYPES)}",
            "model_type",
            source,
        )

    D = _int(c, _HIDDEN, "d_model", source)
    L = _int(c, _LAYERS, "number of layers", source)
    if L > 100_000:  # per-layer lists are built below; the deepest real models have ~200
        raise ConfigError(f"{L:,} layers is more than any model has (> 100,000)", "layers", source)
    H = _int(c, _HEADS, "query heads", source)
    V = _int(c, _VOCAB, "vocabulary size", source)

    # --- attention ---
    kv_lora = _opt_int(c, ("kv_lora_rank",), source)
    if kv_lora:  # DeepSeek multi-head latent attention
        d_nope = _int(c, ("qk_nope_head_dim",), "MLA no-rope head dim", source)
        d_rope = _int(c, ("qk_rope_head_dim",), "MLA rope head dim", source)
        d_v = _int(c, ("v_head_dim",), "MLA value head dim", source)
        topk, idx_heads, idx_dim = _sparse(c, source)
        attn = Attention(
            kind="mla",
            n_heads=H,
            n_kv_heads=H,
            head_dim=d_nope + d_rope,
            v_head_dim=d_v,
            q_lora_rank=_opt_int(c, ("q_lora_rank",), source) or 0,
            kv_lora_rank=kv_lora,
            rope_head_dim=d_rope,
            sparse_topk=topk,
            indexer_heads=idx_heads,
            indexer_head_dim=idx_dim,
        )
    else:
        K = _opt_int(c, _KV_HEADS, source)
        multi_query = _bool(c, "multi_query", False, source)
        if mt == "falcon" and not _bool(c, "new_decoder_architecture", False, source):
            K = 1 if multi_query else H
        if K is None:
            K = 1 if multi_query else H
        if H % K:
            raise ConfigError(
                f"num_attention_heads ({H}) is not a multiple of num_key_value_heads ({K})",
                "num_key_value_heads",
                source,
            )
        d_h = _opt_int(c, ("head_dim", "kv_channels"), source)
        if d_h is None:  # only when the config does not state it
            if D % H:
                raise ConfigError(
                    f"head_dim missing and hidden size {D} is not divisible by {H} heads",
                    "head_dim",
                    source,
                )
            d_h = D // H
        # one "bias" flag (Falcon) or "attention_bias" (Llama family) covers q, k, v and o
        bias_field = "attention_bias" if "attention_bias" in c else "bias"
        any_bias = _bool(c, bias_field, arch.qkv_bias, source)
        o_bias = _bool(c, bias_field, arch.o_bias, source)
        kind = "mha" if K == H else ("mqa" if K == 1 else "gqa")
        attn = Attention(
            kind=kind,
            n_heads=H,
            n_kv_heads=K,
            head_dim=d_h,
            v_head_dim=d_h,
            qkv_bias=any_bias,
            o_bias=o_bias,
            qk_norm=arch.qk_norm,
            sinks=(mt == "gpt_oss"),
        )

    # --- feed-forward ---
    E = _opt_int(c, _N_EXPERTS, source, zero_ok=True)  # 0 or absent: a dense model
    mlp_bias = _bool(c, "mlp_bias" if "mlp_bias" in c else "bias", arch.mlp_bias, source)
    if mt == "gpt_oss":
        mlp_bias = True  # gpt-oss experts carry biases (gate_up and down)
    F_dense = _opt_int(c, ("intermediate_size_mlp", *_FF), source)
    if F_dense is None:
        if arch.gated:
            raise ConfigError(
                f"missing field 'intermediate_size' (d_ff; also accepted: {', '.join(_FF[1:])})",
                "intermediate_size",
                source,
            )
        F_dense = 4 * D  # GPT-J (n_inner null) and Falcon: the classic 4·D MLP
    dense = FFN(d_ff=F_dense, gated=arch.gated, bias=mlp_bias)
    moe_flags = [False] * L
    moe: FFN | None = None
    if E and E > 1:
        k = _int(c, _TOP_K, "experts per token", source)
        if k > E:
            raise ConfigError(
                f"num_experts_per_tok ({k}) exceeds the number of experts ({E})",
                "num_experts_per_tok",
                source,
            )
        F_exp = _opt_int(c, ("moe_intermediate_size", "intermediate_size"), source)
        if F_exp is None:
            raise ConfigError(
                "missing field 'moe_intermediate_size'", "moe_intermediate_size", source
            )
        shared = 0
        n_shared = _opt_int(c, ("n_shared_experts",), source, zero_ok=True) or 0
        shared_width = _opt_int(c, ("shared_expert_intermediate_size",), source, zero_ok=True)
        if n_shared:
            shared = n_shared * F_exp
        elif shared_width:
            shared = shared_width
        elif mt in ("llama4", "llama4_text"):
            shared = F_exp  # Llama 4: one shared expert of intermediate_size in each MoE layer
        moe = FFN(
            d_ff=F_exp,
            gated=arch.gated,
            n_experts=E,
            top_k=k,
            d_shared=shared,
            bias=mlp_bias,
            router_bias=(mt == "gpt_oss"),
        )
        moe_flags = _moe_layers(c, L, source)

    # --- group layers by (window, ffn) ---
    windows = _layer_windows(c, mt, L, source)
    counts: dict[tuple[Span, bool], int] = {}
    for w, is_moe in zip(windows, moe_flags, strict=True):
        counts[(w, is_moe)] = counts.get((w, is_moe), 0) + 1
    groups = tuple(
        LayerGroup(
            count=n,
            ffn=(moe if is_moe and moe is not None else dense),
            window=None if w is None else w[1],
            chunked=w is not None and w[0] == "chunked",
        )
        for (w, is_moe), n in counts.items()
    )

    tie_default = _bool(cfg, "tie_word_embeddings", arch.tie_default, source)
    tie = _bool(c, "tie_word_embeddings", tie_default, source)
    vision, vision_note = _vision_params(cfg, D, source)
    norm_size = D * (2 if arch.norm_bias else 1)
    parallel_field = "parallel_attn" if "parallel_attn" in c else "use_parallel_residual"
    parallel = _bool(c, parallel_field, arch.parallel, source)
    if mt == "falcon" and _bool(c, "new_decoder_architecture", False, source):
        norms = 2  # separate ln_attn and ln_mlp
    elif parallel and mt == "falcon":
        norms = 1
    else:
        norms = arch.norms_per_layer
    return ModelSpec(
        name=name or str(c.get("_name_or_path") or mt),  # display only
        model_type=mt,
        vocab_size=V,
        d_model=D,
        attention=attn,
        groups=groups,
        tie_embeddings=tie,
        parallel_block=parallel,
        max_context=_opt_int(c, _MAX_POS, source),
        norm_params_per_layer=norms * norm_size,
        final_norm_params=norm_size,
        lm_head_bias=arch.lm_head_bias,
        params_vision=vision,
        source=source,
        notes=(vision_note,) if vision_note else (),
    )
