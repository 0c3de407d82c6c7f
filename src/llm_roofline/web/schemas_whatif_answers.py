"""The JSON the what-if routes answer: `/api/sensitivity` and `/api/fast-mode` (see
`schemas_answers.py` for the rules: keys in the order returned, `| None` where a figure can be
null)."""

from __future__ import annotations

from pydantic import Field

from llm_roofline.web.schemas_answers import Answer, DeploymentFields

__all__ = ["FastModeAnswer", "SensitivityAnswer"]

Rates = dict[str, float | None]  # by metric: tokens_per_s_per_user, tokens_per_s, usd_per_...


class OperatingPoint(Answer):
    """A deployment decoding `batch` sequences at the context: its figures (the $ null
    without a price) and what bounds the ideal step."""

    batch: int
    fits: bool
    tpot_s: float | None
    tokens_per_s_per_user: float | None
    tokens_per_s: float | None
    usd_per_million_tokens: float | None
    bound: str


class FigureEffect(Answer):
    """One chip figure raised by the step: the point it gives (null when no batch satisfies
    the policy), each metric's relative change and elasticity (null where it has no value)."""

    figure: str
    label: str
    point: OperatingPoint | None
    change: Rates
    elasticity: Rates


class PolicyEffects(Answer):
    """The effects of every figure at one batch policy (`base` null, with a note, when no
    batch satisfies it)."""

    policy: str
    description: str
    base: OperatingPoint | None
    effects: list[FigureEffect]
    note: str


class ChipChoice(Answer):
    """The cheapest way one catalog chip serves the model (nulls and a `reason` when it
    cannot) and what bounds it."""

    hardware: str
    name: str
    price_usd_per_hour: float | None
    chips: int | None
    tp: int | None
    pp: int | None
    ep: int | None
    dp: int | None
    batch: int | None
    tpot_s: float | None
    tokens_per_s_per_user: float | None
    tokens_per_s_per_chip: float | None
    usd_per_million_tokens: float | None
    step_bound: str | None
    bound: str | None
    bound_cost_change: float | None
    cost_elasticity: dict[str, float | None]
    reason: str


class CatalogRanking(Answer):
    """Every catalog chip, cheapest per token first (those that cannot serve last)."""

    model: str
    context_len: int
    max_chips: int
    tpot_target_s: float | None
    engine: str
    policy: str
    rows: list[ChipChoice]
    cheapest: str | None


class SensitivityAnswer(Answer):
    """`/api/sensitivity` (`llm-roofline sensitivity --json`): each chip figure's effect at
    every batch policy, in sentences too, and with `across_catalog` every chip's cheapest
    setting (`catalog`, else null)."""

    deployment: DeploymentFields
    split: str
    engine: str
    context_len: int
    batch: int
    step: float
    tpot_target_s: float | None
    policies: list[PolicyEffects]
    sentences: list[str]
    catalog: CatalogRanking | None


class Setting(Answer):
    """One way of serving: chips, split, batch (and speculation: γ and acceptance, null
    without), what it gives, its speed-up and price multiple against the base."""

    option: str
    chips: int
    tp: int
    pp: int
    ep: int
    replicas: int
    split: str
    batch: int
    gamma: int | None
    acceptance: float | None
    tpot_s: float | None
    tokens_per_s_per_user: float | None
    tokens_per_s: float | None
    usd_per_million_tokens: float | None
    speedup: float | None
    price_multiple: float | None


class OptionCurve(Answer):
    """An option's frontier of price multiple against speed-up (fastest last); empty for an
    option with no setting."""

    speedup: list[float | None] = Field(default_factory=list)
    price_multiple: list[float | None] = Field(default_factory=list)
    batch: list[float | None] = Field(default_factory=list)
    chips: list[float | None] = Field(default_factory=list)


class OptionResult(Answer):
    """One option: the cheapest setting reaching the factor (`reaches`), else the fastest it
    gets (null when it has none, with a note), and its frontier."""

    option: str
    label: str
    reaches: bool
    setting: Setting | None
    note: str
    curve: OptionCurve


class FastModeAnswer(Answer):
    """`/api/fast-mode` (`llm-roofline fast-mode --json`): the base, each option tried, the
    cheapest reaching the factor (null when none does), the latency floor, the draft used, the
    model's MTP layers and why an option was not tried (`not_tried`, by option)."""

    deployment: DeploymentFields
    engine: str
    context_len: int
    batch: int
    speedup: float
    target_tpot_s: float
    max_chips: int
    base: Setting
    options: list[OptionResult]
    cheapest: str | None
    reachable: bool
    latency_floor_s: float | None
    latency_floor: str
    message: str
    draft: str
    mtp_layers: int
    not_tried: dict[str, str]
