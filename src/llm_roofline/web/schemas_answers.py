"""The JSON the API answers (pydantic models; each route's `response_model`, so that `/docs`
and `/openapi.json` describe the answers as well as the questions): the catalogs, the report,
one scenario, a sweep and the search over splits. The other views' answers are in
`schemas_sim_answers.py`, `schemas_economics_answers.py` and `schemas_whatif_answers.py`.

Each model lists the keys the route returns, in the order it returns them, typed as they are
(a figure that can be missing or not finite is `| None`: null in the JSON). `Answer` lets a
key the model does not name through (`extra="allow"`), so that a model can never drop part of
an answer; tests/web/test_response_models.py checks that none is left undeclared. Routes set
`response_model_exclude_unset`, so that a key the answer leaves out stays out."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = [
    "Answer",
    "DeploymentFields",
    "EngineRow",
    "HardwareRow",
    "ModelRow",
    "OptimizeAnswer",
    "OptimizeRow",
    "Options",
    "PredictAnswer",
    "ReportAnswer",
    "SweepAnswer",
]


class Answer(BaseModel):
    """The base of every answer model: keys beyond those declared pass through."""

    model_config = ConfigDict(extra="allow")


# ---- the catalogs -----------------------------------------------------------------------------


class ModelRow(Answer):
    """A catalog model (`/api/models`): its parameters stored and multiplied per token and its
    KV cache bytes per token at bf16."""

    id: str
    name: str
    attention: str
    moe: bool
    params_stored: int
    params_multiplied: int
    kv_bytes_per_token_bf16: float


class HardwareRow(Answer):
    """A catalog chip (`/api/hardware`): its figures in SI units (bytes, bytes/s, FLOP/s per
    data type), its catalog price (None: none) and the record it was read from (the catalog's
    unit-suffixed keys, the chip editor's starting point)."""

    id: str
    name: str
    status: str
    memory_bytes: float
    memory_bandwidth: float
    peak_flops: dict[str, float]
    scale_up_domain: int
    price_usd_per_hour: float | None
    estimated: list[str]
    record: dict[str, int | float | str]


class Options(Answer):
    """The names a deployment's fields take besides the catalogs."""

    dtypes: list[str]
    overlap: list[str]


class EngineRow(Answer):
    """An engine a deployment can name, its range and what it was fitted on."""

    id: str
    note: str
    low: float | None
    high: float | None
    default: bool


# ---- one deployment ---------------------------------------------------------------------------


class DeploymentFields(Answer):
    """A deployment as built (`Deployment.as_dict`): every degree the rule chose filled in,
    how the split was chosen (`split_rule`) and the price per chip-hour (None: none)."""

    model: str
    hardware: str
    chips: int
    tp: int
    pp: int
    ep: int
    replicas: int
    dp: int
    pad_heads: bool
    weight_dtype: str
    kv_dtype: str
    overlap: str
    engine: str
    engine_profile: str
    price_usd_per_hour: float | None
    split_rule: str


class AtBatch(Answer):
    """The figures at the request's batch and context (None: no engine range, no price)."""

    batch: int
    context_len: int
    t_compute_s: float | None
    t_matmul_s: float | None
    t_weights_s: float | None
    t_kv_s: float | None
    t_comm_s: float | None
    t_memory_s: float | None
    t_ideal_s: float | None
    t_step_s: float | None
    t_step_low_s: float | None
    t_step_high_s: float | None
    tokens_per_s: float | None
    usd_per_million_tokens: float | None
    tokens_per_s_per_user: float | None
    bound: str
    fits: bool
    fit_message: str
    memory_per_chip_bytes: float
    memory_capacity_bytes: float
    regime: str


Curve = list[float | None]  # a curve's values, null where not finite


class StepVsBatch(Answer):
    """The step's terms against batch (seconds; the engine's range null for `ideal`)."""

    batch: Curve
    t_compute_s: Curve
    t_matmul_s: Curve
    t_weights_s: Curve
    t_kv_s: Curve
    t_comm_s: Curve
    t_memory_s: Curve
    t_ideal_s: Curve
    t_step_s: Curve
    t_step_low_s: Curve
    t_step_high_s: Curve
    fits: list[bool]


class StepVsContext(Answer):
    """The step's terms against context, at the request's batch."""

    context_len: Curve
    t_compute_s: Curve
    t_matmul_s: Curve
    t_weights_s: Curve
    t_kv_s: Curve
    t_comm_s: Curve
    t_memory_s: Curve
    t_ideal_s: Curve
    t_step_s: Curve
    t_step_low_s: Curve
    t_step_high_s: Curve
    fits: list[bool]


class CostVsBatch(Answer):
    """$ per million tokens against batch, each term's share and the engine's total."""

    batch: Curve
    compute_usd_per_million: Curve
    weights_usd_per_million: Curve
    kv_usd_per_million: Curve
    communication_usd_per_million: Curve
    step_usd_per_million: Curve
    engine_usd_per_million: Curve


class LatencyCostFrontier(Answer):
    """Every chip count × batch tried, its latency and cost; `frontier` indexes the points no
    other beats on both."""

    latency_s: Curve
    usd_per_million: Curve
    chips: Curve
    batch: Curve
    frontier: list[int]


class ReportAnswer(Answer):
    """`/api/report`: headline figures, the figures at the batch, the curves the page draws,
    and where a cost chart has nothing to draw, why (`cost_note`, `frontier_note`)."""

    model: str
    hardware: str
    chips: int
    deployment: DeploymentFields
    split: str
    engine: str
    warnings: list[str]
    latency_floor_s: float | None
    balance_batch: float | None
    balanced_context: float | None
    drain_time_s: float | None
    max_batch: int
    at_batch: AtBatch
    step_vs_batch: StepVsBatch
    step_vs_context: StepVsContext
    cost_vs_batch: CostVsBatch | None
    frontier: LatencyCostFrontier | None
    cost_note: str | None
    frontier_note: str | None


class PredictAnswer(Answer):
    """`/api/predict`: one scenario, the columns of `llm-roofline predict --json` (the ranges
    null for `ideal`, the cost null without a price)."""

    model: str
    hardware: str
    chips: int
    tp: int
    pp: int
    ep: int
    replicas: int
    pad_heads: bool
    weight_dtype: str
    kv_dtype: str
    batch: int
    input_len: int
    output_len: int
    mode: str
    engine: str
    tpot_s: float | None
    ttft_s: float | None
    request_latency_s: float | None
    output_tokens_per_s: float | None
    output_tokens_per_s_per_chip: float | None
    fits: bool
    bound: str
    t_compute_s: float | None
    t_weights_s: float | None
    t_kv_s: float | None
    t_comm_s: float | None
    usd_per_million_output_tokens: float | None
    tpot_s_low: float | None
    tpot_s_high: float | None
    ttft_s_low: float | None
    ttft_s_high: float | None
    request_latency_s_low: float | None
    request_latency_s_high: float | None
    output_tokens_per_s_low: float | None
    output_tokens_per_s_high: float | None
    output_tokens_per_s_per_chip_low: float | None
    output_tokens_per_s_per_chip_high: float | None
    split: str
    warning: str


class SweepRow(Answer):
    """One decode step of a sweep: the deployment, the point and its figures."""

    model: str
    hardware: str
    chips: int
    tp: int
    pp: int
    ep: int
    replicas: int
    batch: int
    context_len: int
    weight_dtype: str
    kv_dtype: str
    overlap: str
    engine: str
    t_matmul_s: float
    t_attn_s: float
    t_weights_s: float
    t_kv_s: float
    t_comm_s: float
    t_ideal_s: float
    t_step_s: float
    t_step_low_s: float | None
    t_step_high_s: float | None
    bound: str
    tokens_per_s: float
    usd_per_million_tokens: float | None
    memory_per_chip_bytes: float
    fits: bool


class SweepAnswer(Answer):
    """`/api/sweep`: a decode step per batch × context."""

    rows: list[SweepRow]


class OptimizeRow(Answer):
    """One split and batch the search evaluated."""

    chips: int
    tp: int
    pp: int
    ep: int
    dp: int
    batch: int
    tpot_s: float
    ttft_s: float
    tokens_per_s_per_user: float
    tokens_per_s: float
    tokens_per_s_per_chip: float
    usd_per_million_tokens: float


class OptimizeAnswer(Answer):
    """`/api/optimize`: the frontier of the splits tried and the cheapest meeting the targets
    (None when none does)."""

    engine: str
    frontier: list[OptimizeRow]
    best: OptimizeRow | None
    configs_tried: int
