"""$ and joules per token (`cost.py`): the one $/token arithmetic, the refusals of a chip
without a price or a power figure, the split of a step's cost by term and the Pareto frontier.
(The small Llama's $/token and J/token through `lr.usd_per_token` are checked in
tests/engine/test_hand_checked.py; its terms are reused here.)"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline._core.errors import InputError
from llm_roofline.engine.cost import (
    cost_terms,
    is_priced,
    joules_per_token,
    pareto_frontier,
    require_price,
    unpriced_reason,
    usd_per_million_tokens,
    usd_per_token_from,
)
from llm_roofline.hardware.catalog import get_hardware

from ..conftest import make_chip


def test_usd_per_token_from_by_hand() -> None:
    # $0.001 per second; 1 ms and 2 ms for 10 tokens: 1e-3 · 1e-3 / 10 = $1e-7, and $2e-7;
    # per million tokens: $0.10 and $0.20
    got = usd_per_token_from(0.001, [1e-3, 2e-3], 10)
    assert got == pytest.approx([1e-7, 2e-7])
    assert usd_per_token_from(0.001, [1e-3, 2e-3], 10, per=1e6) == pytest.approx([0.1, 0.2])
    # no price: NaN on the broadcast grid, never a cost of 0
    unpriced = usd_per_token_from(0.0, np.ones((2, 1)), np.ones(3))
    assert unpriced.shape == (2, 3) and bool(np.all(np.isnan(unpriced)))


def test_refusing_a_chip_without_a_price_says_why() -> None:
    own = make_chip(price_per_hour=0.0)  # an id the catalog does not hold
    assert not is_priced(own) and is_priced(make_chip())
    with pytest.raises(InputError) as e:
        require_price(own, ", so a price multiple is undefined")
    assert str(e.value) == (
        "test-chip: no price in the catalog, so a price multiple is undefined: give a price "
        "(USD per chip-hour)"
    )
    assert e.value.field == "price_usd_per_hour"
    # a catalog chip that has a price, set to 0: hardware one owns
    owned = get_hardware("h100-sxm").with_price(0.0)
    assert unpriced_reason(owned) == "price 0: hardware you own, no $ per token"


def test_cost_terms_split_the_step_by_hand(small_model: lr.ModelSpec) -> None:
    # test_hand_checked.py's step: batch 10 at context 1,000 on the round chip ($0.001/s):
    # matmul 1.23682816e-6 s, attention 1.6384e-7 s, weights 1.23721728e-4 s, KV 4.096e-5 s.
    # Each × $0.001/s / 10 tokens = × 1e-4
    step = lr.decode_step(small_model, make_chip(), batch=10, context_len=1000)
    terms = cost_terms(step)
    assert terms["compute"] == pytest.approx((1.23682816e-6 + 1.6384e-7) * 1e-4)
    assert terms["weights"] == pytest.approx(1.23721728e-4 * 1e-4)
    assert terms["kv"] == pytest.approx(4.096e-5 * 1e-4)
    assert terms["communication"] == 0.0
    # memory-bound under full overlap: the step costs the weights plus the KV
    assert terms["step"] == pytest.approx(terms["weights"] + terms["kv"])
    assert usd_per_million_tokens(step) == pytest.approx(terms["step"] * 1e6)


def test_joules_need_a_power_figure(small_model: lr.ModelSpec) -> None:
    chip = dataclasses.replace(make_chip(), power_w=0.0)
    step = lr.decode_step(small_model, chip, batch=1, context_len=1)
    with pytest.raises(InputError, match=r"^test-chip has no power figure in the catalog$") as e:
        joules_per_token(step)
    assert e.value.field == "power_w"


def test_pareto_frontier_keeps_what_no_faster_point_beats() -> None:
    # (latency, cost): (1, 4) (2, 3) (3, 5) (4, 1) (2, 6)
    # by latency: 1 -> $4 kept; 2 -> $3 kept ($6 at the same latency loses); 3 -> $5 > $3 no;
    # 4 -> $1 kept
    lat, usd = [1, 2, 3, 4, 2], [4, 3, 5, 1, 6]
    assert list(pareto_frontier(lat, usd)) == [0, 1, 3]
    # a grid is read flattened
    assert list(pareto_frontier(np.array([[1, 2], [3, 4]]), np.array([[4, 3], [5, 1]]))) == [
        0,
        1,
        3,
    ]
