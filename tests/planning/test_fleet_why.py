"""`planning.fleet_why`: why a chip lost and why no fleet met the targets, in words, read off
a `Search` set up by hand (nothing simulated). The small Llama-style model of tests/conftest.py
on a round chip (1e15 FLOP/s, 1e12 B/s, 1 GB, $3.60/hour); its one-chip instance's floors,
by hand in tests/planning/test_fleet_bounds.py: TPOT 124,116,992 bytes / 1e12 B/s = 0.124 ms,
TTFT 124,315,648 bytes / 1e12 B/s = 0.124 ms."""

from __future__ import annotations

import dataclasses

from llm_roofline import spec_from_config
from llm_roofline.planning.fleet_bounds import Shape, instance_shapes, traffic
from llm_roofline.planning.fleet_request import FleetRequest
from llm_roofline.planning.fleet_result import Draw, Fleet
from llm_roofline.planning.fleet_search import Search
from llm_roofline.planning.fleet_why import no_fleet_reason, unsimulated
from tests.conftest import llama_like, make_chip

LABEL = "1 × test-chip (tp 1 · pp 1 · ep 1)"


def _case(max_chips: int = 4, tpot_s: float = 0.1) -> tuple[Search, Shape]:
    """10 requests/s of 100 + 10 tokens, TTFT p90 1 s (1,000 ms), TPOT p99 `tpot_s`."""
    chip = dataclasses.replace(make_chip(mem=1e9), scale_up_domain=2, scale_up_bw=1e11)
    spec = spec_from_config(llama_like(), name="small")
    req = FleetRequest(
        spec,
        [chip],
        rate=10.0,
        input_len=100,
        output_len=10,
        ttft_p90_s=1.0,
        tpot_p99_s=tpot_s,
        max_chips=max_chips,
        requests=20,
        engine="ideal",
    )
    seen = traffic(req)
    one = next(s for s in instance_shapes(req, seen) if s.chips == 1)
    return Search(req, seen), one


def _fleet(**over: object) -> Fleet:
    base: dict[str, object] = {
        "hardware": "test-chip",
        "chips": 2,
        "replicas": 2,
        "tp": 1,
        "pp": 1,
        "ep": 1,
        "dp": 1,
        "disaggregated": False,
        "prefill_chips": 0,
        "decode_chips": 0,
        "usd_per_hour": 7.2,
        "usd_per_million_output_tokens": 20.0,
        "ttft_p90_s": 0.5,
        "tpot_p99_s": 0.2,
        "capacity_rps": None,
        "meets_slo": False,
        "instance_chips": 1,
    }
    base.update(over)
    return Fleet(**base)  # type: ignore[arg-type]


def test_no_instance_or_none_fast_enough() -> None:
    search, one = _case(tpot_s=0.0001)
    assert no_fleet_reason(search, [], [], [], "auto") == (
        "no instance of up to 4 chips holds the model and the longest request: allow more "
        "chips or a smaller weight type"
    )
    # the 0.124 ms decode floor is above a 0.1 ms TPOT target: no decode shape
    assert no_fleet_reason(search, [one], [one], [], "auto") == (
        f"tpot_p99: the fastest decode within 4 chips is 0.124 ms per token ({LABEL}, one "
        "sequence, ideal engine), above the 0.1 ms target"
    )
    assert no_fleet_reason(search, [one], [], [one], "auto") == (
        f"ttft_p90: the fastest first token within 4 chips is 0.124 ms ({LABEL}, the prompt "
        "alone, ideal engine), above the 1,000 ms target"
    )
    assert unsimulated(search, ["test-chip"], [one], [one], []) == {
        "test-chip": "its fastest decode is 0.124 ms per token (one sequence, ideal engine), "
        "above the 0.1 ms TPOT target"
    }


def test_nothing_simulated_says_why() -> None:
    search, one = _case(max_chips=1)
    search.too_big = [5, 3]
    search.too_big_chips = {"test-chip": 3}
    assert no_fleet_reason(search, [one], [one], [one], "auto") == (
        "chips: the rate of 10 requests/s needs more than 1 chip: the smallest fleet the "
        "search asked for had 3, a lower bound from each instance's ideal throughput (the "
        "fleet that meets the targets may need more): allow at least 3 (--max-chips, "
        "max_chips in the library and the page)"
    )
    assert unsimulated(search, ["test-chip"], [one], [one], [one]) == {
        "test-chip": "its fleets need at least 3 chips, more than the 1 allowed"
    }
    search.too_big = []
    assert no_fleet_reason(search, [one], [one], [one], "no").endswith(
        "prefill and decode on separate pools were not searched (disagg no)"
    )


def test_a_pruned_chip_names_its_cost_bound_against_the_best() -> None:
    search, one = _case()
    search.best = _fleet(hardware="h100-sxm", usd_per_hour=3.0, meets_slo=True)
    search.rows = [search.best]
    search.pruned_usd_h = {"test-chip": 3.6}
    # h100-sxm was simulated: nothing to say; a100-80gb has no instance among the shapes
    assert unsimulated(search, ["h100-sxm", "test-chip", "a100-80gb"], [one], [one], [one]) == {
        "test-chip": "its cheapest fleet able to carry 10 requests/s costs at least "
        "$3.60/hour (each instance at its ideal throughput), not below the best's "
        "$3.00/hour: not simulated",
        "a100-80gb": "no instance of up to 4 chips holds the model and the longest request",
    }


def test_the_closest_fleet_names_the_target_it_missed_most() -> None:
    search, one = _case()
    # TTFT 500 ms of 1,000 (0.5 of the target), TPOT 200 ms of 100 (twice it): TPOT binds
    search.rows = [_fleet(), _fleet(chips=1, ttft_p90_s=3.0, tpot_p99_s=0.01)]
    assert no_fleet_reason(search, [one], [one], [one], "auto") == (
        "tpot_p99: 200 ms against the 100 ms target, the closest within 4 chips (2 × test-chip)"
    )
    # a first token 4.06 s late: TTFT binds, written with a thousands comma
    search.rows = [_fleet(ttft_p90_s=4.06, tpot_p99_s=0.05)]
    assert no_fleet_reason(search, [one], [one], [one], "auto") == (
        "ttft_p90: 4,060 ms against the 1,000 ms target, the closest within 4 chips (2 × test-chip)"
    )
    # the same fleet's draw stopped once the miss was certain: a lower bound, said so
    stopped = (Draw(0, 4.06, 0.05, 20, stopped=True),)
    search.rows = [_fleet(ttft_p90_s=4.06, tpot_p99_s=0.05, draws=stopped)]
    assert no_fleet_reason(search, [one], [one], [one], "auto").startswith(
        "ttft_p90: at least 4,060 ms against the 1,000 ms target"
    )
    # both percentiles met but the pools carry 8 of the 10 requests/s
    search.rows = [_fleet(ttft_p90_s=0.5, tpot_p99_s=0.05, disaggregated=True, capacity_rps=8.0)]
    assert no_fleet_reason(search, [one], [one], [one], "auto") == (
        "capacity: the closest within 4 chips (2 × test-chip, disaggregated) meets both "
        "targets but serves only 8 of the 10 requests/s"
    )
