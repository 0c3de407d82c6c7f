"""The KV cache: the keys a token reads in each layer, and the elements a sequence reads and holds.

Elements per token per layer are exact per attention kind (`Attention.kv_elements_per_token`:
K keys and K values for MHA/GQA/MQA, the latent and the shared rope key for MLA), plus the
sparse-attention indexer's small key when there is one. Spans (`LayerGroup`): a decode token
reads all S cached keys (global), the last min(S, W) (sliding window), or the S mod W of its
own chunk (chunked, Llama 4); memory holds room for min(S, W) in a sliding or chunked layer.
Sparse attention (DeepSeek's DSA) reads the latent of only the `sparse_topk` tokens its
indexer picks, and the indexer's key of every token.

`KVCache` holds what depends on the model alone; the functions below evaluate it for a
context S, on Python floats or arrays (`backend.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from llm_roofline._core.backend import Backend, Num

if TYPE_CHECKING:
    from llm_roofline.model.spec import ModelSpec

__all__ = [
    "KVCache",
    "Span",
    "keys_held",
    "keys_read",
    "kv_cache_plan",
    "kv_per_sequence",
    "kv_read",
    "kv_stored",
    "spans",
]

Span = tuple[int, float | None, bool]  # (layers, window W or None, chunked)


def spans(spec: ModelSpec) -> tuple[Span, ...]:
    """Each layer group's (layers, window, chunked)."""
    return tuple(
        (g.count, None if g.window is None else float(g.window), g.chunked) for g in spec.groups
    )


def keys_read(xp: Backend, window: float | None, chunked: bool, context: Num) -> Num:
    """Keys a decode token reads from a cache of `context` tokens in one layer: all S (global),
    the last min(S, W) (sliding), or the S mod W of its chunk (chunked)."""
    if window is None:
        return context
    if chunked:
        return xp.mod(context, window)
    return xp.minimum(context, window)


def keys_held(xp: Backend, window: float | None, context: Num) -> Num:
    """Keys of a sequence at `context` tokens the cache must make room for in one layer: all S
    (global) or min(S, W) (sliding window and chunked: a sequence that goes on fills its chunk,
    so memory holds a whole chunk even just after a new one starts)."""
    if window is None:
        return context
    return xp.minimum(context, window)


@dataclass(frozen=True)
class KVCache:
    """`spans`; `per_layer`: elements one token adds in one layer (indexer key included);
    `latent`: of them, what attention reads (K keys and values, or MLA's latent and rope key);
    `indexer`: the indexer key's elements; `topk`: tokens sparse attention reads (0: all)."""

    spans: tuple[Span, ...]
    per_layer: int
    latent: int
    indexer: int
    topk: float


def kv_cache_plan(spec: ModelSpec) -> KVCache:
    a = spec.attention
    latent = a.kv_elements_per_token()
    return KVCache(
        spans(spec), latent + a.indexer_head_dim, latent, a.indexer_head_dim, float(a.sparse_topk)
    )


def kv_per_sequence(xp: Backend, c: KVCache, context: Num) -> Num:
    """KV elements a sequence of `context` tokens holds: sliding layers keep the last W,
    chunked layers the S mod W tokens of the current chunk."""
    total = xp.zeros_like(context)
    for count, window, chunked in c.spans:
        total = total + count * c.per_layer * keys_read(xp, window, chunked, context)
    return total


def kv_stored(xp: Backend, c: KVCache, context: Num) -> Num:
    """KV elements memory must hold for a sequence at `context` tokens: as `kv_per_sequence`,
    except that a chunked layer keeps room for min(S, W) tokens (its chunk fills as the
    sequence goes on), so memory never falls as S grows."""
    total = xp.zeros_like(context)
    for count, window, _ in c.spans:
        total = total + count * c.per_layer * keys_held(xp, window, context)
    return total


def kv_read(xp: Backend, c: KVCache, context: Num) -> Num:
    """KV elements one decode token reads: every cached key of its span, except that sparse
    attention reads the latent of only the `topk` tokens the indexer picks (and the indexer's
    small key of every token)."""
    if not c.topk:
        return kv_per_sequence(xp, c, context)
    total = xp.zeros_like(context)
    for count, window, chunked in c.spans:
        keys = keys_read(xp, window, chunked, context)
        total = total + count * (c.latent * xp.minimum(keys, c.topk) + c.indexer * keys)
    return total
