"""Which layer is which in a config.json: attention spans, MoE layers, and the layer groups.

A layer attends globally, within a sliding window of W tokens, or within chunks of C tokens
(Llama 4), and holds a dense MLP or a mixture of experts. `layer_windows` follows the config's
`layer_types` when present, else the architecture's `WindowRule` (a field of each entry of
`architectures.ARCH`); `groups` folds the layers into runs that share a span and a block. The rules,
in order, are in docs/design.md ("Reading config.json").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llm_roofline._core.errors import ConfigError
from llm_roofline.model.hf.fields import flag, int_list, opt_int
from llm_roofline.model.spec import FFN, LayerGroup

__all__ = ["Span", "WindowRule", "groups", "layer_windows", "moe_layers"]

# A layer's attention span: None (global), ("sliding", W) or ("chunked", C).
Span = tuple[str, int] | None


@dataclass(frozen=True)
class WindowRule:
    """Which layers of an architecture slide or attend in chunks, when the config has no
    `layer_types`."""

    # every n-th layer attends globally, the others slide (0: every layer slides, e.g. Mistral
    # 7B v0.1; Gemma 2: 2, alternating); `global_every_field` names the config field that
    # overrides n (Gemma 3: sliding_window_pattern, default 6)
    global_every: int = 0
    global_every_field: str = ""
    # Llama 4: every n-th layer has no RoPE and attends globally (no_rope_layer_interval or the
    # no_rope_layers flags override), the RoPE layers attend within chunks of
    # attention_chunk_size; sliding_window is then not read (0: no chunked attention)
    nope_every: int = 0


def moe_layers(cfg: Mapping[str, Any], L: int, src: str) -> list[bool]:
    """Which layers hold a mixture of experts (the rest a dense MLP)."""
    listed = int_list(cfg, "moe_layers", src)  # Llama 4 may list them
    if listed is not None:
        return [i in set(listed) for i in range(L)]
    step = opt_int(cfg, ("interleave_moe_layer_step",), src)  # Llama 4: every n-th layer
    if step is not None:
        return [(i + 1) % step == 0 for i in range(L)]
    first_dense = opt_int(cfg, ("first_k_dense_replace",), src, zero_ok=True) or 0  # DeepSeek
    freq = opt_int(cfg, ("moe_layer_freq",), src) or 1
    sparse_step = opt_int(cfg, ("decoder_sparse_step",), src) or 1  # Qwen MoE
    mlp_only = set(int_list(cfg, "mlp_only_layers", src) or [])
    return [
        i >= first_dense and i % freq == 0 and (i + 1) % sparse_step == 0 and i not in mlp_only
        for i in range(L)
    ]


def layer_windows(cfg: Mapping[str, Any], rule: WindowRule, L: int, src: str) -> list[Span]:
    """Attention span of each layer: global, a sliding window of W, or chunks of C tokens."""
    window = opt_int(cfg, ("sliding_window",), src)
    if cfg.get("layer_types") is not None:
        return _listed(cfg, window, L, src)
    if rule.nope_every:
        return _chunked(cfg, rule.nope_every, L, src)
    if window is None or not flag(cfg, "use_sliding_window", True, src):
        return [None] * L
    n = rule.global_every
    if n and rule.global_every_field:
        n = opt_int(cfg, (rule.global_every_field,), src) or n
    if not n:
        return [("sliding", window)] * L  # e.g. Mistral 7B v0.1: every layer slides
    return [None if (i + 1) % n == 0 else ("sliding", window) for i in range(L)]


def _listed(cfg: Mapping[str, Any], window: int | None, L: int, src: str) -> list[Span]:
    """The spans `layer_types` lists, one per layer."""
    types = cfg["layer_types"]
    if not isinstance(types, list) or len(types) != L:
        n = len(types) if isinstance(types, list) else "no list"
        raise ConfigError(f"layer_types has {n} entries for {L} layers", "layer_types", src)
    chunk = opt_int(cfg, ("attention_chunk_size",), src)
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
            raise ConfigError(f"layer type {t!r} in layer_types needs {need}", "layer_types", src)
    return out


def _chunked(cfg: Mapping[str, Any], nope_every: int, L: int, src: str) -> list[Span]:
    """Chunked local attention on RoPE layers; the NoPE layers attend globally.
    no_rope_layers[i] = 1 means layer i uses RoPE (so is chunked)."""
    chunk = opt_int(cfg, ("attention_chunk_size",), src)
    if chunk is None:
        return [None] * L
    flags = int_list(cfg, "no_rope_layers", src)
    if flags and len(flags) == L:
        return [("chunked", chunk) if f else None for f in flags]
    step = opt_int(cfg, ("no_rope_layer_interval",), src) or nope_every
    return [None if (i + 1) % step == 0 else ("chunked", chunk) for i in range(L)]


def groups(
    windows: list[Span], moe_flags: list[bool], dense: FFN, moe: FFN | None
) -> tuple[LayerGroup, ...]:
    """The layers counted by (span, feed-forward block), in order of first appearance; a
    group's layers need not be adjacent (the roofline sums over layers, never walks them)."""
    counts: dict[tuple[Span, bool], int] = {}
    for w, is_moe in zip(windows, moe_flags, strict=True):
        counts[(w, is_moe)] = counts.get((w, is_moe), 0) + 1
    return tuple(
        LayerGroup(
            count=n,
            ffn=(moe if is_moe and moe is not None else dense),
            window=None if w is None else w[1],
            chunked=w is not None and w[0] == "chunked",
        )
        for (w, is_moe), n in counts.items()
    )
