"""The KV cache (`kv_cache.py`): keys a token reads and a sequence holds in each kind of layer,
and elements per sequence, on plans small enough to count by hand. (A chunked layer through a
whole model, `ModelSpec.kv_elements_per_sequence`, is checked in
tests/engine/test_hand_checked.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline._core.backend import ARRAY, SCALAR
from llm_roofline.model.kv_cache import (
    KVCache,
    keys_held,
    keys_read,
    kv_cache_plan,
    kv_per_sequence,
    kv_read,
    kv_stored,
    spans,
)

from ..conftest import llama_like

# Llama 4 style: 3 chunked layers (W = 8) and 1 global; 512 elements a token a layer
LLAMA4ISH = KVCache(spans=((3, 8.0, True), (1, None, False)), per_layer=512, latent=512,
                    indexer=0, topk=0.0)  # fmt: skip


def test_keys_read_and_held_in_each_kind_of_layer() -> None:
    # context 21, W = 8: global 21; sliding min(21, 8) = 8; chunked 21 mod 8 = 5 read, but
    # room for 8 held (its chunk fills as the sequence goes on)
    assert keys_read(SCALAR, None, False, 21.0) == 21.0
    assert keys_read(SCALAR, 8.0, False, 21.0) == 8.0
    assert keys_read(SCALAR, 8.0, True, 21.0) == 5.0
    assert keys_held(SCALAR, 8.0, 21.0) == 8.0 and keys_held(SCALAR, None, 21.0) == 21.0
    # short of one window: all of it either way (min(5, 8) = 5 mod 8 = 5)
    assert keys_read(SCALAR, 8.0, True, 5.0) == keys_held(SCALAR, 8.0, 5.0) == 5.0


def test_per_sequence_read_and_stored_by_hand() -> None:
    # context 21: read 512 · (3 · 5 + 1 · 21) = 18,432; held 512 · (3 · 8 + 21) = 23,040
    assert kv_per_sequence(SCALAR, LLAMA4ISH, 21.0) == 18_432
    assert kv_read(SCALAR, LLAMA4ISH, 21.0) == 18_432
    assert kv_stored(SCALAR, LLAMA4ISH, 21.0) == 23_040
    # context 24: a new chunk starts empty, read 512 · 24 = 12,288; memory never falls
    assert kv_per_sequence(SCALAR, LLAMA4ISH, 24.0) == 12_288
    S = np.arange(1.0, 100.0)
    assert np.all(np.diff(kv_stored(ARRAY, LLAMA4ISH, S)) >= 0)
    assert np.all(kv_stored(ARRAY, LLAMA4ISH, S) >= kv_per_sequence(ARRAY, LLAMA4ISH, S))


def test_sparse_attention_reads_the_latent_of_top_k_tokens() -> None:
    # DSA-like: 2 layers, latent 576 and indexer key 128 a token, top 2,048 tokens.
    # At 10,000 tokens: 2 · (576 · 2,048 + 128 · 10,000) = 4,919,296 read;
    # held: 2 · (576 + 128) · 10,000 = 14,080,000
    dsa = KVCache(spans=((2, None, False),), per_layer=704, latent=576, indexer=128, topk=2048.0)
    assert kv_read(SCALAR, dsa, 10_000.0) == 4_919_296
    assert kv_stored(SCALAR, dsa, 10_000.0) == 14_080_000
    # below top k every token is read: 2 · 704 · 1,000
    assert kv_read(SCALAR, dsa, 1_000.0) == 1_408_000


def test_the_plan_of_a_model_and_the_two_backends(small_model: lr.ModelSpec) -> None:
    # the small Llama: 4 global layers, K 2 heads of 128, keys and values: 512 a layer
    plan = kv_cache_plan(small_model)
    assert plan.spans == ((4, None, False),)
    assert (plan.per_layer, plan.latent, plan.indexer, plan.topk) == (512, 512, 0, 0.0)
    mistral = lr.spec_from_config(llama_like(model_type="mistral", sliding_window=64))
    assert spans(mistral) == ((4, 64.0, False),)
    S = np.array([1.0, 7.0, 8.0, 21.0, 24.0, 1000.0])
    for f in (kv_per_sequence, kv_stored, kv_read):
        arr = f(ARRAY, LLAMA4ISH, S)
        assert list(arr) == pytest.approx([f(SCALAR, LLAMA4ISH, float(s)) for s in S])
