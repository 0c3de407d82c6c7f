"""Memory per chip (`memory.py`): activations, the even spread and the fullest chip of a
split, the busiest data-parallel group, and the refusals. (`max_batch` against `fits` for the
small Llama is checked in tests/engine/test_hand_checked.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline._core.errors import InputError
from llm_roofline.engine.memory import (
    activation_bytes,
    busiest_group,
    held_bytes,
    max_batch,
    memory_use,
    weights_per_chip,
)
from llm_roofline.engine.parallel import Parallelism

from ..conftest import llama_like, make_chip


def _small_moe() -> lr.ModelSpec:
    # the small Llama with 8 experts of F = 4,096, top 2, in each of its 4 layers
    return lr.spec_from_config(
        llama_like(model_type="mixtral", num_local_experts=8, num_experts_per_tok=2), name="moe"
    )


def test_activation_bytes_by_hand(small_model: lr.ModelSpec) -> None:
    # per token (3·D + 2·F) · 2 bytes = (3,072 + 8,192) · 2 = 22,528; 4 sequences × 100 tokens
    # = 9,011,200, plus the fp32 logits of each sequence's last position 4 · 1,000 · 4 = 16,000
    assert float(activation_bytes(small_model, 4, 100)) == 9_027_200


def test_even_spread_over_chips(small_model: lr.ModelSpec) -> None:
    # weights 62,874,624 · 2 bytes over 2 chips; KV of 3 sequences at 1,000 tokens:
    # 3 · 1,000 · 2,048 · 2 bytes / 2 = 6,144,000
    w, kv = held_bytes(small_model, 2.0, 2.0, 1000, seqs=3, chips=2)
    assert w == 62_874_624 and float(kv) == 6_144_000
    m = memory_use(small_model, make_chip(), 2, batch=3, context_len=1000)
    assert float(m.weights) == 62_874_624 and float(m.kv) == 6_144_000
    # each chip holds half of one pass's activations: 3 · 22,528 + 3 · 4,000 = 79,584 / 2
    assert float(m.activations) == 39_792


def test_busiest_group_holds_whole_sequences() -> None:
    # 64 sequences over 5 groups: ceil(12.8) = 13; over one group the batch as given
    assert float(busiest_group(np.asarray(64.0), 5)) == 13
    assert float(busiest_group(np.asarray(12.8), 1)) == 12.8


def test_the_fullest_chip_holds_ceil_experts() -> None:
    spec = _small_moe()
    # non-expert weights: 4 layers · (attention 2,621,440 + norms 2,048 + router 8 · 1,024)
    # + embedding 1,024,000 + LM head 1,024,000 + final norm 1,024 = 12,575,744; each expert
    # 3 · 1,024 · 4,096 = 12,582,912 (stored in all 415,228,928)
    assert spec.params_stored == 12_575_744 + 4 * 8 * 12_582_912
    # 6 chips, tp 2, ep 3: non-expert weights over tp 2; ceil(8 / 3) = 3 experts a layer, each
    # split over expert_tp = 6 / 3 = 2 chips: 6,287,872 + 4 · 3 · 12,582,912 / 2 = 81,785,344
    par = Parallelism(6, tp=2, ep=3)
    assert weights_per_chip(spec, par) == 81_785_344
    # ep 4 over 4 chips (tp 1): 2 experts a layer: 12,575,744 + 4 · 2 · 12,582,912
    assert weights_per_chip(spec, Parallelism(4, tp=1, ep=4)) == 113_239_040


def test_fits_agrees_with_max_batch_on_a_split() -> None:
    spec, chip = _small_moe(), make_chip(mem=0.5e9)
    par = Parallelism(4, tp=1, ep=4)  # dp 4: the batch is 4 times one group's
    b = int(max_batch(spec, chip, 4, context_len=2000, parallel=par))
    assert b > 0 and b % 4 == 0
    fits = memory_use(spec, chip, 4, batch=[b, b + 1], context_len=2000, parallel=par).fits
    assert list(fits) == [True, False]


def test_refusals(small_model: lr.ModelSpec) -> None:
    with pytest.raises(InputError, match=r"^reserve_fraction must be in \[0, 1\), got 1\.0$") as e:
        memory_use(small_model, make_chip(), reserve_fraction=1.0)
    assert e.value.field == "reserve_fraction"
    with pytest.raises(InputError, match=r"^the parallel split is for 2 chips, the system has 4$"):
        memory_use(small_model, make_chip(), 4, parallel=Parallelism(2, tp=2))
    # a reserve keeps that share of the chip free: 80 GB · 0.9
    assert memory_use(small_model, make_chip(), reserve_fraction=0.1).capacity == 72e9
