"""Read a Hugging Face `config.json` into a ModelSpec: plain JSON, no model code.

Field names differ between architectures (GPT-J says `n_embd`, Falcon `num_kv_heads`), so each
quantity is looked up through a short list of aliases, by the typed readers of `fields`. Facts
a config does not state (is the MLP gated? are attention and FFN side by side? which layers
slide?) come from the architecture table (`architectures.ARCH`, keyed by `model_type`), never
from guessing at ratios; the part functions below (attention, feed-forward, layer groups, norms)
read the table's fields and hold no per-architecture branches. A config whose `model_type` is
not in the table is read as a Llama-style decoder (`GENERIC`: gated MLP, RMSNorm, no biases,
untied embeddings unless the config says otherwise) from the same fields, with one
`UnknownModelTypeWarning` naming the fields it relied on; only a config that lacks a field the
roofline needs is refused, naming that field. The rules, in order, are in docs/design.md
("Reading config.json").
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from llm_roofline._core.errors import ConfigError, UnknownModelTypeWarning, closest_ids
from llm_roofline.model.hf.architectures import ARCH, GENERIC, GENERIC_TEXT, KNOWN_MODEL_TYPES, Arch
from llm_roofline.model.hf.fields import Noted, flag, int_field, opt_int
from llm_roofline.model.hf.layers import groups, layer_windows, moe_layers
from llm_roofline.model.hf.vision import vision_params
from llm_roofline.model.spec import FFN, Attention, ModelSpec

__all__ = ["KNOWN_MODEL_TYPES", "load_config", "spec_from_config", "unknown_type_note"]


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


def _arch(mt: str, src: str) -> Arch | None:
    """The table's entry for `model_type`, None for a type it does not know; a config without
    one is refused (it is not a Hugging Face config)."""
    if not mt:
        raise ConfigError(
            f"missing field 'model_type' (one of: {', '.join(KNOWN_MODEL_TYPES)})",
            "model_type",
            src,
        )
    return ARCH.get(mt)


def _unknown_type_note(mt: str, used: list[str]) -> str:
    """The one line of the warning for an unknown `model_type`: what it was read as, and from
    which fields."""
    near = closest_ids(mt, KNOWN_MODEL_TYPES)
    hint = f"; closest: {', '.join(near)}" if near else ""
    return (
        f"model_type {mt!r} is not one of the {len(KNOWN_MODEL_TYPES)} known{hint}: read as "
        f"{GENERIC_TEXT} from {', '.join(used)}; check the parameter count against the model card"
    )


def _new_layout(c: Mapping[str, Any], arch: Arch, src: str) -> bool:
    """Whether the config selects the architecture's newer layout (False: none exists)."""
    return bool(arch.new_layout_flag) and flag(c, arch.new_layout_flag, False, src)


# ---- attention ------------------------------------------------------------------------------


def _attention(c: Mapping[str, Any], arch: Arch, D: int, H: int, src: str) -> Attention:
    """DeepSeek's multi-head latent attention when the config has a kv_lora_rank, else MHA,
    GQA or MQA by the number of KV heads."""
    kv_lora = opt_int(c, ("kv_lora_rank",), src)
    return _mla(c, H, kv_lora, src) if kv_lora else _heads_attention(c, arch, D, H, src)


def _mla(c: Mapping[str, Any], H: int, kv_lora: int, src: str) -> Attention:
    d_nope = int_field(c, ("qk_nope_head_dim",), "MLA no-rope head dim", src)
    d_rope = int_field(c, ("qk_rope_head_dim",), "MLA rope head dim", src)
    d_v = int_field(c, ("v_head_dim",), "MLA value head dim", src)
    topk, idx_heads, idx_dim = _sparse(c, src)
    return Attention(
        kind="mla",
        n_heads=H,
        n_kv_heads=H,
        head_dim=d_nope + d_rope,
        v_head_dim=d_v,
        q_lora_rank=opt_int(c, ("q_lora_rank",), src) or 0,
        kv_lora_rank=kv_lora,
        rope_head_dim=d_rope,
        sparse_topk=topk,
        indexer_heads=idx_heads,
        indexer_head_dim=idx_dim,
    )


def _sparse(cfg: Mapping[str, Any], src: str) -> tuple[int, int, int]:
    """DeepSeek sparse attention: `index_topk` tokens selected by an indexer of
    `index_n_heads` × `index_head_dim` (absent: dense attention, all zeros)."""
    topk = opt_int(cfg, ("index_topk",), src)
    if topk is None:
        return 0, 0, 0
    heads = int_field(cfg, ("index_n_heads",), "indexer heads", src)
    return topk, heads, int_field(cfg, ("index_head_dim",), "indexer head dim", src)


