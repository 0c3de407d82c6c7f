"""The simulator in parts: a second scheduling policy added as a class and run through the same
event loop, the policy and router registries, the routers' choices, the KV bookkeeping after a
run with preemptions, and the metrics' arithmetic. Expected values are worked out by hand
below, or are the step predictor's own times for the steps the hand count says run."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import deployment
from llm_roofline.sim.entities import Instance, Pool, Requests
from llm_roofline.sim.event_loop import EventLoop, run
from llm_roofline.sim.metrics import RunResult, goodput_rps, sustained_rps
from llm_roofline.sim.policy import (
    POLICIES,
    Batch,
    ContinuousBatching,
    SchedulingPolicy,
    make_policy,
    register_policy,
)
from llm_roofline.sim.router import ROUTERS, LeastLoaded, RoundRobin, make_router
from llm_roofline.sim.simulate import capacity_clients, capacity_requests
from llm_roofline.sim.step_predictor import StepTable
from llm_roofline.sim.workload import Workload

BUDGET = 512  # tokens per step: a prompt of P tokens, BUDGET < P <= 2 BUDGET, is two chunks
P, O = 800, 6  # the lone request's prompt and output tokens


class WholePrompts(SchedulingPolicy):
    """Iteration-level scheduling without chunked prefill (as Orca): every step decodes each
    running sequence and starts at most one waiting prompt, whole, whatever the token budget.
    No preemption: for runs whose KV memory never runs out."""

    name = "whole-prompts-test"

    def schedule(self, ins: Instance) -> Batch:
        completing: list[int] = []
        n_p = 0
        if ins.waiting and ins.running < ins.pool.max_seqs:
            r = ins.waiting[0]
            n_p = self.reqs.prompt[r]
            ins.admit_prompt(r, n_p)  # the whole prompt: nothing left to prefill
            completing.append(r)
        return ins.n_dec, n_p, completing


@pytest.fixture
def whole_prompts() -> Iterator[str]:
    """The test policy, registered for one test and removed after it."""
    register_policy(WholePrompts)
    yield WholePrompts.name
    del POLICIES[WholePrompts.name]


@pytest.fixture(scope="module")
def table() -> StepTable:
    dep = deployment("llama-3.1-8b", "h100-sxm", 1)
    return StepTable(dep, max_seqs=8, max_context=4096, max_tokens=BUDGET)


def _alone(
    table: StepTable, policy: str, prompt: int = P, n: int = 1, gap: float = 0.0
) -> RunResult:
    """n requests of `prompt` and O output tokens, `gap` seconds apart, on one instance."""
    work = Workload(
        input_len=np.full(n, prompt),
        output_len=np.full(n, O),
        arrival_s=np.arange(n) * gap,
        concurrency=None,
        description="alone",
    )
    pool = Pool(table, kv_cap=100_000, max_seqs=8, budget=BUDGET, policy=policy)
    return run([pool], work, [prompt] * n, [O] * n, "round-robin", 0)


def _decode_time(table: StepTable) -> float:
    """The lone request's decode steps after its first token: one sequence, whose context
    is its prompt plus the tokens generated before the step (P, P + 1, ..., P + O - 2)."""
    return sum(table.step_time(1, P + j, 0) for j in range(O - 1))


def test_whole_prompt_is_one_step_of_the_predictors_time(table, whole_prompts):
    """Without chunking, a lone request's prompt of P > budget tokens is one step: its TTFT
    is the predictor's prefill of P tokens; its O - 1 further tokens are one decode each."""
    res = _alone(table, whole_prompts)
    assert res.steps == 1 + (O - 1)
    assert res.ttft[0] == pytest.approx(table.prefill_time(P), rel=1e-12)
    assert res.e2e[0] - res.ttft[0] == pytest.approx(_decode_time(table), rel=1e-12)


def test_vllm_chunks_the_same_prompt_in_two(table):
    """The vLLM policy splits the same prompt into a chunk of the budget and the rest (512 +
    288 tokens, prefill passes alone; the second attends to the first's 512 tokens), then
    decodes exactly as the whole-prompt policy."""
    res = _alone(table, "vllm")
    assert res.steps == 2 + (O - 1)
    rest = P - BUDGET
    two = table.prefill_time(BUDGET) + table.prefill_time(rest, [(rest, BUDGET)])
    assert two > table.prefill_time(BUDGET) + table.prefill_time(rest)
    assert res.ttft[0] == pytest.approx(two, rel=1e-12)
    assert res.tpot[0] == pytest.approx(_decode_time(table) / (O - 1), rel=1e-12)


