"""ModelSpec: the architecture facts the roofline needs, and the parameter counts.

Parameters are counted three ways (docs/design.md, "The model of a transformer"):

- stored: every parameter held in memory (embeddings, all experts, LM head if untied);
- read per pass: what one pass must fetch from memory; for MoE only the experts the pass's
  tokens touch, and of an untied input embedding only the rows gathered (`weights_read.py`);
- multiplied per token: the parameters in matrix multiplies one token goes through (the
  attention projections, the active experts, the LM head), which sets the FLOPs, 2 per parameter.

What a context costs is counted beside: KV elements read and held in `kv_cache.py`, attention
FLOPs in `attention_flops.py`; the methods here are their array forms.

Notation (docs/design.md): L layers, D d_model, F d_ff (per expert), H query heads, K KV heads,
d_h head dim, E routed experts, k experts per token, S context, B batch, T tokens per pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.backend import ARRAY
from llm_roofline.model.attention_flops import (
    attention_flops_plan,
    causal_pairs,
    decode_attention,
)
from llm_roofline.model.kv_cache import (
    kv_cache_plan,
    kv_per_sequence,
    kv_read,
    kv_stored,
)
from llm_roofline.model.weights_read import (
    experts_read_per_chip,
    experts_touched,
    weights_read,
    weights_read_plan,
)

__all__ = [
    "FFN",
    "Attention",
    "LayerGroup",
    "ModelSpec",
    "causal_pairs",
    "experts_read_per_chip",
    "experts_touched",
]

AttentionKind = Literal["mha", "gqa", "mqa", "mla"]


@dataclass(frozen=True)
class Attention:
    """One layer's attention. kind is mha, gqa, mqa or mla (DeepSeek's multi-head latent)."""

    kind: AttentionKind
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
    # the released checkpoint's weight format where its config.json's quantization_config
    # names one this catalog has (quant_method fp8 or mxfp4); None: the config names none
    released_dtype: str | None = None
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
        """Parameters one forward pass over `tokens` tokens must fetch from memory: all dense
        weights, the expected experts touched, the gathered rows of an untied input embedding
        (`weights_read.py`; the one-chip case of `params_read_per_chip`)."""
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
        matrices over `expert_tp` (`weights_read.py`, the one copy of the rule).
        """
        t = np.asarray(tokens, dtype=np.float64)
        tg = t if group_tokens is None else np.asarray(group_tokens, dtype=np.float64)
        w = weights_read_plan(self, tp=tp, pp=pp, ep=ep, expert_tp=expert_tp)
        return np.asarray(weights_read(ARRAY, w, t, tg), dtype=np.float64)

    # ---- KV cache and attention (`kv_cache.py`, `attention_flops.py`) ---------------------

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
        return np.asarray(kv_per_sequence(ARRAY, kv_cache_plan(self), s), dtype=np.float64)

    def kv_elements_stored(self, context: ArrayLike) -> FloatArray:
        """KV elements memory must hold for a sequence at `context` tokens: a chunked layer
        keeps room for min(S, W) tokens, so memory never falls as S grows."""
        s = np.asarray(context, dtype=np.float64)
        return np.asarray(kv_stored(ARRAY, kv_cache_plan(self), s), dtype=np.float64)

    def kv_elements_read(self, context: ArrayLike) -> FloatArray:
        """KV elements one decode token reads: every cached key of its span, except that
        sparse attention reads the latent of only the `sparse_topk` tokens the indexer picks
        (and the indexer's small key of every token)."""
        s = np.asarray(context, dtype=np.float64)
        return np.asarray(kv_read(ARRAY, kv_cache_plan(self), s), dtype=np.float64)

    def decode_attention_flops(self, context: ArrayLike) -> FloatArray:
        """Attention FLOPs of one decode token against `context` cached tokens (all layers)."""
        s = np.asarray(context, dtype=np.float64)
        f = attention_flops_plan(self)
        return np.asarray(decode_attention(ARRAY, f, s), dtype=np.float64)

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
