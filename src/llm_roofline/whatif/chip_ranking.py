"""Which chip of the catalog serves a model cheapest per token, and what bounds each.

`across_catalog` asks which catalog chip serves the model cheapest per token: for each priced
chip the optimizer (`optimize.search`) finds the cheapest chips × split × batch up to a chip
count (within the target, when one is given); the batch of that split is then refined to the
largest that fits (within the target), and what bounds the chip is named: the figure whose +10%
cuts $ per token most (FLOP/s: compute; memory bandwidth; memory capacity; scale-up or
scale-out bandwidth: communication). docs/whatif.md has a worked example.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from llm_roofline._core.errors import LlmRooflineError
from llm_roofline._core.units import hour
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.engine.cost import is_priced, unpriced_reason
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.hardware.catalog import get_hardware, list_hardware
from llm_roofline.hardware.chip import Chip
from llm_roofline.planning.optimize import search
from llm_roofline.whatif.fast_options import on_split
from llm_roofline.whatif.sensitivity import (
    BOUNDS,
    DEFAULT_STEP,
    FIGURES,
    POLICIES,
    PolicyEffects,
    check_inputs,
    check_max_chips,
    policy_effects,
    step_text,
)

__all__ = ["CatalogRanking", "ChipChoice", "across_catalog"]


@dataclass(frozen=True)
class ChipChoice:
    """The cheapest way one chip serves the model (None fields and a `reason` when it cannot)
    and what bounds it: `step_bound` is the ideal step's (compute, memory or communication),
    `bound` the figure whose +step cuts $ per token most (compute, memory bandwidth, memory
    capacity, communication; None when none does), `bound_cost_change` by how much, from
    `cost_elasticity` (of $ per token to each figure)."""

    hardware: str
    name: str
    price_usd_per_hour: float | None
    chips: int | None = None
    tp: int | None = None
    pp: int | None = None
    ep: int | None = None
    dp: int | None = None
    batch: int | None = None
    tpot_s: float | None = None
    tokens_per_s_per_user: float | None = None
    tokens_per_s_per_chip: float | None = None
    usd_per_million_tokens: float | None = None
    step_bound: str | None = None
    bound: str | None = None
    bound_cost_change: float | None = None  # $ per token's relative change at +step of it
    cost_elasticity: dict[str, float | None] = field(default_factory=dict)
    reason: str = ""


@dataclass(frozen=True)
class CatalogRanking:
    """Every chip of the catalog, cheapest per token first (those that cannot serve last)."""

    model: str
    context_len: int
    max_chips: int
    tpot_target_s: float | None
    engine: str
    policy: str
    rows: tuple[ChipChoice, ...]
    cheapest: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _choice(
    dep: Deployment,
    chip: Chip,
    *,
    context_len: int,
    max_chips: int,
    tpot_s: float | None,
    step: float,
) -> ChipChoice:
    price = chip.price_usd_per_s * hour or None
    head: dict[str, Any] = {"hardware": chip.id, "name": chip.name, "price_usd_per_hour": price}
    if not is_priced(chip):
        return ChipChoice(**head, reason=unpriced_reason(chip))
    try:
        d = dep.on(chip, 1)
        res = search(d, max_chips, context_len=context_len, tpot_s=tpot_s)
    except LlmRooflineError as exc:
        fits = "fits on no split" in str(exc)
        why = f"does not fit on up to {max_chips} chips at context {context_len:,}"
        return ChipChoice(**head, reason=why if fits else str(exc))
    if res.best is None:
        return ChipChoice(
            **head,
            reason=f"no configuration of up to {max_chips} chips meets "
            f"{(tpot_s or 0) * 1e3:.4g} ms per output token",
        )
    row = res.row(res.best)
    best = on_split(d, row["chips"], Parallelism(row["chips"], row["tp"], row["pp"], row["ep"]))
    policy = "target" if tpot_s is not None else "largest"
    effects = policy_effects(
        best, policy, context_len=context_len, batch=row["batch"], tpot_s=tpot_s, step=step
    )
    point = effects.base
    assert point is not None  # the search's own point satisfies the policy
    split = {k: row[k] for k in ("chips", "tp", "pp", "ep", "dp")}
    return ChipChoice(
        **head,
        **split,
        batch=point.batch,
        tpot_s=point.tpot_s,
        tokens_per_s_per_user=point.tokens_per_s_per_user,
        tokens_per_s_per_chip=point.tokens_per_s / row["chips"],
        usd_per_million_tokens=point.usd_per_million_tokens,
        step_bound=point.bound,
        **_what_bounds(effects, step),
    )


def _what_bounds(effects: PolicyEffects, step: float) -> dict[str, Any]:
    """The figure whose rise cuts $ per token most (`bound`, None when none does), by how
    much, every figure's elasticity of $ per token, and the reason in words."""
    point = effects.base
    assert point is not None
    usd = "usd_per_million_tokens"
    cost = {e.figure: e.elasticity[usd] for e in effects.effects}
    top = min(BOUNDS, key=lambda f: cost[f] or 0.0)
    change = next(e.change[usd] for e in effects.effects if e.figure == top) or 0.0
    reason = (
        f"{step_text(step)} {FIGURES[top]} cuts its $ per million tokens by {-change:.1%}; the "
        f"ideal step is {point.bound}-bound at {POLICIES[effects.policy]}"
    )
    cuts = (cost[top] or 0.0) < 0
    return {
        "bound": BOUNDS[top] if cuts else None,
        "bound_cost_change": change if cuts else None,
        "cost_elasticity": cost,
        "reason": reason,
    }


def across_catalog(
    dep: Deployment,
    *,
    context_len: int = 4096,
    max_chips: int = 8,
    tpot_s: float | None = None,
    hardware: Sequence[str | Chip] | None = None,
    step: float = DEFAULT_STEP,
) -> CatalogRanking:
    """Which chip serves `dep`'s model (its data types, overlap and engine) cheapest per token,
    and what bounds each: the catalog's chips by default (the deployment's own chip, with its
    price, in place of its catalog entry), each on up to `max_chips` chips (at most 1,024).
    See the module docstring."""
    check_inputs(context_len, 1, step, tpot_s)
    check_max_chips(max_chips)
    chips: list[Chip] = [dep.chip]
    for h in hardware if hardware is not None else list_hardware():
        c = get_hardware(h)
        if c.id != dep.chip.id:
            chips.append(c)
    if hardware is not None and dep.chip.id not in {get_hardware(h).id for h in hardware}:
        chips = chips[1:]
    kw: dict[str, Any] = {"context_len": context_len, "max_chips": max_chips, "tpot_s": tpot_s}
    rows = [_choice(dep, c, step=step, **kw) for c in chips]
    priced = sorted(
        (r for r in rows if r.usd_per_million_tokens is not None),
        key=lambda r: (r.usd_per_million_tokens or 0.0, r.hardware),
    )
    rest = sorted((r for r in rows if r.usd_per_million_tokens is None), key=lambda r: r.hardware)
    return CatalogRanking(
        model=dep.model_id or dep.spec.name,
        context_len=int(context_len),
        max_chips=int(max_chips),
        tpot_target_s=tpot_s,
        engine=dep.engine,
        policy="target" if tpot_s is not None else "largest",
        rows=(*priced, *rest),
        cheapest=priced[0].hardware if priced else None,
    )
