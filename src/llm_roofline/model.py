"""ModelSpec: the architecture facts the roofline needs, and the counts derived from them.

Parameters are counted three ways (STYLE.md):

- stored: every parameter held in memory (embeddings, all experts, LM head if untied);
- read per decode step: what one step must fetch from memory; for MoE only the experts the
  step's tokens touch, and of an untied input embedding only the rows gathered;
- multiplied per token: the parameters in matrix multiplies one token goes through (the
  attention projections, the active experts, the LM head), which sets the FLOPs, 2 per parameter.

Notation (DESIGN.md): L layers, D d_model, F d_ff (per expert), H query heads, K KV heads, d_h
head dim, E routed experts, k experts per token, S context, B batch, T tokens per pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "FFN",
    "Attention",
    "LayerGroup",
    "ModelSpec",
    "causal_pairs",
    "experts_read_per_chip",
    "experts_touched",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Attention:
    """One layer's attention. kind is mha, gqa, mqa or mla (DeepSeek's multi-head latent)."""

    kind: str
    n_heads: int  # H
    n_kv_heads: int  # K (for MLA: H; the cache holds a shared latent instead)
    head_dim: int  # d_h of queries and keys (MLA: nope + rope part)
    v_head_dim: int  # d_h of values
    q_lora_rank: int = 0  # MLA: low-rank query projection (0 = full projection)
    kv_lora_rank: int = 0  # MLA: latent width of the KV cache
    rope_head_dim: int = 0  # MLA: decoupled rotary part of each key, cached once per token
    qkv_bias: bool = False
    o_bias: bool = False
    qk_norm: bool = False  # Qwen3, Gemma 3: an RMSNorm of d_h on q and k
    sinks: bool = False  # gpt-oss: one learned logit per head
    # sparse attention (DeepSeek's DSA): a small indexer scores every cached token, the main
    # attention reads only the `sparse_topk` it selects
    sparse_topk: int = 0
    indexer_heads: int = 0
    indexer_head_dim: int = 0

    def params(self, D: int) -> int:
        """Parameters of one attention layer (all multiplied per token)."""
        H, K, dq, dv = self.n_heads, self.n_kv_heads, self.head_dim, self.v_head_dim
        if self.kind == "mla":
            r_q, r_kv, d_rope = self.q_lora_rank, self.kv_lora_rank, self.rope_head_dim
            # low rank: down-projection, its RMSNorm, up-projection; else one projection
            q = D * r_q + r_q + r_q * H * dq if r_q else D * H * dq
            kv_a = D * (r_kv + d_rope) + r_kv  # to the latent and the shared rope key; its norm
            kv_b = r_kv * H * (dq - d_rope + dv)  # latent to per-head no-rope keys and values
            o = H * dv * D
            return q + kv_a + kv_b + o
        n = D * H * dq  # q
        n += D * K * dq + D * K * dv  # k and v: K heads each (GQA/MQA share them)
        n += H * dv * D  # o
        if self.qkv_bias:
            n += H * dq + K * dq + K * dv
        if self.o_bias:
            n += D
        if self.qk_norm:
            n += 2 * dq
        if self.sinks:
            n += H
        return n

    def kv_elements_per_token(self) -> int:
        """Elements cached per token per layer: K keys and K values (MLA: latent + rope key)."""
        if self.kind == "mla":
            return self.kv_lora_rank + self.rope_head_dim
        return self.n_kv_heads * (self.head_dim + self.v_head_dim)

    def decode_flops_per_context_token(self) -> int:
        """Attention FLOPs of one query token against one cached token (one layer).

        Standard: 2·H·d_h for QK^T plus 2·H·d_h for the weighted sum of V = 4·H·d_h.
        MLA in decode runs with the up-projections absorbed, so scores and sums are taken in the
        latent space: 2·H·(r_kv + d_rope) + 2·H·r_kv.
        """
        H = self.n_heads
        if self.kind == "mla":
            return 2 * H * (self.kv_lora_rank + self.rope_head_dim) + 2 * H * self.kv_lora_rank
        return 2 * H * self.head_dim + 2 * H * self.v_head_dim

    def indexer_flops_per_context_token(self) -> int:
        """The sparse-attention indexer's score of one cached token: 2 · heads · head dim."""
        return 2 * self.indexer_heads * self.indexer_head_dim

    def prefill_flops_per_context_token(self) -> int:
        """Prefill with the latent expanded per token (MLA without absorption): 2·H·(d_qk + d_v)."""
        return 2 * self.n_heads * (self.head_dim + self.v_head_dim)

    def latent_expand_flops_per_token(self) -> int:
        """MLA: FLOPs to up-project one cached latent to per-head keys and values (0 for
        other kinds): 2 · r_kv · H · (d_nope + d_v)."""
        if self.kind != "mla":
            return 0
        d_nope = self.head_dim - self.rope_head_dim
        return 2 * self.kv_lora_rank * self.n_heads * (d_nope + self.v_head_dim)


