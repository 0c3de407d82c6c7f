"""Attention FLOPs (`attention_flops.py`): decode against a cache, causal prefill, sparse
attention's indexer and top k, and MLA's cheaper of two forms, on plans built by hand. (Causal
pairs by brute force over windows and chunks are in tests/engine/test_hand_checked.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline._core.backend import ARRAY, SCALAR
from llm_roofline.model.attention_flops import (
    AttentionFlops,
    attention_flops_plan,
    causal_pair_count,
    decode_attention,
    prefill_attention,
)

from ..conftest import llama_like


def _plan(spans: tuple[tuple[int, float | None, bool], ...], **kw: int | bool) -> AttentionFlops:
    base: dict[str, int | bool] = dict(
        decode=10, prefill=10, indexer=0, topk=0, expand=0, mla=False
    )
    base.update(kw)
    return AttentionFlops(spans, **base)  # type: ignore[arg-type]


def test_the_plan_of_the_small_llama(small_model: lr.ModelSpec) -> None:
    # 4 · H · d_h = 4 · 8 · 128 = 4,096 FLOPs per query-key pair a layer (QK^T and PV)
    f = attention_flops_plan(small_model)
    assert (f.decode, f.prefill, f.spans, f.mla, f.topk) == (
        4096,
        4096,
        ((4, None, False),),
        False,
        0,
    )
    # one decode token at 1,000 cached: 4 layers · 4,096 · 1,000
    assert decode_attention(SCALAR, f, 1000.0) == 16_384_000


def test_a_prefill_is_the_sum_of_its_tokens_decode_steps() -> None:
    # causal: the j-th token sees j keys (global) or min(j, W) (sliding), as a decode token
    # at context j reads: so T tokens after S0 cost Σ_{j=S0+1..S0+T} decode(j)
    spec_sets = (
        lr.spec_from_config(llama_like()),
        lr.spec_from_config(llama_like(model_type="mistral", sliding_window=16)),
    )
    for spec in spec_sets:
        f = attention_flops_plan(spec)
        for S0, T in ((0, 40), (10, 5), (30, 25)):
            by_steps = sum(decode_attention(SCALAR, f, float(j)) for j in range(S0 + 1, S0 + T + 1))
            assert prefill_attention(SCALAR, f, float(T), float(S0)) == by_steps


def test_sparse_attention_counts_the_indexer_on_every_key() -> None:
    # 2 layers, 10 FLOPs a pair, indexer 1 a key, top 100: at 1,000 keys
    # 2 · (10 · 100 + 1 · 1,000) = 4,000; at 50 keys 2 · (10 · 50 + 50) = 1,100
    f = _plan(((2, None, False),), indexer=1, topk=100)
    assert decode_attention(SCALAR, f, 1000.0) == 4_000
    assert decode_attention(SCALAR, f, 50.0) == 1_100
    # a prefill of 200 tokens: indexer on all 200·201/2 = 20,100 pairs; attention on
    # min(j, 100) keys: 5,050 + 100 · 100 = 15,050 pairs; 2 · (20,100 + 10 · 15,050) = 341,200
    assert prefill_attention(SCALAR, f, 200.0, 0.0) == 341_200


def test_mla_prefill_takes_the_cheaper_form() -> None:
    # expanded: 10 a pair plus 1,000 to up-project each cached latent; absorbed: 20 a pair
    f = _plan(((1, None, False),), decode=20, expand=1000, mla=True)
    # 1 token after 100 cached: 101 pairs; expanded 1,010 + 100,000, absorbed 2,020 -> absorbed
    assert prefill_attention(SCALAR, f, 1.0, 100.0) == 2_020
    # 1,000 tokens from empty: 500,500 pairs; expanded 5,005,000, absorbed 10,010,000
    assert prefill_attention(SCALAR, f, 1000.0, 0.0) == 5_005_000


def test_both_backends_agree_on_a_grid() -> None:
    f = _plan(((3, 8.0, True), (2, 16.0, False), (1, None, False)), indexer=1, topk=12)
    T, S0 = np.array([[1.0], [9.0], [40.0]]), np.array([[0.0, 7.0, 8.0, 100.0]])
    grid = prefill_attention(ARRAY, f, T, S0)
    assert grid.shape == (3, 4)
    for i, t in enumerate(T[:, 0]):
        for j, s in enumerate(S0[0]):
            assert grid[i, j] == pytest.approx(prefill_attention(SCALAR, f, float(t), float(s)))
            pairs = causal_pair_count(SCALAR, float(t), float(s), 8.0, True)
            assert pairs == float(causal_pair_count(ARRAY, np.float64(t), np.float64(s), 8.0, True))
