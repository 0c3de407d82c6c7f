"""What matters most: how far each chip figure moves a deployment's speed and cost.

At a deployment, a context and a batch, each figure of the chip (dense FLOP/s, every data
type's peak at once; memory bandwidth; memory capacity; scale-up bandwidth; scale-out
bandwidth, the network a split crosses beyond one scale-up domain; price) is raised by `step`
(10% by default; from 0.1% to 100%) on a copy of the chip (`dataclasses.replace`), and the
engine is run again on the same split. Three figures are compared, each under the deployment's
engine:

- tokens/s per user: 1 / the time of a decode step (time per output token);
- throughput: the deployment's tokens/s, batch / time per output token;
- $ per million output tokens: all chips' price per second × time per step / batch.

Each change is given as a share (+0.087: "+10% memory bandwidth buys +8.7% tokens/s per
user") and as an elasticity, ln(new / old) / ln(1 + step): 1 where the figure is proportional
to the chip figure (a memory-bound step's tokens/s per user to bandwidth), 0 where it does not
depend on it (the same to FLOP/s), −1 where it is inversely proportional ($ per token to
bandwidth, in that regime).

Memory capacity changes no step time; it matters through the batch, so every answer is given
at a stated batch policy (POLICIES), the batch recomputed on each changed chip:

- `given`: the batch given, on every chip (capacity then moves nothing);
- `largest`: the largest batch that fits at the context;
- `target`: the largest batch that fits whose time per output token is within a target
  (only when a target is given).

The catalog ranking (which chip serves a model cheapest per token, and what bounds it) is
`chip_ranking.across_catalog`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from llm_roofline._core import checks
from llm_roofline._core.errors import InputError
from llm_roofline._core.units import mega
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.engine.cost import is_priced, usd_per_token_from
from llm_roofline.hardware.chip import Chip
from llm_roofline.whatif.batches import largest_batch
from llm_roofline.whatif.limits import DEFAULT_STEP, MAX_CHIPS, MAX_STEP, MIN_STEP

__all__ = [
    "BOUNDS",
    "DEFAULT_STEP",
    "FIGURES",
    "MAX_CHIPS",
    "MAX_STEP",
    "METRICS",
    "MIN_STEP",
    "POLICIES",
    "FigureEffect",
    "Operating",
    "PolicyEffects",
    "Sensitivity",
    "check_inputs",
    "check_max_chips",
    "operating_point",
    "scaled_chip",
    "sensitivity",
    "step_text",
]

# the chip figures varied, and their names in prose
FIGURES: dict[str, str] = {
    "flops": "dense FLOP/s",
    "memory_bandwidth": "memory bandwidth",
    "memory_capacity": "memory capacity",
    "scale_up_bandwidth": "scale-up bandwidth",
    "scale_out_bandwidth": "scale-out bandwidth",
    "price": "price",
}
# the deployment's figures compared
METRICS: dict[str, str] = {
    "tokens_per_s_per_user": "tokens/s per user",
    "tokens_per_s": "throughput",
    "usd_per_million_tokens": "$ per million tokens",
}
POLICIES: dict[str, str] = {
    "given": "the batch given",
    "largest": "the largest batch that fits",
    "target": "the largest batch that fits within the target time per output token",
}
# what a chip figure stands for when it is the one that bounds the cost per token
BOUNDS: dict[str, str] = {
    "flops": "compute",
    "memory_bandwidth": "memory bandwidth",
    "memory_capacity": "memory capacity",
    "scale_up_bandwidth": "communication",
    "scale_out_bandwidth": "communication",
}
_CHIP_ATTR = {
    "memory_bandwidth": "memory_bw",
    "memory_capacity": "memory_bytes",
    "scale_up_bandwidth": "scale_up_bw",
    "scale_out_bandwidth": "scale_out_bw",
    "price": "price_usd_per_s",
}


def scaled_chip(chip: Chip, figure: str, factor: float) -> Chip:
    """`chip` with one figure (a key of FIGURES) multiplied by `factor`; `flops` scales the
    dense peak of every data type."""
    checks.positive(factor, "factor", field="step")
    if figure == "flops":
        return replace(chip, peak_flops={k: v * factor for k, v in chip.peak_flops.items()})
    if figure not in _CHIP_ATTR:
        raise InputError(
            f"figure must be one of {', '.join(FIGURES)}, got {figure!r}", field="figure"
        )
    attr = _CHIP_ATTR[figure]
    return replace(chip, **{attr: getattr(chip, attr) * factor})


# ---- one operating point ----------------------------------------------------------------------


@dataclass(frozen=True)
class Operating:
    """A deployment decoding `batch` sequences at one context, under its engine."""

    batch: int
    fits: bool  # the batch fits in memory at the context
    tpot_s: float
    tokens_per_s_per_user: float
    tokens_per_s: float  # the whole deployment's
    usd_per_million_tokens: float | None  # None: the chip has no price
    bound: str  # what bounds the ideal step: compute, memory or communication


def operating_point(dep: Deployment, batch: int, context_len: int) -> Operating:
    """The figures of `dep` at `batch` and `context_len` (see Operating)."""
    step = dep.decode(batch, context_len)
    t, _, _ = dep.time(step)
    secs = float(np.asarray(t).flat[0])
    usd = usd_per_token_from(dep.system.price_usd_per_s, secs, batch, mega)
    return Operating(
        batch=int(batch),
        fits=bool(batch <= int(dep.max_batch(context_len))),
        tpot_s=secs,
        tokens_per_s_per_user=1.0 / secs,
        tokens_per_s=batch / secs,
        usd_per_million_tokens=float(usd) if is_priced(dep.chip) else None,
        bound=str(np.asarray(step.bound_names).flat[0]),
    )


# ---- the effect of each figure ----------------------------------------------------------------


@dataclass(frozen=True)
class FigureEffect:
    """One chip figure raised by the step: the operating point it gives (None when no batch
    satisfies the policy) and each metric's relative change and elasticity (None where a
    metric has no value, e.g. $ on a chip without a price)."""

    figure: str
    label: str
    point: Operating | None
    change: dict[str, float | None]
    elasticity: dict[str, float | None]


@dataclass(frozen=True)
class PolicyEffects:
    """The effects of every figure at one batch policy; `base` is None (with a note) when no
    batch satisfies the policy on the chip as it is."""

    policy: str
    description: str
    base: Operating | None
    effects: tuple[FigureEffect, ...]
    note: str = ""


def _policy_batch(
    dep: Deployment, policy: str, context_len: int, batch: int, tpot_s: float | None
) -> int:
    if policy == "given":
        return batch
    return largest_batch(dep, context_len, tpot_s if policy == "target" else None)


def _compare(
    base: Operating, new: Operating | None, step: float
) -> tuple[dict[str, float | None], dict[str, float | None]]:
    change: dict[str, float | None] = {}
    elasticity: dict[str, float | None] = {}
    for m in METRICS:
        old = getattr(base, m)
        now = getattr(new, m) if new is not None else None
        if old is None or now is None or not old > 0 or not now > 0:
            change[m] = elasticity[m] = None
        else:
            change[m] = now / old - 1.0
            elasticity[m] = math.log(now / old) / math.log1p(step)
    return change, elasticity


def policy_effects(
    dep: Deployment,
    policy: str,
    *,
    context_len: int,
    batch: int,
    tpot_s: float | None = None,
    step: float = DEFAULT_STEP,
) -> PolicyEffects:
    """Each figure of FIGURES raised by `step` at one batch policy (a key of POLICIES)."""
    if policy not in POLICIES:
        raise InputError(
            f"policy must be one of {', '.join(POLICIES)}, got {policy!r}", field="policy"
        )
    if policy == "target" and tpot_s is None:
        raise InputError("the target policy needs a target time per output token", "tpot_ms")
    b0 = _policy_batch(dep, policy, context_len, batch, tpot_s)
    if b0 < 1:
        why = (
            f"no batch that fits meets {(tpot_s or 0.0) * 1e3:.4g} ms per output token"
            if policy == "target" and int(dep.max_batch(context_len)) >= 1
            else f"the model does not fit at context {context_len:,}"
        )
        return PolicyEffects(policy, POLICIES[policy], None, (), why)
    base = operating_point(dep, b0, context_len)
    effects = []
    for fig, label in FIGURES.items():
        d = replace(dep, chip=scaled_chip(dep.chip, fig, 1.0 + step))
        b = _policy_batch(d, policy, context_len, batch, tpot_s)
        point = operating_point(d, b, context_len) if b >= 1 else None
        change, elasticity = _compare(base, point, step)
        effects.append(FigureEffect(fig, label, point, change, elasticity))
    note = "" if base.fits else f"batch {b0:,} does not fit at context {context_len:,}"
    return PolicyEffects(policy, POLICIES[policy], base, tuple(effects), note)


def _sentence(step: float, effects: Sequence[FigureEffect], metric: str, batch0: int) -> str:
    """ "+10% memory bandwidth buys +8.7% tokens/s per user; +10% dense FLOP/s buys +0.5%;
    +10% memory capacity, scale-up bandwidth or price buys 0%": largest effect first, the
    figures that move nothing together at the end. A figure whose rise lowers a rate (more
    capacity fits a larger batch than `batch0`: a slower step per sequence) "costs" it."""
    up = step_text(step)
    moved = sorted(
        (e for e in effects if e.change[metric] is not None and abs(e.change[metric] or 0) >= 5e-4),
        key=lambda e: -abs(e.change[metric] or 0.0),
    )
    still = [e.label for e in effects if e.change[metric] is not None and e not in moved]
    cost = metric == "usd_per_million_tokens"
    parts = []
    for i, e in enumerate(moved):
        c = e.change[metric] or 0.0
        if cost:
            what = "$ per million tokens" if i == 0 else "it"
            parts.append(f"{up} {e.label} {'cuts' if c < 0 else 'raises'} {what} by {abs(c):.1%}")
        elif c < 0:  # a larger batch the policy now allows: each sequence waits longer
            batch = e.point.batch if e.point is not None else batch0
            why = f" (at batch {batch:,}, not {batch0:,})" if batch != batch0 else ""
            parts.append(
                f"{up} {e.label} costs {abs(c):.1%}"
                + (f" {METRICS[metric]}" if i == 0 else "")
                + why
            )
        else:
            parts.append(
                f"{up} {e.label} buys {c:+.1%}" + (f" {METRICS[metric]}" if i == 0 else "")
            )
    if still:
        names = still[0] if len(still) == 1 else ", ".join(still[:-1]) + " or " + still[-1]
        if cost:
            parts.append(
                f"{up} {names} leaves {'it' if moved else '$ per million tokens'} unchanged"
            )
        else:
            parts.append(f"{up} {names} buys 0%" + ("" if moved else f" {METRICS[metric]}"))
    return "; ".join(parts)


@dataclass(frozen=True)
class Sensitivity:
    """The effects of each chip figure on a deployment at every batch policy."""

    deployment: dict[str, Any]
    split: str
    engine: str
    context_len: int
    batch: int
    step: float
    tpot_target_s: float | None
    policies: tuple[PolicyEffects, ...]

    def sentences(self) -> list[str]:
        """One line per policy and metric, figures by the size of their effect: "At batch 64
        (the batch given): +10% memory bandwidth buys +8.7% tokens/s per user; ..."."""
        out = []
        for p in self.policies:
            if p.base is None:
                out.append(f"At {p.description}: {p.note}.")
                continue
            fits = "" if p.base.fits else ", which does not fit"
            head = f"At batch {p.base.batch:,} ({p.description}{fits})"
            for m in METRICS:
                text = _sentence(self.step, p.effects, m, p.base.batch)
                if text:
                    out.append(f"{head}: {text}.")
        return out

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sentences"] = self.sentences()
        return d


