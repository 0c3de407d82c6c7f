"""Attention FLOPs: a decode token against its cache, and a causal prefill.

Per query token per cached token, one layer (`Attention.decode_flops_per_context_token`):
4·H·d_h (QK^T and AV); MLA in decode with the up-projections absorbed, in the latent space.
Prefill sums the keys each new token j sees (`causal_pairs`, closed forms); MLA in prefill
takes per layer the cheaper of the expanded form (first up-projecting every cached latent)
and the absorbed decode form. Sparse attention (DSA): the indexer scores every key, attention
uses the top k. Spans as in `kv_cache.py`.

`AttentionFlops` holds what depends on the model alone; the functions below evaluate it for a
context, on Python floats or arrays (`backend.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.backend import ARRAY, Backend, Num
from llm_roofline.model.kv_cache import Span, keys_read, spans

if TYPE_CHECKING:
    from llm_roofline.model.spec import ModelSpec

__all__ = [
    "AttentionFlops",
    "attention_flops_plan",
    "causal_pair_count",
    "causal_pairs",
    "decode_attention",
    "prefill_attention",
]


def _sum_to(n: Num) -> Num:
    return n * (n + 1.0) / 2.0


def _chunked_prefix(xp: Backend, n: Num, w: float) -> Num:
    """Σ_{j=1..n} ((j−1) mod W + 1): q full chunks of W(W+1)/2 pairs and a partial one."""
    q = xp.floor_divide(n, w)
    r = n - q * w
    return q * w * (w + 1.0) / 2.0 + _sum_to(r)


def causal_pair_count(
    xp: Backend, T: Num, S0: Num, window: float | None, chunked: bool = False
) -> Num:
    """Query–key pairs when T new tokens follow S0 cached ones under causal attention.

    Token j (1-based, j = S0+1 .. S0+T) sees j keys (global), min(j, W) (sliding window), or
    ((j−1) mod W) + 1 (chunked: its own chunk up to itself). Closed forms:
    global T·S0 + T(T+1)/2; sliding [sum_to(min(b, W)) − sum_to(min(a−1, W))] +
    W·(max(b, W) − max(a−1, W)) with a = S0+1, b = S0+T; chunked F(b) − F(S0), F from
    `_chunked_prefix`.
    """
    b = S0 + T
    if window is None:
        return _sum_to(b) - _sum_to(S0)
    w = window
    if chunked:
        return _chunked_prefix(xp, b, w) - _chunked_prefix(xp, S0, w)
    lo = xp.minimum(S0, w)
    hi = xp.minimum(b, w)
    return _sum_to(hi) - _sum_to(lo) + w * (xp.maximum(b, w) - xp.maximum(S0, w))


def causal_pairs(
    T: ArrayLike, S0: ArrayLike, window: int | None, chunked: bool = False
) -> FloatArray:
    """`causal_pair_count` on arrays (broadcast), for a window of `window` tokens or None."""
    t = np.asarray(T, dtype=np.float64)
    s0 = np.asarray(S0, dtype=np.float64)
    w = None if window is None else float(window)
    return np.asarray(causal_pair_count(ARRAY, t, s0, w, chunked), dtype=np.float64)


@dataclass(frozen=True)
class AttentionFlops:
    """`spans`; FLOPs per query–key pair in one layer: `decode` (absorbed for MLA), `prefill`
    (expanded); `indexer`: the sparse indexer's per key; `topk`: keys sparse attention uses (0:
    all); `expand`: MLA's up-projection of one cached latent (0 for other kinds)."""

    spans: tuple[Span, ...]
    decode: int
    prefill: int
    indexer: int
    topk: int
    expand: int
    mla: bool


def attention_flops_plan(spec: ModelSpec) -> AttentionFlops:
    a = spec.attention
    return AttentionFlops(
        spans(spec),
        a.decode_flops_per_context_token(),
        a.prefill_flops_per_context_token(),
        a.indexer_flops_per_context_token(),
        a.sparse_topk,
        a.latent_expand_flops_per_token(),
        a.kind == "mla",
    )


def decode_attention(xp: Backend, f: AttentionFlops, context: Num) -> Num:
    """Attention FLOPs of one decode token against `context` cached tokens (all layers)."""
    total = xp.zeros_like(context)
    for count, window, chunked in f.spans:
        keys = keys_read(xp, window, chunked, context)
        if f.topk:  # the indexer scores every key; attention uses the top k
            total = total + count * (f.decode * xp.minimum(keys, f.topk) + f.indexer * keys)
        else:
            total = total + count * f.decode * keys
    return total


def prefill_attention(xp: Backend, f: AttentionFlops, T: Num, S0: Num) -> Num:
    """Causal attention FLOPs of T new tokens after S0 cached ones, one sequence.

    MLA can run either way, and the lower bound takes the cheaper per layer: expand the
    cached latents once and attend per head (2·H·(d_qk + d_v) per pair), or stay in the
    latent space as decode does (absorbed form, no expansion).
    """
    total = xp.zeros_like(T + S0)
    for count, window, chunked in f.spans:
        pairs = causal_pair_count(xp, T, S0, window, chunked)
        if f.topk:  # each query attends to at most top-k keys, the indexer to all
            sparse_w = float(min(window or f.topk, f.topk))
            selected = causal_pair_count(xp, T, S0, sparse_w)
            total = total + count * f.indexer * pairs
            pairs = selected
        flops = f.prefill * pairs
        if f.mla:
            expanded = flops + f.expand * keys_read(xp, window, chunked, S0)
            absorbed = f.decode * pairs
            flops = xp.minimum(expanded, absorbed)
        total = total + count * flops
    return total
