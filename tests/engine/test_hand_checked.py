"""Small cases with the arithmetic written out by hand (or counted by brute force)."""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline import spec_from_config
from llm_roofline.model.spec import causal_pairs

from ..conftest import llama_like, make_chip


def test_small_llama_parameter_counts(small_model: lr.ModelSpec) -> None:
    # D = 1024, L = 4, H = 8, K = 2, d_h = 1024/8 = 128, F = 4096, V = 1000, untied.
    # attention: q 1024·1024 + k 1024·256 + v 1024·256 + o 1024·1024 = 2,621,440
    # MLP (SwiGLU, 3 matrices): 3 · 1024 · 4096 = 12,582,912
    # norms: 2 · 1024 = 2,048 per layer;   per layer = 15,206,400;   × 4 = 60,825,600
    # embeddings 1000 · 1024 = 1,024,000; LM head 1,024,000; final norm 1,024
    assert small_model.params_stored == 60_825_600 + 1_024_000 + 1_024_000 + 1_024
    # multiplied per token: 4 · (2,621,440 + 12,582,912) + LM head 1,024,000 = 61,841,408
    assert small_model.params_multiplied == 61_841_408
    # KV per token: 2 (k, v) · 2 heads · 128 · 4 layers = 2,048 elements
    assert small_model.kv_elements_per_token == 2_048
    assert small_model.attention.kind == "gqa"


def test_small_llama_decode_step(small_model: lr.ModelSpec) -> None:
    chip = make_chip()  # 1e15 FLOP/s, 1e12 B/s, $0.001 per second
    s = lr.decode_step(small_model, chip, batch=10, context_len=1000)
    # t_matmul = 2 · 61,841,408 · 10 / 1e15 = 1.23682816e-6 s
    assert s.t_matmul[()] == pytest.approx(1.23682816e-6)
    # t_attn = 10 · 4 layers · 4 · H 8 · d_h 128 · 1000 / 1e15 = 1.6384e-7 s
    assert s.t_attn[()] == pytest.approx(1.6384e-7)
    # weights read: stored minus the untied embedding table plus 10 gathered rows:
    # (62,874,624 − 1,024,000 + 10,240) · 2 bytes / 1e12 = 1.23721728e-4 s
    assert s.t_weights[()] == pytest.approx((62_874_624 - 1_024_000 + 10_240) * 2 / 1e12)
    # KV: 10 sequences · 1000 tokens · 2,048 elements · 2 bytes / 1e12 = 4.096e-5 s
    assert s.t_kv[()] == pytest.approx(4.096e-5)
    # full overlap: max(compute, memory) = memory, max(1.40e-6, 1.65e-4)
    assert list(np.atleast_1d(s.bound_names)) == ["memory"]
    # t_step = 1.23721728e-4 + 4.096e-5 = 1.64681728e-4 s for 10 tokens
    assert s.t_step[()] == pytest.approx(1.64681728e-4)
    # cost: $0.001/s · 1.64681728e-4 s / 10 tokens = $1.64681728e-8 a token
    assert lr.usd_per_token(s)[()] == pytest.approx(1.64681728e-8)
    # energy: 1,000 W · 1.64681728e-4 s / 10 tokens = 1.64681728e-2 J a token
    assert lr.joules_per_token(s)[()] == pytest.approx(1.64681728e-2)


def test_overlap_modes_order_and_values(small_model: lr.ModelSpec) -> None:
    # 1e13 FLOP/s against 1e12 B/s, 10 FLOP per byte: at batch 64 the matmuls do 64 FLOP per
    # weight byte (compute-bound) and attention 4 FLOP per KV byte (memory-bound), so the
    # three modes give three different steps
    chip = make_chip(flops=1e13)
    kw = {"batch": 64, "context_len": 2000}
    full = lr.decode_step(small_model, chip, overlap="full", **kw)
    per_op = lr.decode_step(small_model, chip, overlap="per-op", **kw)
    none = lr.decode_step(small_model, chip, overlap="none", **kw)
    # matmul a = 2 · 61,841,408 · 64 / 1e13 = 7.915700224e-4 s
    # attention b = 64 · 4 layers · 4,096 FLOP · 2,000 keys / 1e13 = 2.097152e-4 s
    # weights c = (62,874,624 − 1,024,000 + 64 · 1,024 rows) · 2 / 1e12 = 1.2383232e-4 s
    # KV d = 64 · 2,000 · 2,048 · 2 / 1e12 = 5.24288e-4 s
    a, b, c, d = 7.915700224e-4, 2.097152e-4, 1.2383232e-4, 5.24288e-4
    for step in (full, per_op, none):
        assert (step.t_matmul, step.t_attn, step.t_weights, step.t_kv) == pytest.approx(
            (a, b, c, d)
        )
    # full: max(a + b, c + d) = max(1.0012852224e-3, 6.4812032e-4)
    assert full.t_step == pytest.approx(1.0012852224e-3)
    # per-op: max(a, c) + max(b, d) = 7.915700224e-4 + 5.24288e-4
    assert per_op.t_step == pytest.approx(1.3158580224e-3)
    # none: a + b + c + d
    assert none.t_step == pytest.approx(1.6494055424e-3)