def check_max_chips(max_chips: int) -> int:
    """`max_chips` of a search (the catalog ranking's, fast-mode's more chips): a positive
    integer, at most MAX_CHIPS, a limit on the search's work."""
    n = checks.positive_int(max_chips, "max_chips")
    if n > MAX_CHIPS:
        raise InputError(
            f"max_chips must be at most {MAX_CHIPS:,} (a limit on the search), got {n:,}",
            field="max_chips",
        )
    return n


def step_text(step: float) -> str:
    """The step as the output prints it, never rounded: 0.1 -> "+10%", 0.025 -> "+2.5%"."""
    return f"+{step * 100:g}%"


def check_inputs(context_len: int, batch: int, step: float, tpot_s: float | None) -> None:
    checks.positive_int(context_len, "context_len")
    checks.positive_int(batch, "batch")
    ok = isinstance(step, (int, float)) and not isinstance(step, bool)
    if not (ok and math.isfinite(step) and MIN_STEP <= step <= MAX_STEP):
        raise InputError(
            f"step must be from {MIN_STEP:g} to {MAX_STEP:g} (a share: 0.1 = +10%; step_pct "
            f"{MIN_STEP * 100:g} to {MAX_STEP * 100:g}), got {step!r}",
            field="step",
        )
    if tpot_s is not None:
        checks.positive(tpot_s, "the target", field="tpot_ms")


def sensitivity(
    dep: Deployment,
    *,
    context_len: int = 4096,
    batch: int,
    tpot_s: float | None = None,
    step: float = DEFAULT_STEP,
) -> Sensitivity:
    """The effect of raising each chip figure by `step` on tokens/s per user, throughput and $
    per million tokens, at the policies `given` and `largest`, and `target` when `tpot_s`
    (seconds per output token) is given. See the module docstring."""
    check_inputs(context_len, batch, step, tpot_s)
    policies = ["given", "largest"] + (["target"] if tpot_s is not None else [])
    kw: dict[str, Any] = {"context_len": context_len, "batch": batch, "tpot_s": tpot_s}
    return Sensitivity(
        deployment=dep.as_dict(),
        split=dep.split_text(),
        engine=dep.engine,
        context_len=int(context_len),
        batch=int(batch),
        step=float(step),
        tpot_target_s=tpot_s,
        policies=tuple(policy_effects(dep, p, step=step, **kw) for p in policies),
    )
