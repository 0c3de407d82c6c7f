"""`planning.fleet_early`: the lower bounds on a run's percentiles from what is known mid-run
(worked by hand on ten requests), when a run may stop, and, on real runs of Llama 3.1 8B on one
H100, that a run the watcher stops does miss when run to the end (its full percentiles at or
above the bounds it stopped with) while a run that meets is never stopped and its figures are
unchanged; and the two small hooks in the simulator it rests on (the event loop's watcher, the
step tables' reach)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from llm_roofline.deploy.deployment import deployment
from llm_roofline.planning.fleet_early import EarlyStop, TargetMissedError, lower_percentiles
from llm_roofline.sim.entities import Requests
from llm_roofline.sim.event_loop import WATCH_EVERY
from llm_roofline.sim.simulate import simulate
from llm_roofline.sim.workload import make_workload


def _ten() -> Requests:
    """Ten requests of two output tokens (a TPOT is the gap between the two), at the clock 10 s:
    0-9 sent at 0, 1, ..., 9 s, of which 8 and 9 not yet arrived; 0-4 had their first token
    0.5 s after arriving, 5-7 none yet; 0-2 finished 0.2 s after their first token, 3 and 4
    (first tokens at 3.5 and 4.5 s) not yet."""
    reqs = Requests([10] * 10, [2] * 10)
    for r in range(8):
        reqs.arrival[r] = float(r)
    for r in range(5):
        reqs.first[r] = r + 0.5
    for r in range(3):
        reqs.finish[r] = reqs.first[r] + 0.2
    return reqs


def test_lower_percentiles_by_hand() -> None:
    """At 10 s: TTFT at least 0.5 (0-4), 10 − 5 = 5, 4, 3 (5-7, waiting) and 0 (8, 9, not
    arrived); sorted 0, 0, 0.5 ×5, 3, 4, 5, whose p90 (numpy's linear, at rank 0.9 × 9 = 8.1)
    is 4 + 0.1 × (5 − 4) = 4.1. TPOT at least 0.2 (0-2, finished), 10 − 3.5 = 6.5 and 10 − 4.5
    = 5.5 (3, 4, decoding), 0 (5-9); sorted 0 ×5, 0.2 ×3, 5.5, 6.5, whose p99 (rank 8.91) is
    5.5 + 0.91 × 1 = 6.41."""
    t90, t99 = lower_percentiles(_ten(), 10.0)
    assert t90 == pytest.approx(4.1)
    assert t99 == pytest.approx(6.41)


def test_lower_percentiles_of_a_finished_run_are_its_own() -> None:
    """Every request finished: the bounds are the run's percentiles (sim.metrics' way)."""
    reqs = _ten()
    for r in range(10):
        reqs.arrival[r] = float(r)
        reqs.first[r] = r + 0.1 * (r + 1)  # TTFT 0.1, 0.2, ..., 1.0
        reqs.finish[r] = reqs.first[r] + 0.01 * (r + 1)  # TPOT 0.01, ..., 0.10
    t90, t99 = lower_percentiles(reqs, 100.0)
    assert t90 == pytest.approx(0.91)  # rank 8.1: 0.9 + 0.1 × 0.1
    assert t99 == pytest.approx(0.0991)  # rank 8.91: 0.09 + 0.91 × 0.01


def test_lower_percentiles_without_a_second_token() -> None:
    reqs = Requests([10, 10], [1, 1])
    reqs.arrival[:] = [0.0, 1.0]
    reqs.first[0] = 0.3
    t90, t99 = lower_percentiles(reqs, 2.0)
    assert t99 is None
    assert t90 == pytest.approx(0.3 + 0.9 * (1.0 - 0.3))  # 0.3 and 2 − 1 = 1: rank 0.9


def test_when_a_run_may_stop() -> None:
    """One shape: either target past its limit. A pair of pools (`prompts_first`): TTFT past
    its limit alone (its prefill pool grows while TTFT misses, whatever TPOT does), so a run
    certain to miss TPOT goes on to show TTFT (the screen: limits 1.25 × the targets of 1 s
    and 50 ms)."""
    draw = EarlyStop(1.0, 0.05)
    assert draw.missed(1.01, 0.01) and draw.missed(0.5, 0.051)
    assert not draw.missed(1.0, 0.05) and not draw.missed(0.5, None)
    pair = EarlyStop(1.0, 0.05, prompts_first=True)
    assert pair.missed(1.01, 0.01) and pair.missed(1.5, None)
    assert not pair.missed(0.5, 0.06)  # TPOT past its target, TTFT not (yet)
    assert not pair.missed(1.0, 1.0)
    screen = EarlyStop(1.25, 0.0625, prompts_first=True)
    assert screen.missed(1.3, 0.04)
    assert not screen.missed(1.1, 0.07)  # past the targets, TTFT not past the screen's


def _run(rate: float, watch: EarlyStop | None) -> dict[str, float]:
    dep = deployment("llama-3.1-8b", "h100-sxm", 1)
    work = make_workload(requests=400, rate=rate, input_len=512, output_len=128, seed=0)
    # at most 16 sequences in flight: a step each few milliseconds, thousands of steps
    s = simulate(
        dep, work, with_capacity=False, timeline_points=0, rate=rate, max_seqs=16, watch=watch
    )
    return s.summary


def test_a_stopped_run_misses_when_run_to_the_end() -> None:
    """One H100 of 16 sequences offered 60 requests/s of 512 → 128 (well past what it serves)
    against TTFT p90 200 ms: the watcher stops the run; run to the end, it misses, at or above
    the bounds the watcher stopped it with."""
    stop = EarlyStop(0.2, 1.0)
    with pytest.raises(TargetMissedError) as stopped:
        _run(60.0, stop)
    full = _run(60.0, None)
    bound = stopped.value
    assert bound.ttft_p90_s > 0.2
    assert full["ttft_p90_s"] >= bound.ttft_p90_s
    assert bound.tpot_p99_s is not None and full["tpot_p99_s"] >= bound.tpot_p99_s
    assert not stop.missed(0.2, 1.0)  # at the limits: not missed


def test_a_run_that_meets_is_never_stopped() -> None:
    """Two requests/s, within one H100 of 16 sequences: watched every WATCH_EVERY steps
    against targets it meets, the run goes to the end with the same figures as unwatched."""
    calls: list[float] = []

    class Count(EarlyStop):
        def __call__(self, reqs: Requests, now: float) -> None:
            calls.append(now)
            super().__call__(reqs, now)

    plain = _run(2.0, None)
    watched = _run(2.0, Count(10.0, 1.0))
    assert watched["ttft_p90_s"] == plain["ttft_p90_s"]
    assert watched["tpot_p99_s"] == plain["tpot_p99_s"]
    assert len(calls) >= 1 and calls == sorted(calls)  # the clock never goes back
    assert WATCH_EVERY & (WATCH_EVERY - 1) == 0  # a power of two: the loop masks the steps


def test_step_tables_reach_is_shared_through_the_cache() -> None:
    """`table_context`: a run of shorter requests on the table built for longer ones (one
    table in the cache for both), its figures within the table's interpolation of its own."""
    dep = deployment("llama-3.1-8b", "h100-sxm", 1)
    short = make_workload(requests=200, rate=5.0, input_len=256, output_len=64, seed=0)
    long = make_workload(requests=200, rate=5.0, input_len=2048, output_len=64, seed=0)
    cache: dict[object, object] = {}
    top = int(np.max(long.input_len + long.output_len))
    simulate(dep, long, with_capacity=False, timeline_points=0, cache=cache)
    tables = [k for k in cache if k[0] == "table"]
    shared = simulate(
        dep, short, with_capacity=False, timeline_points=0, cache=cache, table_context=top
    )
    assert [k for k in cache if k[0] == "table"] == tables  # no table built for the short run
    own = simulate(dep, short, with_capacity=False, timeline_points=0)
    for key in ("ttft_p90_s", "tpot_p99_s"):
        assert math.isclose(shared.summary[key], own.summary[key], rel_tol=0.02)


def test_a_stopped_draw_says_so() -> None:
    """The answer's JSON marks a stopped draw, and its fleet reads as stopped (the command
    line's frontier then writes its figures as "≥")."""
    from llm_roofline.planning.fleet_result import Draw

    assert Draw(1, 1.2, 0.07, 2000, stopped=True).as_dict()["stopped"] is True
    assert Draw(0, 0.3, 0.02, 2000).as_dict()["stopped"] is False
