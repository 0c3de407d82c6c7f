"""The body of `/api/report`: a deployment's headline figures, the figures at the chosen
batch with a one-line reading of its regime, and the curves the page draws (each about 200
points), the ideal bound beside the engine's estimate with its range, the warnings (an
uploaded config of an unknown `model_type`, a context beyond the model's trained maximum) and,
where a cost chart has nothing to draw, the line saying why (no price, price 0, nothing fits).
Every number comes from the library (`report`, `curves`); this module only picks and shapes
them for JSON (and gives a user's tokens/s, a token each step: 1 / the step)."""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_roofline._core.errors import LlmRooflineError
from llm_roofline._core.units import mega
from llm_roofline.deploy.curves import (
    StepCurve,
    batch_axis,
    cost_vs_batch,
    latency_cost_grid,
    step_vs_batch,
    step_vs_context,
)
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.deploy.report_table import DecodeReport, decode_report, fit_message
from llm_roofline.engine.cost import is_priced, pareto_frontier
from llm_roofline.engine.roofline import balanced_context
from llm_roofline.model.hf.config import unknown_type_note
from llm_roofline.web.schemas import ReportRequest

__all__ = ["POINTS", "config_warnings", "context_axis", "context_warnings", "report_body"]

POINTS = 200
_TERMS = (
    "t_compute_s",
    "t_matmul_s",
    "t_weights_s",
    "t_kv_s",
    "t_comm_s",
    "t_memory_s",
    "t_ideal_s",
    "t_step_s",
    "t_step_low_s",
    "t_step_high_s",
)


def _f(a: Any) -> list[float | None]:
    """Numbers for JSON (NaN, e.g. a cost without a price, becomes null)."""
    return [float(x) if np.isfinite(x) else None for x in np.asarray(a, dtype=np.float64).ravel()]


def _one(a: Any) -> float | None:
    return _f(a)[0]


def _curve(c: StepCurve) -> dict[str, Any]:
    figures = c.figures.as_dict()
    out: dict[str, Any] = {c.axis: _f(c.points), **{k: _f(figures[k]) for k in _TERMS}}
    out["fits"] = [bool(x) for x in np.asarray(c.fits).ravel()]
    return out


def _regime(bound: str, t_c: float, t_w: float, t_kv: float, fits: bool) -> str:
    """One line for a reader, from the engine's terms (no arithmetic beyond ordering)."""
    if not fits:
        return "This batch does not fit in memory: fewer sequences, more chips or smaller types."
    if bound == "compute":
        return (
            "Compute-bound: the chips' FLOP/s set the step; a bigger batch costs time but "
            "not money per token."
        )
    if t_w >= t_kv:
        return (
            "Memory-bound on the weights: the step barely grows with batch, so batching "
            "more is almost free and lowers the cost per token."
        )
    return (
        "Memory-bound on the KV cache: every sequence's context is read each step; "
        "shorter contexts or a smaller KV type help, batching does not."
    )


def _at_batch(dep: Deployment, req: ReportRequest) -> dict[str, Any]:
    """The figures at the request's batch and context, and what bounds them."""
    S = req.context_len
    here = step_vs_batch(dep, S, [req.batch])
    mem = dep.memory(req.batch, S)
    fits = bool(mem.fits.flat[0])
    bound = str(here.figures.bound[0])
    at = {k: _one(v) for k, v in here.items() if k not in ("bound", "fits", "batch")}
    if dep.profile is None:
        at["t_step_low_s"] = at["t_step_high_s"] = None
    if not is_priced(dep.chip):
        at["usd_per_million_tokens"] = None
    # each sequence gets one token a step: a user's tokens/s (the whole batch's is tokens_per_s)
    t = at["t_step_s"]
    at["tokens_per_s_per_user"] = 1.0 / t if t else None
    return {
        "batch": req.batch,
        "context_len": S,
        **at,
        "bound": bound,
        "fits": fits,
        "fit_message": fit_message(dep, S, req.batch),
        "memory_per_chip_bytes": float(mem.total.flat[0]),
        "memory_capacity_bytes": float(mem.capacity),
        "regime": _regime(
            bound,
            float(here.figures.t_compute_s[0]),
            float(here.figures.t_weights_s[0]),
            float(here.figures.t_kv_s[0]),
            fits,
        ),
    }


def _unpriced_note(dep: Deployment, req: ReportRequest) -> str:
    """Why there is no $ figure: a price of 0 (hardware you own) or no price at all."""
    if req.price_usd_per_hour == 0:
        return "price 0: hardware you own, so no $ per token"
    return f"no price for {dep.chip.id}: give one (Price, $ per chip-hour)"


