"""The curves every surface draws, one library function each (the figures, the page and the
report call these; none of them computes a time itself).

Each function takes a `Deployment` and returns plain numpy arrays in SI units: the ideal
terms of the step (the lower bound), the step time under the deployment's engine with its
range, cost per token and memory fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.records import JsonRecord
from llm_roofline._core.units import mega
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.engine.candidates import candidates
from llm_roofline.engine.cost import cost_terms, usd_per_token_from
from llm_roofline.engine.roofline import StepTime

__all__ = [
    "CostCurve",
    "LatencyCostGrid",
    "StepCurve",
    "StepFigures",
    "batch_axis",
    "cost_vs_batch",
    "cost_vs_tokens_per_pass",
    "latency_cost_grid",
    "step_figures",
    "step_vs_batch",
    "step_vs_context",
]


@dataclass(frozen=True, eq=False)
class StepFigures(JsonRecord):
    """The ideal terms of a decode pass and its time under the deployment's engine: seconds
    for times, tokens/s, $ per million tokens (NaN when the chip has no price), the bound."""

    t_compute_s: FloatArray
    t_matmul_s: FloatArray
    t_weights_s: FloatArray
    t_kv_s: FloatArray
    t_comm_s: FloatArray
    t_memory_s: FloatArray
    t_ideal_s: FloatArray
    t_step_s: FloatArray
    t_step_low_s: FloatArray
    t_step_high_s: FloatArray
    tokens_per_s: FloatArray
    usd_per_million_tokens: FloatArray
    bound: NDArray[np.str_]


@dataclass(frozen=True, eq=False)
class StepCurve(JsonRecord):
    """A decode step's figures along one axis (`axis`: "batch" or "context_len"), with
    whether each point fits in memory."""

    axis: str
    points: FloatArray  # the axis's values
    figures: StepFigures
    fits: NDArray[np.bool_]

    def as_dict(self) -> dict[str, Any]:
        return {self.axis: self.points, **self.figures.as_dict(), "fits": self.fits}


@dataclass(frozen=True, eq=False)
class CostCurve(JsonRecord):
    """$ per token each ideal term would cost on its own (compute, weights, kv,
    communication, step: `cost.cost_terms`) and the pass under the engine, along `axis`."""

    axis: str
    points: FloatArray  # the axis's values
    terms: dict[str, FloatArray]

    def as_dict(self) -> dict[str, Any]:
        return {self.axis: self.points, **self.terms}


@dataclass(frozen=True, eq=False)
class LatencyCostGrid(JsonRecord):
    """Points of chips × batch: each one's split, time per output token and $ per token."""

    chips: FloatArray
    tp: FloatArray
    pp: FloatArray
    ep: FloatArray
    replicas: FloatArray
    batch: FloatArray
    latency_s: FloatArray
    usd_per_token: FloatArray


def step_figures(dep: Deployment, step: StepTime) -> StepFigures:
    """The ideal terms of a decode pass and its time under the deployment's engine."""
    t, lo, hi = dep.time(step)
    tokens = step.tokens
    usd = usd_per_token_from(dep.system.price_usd_per_s, t, tokens, mega)
    return StepFigures(
        t_compute_s=np.asarray(step.t_compute),
        t_matmul_s=np.asarray(step.t_matmul),
        t_weights_s=np.asarray(step.t_weights),
        t_kv_s=np.asarray(step.t_kv),
        t_comm_s=np.asarray(step.t_comm),
        t_memory_s=np.asarray(step.t_memory),
        t_ideal_s=np.asarray(step.t_step),
        t_step_s=np.asarray(t),
        t_step_low_s=np.asarray(lo),
        t_step_high_s=np.asarray(hi),
        tokens_per_s=np.asarray(tokens / t),
        usd_per_million_tokens=np.asarray(usd),
        bound=np.asarray(step.bound_names),
    )


def batch_axis(dep: Deployment, context_len: int, points: int = 200) -> tuple[FloatArray, int]:
    """Batches to draw and the largest that fits. The axis ends a little (30%) past the largest
    batch that fits, so the span beyond it shows without dwarfing what can run; when not one
    sequence fits, it runs to 2.5 B* (of the whole deployment). Evenly spaced points for a
    linear axis and as many spaced by ratio for a log one, so both draw smooth."""
    fit = int(dep.max_batch(context_len))
    if fit >= 1:
        top = max(int(np.ceil(1.3 * fit)), 16)
    else:
        top = max(int(2.5 * dep.balance_batch), 16)
    grid = np.concatenate([np.linspace(1, top, points), np.geomspace(1, top, points)])
    return np.unique(np.append(grid.round(), fit if fit >= 1 else 1)), fit


