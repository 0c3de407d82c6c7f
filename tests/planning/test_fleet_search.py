"""`planning.fleet_search`, step 2 of the plan search (docs/planning.md): both targets met,
the cost bounds that prune a fleet or put it past max_chips before anything is simulated, the
pairs of pools tried, and one small search simulated (20 requests a draw) whose answer is
checked by hand. The small Llama-style model of tests/conftest.py on a round chip at $3.60 an
hour ($0.001 a second)."""

from __future__ import annotations

import dataclasses

import pytest

from llm_roofline import spec_from_config
from llm_roofline.planning.fleet_bounds import SEEDS, Shape, Traffic, instance_shapes, traffic
from llm_roofline.planning.fleet_ladders import aggregated, disaggregated
from llm_roofline.planning.fleet_request import FleetRequest
from llm_roofline.planning.fleet_result import Fleet
from llm_roofline.planning.fleet_search import HEADROOM, Search, meets
from tests.conftest import llama_like, make_chip


def _case(max_chips: int = 4) -> tuple[FleetRequest, Traffic, Shape]:
    """10 requests/s of 100 + 10 tokens, TTFT p90 1 s, TPOT p99 0.1 s; the 1-chip shape."""
    chip = dataclasses.replace(make_chip(mem=1e9), scale_up_domain=2, scale_up_bw=1e11)
    spec = spec_from_config(llama_like(), name="small")
    req = FleetRequest(
        spec,
        [chip],
        rate=10.0,
        input_len=100,
        output_len=10,
        ttft_p90_s=1.0,
        tpot_p99_s=0.1,
        max_chips=max_chips,
        requests=20,
        engine="ideal",
    )
    seen = traffic(req)
    one = next(s for s in instance_shapes(req, seen) if s.chips == 1)
    return req, seen, one


def _fleet(usd_per_hour: float) -> Fleet:
    return Fleet(
        hardware="test-chip",
        chips=1,
        replicas=1,
        tp=1,
        pp=1,
        ep=1,
        dp=1,
        disaggregated=False,
        prefill_chips=0,
        decode_chips=0,
        usd_per_hour=usd_per_hour,
        usd_per_million_output_tokens=1.0,
        ttft_p90_s=0.1,
        tpot_p99_s=0.01,
        capacity_rps=None,
        meets_slo=True,
        instance_chips=1,
    )


def test_meets_both_targets_at_or_under() -> None:
    assert meets(0.5, 0.05, 1.0, 0.1)
    assert meets(1.0, 0.1, 1.0, 0.1)  # at the target is within it
    assert not meets(1.01, 0.05, 1.0, 0.1)
    assert not meets(0.5, 0.11, 1.0, 0.1)
    assert not meets(None, 0.05, 1.0, 0.1)  # no request reached a first token
    assert meets(0.5, None, 1.0, 0.1)  # outputs of one token: no TPOT to miss


def test_a_fleet_past_max_chips_is_not_simulated() -> None:
    req, seen, one = _case(max_chips=4)
    # 2 requests/s an instance (the lesser of decode 2 and prefill 5): ⌈10 / 2⌉ = 5
    # instances, 5 chips, more than the 4 allowed
    slow = dataclasses.replace(one, decode_rps=2.0, prefill_rps=5.0)
    search = Search(req, seen)
    aggregated(search, [slow])
    assert search.too_big == [5] and search.too_big_chips == {"test-chip": 5}
    assert search.simulations == 0 and search.rows == [] and search.best is None
    assert (search.done, search.total) == (1, 1)


def test_a_fleet_whose_cost_bound_is_not_below_the_best_is_pruned() -> None:
    req, seen, one = _case()
    search = Search(req, seen)
    search.best = _fleet(usd_per_hour=3.0)
    # 20 requests/s an instance: one instance carries 10, at $0.001/s = $3.60/hour >= $3.00
    fast = dataclasses.replace(one, decode_rps=20.0, prefill_rps=20.0)
    aggregated(search, [fast])
    assert search.pruned == 1 and search.pruned_usd_h == {"test-chip": pytest.approx(3.6)}
    assert search.simulations == 0


def test_disaggregated_pairs_the_best_shapes_of_each_role() -> None:
    req, seen, one = _case()
    search = Search(req, seen)
    search.best = _fleet(usd_per_hour=3.0)
    # three shapes a role; the two best of each are paired (PAIRS_PER_ROLE): 4 pairs; the
    # cheapest: ⌈10 / 5⌉ = 2 prefill and ⌈10 / 10⌉ = 1 decode instance, 3 chips at
    # $0.001/s each = $10.80/hour, not below $3.00: every pair is pruned
    pre = [dataclasses.replace(one, prefill_rps=r) for r in (5.0, 4.0, 1.0)]
    dec = [dataclasses.replace(one, decode_rps=r) for r in (10.0, 5.0, 2.0)]
    disaggregated(search, pre, dec)
    assert search.total == 4 and search.pruned == 4 and search.simulations == 0
    assert search.pruned_usd_h == {"test-chip": pytest.approx(10.8)}


def test_a_small_search_finds_one_chip_and_prices_it_by_hand() -> None:
    req, seen, one = _case()
    search = Search(req, seen)
    aggregated(search, [one])
    best = search.best
    assert best is not None and best.meets_slo and not best.disaggregated
    # one chip serves 10 requests/s of 10 output tokens: $3.60/hour over 100 tokens/s is
    # 0.001 / 100 · 1e6 = $10 per million output tokens
    assert (best.chips, best.replicas) == (1, 1)
    assert best.usd_per_hour == pytest.approx(3.6)
    assert best.usd_per_million_output_tokens == pytest.approx(10.0)
    assert search.simulations == SEEDS  # each seeded draw simulated once
    # the simulated percentiles are never below the ideal engine's floors, and meet the targets
    assert best.tpot_p99_s is not None and best.ttft_p90_s is not None
    assert one.tpot_floor <= best.tpot_p99_s <= req.tpot_p99_s
    assert one.ttft_floor <= best.ttft_p90_s <= req.ttft_p90_s
    filled = search.fill_capacity(best)
    # the capacity of the one instance: it keeps up with the rate by the margin
    assert filled.capacity_rps is not None and filled.capacity_rps >= HEADROOM * req.rate
    assert search.best is filled and search.rows == [filled]
