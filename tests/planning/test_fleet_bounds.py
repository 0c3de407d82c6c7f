"""`planning.fleet_bounds`, step 1 of the plan search (docs/planning.md): the traffic's seeded
draws and every instance shape that holds the model, with its bounds from the ideal engine,
worked by hand on the small Llama-style model of tests/conftest.py (weights 125,749,248 bytes
in bf16; a pass reads them less the untied input embedding, 61,850,624 parameters, plus a
gathered row of 1,024 per token; KV 4,096 bytes a token; 26,528 bytes of activations and
logits a sequence) on a round chip: 1e15 FLOP/s, 1e12 B/s, $3.60/hour."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llm_roofline import spec_from_config
from llm_roofline.hardware.chip import Chip
from llm_roofline.planning.fleet_bounds import SEEDS, instance_shapes, traffic
from llm_roofline.planning.fleet_request import FleetRequest
from tests.conftest import llama_like, make_chip


def _chip(mem: float) -> Chip:
    # chips joined in pairs by a 100 GB/s scale-up link; none beyond
    return dataclasses.replace(make_chip(mem=mem), scale_up_domain=2, scale_up_bw=1e11)


def _request(mem: float = 1e9, max_chips: int = 1) -> FleetRequest:
    spec = spec_from_config(llama_like(), name="small")
    return FleetRequest(
        spec,
        [_chip(mem)],
        rate=10.0,
        input_len=100,
        output_len=10,
        ttft_p90_s=1.0,
        tpot_p99_s=0.1,
        max_chips=max_chips,
        requests=20,
        engine="ideal",
    )


def test_traffic_of_fixed_lengths_by_hand() -> None:
    seen = traffic(_request())
    assert len(seen.works) == SEEDS == 3
    # fixed lengths: every request is 100 + 10 tokens
    assert (seen.longest, seen.first_len, seen.inp_mean, seen.out_mean) == (110, 100, 100, 10)
    # the draws differ in their arrivals (seeds 0, 1, 2), not their lengths
    a, b = seen.works[0], seen.works[1]
    assert np.array_equal(a.input_len, b.input_len)
    assert a.arrival_s is not None and b.arrival_s is not None and a.arrival_s.size == 20
    assert not np.array_equal(a.arrival_s, b.arrival_s)


def test_one_chip_shape_bounds_by_hand() -> None:
    req = _request()
    (shape,) = instance_shapes(req, traffic(req))
    assert shape.label() == "1 × test-chip (tp 1 · pp 1 · ep 1)"
    assert (shape.chips, shape.price_s) == (1, pytest.approx(0.001))
    # TPOT floor: one sequence at context 101, memory-bound:
    # (61,850,624 + 1,024) · 2 + 101 · 4,096 = 124,116,992 bytes / 1e12
    assert shape.tpot_floor == pytest.approx(124_116_992 / 1e12)
    # TTFT floor: the 90th percentile prompt (100) alone, memory-bound (its matmuls take
    # 2 · 6.08e9 / 1e15 = 1.2e-5 s): (61,850,624 + 100 · 1,024) · 2 + 100 · 4,096 written
    # = 124,315,648 bytes / 1e12
    assert shape.ttft_floor == pytest.approx(124_315_648 / 1e12)
    # prefill rate: 81 prompts of 100 (8,192 // 100) as one prompt of 8,100 tokens, compute-
    # bound: matmuls 2 · (60,817,408 · 8,100 + 1,024,000) / 1e15 = 9.852440576e-4 s, attention
    # 4 · 4,096 · (8,100 · 8,101 / 2) / 1e15 = 5.375434752e-4 s; 8,100 / 1.5227875328e-3 s
    # = 5.319e6 tokens/s (a full budget of 8,192 does 5.298e6), / 100 = 53,192 prompts/s
    assert shape.prefill_rps == pytest.approx(8100 / 1.5227875328e-3 / 100)
    # decode rate: up to 256 sequences (max_seqs; the KV would hold 1,995 at context 101),
    # all within the 0.1 s TPOT target: a step of 256 at 101 reads (61,850,624 + 256 · 1,024)
    # · 2 + 256 · 101 · 4,096 = 230,131,712 bytes (2.3e-4 s); 256 sequences each take 9 steps
    # after their first token: 256 / (9 · 2.30131712e-4) requests/s
    assert shape.decode_rps == pytest.approx(256 / (9 * 230_131_712 / 1e12))


def test_shapes_that_cannot_hold_the_model_are_left_out() -> None:
    # 125.7 MB of weights on 100 MB chips: no 1-chip instance; 2 chips (tp 2 or pp 2) hold
    # them; 4 chips would leave the 2-chip scale-up domain with no scale-out link
    req = _request(mem=0.1e9, max_chips=4)
    shapes = instance_shapes(req, traffic(req))
    assert sorted((s.dep.tp, s.dep.pp) for s in shapes) == [(1, 2), (2, 1)]
    for s in shapes:
        assert s.chips == 2 and s.dep.replicas == 1
        assert s.dep.weights_per_chip_bytes() <= 0.1e9
    # tp 2 halves the weights a chip reads per token: its TPOT floor is below one chip's
    tp2 = next(s for s in shapes if s.dep.tp == 2)
    assert tp2.tpot_floor < 124_116_992 / 1e12