def test_policies_agree_when_the_prompt_fits_one_step(table, whole_prompts):
    """A prompt within the budget is one step under both policies: requests served one at
    a time (100 s apart) get the same times from both, to the last bit."""
    a = _alone(table, "vllm", prompt=BUDGET, n=3, gap=100.0)
    b = _alone(table, whole_prompts, prompt=BUDGET, n=3, gap=100.0)
    assert np.array_equal(a.ttft, b.ttft) and np.array_equal(a.e2e, b.e2e)


def test_registry():
    assert POLICIES["vllm"] is ContinuousBatching
    assert set(ROUTERS) == {"round-robin", "least-loaded"}
    with pytest.raises(InputError) as err:
        make_policy("fifo-nope", Requests([1], [1]))
    assert err.value.field == "policy"
    with pytest.raises(InputError) as err:
        make_router("random")
    assert err.value.field == "router"


def _instances(table: StepTable, count: int) -> list[Instance]:
    pool = Pool(table, kv_cap=10_000, max_seqs=8, budget=BUDGET, replicas=count)
    reqs = Requests([10] * 8, [10] * 8)
    return [Instance(pool, reqs, i) for i in range(count)]


def test_round_robin_takes_each_in_turn(table):
    group = _instances(table, 3)
    rr = RoundRobin()
    picked = [rr.route(group, 0.0).index for _ in range(7)]
    assert picked == [0, 1, 2, 0, 1, 2, 0]


def test_least_loaded_prefers_fewest_then_one_not_mid_step(table):
    """Loads 2, 0, 0: the second (first of the equals). Then the second is mid-step (its
    clock past the arrival at t = 1): the third, idle, is taken."""
    group = _instances(table, 3)
    group[0].waiting.extend([0, 1])
    assert LeastLoaded().route(group, 1.0) is group[1]
    group[1].t = 2.0
    assert LeastLoaded().route(group, 1.0) is group[2]


def test_kv_all_freed_after_preemptions(table):
    """Eight clients of 1,000 + 500 tokens on an instance holding 4,000 KV tokens: at most
    two whole requests fit, so decodes outgrow the memory and requests are preempted; at
    the end every request has all its tokens and the instance holds no KV and no request."""
    n, inp, out = 16, 1000, 500
    work = Workload(
        input_len=np.full(n, inp),
        output_len=np.full(n, out),
        arrival_s=None,
        concurrency=8,
        description="closed loop",
    )
    pool = Pool(table, kv_cap=4000, max_seqs=8, budget=BUDGET)
    loop = EventLoop([pool], work, Requests([inp] * n, [out] * n), "round-robin", 0)
    res = loop.run()
    assert res.preempted > 0
    assert np.all(np.isfinite(res.e2e)) and np.all(res.e2e >= res.ttft)
    (ins,) = loop.instances
    assert (ins.kv, ins.running, ins.n_dec, ins.reserved, len(ins.waiting)) == (0, 0, 0, 0, 0)


def test_sustained_rate_is_the_middle_completions():
    """100 completions 0.1 s apart: the middle 60% (the 20th to the 80th) take 6 s for 60
    completions, 10 per second."""
    assert sustained_rps(np.arange(100) * 0.1) == pytest.approx(10.0, rel=1e-12)
    assert sustained_rps(np.zeros(10)) == float("inf")  # all at once: no time between


def test_goodput_counts_requests_within_both_targets():
    """Four requests over 2 s: TTFTs 0.1, 0.3, 0.1, 0.1 s against 0.2 s, TPOTs 10 ms, 10 ms,
    50 ms and none (one output token) against 20 ms: the first and the last meet both."""
    nan = float("nan")
    res = RunResult(
        ttft=np.array([0.1, 0.3, 0.1, 0.1]),
        tpot=np.array([0.01, 0.01, 0.05, nan]),
        e2e=np.zeros(4),
        finish=np.zeros(4),
        span=2.0,
        steps=0,
        preempted=0,
        occupancy=0.0,
    )
    assert goodput_rps(res, 0.2, 0.02) == 2 / 2.0
    assert goodput_rps(res, None, None) == 4 / 2.0


def test_capacity_run_size():
    """256 slots on each of 2 decode instances, disaggregated: 512 clients and a quarter
    more, 640, each served 20 requests: 12,800. One instance of 8 slots: 8 clients, and the
    floor of 4,000 requests."""
    assert capacity_clients(256, 2, disaggregated=True) == 512 + 128
    assert capacity_requests(256, 2, disaggregated=True) == 640 * 20
    assert capacity_clients(8, 1) == 8
    assert capacity_requests(8, 1) == 4000
