"""A pair of pools' time to first token is its prefill pool's alone (the first token leaves the
prefill instance, which then hands the KV on and frees it; no decode instance changes its
steps), which `plan`'s search relies on (`Search.prompts_missed`): prompts known to miss TTFT
fail every fleet they feed, unsimulated. Llama 3.1 8B on H100s, 2,048-token prompts."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from llm_roofline.deploy.deployment import deployment
from llm_roofline.planning.fleet_bounds import instance_shapes, traffic
from llm_roofline.planning.fleet_request import FleetRequest
from llm_roofline.planning.fleet_result import Draw
from llm_roofline.planning.fleet_search import Search
from llm_roofline.planning.fleet_settled import Settled
from llm_roofline.sim.simulate import simulate
from llm_roofline.sim.workload import make_workload


def test_first_tokens_do_not_depend_on_the_decode_pool() -> None:
    """One prefill H100 feeding one or three decode H100s at 20 requests/s of 2,048 → 64:
    every request's TTFT the same to the bit, while TPOT changes with the decode pool."""
    one = deployment("llama-3.1-8b", "h100-sxm", 1)
    work = make_workload(requests=300, rate=20.0, input_len=2048, output_len=64, seed=0)
    runs = [
        simulate(
            replace(one, chips=d, replicas=d),
            work,
            with_capacity=False,
            timeline_points=0,
            rate=20.0,
            prefill_pool=one,
        )
        for d in (1, 3)
    ]
    assert np.array_equal(runs[0].ttft_s, runs[1].ttft_s)
    assert not np.array_equal(runs[0].tpot_s, runs[1].tpot_s)


def test_prompts_that_miss_are_known_for_every_decode_pool() -> None:
    """60 requests/s of 2,048-token prompts on one prefill H100 (2 × 8·10⁹ parameters ×
    2,048 tokens ≈ 3.3·10¹³ FLOPs a prompt, at 989 dense TFLOP/s at least 33 ms: at most 30
    prompts/s, half the rate): TTFT p90 100 ms missed, the
    prefill pool is marked, and a fleet of it with another decode pool, simulated anyway,
    misses TTFT too (past the screen's 1.25 × the target; where its run stopped, hence its
    bound, depends on the decode pool's steps); two prefill instances are not marked."""
    req = FleetRequest(
        "llama-3.1-8b",
        ["h100-sxm"],
        rate=60.0,
        input_len=2048,
        output_len=32,
        ttft_p90_s=0.1,
        tpot_p99_s=0.05,
        requests=400,
    )
    seen = traffic(req)
    shape = next(s for s in instance_shapes(req, seen) if s.chips == 1)
    search = Search(req, seen)
    a = search.fleet(shape, shape, 1, 2)
    assert not a.meets_slo and a.ttft_p90_s is not None and a.ttft_p90_s > 1.25 * 0.1
    assert search.prompts_missed(shape, 1)
    assert not search.prompts_missed(shape, 2)
    b = search.fleet(shape, shape, 1, 4)
    assert not b.meets_slo and b.ttft_p90_s is not None and b.ttft_p90_s > 1.25 * 0.1


def test_what_the_runs_settle() -> None:
    """`Settled` for targets of 1 s and 50 ms: prompts that missed TTFT on a draw (1.2 s) are
    marked, those within it are not; a pair's run stops on TTFT only until its prompts met
    that run's limit to the end (the screen's, 1.25 s, here); past the screen with 3 decode
    instances, 3 or more skip it, 2 do not; another prefill pool has its own."""
    settled = Settled(1.0, 0.05)
    slow, quick = (7, 1), (7, 2)
    settled.judged(slow, (Draw(0, 1.2, 0.01, 2000),), 1.0)
    settled.judged(quick, (Draw(0, 0.9, 0.09, 2000),), 1.0)
    assert settled.prompts_missed(slow) and not settled.prompts_missed(quick)
    assert settled.stop(1.25, quick, -1).prompts_first
    assert not settled.stop(1.25, None, -1).prompts_first  # one shape: either target
    settled.ran(quick, -1, Draw(0, 1.2, 0.07, 500), 1.25)
    assert not settled.stop(1.25, quick, -1).prompts_first
    assert settled.stop(1.0, quick, 0).prompts_first  # not yet known on draw 0
    settled.ran(quick, 0, Draw(0, 0.9, 0.07, 2000, stopped=True), 1.0)  # a bound: unknown
    assert settled.stop(1.0, quick, 0).prompts_first
    group = (7, 8, 2)
    settled.passes(group, 3)
    assert settled.screen_passed(group, 3) and settled.screen_passed(group, 5)
    assert not settled.screen_passed(group, 2)
    assert not settled.screen_passed((7, 8, 1), 5)