def _kv_heads(c: Mapping[str, Any], arch: Arch, H: int, src: str) -> int:
    """K: the config's KV heads; absent (or before a newer layout counts them), 1 for a
    multi-query model and H otherwise."""
    K = opt_int(c, _KV_HEADS, src)
    multi_query = flag(c, "multi_query", False, src)
    if arch.new_layout_flag and not _new_layout(c, arch, src):
        K = None  # Falcon 7B: a num_kv_heads the config may carry is not read
    if K is None:
        K = 1 if multi_query else H
    if H % K:
        raise ConfigError(
            f"num_attention_heads ({H}) is not a multiple of num_key_value_heads ({K})",
            "num_key_value_heads",
            src,
        )
    return K


def _heads_attention(c: Mapping[str, Any], arch: Arch, D: int, H: int, src: str) -> Attention:
    K = _kv_heads(c, arch, H, src)
    d_h = opt_int(c, ("head_dim", "kv_channels"), src)
    if d_h is None:  # only when the config does not state it
        if D % H:
            raise ConfigError(
                f"head_dim missing and hidden size {D} is not divisible by {H} heads",
                "head_dim",
                src,
            )
        d_h = D // H
    # one "bias" flag (Falcon) or "attention_bias" (Llama family) covers q, k, v and o
    bias_field = "attention_bias" if "attention_bias" in c else "bias"
    return Attention(
        kind="mha" if K == H else ("mqa" if K == 1 else "gqa"),
        n_heads=H,
        n_kv_heads=K,
        head_dim=d_h,
        v_head_dim=d_h,
        qkv_bias=flag(c, bias_field, arch.qkv_bias, src),
        o_bias=flag(c, bias_field, arch.o_bias, src),
        qk_norm=arch.qk_norm,
        sinks=arch.sinks,
    )


# ---- feed-forward ---------------------------------------------------------------------------


def _ffns(c: Mapping[str, Any], arch: Arch, D: int, src: str) -> tuple[FFN, FFN | None]:
    """The dense MLP, and the mixture of experts when the config has more than one expert."""
    E = opt_int(c, _N_EXPERTS, src, zero_ok=True)  # 0 or absent: a dense model
    bias = flag(c, "mlp_bias" if "mlp_bias" in c else "bias", arch.mlp_bias, src)
    bias = bias or arch.mlp_bias_always
    F_dense = opt_int(c, ("intermediate_size_mlp", *_FF), src)
    if F_dense is None:
        if arch.gated:
            raise ConfigError(
                f"missing field 'intermediate_size' (d_ff; also accepted: {', '.join(_FF[1:])})",
                "intermediate_size",
                src,
            )
        F_dense = 4 * D  # GPT-J (n_inner null) and Falcon: the classic 4·D MLP
    dense = FFN(d_ff=F_dense, gated=arch.gated, bias=bias)
    return dense, (_moe(c, arch, E, bias, src) if E and E > 1 else None)


def _moe(c: Mapping[str, Any], arch: Arch, E: int, bias: bool, src: str) -> FFN:
    k = int_field(c, _TOP_K, "experts per token", src)
    if k > E:
        raise ConfigError(
            f"num_experts_per_tok ({k}) exceeds the number of experts ({E})",
            "num_experts_per_tok",
            src,
        )
    F_exp = opt_int(c, ("moe_intermediate_size", "intermediate_size"), src)
    if F_exp is None:
        raise ConfigError("missing field 'moe_intermediate_size'", "moe_intermediate_size", src)
    return FFN(
        d_ff=F_exp,
        gated=arch.gated,
        n_experts=E,
        top_k=k,
        d_shared=_shared_width(c, arch, F_exp, src),
        bias=bias,
        router_bias=arch.router_bias,
    )


def _shared_width(c: Mapping[str, Any], arch: Arch, F_exp: int, src: str) -> int:
    """Total width of the shared experts every token passes through (0: none)."""
    n_shared = opt_int(c, ("n_shared_experts",), src, zero_ok=True) or 0  # DeepSeek
    width = opt_int(c, ("shared_expert_intermediate_size",), src, zero_ok=True)  # Qwen MoE
    if n_shared:
        return n_shared * F_exp
    if width:
        return width
    return F_exp if arch.implicit_shared_expert else 0