def _costs(dep: Deployment, req: ReportRequest, B: Any) -> dict[str, Any]:
    """Cost per token against batch and the latency-cost frontier (a chip with a price), each
    with the line the page shows instead when there is none (`cost_note`, `frontier_note`)."""
    S = req.context_len
    out: dict[str, Any] = {
        "cost_vs_batch": None,
        "frontier": None,
        "cost_note": None,
        "frontier_note": None,
    }
    if not is_priced(dep.chip):
        out["cost_note"] = out["frontier_note"] = _unpriced_note(dep, req)
        return out
    c = cost_vs_batch(dep, S, B)
    out["cost_vs_batch"] = {
        "batch": _f(B),
        **{f"{k}_usd_per_million": _f(v * mega) for k, v in c.items() if k != "batch"},
    }
    most = max(dep.chips, dep.chip.scale_up_domain, 8)  # the grid's own default, named here
    g = latency_cost_grid(dep, S, max_chips=most)
    if g.chips.size:
        front = pareto_frontier(g.latency_s, g.usd_per_token)
        out["frontier"] = {
            "latency_s": _f(g.latency_s),
            "usd_per_million": _f(g.usd_per_token * mega),
            "chips": _f(g.chips),
            "batch": _f(g.batch),
            "frontier": [int(i) for i in front],
        }
    else:
        out["frontier_note"] = (
            f"nothing to draw: at context {S:,} not one sequence fits on the chip counts the "
            f"frontier tries (powers of two up to {most:,} × {dep.chip.id}, each split by "
            "the rule); the line above says what would fit"
        )
    return out


def config_warnings(req: ReportRequest) -> list[str]:
    """The note reading the request's uploaded config gives (an unknown `model_type`; none for
    a catalog model): `hf_config.unknown_type_note`, a pure call, so that no other request's
    warning can land in this answer."""
    if req.config is None:
        return []
    try:
        note = unknown_type_note(req.config, name=req.model or "uploaded config", source="upload")
    except LlmRooflineError:  # refused: the deployment's own error says so
        return []
    return [note] if note else []


def context_warnings(rep: DecodeReport) -> list[str]:
    """The command line's warning for a context beyond the model's trained maximum."""
    if not rep.beyond_max_context or rep.max_context is None:
        return []
    return [
        f"context {rep.context_len:,} is beyond the model's trained maximum "
        f"({rep.max_context:,}); the numbers extrapolate"
    ]


def _released(dep: Deployment) -> list[str]:
    """The command line's note when the weights are read in another type than released."""
    from llm_roofline.deploy.report_table import released_dtype_note

    note = released_dtype_note(dep)
    return [note] if note else []


def context_axis(dep: Deployment, context_len: int, points: int = POINTS) -> Any:
    """Contexts for the step-vs-context chart: from 64 tokens to the model's trained maximum
    (at least 131,072), or a quarter past the chosen context when it is beyond that; the
    chosen context itself always on the axis."""
    top = max(dep.model.max_context or 0, 131072)
    if context_len > top:
        top = int(np.ceil(1.25 * context_len))
    return np.unique(np.append(np.geomspace(64, top, points).round(), context_len))


def report_body(dep: Deployment, req: ReportRequest) -> dict[str, Any]:
    """Headline figures and the curves the page draws, for one deployment."""
    S = req.context_len
    rep = decode_report(dep, context_len=S)
    B, _ = batch_axis(dep, S, POINTS)
    B = np.unique(np.append(B, req.batch))  # the chosen batch is always on the axis
    spec = dep.model
    contexts = context_axis(dep, S)
    return {
        "model": spec.name,
        "hardware": dep.chip.id,
        "chips": dep.chips,
        "deployment": dep.as_dict(),
        "split": dep.split_text(),
        "engine": dep.engine,
        "warnings": config_warnings(req) + context_warnings(rep) + _released(dep),
        "latency_floor_s": rep.latency_floor_s,
        "balance_batch": rep.balance_batch,
        "balanced_context": balanced_context(
            spec, dep.chip, kv_dtype=dep.kv_dtype, weight_dtype=dep.weight_dtype
        ),
        "drain_time_s": rep.drain_time_s,
        "max_batch": rep.max_batch,
        "at_batch": _at_batch(dep, req),
        "step_vs_batch": _curve(step_vs_batch(dep, S, B)),
        "step_vs_context": _curve(step_vs_context(dep, req.batch, contexts)),
        **_costs(dep, req, B),
    }