def step_vs_batch(dep: Deployment, context_len: int, batches: ArrayLike) -> StepCurve:
    """Figures of the decode step over `batches` at one context, with whether each fits."""
    B = np.asarray(batches, dtype=np.float64)
    figures = step_figures(dep, dep.decode(B, context_len))
    return StepCurve("batch", B, figures, np.asarray(B <= int(dep.max_batch(context_len))))


def step_vs_context(dep: Deployment, batch: int, contexts: ArrayLike) -> StepCurve:
    """Figures of the decode step over `contexts` at one batch, with whether each fits."""
    S = np.asarray(contexts, dtype=np.float64)
    figures = step_figures(dep, dep.decode(batch, S))
    return StepCurve("context_len", S, figures, np.asarray(dep.memory(batch, S).fits))


def cost_vs_batch(dep: Deployment, context_len: int, batches: ArrayLike) -> CostCurve:
    """$ per token each ideal term would cost on its own (compute and KV floors, the weight
    hyperbola) and the step's cost under the engine, over `batches`."""
    B = np.asarray(batches, dtype=np.float64)
    step = dep.decode(B, context_len)
    terms = cost_terms(step)  # raises when the chip has no price
    t, _, _ = dep.time(step)
    terms["engine"] = usd_per_token_from(dep.system.price_usd_per_s, t, step.tokens)
    return CostCurve("batch", B, terms)


def cost_vs_tokens_per_pass(dep: Deployment, tokens: ArrayLike) -> CostCurve:
    """$ per token processed against tokens per pass T (decode = 1, a prefill = its prompt),
    each term on its own and the pass under the engine: one sequence of T tokens on every
    independent group (replicas × data-parallel groups), so that no chip idles, empty cache."""
    T = np.asarray(tokens, dtype=np.float64)
    step = dep.prefill(dep.groups, T)
    terms = cost_terms(step)  # raises when the chip has no price
    t, _, _ = dep.time(step, is_prefill=True)
    terms["engine"] = usd_per_token_from(dep.system.price_usd_per_s, t, step.tokens)
    return CostCurve("tokens_per_pass", T, terms)


def latency_cost_grid(
    dep: Deployment, context_len: int, max_chips: int | None = None
) -> LatencyCostGrid:
    """Time per output token and $ per token over chip counts (powers of two up to the scale-up
    domain or 8, and the deployment's own) × batches (powers of two that fit and the largest),
    each chip count split by the deployment rule (a split the chip's links cannot carry is
    left out: `engine.candidates`), timed under the deployment's engine."""
    limit = max_chips or max(dep.chips, dep.chip.scale_up_domain, 8)
    counts = sorted({n for n in (2**k for k in range(13)) if n <= limit} | {dep.chips})
    by_rule = {n: dep if n == dep.chips else dep.with_chips(n, keep_split=False) for n in counts}
    cols: dict[str, list[float]] = {
        k: []
        for k in ("chips", "tp", "pp", "ep", "replicas", "batch", "latency_s", "usd_per_token")
    }
    for n, _ in candidates(dep.model, dep.chip, dep.comm, counts, lambda n: [by_rule[n].parallel]):
        d = by_rule[n]
        fit = int(d.max_batch(context_len))
        if fit < 1:
            continue
        B = np.asarray(sorted({b for b in (2**k for k in range(21)) if b <= fit} | {fit}), float)
        step = d.decode(B, context_len)
        t, _, _ = d.time(step)
        m = B.size
        for k, v in (("chips", n), ("tp", d.tp), ("pp", d.pp), ("ep", d.ep)):
            cols[k] += [float(v)] * m
        cols["replicas"] += [float(d.replicas)] * m
        cols["batch"] += list(B)
        cols["latency_s"] += list(t)
        cols["usd_per_token"] += list(usd_per_token_from(d.system.price_usd_per_s, t, B))
    return LatencyCostGrid(**{k: np.asarray(v, dtype=np.float64) for k, v in cols.items()})
