"""`economics.token_costs`: the cost floor of input and output tokens, worked by hand on the
small Llama-style model of tests/conftest.py (D 1024, 4 layers, 8 query and 2 KV heads of 128,
F 4096, V 1000, untied) on a round chip: 1e15 FLOP/s, 1e12 B/s, 1 GB, $3.60/hour = $0.001/s.

Counts used below (tests/engine/test_hand_checked.py works them out):
- parameters stored 62,874,624 (2 bytes each: 125,749,248 bytes); multiplied per token
  61,841,408, of which the LM head 1,024,000; a decode step reads the stored weights less the
  untied input embedding (61,850,624) plus one gathered row of 1,024 per token;
- KV per token 2,048 elements = 4,096 bytes; attention 4 layers · 4,096 FLOP per (query, key);
- activations of one sequence's token (3 · 1024 + 2 · 4096) · 2 + V 1000 · 4 = 26,528 bytes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from llm_roofline import spec_from_config
from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.economics.token_costs import (
    cost_floor,
    cost_vs_context,
    deployment_price,
    prefill_time,
)
from tests.conftest import llama_like, make_chip

S = 4096


def _dep(chips: int = 1, price_per_hour: float = 3.6) -> Deployment:
    spec = spec_from_config(llama_like(), name="small")
    chip = make_chip(mem=1e9, price_per_hour=price_per_hour)
    return deployment(spec, chip, chips, replicas=chips, engine="ideal")


def test_cost_floor_by_hand() -> None:
    floor = cost_floor(_dep(), context_len=S)
    # input: one prefill of 4,096 tokens, compute-bound (full overlap: the larger of the two)
    #   matmuls 2 · (60,817,408 · 4,096 + LM head 1,024,000 · 1 last token) / 1e15
    #         = 4.98218254336e-4 s
    #   attention 4 layers · 4,096 FLOP · (4,096 · 4,097 / 2 = 8,390,656 pairs) / 1e15
    #         = 1.37472507904e-4 s; compute 6.35690762240e-4 s
    #   memory: (61,850,624 + 4,096 rows · 1,024) · 2 + KV 4,096 · 4,096 = 148,867,072 bytes
    #         = 1.49e-4 s, less than the compute
    t_pre = 4.98218254336e-4 + 1.37472507904e-4
    # $0.001/s · t / 4,096 tokens · 1e6 = $1.5519794e-4 per million input tokens
    assert floor.usd_per_million_input_tokens == pytest.approx(0.001 * t_pre / S * 1e6)
    # output: the largest batch that fits at 4,096: (1e9 − 125,749,248) bytes free over
    # 4,096 · 4,096 + 26,528 = 16,803,744 bytes a sequence = 52.03 -> 52
    assert floor.batch == 52
    # a decode step of 52 at 4,096 is memory-bound:
    #   weights (61,850,624 + 52 · 1,024) · 2 = 123,807,744 bytes; KV 52 · 4,096 · 4,096
    #   = 872,415,232 bytes; (123,807,744 + 872,415,232) / 1e12 = 9.96222976e-4 s
    #   (compute: 2 · 61,841,408 · 52 / 1e15 + 52 · 4 · 4,096 · 4,096 / 1e15 = 9.9e-6 s)
    t_dec = (123_807_744 + 872_415_232) / 1e12
    # $0.001/s · t / 52 tokens · 1e6 = $0.0191581 per million output tokens
    assert floor.usd_per_million_output_tokens == pytest.approx(0.001 * t_dec / 52 * 1e6)
    assert floor.kv_bytes_per_token == 4096
    assert floor.engine == "ideal"


def test_replicas_price_a_token_as_one_instance_does() -> None:
    """Two replicas cost twice as much and prefill two prompts at once: the same $/token."""
    one, two = _dep(1), _dep(2)
    t1, n1 = prefill_time(one, S)
    t2, n2 = prefill_time(two, S)
    assert (n1, n2) == (1, 2)
    assert t2 == pytest.approx(t1)
    assert deployment_price(two) == pytest.approx(2 * deployment_price(one)) == 0.002
    a, b = cost_floor(one, context_len=S), cost_floor(two, context_len=S)
    assert b.usd_per_million_input_tokens == pytest.approx(a.usd_per_million_input_tokens)


def test_cost_vs_context_rises_and_is_inf_where_nothing_fits() -> None:
    # at 1,000,000 tokens one sequence's KV is 4.096e9 bytes, more than the 1 GB chip
    costs = cost_vs_context(_dep(), [1000, S, 100_000, 1_000_000])
    # fits: 874,250,752 // (1,000 · 4,096 + 26,528) = 212; at 4,096: 52 (above);
    # at 100,000: 874,250,752 // 409,626,528 = 2; at 1e6: 0
    assert costs.batch.tolist() == [212, 52, 2, 0]
    best = costs.usd_per_million_output_tokens
    assert np.all(np.diff(best[:3]) > 0) and math.isinf(best[3])
    # batch 1 is priced everywhere (a roofline, not a fit), and never beats the best batch
    one = costs.usd_per_million_output_tokens_batch1
    assert np.all(np.isfinite(one)) and np.all(np.diff(one) > 0)
    assert np.all(best[:3] <= one[:3])
    # the 4,096 point is the cost floor's output figure
    assert best[1] == pytest.approx(cost_floor(_dep(), context_len=S).usd_per_million_output_tokens)


def test_refusals_name_their_field() -> None:
    with pytest.raises(InputError) as exc:
        cost_floor(_dep(), context_len=300_000)  # KV 300,000 · 4,096 = 1.23e9 bytes > 1 GB
    assert exc.value.field == "chips"
    assert str(exc.value).startswith("small does not fit on 1 × test-chip (")
    assert "at context 300,000, so there is no batch to price: " in str(exc.value)
    with pytest.raises(InputError) as exc:
        cost_vs_context(_dep(), [])
    assert exc.value.field == "contexts"
    assert str(exc.value) == "contexts must be a non-empty list of positive numbers"
    with pytest.raises(InputError) as exc:
        cost_floor(_dep(), context_len=0)
    assert exc.value.field == "context_len"
    with pytest.raises(InputError) as exc:
        deployment_price(_dep(price_per_hour=0.0))
    assert exc.value.field == "price_usd_per_hour"
