"""The weights a pass reads (`weights_read.py`): experts touched under uniform routing, whole
experts per expert-parallel chip, and the dense part with the gathered embedding rows. (The
Mixtral fractions of Epoch AI's paper are checked in tests/model/test_hf_config.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline._core.backend import ARRAY, SCALAR
from llm_roofline._core.errors import InputError
from llm_roofline.model.weights_read import (
    WeightsRead,
    experts_read_per_chip,
    experts_touched,
    weights_read,
    weights_read_plan,
)


def test_experts_touched_by_hand_and_its_bounds() -> None:
    # E = 4, k = 1: one token 4 · (1 − 3/4) = 1; two 4 · (1 − 9/16) = 1.75; none 0
    assert list(experts_touched(4, 1, [0, 1, 2])) == pytest.approx([0.0, 1.0, 1.75])
    # never more than E, nor than k · tokens; never falling as tokens grow (it saturates at E)
    t = np.arange(0.0, 500.0)
    got = experts_touched(64, 8, t)
    assert np.all(got <= 64) and np.all(got <= 8 * t + 1e-9) and np.all(np.diff(got) >= 0)
    # k = E: every expert from the first token on
    assert float(experts_touched(8, 8, 1)) == 8.0


def test_experts_touched_refuses_k_above_e() -> None:
    with pytest.raises(InputError) as e:
        experts_touched(4, 5, 1)
    assert str(e.value) == "experts_touched needs 1 <= E and 0 <= k <= E, got E=4, k=5"
    assert e.value.field == "experts"


def test_whole_experts_on_the_busiest_expert_parallel_chip() -> None:
    # E = 8, k = 2, ep = 4 (2 experts a chip). One token touches 2 of the 28 pairs; the 4
    # pairs on one chip make the busiest read 2, the other 24 one: 1 + 4/28 = 8/7 (issue 27:
    # the expected busiest chip, where ceil(2 / 4) = 1 was taken before)
    assert float(experts_read_per_chip(8, 2, 1, ep=4)) == pytest.approx(8 / 7)
    # 16 tokens touch nearly all 8 (8 · (1 − 0.75^16) = 7.92): the busiest reads nearly the
    # 2 each chip holds, and never more
    assert 1.95 < float(experts_read_per_chip(8, 2, 16, ep=4)) <= 2.0
    # E = 10 over ep 4: the fullest chip holds ceil(10 / 4) = 3; with all touched (1,000
    # tokens) it reads those 3
    assert float(experts_read_per_chip(10, 2, 1000, ep=4)) == pytest.approx(3.0)
    # ep = 1: the expected number touched
    assert float(experts_read_per_chip(4, 1, 2)) == pytest.approx(1.75)


def test_weights_read_by_hand() -> None:
    # 1e6 dense parameters over pp · tp = 2 chips, an untied embedding of 1,000 rows of 10,
    # one MoE group of 2 layers (per stage) with E = 4, k = 1, 100 parameters an expert
    w = WeightsRead(1e6, True, 1000.0, 10, 2, ((2.0, 4, 1, 1, 100, 1),))
    # 2 tokens: (1e6 + 2 rows · 10) / 2 = 500,010, plus 2 layers · 1.75 experts · 100 = 350
    assert weights_read(SCALAR, w, 2.0, 2.0) == pytest.approx(500_360)
    # 5,000 tokens gather at most the 1,000 rows there are: (1e6 + 10,000) / 2 = 505,000, and
    # touch 4 · (1 − 0.75^5000) = 4 experts: 2 · 4 · 100 = 800
    assert weights_read(SCALAR, w, 5000.0, 5000.0) == pytest.approx(505_800)
    arr = weights_read(ARRAY, w, np.array([2.0, 5000.0]), np.array([2.0, 5000.0]))
    assert list(arr) == pytest.approx([500_360, 505_800])


def test_the_plan_of_the_small_llama(small_model: lr.ModelSpec) -> None:
    # dense: stored 62,874,624 less the untied input embedding 1,024,000; rows of D = 1,024
    w = weights_read_plan(small_model, tp=2, pp=2)
    assert (w.dense, w.gathered, w.d_model, w.ptp, w.moe) == (61_850_624, True, 1024, 4, ())
    # one token over 4 chips: (61,850,624 + 1,024) / 4
    assert weights_read(SCALAR, w, 1.0, 1.0) == pytest.approx(61_851_648 / 4)