@dataclass(frozen=True)
class FFN:
    """One layer's feed-forward block: dense (n_experts == 0) or mixture of experts."""

    d_ff: int  # F: intermediate size (per routed expert for MoE)
    gated: bool  # SwiGLU/GeGLU: gate, up, down = 3 matrices; plain MLP: up, down = 2
    n_experts: int = 0  # E routed experts
    top_k: int = 0  # k experts per token
    d_shared: int = 0  # total intermediate size of always-on shared experts
    bias: bool = False  # biases on the MLP matrices (GPT-J, gpt-oss)
    router_bias: bool = False

    @property
    def is_moe(self) -> bool:
        return self.n_experts > 0

    def _mlp_params(self, D: int, F: int) -> int:
        mats = 3 if self.gated else 2
        n = mats * D * F
        if self.bias:
            n += (mats - 1) * F + D
        return n

    def expert_params(self, D: int) -> int:
        """One routed expert (or the dense MLP when not MoE)."""
        return self._mlp_params(D, self.d_ff)

    def always_params(self, D: int) -> int:
        """Parameters every token uses: the dense MLP, or the router and shared experts."""
        if not self.is_moe:
            return self._mlp_params(D, self.d_ff)
        n = D * self.n_experts + (self.n_experts if self.router_bias else 0)
        if self.d_shared:
            n += self._mlp_params(D, self.d_shared)
        return n

    def params_stored(self, D: int) -> int:
        return self.always_params(D) + self.n_experts * self.expert_params(D)

    def params_multiplied(self, D: int) -> int:
        return self.always_params(D) + self.top_k * self.expert_params(D)


@dataclass(frozen=True)
class LayerGroup:
    """`count` identical layers: same attention span and feed-forward block.

    Spans: global (window None); a sliding window (each token sees the last W tokens); or
    chunked attention (Llama 4: tokens see only earlier tokens of their own chunk of W).
    """

    count: int
    ffn: FFN
    window: int | None = None
    chunked: bool = False

    def cached_keys(self, context: FloatArray) -> FloatArray:
        """Keys a decode token reads from a cache of `context` tokens in one of these layers:
        all S (global), the last min(S, W) (sliding), or the S mod W of its chunk (chunked)."""
        if self.window is None:
            return context
        w = float(self.window)
        if self.chunked:
            return np.asarray(np.mod(context, w), dtype=np.float64)
        return np.asarray(np.minimum(context, w), dtype=np.float64)

    def held_keys(self, context: FloatArray) -> FloatArray:
        """Keys of a sequence at `context` tokens the cache must make room for in one of these
        layers: all S (global) or min(S, W) (sliding window and chunked: a sequence that goes
        on fills its chunk, so memory holds a whole chunk even just after a new one starts)."""
        if self.window is None:
            return context
        return np.asarray(np.minimum(context, float(self.window)), dtype=np.float64)


def experts_touched(E: int, k: int, tokens: ArrayLike) -> FloatArray:
    """Expected distinct experts hit by `tokens` tokens each picking k of E uniformly.

    E·(1 − (1 − k/E)^tokens): Epoch AI, "Inference economics of language models" (2025).
    """
    if not (E >= 1 and 0 <= k <= E):
        from .errors import InputError

        raise InputError(
            f"experts_touched needs 1 <= E and 0 <= k <= E, got E={E}, k={k}", field="experts"
        )
    t = np.asarray(tokens, dtype=np.float64)
    return np.asarray(E * (1.0 - (1.0 - k / E) ** t), dtype=np.float64)