def test_prefill_small(small_model: lr.ModelSpec) -> None:
    chip = make_chip()
    p = lr.prefill(small_model, chip, batch=2, prompt_len=100)
    # matmul: the layers (61,841,408 − LM head 1,024,000 = 60,817,408) for all 200 tokens,
    # the LM head for the 2 last tokens: 2 · (60,817,408 · 200 + 1,024,000 · 2) / 1e15
    assert p.t_matmul[()] == pytest.approx(2 * (60_817_408 * 200 + 1_024_000 * 2) / 1e15)
    # causal attention: token j sees j keys; Σ_{j=1..100} j = 5,050 pairs per layer;
    # 4 · H · d_h = 4,096 FLOP per pair; 4 layers; 2 sequences
    assert p.t_attn[()] == pytest.approx(2 * 4 * 4_096 * 5_050 / 1e15)
    # KV written: 2 · 100 tokens · 2,048 elements · 2 bytes
    assert p.t_kv[()] == pytest.approx(2 * 100 * 2_048 * 2 / 1e12)


def test_causal_pairs_with_window() -> None:
    # 10 tokens after 0, window 4: keys seen 1,2,3,4,4,4,4,4,4,4 = 34
    assert causal_pairs(10, 0, 4) == pytest.approx(34)
    # 3 tokens after 5 cached, window 4: 4+4+4 = 12
    assert causal_pairs(3, 5, 4) == pytest.approx(12)
    # no window: 3 tokens after 5: 6+7+8 = 21
    assert causal_pairs(3, 5, None) == pytest.approx(21)
    # 3 tokens after 2, window 4: 3+4+4 = 11
    assert causal_pairs(3, 2, 4) == pytest.approx(11)


def test_memory_and_max_batch(small_model: lr.ModelSpec) -> None:
    chip = make_chip(mem=1e9)  # 1 GB
    # weights: 62,874,624 · 2 bytes = 125,749,248 bytes
    # per sequence at 1000 tokens: 1000 · 2,048 · 2 = 4,096,000 bytes KV
    # activations per sequence (one token): (3·1024 + 2·4096) · 2 + 1000 · 4 = 26,528 bytes
    free = 1e9 - 125_749_248
    expect = int(free // (4_096_000 + 26_528))
    assert int(lr.max_batch(small_model, chip, context_len=1000)) == expect
    m = lr.memory_use(small_model, chip, batch=expect, context_len=1000)
    assert bool(m.fits)
    m2 = lr.memory_use(small_model, chip, batch=expect + 1, context_len=1000)
    assert not bool(m2.fits)
    assert m2.headroom < 0


def test_sliding_window_caps_kv_and_attention() -> None:
    # Mistral-7B-v0.1 style: every layer slides with W = 4096
    spec = spec_from_config(llama_like(sliding_window=64, model_type="mistral"))
    full = spec_from_config(llama_like())
    assert spec.kv_elements_per_sequence(32) == full.kv_elements_per_sequence(32)
    assert spec.kv_elements_per_sequence(1000) == full.kv_elements_per_sequence(64)
    assert spec.decode_attention_flops(1000) == full.decode_attention_flops(64)


def test_vectorised_grid_matches_pointwise(small_model: lr.ModelSpec) -> None:
    chip = make_chip()
    B = np.array([1, 8, 64])[:, None]
    S = np.array([10, 1000, 30000])[None, :]
    grid = lr.decode_step(small_model, chip, batch=B, context_len=S)
    assert grid.t_step.shape == (3, 3)
    for i, b in enumerate([1, 8, 64]):
        for j, s in enumerate([10, 1000, 30000]):
            one = lr.decode_step(small_model, chip, batch=b, context_len=s)
            assert grid.t_step[i, j] == pytest.approx(one.t_step[()])


# ---- attention over windows and chunks, counted by brute force -------------------------------


def test_chunked_attention_reads_only_the_current_chunk() -> None:
    # Llama 4 style: chunks of 8 tokens on RoPE layers, every 4th layer (NoPE) global.
    spec = spec_from_config(llama_like(model_type="llama4_text", attention_chunk_size=8))
    chunked = [g for g in spec.groups if g.chunked]
    assert sum(g.count for g in chunked) == 3 and all(g.window == 8 for g in chunked)
    per_layer = 2 * 2 * 128  # K 2 heads of 128, keys and values
    # at context 21 a chunked layer holds the 21 mod 8 = 5 tokens of its chunk; global holds 21
    assert float(spec.kv_elements_per_sequence(21)) == per_layer * (3 * 5 + 1 * 21)
    # a new chunk starts empty: context 24 -> 0 tokens in chunked layers
    assert float(spec.kv_elements_per_sequence(24)) == per_layer * (3 * 0 + 1 * 24)


def test_causal_pairs_chunked_by_brute_force() -> None:
    for w in (1, 3, 8):
        for s0 in (0, 2, 7, 8, 13):
            for t in (1, 5, 9, 20):
                brute = sum(((j - 1) % w) + 1 for j in range(s0 + 1, s0 + t + 1))
                assert causal_pairs(t, s0, w, chunked=True) == brute


def test_causal_pairs_sliding_by_brute_force() -> None:
    for w in (1, 3, 8):
        for s0 in (0, 2, 7, 13):
            for t in (1, 5, 20):
                brute = sum(min(j, w) for j in range(s0 + 1, s0 + t + 1))
                assert causal_pairs(t, s0, w) == brute


def test_mla_prefill_of_one_token_costs_what_a_decode_step_costs() -> None:
    # one new token after 4096 cached: the cheapest form is the decode (absorbed) one
    p = lr.prefill("deepseek-v3", "h100-sxm", batch=1, prompt_len=1, cached_len=4096)
    d = lr.decode_step("deepseek-v3", "h100-sxm", batch=1, context_len=4096)
    assert float(p.t_attn) == pytest.approx(float(d.t_attn), rel=0.001)