# ---- the whole model ------------------------------------------------------------------------


def _norms_per_layer(c: Mapping[str, Any], arch: Arch, parallel: bool, src: str) -> int:
    """Norm weight vectors per layer (Falcon's older parallel block shares one)."""
    new_layout = _new_layout(c, arch, src)
    if parallel and arch.old_parallel_norms and not new_layout:
        return arch.old_parallel_norms
    return arch.norms_per_layer


# quantization_config.quant_method -> the data type id of the released weights (dtypes.toml)
_QUANT_METHODS = {"fp8": "fp8", "mxfp4": "mxfp4"}


def _released_dtype(cfg: Mapping[str, Any]) -> str | None:
    """The released checkpoint's weight format, from config.json's quantization_config (its
    quant_method), where it is one of _QUANT_METHODS; None otherwise."""
    q = cfg.get("quantization_config")
    method = q.get("quant_method") if isinstance(q, Mapping) else None
    return _QUANT_METHODS.get(method) if isinstance(method, str) else None


def spec_from_config(
    cfg: Mapping[str, Any], name: str | None = None, source: str = "config.json"
) -> ModelSpec:
    """Build a ModelSpec from a parsed config.json dict. A config of an unknown `model_type`
    is read as a generic decoder and warns (UnknownModelTypeWarning, `unknown_type_note`'s
    line).

    >>> spec = spec_from_config({"model_type": "llama", "hidden_size": 4096, ...})  # doctest: +SKIP
    """
    spec, note = _read(cfg, name, source)
    if note is not None:
        warnings.warn(UnknownModelTypeWarning(note), stacklevel=2)
    return spec


def unknown_type_note(
    cfg: Mapping[str, Any], name: str | None = None, source: str = "config.json"
) -> str | None:
    """The line `spec_from_config` warns with for a config of an unknown `model_type` (what it
    was read as, from which fields), None for a known type: a pure call, no warning raised and
    no global warning state touched (a server reads it per request). A config that cannot be
    read raises ConfigError as `spec_from_config` does."""
    return _read(cfg, name, source)[1]


def _read(cfg: Mapping[str, Any], name: str | None, source: str) -> tuple[ModelSpec, str | None]:
    """The spec, and the unknown-type note (None: a known type)."""
    if not isinstance(cfg, Mapping):
        raise ConfigError("a config must be a JSON object", source=source)
    text, mt = _text_part(cfg)
    known = _arch(mt, source)
    arch = known or GENERIC
    c: Mapping[str, Any] = text if known else Noted(text)  # an unknown type notes its reads
    D = int_field(c, _HIDDEN, "d_model", source)
    L = int_field(c, _LAYERS, "number of layers", source)
    if L > 100_000:  # per-layer lists are built below; the deepest real models have ~200
        raise ConfigError(f"{L:,} layers is more than any model has (> 100,000)", "layers", source)
    H = int_field(c, _HEADS, "query heads", source)
    V = int_field(c, _VOCAB, "vocabulary size", source)
    attn = _attention(c, arch, D, H, source)
    dense, moe = _ffns(c, arch, D, source)
    moe_flags = moe_layers(c, L, source) if moe is not None else [False] * L
    layers = groups(layer_windows(c, arch.windows, L, source), moe_flags, dense, moe)

    tie_default = flag(cfg, "tie_word_embeddings", arch.tie_default, source)
    tie = flag(c, "tie_word_embeddings", tie_default, source)
    vision, vision_note = vision_params(cfg, D, source)
    norm_size = D * (2 if arch.norm_bias else 1)
    parallel_field = "parallel_attn" if "parallel_attn" in c else "use_parallel_residual"
    parallel = flag(c, parallel_field, arch.parallel, source)
    norms = _norms_per_layer(c, arch, parallel, source)
    spec = ModelSpec(
        name=name or str(text.get("_name_or_path") or mt),  # display only
        model_type=mt,
        vocab_size=V,
        d_model=D,
        attention=attn,
        groups=layers,
        tie_embeddings=tie,
        parallel_block=parallel,
        max_context=opt_int(c, _MAX_POS, source),
        norm_params_per_layer=norms * norm_size,
        final_norm_params=norm_size,
        lm_head_bias=arch.lm_head_bias,
        params_vision=vision,
        released_dtype=_released_dtype(cfg),
        source=source,
        notes=(vision_note,) if vision_note else (),
    )
    return spec, _unknown_type_note(mt, c.used) if isinstance(c, Noted) else None
