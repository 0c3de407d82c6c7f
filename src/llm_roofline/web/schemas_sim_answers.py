"""The JSON `/api/simulate` and `/api/plan` answer (see `schemas_answers.py` for the rules:
keys in the order returned, `| None` where a figure can be null)."""

from __future__ import annotations

from llm_roofline.web.schemas_answers import Answer, DeploymentFields

__all__ = ["PlanAnswer", "SimulateAnswer"]


class ServingEngineFields(Answer):
    """The serving engine's settings a run used (`sim/serving_engines.ServingEngine`)."""

    name: str
    max_seqs: int
    max_batched_tokens: int
    memory_share: float
    memory_of: str
    profile_activations: bool
    request_overhead_s: float
    step_overhead_s: float
    policy: str
    chunked_prefill: bool
    scheduler_steps: int
    prefix_caching: bool
    prefix_hit_rate: float
    reserve_output: bool
    frontend_s: float


class SimSummary(Answer):
    """What a simulated run measured (`llm-roofline simulate --json`'s keys): throughput as
    benchmark tools count it (over the span from the first send to the last completion) and
    in the steady state (the middle 60% of completions; null under 10 requests), goodput,
    capacity (null when unbounded), whether an open loop is stable (null when its capacity
    was not measured), the latency percentiles of the requests simulated (null only where no
    request has a value: an unstable run's are given, flagged by `stable` and `warnings`) and
    the warnings (few requests, a queue that grew through the run)."""

    requests: int
    output_tokens_per_s: float | None
    request_throughput_rps: float | None
    steady_request_rps: float | None
    steady_output_tokens_per_s: float | None
    goodput_rps: float | None
    capacity_rps: float | None
    stable: bool | None
    offered_rps: float | None
    disaggregated: bool
    prefill_instances: int
    decode_instances: int
    ttft_p50_s: float | None
    ttft_p90_s: float | None
    ttft_p99_s: float | None
    tpot_p50_s: float | None
    tpot_p90_s: float | None
    tpot_p99_s: float | None
    ttft_mean_s: float | None
    tpot_mean_s: float | None
    e2e_p50_s: float | None
    e2e_p90_s: float | None
    e2e_p99_s: float | None
    e2e_mean_s: float | None
    warnings: list[str]
    serving_engine: ServingEngineFields


class LoadPoint(SimSummary):
    """One point of the latency-against-load curve: a run at `load` × the capacity."""

    load: float
    rate_rps: float | None


class Timeline(Answer):
    """The first instance's queue and KV share over the run (at most 300 samples)."""

    t_s: list[float | None]
    waiting: list[int]
    running: list[int]
    kv_share: list[float | None]


class SimulateAnswer(Answer):
    """`/api/simulate`: the deployment (and the prefill pool's, disaggregated), the run's
    summary, its preemptions and KV tokens per instance, the latency against load and the
    timeline."""

    deployment: DeploymentFields
    prefill_deployment: DeploymentFields | None
    split: str
    engine: str
    workload: str
    requests: int
    output_tokens_per_s: float | None
    request_throughput_rps: float | None
    steady_request_rps: float | None
    steady_output_tokens_per_s: float | None
    goodput_rps: float | None
    capacity_rps: float | None
    stable: bool | None
    offered_rps: float | None
    disaggregated: bool
    prefill_instances: int
    decode_instances: int
    ttft_p50_s: float | None
    ttft_p90_s: float | None
    ttft_p99_s: float | None
    tpot_p50_s: float | None
    tpot_p90_s: float | None
    tpot_p99_s: float | None
    ttft_mean_s: float | None
    tpot_mean_s: float | None
    e2e_p50_s: float | None
    e2e_p90_s: float | None
    e2e_p99_s: float | None
    e2e_mean_s: float | None
    warnings: list[str]
    serving_engine: ServingEngineFields
    preemptions: int
    kv_tokens_per_instance: int
    latency_vs_load: list[LoadPoint]
    timeline: Timeline


# ---- /api/plan --------------------------------------------------------------------------------


class PlanQuestion(Answer):
    """The question as the answer echoes it (ids, seconds)."""

    model: str
    hardware: list[str]
    rate_rps: float
    input_len: int
    output_len: int
    length_dist: str
    ttft_p90_s: float
    tpot_p99_s: float
    max_chips: int
    disagg: str
    engine: str
    requests_per_simulation: int


class InstanceSplit(Answer):
    """One instance of a disaggregated pool: its chips and their split."""

    chips: int
    tp: int
    pp: int
    ep: int


class PlanDraw(Answer):
    """One seeded draw of the traffic simulated on a fleet: its percentiles (lower bounds
    where `stopped`: the run stopped once a target was certain to be missed)."""

    seed: int
    requests: int
    ttft_p90_s: float | None
    tpot_p99_s: float | None
    stopped: bool


class BestFleet(Answer):
    """The cheapest fleet meeting both targets, or the runner-up (the keys other programs
    read first; a disaggregated fleet's pools after them, its one-instance figures null),
    with each seeded draw's percentiles (`draws`; the fleet's are their worst), where it
    stands (utilisation, binding target, margins) and its `simulate` command."""

    hardware: str
    chips: int
    replicas: int | None
    tp: int | None
    pp: int | None
    ep: int | None
    disaggregated: bool
    prefill_chips: int
    decode_chips: int
    usd_per_hour: float
    usd_per_million_output_tokens: float | None
    ttft_p90_s: float | None
    tpot_p99_s: float | None
    capacity_rps: float | None
    draws: list[PlanDraw]
    dp: int | None
    instance_chips: int | None
    prefill_instances: int | None = None
    decode_instances: int | None = None
    prefill_split: InstanceSplit | None = None
    decode_split: InstanceSplit | None = None
    utilisation: float | None = None
    binding: str | None = None
    margins: dict[str, float | None] | None = None
    simulate_command: str | None = None


class FleetRow(Answer):
    """A simulated fleet of the frontier: its cost, its worst simulated percentiles (TPOT null:
    no request had a second token) and each draw's, whether it meets both targets, its
    capacity (null where not measured) and, disaggregated, its pools (its one-instance
    figures null)."""

    hardware: str
    chips: int
    replicas: int | None
    tp: int | None
    pp: int | None
    ep: int | None
    dp: int | None
    disaggregated: bool
    prefill_chips: int
    decode_chips: int
    usd_per_hour: float
    usd_per_million_output_tokens: float | None
    ttft_p90_s: float | None
    tpot_p99_s: float | None
    capacity_rps: float | None
    meets_slo: bool
    instance_chips: int | None
    draws: list[PlanDraw]
    prefill_instances: int | None = None
    decode_instances: int | None = None
    prefill_split: InstanceSplit | None = None
    decode_split: InstanceSplit | None = None


class PlanSearched(Answer):
    """What the search did; `unsimulated`: why each chip without a simulated fleet lost."""

    instance_shapes: int
    within_bounds: int
    pruned_by_bound: int
    unsimulated: dict[str, str]
    simulations: int
    seconds: float


class ChipPrice(Answer):
    """The price a chip was costed at, and whether it was the request's or the catalog's."""

    usd_per_hour: float
    source: str


class PlanAnswer(Answer):
    """`/api/plan` (`llm-roofline plan --json`'s keys): the best fleet (None with `reason`),
    the frontier of the fleets simulated, what the search did and each chip's price."""

    request: PlanQuestion
    best: BestFleet | None
    runner_up: BestFleet | None = None
    reason: str | None
    candidates: list[FleetRow]
    searched: PlanSearched
    prices: dict[str, ChipPrice]
