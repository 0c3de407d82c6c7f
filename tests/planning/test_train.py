"""The lecture's train against the simulator (issue 15, item 6; docs/train.md).

The lecture (Reiner Pope): batching is a train schedule. A batch departs every step whether
full or not; a request that arrives while a step runs waits for it to end (at most one step)
and rides the next one (one step), so queueing adds at most one step of waiting plus one of
running to its time to first token, 1.5 steps on average; and one instance's throughput is
B / t_step.

Here Llama 3.1 8B on one H100 SXM serves Poisson traffic of short prompts (64 tokens, which
fit the step's budget of 8,192 tokens beside at most 256 decodes) and 256-token answers at
half and 0.8 of its capacity: the instance never idles (the train always runs) and no slot
or KV shortage holds a prompt back. `llm_roofline.planning.train.rides` reads, for every
request, the step it arrived during and the step it boarded off the run's timeline (every
step kept).
Expected figures come from hand arithmetic stated beside them or from direct engine calls,
never from the simulator's own summary; the last two tests break the train's conditions
(a prompt longer than the budget, more traffic than the slots serve) and check the bound
then fails.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.planning.train import Rides, rides
from llm_roofline.sim.simulate import SimResult, capacity_rps, simulate
from llm_roofline.sim.workload import Workload, make_workload

ENGINES = ("ideal", "calibrated")
I, O = 64, 256  # prompt and answer tokens of the train runs
N = 2000  # requests a run
EVERY_STEP = 10**9  # timeline_points: the scheduler keeps every (steps // points)-th step, so all
# Arrival and step times are sums of floats: the only slack the exact claims get is rounding
# (a few ulp of a time of seconds, ~1e-15 s), here given a thousand times over.
ROUNDING_S = 1e-12


@cache
def dep(engine: str) -> Deployment:
    return deployment("llama-3.1-8b", "h100-sxm", 1, engine=engine)


@cache
def capacity(engine: str) -> float:
    """Requests/s one instance sustains on these lengths (the simulator's own saturating
    closed loop: it only sets the offered load, it is no expected value), on the simulator's
    own 256 slots and 8,192-token budget (`serving_engine="roofline"`), as the runs."""
    w = make_workload(requests=200, rate=1.0, input_len=I, output_len=O, seed=0)
    return capacity_rps(dep(engine), w, serving_engine="roofline")


@cache
def train_run(engine: str, load: float, seed: int = 1) -> tuple[Workload, SimResult, Rides]:
    """Poisson traffic at `load` × capacity, every step kept on the timeline."""
    rate = load * capacity(engine)
    w = make_workload(requests=N, rate=rate, input_len=I, output_len=O, seed=seed)
    res = simulate(
        dep(engine),
        w,
        with_capacity=False,
        timeline_points=EVERY_STEP,
        rate=rate,
        serving_engine="roofline",
    )
    return w, res, rides(res, w)


TRAIN = pytest.mark.parametrize(("engine", "load"), [(e, f) for e in ENGINES for f in (0.5, 0.8)])


@TRAIN
def test_the_train_always_runs(engine, load):
    """The condition of the claim: steps back to back, the next departing when the last
    arrives. Only the first step waited for an arrival; every other starts where the one
    before ended."""
    _, _, r = train_run(engine, load)
    assert int(r.idle_before.sum()) == 1 and bool(r.idle_before[0])
    np.testing.assert_array_equal(r.step_start_s[1:], r.step_end_s[:-1])


@TRAIN
def test_first_token_at_the_end_of_the_next_departure(engine, load):
    """Every request boards the first step that departs at or after its arrival and has its
    first token when that step ends: time to first token = wait for the departure + that
    step, exactly (up to float rounding)."""
    _, _, r = train_run(engine, load)
    assert np.all(np.abs(r.extra_s) <= ROUNDING_S)
    assert np.all(r.wait_s >= 0) and np.all(r.wait_s <= r.waited_step_s + ROUNDING_S)


@TRAIN
def test_ttft_at_most_one_step_waited_plus_one_run(engine, load):
    """The lecture's worst case: TTFT ≤ (the step it waited through) + (the step that
    carried its prompt) ≤ 2 × the longest step of the run. The bound is tight: among 2,000
    Poisson arrivals, uniform within their steps, the latest lands within about 1/2,000 of
    a step of its start, so some request waits all but ~0.05% of a full step."""
    _, res, r = train_run(engine, load)
    assert np.all(res.ttft_s <= r.waited_step_s + r.ride_s + ROUNDING_S)
    longest = float(r.step_s.max())
    assert float(res.ttft_s.max()) <= 2 * longest + ROUNDING_S
    assert float(np.max(r.wait_s / np.where(r.waited_step_s > 0, r.waited_step_s, 1))) > 0.99


@TRAIN
def test_mean_ttft_is_one_and_a_half_steps(engine, load):
    """The average: Poisson arrivals fall uniformly within the step they arrive in, so the
    mean wait is half that step (standard error of the ratio over 2,000 uniform draws:
    0.289 / √2000 ≈ 0.0065; tolerance 0.02, three of them). Ride one step more: mean
    TTFT ≈ 0.5 + 1 = 1.5 steps.

    Ideal engine: the 64 prompt tokens cost 2 × 7.5e9 × 64 ≈ 0.96 TFLOP ≈ 1.0 ms at 989
    TFLOP/s, hidden under the ~5 ms a step spends reading 15 GB of weights, so the step
    that carries a prompt is an ordinary step: mean TTFT = 1.5 mean steps, within 0.05 (the
    mean step over steps and the step a request meets differ by a few % at 0.8 load, steps
    growing with the batch aboard). Calibrated engine: a step that emits a first token pays
    the profile's `prefill_overhead_s` (about 3 ms) on top, so mean TTFT ≈ 1.5 mean steps +
    that overhead, within 5% (the mean step already holds the overhead of the steps that
    carried prompts, while the waited step is length-biased: the two go opposite ways)."""
    _, res, r = train_run(engine, load)
    assert float(np.mean(r.wait_s) / np.mean(r.waited_step_s)) == pytest.approx(0.5, abs=0.02)
    step = float(np.mean(r.step_s))
    mean = float(np.mean(res.ttft_s))
    if engine == "ideal":
        assert mean / step == pytest.approx(1.5, abs=0.05)
    else:
        prof = dep(engine).profile
        assert prof is not None
        assert mean == pytest.approx(1.5 * step + prof.prefill_overhead_s, rel=0.05)


@pytest.mark.parametrize("load", [0.5, 0.8])
def test_the_step_is_the_engines_decode_step(load):
    """The train's step, by hand: a decode step on the ideal engine reads the weights and
    every sequence's KV once. Llama 3.1 8B reads 32 layers × (4096 × (4096 + 2 × 1024) +
    4096 × 4096 attention + 3 × 4096 × 14,336 MLP + 2 × 4096 norms) + 128,256 × 4096
    lm_head = 7.505 G parameters, 15.01 GB in bf16 (the input embedding is looked up, not
    read whole); KV is 32 layers × 2 (K, V) × 8 heads × 128 × 2 bytes = 131,072 bytes a
    token. At the run's mean batch aboard B and mean context I + O/2 = 192 tokens the step
    is (15.01e9 + B × 192 × 131,072) / 3.35e12 s. The run's mean step agrees within 3%
    (steps that also carry prompts, and the spread of contexts, make the rest); the engine's
    own decode step at that batch agrees with the hand figure within 0.5%."""
    _, res, r = train_run("ideal", load)
    batch = float(np.mean(res.timeline["running"]))
    per_layer = 4096 * (4096 + 2 * 1024) + 4096 * 4096 + 3 * 4096 * 14336 + 2 * 4096
    weight_bytes = 2 * (32 * per_layer + 128256 * 4096 + 4096)
    assert weight_bytes == pytest.approx(15.01e9, rel=1e-3)
    kv_per_token = 32 * 2 * 8 * 128 * 2
    ctx = I + O / 2
    hand = (weight_bytes + batch * ctx * kv_per_token) / 3.35e12
    engine = float(dep("ideal").time(dep("ideal").decode(round(batch), ctx))[0])
    assert engine == pytest.approx(hand, rel=0.005)
    assert float(np.mean(r.step_s)) == pytest.approx(hand, rel=0.03)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("batch", [16, 64, 256])
def test_throughput_is_batch_over_step_time(engine, batch):
    """Throughput of one instance = B / t_step. B clients in a closed loop, started
    together, each sending a 16-token prompt and taking 512 tokens: they stay in lockstep,
    every step makes B tokens (the prompt's step makes each its first token), and 511 of
    every 512 steps decode B sequences at a context of 16 to 526 tokens, the 512th
    prefills B × 16 tokens. Expected, from direct engine calls: B × 512 / (511 t_decode(B,
    16 + 256) + t_prefill(B × 16)) within 0.5% (the step at the mean context stands for the
    mean step where the step is linear in the context, as here; the step table's
    interpolation adds a little), and the lecture's B / t_decode within 2% (the prefill
    step replaces a decode step: at B = 256 on the ideal engine 2 × 7.5e9 × 4,096 FLOP ≈
    62 ms at 989 TFLOP/s instead of ~7.2 ms, in a cycle of ~3.75 s: ~1.5%). B = 128 on the
    calibrated engine is left out: there the step turns from compute- to memory-bound as
    the context grows, so the mean step exceeds the step at the mean context by ~2%
    (docs/train.md)."""
    d = dep(engine)
    i, o = 16, 512
    w = make_workload(requests=2 * batch, concurrency=batch, input_len=i, output_len=o)
    # the simulator's own server (no engine's fixed costs: the lecture's train is the steps)
    run = simulate(d, w, with_capacity=False, timeline_points=0, serving_engine="roofline")
    got = run.summary["output_tokens_per_s"]
    t_step = float(d.time(d.decode(batch, i + o / 2))[0])
    t_pre = float(d.time(d.prefill(1, batch * i), is_prefill=True)[0])
    assert got == pytest.approx(batch * o / ((o - 1) * t_step + t_pre), rel=0.005)
    assert got == pytest.approx(batch / t_step, rel=0.02)


@pytest.mark.parametrize("engine", ENGINES)
def test_bound_fails_when_the_prompt_needs_several_steps(engine):
    """Condition 1: the prompt fits one step. A 2,048-token prompt with a budget of 512
    tokens a step is chunked over at least 2048 / 512 = 4 steps, even alone on the chip
    (2 requests/s leaves it mostly idle): every request's first token comes after the step
    it boarded, its TTFT is at least 4 of the run's shortest steps, and above twice the
    longest. (The simulator's own 256 slots, `serving_engine="roofline"`: vLLM's default
    1,024 would not take a budget of 512.)"""
    d = dep(engine)
    w = make_workload(requests=300, rate=2.0, input_len=2048, output_len=64, seed=2)
    res = simulate(
        d,
        w,
        max_batched_tokens=512,
        with_capacity=False,
        timeline_points=EVERY_STEP,
        serving_engine="roofline",
    )
    r = rides(res, w)
    assert np.all(r.extra_s > 0)
    assert np.all(res.ttft_s >= 4 * float(r.step_s.min()))
    assert np.all(res.ttft_s > 2 * float(r.step_s.max()))


@pytest.mark.parametrize("engine", ENGINES)
def test_bound_fails_when_the_slots_saturate(engine):
    """Condition 2: a free seat. Offered 1.5 × the capacity, the 256 slots stay full and
    the queue grows (the simulator, measuring its capacity itself, calls the run unstable):
    by the last arrival (N / 1.5c seconds) about N / 1.5 requests have been
    admitted, N / 3 wait, and they drain at the capacity c, so the last TTFT is about
    N / (3c) (≈ 4.3 s ideal, ≈ 16 s calibrated), hundreds of steps. Asserted: the run is
    unstable, the longest TTFT is above half that estimate (the slots' first fill and the
    run's start make it rough) and above 100 × 2 steps, and most requests miss the step they
    could have boarded. (The 256 slots the capacity was measured with: the simulator's own,
    `serving_engine="roofline"`.)"""
    c = capacity(engine)
    w = make_workload(requests=N, rate=1.5 * c, input_len=I, output_len=O, seed=3)
    res = simulate(
        dep(engine), w, timeline_points=EVERY_STEP, rate=1.5 * c, serving_engine="roofline"
    )
    r = rides(res, w)
    longest = float(res.ttft_s.max())
    assert res.summary["stable"] is False
    assert longest > 0.5 * N / (3 * c)
    assert longest > 100 * 2 * float(r.step_s.max())
    assert float(np.mean(r.extra_s > ROUNDING_S)) > 0.5


def test_rides_needs_every_step():
    """A timeline thinned to fewer points than steps cannot place requests on steps."""
    w, _, _ = train_run("ideal", 0.5)
    thin = simulate(dep("ideal"), w, with_capacity=False, timeline_points=100)
    with pytest.raises(InputError, match="every step"):
        rides(thin, w)