def experts_read_per_chip(E: int, k: int, tokens: ArrayLike, ep: int = 1) -> FloatArray:
    """Experts of one MoE layer the busiest of `ep` expert-parallel chips reads for `tokens`
    tokens (uniform routing).

    With ep = 1 the expected number touched, `experts_touched`. With ep > 1 a chip reads whole
    experts: at least ceil(touched / ep) (some chip holds that many of the touched experts),
    and at least the touched share of the ceil(E / ep) experts the fullest chip holds.
    """
    touched = experts_touched(E, k, tokens)
    if ep <= 1:
        return touched
    fullest = touched * (-(-E // ep)) / E
    whole = np.ceil(touched / ep - 1e-9)  # 1e-9: 8.000000001 touched experts are 8
    return np.asarray(np.maximum(whole, fullest), dtype=np.float64)


def _sum_to(n: FloatArray) -> FloatArray:
    return n * (n + 1.0) / 2.0


def _chunked_prefix(n: FloatArray, w: float) -> FloatArray:
    """Σ_{j=1..n} ((j−1) mod W + 1): q full chunks of W(W+1)/2 pairs and a partial one."""
    q = np.floor_divide(n, w)
    r = n - q * w
    return np.asarray(q * w * (w + 1.0) / 2.0 + _sum_to(r), dtype=np.float64)


def causal_pairs(
    T: ArrayLike, S0: ArrayLike, window: int | None, chunked: bool = False
) -> FloatArray:
    """Query–key pairs when T new tokens follow S0 cached ones under causal attention.

    Token j (1-based, j = S0+1 .. S0+T) sees j keys (global), min(j, W) (sliding window), or
    ((j−1) mod W) + 1 (chunked: its own chunk up to itself). Closed forms:
    global T·S0 + T(T+1)/2; sliding [sum_to(min(b, W)) − sum_to(min(a−1, W))] +
    W·(max(b, W) − max(a−1, W)) with a = S0+1, b = S0+T; chunked F(b) − F(S0), F from
    `_chunked_prefix`.
    """
    t = np.asarray(T, dtype=np.float64)
    s0 = np.asarray(S0, dtype=np.float64)
    b = s0 + t
    if window is None:
        return np.asarray(_sum_to(b) - _sum_to(s0), dtype=np.float64)
    w = float(window)
    if chunked:
        return np.asarray(_chunked_prefix(b, w) - _chunked_prefix(s0, w), dtype=np.float64)
    lo = np.minimum(s0, w)
    hi = np.minimum(b, w)
    return np.asarray(
        _sum_to(hi) - _sum_to(lo) + w * (np.maximum(b, w) - np.maximum(s0, w)), dtype=np.float64
    )


@dataclass(frozen=True)
class ModelSpec:
    """A transformer decoder, as far as speed and memory are concerned."""

    name: str
    model_type: str
    vocab_size: int  # V
    d_model: int  # D
    attention: Attention
    groups: tuple[LayerGroup, ...]
    tie_embeddings: bool
    parallel_block: bool = False  # attention and FFN side by side (GPT-J, PaLM, Falcon)
    max_context: int | None = None
    norm_params_per_layer: int = 0
    final_norm_params: int = 0
    lm_head_bias: bool = False
    params_vision: int = 0  # a multimodal checkpoint's vision tower: stored, not read in decode
    source: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    # ---- shape ---------------------------------------------------------------------------

    @property
    def n_layers(self) -> int:
        """L."""
        return sum(g.count for g in self.groups)

    @property
    def is_moe(self) -> bool:
        return any(g.ffn.is_moe for g in self.groups)

    # ---- parameters, three ways ----------------------------------------------------------

    @property
    def embedding_params(self) -> int:
        return self.vocab_size * self.d_model

    @property
    def lm_head_params(self) -> int:
        """The output projection, multiplied per token whether or not it is tied."""
        return self.vocab_size * self.d_model + (self.vocab_size if self.lm_head_bias else 0)

    def _layer_params(self, group: LayerGroup, ffn_params: int) -> int:
        return group.count * (
            self.attention.params(self.d_model) + ffn_params + self.norm_params_per_layer
        )

    @property
    def params_stored(self) -> int:
        """Every parameter held in memory (a multimodal model's vision tower included)."""
        return self.params_text + self.params_vision

    @property
    def params_text(self) -> int:
        """The language model's parameters: what the lecture's N_total counts."""
        D = self.d_model
        n = self.embedding_params + self.final_norm_params
        if not self.tie_embeddings:
            n += self.lm_head_params
        for g in self.groups:
            n += self._layer_params(g, g.ffn.params_stored(D))
        return n

    @property
    def params_multiplied(self) -> int:
        """N_active: parameters in the matmuls of one token (the embedding gather excluded)."""
        D = self.d_model
        n = self.lm_head_params
        for g in self.groups:
            n += g.count * (self.attention.params(D) + g.ffn.params_multiplied(D))
        return n

    @property
    def params_routed(self) -> int:
        """Parameters in routed experts (what a step may skip)."""
        return sum(
            g.count * g.ffn.n_experts * g.ffn.expert_params(self.d_model) for g in self.groups
        )

    @property
    def params_read_all_experts(self) -> int:
        """What a pass reads when it touches every expert: `params_text` without an untied input
        embedding (a pass gathers only its tokens' rows of it; a tied one is read whole as the
        LM head). The N_total of B*."""
        n = self.params_text
        if not self.tie_embeddings:
            n -= self.embedding_params
        return n

    def params_read(self, tokens: ArrayLike) -> FloatArray:
        """Parameters one forward pass over `tokens` tokens must fetch from memory.

        All dense weights; of each MoE layer's routed experts only the expected number touched
        (uniform routing); of an untied input embedding only the rows gathered (a tied one is
        read whole anyway as the LM head); no vision tower (it runs once per image, in prefill).
        """
        return self.params_read_per_chip(tokens)

    def params_read_per_chip(
        self,
        tokens: ArrayLike,
        group_tokens: ArrayLike | None = None,
        *,
        tp: int = 1,
        pp: int = 1,
        ep: int = 1,
        expert_tp: int = 1,
    ) -> FloatArray:
        """Parameters the busiest chip of a split reads in one pass of a pipeline stage.

        `tokens`: the stage's tokens (they route to the experts); `group_tokens`: the busiest
        data-parallel group's (they gather its embedding rows; default `tokens`). Non-expert
        weights are split over pp · tp; each MoE layer's experts over ep chips, each expert's
        matrices over `expert_tp` (`experts_read_per_chip`). With every degree 1 this is
        `params_read`: the one copy of the rule.
        """
        t = np.asarray(tokens, dtype=np.float64)
        tg = t if group_tokens is None else np.asarray(group_tokens, dtype=np.float64)
        D = self.d_model
        dense = np.full_like(tg, float(self.params_text - self.params_routed))
        if not self.tie_embeddings:  # the group gathers its own tokens' embedding rows
            dense = dense - self.embedding_params + np.minimum(tg, self.vocab_size) * D
        n: FloatArray = dense / (pp * tp)
        for g in self.groups:
            f = g.ffn
            if f.is_moe:
                experts = experts_read_per_chip(f.n_experts, f.top_k, t, ep)
                n = n + g.count / pp * experts * f.expert_params(D) / expert_tp
        return np.asarray(n, dtype=np.float64)

    # ---- KV cache and attention ----------------------------------------------------------

    @property
    def kv_elements_per_token(self) -> int:
        """KV elements one token adds to the cache, all layers, ignoring windows (with the
        sparse-attention indexer's key, when there is one)."""
        a = self.attention
        return self.n_layers * (a.kv_elements_per_token() + a.indexer_head_dim)

    def kv_bytes_per_token(self, kv_bytes: float) -> float:
        """Bytes one token adds to the cache (all layers, before any window evicts it)."""
        return self.kv_elements_per_token * kv_bytes

    def kv_elements_per_sequence(self, context: ArrayLike) -> FloatArray:
        """KV elements a sequence of `context` tokens holds: sliding layers keep the last W,
        chunked layers the S mod W tokens of the current chunk."""
        s = np.asarray(context, dtype=np.float64)
        per_layer = self.attention.kv_elements_per_token() + self.attention.indexer_head_dim
        total = np.zeros_like(s)
        for g in self.groups:
            total = total + g.count * per_layer * g.cached_keys(s)
        return np.asarray(total, dtype=np.float64)

    def kv_elements_stored(self, context: ArrayLike) -> FloatArray:
        """KV elements memory must hold for a sequence at `context` tokens: as
        `kv_elements_per_sequence`, except that a chunked layer keeps room for min(S, W) tokens
        (its chunk fills as the sequence goes on), so memory never falls as S grows."""
        s = np.asarray(context, dtype=np.float64)
        per_layer = self.attention.kv_elements_per_token() + self.attention.indexer_head_dim
        total = np.zeros_like(s)
        for g in self.groups:
            total = total + g.count * per_layer * g.held_keys(s)
        return np.asarray(total, dtype=np.float64)

    def kv_elements_read(self, context: ArrayLike) -> FloatArray:
        """KV elements one decode token reads: every cached key of its span, except that
        sparse attention reads the latent of only the `sparse_topk` tokens the indexer picks
        (and the indexer's small key of every token)."""
        a = self.attention
        if not a.sparse_topk:
            return self.kv_elements_per_sequence(context)
        s = np.asarray(context, dtype=np.float64)
        total = np.zeros_like(s)
        for g in self.groups:
            keys = g.cached_keys(s)
            total = total + g.count * (
                a.kv_elements_per_token() * np.minimum(keys, a.sparse_topk)
                + a.indexer_head_dim * keys
            )
        return np.asarray(total, dtype=np.float64)

    def decode_attention_flops(self, context: ArrayLike) -> FloatArray:
        """Attention FLOPs of one decode token against `context` cached tokens (all layers)."""
        s = np.asarray(context, dtype=np.float64)
        a = self.attention
        per = a.decode_flops_per_context_token()
        total = np.zeros_like(s)
        for g in self.groups:
            keys = g.cached_keys(s)
            if a.sparse_topk:  # the indexer scores every key; attention uses the top k
                total = total + g.count * (
                    per * np.minimum(keys, a.sparse_topk)
                    + a.indexer_flops_per_context_token() * keys
                )
            else:
                total = total + g.count * per * keys
        return np.asarray(total, dtype=np.float64)

    def prefill_attention_flops(self, T: ArrayLike, S0: ArrayLike = 0) -> FloatArray:
        """Causal attention FLOPs of T new tokens after S0 cached ones, one sequence.

        MLA can run either way, and the lower bound takes the cheaper per layer: expand the
        cached latents once and attend per head (2·H·(d_qk + d_v) per pair), or stay in the
        latent space as decode does (absorbed form, no expansion).
        """
        a = self.attention
        per = a.prefill_flops_per_context_token()
        s0 = np.asarray(S0, dtype=np.float64)
        total: FloatArray = np.zeros(np.broadcast(np.asarray(T), s0).shape)
        for g in self.groups:
            pairs = causal_pairs(T, S0, g.window, g.chunked)
            if a.sparse_topk:  # each query attends to at most top-k keys, the indexer to all
                selected = causal_pairs(T, S0, min(g.window or a.sparse_topk, a.sparse_topk))
                total = total + g.count * a.indexer_flops_per_context_token() * pairs
                pairs = selected
            flops = per * pairs
            if a.kind == "mla":
                expanded = flops + a.latent_expand_flops_per_token() * g.cached_keys(s0)
                absorbed = a.decode_flops_per_context_token() * pairs
                flops = np.minimum(expanded, absorbed)
            total = total + g.count * flops
        return total

    # ---- activations ---------------------------------------------------------------------

    @property
    def max_d_ff_active(self) -> int:
        """Widest intermediate a token passes through in one layer (for activation memory)."""
        widest = 0
        for g in self.groups:
            f = g.ffn
            width = f.d_ff * max(f.top_k, 1) + f.d_shared
            widest = max(widest, width)
        return widest

    def summary(self) -> dict[str, float | int | str | bool]:
        """Key figures for listings."""
        return {
            "name": self.name,
            "model_type": self.model_type,
            "layers": self.n_layers,
            "d_model": self.d_model,
            "attention": self.attention.kind,
            "heads": self.attention.n_heads,
            "kv_heads": self.attention.n_kv_heads,
            "head_dim": self.attention.head_dim,
            "moe": self.is_moe,
            "params_stored": self.params_stored,
            "params_multiplied": self.params_multiplied,
            "kv_elements_per_token": self.kv_elements_per_token,
        }
